#include "estimate.h"

#include "format.h"
#include "intmath.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <string_view>

namespace shardscope {

namespace {

__extension__ typedef __int128 Wide;

/// Largest byte count a report may hold (1 EB); beyond it a scenario is refused.
constexpr std::int64_t maxReportBytes = 1'000'000'000'000'000'000;

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

ActivationSettings activationSettings(const Scenario &s)
{
    ActivationSettings a;
    a.microBatchSize = s.training.microBatchSize;
    a.sequenceLength = s.training.sequenceLength;
    a.tensorParallel = s.layout.tensorParallel;
    a.contextParallel = s.layout.contextParallel;
    a.sequenceParallel = s.training.sequenceParallel;
    a.recompute = s.training.recompute;
    a.flashAttention = s.training.flashAttention;
    a.dropout = s.training.dropout;
    a.activationBytes = s.training.activationBytes;
    a.fp32Logits = s.training.fp32Logits;
    a.lossKernel = s.training.lossKernel;
    // Transformer Engine saves the linear layers' inputs in FP8; torchao Float8 (the
    // fsdp2 profile) saves them in high precision (torchao/float8/float8_linear.py line
    // 45, ctx.save_for_backward(input_hp, weight_hp_t)).
    a.fp8 = s.layout.framework == Framework::Fsdp2 ? Fp8Recipe::Off : s.training.fp8;
    // Under fsdp2 "selective" is torchtitan's op-level policy (opLevelSelective).
    a.framework = s.layout.framework;
    return a;
}

/// Linear-layer weight elements of one prepared block on one GPU of t tensor ranks
/// holding `routedExperts` / e routed experts: the matrices split t ways (with their
/// column-parallel biases), without norms, replicated biases and the router.
std::int64_t linearElementsPerRank(const PreparedModel::Block &b, int routedExperts, int t, int e)
{
    return shardElements(b.split, t) +
           (routedExperts == 0 ? 0 : quotient(routedExperts, e) * shardElements(b.expertSplit, t));
}

/// Transformer Engine's FP8 weight copies of `blocks` identical blocks of `linear`
/// linear elements each on one GPU, bytes: the row-wise copy and the column-wise one
/// (delayed scaling on Hopper keeps the transpose, float8_tensor.py lines 423-427;
/// MXFP8 keeps both directions with their scales, mxfp8_tensor.py lines 83-93), 2 x
/// fp8TensorBytes per block. The copy is made for the weights a GPU computes with, so
/// it is whole under every ZeRO stage: cached across micro-batches when Megatron-Core
/// passes is_first_microbatch (module/linear.py lines 1958-1960, 2068-2071), else saved
/// for the backward with each layer (wt_save, line 643) until the stage's backward.
std::int64_t fp8WeightCopyBytes(Fp8Recipe r, std::int64_t blocks, std::int64_t linear)
{
    return blocks * 2 * fp8TensorBytes(r, linear);
}

/// Activation offload (Transformer Engine's get_cpu_offload_context with num_layers =
/// L - 2 of model_layers = L, the largest count that still overlaps the copies with
/// compute, docs/features/other_optimizations/cpu_offloading/cpu_offloading.rst lines
/// 140-149): the first L - 2 of the stage's blocks leave the GPU, the last two stay.
/// The stage's `denseBlocks` dense blocks come before its `moeBlocks` MoE blocks; each
/// keeps `denseBytes` / `moeBytes` per micro-batch. Bytes one micro-batch moves to host.
std::int64_t offloadedActivationBytes(std::int64_t denseBlocks, std::int64_t moeBlocks,
                                      std::int64_t denseBytes, std::int64_t moeBytes)
{
    const std::int64_t moeKept = std::min<std::int64_t>(2, moeBlocks);
    const std::int64_t denseKept = std::min<std::int64_t>(2 - moeKept, denseBlocks);
    return (denseBlocks - denseKept) * denseBytes + (moeBlocks - moeKept) * moeBytes;
}

/// What validate() says of the FP8 and activation-offload settings (empty when valid).
std::string checkFp8AndOffload(const Scenario &s, bool hasArchitecture)
{
    const Training &t = s.training;
    if (t.fp8 != Fp8Recipe::Off) {
        if (!hasArchitecture)
            return "fp8 needs the model's architecture (a plain parameter count has no linear "
                   "layers)";
        if (s.fineTuning.enabled())
            return "fp8 with LoRA is not modelled: turn fp8 off or the LoRA rank to 0";
    }
    if (t.activationOffload) {
        if (!hasArchitecture)
            return "activation offload needs the model's architecture (a plain parameter "
                   "count has no layers)";
        // megatron/core/transformer/transformer_config.py lines 1891-1894.
        if (s.layout.pipelineParallel > 1)
            return "activation offload is modelled without pipeline parallelism (p = 1), as "
                   "Megatron-Core allows it";
    }
    return {};
}

/// Parameters of one block on one GPU, in two parts that ZeRO shards over different
/// groups: `dense` (attention, norms, dense MLP or shared experts, router) over the
/// data x context ranks, and `experts` (this GPU's routed experts) over the expert
/// data-parallel ranks.
struct BlockShare
{
    std::int64_t dense = 0;
    std::int64_t experts = 0;
    std::int64_t total() const { return dense + experts; }
};

/// Block `layer` of `a`, prepared for the split over t and e ranks: the matrices (and
/// their column-parallel biases) split t ways, norms, row-parallel output biases, MLA
/// latent norms and the MoE router replicated (Megatron-LM ColumnParallelLinear /
/// RowParallelLinear; Megatron-Core's TopKRouter weight is not split). Routed experts:
/// each split t ways but for its down-projection bias (Megatron-Core's expert
/// tensor-parallel size defaults to t).
PreparedModel::Block prepareBlock(const Architecture &a, int layer)
{
    const std::int64_t h = a.hidden;
    std::int64_t replicated = std::int64_t(a.normsPerLayer) * h * (a.layerNormBias ? 2 : 1) +
                              (a.linearBiases ? h : 0) +
                              (a.usesLatentAttention() ? a.qLoraRank + a.kvLoraRank : 0);
    // Query/key norms are replicated on every tensor rank, as Megatron-Core keeps them:
    // q_layernorm and k_layernorm are built head_dim wide (hidden_size_per_attention_head)
    // and applied to each rank's own heads (megatron/core/transformer/attention.py lines
    // 1734-1751 and 1932-1936, NVIDIA/Megatron-LM d98e8a6), and their gradients are
    // summed over the tensor-parallel group like sequence-parallel norms
    // (megatron/core/distributed/finalize_model_grads.py lines 451-453). OLMo 2's
    // whole-width form is kept whole on every rank too.
    replicated += qkNormParameterCount(a);
    PreparedModel::Block b;
    if (!a.isMoeLayer(layer)) {
        replicated += a.linearBiases ? h : 0; // the MLP's down-projection bias
        b.split = layerParameterCount(a, layer) - replicated;
        b.replicated = replicated;
        return b;
    }
    const std::int64_t expert = expertParameterCount(a);
    const std::int64_t expertBias = a.linearBiases ? h : 0;
    replicated += h * a.experts + (a.routerBias ? a.experts : 0) + expertBias * a.sharedExperts;
    const std::int64_t nonRouted = layerParameterCount(a, layer) - std::int64_t(a.experts) * expert;
    b.split = nonRouted - replicated;
    b.replicated = replicated;
    b.expertSplit = expert - expertBias;
    b.expertReplicated = expertBias;
    return b;
}

/// A prepared block on one GPU of t tensor ranks, holding `routedExperts` / e of its
/// routed experts (0 for a dense block).
BlockShare blockParametersPerRank(const PreparedModel::Block &b, int routedExperts, int t, int e)
{
    return {shardElements(b.split, t) + b.replicated,
            routedExperts == 0 ? 0
                               : quotient(routedExperts, e) *
                                     (shardElements(b.expertSplit, t) + b.expertReplicated)};
}

/// One vocabulary-sized matrix on one tensor-parallel rank: ceil(V / t) rows of h
/// (Megatron VocabParallelEmbedding; padding of V to a multiple is not modelled).
std::int64_t vocabParametersPerRank(const Architecture &a, int t)
{
    return shardElements(a.vocab, t) * a.hidden;
}

/// a / b for b > 0, truncated toward zero as 128-bit division is: in 64 bits when a
/// fits (the same quotient, without the 128-bit division routine).
Wide wideQuotient(Wide a, std::int64_t b)
{
    if (a >= std::numeric_limits<std::int64_t>::min() &&
        a <= std::numeric_limits<std::int64_t>::max())
        return quotient(std::int64_t(a), b);
    return a / b;
}

/// (n - 1) / n x bytes, the per-GPU traffic of a ring reduce-scatter or all-gather,
/// truncated. For 0 <= bytes < 2^63 - n it is bytes - ceil(bytes / n) (bytes = q n + r:
/// both are q (n - 1) + r - [r > 0]), in 64 bits; else the 128-bit product.
[[gnu::always_inline]] inline Wide ringShare(Wide bytes, std::int64_t n)
{
    if (n <= 1)
        return 0;
    if (bytes >= 0 && bytes <= std::numeric_limits<std::int64_t>::max() - n) {
        const auto b = std::int64_t(bytes);
        return b - quotient(b + n - 1, n);
    }
    return wideQuotient(bytes * (n - 1), n);
}

/// trunc(x p / 100) for 0 <= p <= 100 without the product: x = 100 q + r gives q p +
/// trunc(r p / 100), q and r of x's sign (the fragmentation reserve of a byte count).
std::int64_t percentOf(std::int64_t x, int p)
{
    constexpr std::int64_t direct = std::numeric_limits<std::int64_t>::max() / 100;
    if (x >= 0 && x <= direct) [[likely]] // every byte count under 92 PB: the product fits
        return std::int64_t(std::uint64_t(x) * std::uint64_t(p) / 100);
    return x / 100 * p + x % 100 * p / 100;
}

/// Appends the decimal digits of `v` to `out` (no allocation once it has room).
void appendNumber(std::string &out, std::int64_t v)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

/// A group's label, "1 GPU", "all 64 GPUs" or "stage 3", written over `label` (left
/// as it is when it already reads so: a re-estimate rewrites nothing).
[[gnu::always_inline]] inline void setLabel(std::string &label, int stages, std::int64_t gpuCount,
                                            int stage)
{
    char text[40];
    char *end = text;
    const auto put = [&end](std::string_view part) {
        end = std::copy(part.begin(), part.end(), end);
    };
    if (stages == 1 && gpuCount == 1) {
        put("1 GPU");
    } else {
        put(stages == 1 ? "all " : "stage ");
        end = std::to_chars(end, text + sizeof text, stages == 1 ? gpuCount : stage).ptr;
        if (stages == 1)
            put(" GPUs");
    }
    // Compared in place, eight characters a step and the last eight (or, under eight, the
    // first and the last four) overlapping the step before: a library memcmp call costs
    // more than these few characters. Every label has at least five ("1 GPU").
    const std::size_t length = std::size_t(end - text);
    const auto word8 = [](const char *at) {
        std::uint64_t w;
        std::memcpy(&w, at, 8);
        return w;
    };
    const auto word4 = [](const char *at) {
        std::uint32_t w;
        std::memcpy(&w, at, 4);
        return w;
    };
    bool same = label.size() == length;
    if (same) {
        const char *held = label.data();
        if (length >= 8) {
            for (std::size_t k = 0; same && k + 8 < length; k += 8)
                same = word8(held + k) == word8(text + k);
            same = same && word8(held + length - 8) == word8(text + length - 8);
        } else if (length >= 4) {
            same =
                word4(held) == word4(text) && word4(held + length - 4) == word4(text + length - 4);
        } else {
            same = label.compare(0, length, text, length) == 0;
        }
    }
    if (!same)
        label.assign(text, length);
}
// resetKeepingLabel() below names every field of GpuGroup: one added to memoryreport.h
// must be reset there too (the prepared-path test in tests/core/test_equivalence.cpp
// reuses one report across 100,000 estimates). 288 bytes on LP64 (x86-64, AArch64).
static_assert(sizeof(void *) != 8 || sizeof(GpuGroup) == 288,
              "GpuGroup changed: reset the new field in resetKeepingLabel()");

/// Every field of `g` but its label back to its default, one by one: value-initialising
/// the whole group (a temporary, or construct_at) is a rep stos the next stores wait
/// for, the hottest instruction of the estimate.
void resetKeepingLabel(GpuGroup &g)
{
    // The defaults of memoryreport.h's member initialisers.
    g.firstRank = 0;
    g.gpuCount = 0;
    g.pipelineStage = 0;
    g.firstLayer = 0;
    g.layerCount = 0;
    g.holdsEmbedding = false;
    g.holdsOutputHead = false;
    g.parametersPerGpu = 0;
    g.gatheredUnitParameters = 0;
    g.peakInFlight = 1;
    g.embeddingInFlight = 0;
    g.outputInFlight = 0;
    g.chunkActivationBytes = 0;
    g.embeddingBytesPerMicroBatch = 0;
    g.outputBytesPerMicroBatch = 0;
    g.bytes = ComponentBytes();
    g.buffers = BufferBytes();
    g.activations = ActivationBytes();
    g.hostBytes = 0;
    g.communication = CommunicationBytes();
}

/// Overheads that add nothing (modelStatesOnly).
Overheads noOverheads()
{
    Overheads o;
    o.cudaContextBytes = 0;
    o.ddpBucketBytes = 0;
    o.zeroBucketElements = 0;
    o.fragmentationPercent = 0;
    return o;
}
const Overheads noOverheadsAtAll = noOverheads();

bool usesSchedule(const Scenario &s)
{
    return s.layout.pipelineParallel > 1;
}

int chunksOf(const Scenario &s)
{
    return usesSchedule(s) ? scheduleParams(s).chunks : 1;
}

} // namespace

int stepValueAt(const std::vector<std::pair<double, int>> &steps, double time)
{
    auto it =
        std::upper_bound(steps.begin(), steps.end(), time,
                         [](double t, const std::pair<double, int> &e) { return t < e.first; });
    return it == steps.begin() ? 0 : (it - 1)->second;
}

std::int64_t stageBytesHolding(const GpuGroup &g, int inFlight, int embeddingInFlight,
                               int headInFlight)
{
    return g.totalBytes() - g.activations.layers - g.activations.embedding - g.activations.output +
           std::int64_t(inFlight) * g.chunkActivationBytes +
           std::int64_t(embeddingInFlight) * g.embeddingBytesPerMicroBatch +
           std::int64_t(headInFlight) * g.outputBytesPerMicroBatch;
}

ScheduleParams scheduleParams(const Scenario &s)
{
    ScheduleParams p;
    p.schedule = s.training.schedule;
    p.stages = s.layout.pipelineParallel;
    p.microBatches = int(std::min<std::int64_t>(s.training.microBatches, 1 << 30));
    p.chunks = s.training.schedule == PipelineSchedule::Interleaved1F1B ? s.training.chunks : 1;
    return p;
}

std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &g, const StageTimeline &stage,
                                            double makespan)
{
    return stageMemoryOverTime(g, stage.inFlight, stage.embeddingInFlight, stage.headInFlight,
                               makespan);
}

