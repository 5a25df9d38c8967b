#include "defaults.h"

#include "inputlimits.h"
#include "settings.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace shardscope {

Scenario defaultScenario(Model model, Recipe recipe, Gpu gpu)
{
    Scenario s;
    s.model = std::move(model);
    s.recipe = std::move(recipe);
    s.gpu = std::move(gpu);
    s.layout.gpus = defaultGpuCount;
    s.layout.zeroStage = ZeroStage::Ddp;
    return s;
}

std::vector<std::int64_t> gpuSliderCounts(std::int64_t multiple)
{
    multiple = std::max<std::int64_t>(multiple, 1);
    std::vector<std::int64_t> counts;
    auto add = [&counts, multiple](std::int64_t k) {
        if (k * multiple <= maxGpuSliderCount)
            counts.push_back(k * multiple);
    };
    add(1);
    for (std::int64_t k = 2; k <= maxGpuSliderCount; k *= 2) {
        if (k >= 4)
            add(k * 3 / 4);
        add(k);
    }
    return counts;
}

std::size_t nearestGpuSliderIndex(const std::vector<std::int64_t> &counts, std::int64_t gpus)
{
    std::size_t best = 0;
    for (std::size_t i = 1; i < counts.size(); ++i)
        if (std::llabs(counts[i] - gpus) < std::llabs(counts[best] - gpus))
            best = i;
    return best;
}

void setDegreesKeepingData(Layout &l, int tensorParallel, int pipelineParallel, int contextParallel)
{
    const std::int64_t d = std::max<std::int64_t>(1, l.dataParallel());
    l.tensorParallel = tensorParallel;
    l.pipelineParallel = pipelineParallel;
    l.contextParallel = contextParallel;
    // The product is compared with maxGpus by division, so it never overflows.
    const std::int64_t mp = l.modelParallel();
    l.gpus = mp > 0 && d > maxGpus / mp ? maxGpus : std::max<std::int64_t>(1, d * mp);
}

int chunksForSchedule(PipelineSchedule schedule, int previousChunks)
{
    if (schedule == PipelineSchedule::Interleaved1F1B && previousChunks >= 2)
        return previousChunks;
    return defaultChunks(schedule);
}

} // namespace shardscope
