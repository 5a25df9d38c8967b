#pragma once

#include "layout.h"
#include "model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

// Activation memory per GPU: the tensors the forward pass keeps for the backward pass.
//
// Follows Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", arXiv:2205.05198, section 4 and Table 2, derived term by
// term (one field per stored tensor) so that it also holds for SwiGLU MLPs,
// grouped-query attention, any activation dtype, dropout on or off,
// FlashAttention and context parallelism. The derivation, and how it reduces to
// the paper's s b h (34 + 5 a s / h), is in docs/activations.md.
//
// Every count is an exact number of bytes on one GPU for one micro-batch.
// Per-rank shapes divide exactly (validateActivationSettings requires it), except
// the vocabulary, whose per-rank slice is ceil(V / t). Functions given settings
// that fail validateActivationSettings return 0 (or all-zero terms).

/// Activation recomputation (checkpointing) level, Korthikanti et al. section 4.2.
enum class Recompute
{
    None, ///< keep every tensor the backward pass needs
    /// Recompute the attention core (scores, softmax, its dropout); under
    /// SelectivePolicy::OpLevel torchtitan's op-level selective checkpointing instead
    /// (opLevelSelective, docs/activations.md "torchtitan's op-level selective").
    Selective,
    Full, ///< keep only each layer's input; recompute the whole layer
};

/// What Recompute::Selective keeps, by the framework that runs it (FrameworkProfile).
enum class SelectivePolicy
{
    /// Megatron's selective recomputation: everything but the attention core
    /// (Korthikanti et al. 2022, section 5).
    AttentionCore,
    /// torchtitan's op-level selective activation checkpointing for dense blocks
    /// (opLevelSelective); other blocks keep AttentionCore's count.
    OpLevel
};

/// Machine name of a level: "none", "selective" or "full".
std::string_view recomputeId(Recompute r);

/// Inverse of recomputeId; std::nullopt for any other string (case-sensitive).
std::optional<Recompute> parseRecompute(std::string_view id);

/// How the loss turns the logits into a cross-entropy and its gradient.
enum class LossKernel
{
    /// One logits-sized buffer: Megatron-LM's vocab-parallel cross-entropy upcasts the
    /// logits once, keeps the softmax in place and writes its gradient over it
    /// (megatron/core/tensor_parallel/cross_entropy.py; theoretical_memory_usage.py
    /// counts 4 s b V / t bytes).
    Fused,
    /// PyTorch's eager torch.nn.functional.cross_entropy: log_softmax keeps its output
    /// (one logits-sized tensor) and its backward holds two more at once, nll_loss's
    /// gradient and log_softmax's input gradient, so the peak is three logits-sized
    /// tensors (TorchTitan before its chunked loss; torchtitan docs/chunked_loss.md
    /// measures the extra fp32 logits-shaped allocation).
    Eager,
};

/// Machine name of a loss kernel: "fused" or "eager".
std::string_view lossKernelId(LossKernel k);

/// Inverse of lossKernelId; std::nullopt for any other string (case-sensitive).
std::optional<LossKernel> parseLossKernel(std::string_view id);

/// How the RMSNorms keep their input for the backward (docs/activations.md "Eager
/// RMSNorm"). LayerNorm models are unaffected: nn.LayerNorm runs one native kernel even
/// in eager PyTorch.
enum class NormKernel
{
    /// One kernel that saves its input and the fp32 per-token statistics (Megatron-Core
    /// with Transformer Engine or Apex, Liger, or any RMSNorm under torch.compile):
    /// s b h e per norm, as Korthikanti et al. count a norm's input.
    Fused,
    /// An RMSNorm written in eager PyTorch that computes in fp32 (Hugging Face
    /// LlamaRMSNorm, transformers src/transformers/models/llama/modeling_llama.py; torchtune
    /// torchtune/modules/rms_norm.py): autograd keeps the fp32 copy of the input (saved by
    /// pow and by the multiply with rsqrt), s b h x 4, in place of the input, and, when
    /// the norm's weight trains, the normalized tensor cast back to the activation dtype
    /// that the multiply by the weight saves, s b h e.
    Eager,
};

