#pragma once

// Scenarios from the shipped catalog (resources/), shared by the tests and benchmarks
// that link shardscope_io or above. Engine-only tests use tests/core/testscenarios.h.

#include "catalog.h"
#include "planner.h"
#include "scenariofile.h"

namespace shardscope::test {

/// The shipped catalog's `modelId` on `gpus` GPUs at ZeRO stage `z`, over
/// defaultScenario() (io/scenariofile.h: mixed-precision AdamW on H100 SXM 80GB, the
/// Scenario defaults otherwise). The id must be in the catalog.
inline Scenario catalogScenario(const char *modelId, std::int64_t gpus,
                                ZeroStage z = ZeroStage::Ddp)
{
    Scenario s = defaultScenario();
    s.model = *Catalog::builtIn().model(modelId);
    s.layout.gpus = gpus;
    s.layout.zeroStage = z;
    return s;
}

/// Llama 3.1 405B from the shipped catalog on `gpus` H100 SXM 80GB in Llama 3's
/// pre-training layout (Dubey et al. 2024, Table 4): t 8, p 16, ZeRO-1, s 8192,
/// micro-batch 1, `microBatches` micro-batches, no recomputation. How the 126 layers
/// split into stages, and the schedule, are the caller's.
inline Scenario llama405bPretraining(std::int64_t gpus, std::int64_t microBatches)
{
    Scenario s = catalogScenario("llama3.1-405b", gpus, ZeroStage::Zero1);
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 16;
    s.training.sequenceLength = 8192;
    s.training.microBatchSize = 1;
    s.training.microBatches = microBatches;
    s.training.recompute = Recompute::None;
    return s;
}

/// A custom recipe: the catalog's mixed-precision AdamW without its fp32 master copy,
/// 2 + 2 + 0 + 8 = 12 bytes per parameter, with an id and a name of its own (what a
/// scenario file that writes its own recipe gives the window).
inline Recipe claim12bRecipe()
{
    Recipe r = *Catalog::builtIn().recipe("mixed-adam");
    r.id = "claim-12b";
    r.displayName = "12 B/param (the claim's own figure)";
    r.masterWeightBytes = 0;
    return r;
}

/// Llama 3 70B on 64 x H100 SXM 80 GB from the shipped catalog, ZeRO-3, the Scenario
/// defaults otherwise (micro-batch 1, s 4096, 8 micro-batches, full recomputation,
/// FlashAttention, fp32 logits, fused loss, 8 GPUs per node, 2 TB host RAM): the
/// issues' 70B example, whose per-GPU terms tests/core/test_verdict.cpp and
/// tests/app/test_reportcommand.cpp count by hand.
inline Scenario llama70bZero3()
{
    return catalogScenario("llama3-70b", 64, ZeroStage::Zero3);
}

/// The catalog's plain-70b (70e9 parameters counted plainly) on `gpus` H100 SXM 80GB at
/// ZeRO stage `z`, model states only: the accounting of the ZeRO paper's Figure 1
/// (Rajbhandari et al. 2020), 16 bytes per parameter over the ranks that shard them.
inline Scenario plain70bStates(std::int64_t gpus, ZeroStage z)
{
    Scenario s = catalogScenario("plain-70b", gpus, z);
    s.modelStatesOnly = true;
    return s;
}

/// Llama 3 70B on 64 H100 SXM 80GB at t 8, p 4 (so d 2), ZeRO-1, 1F1B over 16
/// micro-batches with selective recomputation: the pipeline example of the
/// scenario-file and slide-export tests.
inline Scenario llama70bPipeline()
{
    Scenario s = catalogScenario("llama3-70b", 64, ZeroStage::Zero1);
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    s.training.recompute = Recompute::Selective;
    s.training.schedule = PipelineSchedule::OneFOneB;
    s.training.microBatches = 16;
    return s;
}

/// A planner request over `minGpus` to `maxGpus` GPUs of the catalog's `gpuId`, for
/// catalog model `modelId` with mixed-precision AdamW at sequence length `sequence`
/// (core/planner.h; every other search bound at PlanRequest's default).
inline PlanRequest planRequest(const char *modelId, std::int64_t minGpus, std::int64_t maxGpus,
                               std::int64_t sequence, const char *gpuId = "h100-sxm-80gb")
{
    PlanRequest q;
    q.base = catalogScenario(modelId, minGpus);
    q.base.gpu = *Catalog::builtIn().gpu(gpuId);
    q.base.training.sequenceLength = sequence;
    q.minGpus = minGpus;
    q.maxGpus = maxGpus;
    return q;
}

} // namespace shardscope::test
