#include "activations.h"

#include "enumtable.h"
#include "intmath.h"

#include <algorithm>
#include <initializer_list>

namespace shardscope {

namespace {

// Caps that keep the inputs plausible; the int64 check below catches the rest.
constexpr std::int64_t maxMicroBatchSize = 1'000'000;
constexpr std::int64_t maxSequenceLength = 1'000'000'000;
constexpr int maxParallelSize = 1'048'576;
constexpr int maxChunksOfLoss = 65536; // inputlimits.h maxLossChunks

// Plain int64 arithmetic, for extents whose products and sums provably fit
// (cannotOverflow): the same values as Checked (intmath.h), without the checks.
struct Unchecked
{
    template <typename... Factors> static std::int64_t product(Factors... factors)
    {
        return (std::int64_t(1) * ... * std::int64_t(factors));
    }

    template <typename... Terms> static std::int64_t sum(Terms... terms)
    {
        return (std::int64_t(0) + ... + std::int64_t(terms));
    }
};

// Per-rank extents. Valid settings make every division exact (validated).
struct Local
{
    std::int64_t b = 0;          // sequences per micro-batch
    std::int64_t s = 0;          // full sequence length (keys each query attends to)
    std::int64_t tokens = 0;     // s / c: tokens in the tensor-parallel regions
    std::int64_t normTokens = 0; // s / c, or s / (c t) with sequence parallel
    std::int64_t h = 0;          // hidden
    std::int64_t heads = 0;      // a / t
    std::int64_t q = 0;          // query width / t: (a / t) d
    std::int64_t kv = 0;         // key width / t: (g / t) d (MLA: (a / t)(nope + rope))
    std::int64_t v = 0;          // value width / t: (g / t) d (MLA: (a / t) v)
    std::int64_t vExpanded = 0;  // attention output width / t: (a / t) d (MLA: (a / t) v)
    std::int64_t ffn = 0;        // f / t
    std::int64_t expertFfn = 0;  // expert inner size / t
    std::int64_t e = 0;          // bytes per activation element
};

[[gnu::always_inline]] inline Local localExtents(const Architecture &a, const ActivationSettings &s)
{
    const std::int64_t t = s.tensorParallel;
    Local l;
    l.b = s.microBatchSize;
    l.s = s.sequenceLength;
    l.tokens = quotient(s.sequenceLength, s.contextParallel);
    l.normTokens = s.sequenceParallel ? quotient(l.tokens, t) : l.tokens;
    l.h = a.hidden;
    l.heads = quotient(a.heads, t);
    if (a.usesLatentAttention()) {
        // MLA: a query and key heads of nope + rope, a value heads of v (kv heads == a).
        l.q = l.heads * (a.qkNopeHeadDim + a.qkRopeHeadDim);
        l.kv = l.q;
        l.v = l.heads * a.vHeadDim;
        l.vExpanded = l.v;
    } else {
        const std::int64_t d = a.effectiveHeadDim();
        l.q = l.heads * d;
        l.kv = quotient(a.kvHeads, t) * d;
        l.v = l.kv;
        l.vExpanded = l.q;
    }
    l.ffn = quotient(a.ffn, t);
    l.expertFfn = a.isMoe() ? quotient(a.effectiveExpertFfn(), t) : 0;
    l.e = s.activationBytes;
    return l;
}

/// opLevelSelective(): torchtitan's op-level policy applies to block `layer`.
[[gnu::always_inline]] inline bool isOpLevel(const Architecture &a, const ActivationSettings &s,
                                             int layer)
{
    return s.recompute == Recompute::Selective && s.selective == SelectivePolicy::OpLevel &&
           !a.isMoeLayer(layer) && !a.usesLatentAttention();
}

/// What one RMSNorm keeps for its backward, bytes (NormKernel): `input` (the tensor
/// of its input, s b h e in the norm region) under a fused kernel; under an eager fp32
/// RMSNorm its input's fp32 copy instead (`inputElements` x 4), and, when the weight
/// trains, `output` = the normalized tensor in the activation dtype. LayerNorm (bias)
/// models run nn.LayerNorm's native kernel even in eager PyTorch.
struct NormSaved
{
    std::int64_t input = 0;
    std::int64_t output = 0;
};

template <typename Arith>
[[gnu::always_inline]] inline NormSaved normSaved(const Architecture &a,
                                                  const ActivationSettings &s, const Local &l,
                                                  std::int64_t normTensor, Arith &c)
{
    if (s.normKernel == NormKernel::Fused || a.layerNormBias) [[likely]]
        return {normTensor, 0};
    return {c.product(l.normTokens, l.b, l.h, 4), s.normWeightsTrain ? normTensor : 0};
}

/// The terms one dense block keeps under torchtitan's op-level selective checkpointing
/// (opLevelSelective; docs/activations.md "torchtitan's op-level selective"): the
/// checkpoint's input, the outputs of the 1st, 3rd, 5th ... matmul in forward order
/// (torchtitan/models/llama/model.py lines 191, 216 and 255 at 069bae2: wq, wk, wv, wo,
/// then w1 (gate), w3 (up), w2 (down); a GELU MLP has fc1 and fc2), the flash SDPA
/// kernel's output and fp32 logsumexp, and with sequence parallel the two saved
/// reduce_scatter outputs. Everything else (norms, rotary, SiLU, the product, the
/// other matmuls, dropout) is recomputed.
template <typename Arith>
[[gnu::always_inline]] inline LayerActivationTerms
computeOpLevel(const Architecture &a, const ActivationSettings &s, const Local &l, Arith &c)
{
    LayerActivationTerms r;
    const std::int64_t normTensor = c.product(l.normTokens, l.b, l.h, l.e);
    r.layerInput = normTensor;
    // mm_count % 2 == 0 recomputes the 2nd, 4th, 6th matmul: saved are those at even
    // 0-based positions. A matmul's output is `width` wide for s / c tokens (the
    // row-parallel ones hold h-wide partial sums before their reduction).
    int position = 0;
    const auto mm = [&](std::int64_t &field, std::int64_t width) {
        if (position++ % 2 == 0)
            field = c.product(l.tokens, l.b, width, l.e);
    };
    mm(r.query, l.q);
    mm(r.key, l.kv);
    mm(r.value, l.v);
    mm(r.projectionOutput, l.h);
    if (a.gatedMlp)
        mm(r.gateOutput, l.ffn);
    mm(r.upOutput, l.ffn);
    mm(r.downOutput, l.h);
    // The flash (or memory-efficient) SDPA kernel is in the save list: its output (the
    // output projection's input) and its fp32 logsumexp. Unfused attention decomposes
    // into bmm and softmax, none of them saved.
    if (s.flashAttention) {
        r.projectionInput = c.product(l.tokens, l.b, l.vExpanded, l.e);
        r.softmaxStatistics = c.product(4, l.heads, l.tokens, l.b);
    }
    // Sequence parallel: the row-parallel outputs are reduce-scattered over t, and
    // _c10d_functional.reduce_scatter_tensor is in the save list.
    if (s.tensorParallel > 1 && s.sequenceParallel)
        r.reduceScatterOutputs = c.product(2, normTensor);
    return r;
}

template <typename Arith>
[[gnu::always_inline]] inline LayerActivationTerms computeLayer(const Architecture &a,
                                                                const ActivationSettings &s,
                                                                const Local &l, int layer, Arith &c)
{
    LayerActivationTerms r;
    const std::int64_t normTensor = c.product(l.normTokens, l.b, l.h, l.e);
    if (s.recompute == Recompute::Full) {
        r.layerInput = normTensor;
        return r;
    }
    if (isOpLevel(a, s, layer)) [[unlikely]]
        return computeOpLevel(a, s, l, c);
    const std::int64_t normMask = s.dropout ? c.product(l.normTokens, l.b, l.h) : 0;
    // Unfused attention repeats K and V once per query head before the matmuls
    // (Megatron-Core DotProductAttention, Hugging Face eager), so the saved copies are
    // q wide; fused kernels take grouped K and V as they are.
    const bool keepCore = s.recompute == Recompute::None;

    const NormSaved norm = normSaved(a, s, l, normTensor, c);
    r.attentionNormInput = norm.input;
    r.attentionNormOutput = norm.output;
    r.qkvInput = normTensor;
    r.query = c.product(l.tokens, l.b, l.q, l.e);
    r.key = c.product(l.tokens, l.b, s.flashAttention ? l.kv : l.q, l.e);
    r.value = c.product(l.tokens, l.b, s.flashAttention ? l.v : l.vExpanded, l.e);
    if (a.usesLatentAttention()) {
        // MLA: the query latent before and after q_a_layernorm, the key/value latent
        // (with the shared rotary key) before kv_a_layernorm and after it, whole on
        // every tensor rank (the up-projections are column-parallel).
        const std::int64_t width = 2 * a.qLoraRank + 2 * a.kvLoraRank + a.qkRopeHeadDim;
        r.attentionLatents = c.product(l.tokens, l.b, width, l.e);
    }
    if (keepCore && !s.flashAttention) {
        const std::int64_t scores = c.product(l.heads, l.tokens, l.s, l.b);
        r.softmaxOutput = c.product(scores, l.e);
        if (s.dropout) {
            r.softmaxDropoutMask = scores;
            r.softmaxDropoutOutput = c.product(scores, l.e);
        }
    }
    if (keepCore && s.flashAttention)
        r.softmaxStatistics = c.product(4, l.heads, l.tokens, l.b);
    r.projectionInput = c.product(l.tokens, l.b, l.vExpanded, l.e);
    r.attentionDropoutMask = normMask;

    r.mlpNormInput = norm.input;
    r.mlpNormOutput = norm.output;
    r.mlpInput = normTensor;
    r.mlpDropoutMask = normMask;
    // A dense block's MLP, or the shared experts of a MoE block (one MLP n_s f_e wide).
    const std::int64_t denseWidth =
        a.isMoeLayer(layer) ? std::int64_t(a.sharedExperts) * l.expertFfn : l.ffn;
    const std::int64_t ffnTensor = c.product(l.tokens, l.b, denseWidth, l.e);
    r.upOutput = ffnTensor;
    r.gateOutput = a.gatedMlp ? ffnTensor : 0;
    r.downInput = ffnTensor;
    if (!a.isMoeLayer(layer))
        return r;
    // Routed experts (docs/models.md "MoE activations"): the router's fp32 scores over
    // all experts for the norm-region tokens; every token's k dispatched copies at full
    // width (gathered over the expert tensor ranks) as the experts' input and again as
    // their output (for the gradient of the routing weights); and the k copies'
    // expert-MLP tensors, f_e / t wide. Balanced routing: with expert parallelism a
    // rank receives as many token copies as it sends.
    const std::int64_t copies = c.product(l.tokens, l.b, a.activeExperts);
    r.routerScores = c.product(l.normTokens, l.b, a.experts, 4);
    r.expertInput = c.product(copies, l.h, l.e);
    const std::int64_t expertTensor = c.product(copies, l.expertFfn, l.e);
    r.expertUpOutput = expertTensor;
    r.expertGateOutput = a.gatedMlp ? expertTensor : 0;
    r.expertDownInput = expertTensor;
    r.expertOutput = c.product(copies, l.h, l.e);
    return r;
}

/// Elements of the tensors a block's linear layers save as their inputs (the terms an
/// FP8 recipe stores in FP8): the QKV and the MLP input (each `norm`), the output
/// projection's input, the down projection's input and, in a MoE block, the experts'
/// input and down input. Zero when nothing is stored in FP8 (fp8 off, or full
/// recomputation, which keeps each block's input in the activation dtype).
struct LinearInputs
{
    std::int64_t norm = 0, projection = 0, down = 0, expert = 0, expertDown = 0;
};

template <typename Arith>
[[gnu::always_inline]] inline LinearInputs linearInputs(const Architecture &a,
                                                        const ActivationSettings &s, const Local &l,
                                                        int layer, Arith &c)
{
    LinearInputs n;
    if (s.fp8 == Fp8Recipe::Off || s.recompute == Recompute::Full || isOpLevel(a, s, layer))
        [[likely]]
        return n;
    n.norm = c.product(l.normTokens, l.b, l.h);
    n.projection = c.product(l.tokens, l.b, l.vExpanded);
    const bool moe = a.isMoeLayer(layer);
    n.down = c.product(l.tokens, l.b, moe ? std::int64_t(a.sharedExperts) * l.expertFfn : l.ffn);
    if (moe) {
        const std::int64_t copies = c.product(l.tokens, l.b, a.activeExperts);
        n.expert = c.product(copies, l.h);
        n.expertDown = c.product(copies, l.expertFfn);
    }
    return n;
}

/// computeLayer() with an FP8 recipe (Transformer Engine): a linear layer saves its input
/// for the weight gradient as FP8, column-wise only (module/linear.py lines 600-621),
/// fp8TensorBytes(elements) (1 byte per element, plus one scale per 32 for MXFP8) instead
/// of elements x e. The terms as layerActivationTerms() reports them.
template <typename Arith>
[[gnu::always_inline]] inline LayerActivationTerms
computeLayerFp8(const Architecture &a, const ActivationSettings &s, const Local &l, int layer,
                Arith &c)
{
    LayerActivationTerms r = computeLayer(a, s, l, layer, c);
    const LinearInputs n = linearInputs(a, s, l, layer, c);
    if (n.norm == 0)
        return r;
    r.qkvInput = r.mlpInput = fp8TensorBytes(s.fp8, n.norm);
    r.projectionInput = fp8TensorBytes(s.fp8, n.projection);
    r.downInput = fp8TensorBytes(s.fp8, n.down);
    if (n.expert > 0) {
        r.expertInput = fp8TensorBytes(s.fp8, n.expert);
        r.expertDownInput = fp8TensorBytes(s.fp8, n.expertDown);
    }
    return r;
}

/// What computeLayerFp8() takes off computeLayer()'s total, bytes: for each saved linear
/// input of n elements, n e - fp8TensorBytes(n). 0 without FP8 (one compare).
template <typename Arith>
[[gnu::always_inline]] inline std::int64_t
fp8Saving(const Architecture &a, const ActivationSettings &s, const Local &l, int layer, Arith &c)
{
    const LinearInputs n = linearInputs(a, s, l, layer, c);
    if (n.norm == 0) [[likely]]
        return 0;
    const auto saved = [&](std::int64_t e) {
        return e == 0 ? 0 : c.product(e, l.e) - fp8TensorBytes(s.fp8, e);
    };
    return 2 * saved(n.norm) + saved(n.projection) + saved(n.down) + saved(n.expert) +
           saved(n.expertDown);
}

template <typename Arith>
[[gnu::always_inline]] inline OutputActivationTerms
computeOutput(const Architecture &a, const ActivationSettings &s, const Local &l, Arith &c)
{
    const std::int64_t t = s.tensorParallel;
    const std::int64_t vocabPerRank = quotient(a.vocab + t - 1, t);
    const std::int64_t logitBytes = s.fp32Logits ? 4 : l.e;
    OutputActivationTerms r;
    const std::int64_t normTensor = c.product(l.normTokens, l.b, l.h, l.e);
    const NormSaved norm = normSaved(a, s, l, normTensor, c);
    r.finalNormInput = norm.input;
    r.finalNormOutput = norm.output;
    r.outputInput = normTensor;
    if (s.lossChunks <= 1) {
        r.logits = c.product(l.tokens, l.b, vocabPerRank, logitBytes);
        // A compiled loss keeps no log-softmax: only its input's gradient.
        r.lossBackward = s.lossKernel == LossKernel::Fused ? 0
                         : s.compiledLoss                  ? r.logits
                                                           : c.product(r.logits, 2);
        return r;
    }
    // Chunked cross-entropy (torchtune CEWithChunkedOutputLoss, docs/activations.md): the
    // output projection's chunks stay in the activation dtype; the backward upcasts one
    // chunk of ceil(tokens / n) tokens per sequence (torch.chunk's split) at a time.
    r.logits = c.product(l.tokens, l.b, vocabPerRank, l.e);
    const std::int64_t chunkTokens = quotient(l.tokens + s.lossChunks - 1, s.lossChunks);
    const std::int64_t chunk = c.product(chunkTokens, l.b, vocabPerRank, logitBytes);
    if (s.lossKernel == LossKernel::Fused)
        r.lossBackward = chunk;
    else if (s.compiledLoss) // the upcast fused away: the chunk's gradient in its own dtype
        r.lossBackward = c.product(chunkTokens, l.b, vocabPerRank, l.e);
    else
        r.lossBackward = c.product(chunk, 3);
    return r;
}

template <typename Arith>
[[gnu::always_inline]] inline std::int64_t computeEmbedding(const ActivationSettings &s,
                                                            const Local &l, Arith &c)
{
    if (!s.dropout)
        return 0;
    return c.product(l.normTokens, l.b, l.h);
}

template <typename Arith>
[[gnu::always_inline]] inline std::int64_t checkedTotal(const LayerActivationTerms &t, Arith &c)
{
    return c.sum(t.attentionNormInput, t.attentionNormOutput, t.qkvInput, t.query, t.key, t.value,
                 t.attentionLatents, t.softmaxOutput, t.softmaxDropoutMask, t.softmaxDropoutOutput,
                 t.softmaxStatistics, t.projectionInput, t.attentionDropoutMask, t.mlpNormInput,
                 t.mlpNormOutput, t.mlpInput, t.upOutput, t.gateOutput, t.downInput,
                 t.mlpDropoutMask, t.routerScores, t.expertInput, t.expertUpOutput,
                 t.expertGateOutput, t.expertDownInput, t.expertOutput, t.projectionOutput,
                 t.downOutput, t.reduceScatterOutputs, t.layerInput);
}

template <typename Arith>
[[gnu::always_inline]] inline std::int64_t checkedTotal(const OutputActivationTerms &t, Arith &c)
{
    return c.sum(t.finalNormInput, t.finalNormOutput, t.outputInput, t.logits);
}

std::string notDivisible(const std::string &what, std::int64_t n, const std::string &by,
                         std::int64_t d)
{
    return what + " (" + std::to_string(n) + ") is not divisible by " + by + " (" +
           std::to_string(d) + ")";
}

std::string atLeastOne(const std::string &what, std::int64_t got)
{
    return what + " must be at least 1 (got " + std::to_string(got) + ")";
}

std::string atMost(const std::string &what, std::int64_t cap, std::int64_t got)
{
    return what + " must be at most " + std::to_string(cap) + " (got " + std::to_string(got) + ")";
}

/// The largest of the values, as a double (a fold: no loop).
template <typename... Values> double largest(double first, Values... rest)
{
    double m = first;
    ((m = std::max(m, double(rest))), ...);
    return m;
}

/// True when no product or sum computeLayer, computeOutput and computeEmbedding form
/// for these extents can exceed 2^62, so Unchecked gives Checked's values with no
/// overflow. Every product is (tokens or the fewer norm-region tokens) x b x at most 8
/// bytes (e, or the 4-byte fp32 scores, statistics and logits) x one per-token width,
/// at most W below; every partial product is at most the whole, since each factor is
/// at least 1 or 0 (valid extents are positive). A total adds at most 32 such terms
/// (the loss backward is 2 logits, the op-level reduce-scatter outputs 2 block inputs), so 32 x P <
/// 2^62 suffices; the bound is taken with a further factor 2 in double precision (rounding is far
/// below that).
bool cannotOverflow(const Architecture &a, const ActivationSettings &s, const Local &l)
{
    const double k = a.activeExperts;
    const double vocabPerRank = double(quotient(a.vocab + s.tensorParallel - 1, s.tensorParallel));
    const double latentWidth = double(2 * a.qLoraRank + 2 * a.kvLoraRank + a.qkRopeHeadDim);
    const double widest =
        largest(l.h, l.q, l.kv, l.v, l.vExpanded, latentWidth, double(l.heads) * double(l.s), l.ffn,
                double(a.sharedExperts) * double(l.expertFfn), a.experts, k * double(l.h),
                k * double(l.expertFfn), vocabPerRank);
    const double largestTerm = double(l.tokens) * double(l.b) * 8.0 * widest;
    return largestTerm * 64.0 < 4611686018427387904.0; // 2^62
}

/// The figures' block terms with an FP8 recipe: each block figure less fp8Saving() of its
/// block and recompute level (out of line: the figures' hot path without FP8 stays
/// as small as before).
template <typename Arith>
[[gnu::noinline]] void subtractFp8Savings(const Architecture &a, const ActivationSettings &s,
                                          const Local &l, Arith &c, ActivationFigures &out)
{
    ActivationSettings none = s;
    none.recompute = Recompute::None;
    out.firstBlock -= fp8Saving(a, s, l, 0, c);
    out.firstBlockNoRecompute -= fp8Saving(a, none, l, 0, c);
    if (a.isMoe() && a.denseLayers > 0) {
        out.moeBlock -= fp8Saving(a, s, l, a.denseLayers, c);
        out.moeBlockNoRecompute -= fp8Saving(a, none, l, a.denseLayers, c);
    } else if (a.isMoe()) {
        out.moeBlock = out.firstBlock;
        out.moeBlockNoRecompute = out.firstBlockNoRecompute;
    }
}

/// The figures of activationFigures() with the arithmetic `c` (Checked or Unchecked).
template <typename Arith>
void computeFigures(const Architecture &a, const ActivationSettings &s, const Local &l, Arith &c,
                    ActivationFigures &out)
{
    const OutputActivationTerms output = computeOutput(a, s, l, c);
    out.output = checkedTotal(output, c);
    out.lossBackward = output.lossBackward;
    out.embedding = computeEmbedding(s, l, c);
    c.sum(out.output, out.lossBackward, out.embedding);
    // The layer terms under no recomputation bound every level; check them too, for a
    // dense block and (in a MoE model) a MoE block. Without recomputation both are the
    // same terms, computed once.
    ActivationSettings none = s;
    none.recompute = Recompute::None;
    const auto block = [&](int layer, std::int64_t &kept, std::int64_t &noRecompute) {
        const LayerActivationTerms terms = computeLayer(a, s, l, layer, c);
        kept = checkedTotal(terms, c);
        noRecompute = s.recompute == Recompute::None
                          ? kept
                          : checkedTotal(computeLayer(a, none, l, layer, c), c);
        // Op-level selective saves outputs the backward itself never keeps (the
        // row-parallel mm and reduce-scatter outputs): they stay beside the recomputed
        // block, so they are added here and noRecompute - kept is what recomputing a
        // block adds (ActivationFigures::firstBlockNoRecompute).
        if (isOpLevel(a, s, layer)) [[unlikely]]
            noRecompute = c.sum(noRecompute, terms.projectionOutput, terms.downOutput,
                                terms.reduceScatterOutputs);
    };
    block(0, out.firstBlock, out.firstBlockNoRecompute);
    out.moeBlock = out.moeBlockNoRecompute = 0;
    if (a.isMoe() && a.firstMoeLayer() > 0) {
        block(a.firstMoeLayer(), out.moeBlock, out.moeBlockNoRecompute);
    } else if (a.isMoe()) {
        out.moeBlock = out.firstBlock;
        out.moeBlockNoRecompute = out.firstBlockNoRecompute;
    }
    // FP8 linear inputs (computeLayerFp8): the same terms, fewer bytes.
    if (s.fp8 != Fp8Recipe::Off) [[unlikely]]
        subtractFp8Savings(a, s, l, c, out);
}

} // namespace

namespace {

/// Fp8Recipe's names; the aliases are torchao's float8 recipe names ("tensorwise") and
/// the OCP microscaling short name ("mx").
constexpr EnumTable<Fp8Recipe, 3> fp8Recipes{{
    {Fp8Recipe::Off, "off", {}, {"none"}},
    {Fp8Recipe::Delayed, "delayed", {}, {"tensorwise"}},
    {Fp8Recipe::Mxfp8, "mxfp8", {}, {"mx"}},
}};

constexpr EnumTable<LossKernel, 2> lossKernels{{
    {LossKernel::Fused, "fused"},
    {LossKernel::Eager, "eager"},
}};

constexpr EnumTable<NormKernel, 2> normKernels{{
    {NormKernel::Fused, "fused"},
    {NormKernel::Eager, "eager"},
}};

constexpr EnumTable<Recompute, 3> recomputes{{
    {Recompute::None, "none"},
    {Recompute::Selective, "selective"},
    {Recompute::Full, "full"},
}};

} // namespace

std::string_view fp8RecipeId(Fp8Recipe r)
{
    return enumId(fp8Recipes, r, "off");
}

std::optional<Fp8Recipe> parseFp8Recipe(std::string_view text)
{
    return parseEnum(fp8Recipes, text);
}

std::int64_t fp8TensorBytes(Fp8Recipe r, std::int64_t elements)
{
    switch (r) {
    case Fp8Recipe::Off:
        return 0;
    case Fp8Recipe::Delayed:
        return elements;
    case Fp8Recipe::Mxfp8:
        return elements + (elements + 31) / 32;
    }
    return 0;
}

std::int64_t fp8RecipeStateBytes(Fp8Recipe r, std::int64_t gemms)
{
    return r == Fp8Recipe::Delayed ? gemms * 5 * (1024 + 1) * 4 : 0;
}

bool opLevelSelective(const Architecture &a, const ActivationSettings &s, int layer)
{
    return isOpLevel(a, s, layer);
}

std::string_view recomputeId(Recompute r)
{
    return enumId(recomputes, r, "none");
}

std::optional<Recompute> parseRecompute(std::string_view id)
{
    return parseEnum(recomputes, id);
}

std::string_view lossKernelId(LossKernel k)
{
    return enumId(lossKernels, k, "fused");
}

std::optional<LossKernel> parseLossKernel(std::string_view id)
{
    return parseEnum(lossKernels, id);
}

std::string_view normKernelId(NormKernel k)
{
    return enumId(normKernels, k, "fused");
}

std::optional<NormKernel> parseNormKernel(std::string_view id)
{
    return parseEnum(normKernels, id);
}

std::int64_t LayerActivationTerms::total() const
{
    Checked c;
    return checkedTotal(*this, c);
}

std::int64_t OutputActivationTerms::total() const
{
    Checked c;
    return checkedTotal(*this, c);
}

std::string activationFigures(const Architecture &a, const ActivationSettings &s,
                              ActivationFigures &out)
{
    // Each count from 1 to its cap, checked in this order.
    const struct
    {
        const char *what;
        std::int64_t value, cap;
    } counts[] = {{"micro-batch size", s.microBatchSize, maxMicroBatchSize},
                  {"sequence length", s.sequenceLength, maxSequenceLength},
                  {"tensor parallel size", s.tensorParallel, maxParallelSize},
                  {"context parallel size", s.contextParallel, maxParallelSize},
                  {"loss chunks", s.lossChunks, maxChunksOfLoss}};
    for (const auto &c : counts) {
        if (c.value < 1)
            return atLeastOne(c.what, c.value);
        if (c.value > c.cap)
            return atMost(c.what, c.cap, c.value);
    }
    if (s.activationBytes != 1 && s.activationBytes != 2 && s.activationBytes != 4 &&
        s.activationBytes != 8)
        return "activation bytes must be 1, 2, 4 or 8 (got " + std::to_string(s.activationBytes) +
               ")";
    const int t = s.tensorParallel;
    if (remainder(a.heads, t) != 0)
        return notDivisible("heads", a.heads, "tensor parallel size", t);
    // Megatron-Core's TransformerConfig raises "num_query_groups must be a multiple of
    // tensor_model_parallel_size"; KV heads are not replicated across tensor ranks.
    if (remainder(a.kvHeads, t) != 0)
        return notDivisible("kv heads", a.kvHeads, "tensor parallel size", t);
    if (remainder(a.ffn, t) != 0)
        return notDivisible("ffn size", a.ffn, "tensor parallel size", t);
    // Experts are split over the expert tensor-parallel size, which Megatron-Core
    // defaults to t (--expert-tensor-parallel-size).
    if (a.isMoe() && remainder(a.effectiveExpertFfn(), t) != 0)
        return notDivisible("expert ffn size", a.effectiveExpertFfn(), "tensor parallel size", t);
    if (a.usesLatentAttention() && remainder(a.valueWidth(), t) != 0)
        return notDivisible("value width", a.valueWidth(), "tensor parallel size", t);
    if (remainder(s.sequenceLength, s.contextParallel) != 0)
        return notDivisible("sequence length", s.sequenceLength, "context parallel size",
                            s.contextParallel);
    if (s.sequenceParallel && remainder(quotient(s.sequenceLength, s.contextParallel), t) != 0) {
        const std::string what =
            s.contextParallel == 1 ? "sequence length" : "sequence length per context rank";
        return notDivisible(what, s.sequenceLength / s.contextParallel, "tensor parallel size", t) +
               " with sequence parallel on";
    }
    // Every figure once, from one set of per-rank extents; any overflow refuses. When no
    // product or sum can reach 2^62 the checks are left out (the values are the same).
    const Local l = localExtents(a, s);
    bool overflow = false;
    if (cannotOverflow(a, s, l)) {
        Unchecked c;
        computeFigures(a, s, l, c, out);
    } else {
        Checked c;
        computeFigures(a, s, l, c, out);
        overflow = c.overflow;
    }
    if (overflow)
        return "activation sizes are too large: a byte count exceeds 64-bit integers";
    return {};
}

std::string validateActivationSettings(const Architecture &a, const ActivationSettings &s)
{
    if (std::string e = validateArchitecture(a); !e.empty())
        return e;
    ActivationFigures unused;
    return activationFigures(a, s, unused);
}

LayerActivationTerms layerActivationTerms(const Architecture &a, const ActivationSettings &s,
                                          int layer)
{
    if (!validateActivationSettings(a, s).empty())
        return {};
    Checked c;
    return computeLayerFp8(a, s, localExtents(a, s), layer, c);
}

std::int64_t layerActivationBytes(const Architecture &a, const ActivationSettings &s, int layer)
{
    return layerActivationTerms(a, s, layer).total();
}

std::int64_t embeddingActivationBytes(const Architecture &a, const ActivationSettings &s)
{
    if (!validateActivationSettings(a, s).empty())
        return 0;
    Checked c;
    return computeEmbedding(s, localExtents(a, s), c);
}

OutputActivationTerms outputActivationTerms(const Architecture &a, const ActivationSettings &s)
{
    if (!validateActivationSettings(a, s).empty())
        return {};
    Checked c;
    return computeOutput(a, s, localExtents(a, s), c);
}

std::int64_t outputActivationBytes(const Architecture &a, const ActivationSettings &s)
{
    return outputActivationTerms(a, s).total();
}

std::int64_t lossBackwardBytes(const Architecture &a, const ActivationSettings &s)
{
    return outputActivationTerms(a, s).lossBackward;
}

} // namespace shardscope