/// Machine name of a norm kernel: "fused" or "eager".
std::string_view normKernelId(NormKernel k);

/// Inverse of normKernelId; std::nullopt for any other string (case-sensitive).
std::optional<NormKernel> parseNormKernel(std::string_view id);

/// How one micro-batch runs on one GPU.
struct ActivationSettings
{
    /// Field by field (the engine's memo of activation figures keys on it).
    [[gnu::always_inline]] bool operator==(const ActivationSettings &) const = default;
    std::int64_t microBatchSize = 1;    ///< b, sequences per micro-batch
    std::int64_t sequenceLength = 4096; ///< s, tokens per sequence (the full, unsplit length)
    int tensorParallel = 1;             ///< t (Megatron tensor parallel size)
    int contextParallel = 1;            ///< c, ranks the sequence is split over (ring attention)
    bool sequenceParallel = true; ///< split the norm/dropout regions over t (Korthikanti 4.2.2)
    Recompute recompute = Recompute::None;
    bool flashAttention = true; ///< fused attention: no s x s matrix, fp32 softmax statistics
    bool dropout = false;       ///< dropout layers present (1-byte masks); off for Llama-style
    std::int64_t activationBytes = 2; ///< bytes per activation element: 2 (bf16), 4, 1 or 8
    bool fp32Logits = true; ///< logits kept in fp32 (4 bytes) for the loss, else activationBytes
    LossKernel lossKernel = LossKernel::Fused; ///< cross-entropy implementation
    /// n, chunks the loss runs over (torchtune CEWithChunkedOutputLoss): with n > 1 the
    /// logits are kept in the activation dtype and the loss's backward holds one chunk of
    /// ceil((s / c) / n) tokens upcast; 1 keeps whole logits (docs/activations.md).
    int lossChunks = 1;
    /// torch.compile covers the loss (torchtune's compile_loss; a Hugging Face model
    /// computes its loss inside the compiled forward): Inductor fuses the upcast and the
    /// log-softmax into its kernels, so an Eager loss's backward holds only the gradient of
    /// its input: one logits-sized tensor unchunked, one chunk in the activation dtype
    /// with n > 1 chunks (docs/activations.md "The loss"). No effect on a Fused loss.
    bool compiledLoss = false;
    /// How the block, MLP and final RMSNorms keep their input (NormKernel); the engine
    /// passes Fused under torch.compile, which fuses an eager norm into one kernel.
    NormKernel normKernel = NormKernel::Fused;
    /// The norms' weights train (false under LoRA: the base, its norms included, is
    /// frozen): with NormKernel::Eager the normalized tensor is then kept for the weight's
    /// gradient. No effect with Fused.
    bool normWeightsTrain = true;
    /// Transformer Engine FP8: the inputs the linear layers save for their weight
    /// gradient (qkvInput, projectionInput, mlpInput, downInput, and in a MoE block
    /// expertInput and expertDownInput) take fp8TensorBytes(fp8, elements) instead of
    /// elements x activationBytes. Off: unchanged. (torchao Float8 saves them in high
    /// precision, so the engine passes Off under the fsdp2 profile.)
    Fp8Recipe fp8 = Fp8Recipe::Off;
    /// Whose meaning of Recompute::Selective applies: SelectivePolicy::OpLevel counts
    /// torchtitan's op-level selective checkpointing for dense blocks (opLevelSelective);
    /// every other level is unaffected.
    SelectivePolicy selective = SelectivePolicy::AttentionCore;
};

