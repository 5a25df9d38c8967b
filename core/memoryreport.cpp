#include "memoryreport.h"

#include <algorithm>

namespace shardscope {

std::int64_t componentValue(const ComponentBytes &b, Component c)
{
    switch (c) {
    case Component::Weights:
        return b.weights;
    case Component::Gradients:
        return b.gradients;
    case Component::MasterWeights:
        return b.masterWeights;
    case Component::OptimizerStates:
        return b.optimizerStates;
    case Component::Activations:
        return b.activations;
    case Component::Buffers:
        return b.buffers;
    }
    return 0;
}

std::string componentName(Component c)
{
    switch (c) {
    case Component::Weights:
        return "Weights";
    case Component::Gradients:
        return "Gradients";
    case Component::MasterWeights:
        return "Master weights";
    case Component::OptimizerStates:
        return "Optimizer states";
    case Component::Activations:
        return "Activations";
    case Component::Buffers:
        return "Buffers";
    }
    return {};
}

std::string componentKey(Component c)
{
    switch (c) {
    case Component::Weights:
        return "weights";
    case Component::Gradients:
        return "gradients";
    case Component::MasterWeights:
        return "master_weights";
    case Component::OptimizerStates:
        return "optimizer_states";
    case Component::Activations:
        return "activations";
    case Component::Buffers:
        return "buffers";
    }
    return {};
}

std::int64_t MemoryReport::peakBytes() const
{
    std::int64_t peak = 0;
    for (const auto &g : groups)
        peak = std::max(peak, g.totalBytes());
    return peak;
}

const GpuGroup *MemoryReport::peakGroup() const
{
    const GpuGroup *best = nullptr;
    for (const auto &g : groups)
        if (!best || g.totalBytes() > best->totalBytes())
            best = &g;
    return best;
}

std::int64_t MemoryReport::gpuCount() const
{
    std::int64_t n = 0;
    for (const auto &g : groups)
        n += g.gpuCount;
    return n;
}

} // namespace shardscope