std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &g, const InFlightSteps &inFlight,
                                            const InFlightSteps &embeddingInFlight,
                                            const InFlightSteps &headInFlight, double makespan)
{
    std::vector<double> times;
    times.reserve(inFlight.size() + embeddingInFlight.size() + headInFlight.size() + 1);
    for (const auto *steps : {&inFlight, &embeddingInFlight, &headInFlight})
        for (const auto &step : *steps)
            times.push_back(step.first);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    if (times.empty() || times.back() < makespan)
        times.push_back(makespan);
    std::vector<MemoryStep> out;
    out.reserve(times.size());
    for (const double t : times)
        out.push_back(
            {t, stageBytesHolding(g, stepValueAt(inFlight, t), stepValueAt(embeddingInFlight, t),
                                  stepValueAt(headInFlight, t))});
    return out;
}

std::int64_t shardElements(std::int64_t n, std::int64_t d)
{
    return d <= 1 ? n : quotient(n + d - 1, d);
}

int stageLayerCount(int layers, int stages, int stage, bool balanced)
{
    if (stages <= 0)
        return 0;
    if (balanced && stages >= 2) {
        const int k = int(quotient(std::int64_t(layers) + 2, stages));
        return stage == 0 || stage == stages - 1 ? k - 1 : k;
    }
    return int(quotient(layers, stages)) + (stage < remainder(layers, stages) ? 1 : 0);
}

namespace {

/// A recipe's byte counts are each 0 .. 64 and add up to at least one byte per parameter
/// (validateRecipe() is empty exactly then).
bool recipeInRange(const Recipe &r)
{
    // 1 or 0 per field, and'ed without a branch for each.
    const auto inRange = [](std::int64_t v) { return unsigned(v >= 0 && v <= 64); };
    return (inRange(r.weightBytes) & inRange(r.gradientBytes) & inRange(r.masterWeightBytes) &
            inRange(r.optimizerBytes)) != 0 &&
           r.totalBytesPerParameter() > 0;
}

} // namespace

std::string validateRecipe(const Recipe &r)
{
    const std::int64_t fields[] = {r.weightBytes, r.gradientBytes, r.masterWeightBytes,
                                   r.optimizerBytes};
    if (recipeInRange(r))
        return {};
    const char *names[] = {"weight", "gradient", "master-weight", "optimizer"};
    for (int i = 0; i < 4; ++i) {
        if (fields[i] < 0 || fields[i] > 64)
            return std::string(names[i]) + " bytes per parameter must be between 0 and 64 (got " +
                   str(fields[i]) + ")";
    }
    if (r.totalBytesPerParameter() <= 0)
        return "a recipe needs at least one byte per parameter";
    return {};
}

std::string_view baseFormatId(BaseFormat f)
{
    switch (f) {
    case BaseFormat::Bf16:
        return "bf16";
    case BaseFormat::Fp16:
        return "fp16";
    case BaseFormat::Int8:
        return "int8";
    case BaseFormat::Nf4:
        return "nf4";
    }
    return "bf16";
}

std::optional<BaseFormat> parseBaseFormat(std::string_view text)
{
    if (text == "bf16")
        return BaseFormat::Bf16;
    if (text == "fp16")
        return BaseFormat::Fp16;
    if (text == "int8" || text == "8bit")
        return BaseFormat::Int8;
    if (text == "nf4" || text == "4bit")
        return BaseFormat::Nf4;
    return std::nullopt;
}