/// True when block `layer` follows torchtitan's op-level selective activation
/// checkpointing (ac mode "selective", selective_ac_option "op"): Recompute::Selective
/// under SelectivePolicy::OpLevel (the fsdp2 profile), for a dense block (not a routed-expert
/// block) with standard multi-head or grouped-query attention (not MLA). Those other blocks keep
/// Megatron's attention-core count (docs/architecture.md "Known limits").
///
/// The policy (torchtitan/models/llama/parallelize_llama.py lines 219-272 at 069bae2,
/// torchtitan/distributed/activation_checkpoint.py lines 257-274 at b5bcd76) saves the
/// outputs of the ops in its save list (aten.mm, the flash / efficient SDPA kernels,
/// c10d reduce_scatter, aten.max) except every second aten.mm of a block (the 2nd, 4th,
/// ... in forward order: mm_count % 2 == 0), and recomputes everything else. Besides them
/// the checkpoint keeps its input, the block input.
bool opLevelSelective(const Architecture &a, const ActivationSettings &s, int layer = 0);

/// Bytes of each tensor one transformer layer keeps for its backward pass, on one
/// GPU, for one micro-batch (Korthikanti et al. section 4.1, generalised).
///
/// Notation: s, b as in the settings; h hidden; a heads; g kv heads; d head dim;
/// q = a d; kv = g d; f ffn; e activationBytes; t, c parallel sizes.
/// "Norm region" tensors hold s/c tokens, or s/(c t) with sequence parallel on;
/// "tensor-parallel" tensors hold s/c tokens and 1/t of the heads or ffn columns.
/// A field is 0 when the tensor is not stored under the settings.
struct LayerActivationTerms
{
    // Attention block.
    /// s b h e, norm region (input of norm 1); s b h x 4 with an eager RMSNorm (its
    /// fp32 copy, NormKernel::Eager)
    std::int64_t attentionNormInput = 0;
    /// Eager RMSNorm whose weight trains: s b h e, norm region (norm 1's normalized
    /// tensor, saved by the multiply with the weight); 0 otherwise.
    std::int64_t attentionNormOutput = 0;
    std::int64_t qkvInput = 0; ///< s b h e, norm region (norm 1 output; FP8)
    std::int64_t query = 0;    ///< s b q e / (t c)
    std::int64_t key = 0;      ///< s b kv e / (t c); q wide without flash (expanded)
    std::int64_t value = 0;    ///< s b kv e / (t c) (MLA: a v); a d wide without flash (expanded)
    /// MLA only: s b (2 r_q + 2 r_kv + rope) e / c, the query and key/value latents
    /// before and after their norms, whole on every tensor rank; 0 otherwise.
    std::int64_t attentionLatents = 0;
    std::int64_t softmaxOutput = 0;        ///< a s s b e / (t c), without flash
    std::int64_t softmaxDropoutMask = 0;   ///< a s s b / (t c), 1 byte, without flash, dropout
    std::int64_t softmaxDropoutOutput = 0; ///< a s s b e / (t c), without flash, dropout
    std::int64_t softmaxStatistics = 0;    ///< 4 a s b / (t c), fp32 logsumexp, flash only
    std::int64_t projectionInput = 0;      ///< s b a d_v e / (t c) (output projection's input; FP8)
    std::int64_t attentionDropoutMask = 0; ///< s b h, 1 byte, norm region, dropout only
    // MLP block.
    std::int64_t mlpNormInput = 0;   ///< s b h e, norm region (input of norm 2; x 4 / e eager)
    std::int64_t mlpNormOutput = 0;  ///< as attentionNormOutput, for norm 2
    std::int64_t mlpInput = 0;       ///< s b h e, norm region (input of fc1, or gate and up; FP8)
    std::int64_t upOutput = 0;       ///< s b f e / (t c): fc1 output = GELU input, or SwiGLU up
    std::int64_t gateOutput = 0;     ///< s b f e / (t c): SwiGLU gate (SiLU input); 0 for GELU
    std::int64_t downInput = 0;      ///< s b f e / (t c): GELU output, or silu(gate) * up (FP8)
    std::int64_t mlpDropoutMask = 0; ///< s b h, 1 byte, norm region, dropout only
    // Mixture-of-experts block (docs/models.md "MoE activations"); in such a block
    // upOutput, gateOutput and downInput hold the shared experts (n_s f_e wide).
    std::int64_t routerScores = 0;     ///< s b E x 4 bytes, norm region: fp32 router scores
    std::int64_t expertInput = 0;      ///< s b k h e / c: the k dispatched copies of each token
    std::int64_t expertUpOutput = 0;   ///< s b k f_e e / (t c)
    std::int64_t expertGateOutput = 0; ///< s b k f_e e / (t c); 0 for GELU experts
    std::int64_t expertDownInput = 0;  ///< s b k f_e e / (t c)
    std::int64_t expertOutput = 0;     ///< s b k h e / c, kept for the routing-weight gradient
    // torchtitan op-level selective (opLevelSelective) only: the row-parallel matmul
    // outputs it saves, and with sequence parallel the saved reduce-scatter outputs.
    std::int64_t projectionOutput = 0; ///< s b h e / c: the output projection's mm output
    std::int64_t downOutput = 0;       ///< s b h e / c: the down projection's (w2) mm output
    /// 2 s b h e, norm region: reduce_scatter outputs of the two row-parallel layers, only
    /// with t > 1 and sequence parallel.
    std::int64_t reduceScatterOutputs = 0;
    // Full recomputation.
    /// s b h e, norm region: the only tensor kept under Full; under op-level selective
    /// the checkpoint's input (the block input).
    std::int64_t layerInput = 0;

