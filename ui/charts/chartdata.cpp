#include "chartdata.h"

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
    out.capacityBytes = own.valid() ? own.capacityBytes : s.gpu.capacityBytes;
    return out;
}

} // namespace shardscope
