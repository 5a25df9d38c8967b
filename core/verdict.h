#pragma once

#include "memoryreport.h"
#include "scenario.h"

#include <cstdint>

namespace shardscope {

/// The decision behind the verdict sentence, as values: what overflows, by how many
/// bytes, and why. Byte counts are exact integers (bytes); never negative.
struct Verdict
{
    /// Which of the two memories the report overflows: GPU memory (the busiest GPU's
    /// total above the GPU's usable capacity, Gpu::usableBytes()) and host RAM per node (the
    /// offloaded bytes of one node's GPUs above the host-RAM setting, MemoryReport::hostFits()).
    enum class Kind
    {
        Fits,       ///< every GPU and every node's host RAM holds its bytes
        Gpu,        ///< only GPU memory overflows
        Host,       ///< only host RAM per node overflows (CPU offload); the GPUs fit
        GpuAndHost, ///< both overflow at once
        Invalid     ///< the scenario was refused (MemoryReport::error); nothing else is set
    };
    /// What takes the larger part of the busiest GPU's bytes.
    enum class Dominant
    {
        ModelStates, ///< weights + gradients + master weights + optimizer states on the GPU
        Activations  ///< stored activations: ZeRO sharding does not split them
    };

    Kind kind = Kind::Invalid;
    /// Busiest GPU's total minus the GPU's usable capacity (MemoryReport::capacityBytes)
    /// when positive, else 0; bytes per GPU.
    std::int64_t gpuOverflowBytes = 0;
    /// Offloaded bytes per node minus the host RAM per node when positive, else 0
    /// (MemoryReport::hostBytesPerNode - hostCapacityBytesPerNode); bytes per node.
    std::int64_t hostOverflowBytesPerNode = 0;
    /// Larger part of the busiest GPU (MemoryReport::peakGroup()): activations when
    /// they exceed its model states, else model states.
    Dominant dominant = Dominant::ModelStates;
    /// Busiest GPU's stored activations, bytes.
    std::int64_t busiestActivationBytes = 0;
    /// Busiest GPU's model states (weights, gradients, master weights, optimizer
    /// states) resident on the GPU, bytes.
    std::int64_t busiestModelStateBytes = 0;
    /// Ranks ZeRO shards model states over (Layout::shardGroup(): the HSDP shard size,
    /// else d x c).
    std::int64_t shardRanks = 0;
    /// Data x context parallel ranks that hold the same parameters (d x c).
    std::int64_t dataContextRanks = 0;

    /// True for Gpu and GpuAndHost.
    bool gpuOverflows() const { return kind == Kind::Gpu || kind == Kind::GpuAndHost; }
    /// True for Host and GpuAndHost.
    bool hostOverflows() const { return kind == Kind::Host || kind == Kind::GpuAndHost; }
    /// True when HSDP shards over fewer ranks than the d x c that could share the states
    /// (0 < shardRanks < dataContextRanks): a larger shard group shrinks each share.
    bool hsdpPartial() const { return shardRanks > 0 && shardRanks < dataContextRanks; }
};

/// Decides what the report `r` of scenario `s` (r = estimate(s)) overflows: GPU memory
/// when MemoryReport::peakBytes() > capacityBytes, host RAM when !hostFits(), both, or
/// neither; Invalid when !r.valid(). The overflow amounts are the positive differences
/// in bytes (0 for what fits); `dominant` compares the peak group's activations with
/// its GPU-resident model states. The sentence is verdictText() (format.h).
Verdict verdict(const Scenario &s, const MemoryReport &r);

} // namespace shardscope
