#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

/// Bytes one GPU holds, by component. Exact integers; rounding is for display only.
struct ComponentBytes
{
    std::int64_t weights = 0;         ///< working (bf16) weights resident on the GPU
    std::int64_t gradients = 0;       ///< gradients resident on the GPU
    std::int64_t masterWeights = 0;   ///< fp32 master copy
    std::int64_t optimizerStates = 0; ///< optimizer moments (Adam m and v)
    std::int64_t activations = 0;     ///< stored activations (0 until modelled)
    std::int64_t buffers = 0;         ///< CUDA context, buckets, fragmentation (0 until modelled)

    /// Sum of all components, bytes.
    std::int64_t total() const
    {
        return weights + gradients + masterWeights + optimizerStates + activations + buffers;
    }
    /// Weights + gradients + master weights + optimizer states, bytes.
    std::int64_t modelStates() const
    {
        return weights + gradients + masterWeights + optimizerStates;
    }
};

/// The components in drawing order (bottom of a stacked bar first).
enum class Component
{
    Weights,
    Gradients,
    MasterWeights,
    OptimizerStates,
    Activations,
    Buffers
};
inline constexpr int componentCount = 6;

/// Bytes of one component.
std::int64_t componentValue(const ComponentBytes &b, Component c);
/// Display name: "Weights", "Gradients", "Master weights", ...
std::string componentName(Component c);
/// JSON key: "weights", "gradients", "master_weights", "optimizer_states", ...
std::string componentKey(Component c);

/// A set of GPUs that hold exactly the same bytes (ranks firstRank .. firstRank+gpuCount-1).
struct GpuGroup
{
    std::string label;          ///< e.g. "all 64 GPUs" or "stage 0"
    std::int64_t firstRank = 0; ///< global rank of the first GPU in the group
    std::int64_t gpuCount = 0;  ///< how many GPUs hold these bytes
    ComponentBytes bytes;       ///< per GPU

    std::int64_t totalBytes() const { return bytes.total(); }
};

/// What every GPU holds for one scenario (output of estimate()).
struct MemoryReport
{
    std::string error;           ///< non-empty when the scenario was invalid; nothing else is set
    std::int64_t parameters = 0; ///< total model parameters
    std::int64_t capacityBytes = 0; ///< per-GPU capacity the report is checked against
    std::vector<GpuGroup> groups;   ///< every GPU belongs to exactly one group

    bool valid() const { return error.empty(); }
    /// Largest per-GPU total over all groups, bytes.
    std::int64_t peakBytes() const;
    /// capacity - peak: positive is free room, negative is overflow (bytes).
    std::int64_t headroomBytes() const { return capacityBytes - peakBytes(); }
    /// True when every GPU's total is at most the capacity.
    bool fits() const { return valid() && peakBytes() <= capacityBytes; }
    /// Sum of gpuCount over groups.
    std::int64_t gpuCount() const;
};

} // namespace shardscope
