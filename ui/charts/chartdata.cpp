#include "chartdata.h"

#include "format.h"

#include <algorithm>

namespace shardscope {

CompareBars compareBars(const Scenario &s, const std::array<StrategyVariant, 4> &variants)
{
    CompareBars out;
    out.current = int(s.layout.zeroStage);
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const StrategyVariant &variant = variants[i];
        CompareBar &bar = out.bars[i];
        bar.stage = variant.scenario.layout.zeroStage;
        std::vector<std::string> notes = variant.adjustments;
        const MemoryReport &r = variant.report;
        bar.valid = r.valid();
        if (bar.valid) {
            const GpuGroup *g = r.peakGroup();
            bar.bytes = g->bytes;
            bar.peakBytes = r.peakBytes();
            if (r.groups.size() > 1)
                notes.push_back("stage " + std::to_string(g->pipelineStage));
        }
        bar.label = std::string(zeroStageName(bar.stage));
        for (std::size_t n = 0; n < notes.size(); ++n)
            bar.label += (n == 0 ? "\n" : ", ") + notes[n];
    }
    const MemoryReport &own = variants[std::size_t(out.current)].report;
    out.capacityBytes = own.valid() ? own.capacityBytes : s.gpu.usableBytes();
    return out;
}

std::vector<MemoryBar> memoryGroupBars(const MemoryReport &r)
{
    std::vector<MemoryBar> out;
    if (!r.valid())
        return out;
    out.reserve(r.groups.size());
    for (std::size_t i = 0; i < r.groups.size(); ++i) {
        const GpuGroup &g = r.groups[i];
        out.push_back({g.firstRank, g.gpuCount, int(i), g.pipelineStage, g.bytes});
    }
    return out;
}

std::vector<MemoryBar> memoryGpuBars(const std::vector<MemoryBar> &groups)
{
    std::vector<MemoryBar> out;
    for (const MemoryBar &g : groups) {
        for (std::int64_t k = 0; k < g.gpuCount; ++k) {
            MemoryBar b = g;
            b.firstRank = g.firstRank + k;
            b.gpuCount = 1;
            out.push_back(b);
        }
    }
    return out;
}

std::string memoryBarLabel(const MemoryBar &b, bool staged, bool perGpu, int level)
{
    const std::string first = std::to_string(b.firstRank);
    if (perGpu)
        return "GPU " + first + (staged ? "\nstage " + std::to_string(b.stage) : "");
    const std::string stage = std::to_string(b.stage);
    const std::string ranks =
        b.gpuCount == 1 ? first : first + "–" + std::to_string(b.firstRank + b.gpuCount - 1);
    switch (level) {
    case 0: {
        const std::string gpus =
            b.gpuCount == 1 ? "GPU " + ranks : "GPU " + ranks + "\n× " + formatCount(b.gpuCount);
        return staged ? "Stage " + stage + "\n" + gpus : gpus;
    }
    case 1:
        return staged ? "Stage " + stage : "GPU " + ranks;
    default:
        return staged ? stage : ranks;
    }
}

std::string memoryAxisTitle(const std::vector<MemoryBar> &groups, bool staged, bool perGpu,
                            int level)
{
    if (perGpu || !staged || level == 0 || groups.empty())
        return "GPUs (global rank)";
    const std::int64_t count = groups.front().gpuCount;
    const bool uniform = std::all_of(groups.begin(), groups.end(),
                                     [count](const MemoryBar &g) { return g.gpuCount == count; });
    if (!uniform)
        return "Pipeline stage";
    return "Pipeline stage (" + formatCount(count) + (count == 1 ? " GPU each)" : " GPUs each)");
}

bool memoryTicksNameTheirGpus(bool staged, bool perGpu, int level)
{
    return perGpu || level == 0 || (!staged && level == 1);
}

} // namespace shardscope
