#pragma once

#include "recipe.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace shardscope {

/// Query/key normalisation inside attention ("QK-norm"): RMSNorms applied to the
/// projected queries and keys before rotary embedding, weights only.
enum class QkNorm
{
    None,    ///< no q/k norm (Llama, Mistral, Qwen2, Gemma 1/2, DeepSeek)
    PerHead, ///< q_norm and k_norm of head_dim weights each, shared by all heads (Qwen3,
             ///< Qwen3-MoE, Gemma 3: transformers Qwen3Attention, Gemma3Attention): 2 d
    Full,    ///< q_norm over the whole query projection (heads x head_dim) and k_norm over
             ///< the keys (kv heads x head_dim) (OLMo 2: transformers Olmo2Attention)
};

/// Shape of a decoder-only transformer: dense (Llama / Mistral / Qwen2 / Qwen3 / Gemma / GPT)
/// or mixture-of-experts (Mixtral, DeepSeek-V3), with ordinary (MHA / GQA) or
/// multi-head latent attention (DeepSeek MLA).
///
/// Every size is a count of elements, not bytes. `headDim` of 0 means
/// hidden / heads. `gatedMlp` selects a SwiGLU-style MLP with three matrices
/// (gate, up, down) instead of the two of a plain GELU MLP. Norms are RMSNorm
/// (one weight vector, no bias) unless `layerNormBias` is set; the query/key norms
/// (`qkNorm`) are always RMSNorm weights. The fields after
/// `layerNormBias` default to a dense Llama-style block, so older initialisers keep
/// their meaning. docs/models.md derives every family's count from these fields.
struct Architecture
{
    int layers = 0;              ///< L, number of transformer blocks
    std::int64_t hidden = 0;     ///< h, model width
    std::int64_t ffn = 0;        ///< MLP inner size of dense blocks (4h for GPT, ~8h/3 for SwiGLU)
    int heads = 0;               ///< a, attention (query) heads
    int kvHeads = 0;             ///< key/value heads (== heads for MHA, fewer for GQA)
    std::int64_t vocab = 0;      ///< V, vocabulary size
    std::int64_t headDim = 0;    ///< per-head size; 0 means hidden / heads
    bool tiedEmbeddings = false; ///< output head shares the token-embedding matrix
    bool gatedMlp = true;        ///< SwiGLU (3 matrices) or plain GELU MLP (2 matrices)
    bool linearBiases = false;   ///< GPT-style biases on every linear layer
    bool layerNormBias = false;  ///< LayerNorm (weight + bias) instead of RMSNorm
    bool qkvBiases =
        false; ///< biases on the Q, K and V projections only (Qwen2); implied by linearBiases
    int normsPerLayer = 2; ///< norms per block: 2, or 4 with Gemma 2's pre/post feed-forward norms
    std::int64_t positionEmbeddings =
        0; ///< rows of a learned position table (GPT-3: 2048); 0 for RoPE

    // Mixture of experts (Shazeer et al. 2017; Mixtral, DeepSeekMoE). 0 experts: dense.
    int experts = 0;       ///< routed experts per MoE block (num_local_experts, n_routed_experts)
    int activeExperts = 0; ///< routed experts per token, top-k (num_experts_per_tok)
    std::int64_t expertFfn = 0; ///< inner size of one expert (moe_intermediate_size); 0 means ffn
    int sharedExperts = 0;      ///< experts every token passes through, expertFfn wide each
    int denseLayers = 0; ///< the first k blocks keep a dense ffn-wide MLP (first_k_dense_replace)
    bool routerBias =
        false; ///< per-expert score-correction bias (DeepSeek-V3 e_score_correction_bias)
    /// From block `denseLayers` on, every moeLayerStep-th block is MoE and the others are
    /// dense: 1 (every block; Llama 4 Scout, DeepSeek, Mixtral) or 2 (blocks 1, 3, 5, ...;
    /// Llama 4 Maverick). Hugging Face's rule for Llama 4 (transformers
    /// src/transformers/models/llama4/configuration_llama4.py, Llama4TextConfig.__post_init__:
    /// moe_layers = range(interleave_moe_layer_step - 1, num_hidden_layers, step)), read by
    /// Llama4TextDecoderLayer (modeling_llama4.py: is_moe_layer = layer_idx in moe_layers).
    int moeLayerStep = 1;

