#pragma once

// Scenarios the chart tests share, each with the source its numbers are checked against.

#include "scenario.h"
#include "session.h"

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

} // namespace shardscope
