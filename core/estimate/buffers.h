#pragma once

// Stage 4, buffers (docs/architecture.md "Buffers", each an Overheads setting): the CUDA
// context, the gradient bucket a reduction fills, the ZeRO-3 / FSDP gathered units and
// the allocator's fragmentation reserve, bytes per GPU.

#include "context.h"
#include "memoryreport.h"
#include "stageplan.h"

#include <algorithm>
#include <limits>

namespace shardscope::stages {

/// trunc(x p / 100) for 0 <= p <= 100 without the product: x = 100 q + r gives q p +
/// trunc(r p / 100), q and r of x's sign (the fragmentation reserve of a byte count).
inline std::int64_t percentOf(std::int64_t x, int p)
{
    constexpr std::int64_t direct = std::numeric_limits<std::int64_t>::max() / 100;
    if (x >= 0 && x <= direct) [[likely]] // every byte count under 92 PB: the product fits
        return std::int64_t(std::uint64_t(x) * std::uint64_t(p) / 100);
    return x / 100 * p + x % 100 * p / 100;
}

/// torchao Float8 with FSDP2's FP8 all-gather (enable_fsdp_float8_all_gather,
/// torchao/float8/config.py line 225; fsdp_pre_all_gather sends the float8 data,
/// fsdp_utils.py lines 228-251): the gathered-units buffer for a unit of `elements`
/// parameters of which `fp8Elements` are Float8Linear weights, gathered in 1 byte, the
/// rest in `computeBytes`: units x (fp8Elements + (elements - fp8Elements) x
/// computeBytes) + elements x computeBytes (the unit's unsharded gradient), bytes.
inline std::int64_t float8GatheredUnitBytes(std::int64_t elements, std::int64_t fp8Elements,
                                            int units, std::int64_t computeBytes)
{
    return units * (fp8Elements + (elements - fp8Elements) * computeBytes) +
           elements * computeBytes;
}

/// The bucket a gradient reduction fills, bytes, for `trained` parameters per GPU that
/// train on a stage whose largest unit is `unit`: DDP's bucket (at most the gradients),
/// DeepSpeed ZeRO's reduce bucket of zeroBucketElements (ZeRO-3's ipg bucket too:
/// stage3.py allocates reduce_bucket_size elements, twice with
/// FrameworkProfile::zero3ReduceScatterCopy: the reduce-scatter's interleaved copy), FSDP2's one
/// unit's unsharded gradient before its reduce-scatter (no flat reduce bucket: _fsdp_collectives.py
/// foreach_reduce; under ZeRO-3 the gathered-units buffer holds it; whole accumulated
/// gradients under pipeline parallelism need none, modelstates.h wholeStates()), none under
/// Megatron-Core (gradients are reduced in place in the grad buffer). 0 on one rank.
[[gnu::always_inline]] inline std::int64_t
communicationBucketBytes(const EstimateContext &x, std::int64_t trained, std::int64_t unit)
{
    const Overheads &o = *x.o;
    const std::int64_t gr = x.s.recipe.gradientBytes;
    if (x.reduceGroup <= 1 && x.shardGroup <= 1)
        return 0;
    const FrameworkProfile &f = *x.profile;
    if (f.reduceBucket == ReduceBucketPolicy::InPlace)
        return 0;
    if (x.z == ZeroStage::Ddp)
        return std::min(o.ddpBucketBytes, trained * gr);
    if (f.reduceBucket == ReduceBucketPolicy::OneUnitGradient)
        return x.z != ZeroStage::Zero3 && !x.statesOnly && !x.wholeGradients
                   ? (x.lora ? x.loraPerBlock : unit) * gr
                   : 0;
    if (x.z != ZeroStage::Zero3)
        return std::min(o.zeroBucketElements, trained) * gr;
    if (f.zero3ReduceBucket)
        return (f.zero3ReduceScatterCopy ? 2 : 1) * std::min(o.zeroBucketElements, trained) * gr;
    return 0;
}

/// DeepSpeed ZeRO-3's gathered parameters kept from the forward into the backward,
/// elements: a module's parameters are not released after its forward when the trace
/// uses them again within `reuseDistance` elements (partitioned_param_coordinator.py
/// __params_to_release, lines 653-661, stage3_max_reuse_distance). Between the forward
/// of the k-th block from the end (k = 0 the last) and its backward the trace runs
/// through the k later blocks' forwards, the head's forward and backward and the k later
/// blocks' backwards: 2 head + 2 k block elements. So the head (`head` elements, 0 when
/// the stage holds none) stays when reuseDistance > 0, and the last k blocks of `block`
/// elements with 2 head + 2 k block < reuseDistance: ceil((reuseDistance - 2 head) /
/// (2 block)) of them, at most `blocks`. Llama 2 7B (block 202,383,360, head 131,072,000)
/// at 1e9: ceil(737,856,000 / 404,766,720) = 2 blocks, 535,838,720 elements.
inline std::int64_t deepSpeedRetainedAtTurn(std::int64_t block, std::int64_t head,
                                            std::int64_t blocks, std::int64_t reuseDistance)
{
    if (reuseDistance <= 0)
        return 0;
    const std::int64_t room = reuseDistance - 2 * head;
    const std::int64_t kept =
        room > 0 && block > 0 ? std::min(blocks, (room + 2 * block - 1) / (2 * block)) : 0;
    return head + kept * block;
}

/// DeepSpeed ZeRO-3's live gathered parameters (GatherPolicy::LiveParameterBudget),
/// elements, without the persistent ones: the module in use (`unit`, the largest) or
/// the parameters kept at the forward's end (`retained`, deepSpeedRetainedAtTurn()),
/// whichever is larger, fetched whatever stage3_max_live_parameters says
/// (fetch_sub_module); plus, with prefetch, at most `prefetch` elements more and only
/// as far as `maxLive` leaves room (partitioned_param_coordinator.py lines 452-454:
/// min(max available - available, prefetch_bucket_size)).
inline std::int64_t deepSpeedLiveParameters(std::int64_t unit, std::int64_t retained,
                                            std::int64_t prefetch, std::int64_t maxLive)
{
    const std::int64_t fetched = std::max(unit, retained);
    return fetched + std::clamp<std::int64_t>(maxLive - fetched, 0, prefetch);
}

/// ZeRO-3's gathered units on stage `g` into g.buffers.gatheredUnits and
/// g.gatheredUnitParameters (nothing without sharding, an architecture or buffers).
/// DeepSpeed: the live parameters of deepSpeedLiveParameters() (the unit in use or the
/// blocks kept from the forward into the backward, and the prefetch under
/// stage3_max_live_parameters) and the largest single parameter's whole gradient (a
/// block's largest matrix, or the vocabulary matrix on the end stages) in the compute
/// dtype, plus the persistent parameters (each
/// norm weight at or under stage3_param_persistence_threshold elements stays whole on
/// every GPU; stage3.py persistent_parameters). Otherwise the gathered weights of each
/// unit plus one unit's unsharded gradient, both in the compute dtype before
/// reduce-scatter (DeepSpeed's estimator: 4 x largest layer for one unit in fp16); the
/// compute dtype is the activation dtype when the stored weights are wider (FSDP2's
/// MixedPrecisionPolicy gathers fp32-sharded parameters in bf16, param_dtype). torchao
/// Float8 gathers the linear weights in FP8 (the embedding and head stay in bf16).
/// FSDP2's whole weights and gradients (modelstates.h wholeStates()) need neither copy.
[[gnu::always_inline]] inline void gatheredUnits(const EstimateContext &x, const StageShare &share,
                                                 GpuGroup &g)
{
    if (x.z != ZeroStage::Zero3 || x.shardGroup <= 1 || x.statesOnly)
        return;
    const Overheads &o = *x.o;
    const Recipe &r = x.s.recipe;
    const std::int64_t computeBytes =
        std::min<std::int64_t>(r.weightBytes, x.s.training.activationBytes);
    const std::int64_t unit = share.unit;
    BufferBytes &buf = g.buffers;
    if (x.hasArch && x.profile->zero3Gather == GatherPolicy::LiveParameterBudget) {
        const Architecture &a = *x.arch;
        std::int64_t block = 0;
        for (int k = 0; k < 2; ++k)
            if (share.blocks[k] > 0)
                block = std::max(block, x.kinds[k].perRank.total());
        const std::int64_t retained = deepSpeedRetainedAtTurn(
            block, g.holdsOutputHead ? x.vocabPerRank : 0, g.layerCount, o.stage3MaxReuseDistance);
        const std::int64_t live = deepSpeedLiveParameters(
            unit, retained, o.gatheredUnits == 2 ? o.stage3PrefetchElements : 0,
            o.stage3MaxLiveParameters);
        const std::int64_t normElements = a.hidden * (a.layerNormBias ? 2 : 1);
        const std::int64_t persistent =
            a.hidden <= o.stage3PersistenceThreshold
                ? (std::int64_t(g.layerCount) * a.normsPerLayer + (g.holdsOutputHead ? 1 : 0)) *
                      normElements
                : 0;
        // The largest single parameter's whole gradient: autograd makes it whole before
        // the hook copies it into the reduce bucket (stage3.py
        // reduce_independent_p_g_buckets_and_remove_grads, lines 1519-1539, which may
        // first reduce the full bucket), and one larger than the bucket keeps it (line
        // 1548).
        std::int64_t largest = shardElements(largestLinearElements(a), x.t);
        if (g.holdsEmbedding || g.holdsOutputHead)
            largest = std::max(largest, x.vocabPerRank);
        g.gatheredUnitParameters = unit;
        buf.gatheredUnits = (live + largest) * computeBytes + persistent * r.weightBytes;
    } else if (x.hasArch) {
        // Whole weights need no gathered copy, whole gradients no unit's unsharded one.
        const std::int64_t copies =
            (x.wholeWeights ? 0 : std::int64_t(o.gatheredUnits)) + (x.wholeGradients ? 0 : 1);
        g.gatheredUnitParameters = unit;
        buf.gatheredUnits = unit * copies * computeBytes;
    }
    if (x.fsdpFloat8 && !x.wholeWeights) {
        std::int64_t largest = 0;
        for (int k = 0; k < 2; ++k)
            if (share.blocks[k] > 0)
                largest = std::max(largest, float8GatheredUnitBytes(x.kinds[k].perRank.total(),
                                                                    x.float8Gathered[k],
                                                                    o.gatheredUnits, computeBytes));
        if (g.holdsEmbedding || g.holdsOutputHead)
            largest = std::max(
                largest, float8GatheredUnitBytes(x.vocabPerRank, 0, o.gatheredUnits, computeBytes));
        buf.gatheredUnits = largest;
    }
}

/// The allocator's fragmentation reserve, fragmentationPercent of everything else on the
/// GPU (PyTorch's caching allocator keeps reserved-but-unallocated memory): in 64 bits
/// unless a partial sum overflows (not for any valid scenario: each term is under 2^60),
/// else in 128. Bytes.
[[gnu::always_inline]] inline std::int64_t fragmentationReserve(const ComponentBytes &b,
                                                                const BufferBytes &buf, int percent)
{
    const std::int64_t reserved[] = {b.modelStates(), b.activations, buf.cudaContext,
                                     buf.communicationBuckets, buf.gatheredUnits};
    std::int64_t beforeReserve = 0;
    bool overflow = false;
    for (const std::int64_t v : reserved)
        overflow |= __builtin_add_overflow(beforeReserve, v, &beforeReserve);
    if (!overflow) [[likely]]
        return percentOf(beforeReserve, percent);
    Wide wide = 0;
    for (const std::int64_t v : reserved)
        wide += v;
    return std::int64_t(wideQuotient(wide * percent, 100));
}

/// Buffers of one GPU of stage `g` into g.buffers and g.bytes.buffers: the CUDA
/// context, the communication bucket for the `trained` parameters (modelStates()'s
/// figure), the gathered units and the fragmentation reserve over the model states,
/// activations and the other buffers.
[[gnu::always_inline]] inline void stageBuffers(const EstimateContext &x, const StageShare &share,
                                                std::int64_t trained, GpuGroup &g)
{
    BufferBytes &buf = g.buffers;
    buf.cudaContext = x.o->cudaContextBytes;
    buf.communicationBuckets = communicationBucketBytes(x, trained, share.unit);
    gatheredUnits(x, share, g);
    buf.fragmentation = fragmentationReserve(g.bytes, buf, x.o->fragmentationPercent);
    g.bytes.buffers =
        buf.cudaContext + buf.communicationBuckets + buf.gatheredUnits + buf.fragmentation;
}

} // namespace shardscope::stages