    // Multi-head latent attention (DeepSeek-V2/V3, arXiv:2405.04434 section 2.1).
    // kvLoraRank 0 means ordinary attention and the other four must be 0.
    std::int64_t qLoraRank = 0;     ///< rank of the query down-projection; 0: one full-rank q_proj
    std::int64_t kvLoraRank = 0;    ///< rank of the compressed key/value latent
    std::int64_t qkRopeHeadDim = 0; ///< rotary part of each query head and of the shared key
    std::int64_t qkNopeHeadDim = 0; ///< non-rotary part of each query and key head
    std::int64_t vHeadDim = 0;      ///< per-head value size

    QkNorm qkNorm = QkNorm::None; ///< RMSNorm weights on the queries and keys (ordinary attention)

    /// Per-head size in elements: `headDim`, or hidden / heads when unset.
    std::int64_t effectiveHeadDim() const;
    /// True when the model has routed experts (in the blocks isMoeLayer names).
    bool isMoe() const { return experts > 0; }
    /// True for multi-head latent attention (kvLoraRank > 0).
    bool usesLatentAttention() const { return kvLoraRank > 0; }
    /// Inner size of one expert: `expertFfn`, or `ffn` when unset.
    std::int64_t effectiveExpertFfn() const { return expertFfn > 0 ? expertFfn : ffn; }
    /// True when block `layer` (0-based) holds routed experts: a MoE model, layer >=
    /// denseLayers and (layer - denseLayers + 1) a multiple of moeLayerStep (the last block
    /// of every step, as Hugging Face's range(step - 1, L, step)).
    bool isMoeLayer(int layer) const
    {
        return isMoe() && layer >= denseLayers &&
               (moeLayerStep <= 1 || (layer - denseLayers + 1) % moeLayerStep == 0);
    }
    /// MoE blocks among the first `n` blocks, [0, n) (n capped at layers):
    /// (n - denseLayers) / moeLayerStep, or 0 for a dense model. O(1).
    int moeLayersBefore(int n) const
    {
        const int k = std::min(n, layers) - denseLayers;
        if (!isMoe() || k <= 0)
            return 0;
        return moeLayerStep <= 1 ? k : k / moeLayerStep;
    }
    /// MoE blocks in the `count` blocks from `first` on, [first, first + count). O(1).
    int moeLayersIn(int first, int count) const
    {
        return moeLayersBefore(first + count) - moeLayersBefore(first);
    }
    /// Blocks with routed experts: (layers - denseLayers) / moeLayerStep, or 0 for a dense
    /// model.
    int moeLayerCount() const { return moeLayersBefore(layers); }
    /// The first block with routed experts: denseLayers + moeLayerStep - 1 (meaningful for
    /// a MoE model only).
    int firstMoeLayer() const { return denseLayers + std::max(moeLayerStep, 1) - 1; }
    /// Query elements per token: heads x head dim (MLA: heads x (nope + rope)).
    std::int64_t queryWidth() const;
    /// Key elements per token: kv heads x head dim (MLA: heads x (nope + rope)).
    std::int64_t keyWidth() const;
    /// Value elements per token, also the attention output width: kv heads x head dim
    /// (MLA: heads x vHeadDim).
    std::int64_t valueWidth() const;
    /// Every field equal, member by member (a field added above is compared too).
    bool operator==(const Architecture &) const = default;
};

/// Weights of one block's query/key norms in elements: 0 (QkNorm::None), 2 x head dim
/// (PerHead: Qwen3Attention's q_norm and k_norm, RMSNorm(head_dim) each) or query width +
/// key width (Full: Olmo2Attention's q_norm RMSNorm(heads x head_dim) and k_norm
/// RMSNorm(kv heads x head_dim)). Part of layerParameterCount.
std::int64_t qkNormParameterCount(const Architecture &a);

/// Parameters of one transformer block `layer` (0-based): attention (with its q/k
/// norms), its MLP (dense, or every routed and shared expert plus the router), and its
/// norms. For a dense
/// model every block is the same, so `layer` may be left at 0.
std::int64_t layerParameterCount(const Architecture &a, int layer = 0);

/// Parameters block `layer` uses for one token: as layerParameterCount, but with
/// only `activeExperts` of the routed experts (the router and shared experts count).
std::int64_t activeLayerParameterCount(const Architecture &a, int layer = 0);

/// Parameters of one routed expert: an MLP `effectiveExpertFfn()` wide (with biases
/// when `linearBiases`); 0 for a dense model.
std::int64_t expertParameterCount(const Architecture &a);

/// Parameters outside the blocks: token embedding, learned position table, final
/// norm and (when untied) the output head.
std::int64_t nonLayerParameterCount(const Architecture &a);

