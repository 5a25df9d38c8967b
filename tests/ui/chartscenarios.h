#pragma once

// Scenarios the chart tests share, each with the source its numbers are checked against.

#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "scenario.h"
#include "session.h"

#include <algorithm>

namespace shardscope {

/// 70B parameters (a plain count) on `gpus` H100 80 GB under strategy `z`, model states
/// only: the accounting of the ZeRO paper's Figure 1 (Rajbhandari et al. 2020), 16 bytes
/// per parameter in all.
inline Scenario seventyB(qint64 gpus, ZeroStage z)
{
    Scenario s;
    s.model.plainParameters = 70'000'000'000;
    s.gpu.shortName = "H100";
    s.gpu.capacityBytes = 80'000'000'000;
    s.layout.gpus = gpus;
    s.layout.zeroStage = z;
    s.modelStatesOnly = true;
    return s;
}

/// Draws the estimate of `s` on `chart` (a memory or compare chart) in GB and replots it
/// at once, so that its text and bars can be measured.
template <typename Chart> void drawReport(Chart &chart, const Scenario &s)
{
    chart.setReport(s, estimate(s), ByteUnit::GB);
    chart.plot()->replot();
}

/// The model's Llama 3 70B on 64 GPUs as t 8, p 4, d 2 with selective recompute, run
/// with `schedule`, v = `chunks` and m = 8 micro-batches: four pipeline stages.
inline void llama70bFourStages(Session &model, PipelineSchedule schedule, int chunks)
{
    model.edit([schedule, chunks](Scenario &s) {
        s.layout.tensorParallel = 8;
        s.layout.pipelineParallel = 4;
        s.layout.gpus = 64;
        s.training.schedule = schedule;
        s.training.chunks = chunks;
        s.training.microBatches = 8;
        s.training.recompute = Recompute::Selective;
    });
}

/// Llama 3.1 405B (126 layers, Meta's model card; resources/data/models.json) in `stages`
/// pipeline stages of one H100 80 GB each, mixed-precision Adam, 1F1B over max(8, stages)
/// micro-batches. A count that does not divide 126 puts the extra layers on the first
/// stages (Layout::allowUnevenStages, stageLayerCount); from 127 stages on, the same shape with 128
/// layers, so that every stage holds at least one. Many stages for the charts' text.
inline Scenario manyStages(int stages)
{
    Scenario s;
    s.model = *Catalog::builtIn().model("llama3.1-405b");
    if (stages > 126)
        s.model.architecture->layers = 128;
    s.recipe = *Catalog::builtIn().recipe("mixed-adam");
    s.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    s.layout.gpus = stages;
    s.layout.pipelineParallel = stages;
    s.layout.allowUnevenStages = true;
    s.training.schedule = PipelineSchedule::OneFOneB;
    s.training.microBatches = std::max(8, stages);
    return s;
}

} // namespace shardscope