std::int64_t frozenMatrixBytes(BaseFormat f, std::int64_t elements, std::int64_t rows)
{
    switch (f) {
    case BaseFormat::Bf16:
    case BaseFormat::Fp16:
        return 2 * elements;
    case BaseFormat::Int8:
        return elements + 4 * rows;
    case BaseFormat::Nf4: {
        const std::int64_t blocks = (elements + 63) / 64;
        return (elements + 1) / 2 + blocks + 4 * ((blocks + 255) / 256);
    }
    }
    return 2 * elements;
}

namespace {

/// The activation figures of this thread's last estimate on a prepared model: its
/// serial (0: none yet), the settings they were computed for, and the figures.
struct FiguresMemo
{
    std::uint64_t serial = 0;
    ActivationSettings settings;
    ActivationFigures figures;
};
thread_local FiguresMemo lastFigures;

/// The next PreparedModel::serial (prepare() may run on several threads).
std::atomic<std::uint64_t> nextSerial{1};

/// Activation figures of a model without an architecture (all zero: none modelled).
const ActivationFigures noFigures;

/// validate(prepared, s) for the engine: true when the scenario can be estimated, else
/// false with validate()'s reason in `error` (which is not written otherwise). Once the
/// checks reach them, `figures` points at the activation figures (this thread's memo of
/// them, valid until its next check; all zero without an architecture): the engine reads
/// them instead of computing them again.
[[gnu::always_inline]] inline bool check(const PreparedModel &prepared, const Scenario &s,
                                         std::string &error, const ActivationFigures *&figures)
{
    // The reason is built only on a refusal: a valid scenario allocates nothing.
    const auto fail = [&error](auto &&reason) {
        error = std::forward<decltype(reason)>(reason);
        return false;
    };
    figures = &noFigures;
    // The model's own checks (architecture, then the count bounds) come first.
    if (!prepared.error.empty()) [[unlikely]]
        return fail(prepared.error);
    const auto &arch = prepared.architecture;
    if (!recipeInRange(s.recipe)) [[unlikely]]
        return fail("recipe: " + validateRecipe(s.recipe));

    const Layout &l = s.layout;
    if (l.gpus < 1)
        return fail("gpus must be at least 1 (got " + str(l.gpus) + ")");
    if (l.gpus > maxGpus)
        return fail("gpus must be at most " + str(maxGpus) + " (got " + str(l.gpus) + ")");
    // 1 or 0 per degree: all four in one branch; the first bad one is named below it.
    const auto degreeInRange = [](int v) { return unsigned(v >= 1 && v <= maxParallelDegree); };
    if ((degreeInRange(l.tensorParallel) & degreeInRange(l.pipelineParallel) &
         degreeInRange(l.contextParallel) & degreeInRange(l.expertParallel)) == 0) [[unlikely]] {
        const std::pair<const char *, int> degrees[] = {{"tensor parallel", l.tensorParallel},
                                                        {"pipeline parallel", l.pipelineParallel},
                                                        {"context parallel", l.contextParallel},
                                                        {"expert parallel", l.expertParallel}};
        for (const auto &[name, v] : degrees)
            if (!degreeInRange(v))
                return fail(std::string(name) + " size must be between 1 and " +
                            str(maxParallelDegree) + " (got " + str(v) + ")");
    }
    if (remainder(l.gpus, l.modelParallel()) != 0)
        return fail("gpus (" + str(l.gpus) + ") is not divisible by t x p x c (" +
                    str(l.tensorParallel) + " x " + str(l.pipelineParallel) + " x " +
                    str(l.contextParallel) + " = " + str(l.modelParallel()) + ")");
    if (!arch && (l.tensorParallel > 1 || l.pipelineParallel > 1))
        return fail("tensor and pipeline parallelism need an architecture: a plain parameter count "
                    "cannot be split by layer");
    if (arch) {
        if (l.pipelineParallel > arch->layers)
            return fail("pipeline stages (" + str(l.pipelineParallel) + ") exceed layers (" +
                        str(arch->layers) + ")");
        if (l.balancedStages) {
            if (l.pipelineParallel > 1 &&
                remainder(std::int64_t(arch->layers) + 2, l.pipelineParallel) != 0)
                return fail("balanced stages need p dividing layers + 2 (" +
                            str(std::int64_t(arch->layers) + 2) +
                            "; got p = " + str(l.pipelineParallel) + ")");
        } else if (remainder(arch->layers, l.pipelineParallel) != 0 && !l.allowUnevenStages)
            return fail("layers (" + str(arch->layers) +
                        ") are not divisible by pipeline stages (" + str(l.pipelineParallel) +
                        "); allow uneven stages or change p");
    }
    // d x c; the degrees are positive here, so dataParallel() is gpus / (t p c).
    const std::int64_t dc = quotient(l.gpus, l.modelParallel()) * l.contextParallel;
    if (l.hsdpShardSize < 0 || (l.hsdpShardSize > 0 && remainder(dc, l.hsdpShardSize) != 0))
        return fail("HSDP shard size (" + str(l.hsdpShardSize) +
                    ") must divide the data x context parallel ranks (" + str(dc) + ")");
    if (l.hsdpShardSize > 0 && l.zeroStage == ZeroStage::Ddp)
        return fail("HSDP shards model states: pick ZeRO-1, 2 or 3");
    if (const int e = l.expertParallel; e > 1) {
        // Megatron-Core carves the expert-parallel group out of the data (and, folded,
        // context) parallel ranks: expert data parallel = world / (t x e x p).
        if (!arch || !arch->isMoe())
            return fail("expert parallelism needs a mixture-of-experts model");
        if (remainder(arch->experts, e) != 0)
            return fail("experts (" + str(arch->experts) +
                        ") are not divisible by expert parallel size (" + str(e) + ")");
        if (remainder(dc, e) != 0)
            return fail("expert parallel size (" + str(e) +
                        ") must divide the data x context parallel ranks (" + str(dc) + ")");
        if (l.hsdpShardSize > 0 && remainder(l.hsdpShardSize, e) != 0)
            return fail("expert parallel size (" + str(e) + ") must divide the HSDP shard size (" +
                        str(l.hsdpShardSize) + ")");
    }
    if (l.framework == Framework::Megatron && l.zeroStage > ZeroStage::Zero1)
        return fail("megatron: Megatron-Core's distributed optimizer shards optimizer states only: "
                    "pick ddp or zero1 (or the deepspeed or fsdp2 framework)");
    if (s.fineTuning.loraAlpha < 1 || s.fineTuning.loraAlpha > maxLoraRank)
        return fail("LoRA alpha must be between 1 and " + str(maxLoraRank) + " (got " +
                    str(s.fineTuning.loraAlpha) + ")");
    if (const FineTuning &f = s.fineTuning; f.loraRank != 0 || f.baseFormat != BaseFormat::Bf16) {
        if (f.loraRank < 0 || f.loraRank > maxLoraRank)
            return fail("LoRA rank must be between 0 and " + str(maxLoraRank) + " (got " +
                        str(f.loraRank) + ")");
        if (f.loraRank == 0)
            return fail("base format " + std::string(baseFormatId(f.baseFormat)) +
                        " is for a frozen base: set a LoRA rank");
        if (f.loraTargets <= 0 || f.loraTargets > LoraAllLinear)
            return fail("LoRA targets must name at least one of q, k, v, o, gate, up, down");
        if (!arch)
            return fail("LoRA needs the model's architecture (a plain parameter count has no "
                        "matrices to adapt)");
        if (arch->isMoe() || arch->usesLatentAttention())
            return fail("LoRA is modelled for dense models with ordinary attention only");
        if (l.tensorParallel > 1)
            return fail("LoRA is modelled without tensor parallelism (t = 1)");
    }
    if (l.offload != Offload::None && l.zeroStage == ZeroStage::Ddp)
        return fail("CPU offload needs ZeRO stage 1 or higher (DeepSpeed ZeRO-Offload)");
    if (l.offload == Offload::OptimizerAndParams && l.zeroStage != ZeroStage::Zero3)
        return fail(
            "offloading parameters needs ZeRO-3 / FSDP (only sharded weights can live on the "
            "host)");
    if (l.gpusPerNode < 1 || l.gpusPerNode > maxGpusPerNode)
        return fail("GPUs per node must be between 1 and " + str(maxGpusPerNode) + " (got " +
                    str(l.gpusPerNode) + ")");
    if (s.training.fp8 != Fp8Recipe::Off || s.training.activationOffload) [[unlikely]]
        if (auto e = checkFp8AndOffload(s, arch.has_value()); !e.empty())
            return fail(e);

    const Training &t = s.training;
    if (t.microBatchSize < 1 || t.microBatchSize > maxMicroBatchSize)
        return fail("micro-batch size must be between 1 and " + str(maxMicroBatchSize) + " (got " +
                    str(t.microBatchSize) + ")");
    if (t.sequenceLength < 1 || t.sequenceLength > maxSequenceLength)
        return fail("sequence length must be between 1 and " + str(maxSequenceLength) + " (got " +
                    str(t.sequenceLength) + ")");
    if (t.microBatches < 1 || t.microBatches > maxMicroBatches)
        return fail("micro-batches per step must be between 1 and " + str(maxMicroBatches) +
                    " (got " + str(t.microBatches) + ")");
    if (t.chunks < 1 || t.chunks > maxModelChunks)
        return fail("chunks must be between 1 and " + str(maxModelChunks) + " (got " +
                    str(t.chunks) + ")");
    if (usesSchedule(s)) {
        ScheduleParams sp;
        sp.schedule = t.schedule;
        sp.stages = l.pipelineParallel;
        sp.microBatches = int(t.microBatches);
        sp.chunks = t.chunks;
        if (auto e = validateSchedule(sp); !e.empty())
            return fail("pipeline: " + e);
        const int v = chunksOf(s);
        if (arch && l.balancedStages && l.pipelineParallel > 1) {
            // Every full stage's k = (L + 2) / p layers split into v chunks; the two short
            // stages lose one layer from their end chunk.
            const std::int64_t k = quotient(std::int64_t(arch->layers) + 2, l.pipelineParallel);
            if (remainder(k, v) != 0)
                return fail("balanced stages of " + str(k) +
                            " layer slots are not divisible by "
                            "chunks (" +
                            str(v) + ")");
        } else if (arch) {
            // Stage by stage from 0, as stageLayerCount places them: the first L % p
            // stages hold L / p + 1 layers, the others L / p; the first stage whose
            // count v does not divide is named.
            const int base = int(quotient(arch->layers, l.pipelineParallel));
            const int extra = int(remainder(arch->layers, l.pipelineParallel));
            for (const int layers : {extra > 0 ? base + 1 : base, base})
                if (remainder(layers, v) != 0)
                    return fail("layers per stage (" + str(layers) +
                                ") are not divisible by chunks (" + str(v) + ")");
        }
    }
    if (arch) {
        // A re-estimate that changes only what activations do not depend on (the GPU
        // count, the ZeRO stage, the buffers: a GPU-count slider or a strategy button)
        // reuses the figures it computed last; figures that passed their checks pass them
        // again for the same model and settings, so the reason (none) is the same too.
        const ActivationSettings settings = activationSettings(s);
        FiguresMemo &memo = lastFigures;
        if (prepared.serial == 0 || memo.serial != prepared.serial ||
            !(memo.settings == settings)) {
            memo.serial = 0; // computed in place: not a memo until they pass
            if (auto e = activationFigures(*arch, settings, memo.figures); !e.empty())
                return fail("activations: " + e);
            memo.serial = prepared.serial;
            memo.settings = settings;
        }
        figures = &memo.figures;
    }
    const Overheads &o = s.overheads;
    if (o.cudaContextBytes < 0 || o.cudaContextBytes > maxBufferSize)
        return fail("CUDA context bytes must be between 0 and 1e12");
    if (o.ddpBucketBytes < 0 || o.ddpBucketBytes > maxBufferSize)
        return fail("DDP bucket bytes must be between 0 and 1e12");
    if (o.zeroBucketElements < 0 || o.zeroBucketElements > maxBufferSize)
        return fail("ZeRO bucket elements must be between 0 and 1e12");
    if (o.gatheredUnits < 1 || o.gatheredUnits > 2)
        return fail("gathered FSDP units must be 1 or 2 (got " + str(o.gatheredUnits) + ")");
    if (o.fragmentationPercent < 0 || o.fragmentationPercent > 100)
        return fail("fragmentation reserve must be between 0 and 100 percent (got " +
                    str(o.fragmentationPercent) + ")");
    if (o.stage3PrefetchElements < 0 || o.stage3PrefetchElements > maxBufferSize)
        return fail("ZeRO-3 prefetch bucket elements must be between 0 and 1e12");
    if (o.stage3MaxLiveParameters < 0 || o.stage3MaxLiveParameters > maxBufferSize)
        return fail("ZeRO-3 max live parameters must be between 0 and 1e12");
    if (o.stage3PersistenceThreshold < 0 || o.stage3PersistenceThreshold > maxBufferSize)
        return fail("ZeRO-3 persistence threshold must be between 0 and 1e12");
    if (o.subGroupElements < 1 || o.subGroupElements > maxBufferSize)
        return fail("ZeRO sub-group elements must be between 1 and 1e12");
    if (o.hostRamBytesPerNode < 0 || o.hostRamBytesPerNode > maxHostRamBytes)
        return fail("host RAM per node must be between 0 and " + str(maxHostRamBytes) + " bytes");
    if (s.gpu.capacityBytes <= 0)
        return fail("gpu capacity must be positive");
    return true;
}

} // namespace

