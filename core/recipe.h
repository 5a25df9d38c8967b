#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

/// Bytes each parameter costs in training, by model state.
///
/// Follows the ZeRO paper's accounting (Rajbhandari et al. SC 2020,
/// arXiv:1910.02054, section 3.1): mixed-precision Adam is 2 (bf16 weights) +
/// 2 (bf16 gradients) + 4 (fp32 master weights) + 8 (fp32 Adam m and v) = 16.
/// Presets live in resources/recipes.json; every field stays editable.
struct Recipe
{
    std::string id;                     ///< e.g. "mixed-adam"
    std::string displayName;            ///< e.g. "Mixed-precision AdamW (16 B/param)"
    std::string source;                 ///< paper or code the numbers follow
    std::int64_t weightBytes = 2;       ///< working weights (bf16: 2, fp32: 4)
    std::int64_t gradientBytes = 2;     ///< gradients (bf16: 2, fp32 accumulation: 4)
    std::int64_t masterWeightBytes = 4; ///< fp32 master copy (0 without one)
    std::int64_t optimizerBytes = 8;    ///< all optimizer moments together (Adam fp32: 4 + 4)

    /// weights + gradients + master weights + optimizer states, bytes / parameter.
    std::int64_t totalBytesPerParameter() const
    {
        return weightBytes + gradientBytes + masterWeightBytes + optimizerBytes;
    }
};

/// Empty when every field is in 0..64 bytes and the total is positive; else a reason.
std::string validateRecipe(const Recipe &r);

/// How a frozen (LoRA) base model's linear weights are stored.
enum class BaseFormat
{
    Bf16 = 0, ///< 2 bytes per weight
    Fp16 = 1, ///< 2 bytes per weight
    /// LLM.int8 (bitsandbytes Int8Params): 1 byte per weight + one fp32 scale per output
    /// row (Dettmers et al. 2022).
    Int8 = 2,
    /// QLoRA's 4-bit NormalFloat with double quantization (Dettmers et al. 2023, section
    /// 3): 4 bits per weight, one 8-bit absmax per 64-weight block, and one fp32 scale
    /// per 256 blocks (bitsandbytes Linear4bit, compress_statistics=True).
    Nf4 = 3
};
/// "bf16", "fp16", "int8", "nf4".
std::string_view baseFormatId(BaseFormat f);
/// Inverse of baseFormatId (also "4bit", "8bit"); nullopt when unknown.
std::optional<BaseFormat> parseBaseFormat(std::string_view text);

/// Bytes of one frozen weight matrix of `elements` weights and `rows` output rows in
/// format `f`: bf16/fp16 2 x elements; int8 elements + 4 x rows; nf4 ceil(elements / 2)
/// + ceil(elements / 64) + 4 x ceil(ceil(elements / 64) / 256) (0.5 + 0.127 / 8 bytes
/// per weight, QLoRA section 3 "Double Quantization") + nf4QuantStateBytes.
std::int64_t frozenMatrixBytes(BaseFormat f, std::int64_t elements, std::int64_t rows);

/// bitsandbytes' per-matrix constants of an nf4 weight with double quantization, besides
/// the absmax of every block (bitsandbytes/functional.py at 95f9af3): the 16-entry fp32
/// NF4 code (get_4bit_type, line 854, called by quantize_4bit, line 936; 64 bytes), the
/// fp32 offset subtracted from the
/// absmax before it is quantized (quantize_4bit, line 939, 4 bytes), and the nested
/// state's own copy of the 256-entry fp32 dynamic code (quantize_blockwise,
/// code.to(A.device, copy=True), line 670, 1,024 bytes): 1,092 bytes.
inline constexpr std::int64_t nf4QuantStateBytes = 16 * 4 + 4 + 256 * 4;

/// The transient copy bitsandbytes makes of one frozen matrix of `elements` weights in
/// format `f` to multiply with it in training, bytes: nf4 dequantizes the whole weight
/// to the activation dtype (`activationBytes` each) with its absmax to fp32 (4 bytes per
/// 64-weight block) before F.linear (backends/cuda/ops.py _dequant_linear_fallback, lines
/// 904-916, whenever the tokens exceed 1,536) and again for the input gradient
/// (autograd/_functions.py MatMul4Bit.backward, line 384); int8 builds the weight in the
/// activation dtype for the input gradient (MatMul8bitLt, line 237); 0 for bf16/fp16.
std::int64_t dequantizationWorkspaceBytes(BaseFormat f, std::int64_t elements,
                                          std::int64_t activationBytes);

