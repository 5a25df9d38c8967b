#pragma once

// Stage 5, host memory (docs/architecture.md "Model states", docs/frameworks.md "Activation
// offload"): what CPU offload, activation offload and a paged optimizer move from a GPU
// to its node's RAM. Each pipeline stage's GpuGroup::hostBytes is the sum; the report's
// hostBytesPerNode is the busiest GPU's times the GPUs a node holds.

#include "context.h"
#include "intmath.h"
#include "memoryreport.h"

#include <algorithm>

namespace shardscope::stages {

/// ZeRO-Offload / ZeRO-Infinity (Ren et al. 2021; DeepSpeed offload_optimizer and
/// offload_param): moves `b`'s master weights and optimizer states, from ZeRO-2 its
/// gradient shard, and with Offload::OptimizerAndParams (ZeRO-3) its weight shard to
/// `hostBytes`, bytes per GPU. Nothing moves with Offload::None.
[[gnu::always_inline]] inline void offloadModelStates(Offload offload, ZeroStage z,
                                                      ComponentBytes &b, std::int64_t &hostBytes)
{
    if (offload == Offload::None)
        return;
    hostBytes = b.masterWeights + b.optimizerStates;
    b.masterWeights = b.optimizerStates = 0;
    if (z >= ZeroStage::Zero2) {
        hostBytes += b.gradients;
        b.gradients = 0;
    }
    if (offload == Offload::OptimizerAndParams) {
        hostBytes += b.weights;
        b.weights = 0;
    }
}

/// Activation offload (Transformer Engine's get_cpu_offload_context with num_layers =
/// L - 2 of model_layers = L, the largest count that still overlaps the copies with
/// compute, docs/features/other_optimizations/cpu_offloading/cpu_offloading.rst lines
/// 140-149): the first L - 2 of the stage's blocks leave the GPU, the last two stay.
/// The stage's `denseBlocks` dense blocks come before its `moeBlocks` MoE blocks; each
/// keeps `denseBytes` / `moeBytes` per micro-batch. Bytes one micro-batch moves to host,
/// in checked arithmetic: an overflow sets `ck.overflow` and gives 0 (the caller refuses).
inline std::int64_t offloadedActivationBytes(std::int64_t denseBlocks, std::int64_t moeBlocks,
                                             std::int64_t denseBytes, std::int64_t moeBytes,
                                             Checked &ck)
{
    const std::int64_t moeKept = std::min<std::int64_t>(2, moeBlocks);
    const std::int64_t denseKept = std::min<std::int64_t>(2 - moeKept, denseBlocks);
    return ck.sum(ck.product(denseBlocks - denseKept, denseBytes),
                  ck.product(moeBlocks - moeKept, moeBytes));
}

/// Bytes of a GPU's optimizer states that a paged optimizer moves to host RAM: the
/// excess of the GPU's total `b` over `capacity` (Gpu::usableBytes(): the driver pages
/// when the memory it reports runs out), at most its pageable share of the
/// optimizer states (`pageable` of every `trainable` parameters; equal counts when all
/// are pageable). 0 when the GPU's bytes fit. bitsandbytes allocates the states with
/// cudaMallocManaged (functional.py get_paged) and the driver evicts pages to host RAM
/// when the GPU runs out (Dettmers et al. 2023, QLoRA, section 3 "Paged Optimizers");
/// how many bytes move is modelled, not which pages or when.
inline std::int64_t pagedOptimizerBytes(const ComponentBytes &b, std::int64_t capacity,
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

/// The paged optimizer's move on one stage (after its buffers, which the excess counts):
/// under LoRA only the adapter matrices of at least pagedOptimizerMinElements elements
/// page (bitsandbytes keeps smaller tensors' states on the GPU); without LoRA every
/// trainable parameter may. Returns the bytes paged, added to g.hostBytes.
[[gnu::always_inline]] inline std::int64_t pageOptimizer(const EstimateContext &x, GpuGroup &g)
{
    if (!x.pagedOptimizer) [[likely]]
        return 0;
    const std::int64_t capacity = x.s.gpu.usableBytes();
    const std::int64_t paged =
        x.lora ? pagedOptimizerBytes(g.bytes, capacity, x.pageablePerBlock, x.loraPerBlock)
               : pagedOptimizerBytes(g.bytes, capacity, 1, 1);
    g.bytes.optimizerStates -= paged;
    g.hostBytes += paged;
    return paged;
}

/// Host RAM one node needs, bytes: the busiest GPU's host bytes times the GPUs on a node
/// (all of them when the run has fewer). Checked: an overflow sets `ck.overflow` and gives
/// 0 (the caller refuses it, like any total past maxReportBytes).
inline std::int64_t hostBytesPerNode(std::int64_t maxHostPerGpu, std::int64_t gpusPerNode,
                                     std::int64_t gpus, Checked &ck)
{
    return ck.product(maxHostPerGpu, std::min(gpusPerNode, gpus));
}

/// Host RAM one node needs under CPU offload, bytes, as the framework's own estimator
/// counts it (FrameworkProfile::offloadLoadCopyBytesPerParameter and
/// offloadHostBufferPercent; for DeepSpeed, stage_1_and_2.py
/// estimate_zero2_model_states_mem_needs and stage3.py
/// estimate_zero3_model_states_mem_needs): the larger of `steadyPerNode` (the offloaded
/// states, hostBytesPerNode()) and, under ZeRO-1/2, the fp32 model copies the node's ranks
/// build at load (`parametersPerGpu`, the most one GPU owns before sharding, times the
/// profile's bytes per parameter and the GPUs on the node), times the profile's buffer
/// allowance. `steadyPerNode` unchanged without offload or for a profile with neither
/// fact. For 8 ranks of a 1e9-parameter ZeRO-2 model on one node: max(4 x 8, 16) x 1e9 x
/// 1.5 = 48e9. Checked: an overflow sets `ck.overflow` and gives 0.
inline std::int64_t offloadHostBytesPerNode(const FrameworkProfile &profile, Offload offload,
                                            ZeroStage z, std::int64_t steadyPerNode,
                                            std::int64_t parametersPerGpu, std::int64_t gpusOnNode,
                                            Checked &ck)
{
    if (offload == Offload::None) [[likely]]
        return steadyPerNode;
    std::int64_t need = steadyPerNode;
    if (z < ZeroStage::Zero3 && profile.offloadLoadCopyBytesPerParameter > 0) {
        const std::int64_t load = ck.product(
            ck.product(parametersPerGpu, profile.offloadLoadCopyBytesPerParameter), gpusOnNode);
        need = std::max(need, load);
    }
    if (profile.offloadHostBufferPercent == 100)
        return need;
    return ck.product(need / 100, profile.offloadHostBufferPercent) +
           need % 100 * profile.offloadHostBufferPercent / 100;
}

} // namespace shardscope::stages