    /// Sum of the fields, bytes.
    std::int64_t total() const;
};

/// Bytes the last pipeline stage keeps beyond its layers, on one GPU, per micro-batch.
struct OutputActivationTerms
{
    std::int64_t finalNormInput = 0;  ///< s b h e, norm region (s b h x 4 eager RMSNorm)
    std::int64_t finalNormOutput = 0; ///< eager RMSNorm whose weight trains: s b h e
    std::int64_t outputInput = 0;     ///< s b h e, norm region (input of the output projection)
    /// s b ceil(V / t) x (4 if fp32Logits else e) / c; with lossChunks n > 1 always x e
    /// (the chunks' logits in the activation dtype, upcast one chunk at a time).
    std::int64_t logits = 0;
    /// Not kept: what the loss's backward adds for a moment beside the logits, 2 x logits
    /// for LossKernel::Eager (1 x with compiledLoss), 0 for Fused (lossBackwardBytes).
    /// With n > 1 chunks, one chunk of b ceil((s / c) / n) tokens upcast (4 or e bytes per
    /// logit): three such tensors for Eager (the recomputed log-softmax, nll's gradient
    /// and its input gradient), one for Fused (the upcast, written over by its gradient);
    /// with compiledLoss an Eager loss holds only the chunk's gradient, e bytes per logit.
    std::int64_t lossBackward = 0;

    /// Sum of the kept fields (finalNormInput, finalNormOutput, outputInput, logits), bytes.
    std::int64_t total() const;
};

/// Checks an architecture and settings; empty when activations can be computed,
/// else a one-line reason, for example "heads (96) is not divisible by tensor parallel
/// size (5)". Besides validateArchitecture it requires: positive sizes; activation
/// bytes 1, 2, 4 or 8; heads, kv heads and ffn divisible by t (kv heads fewer than t
/// are rejected, as Megatron-Core's TransformerConfig does, not replicated); s divisible
/// by c, and s / c by t with sequence parallel on (t > 1); sizes below fixed caps and
/// every byte count within int64. For a MoE model also the expert ffn size must be
/// divisible by t (experts use t as their tensor-parallel size, Megatron-Core's default).
std::string validateActivationSettings(const Architecture &a, const ActivationSettings &s);