/// FP8 training of the linear layers (docs/frameworks.md "FP8 training"). Off by default:
/// every tensor in the recipe's and the activation dtype.
///
/// Under every framework profile but `fsdp2` this is NVIDIA Transformer Engine (the
/// modules Megatron-Core builds with --fp8-format; TransformerEngine d0067d0,
/// transformer_engine/common/recipe/__init__.py): each linear weight gets an FP8 copy
/// and, where the GPU needs it, its transpose; the inputs the linear layers save for the
/// weight gradient are FP8. Under `fsdp2` it is torchao Float8 (torchao/float8) with
/// FSDP2: the linear weights are all-gathered in FP8 (enable_fsdp_float8_all_gather,
/// tensorwise scaling only) and the saved inputs stay in the activation dtype.
enum class Fp8Recipe
{
    Off = 0,
    /// Transformer Engine DelayedScaling (recipe/__init__.py line 173): per-tensor scales
    /// from an amax history of amax_history_len = 1024 steps (line 255). On Hopper an FP8
    /// weight is kept with its transpose (float8_tensor.py lines 423-427). Under `fsdp2`:
    /// torchao's per-tensor (tensorwise) dynamic scaling, the recipe whose FSDP2
    /// all-gather is in FP8 (torchao/float8/config.py lines 272-273).
    Delayed = 1,
    /// MXFP8BlockScaling (recipe/__init__.py line 337): every 32 consecutive values share
    /// one E8M0 (1-byte) scale; the row-wise and column-wise copies are both kept
    /// (mxfp8_tensor.py lines 83-93). Under `fsdp2`: torchao MXFP8, gathered in bf16.
    Mxfp8 = 2
};
/// "off", "delayed", "mxfp8".
std::string_view fp8RecipeId(Fp8Recipe r);
/// Inverse of fp8RecipeId (also "none", "tensorwise", "mx"); nullopt when unknown.
std::optional<Fp8Recipe> parseFp8Recipe(std::string_view text);

/// Bytes of one FP8 copy of an `elements`-element tensor in recipe `r`, with its scales:
/// Delayed `elements` (1 byte each; the one fp32 scale per tensor lives in the recipe
/// state, fp8RecipeStateBytes); Mxfp8 `elements` + ceil(elements / 32) (one E8M0 scale
/// per 32-element block; the padding of the scale matrix to 128 x 4 tiles,
/// mxfp8_tensor.py get_scale_shape, is not counted); Off 0.
std::int64_t fp8TensorBytes(Fp8Recipe r, std::int64_t elements);

/// Bytes of Transformer Engine's delayed-scaling state for `gemms` FP8 GEMMs: each GEMM
/// has 3 forward quantizers (input, weight, output) and 2 backward ones (grad output,
/// grad input) (module/base.py line 1139), each with an fp32 scale and an fp32 amax
/// history of amax_history_len = 1024 entries (quantization.py lines 1436-1442):
/// gemms x 5 x (1024 + 1) x 4 = 20,500 bytes per GEMM. 0 for Mxfp8 (its recipe state
/// "does not require state", quantization.py line 1498) and Off.
std::int64_t fp8RecipeStateBytes(Fp8Recipe r, std::int64_t gemms);

/// LoRA adapter targets, one bit per linear layer of a block (PEFT target_modules
/// q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj).
enum LoraTarget : int
{
    LoraQ = 1,
    LoraK = 2,
    LoraV = 4,
    LoraO = 8,
    LoraGate = 16,
    LoraUp = 32,
    LoraDown = 64,
    LoraAllLinear = 127
};

/// The short names of the LoraTarget bits, in bit order: "q", "k", "v", "o", "gate", "up",
/// "down" (PEFT's target_modules are these with "_proj" appended).
inline constexpr std::array<std::string_view, 7> loraTargetNames = {"q",    "k",  "v",   "o",
                                                                    "gate", "up", "down"};

/// Fine-tuning with LoRA (Hu et al. 2021) on a frozen base. Off (rank 0) by default:
/// every parameter trains, as the recipe says.
struct FineTuning
{
    int loraRank = 0;                         ///< r; 0: full fine-tune / pre-training
    int loraAlpha = 16;                       ///< scaling alpha / r (no memory effect)
    int loraTargets = LoraQ | LoraV;          ///< LoraTarget bits (PEFT's Llama default q, v)
    BaseFormat baseFormat = BaseFormat::Bf16; ///< the frozen base's storage
    /// LoRA dropout above 0 (PEFT LoraConfig lora_dropout; its default is 0.0, QLoRA's
    /// Guanaco runs use 0.1 and 0.05): each adapted matrix's nn.Dropout keeps its mask and
    /// its dropped input for lora_A's backward (src/peft/tuners/lora/layer.py lines
    /// 255-258 and 1063 at huggingface/peft 5d602fd).
    bool loraDropout = false;
    /// PEFT's prepare_model_for_kbit_training on an int8 or nf4 base: every fp16/bf16
    /// parameter that is not quantized (embedding, head, norms) is cast to fp32
    /// (src/peft/utils/other.py lines 204-209 at 5d602fd). No effect on a bf16/fp16 base.
    bool fp32Unquantized = false;
    bool enabled() const { return loraRank > 0; }
};

} // namespace shardscope
