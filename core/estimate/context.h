#pragma once

// The estimate's pipeline (docs/architecture.md "The memory model"): what every stage
// reads of one scenario, resolved once per estimate. The stages are in this folder, one
// header each, and run in this order for every pipeline stage's GpuGroup:
//   stageplan.h        layers, ranks, embedding and head placement, parameters per GPU
//   modelstates.h      weights, gradients, master weights, optimizer states (ZeRO)
//   activationstage.h  activations held at the stage's peak
//   buffers.h          CUDA context, buckets, gathered units, fragmentation reserve
//   host.h             offload and paging to host RAM
//   communication.h    bytes each GPU sends per step
//   notes.h            the report's caveats
// core/estimate.cpp runs them. The stage functions are inline, as one translation unit:
// the engine is compiled once per FillPath, and each instance needs the stages' code
// in view to drop what its fixed settings make dead (docs/performance.md).

#include "activations.h"
#include "estimate.h"
#include "framework.h"
#include "intmath.h"
#include "model.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace shardscope::stages {

/// A 128-bit signed integer: the fallback for products that leave 64 bits.
__extension__ typedef __int128 Wide;

/// Largest byte count a report may hold (1 EB); beyond it a scenario is refused.
inline constexpr std::int64_t maxReportBytes = 1'000'000'000'000'000'000;

/// a / b for b > 0, truncated toward zero as 128-bit division is: in 64 bits when a
/// fits (the same quotient, without the 128-bit division routine).
inline Wide wideQuotient(Wide a, std::int64_t b)
{
    if (a >= std::numeric_limits<std::int64_t>::min() &&
        a <= std::numeric_limits<std::int64_t>::max())
        return quotient(std::int64_t(a), b);
    return a / b;
}

/// The code paths the engine is compiled for. Each fixes some settings at compile time,
/// so that its instance carries none of their code: the same formulas, the same report,
/// in fewer instructions (tests/core/test_equivalence.cpp compares every instance with
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

/// Per-block figures every pipeline stage shares, for one kind of block: kind 0 the
/// dense blocks (of a MoE model: the first denseLayers and, with a moeLayerStep above
/// 1, the blocks between MoE blocks), kind 1 the MoE blocks (Architecture::isMoeLayer).
struct BlockKind
{
    BlockShare perRank;          ///< parameters of one block on one GPU (stageplan.h)
    std::int64_t activation = 0; ///< bytes one block keeps per micro-batch (activationstage.h)
    /// Bytes one block's backward adds on top of what it keeps: what recomputing it
    /// rebuilds, and under a quantized LoRA base the dequantized weight it multiplies with.
    std::int64_t workingSet = 0;
};

/// Overheads that add nothing (Scenario::modelStatesOnly).
inline constexpr Overheads noOverheads = [] {
    Overheads o;
    o.cudaContextBytes = 0;
    o.ddpBucketBytes = 0;
    o.zeroBucketElements = 0;
    o.fragmentationPercent = 0;
    return o;
}();

/// One valid scenario as the stages read it. resolveContext() sets the settings and
/// degrees; the per-block figures are filled by planBlocks() (stageplan.h),
/// planBlockActivations() (activationstage.h), planFp8Weights() and planFineTuning()
/// (modelstates.h). A FillPath fixes some fields to constants, which the compiler then
/// propagates. Read-only once planned: the per-group stages take it by const reference.
struct EstimateContext
{
    /// Member by member (each from its initializer below): a value-initialised
    /// aggregate this size is cleared with one rep stos, which the stores after it wait
    /// for.
    EstimateContext(const PreparedModel &p, const Scenario &sc)
        : prepared(p), s(sc), arch(p.architecture)
    {
    }

    const PreparedModel &prepared;
    const Scenario &s;
    const std::optional<Architecture> &arch; ///< read only when hasArch

    // Settings (what FillPath::Plain fixes; each is its runtime value otherwise).
    bool hasArch = false;             ///< the model has layer shapes
    bool moe = false;                 ///< a mixture-of-experts architecture
    bool statesOnly = false;          ///< Scenario::modelStatesOnly
    bool activationsModelled = false; ///< hasArch and not statesOnly
    Fp8Recipe fp8 = Fp8Recipe::Off;
    bool activationOffload = false;
    bool pagedOptimizer = false;
    bool lora = false; ///< LoRA fine-tuning: adapters train, the base is frozen
    Offload offload = Offload::None;
    ZeroStage z = ZeroStage::Ddp;
    /// The framework profile's policies (core/framework.h): every stage reads these, none
    /// tests which framework it is.
    const FrameworkProfile *profile = nullptr;
    /// Transformer Engine FP8, or torchao Float8 with FSDP2's FP8 all-gather (tensorwise
    /// only), as the profile's Fp8Implementation says: docs/frameworks.md "FP8 training".
    bool teFp8 = false;
    bool fsdpFloat8 = false;
    /// FSDP2's gathered state (FrameworkProfile::fsdp2Resharding; modelstates.h
    /// wholeStates()): ZeRO-3 weights kept whole on every GPU of a stage (pipeline
    /// parallelism, or re-shard after forward "never"), and ZeRO-2/3 gradients accumulated
    /// whole in the reduce dtype across the step's micro-batches (pipeline parallelism).
    bool wholeWeights = false, wholeGradients = false;

