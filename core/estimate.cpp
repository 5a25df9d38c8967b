#include "estimate.h"

namespace shardscope {

std::string validateRecipe(const Recipe &r)
{
    const std::int64_t fields[] = {r.weightBytes, r.gradientBytes, r.masterWeightBytes,
                                   r.optimizerBytes};
    const char *names[] = {"weight", "gradient", "master-weight", "optimizer"};
    for (int i = 0; i < 4; ++i) {
        if (fields[i] < 0 || fields[i] > 64)
            return std::string(names[i]) + " bytes per parameter must be between 0 and 64 (got " +
                   std::to_string(fields[i]) + ")";
    }
    if (r.totalBytesPerParameter() <= 0)
        return "a recipe needs at least one byte per parameter";
    return {};
}

std::string validate(const Scenario &s)
{
    if (s.model.architecture) {
        if (auto e = validateArchitecture(*s.model.architecture); !e.empty())
            return "model: " + e;
    }
    const std::int64_t params = s.model.parameters();
    if (params <= 0)
        return "parameters must be positive (got " + std::to_string(params) + ")";
    if (params > maxParameters)
        return "parameters must be at most 1e14 (got " + std::to_string(params) + ")";
    if (auto e = validateRecipe(s.recipe); !e.empty())
        return "recipe: " + e;
    if (s.layout.gpus < 1)
        return "gpus must be at least 1 (got " + std::to_string(s.layout.gpus) + ")";
    if (s.layout.gpus > maxGpus)
        return "gpus must be at most " + std::to_string(maxGpus) + " (got " +
               std::to_string(s.layout.gpus) + ")";
    if (s.gpu.capacityBytes <= 0)
        return "gpu capacity must be positive";
    return {};
}

std::int64_t shardElements(std::int64_t n, std::int64_t d)
{
    return d <= 1 ? n : (n + d - 1) / d;
}

MemoryReport estimate(const Scenario &s)
{
    MemoryReport report;
    report.error = validate(s);
    if (!report.valid())
        return report;

    const std::int64_t psi = s.model.parameters();
    const std::int64_t d = s.layout.dataParallel();
    const std::int64_t shard = shardElements(psi, d);
    const Recipe &r = s.recipe;
    const ZeroStage z = s.layout.zeroStage;

    report.parameters = psi;
    report.capacityBytes = s.gpu.capacityBytes;

    ComponentBytes b;
    b.weights = (z == ZeroStage::Zero3 ? shard : psi) * r.weightBytes;
    b.gradients = (z >= ZeroStage::Zero2 ? shard : psi) * r.gradientBytes;
    b.masterWeights = (z >= ZeroStage::Zero1 ? shard : psi) * r.masterWeightBytes;
    b.optimizerStates = (z >= ZeroStage::Zero1 ? shard : psi) * r.optimizerBytes;

    GpuGroup g;
    g.label = d == 1 ? "1 GPU" : "all " + std::to_string(d) + " GPUs";
    g.firstRank = 0;
    g.gpuCount = s.layout.gpus;
    g.bytes = b;
    report.groups.push_back(g);
    return report;
}

} // namespace shardscope
