#pragma once

// Stage 6, communication (docs/architecture.md "Communication per GPU per step"): the
// bytes one GPU of a pipeline stage sends per training step, by collective, for ring
// algorithms (Patarasuk and Yuan 2009: a ring reduce-scatter or all-gather moves
// (n - 1) / n of the tensor per rank, an all-reduce twice that).

#include "context.h"
#include "memoryreport.h"
#include "modelstates.h"
#include "stageplan.h"

#include <limits>
#include <string>

namespace shardscope::stages {

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

/// Data-parallel traffic per GPU per step of `n` parameters sharded over `shards` of the
/// `ranks` ranks holding them (routed experts use the expert groups), with `w` and `gr`
/// bytes per weight and gradient, `m` micro-batches a step, bytes:
///   DDP, ZeRO-1  one gradient all-reduce per step (no_sync while accumulating)
///   ZeRO-2       a gradient reduce-scatter every micro-batch, one weight all-gather
///   ZeRO-3       weights gathered for forward and backward and gradients
///                reduce-scattered, every micro-batch; HSDP (`hsdp`) also all-reduces
///                the shard across the ranks / shards replicas.
[[gnu::always_inline]] inline Wide dataParallelTraffic(ZeroStage z, bool hsdp, std::int64_t m,
                                                       std::int64_t w, std::int64_t gr,
                                                       std::int64_t n, std::int64_t shards,
                                                       std::int64_t ranks)
{
    if (n == 0)
        return 0;
    if (z == ZeroStage::Zero3) {
        if (hsdp)
            return m * ringShare(Wide(n) * (2 * w + gr), shards) +
                   2 * ringShare(Wide(shardElements(n, shards)) * gr, quotient(ranks, shards));
        return m * ringShare(Wide(n) * (2 * w + gr), ranks);
    }
    if (z == ZeroStage::Zero2)
        return m * ringShare(Wide(n) * gr, ranks) + ringShare(Wide(n) * w, ranks);
    return 2 * ringShare(Wide(n) * gr, ranks);
}

/// FSDP2 under pipeline parallelism (modelstates.h wholeStates()): per step, `n`
/// parameters' weights gathered once (they stay gathered across the micro-batches) and
/// their accumulated gradients reduce-scattered once, in `grReduce` bytes (the reduce
/// dtype), over `shards` of the `ranks` ranks; HSDP also all-reduces the gradient shard
/// across the replicas. Bytes per GPU.
[[gnu::always_inline]] inline Wide wholeStateTraffic(bool hsdp, std::int64_t w,
                                                     std::int64_t grReduce, std::int64_t n,
                                                     std::int64_t shards, std::int64_t ranks)
{
    if (n == 0)
        return 0;
    Wide traffic = ringShare(Wide(n) * (w + grReduce), hsdp ? shards : ranks);
    if (hsdp)
        traffic +=
            2 * ringShare(Wide(shardElements(n, shards)) * grReduce, quotient(ranks, shards));
    return traffic;
}

/// The data-parallel traffic of stage `share`: its dense parameters over the shard and
/// reduce groups, its routed experts over the expert groups; with torchao's FP8
/// all-gather the stage's Float8Linear weights travel in 1 byte, not w, in the forward
/// and the backward gathers. Under LoRA only the adapters' gradients are reduced (and
/// their weights gathered); ZeRO-3 still gathers the frozen base, in its stored format,
/// for every forward and backward (PEFT on FSDP or DeepSpeed: frozen parameters have no
/// gradient hooks).
[[gnu::always_inline]] inline Wide stageDataTraffic(const EstimateContext &x,
                                                    const StageShare &share)
{
    const std::int64_t w = x.s.recipe.weightBytes, gr = x.s.recipe.gradientBytes; // 0 .. 64
    const bool hsdp = x.hsdpShardSize > 0;
    if (x.lora) [[unlikely]] {
        const std::int64_t layers = share.blocks[0] + share.blocks[1];
        Wide traffic = dataParallelTraffic(x.z, hsdp, x.m, w, gr, layers * x.loraPerBlock,
                                           x.shardGroup, x.reduceGroup);
        if (x.z == ZeroStage::Zero3) {
            const std::int64_t psi = share.dense + share.experts;
            const std::int64_t base =
                layers * x.frozen.linearBytes + (psi - layers * x.frozen.linearElements) * 2;
            traffic += x.m * ringShare(Wide(base) * 2, hsdp ? x.shardGroup : x.reduceGroup);
        }
        return traffic;
    }
    if (x.wholeGradients) [[unlikely]]
        return wholeStateTraffic(hsdp, w, reduceGradientBytes(x.s.recipe), share.dense,
                                 x.shardGroup, x.reduceGroup) +
               wholeStateTraffic(hsdp, w, reduceGradientBytes(x.s.recipe), share.experts,
                                 x.expertShardGroup, x.expertReduceGroup);
    Wide traffic =
        dataParallelTraffic(x.z, hsdp, x.m, w, gr, share.dense, x.shardGroup, x.reduceGroup) +
        dataParallelTraffic(x.z, hsdp, x.m, w, gr, share.experts, x.expertShardGroup,
                            x.expertReduceGroup);
    if (x.fsdpFloat8 && x.z == ZeroStage::Zero3 && w > 1) [[unlikely]] {
        const Wide fp8Elements = Wide(share.blocks[0]) * x.float8Gathered[0] +
                                 Wide(share.blocks[1]) * x.float8Gathered[1];
        const std::int64_t ranks = hsdp ? x.shardGroup : x.reduceGroup;
        traffic -=
            x.m * (ringShare(fp8Elements * (2 * w), ranks) - ringShare(fp8Elements * 2, ranks));
    }
    return traffic;
}

/// The model-parallel collectives of one GPU per step, bytes (128 bits each).
struct ModelParallelTraffic
{
    Wide tensor = 0, pipeline = 0, context = 0, expert = 0;
};

/// Traffic of stage `i` per GPU per step, bytes, each collective in 128 bits. A
/// collective over one rank moves nothing, so each term is left out at t, p, c or e = 1:
///   tensor    4 all-reduces of one micro-batch's hidden states per layer (6 with full
///             recomputation), each 2 (t - 1) / t of it (Megatron-LM)
///   pipeline  the hidden states (/ t with sequence parallelism) to each neighbour stage
///   context   keys and values of the other c - 1 ranks per layer, three times (ring
///             attention: forward, backward re-send, gradients; an approximation)
///   expert    each MoE block dispatches the k copies of the rank's tokens (its
///             sequence-parallel share) and combines them back, forward and backward
///             (again in the recomputed forward under full recomputation); (e - 1) / e
///             of it leaves the GPU (Megatron-Core's MoEAlltoAllTokenDispatcher; uniform
///             routing assumed)
[[gnu::always_inline]] inline ModelParallelTraffic
modelParallelTraffic(const EstimateContext &x, int i, const StageShare &share, int layerCount)
{
    ModelParallelTraffic traffic;
    if (!x.hasArch)
        return traffic;
    const Training &tr = x.s.training;
    const int t = x.t, p = x.p, c = x.c, e = x.e;
    const Wide m = x.m;
    const int passes = tr.recompute == Recompute::Full ? 6 : 4;
    if (t > 1)
        traffic.tensor = m * layerCount * passes * 2 * ringShare(x.hiddenBytes, t);
    if (p > 1) {
        const Wide boundary = wideQuotient(x.hiddenBytes, tr.sequenceParallel && t > 1 ? t : 1);
        const int neighbours = (i > 0 ? 1 : 0) + (i < p - 1 ? 1 : 0);
        traffic.pipeline = m * boundary * neighbours;
    }
    if (c > 1) {
        const Wide kvBytes =
            wideQuotient(Wide(x.tokensPerRank) * x.prepared.keyValueWidth, t) * tr.activationBytes;
        traffic.context = m * layerCount * 3 * kvBytes * (c - 1);
    }
    if (e > 1 && share.blocks[1] > 0) {
        const Wide copies =
            wideQuotient(Wide(x.tokensPerRank), tr.sequenceParallel && t > 1 ? t : 1) *
            x.arch->activeExperts;
        traffic.expert = m * share.blocks[1] * passes *
                         ringShare(copies * x.arch->hidden * tr.activationBytes, e);
    }
    return traffic;
}

/// Communication of one GPU of stage `i` into g.communication. False, with `error`
/// naming the collective, when one passes 1 EB per GPU per step (100T parameters x
/// 65,536 micro-batches would wrap 64 bits): refused rather than wrapped.
[[gnu::always_inline]] inline bool stageCommunication(const EstimateContext &x, int i,
                                                      const StageShare &share, GpuGroup &g,
                                                      std::string &error)
{
    // Separate variables, not an array: GCC spills a 128-bit array element as two 64-bit
    // halves and reloads it whole, a store-forwarding stall per group.
    const Wide data = stageDataTraffic(x, share);
    const ModelParallelTraffic mp = modelParallelTraffic(x, i, share, g.layerCount);
    const int tooLarge = data > maxReportBytes          ? 0
                         : mp.tensor > maxReportBytes   ? 1
                         : mp.pipeline > maxReportBytes ? 2
                         : mp.context > maxReportBytes  ? 3
                         : mp.expert > maxReportBytes   ? 4
                                                        : -1;
    if (tooLarge >= 0) [[unlikely]] {
        static const char *const collective[5] = {"data-parallel", "tensor-parallel",
                                                  "pipeline-parallel", "context-parallel",
                                                  "expert-parallel"};
        error = std::string(collective[tooLarge]) +
                " traffic exceeds 1 EB per GPU per step: fewer micro-batches per step (got " +
                std::to_string(x.m) + "), a smaller model or more GPUs";
        return false;
    }
    CommunicationBytes &cm = g.communication;
    cm.dataParallel = std::int64_t(data);
    cm.tensorParallel = std::int64_t(mp.tensor);
    cm.pipelineParallel = std::int64_t(mp.pipeline);
    cm.contextParallel = std::int64_t(mp.context);
    cm.expertParallel = std::int64_t(mp.expert);
    return true;
}

} // namespace shardscope::stages