PreparedModel prepare(const Model &model)
{
    PreparedModel prepared;
    prepared.serial = nextSerial.fetch_add(1, std::memory_order_relaxed);
    prepared.architecture = model.architecture;
    if (model.architecture) {
        if (auto e = validateArchitecture(*model.architecture); !e.empty()) {
            prepared.error = "model: " + e;
            return prepared;
        }
    }
    const std::int64_t params = model.parameters();
    prepared.parameters = params;
    if (params <= 0) {
        prepared.error = "parameters must be positive (got " + str(params) + ")";
        return prepared;
    }
    if (params > maxParameters) {
        prepared.error = "parameters must be at most 1e14 (got " + str(params) + ")";
        return prepared;
    }
    prepared.activeParameters = model.activeParameters();
    if (const auto &arch = model.architecture) {
        // Block 0 is dense whenever any block is (Architecture::isMoeLayer).
        if (arch->layers - arch->moeLayerCount() > 0)
            prepared.dense = prepareBlock(*arch, 0);
        if (arch->isMoe()) {
            prepared.moe = prepareBlock(*arch, arch->firstMoeLayer());
            prepared.moeNotePrefix =
                "Mixture of experts: " + formatParameters(prepared.activeParameters) + " of " +
                formatParameters(params) + " parameters active per token; each GPU holds ";
        }
        prepared.keyValueWidth = arch->keyWidth() + arch->valueWidth();
    }
    return prepared;
}

std::string validate(const PreparedModel &prepared, const Scenario &s)
{
    std::string error;
    const ActivationFigures *figures = nullptr;
    check(prepared, s, error, figures);
    return error;
}

std::string validate(const Scenario &s)
{
    return validate(prepare(s.model), s);
}

MemoryReport estimate(const Scenario &s)
{
    MemoryReport report;
    estimate(prepare(s.model), s, report);
    return report;
}

MemoryReport estimate(const PreparedModel &prepared, const Scenario &s)
{
    MemoryReport report;
    estimate(prepared, s, report);
    return report;
}