    // Degrees and groups (Layout's dataParallel(), shardGroup(), ...; each positive).
    int t = 1, p = 1, c = 1, v = 1, e = 1; ///< tensor, pipeline, context, chunks, experts
    std::int64_t d = 1;                    ///< data-parallel ranks
    std::int64_t hsdpShardSize = 0;        ///< 0: shard over every data x context rank
    std::int64_t shardGroup = 1;           ///< ranks one ZeRO shard spans
    std::int64_t reduceGroup = 1;          ///< d x c, the ranks holding the same parameters
    std::int64_t expertShardGroup = 1;     ///< shardGroup / e (routed experts)
    std::int64_t expertReduceGroup = 1;    ///< d x c / e
    std::int64_t m = 1;                    ///< micro-batches per step
    const Overheads *o = nullptr;          ///< the buffers (noOverheads with statesOnly)
    std::int64_t tokensPerRank = 0;        ///< b x s / c
    /// One micro-batch's hidden states on one rank, bytes (the tensor- and
    /// pipeline-parallel traffic's unit; 0 when neither is used).
    Wide hiddenBytes = 0;

    // Stage plan (stageplan.h planBlocks).
    BlockKind kinds[2] = {};
    int denseBlocks = 0;           ///< blocks of kind 0 in the model
    std::int64_t vocabPerRank = 0; ///< one vocabulary matrix on one tensor rank
    int layersPerStage = 0;        ///< L / p
    int extraLayers = 0;           ///< L % p (with uneven stages, the first ones take one more)
    bool balanced = false;         ///< Layout::balancedStages with p > 1
    int balancedSlots = 0;         ///< balanced: (L + 2) / p layer slots a stage

    // Activations (activationstage.h planBlockActivations).
    std::int64_t embeddingActivation = 0, outputActivation = 0, lossBackward = 0;

    // FP8 linear elements per block on one GPU, kind 0 dense, kind 1 MoE (modelstates.h):
    // Transformer Engine's weight copies, and torchao's gathered Float8Linear weights.
    std::int64_t fp8Linear[2] = {0, 0}, float8Gathered[2] = {0, 0};

    // Fine-tuning (modelstates.h planFineTuning).
    std::int64_t loraPerBlock = 0; ///< adapter parameters per block
    /// Under LoRA, the adapter parameters per block whose optimizer states a paged
    /// optimizer may page (matrices of at least pagedOptimizerMinElements elements).
    std::int64_t pageablePerBlock = 0;
    FrozenBlock frozen = {}; ///< the frozen base's block matrices in their format
};

/// The scenario's settings and degrees as the FillPath `Path` fixes them (the per-block
/// figures are left to the stages' plan functions).
template <FillPath Path>
[[gnu::always_inline]] inline EstimateContext resolveContext(const PreparedModel &prepared,
                                                             const Scenario &s)
{
    constexpr bool Plain = Path != FillPath::General;
    constexpr bool DataParallel = Path == FillPath::DataParallel;
    const Layout &l = s.layout;
    const Training &tr = s.training;
    EstimateContext x(prepared, s);
    x.hasArch = Plain || prepared.architecture.has_value();
    x.moe = !Plain && x.hasArch && prepared.architecture->isMoe();
    x.statesOnly = !Plain && s.modelStatesOnly;
    x.activationsModelled = x.hasArch && !x.statesOnly;
    x.fp8 = Plain ? Fp8Recipe::Off : tr.fp8;
    x.activationOffload = !Plain && tr.activationOffload;
    x.pagedOptimizer = !Plain && tr.pagedOptimizer;
    x.lora = !Plain && s.fineTuning.enabled();
    x.offload = Plain ? Offload::None : l.offload;
    x.z = l.zeroStage;
    x.profile = &frameworkProfile(l.framework);
    const bool torchao = x.profile->fp8 == Fp8Implementation::TorchaoFloat8;
    x.teFp8 = x.hasArch && x.fp8 != Fp8Recipe::Off && !torchao;
    x.fsdpFloat8 = x.hasArch && x.fp8 == Fp8Recipe::Delayed && torchao;
    x.hsdpShardSize = Plain ? 0 : l.hsdpShardSize;
    x.t = DataParallel ? 1 : l.tensorParallel;
    x.p = DataParallel ? 1 : l.pipelineParallel;
    x.c = Plain ? 1 : l.contextParallel;
    x.v = DataParallel || l.pipelineParallel <= 1 ? 1 : scheduleParams(s).chunks;
    x.e = Plain ? 1 : l.expertParallel;
    x.d = quotient(l.gpus, l.modelParallel());
    x.shardGroup = x.hsdpShardSize > 0 ? x.hsdpShardSize : x.d * x.c;
    x.reduceGroup = x.d * x.c;
    x.expertShardGroup = quotient(x.shardGroup, x.e);
    x.expertReduceGroup = quotient(x.d * x.c, x.e);
    if (x.profile->fsdp2Resharding && x.z >= ZeroStage::Zero2) [[unlikely]] {
        x.wholeGradients = x.p > 1;
        x.wholeWeights =
            x.z == ZeroStage::Zero3 && (x.p > 1 || l.fsdpReshard == FsdpReshard::Never);
    }
    x.m = tr.microBatches;
    x.o = x.statesOnly ? &noOverheads : &s.overheads;
    x.tokensPerRank = tr.microBatchSize * quotient(tr.sequenceLength, x.c);
    x.hiddenBytes = x.hasArch && (x.t > 1 || x.p > 1)
                        ? Wide(x.tokensPerRank) * prepared.architecture->hidden * tr.activationBytes
                        : 0;
    return x;
}

} // namespace shardscope::stages