/// Every activation figure the memory engine reads for one scenario, bytes on one GPU
/// per micro-batch, as activationFigures() computes them in one pass. Each equals the
/// single-figure function named beside it.
struct ActivationFigures
{
    std::int64_t firstBlock = 0; ///< layerActivationBytes(a, s, 0)
    /// The same with Recompute::None; under op-level selective (opLevelSelective) plus the
    /// saved outputs the backward pass itself does not keep (projectionOutput, downOutput,
    /// reduceScatterOutputs), so that firstBlockNoRecompute - firstBlock is always what
    /// recomputing the block adds beside what it saved (the engine's working set).
    std::int64_t firstBlockNoRecompute = 0;
    /// MoE model: layerActivationBytes(a, s, a.firstMoeLayer()), the first block with
    /// routed experts (equal to firstBlock when that is block 0); 0 for a dense model.
    std::int64_t moeBlock = 0;
    std::int64_t moeBlockNoRecompute = 0; ///< the same (as firstBlockNoRecompute)
    std::int64_t embedding = 0;           ///< embeddingActivationBytes(a, s)
    std::int64_t output = 0;              ///< outputActivationBytes(a, s)
    std::int64_t lossBackward = 0;        ///< lossBackwardBytes(a, s)
};

/// validateActivationSettings(a, s) for an architecture that has already passed
/// validateArchitecture (the engine's prepared model checks it once): the same reason,
/// or empty, and then `out` holds every figure. The checks run in the same order and
/// the overflow check covers the same products, so the reason is the one
/// validateActivationSettings gives. On a reason `out` is unspecified. Allocates
/// nothing unless it returns a reason.
std::string activationFigures(const Architecture &a, const ActivationSettings &s,
                              ActivationFigures &out);

/// Per-tensor bytes kept by one transformer layer, one GPU, one micro-batch.
/// With the paper's assumptions (GELU 4h MLP, multi-head attention, dropout on,
/// 2-byte activations, no flash) the total is exactly Korthikanti et al. Table 2:
/// s b h (34 + 5 a s / h) / t with sequence parallel, s b h (10 + 24 / t + 5 a s / (h t))
/// without; selective drops the 5 a s / h part; full keeps 2 s b h (/ t with sequence
/// parallel). All-zero terms for invalid settings. `layer` (0-based) selects the block:
/// it matters only for a MoE model, whose blocks from `denseLayers` on route tokens to
/// experts (Architecture::isMoeLayer) and keep the expert terms.
LayerActivationTerms layerActivationTerms(const Architecture &a, const ActivationSettings &s,
                                          int layer = 0);

/// layerActivationTerms(a, s, layer).total(): bytes block `layer` keeps on one GPU per
/// micro-batch.
std::int64_t layerActivationBytes(const Architecture &a, const ActivationSettings &s,
                                  int layer = 0);

/// Bytes the first pipeline stage keeps beyond its layers, one GPU, per micro-batch:
/// the embedding dropout mask, s b h x 1 byte (norm region), when dropout is on; else 0.
/// The embedding output itself is the first layer's input and is already counted by
/// layerActivationTerms (attentionNormInput, or layerInput under Full). Token ids
/// (8 bytes per token) are input data and not counted. 0 for invalid settings.
std::int64_t embeddingActivationBytes(const Architecture &a, const ActivationSettings &s);

/// Per-tensor bytes the last pipeline stage keeps beyond its layers: the final norm's
/// input and output and the logits (vocab-parallel: ceil(V / t) columns per rank, in
/// fp32 when fp32Logits). For s 8192, b 1, V 128,256, fp32, t = c = 1 the logits are
/// 4,202,692,608 bytes. Kept whatever the recompute level. All-zero for invalid settings.
OutputActivationTerms outputActivationTerms(const Architecture &a, const ActivationSettings &s);

/// outputActivationTerms(a, s).total(): bytes, one GPU, per micro-batch.
std::int64_t outputActivationBytes(const Architecture &a, const ActivationSettings &s);

/// Bytes the loss's backward adds for a moment on the last stage, one GPU, beyond the
/// logits that outputActivationTerms keeps: 0 for LossKernel::Fused, two more
/// logits-sized tensors (2 x OutputActivationTerms::logits) for LossKernel::Eager. For
/// s 8192, b 1, V 128,256, fp32, t = c = 1, eager: 8,405,385,216 bytes. Only one
/// micro-batch's loss runs at a time. 0 for invalid settings.
std::int64_t lossBackwardBytes(const Architecture &a, const ActivationSettings &s);

} // namespace shardscope