namespace {

/// The report's notes from `count` on are unused: the next note reuses the string at
/// `count` (and its storage) when there is one.
std::string &nextNote(MemoryReport &report, std::size_t &count)
{
    if (report.notes.size() <= count)
        report.notes.emplace_back();
    return report.notes[count++];
}

/// The note a framework profile adds to the report: which profile produced the
/// numbers and what it changes (docs/frameworks.md).
const char *frameworkNote(Framework fw, Recompute recompute)
{
    switch (fw) {
    case Framework::Generic:
        break;
    case Framework::DeepSpeed:
        return "Framework: DeepSpeed (ZeRO's fp32 gradient partition, the 5e8-element reduce "
               "bucket, ZeRO-3 prefetch and persistent parameters; docs/frameworks.md).";
    case Framework::Fsdp2:
        return recompute == Recompute::Selective
                   ? "Framework: PyTorch FSDP2 / torchtitan (no reduce bucket, one unit's "
                     "gradient; docs/frameworks.md). Selective is torchtitan's op-level "
                     "selective AC: each dense block keeps its input, every other matmul output "
                     "(q, v, w1, w2 of a Llama block) and the SDPA output and logsumexp, and "
                     "recomputes the rest (torchtitan activation_checkpoint.py; "
                     "docs/activations.md)."
                   : "Framework: PyTorch FSDP2 / torchtitan (no reduce bucket, one unit's "
                     "gradient; docs/frameworks.md).";
    case Framework::Megatron:
        return "Framework: Megatron-Core (fp32 main gradients in the grad buffer, distributed "
               "optimizer with zero1, no extra bucket; docs/frameworks.md).";
    }
    return "";
}

/// The note an FP8 recipe adds to the report: which implementation produced the numbers
/// (Transformer Engine, or torchao under the fsdp2 profile) and what it changes.
/// Bytes of a GPU's optimizer states that a paged optimizer moves to host RAM: the
/// excess of the GPU's total `b` over `capacity`, at most its pageable share of the
/// optimizer states (`pageable` of every `trainable` parameters; equal counts when all
/// are pageable). 0 when the GPU's bytes fit. bitsandbytes allocates the states with
/// cudaMallocManaged (functional.py get_paged) and the driver evicts pages to host RAM
/// when the GPU runs out (Dettmers et al. 2023, QLoRA, section 3 "Paged Optimizers");
/// how many bytes move is modelled, not which pages or when.
std::int64_t pagedOptimizerBytes(const ComponentBytes &b, std::int64_t capacity,
                                 std::int64_t pageable, std::int64_t trainable)
{
    const std::int64_t over = b.total() - capacity;
    if (over <= 0 || b.optimizerStates <= 0 || pageable <= 0 || trainable <= 0)
        return 0;
    const std::int64_t states =
        pageable >= trainable
            ? b.optimizerStates
            : std::int64_t(wideQuotient(Wide(b.optimizerStates) * pageable, trainable));
    return std::min(over, states);
}

const char *fp8Note(Framework fw, Fp8Recipe r)
{
    if (fw == Framework::Fsdp2)
        return r == Fp8Recipe::Delayed
                   ? "FP8: torchao Float8, tensorwise scaling, with FSDP2's FP8 all-gather "
                     "(the linear weights gathered in 1 byte; saved inputs stay in the "
                     "activation dtype; docs/frameworks.md)."
                   : "FP8: torchao MXFP8 (FP8 matmuls only: weights are gathered and inputs "
                     "saved in high precision; docs/frameworks.md).";
    return r == Fp8Recipe::Delayed
               ? "FP8: Transformer Engine delayed scaling (an FP8 copy and transpose of each "
                 "linear weight, the amax history, the linear layers' inputs saved in FP8; "
                 "docs/frameworks.md)."
               : "FP8: Transformer Engine MXFP8 block scaling (row- and column-wise FP8 copies "
                 "of each linear weight with one E8M0 scale per 32 values, the linear layers' "
                 "inputs saved in MXFP8; docs/frameworks.md).";
}

/// torchao Float8 with FSDP2's FP8 all-gather (enable_fsdp_float8_all_gather,
/// torchao/float8/config.py line 225; fsdp_pre_all_gather sends the float8 data,
/// fsdp_utils.py lines 228-251): the gathered-units buffer for a unit of `elements`
/// parameters of which `fp8Elements` are Float8Linear weights, gathered in 1 byte, the
/// rest in `computeBytes`: units x (fp8Elements + (elements - fp8Elements) x
/// computeBytes) + elements x computeBytes (the unit's unsharded gradient), bytes.
std::int64_t float8GatheredUnitBytes(std::int64_t elements, std::int64_t fp8Elements, int units,
                                     std::int64_t computeBytes)
{
    return units * (fp8Elements + (elements - fp8Elements) * computeBytes) +
           elements * computeBytes;
}

/// Fills `report` (whose error is empty and whose other fields are reset) for a valid
/// scenario; on a refusal found while estimating (a byte count past 1 EB) sets the
/// error and clears the groups. `noteCount` is how many notes it wrote.
///
/// The code paths fill() is compiled for. Each fixes some settings at compile time, so
/// that its instance carries none of their code: the same formulas, the same report, in
/// fewer instructions (tests/core/test_equivalence.cpp compares every instance with
/// General on 100,000 scenarios).
enum class FillPath
{
    General, ///< every scenario
    /// plainScenario(): a dense architecture, data, tensor and pipeline parallelism, no
    /// LoRA, FP8, offload, HSDP or paging, the full report (the planner's common case)
    Plain,
    /// Plain with t = p = 1: pure data parallelism, one group (the window's default
    /// layout, DDP and every ZeRO stage; the GPU-count slider's and BM_Estimate's path)
    DataParallel,
};

/// The instance of fill() for FillPath `Path`.
template <FillPath Path>
void fill(const PreparedModel &prepared, const Scenario &s, const ActivationFigures &figures,
          MemoryReport &report, std::size_t &noteCount)
{
    constexpr bool Plain = Path != FillPath::General;
    constexpr bool DataParallel = Path == FillPath::DataParallel;
    const Layout &l = s.layout;
    const Training &tr = s.training;
    const Recipe &r = s.recipe;
    const auto &arch = prepared.architecture;
    // What Plain fixes (each is its runtime value otherwise).
    const bool hasArch = Plain || arch.has_value();
    const bool moe = !Plain && hasArch && arch->isMoe();
    const bool statesOnly = !Plain && s.modelStatesOnly;
    const Fp8Recipe fp8 = Plain ? Fp8Recipe::Off : tr.fp8;
    const bool activationOffload = !Plain && tr.activationOffload;
    const bool pagedOptimizer = !Plain && tr.pagedOptimizer;
    const Offload offload = Plain ? Offload::None : l.offload;
    const std::int64_t hsdpShardSize = Plain ? 0 : l.hsdpShardSize;
    const ZeroStage z = l.zeroStage;
    const int t = DataParallel ? 1 : l.tensorParallel;
    const int p = DataParallel ? 1 : l.pipelineParallel;
    const int c = Plain ? 1 : l.contextParallel;
    const int v = DataParallel ? 1 : chunksOf(s);
    const int e = Plain ? 1 : l.expertParallel;
    // Layout's dataParallel(), shardGroup(), expertShardGroup() and expertDataParallel(),
    // each once (every degree is positive here).
    const std::int64_t d = quotient(l.gpus, l.modelParallel());
    const std::int64_t shardGroup = hsdpShardSize > 0 ? hsdpShardSize : d * c;
    const std::int64_t reduceGroup = d * c; // ranks holding the same parameters
    const std::int64_t expertShardGroup = quotient(shardGroup, e);
    const std::int64_t expertReduceGroup = quotient(d * c, e);
    const std::int64_t m = tr.microBatches;
    const Framework fw = l.framework;

    report.parameters = prepared.parameters;
    report.capacityBytes = s.gpu.capacityBytes;
    report.hostCapacityBytesPerNode = s.overheads.hostRamBytesPerNode;
    report.activationsModelled = hasArch && !statesOnly;
    if (statesOnly)
        nextNote(report, noteCount)
            .assign("Model states only: activations and buffers are not counted.");
    else if (!hasArch)
        nextNote(report, noteCount)
            .assign("Activations and FSDP gathered units are not modelled: a plain "
                    "parameter count has no layer shapes.");
    if (fw != Framework::Generic)
        nextNote(report, noteCount).assign(frameworkNote(fw, tr.recompute));
    if (fp8 != Fp8Recipe::Off)
        nextNote(report, noteCount).assign(fp8Note(fw, fp8));
    if (activationOffload && report.activationsModelled)
        nextNote(report, noteCount)
            .assign("Activation offload: the saved activations of all but the last two layers "
                    "are in host RAM (Transformer Engine CPU offload; docs/frameworks.md); "
                    "their host-link traffic is not timed.");

    // Per-block figures that every stage shares, for the two kinds of block a model
    // has at most: kind 0 the dense blocks (of a MoE model: the first denseLayers and,
    // with a moeLayerStep above 1, the blocks between MoE blocks), kind 1 the MoE blocks
    // (Architecture::isMoeLayer). A dense model has only kind 0.
    struct BlockKind
    {
        BlockShare perRank;
        std::int64_t activation = 0, workingSet = 0;
    } kinds[2];
    std::int64_t embeddingActivation = 0, outputActivation = 0, lossBackward = 0, vocabPerRank = 0;
    const int denseBlocks = hasArch ? arch->layers - (moe ? arch->moeLayerCount() : 0) : 0;
    if (hasArch) {
        for (int k = 0; k < 2; ++k) {
            if ((k == 0 && denseBlocks == 0) || (k == 1 && !moe))
                continue; // no block of this kind
            BlockKind &kind = kinds[k];
            kind.perRank = k == 0 ? blockParametersPerRank(prepared.dense, 0, t, e)
                                  : blockParametersPerRank(prepared.moe, arch->experts, t, e);
            kind.activation = k == 0 ? figures.firstBlock : figures.moeBlock;
            if (tr.recompute != Recompute::None) {
                const std::int64_t full =
                    k == 0 ? figures.firstBlockNoRecompute : figures.moeBlockNoRecompute;
                kind.workingSet = tr.recompute == Recompute::Full ? full : full - kind.activation;
            }
        }
        embeddingActivation = figures.embedding;
        outputActivation = figures.output;
        lossBackward = figures.lossBackward;
        vocabPerRank = vocabParametersPerRank(*arch, t);
    }
    // FP8 (docs/frameworks.md "FP8 training"): Transformer Engine under every profile but
    // fsdp2, torchao Float8 with its FP8 all-gather under fsdp2 (tensorwise only). Linear
    // elements per block on one GPU: kind 0 dense, kind 1 MoE; the torchao all-gather
    // converts the nn.Linear modules only (routed experts are grouped GEMMs).
    const bool teFp8 = hasArch && fp8 != Fp8Recipe::Off && fw != Framework::Fsdp2;
    const bool fsdpFloat8 = hasArch && fp8 == Fp8Recipe::Delayed && fw == Framework::Fsdp2;
    std::int64_t fp8Linear[2] = {0, 0}, float8Gathered[2] = {0, 0};
    if (teFp8 || fsdpFloat8) {
        if (denseBlocks > 0) {
            fp8Linear[0] = linearElementsPerRank(prepared.dense, 0, t, e);
            float8Gathered[0] = shardElements(prepared.dense.split, t);
        }
        if (moe) {
            fp8Linear[1] = linearElementsPerRank(prepared.moe, arch->experts, t, e);
            float8Gathered[1] = shardElements(prepared.moe.split, t);
        }
    }
    const std::int64_t tokensPerRank = tr.microBatchSize * quotient(tr.sequenceLength, c);
    const Overheads &o = statesOnly ? noOverheadsAtAll : s.overheads;
    // One micro-batch's hidden states on one rank, bytes (the tensor- and
    // pipeline-parallel traffic's unit; 0 when neither is used).
    const Wide hiddenBytes =
        hasArch && (t > 1 || p > 1) ? Wide(tokensPerRank) * arch->hidden * tr.activationBytes : 0;

    // LoRA (validate() allows it for dense blocks with t = 1 only): the adapters train,
    // the base is frozen in its format (docs/frameworks.md "Fine-tuning").
    const FineTuning &ft = s.fineTuning;
    const bool lora = !Plain && ft.enabled();
    std::int64_t loraPerBlock = 0;
    // Under LoRA, the adapter parameters per block whose optimizer states a paged
    // optimizer may page (matrices of at least pagedOptimizerMinElements elements);
    // without LoRA every trainable parameter counts (the norms and biases below the
    // threshold are under 0.01% of a model).
    std::int64_t pageablePerBlock = 0;
    std::int64_t mostPaged = 0;
    FrozenBlock frozen;
    report.trainableParameters = prepared.parameters;
    if (lora) {
        loraPerBlock = loraLayerParameterCount(*arch, ft.loraRank, ft.loraTargets);
        if (pagedOptimizer) [[unlikely]]
            pageablePerBlock = loraLayerParameterCount(*arch, ft.loraRank, ft.loraTargets,
                                                       pagedOptimizerMinElements);
        frozen = frozenBlock(*arch, ft.baseFormat);
        report.trainableParameters = std::int64_t(arch->layers) * loraPerBlock;
        // Each adapted matrix keeps its rank-r intermediate (lora_A's output, the input of
        // lora_B's weight gradient): tokens x r elements; with full recomputation it is
        // rebuilt with the block, so it joins the working set.
        const int present = arch->gatedMlp ? LoraAllLinear : (LoraAllLinear & ~LoraGate);
        const int adapted = std::popcount(unsigned(ft.loraTargets & present));
        const std::int64_t extra = tokensPerRank * ft.loraRank * adapted * tr.activationBytes;
        if (tr.recompute == Recompute::Full)
            kinds[0].workingSet += extra;
        else
            kinds[0].activation += extra;
        std::string &note = nextNote(report, noteCount);
        note.assign("LoRA rank ");
        appendNumber(note, ft.loraRank);
        note.append(": ");
        note.append(formatParameters(report.trainableParameters));
        note.append(" of ");
        note.append(formatParameters(report.parameters));
        note.append(" parameters train; the base is frozen in ");
        note.append(baseFormatId(ft.baseFormat));
        note.append(" (communication still counts every parameter).");
    }

    report.groups.resize(std::size_t(p));
    const int layersPerStage = hasArch ? int(quotient(arch->layers, p)) : 0;
    const int extraLayers = hasArch ? int(remainder(arch->layers, p)) : 0;
    // Balanced stages: k = (L + 2) / p layer slots a stage, the end stages one short.
    const bool balanced = hasArch && l.balancedStages && p > 1;
    const int balancedSlots = balanced ? int(quotient(std::int64_t(arch->layers) + 2, p)) : 0;
    int firstLayer = 0;
    std::int64_t maxHostPerGpu = 0;
    for (int i = 0; i < p; ++i) {
        GpuGroup &g = report.groups[std::size_t(i)];
        resetKeepingLabel(g);
        g.pipelineStage = i;
        g.firstRank = std::int64_t(i) * d * t * c;
        g.gpuCount = d * t * c;
        g.holdsEmbedding = i == 0;
        g.holdsOutputHead = i == p - 1;

        // Parameters one GPU owns on this stage, before ZeRO sharding: psiDense over the
        // data x context ranks, psiExperts (routed experts) over the expert data-parallel
        // ranks (d x c / e).
        std::int64_t psiDense = 0, psiExperts = 0;
        std::int64_t unitParams = 0;
        std::int64_t blocksOfKind[2] = {0, 0};
        if (hasArch) {
            g.firstLayer = firstLayer;
            g.layerCount = balanced ? (i == 0 || i == p - 1 ? balancedSlots - 1 : balancedSlots)
                                    : layersPerStage + (i < extraLayers ? 1 : 0); // stageLayerCount
            firstLayer += g.layerCount;
            // MoE blocks of [firstLayer, firstLayer + layerCount), in closed form.
            blocksOfKind[1] = moe ? arch->moeLayersIn(g.firstLayer, g.layerCount) : 0;
            blocksOfKind[0] = g.layerCount - blocksOfKind[1];
            for (int k = 0; k < 2; ++k) {
                psiDense += blocksOfKind[k] * kinds[k].perRank.dense;
                psiExperts += blocksOfKind[k] * kinds[k].perRank.experts;
                if (blocksOfKind[k] > 0)
                    unitParams = std::max(unitParams, kinds[k].perRank.total());
            }
            if (g.holdsEmbedding)
                psiDense += vocabPerRank + arch->positionEmbeddings * arch->hidden;
            if (g.holdsOutputHead) {
                psiDense += arch->hidden * (arch->layerNormBias ? 2 : 1);
                // Untied: the head. Tied with p > 1: Megatron keeps a copy of the
                // shared embedding on the last stage.
                if (!arch->tiedEmbeddings || p > 1)
                    psiDense += vocabPerRank;
            }
            if (g.holdsEmbedding || g.holdsOutputHead)
                unitParams = std::max(unitParams, vocabPerRank);
        } else {
            psiDense = report.parameters;
        }
        const std::int64_t psi = psiDense + psiExperts;
        g.parametersPerGpu = psi;

        // Model states (docs/architecture.md "Model states").
        const std::int64_t shard =
            shardElements(psiDense, shardGroup) +
            (psiExperts > 0 ? shardElements(psiExperts, expertShardGroup) : 0);
        // What trains: every parameter, or with LoRA the stage's adapters, whose states
        // follow the recipe; the frozen base adds its weights only (block matrices in the
        // base format, norms, embedding and head in bf16), sharded under ZeRO-3.
        std::int64_t psiTrain = psi, shardTrain = shard, frozenBytes = 0, frozenBase = 0;
        if (lora) {
            psiTrain = g.layerCount * loraPerBlock;
            shardTrain = shardElements(psiTrain, shardGroup);
            frozenBase = g.layerCount * frozen.linearBytes +
                         (psi - g.layerCount * frozen.linearElements) * 2;
            frozenBytes =
                z == ZeroStage::Zero3 ? shardElements(frozenBase, shardGroup) : frozenBase;
        }
        ComponentBytes &b = g.bytes;
        b.weights = (z == ZeroStage::Zero3 ? shardTrain : psiTrain) * r.weightBytes + frozenBytes;
        b.gradients = (z >= ZeroStage::Zero2 ? shardTrain : psiTrain) * r.gradientBytes;
        b.masterWeights = (z >= ZeroStage::Zero1 ? shardTrain : psiTrain) * r.masterWeightBytes;
        b.optimizerStates = (z >= ZeroStage::Zero1 ? shardTrain : psiTrain) * r.optimizerBytes;
        if (fw != Framework::Generic && r.gradientBytes < 4 && r.masterWeightBytes > 0) {
            if (fw == Framework::DeepSpeed && z != ZeroStage::Ddp) {
                // ZeRO keeps an fp32 copy of its gradient partition for the optimizer:
                // ZeRO-1/2 the whole shard (stage_1_and_2.py, the .grad of
                // single_partition_of_fp32_groups), ZeRO-3 one sub-group's at a time
                // (stage3.py, fp32_partitioned_groups_flat[sub_group_id].grad).
                b.gradients +=
                    (z == ZeroStage::Zero3 ? std::min(shardTrain, s.overheads.subGroupElements)
                                           : shardTrain) *
                    4;
            } else if (fw == Framework::Megatron) {
                // fp32 main gradients in the full grad buffer on every data-parallel rank
                // (param_and_grad_buffer.py; theoretical_memory_usage.py's 18 or 6 + 12/d).
                b.gradients = psiTrain * 4;
            }
        }
        if (offload != Offload::None) {
            g.hostBytes = b.masterWeights + b.optimizerStates;
            b.masterWeights = b.optimizerStates = 0;
            if (z >= ZeroStage::Zero2) {
                g.hostBytes += b.gradients;
                b.gradients = 0;
            }
            if (offload == Offload::OptimizerAndParams) {
                g.hostBytes += b.weights;
                b.weights = 0;
            }
        }
        if (teFp8) [[unlikely]]
            b.weights += fp8WeightCopyBytes(fp8, blocksOfKind[0], fp8Linear[0]) +
                         fp8WeightCopyBytes(fp8, blocksOfKind[1], fp8Linear[1]) +
                         // linear_qkv, linear_proj, linear_fc1, linear_fc2 (Megatron-Core's
                         // TE layer spec): 4 FP8 GEMMs per block.
                         fp8RecipeStateBytes(fp8, 4 * std::int64_t(g.layerCount));
        maxHostPerGpu = std::max(maxHostPerGpu, g.hostBytes);

        // Activations at the stage's peak (Korthikanti et al. 2022; schedule bound).
        Wide activationTotal = 0;
        if (hasArch)
            g.peakInFlight = p > 1 ? peakInFlightBound(tr.schedule, p, int(m), tr.chunks, i) : 1;
        if (report.activationsModelled) {
            // The embedding lives in chunk 0 of the first stage and the head in chunk
            // v - 1 of the last; their tensors are held for the micro-batches in flight
            // in those chunks only (schedule.h bounds, checked against the simulation).
            g.embeddingInFlight =
                g.holdsEmbedding ? (p > 1 ? embeddingInFlightBound(tr.schedule, p, int(m), v) : 1)
                                 : 0;
            g.outputInFlight =
                g.holdsOutputHead ? (p > 1 ? headInFlightBound(tr.schedule, p, int(m), v) : 1) : 0;
            // One chunk's blocks: (L_i / v) identical blocks for a dense model (exact,
            // since v divides L_i); for a MoE model the stage's blocks averaged over v.
            // In 64 bits when the stage's blocks fit and the stages are not balanced.
            Checked blockSum;
            const std::int64_t stageBlocks64 =
                blockSum.sum(blockSum.product(blocksOfKind[0], kinds[0].activation),
                             blockSum.product(blocksOfKind[1], kinds[1].activation));
            Wide chunk = 0;
            if (!blockSum.overflow && !balanced) [[likely]] {
                chunk = quotient(stageBlocks64, v);
            } else {
                const Wide stageBlocks = Wide(blocksOfKind[0]) * kinds[0].activation +
                                         Wide(blocksOfKind[1]) * kinds[1].activation;
                // Balanced stages: every set is counted as a full chunk of k / v layers
                // (the short stages' average block), an upper bound for their one short
                // chunk.
                chunk = balanced ? wideQuotient(stageBlocks * Wide(balancedSlots / v),
                                                std::max(1, g.layerCount))
                                 : wideQuotient(stageBlocks, v);
            }
            const std::int64_t workingSet = std::max(blocksOfKind[0] > 0 ? kinds[0].workingSet : 0,
                                                     blocksOfKind[1] > 0 ? kinds[1].workingSet : 0);
            // Activation offload (p = v = 1, validate()): one micro-batch's blocks but the
            // last two are in host RAM.
            Wide kept = chunk;
            if (activationOffload) [[unlikely]] {
                const std::int64_t offloaded = offloadedActivationBytes(
                    blocksOfKind[0], blocksOfKind[1], kinds[0].activation, kinds[1].activation);
                kept = chunk - offloaded;
                g.hostBytes += offloaded;
                maxHostPerGpu = std::max(maxHostPerGpu, g.hostBytes);
            }
            const std::int64_t loss = g.holdsOutputHead ? lossBackward : 0;
            // The held sets and their total, in 64 bits: every term is non-negative, so a
            // product or sum that overflows means a total past 1 EB. A chunk past 64 bits
            // (refused too, for any set in flight) takes the 128-bit sums.
            std::int64_t layers = 0, embedding = 0, output = 0;
            bool tooLarge = false;
            if (kept <= std::numeric_limits<std::int64_t>::max()) [[likely]] {
                Checked ck;
                layers = ck.product(g.peakInFlight, std::int64_t(kept));
                embedding = ck.product(g.embeddingInFlight, embeddingActivation);
                output = ck.product(g.outputInFlight, outputActivation);
                activationTotal = ck.sum(layers, embedding, output, workingSet, loss);
                tooLarge = ck.overflow || activationTotal > maxReportBytes;
            } else {
                const Wide wideLayers = Wide(g.peakInFlight) * kept;
                const Wide wideEmbedding = Wide(g.embeddingInFlight) * embeddingActivation;
                const Wide wideOutput = Wide(g.outputInFlight) * outputActivation;
                activationTotal = wideLayers + wideEmbedding + wideOutput + workingSet + loss;
                tooLarge = activationTotal > maxReportBytes;
                layers = std::int64_t(wideLayers);
                embedding = std::int64_t(wideEmbedding);
                output = std::int64_t(wideOutput);
            }
            if (tooLarge) {
                report.error = "activation memory exceeds 1 EB per GPU: lower the micro-batch "
                               "size or sequence length";
                report.groups.clear();
                return;
            }
            g.chunkActivationBytes = std::int64_t(kept);
            g.embeddingBytesPerMicroBatch = g.holdsEmbedding ? embeddingActivation : 0;
            g.outputBytesPerMicroBatch = g.holdsOutputHead ? outputActivation : 0;
            g.activations = {layers, workingSet, embedding, output, loss};
            b.activations = std::int64_t(activationTotal);
        }

        // Buffers (Overheads; docs/architecture.md "Buffers").
        BufferBytes &buf = g.buffers;
        buf.cudaContext = o.cudaContextBytes;
        if (d * c > 1 || shardGroup > 1) {
            if (fw == Framework::Megatron) {
                // No extra bucket: gradients are reduced in place in the grad buffer.
            } else if (z == ZeroStage::Ddp)
                buf.communicationBuckets = std::min(o.ddpBucketBytes, psiTrain * r.gradientBytes);
            else if (fw == Framework::Fsdp2) {
                // One unit's unsharded gradient before its reduce-scatter (FSDP2 has no
                // flat reduce bucket: _fsdp_collectives.py foreach_reduce); under ZeRO-3
                // the gathered-units buffer below already holds it.
                if (z != ZeroStage::Zero3 && !statesOnly)
                    buf.communicationBuckets = (lora ? loraPerBlock : unitParams) * r.gradientBytes;
            } else if (z != ZeroStage::Zero3 || fw == Framework::DeepSpeed)
                // ZeRO-3's ipg bucket too: stage3.py allocates reduce_bucket_size elements.
                buf.communicationBuckets =
                    std::min(o.zeroBucketElements, psiTrain) * r.gradientBytes;
        }
        if (fw == Framework::DeepSpeed && z == ZeroStage::Zero3 && shardGroup > 1 && hasArch &&
            !statesOnly) {
            // Live gathered parameters: the unit in use and the prefetch bucket, capped by
            // stage3_max_live_parameters, in the compute dtype; plus the persistent
            // parameters (each norm weight at or under stage3_param_persistence_threshold
            // elements stays whole on every GPU; stage3.py persistent_parameters).
            const std::int64_t computeBytes =
                std::min<std::int64_t>(r.weightBytes, tr.activationBytes);
            const std::int64_t live =
                std::min(unitParams + (o.gatheredUnits == 2 ? o.stage3PrefetchElements : 0),
                         std::max(unitParams, o.stage3MaxLiveParameters));
            const std::int64_t normElements = arch->hidden * (arch->layerNormBias ? 2 : 1);
            const std::int64_t persistent =
                arch->hidden <= o.stage3PersistenceThreshold
                    ? (std::int64_t(g.layerCount) * arch->normsPerLayer +
                       (g.holdsOutputHead ? 1 : 0)) *
                          normElements
                    : 0;
            g.gatheredUnitParameters = unitParams;
            buf.gatheredUnits = live * computeBytes + persistent * r.weightBytes;
        } else if (z == ZeroStage::Zero3 && shardGroup > 1 && hasArch && !statesOnly) {
            // Gathered weights of each unit plus one unit's unsharded gradient, both in
            // the compute dtype before reduce-scatter (DeepSpeed's estimator: 4 x largest
            // layer for one unit in fp16). The compute dtype is the activation dtype when
            // the stored weights are wider: FSDP2's MixedPrecisionPolicy gathers
            // fp32-sharded parameters in bf16 (param_dtype).
            g.gatheredUnitParameters = unitParams;
            buf.gatheredUnits = unitParams * (std::int64_t(o.gatheredUnits) + 1) *
                                std::min<std::int64_t>(r.weightBytes, tr.activationBytes);
        }
        if (fsdpFloat8 && z == ZeroStage::Zero3 && shardGroup > 1 && !statesOnly) {
            // The largest unit's buffer with its linear weights gathered in FP8 (the
            // embedding and the output head are not Float8Linear: they stay in bf16).
            const std::int64_t cb = std::min<std::int64_t>(r.weightBytes, tr.activationBytes);
            std::int64_t largest = 0;
            for (int k = 0; k < 2; ++k)
                if (blocksOfKind[k] > 0)
                    largest = std::max(largest, float8GatheredUnitBytes(kinds[k].perRank.total(),
                                                                        float8Gathered[k],
                                                                        o.gatheredUnits, cb));
            if (g.holdsEmbedding || g.holdsOutputHead)
                largest = std::max(largest,
                                   float8GatheredUnitBytes(vocabPerRank, 0, o.gatheredUnits, cb));
            buf.gatheredUnits = largest;
        }
        // The reserve is a percentage of everything else: in 64 bits unless a partial
        // sum overflows (not for any valid scenario: each term is under 2^60), else in 128.
        const std::int64_t reserved[] = {b.modelStates(), b.activations, buf.cudaContext,
                                         buf.communicationBuckets, buf.gatheredUnits};
        std::int64_t beforeReserve = 0;
        bool overflow = false;
        for (const std::int64_t x : reserved)
            overflow |= __builtin_add_overflow(beforeReserve, x, &beforeReserve);
        if (!overflow) [[likely]] {
            buf.fragmentation = percentOf(beforeReserve, o.fragmentationPercent);
        } else {
            Wide wide = 0;
            for (const std::int64_t x : reserved)
                wide += x;
            buf.fragmentation = std::int64_t(wideQuotient(wide * o.fragmentationPercent, 100));
        }
        b.buffers =
            buf.cudaContext + buf.communicationBuckets + buf.gatheredUnits + buf.fragmentation;
        if (pagedOptimizer) [[unlikely]] {
            const std::int64_t paged =
                lora ? pagedOptimizerBytes(b, report.capacityBytes, pageablePerBlock, loraPerBlock)
                     : pagedOptimizerBytes(b, report.capacityBytes, 1, 1);
            b.optimizerStates -= paged;
            g.hostBytes += paged;
            maxHostPerGpu = std::max(maxHostPerGpu, g.hostBytes);
            mostPaged = std::max(mostPaged, paged);
        }

        // Communication per GPU per step (docs/architecture.md, ring collectives).
        CommunicationBytes &cm = g.communication;
        const std::int64_t w = r.weightBytes, gr = r.gradientBytes; // 0 .. 64 each
        // Data-parallel traffic of `n` parameters sharded over `shards` of `ranks` ranks
        // holding the same parameters; routed experts use the expert groups.
        auto dataParallelBytes = [&](std::int64_t n, std::int64_t shards, std::int64_t ranks) {
            if (n == 0)
                return Wide(0);
            if (z == ZeroStage::Zero3) {
                // Gather weights for forward and backward, reduce-scatter gradients, every
                // micro-batch; HSDP all-reduces the shard across the replicas.
                if (hsdpShardSize > 0)
                    return m * ringShare(Wide(n) * (2 * w + gr), shards) +
                           2 * ringShare(Wide(shardElements(n, shards)) * gr,
                                         quotient(ranks, shards));
                return m * ringShare(Wide(n) * (2 * w + gr), ranks);
            }
            if (z == ZeroStage::Zero2)
                // Reduce-scatter gradients every micro-batch, all-gather updated weights once.
                return m * ringShare(Wide(n) * gr, ranks) + ringShare(Wide(n) * w, ranks);
            // DDP / ZeRO-1: one gradient all-reduce per step (no_sync while accumulating).
            return 2 * ringShare(Wide(n) * gr, ranks);
        };
        // Each collective in 128 bits, then refused rather than wrapped past 1 EB
        // (100T parameters x 65,536 micro-batches would wrap 64 bits).
        // (Separate variables, not an array: GCC spills a 128-bit array element as two
        // 64-bit halves and reloads it whole, a store-forwarding stall per group.)
        Wide dataTraffic = dataParallelBytes(psiDense, shardGroup, reduceGroup) +
                           dataParallelBytes(psiExperts, expertShardGroup, expertReduceGroup);
        if (lora) [[unlikely]] {
            // LoRA: only the adapters' gradients are reduced (and their weights gathered);
            // ZeRO-3 still gathers the frozen base, in its stored format, for every
            // forward and backward (PEFT on FSDP / DeepSpeed: frozen parameters have no
            // gradient hooks).
            dataTraffic = dataParallelBytes(psiTrain, shardGroup, reduceGroup);
            if (z == ZeroStage::Zero3)
                dataTraffic += m * ringShare(Wide(frozenBase) * 2,
                                             hsdpShardSize > 0 ? shardGroup : reduceGroup);
        }
        if (fsdpFloat8 && z == ZeroStage::Zero3 && r.weightBytes > 1) [[unlikely]] {
            // torchao's FP8 all-gather: the stage's Float8Linear weights travel in 1 byte,
            // not w, in the forward and the backward gathers.
            const Wide fp8Elements = Wide(blocksOfKind[0]) * float8Gathered[0] +
                                     Wide(blocksOfKind[1]) * float8Gathered[1];
            const std::int64_t ranks = hsdpShardSize > 0 ? shardGroup : reduceGroup;
            dataTraffic -=
                m * (ringShare(fp8Elements * (2 * w), ranks) - ringShare(fp8Elements * 2, ranks));
        }
        Wide tensorTraffic = 0, pipelineTraffic = 0, contextTraffic = 0, expertTraffic = 0;
        if (hasArch) {
            // A collective over one rank moves nothing: each term is 0 at t, p or c = 1
            // and is left out there (pure data parallelism computes only the first).
            if (t > 1) {
                const int allReducesPerLayer = tr.recompute == Recompute::Full ? 6 : 4;
                tensorTraffic =
                    Wide(m) * g.layerCount * allReducesPerLayer * 2 * ringShare(hiddenBytes, t);
            }
            if (p > 1) {
                const Wide boundary =
                    wideQuotient(hiddenBytes, tr.sequenceParallel && t > 1 ? t : 1);
                const int neighbours = (i > 0 ? 1 : 0) + (i < p - 1 ? 1 : 0);
                pipelineTraffic = Wide(m) * boundary * neighbours;
            }
            if (c > 1) {
                const Wide kvBytes = wideQuotient(Wide(tokensPerRank) * prepared.keyValueWidth, t) *
                                     tr.activationBytes;
                contextTraffic = Wide(m) * g.layerCount * 3 * kvBytes * (c - 1);
            }
            // Expert-parallel all-to-all: each MoE block dispatches the k copies of the
            // rank's tokens (its sequence-parallel share) and combines them back, in the
            // forward and the backward pass (again in the recomputed forward under full
            // recomputation); (e - 1) / e of it leaves the GPU (Megatron-Core's
            // MoEAlltoAllTokenDispatcher; uniform routing assumed).
            if (e > 1 && blocksOfKind[1] > 0) {
                const Wide copies =
                    wideQuotient(Wide(tokensPerRank), tr.sequenceParallel && t > 1 ? t : 1) *
                    arch->activeExperts;
                const int passes = tr.recompute == Recompute::Full ? 6 : 4;
                expertTraffic = Wide(m) * blocksOfKind[1] * passes *
                                ringShare(copies * arch->hidden * tr.activationBytes, e);
            }
        }
        const int tooLarge = dataTraffic > maxReportBytes       ? 0
                             : tensorTraffic > maxReportBytes   ? 1
                             : pipelineTraffic > maxReportBytes ? 2
                             : contextTraffic > maxReportBytes  ? 3
                             : expertTraffic > maxReportBytes   ? 4
                                                                : -1;
        if (tooLarge >= 0) {
            static const char *const collective[5] = {"data-parallel", "tensor-parallel",
                                                      "pipeline-parallel", "context-parallel",
                                                      "expert-parallel"};
            report.error = std::string(collective[tooLarge]) +
                           " traffic exceeds 1 EB per GPU per step: fewer micro-batches per "
                           "step (got " +
                           str(m) + "), a smaller model or more GPUs";
            report.groups.clear();
            return;
        }
        cm.dataParallel = std::int64_t(dataTraffic);
        cm.tensorParallel = std::int64_t(tensorTraffic);
        cm.pipelineParallel = std::int64_t(pipelineTraffic);
        cm.contextParallel = std::int64_t(contextTraffic);
        cm.expertParallel = std::int64_t(expertTraffic);

        setLabel(g.label, p, g.gpuCount, i);
    }
    report.hostBytesPerNode = maxHostPerGpu * std::min(l.gpusPerNode, l.gpus);
    if (pagedOptimizer) [[unlikely]] {
        std::string &note = nextNote(report, noteCount);
        if (mostPaged > 0) {
            note.assign("Paged optimizer: ");
            note.append(formatBytes(mostPaged, ByteUnit::GB));
            note.append(" of optimizer states per GPU paged to host RAM at most (bitsandbytes "
                        "paged AdamW in CUDA unified memory, QLoRA section 3); the paging "
                        "traffic is not timed.");
        } else if (report.peakBytes() > report.capacityBytes) {
            note.assign("Paged optimizer: nothing to page: bitsandbytes keeps the optimizer "
                        "states of tensors under 100,000 elements on the GPU, and offloaded "
                        "states are in host RAM already.");
        } else {
            note.assign("Paged optimizer: the optimizer states fit on the GPU, so nothing is "
                        "paged (bitsandbytes pages only when GPU memory runs out).");
        }
    }
    if (moe) {
        std::string &note = nextNote(report, noteCount);
        note.assign(prepared.moeNotePrefix);
        appendNumber(note, quotient(arch->experts, e));
        note.append(" of ");
        appendNumber(note, arch->experts);
        note.append(" routed experts per MoE layer, ");
        if (expertShardGroup > 1) {
            note.append("their states sharded over ");
            appendNumber(note, expertShardGroup);
            note.append(" ranks.");
        } else {
            note.append("their states not sharded.");
        }
    }
}

/// The scenarios of FillPath::Plain: a dense architecture, the full report, and none of
/// context or expert parallelism, HSDP, CPU or activation offload, FP8, a paged
/// optimizer or LoRA (the settings that path fixes at their defaults).
bool plainScenario(const PreparedModel &prepared, const Scenario &s)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    return prepared.architecture.has_value() && !prepared.architecture->isMoe() &&
           !s.modelStatesOnly && l.contextParallel == 1 && l.expertParallel == 1 &&
           l.hsdpShardSize == 0 && l.offload == Offload::None && t.fp8 == Fp8Recipe::Off &&
           !t.activationOffload && !t.pagedOptimizer && !s.fineTuning.enabled();
}

