// The planner's speed (core/planner.h): candidates evaluated per second and the
// whole search for Llama 3 70B on 64 H100s. Run build/tests/bench/bench_planner.
#include "catalog.h"
#include "estimate.h"
#include "planner.h"
#include "steptime.h"

#include <benchmark/benchmark.h>

using namespace shardscope;

namespace {

PlanRequest llama70bOn64()
{
    const Catalog &c = Catalog::builtIn();
    PlanRequest q;
    q.base.model = *c.model("llama3-70b");
    q.base.recipe = *c.recipe("mixed-adam");
    q.base.gpu = *c.gpu("h100-sxm-80gb");
    q.base.training.sequenceLength = 8192;
    q.minGpus = q.maxGpus = 64;
    return q;
}

/// The whole default search space at 64 GPUs (what `shardscope plan --model llama3-70b
/// --gpus 64 --seq 8192` searches).
void BM_PlanLlama70bOn64(benchmark::State &state)
{
    PlanRequest q = llama70bOn64();
    q.prune = state.range(0) != 0;
    PlanResult r;
    for (auto _ : state) {
        r = plan(q);
        benchmark::DoNotOptimize(r.fitting.data());
    }
    state.counters["evaluated"] = double(r.candidatesEvaluated);
    state.counters["pruned"] = double(r.candidatesPruned);
    state.counters["fitting"] = double(r.fitting.size());
    state.counters["candidates_per_s"] =
        benchmark::Counter(double(r.candidatesEvaluated + r.candidatesPruned),
                           benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PlanLlama70bOn64)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

/// One candidate: estimate() plus stepTime() on a fitting 70B layout.
void BM_EstimateAndStepTime(benchmark::State &state)
{
    Scenario s = llama70bOn64().base;
    s.layout.gpus = 64;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 2;
    s.layout.zeroStage = ZeroStage::Zero1;
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
    Scenario s = llama70bOn64().base;
    s.layout.gpus = 64;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 2;
    s.layout.zeroStage = ZeroStage::Zero1;
    const MemoryReport r = estimate(s);
    for (auto _ : state) {
        const StepTime t = stepTime(s, r);
        benchmark::DoNotOptimize(t.stepSeconds);
    }
}
BENCHMARK(BM_StepTimeOnly);

} // namespace

BENCHMARK_MAIN();
