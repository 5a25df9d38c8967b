// The planner's speed (core/planner.h): candidates evaluated per second and the
// whole search for Llama 3 70B on 64 H100s. Run build/tests/bench/bench_planner.
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "planner.h"
#include "steptime.h"

#include <benchmark/benchmark.h>

using namespace shardscope;

namespace {

PlanRequest llama70bOn64()
{
    return test::planRequest("llama3-70b", 64, 64, 8192);
}

void planCounters(benchmark::State &state, const PlanResult &r)
{
    state.counters["evaluated"] = double(r.candidatesEvaluated);
    state.counters["pruned"] = double(r.candidatesPruned);
    state.counters["slower"] = double(r.candidatesSlower);
    state.counters["space"] = double(r.candidates);
    state.counters["fitting"] = double(r.fittingCount);
}

/// Plans `q` once per benchmark iteration; the last result, its counters set.
PlanResult timedPlan(benchmark::State &state, const PlanRequest &q)
{
    PlanResult r;
    for (auto _ : state) {
        r = plan(q);
        benchmark::DoNotOptimize(r.fitting.data());
    }
    planCounters(state, r);
    return r;
}

/// The whole default search space at 64 GPUs (what `shardscope plan --model llama3-70b
/// --gpus 64 --seq 8192` searches).
void BM_PlanLlama70bOn64(benchmark::State &state)
{
    PlanRequest q = llama70bOn64();
    q.prune = state.range(0) != 0;
    const PlanResult r = timedPlan(state, q);
    state.counters["candidates_per_s"] =
        benchmark::Counter(double(r.candidatesEvaluated + r.candidatesPruned),
                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PlanLlama70bOn64)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

/// Calculon's search (Isaev et al. 2023, SC23: GPT-3 175B on 1,024 A100s, 92,052
/// configurations in 556 s of CPU): GPT-3 175B (96 layers), s 2048, the GPT-3 paper's
/// 1,536-sequence (3.1M-token) batch (Brown et al. 2020, Table 2.1), on 1,024 A100
/// 80GB; every default strategy, HSDP, offload, schedule and chunk count, uneven
/// stages, and, to make the space larger than Calculon's, micro-batch sizes up to 64
/// and context parallel up to 16: 102,225 candidates.
PlanRequest gpt3On1024()
{
    PlanRequest q = test::planRequest("gpt3-175b", 1024, 1024, 2048, "a100-80gb");
    q.globalBatchTokens = 1536 * 2048;
    q.maxMicroBatchSize = 64;
    q.maxContextParallel = 16;
    return q;
}

/// The Calculon-sized GPT-3 search, pruned (1) and as a brute force (0).
void BM_PlanGpt3On1024(benchmark::State &state)
{
    PlanRequest q = gpt3On1024();
    q.prune = state.range(0) != 0;
    timedPlan(state, q);
}
BENCHMARK(BM_PlanGpt3On1024)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

/// The whole default space for Llama 3.1 405B on 16,384 H100s with its 16M-token
/// batch (Dubey et al. 2024, Table 4: s 8192, 2,048 sequences), uneven stages included.
void BM_PlanLlama405bOn16384(benchmark::State &state)
{
    PlanRequest q = test::planRequest("llama3.1-405b", 16384, 16384, 8192);
    q.globalBatchTokens = 2048LL * 8192;
    timedPlan(state, q);
}
BENCHMARK(BM_PlanLlama405bOn16384)->Unit(benchmark::kMillisecond);

/// The planner's range search: `shardscope plan --model llama3-70b --gpus 1-16384` (the
/// command line's defaults: s 4096, the 4M-token batch, t up to GPUs per node), every
/// world size from 1 to 16,384 (921,441 candidates); the argument is PlanRequest::keep:
/// 10 the command's default --top, 0 every fitting row (the window's Plan tab).
void BM_PlanLlama70bOver1To16384(benchmark::State &state)
{
    PlanRequest q = test::planRequest("llama3-70b", 1, 16384, 4096);
    q.keep = state.range(0);
    timedPlan(state, q);
}
BENCHMARK(BM_PlanLlama70bOver1To16384)
    ->Arg(10)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3);

/// The "What fits?" line for Llama 3 70B on 64 H100s (ZeRO-3, t 1): fewest GPUs per
/// strategy over the slider's counts and the fastest layout at 64.
void BM_WhatFits(benchmark::State &state)
{
    Scenario s = llama70bOn64().base;
    s.layout.gpus = 64;
    s.layout.zeroStage = ZeroStage::Zero3;
    s.training.microBatchSize = 1;
    s.training.microBatches = 8;
    WhatFits w;
    for (auto _ : state) {
        w = whatFits(s);
        benchmark::DoNotOptimize(w.fastest.peakBytes);
    }
    state.counters["estimates"] = double(w.evaluated);
}
BENCHMARK(BM_WhatFits)->Unit(benchmark::kMicrosecond);

/// A 70B layout that fits: llama70bOn64()'s model on 64 GPUs at t 8, p 2, ZeRO-1.
Scenario fitting70b()
{
    Scenario s = llama70bOn64().base;
    s.layout.gpus = 64;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 2;
    s.layout.zeroStage = ZeroStage::Zero1;
    return s;
}

/// One candidate: estimate() plus stepTime() on a fitting 70B layout.
void BM_EstimateAndStepTime(benchmark::State &state)
{
    const Scenario s = fitting70b();
    for (auto _ : state) {
        const MemoryReport r = estimate(s);
        const StepTime t = stepTime(s, r);
        benchmark::DoNotOptimize(t.stepSeconds);
    }
}
BENCHMARK(BM_EstimateAndStepTime);

/// stepTime() alone on a report computed once.
void BM_StepTimeOnly(benchmark::State &state)
{
    const Scenario s = fitting70b();
    const MemoryReport r = estimate(s);
    for (auto _ : state) {
        const StepTime t = stepTime(s, r);
        benchmark::DoNotOptimize(t.stepSeconds);
    }
}
BENCHMARK(BM_StepTimeOnly);

} // namespace

BENCHMARK_MAIN();