/// estimate(prepared, s, report), through the instance of fill() for its FillPath when
/// `plainPath` (the engine) or always through the general one (estimateGeneral).
void estimateInto(const PreparedModel &prepared, const Scenario &s, MemoryReport &report,
                  bool plainPath)
{
    const ActivationFigures *figures = nullptr;
    report.error.clear();
    const bool valid = check(prepared, s, report.error, figures);
    report.parameters = 0;
    report.trainableParameters = 0;
    report.capacityBytes = 0;
    report.activationsModelled = false;
    report.hostBytesPerNode = 0;
    report.hostCapacityBytesPerNode = 0;
    std::size_t noteCount = 0;
    if (!valid)
        report.groups.clear();
    else if (!plainPath || !plainScenario(prepared, s))
        fill<FillPath::General>(prepared, s, *figures, report, noteCount);
    else if (s.layout.tensorParallel == 1 && s.layout.pipelineParallel == 1)
        fill<FillPath::DataParallel>(prepared, s, *figures, report, noteCount);
    else
        fill<FillPath::Plain>(prepared, s, *figures, report, noteCount);
    report.notes.resize(noteCount);
}

} // namespace

void estimate(const PreparedModel &prepared, const Scenario &s, MemoryReport &report)
{
    estimateInto(prepared, s, report, true);
}

void estimateGeneral(const PreparedModel &prepared, const Scenario &s, MemoryReport &report)
{
    estimateInto(prepared, s, report, false);
}

} // namespace shardscope