/// LoRA adapter parameters of one dense block with rank `rank` on the matrices in
/// `targets` (LoraTarget bits): rank x (in + out) for each targeted matrix (PEFT's
/// LoRA layer: lora_A is rank x in, lora_B out x rank). Llama 2 7B, rank 8 on q and v:
/// 2 x 8 x (4096 + 4096) = 131,072 per block. A plain (non-gated) MLP has no gate;
/// its up and down are fc1 and fc2.
/// With `minMatrixElements` > 0 only the adapter matrices of at least that many elements
/// count (the ones bitsandbytes' paged optimizer pages: pagedOptimizerMinElements).
std::int64_t loraLayerParameterCount(const Architecture &a, int rank, int targets,
                                     std::int64_t minMatrixElements = 0);

/// The largest LoRA rank that adapts the `targets` (LoraTarget bits) of a dense block of
/// `a`: the smallest min(in, out) over the targeted matrices, since a rank above a
/// matrix's narrower side gives adapters with more parameters than the matrix itself
/// and no higher-rank update (Hu et al. 2021, section 4: r << min(d, k)). 0 when no
/// targeted matrix exists (a gate in a plain MLP). `name` gets the narrowest matrix's
/// name ("q", "k", "v", "o", "gate", "up", "down").
std::int64_t loraRankLimit(const Architecture &a, int targets, const char **name = nullptr);

/// The input width summed over the matrices of a dense block that LoRA `targets`
/// (LoraTarget bits) adapt, elements per token: what each adapter's dropout drops (q, k,
/// v, gate and up read the hidden state, o the attention output, down the MLP's inner
/// activation). Llama 2 7B on q and v: 4096 + 4096 = 8,192.
std::int64_t loraInputElements(const Architecture &a, int targets);

/// Elements of the largest linear weight of a dense block with ordinary attention (q, k,
/// v, o, gate, up, down: in x out each), before any tensor-parallel split: the largest
/// single parameter autograd makes a whole gradient for, and the largest weight a
/// quantized base dequantizes at once. Llama 2 7B: 4096 x 11008 = 45,088,768.
std::int64_t largestLinearElements(const Architecture &a);

/// The frozen bytes of one dense block's linear weights in `format` (each matrix by
/// frozenMatrixBytes), and the elements they hold; the block's other parameters (norms,
/// biases) stay in bf16.
struct FrozenBlock
{
    std::int64_t linearElements = 0;
    std::int64_t linearBytes = 0;
};
FrozenBlock frozenBlock(const Architecture &a, BaseFormat format);

/// Exact total parameter count: the sum of layerParameterCount over the blocks plus
/// nonLayerParameterCount. Reproduces the published Llama 2/3/3.1, Mistral,
/// Mixtral, Qwen2.5, Gemma 2 and DeepSeek-V3 counts to the parameter
/// (tests/core/test_model.cpp, tests/core/test_moe.cpp; docs/models.md).
std::int64_t parameterCount(const Architecture &a);

/// Parameters one token passes through: the sum of activeLayerParameterCount plus
/// nonLayerParameterCount (the embedding included, as Mistral's "12.9B active" for
/// Mixtral 8x7B counts it). Equals parameterCount for a dense model.
std::int64_t activeParameterCount(const Architecture &a);

/// Checks an architecture; returns an empty string when valid, else a one-line
/// reason (for example "heads (10) is not divisible by kv heads (4)").
std::string validateArchitecture(const Architecture &a);

/// A Llama-style architecture whose parameter count is close to `targetParameters`.
///
/// Width follows the Llama family's aspect ratio (layers ~ hidden / 128), so
/// params ~ 12 h^3 / 128: h = cbrt(params * 128 / 12) rounded to a multiple of
/// 128, 128-wide heads, grouped-query attention with 8 KV heads once there are
/// 8 or more heads, SwiGLU with ffn = 8h/3 rounded up to 256, untied 32,000-token
/// vocabulary. Layers are then chosen so the exact count is nearest the target.
/// The result is a plausible shape, not a published model.
Architecture scaledArchitecture(std::int64_t targetParameters);

/// A model: either an architecture (exact count derived from it) or a plain count.
struct Model
{
    std::string id;          ///< machine name, e.g. "llama3-70b"
    std::string displayName; ///< e.g. "Llama 3 70B"
    std::string source;      ///< where the shape comes from
    std::optional<Architecture> architecture;
    std::int64_t plainParameters = 0; ///< used when there is no architecture

    /// Total parameters: parameterCount(*architecture), else plainParameters.
    std::int64_t parameters() const;
    /// Parameters per token: activeParameterCount(*architecture), else plainParameters.
    std::int64_t activeParameters() const;
};

} // namespace shardscope
