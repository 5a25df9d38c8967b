#include "memoryreport.h"

#include "enumtable.h"

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

namespace {

/// Component's names: the JSON key as id, the legend's label as name.
constexpr EnumTable<Component, 6> components{{
    {Component::Weights, "weights", "Weights"},
    {Component::Gradients, "gradients", "Gradients"},
    {Component::MasterWeights, "master_weights", "Master weights"},
    {Component::OptimizerStates, "optimizer_states", "Optimizer states"},
    {Component::Activations, "activations", "Activations"},
    {Component::Buffers, "buffers", "Buffers"},
}};

} // namespace

std::string componentName(Component c)
{
    return std::string(enumName(components, c));
}

std::string componentKey(Component c)
{
    return std::string(enumId(components, c));
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
