// Engine throughput and slider-to-replot latency (issue 2: one 60 Hz frame, 16 ms).
// Run: QT_QPA_PLATFORM=offscreen build/tests/bench/bench_shardscope
//      --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include "estimate.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "schedule.h"

#include <QApplication>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <qcustomplot.h>
#include <vector>

using namespace shardscope;

namespace {

Scenario seventyB(std::int64_t gpus)
{
    Scenario s;
    s.model = *Catalog::builtIn().model("llama3-70b");
    s.recipe = *Catalog::builtIn().recipe("mixed-adam");
    s.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    s.layout.gpus = gpus;
    s.layout.zeroStage = ZeroStage::Zero3;
    return s;
}

/// One engine report for Llama 3 70B; items/s is reports per second.
void BM_Estimate(benchmark::State &state)
{
    const Scenario s = seventyB(state.range(0));
    for (auto _ : state) {
        MemoryReport r = estimate(s);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Estimate)->Arg(8)->Arg(1024)->Arg(16384);

/// One pipeline schedule at p 16, m 64 (the timeline's animation size in issue 4).
void BM_Schedule(benchmark::State &state)
{
    ScheduleParams p;
    p.schedule = PipelineSchedule(state.range(0));
    p.stages = 16;
    p.microBatches = 64;
    p.chunks = p.schedule == PipelineSchedule::Interleaved1F1B ? 2 : 1;
    for (auto _ : state) {
        Timeline t = schedule(p);
        benchmark::DoNotOptimize(t);
    }
}
BENCHMARK(BM_Schedule)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

/// A model-size slider step at a fixed GPU count, through the ScenarioModel,
/// the engine, the chart update and the finished (queued) replot and repaint.
void BM_SliderToReplot(benchmark::State &state)
{
    MainWindow w;
    w.resize(1920, 1080);
    w.show();
    QApplication::processEvents();
    w.gpuSpin()->setValue(int(state.range(0)));
    QApplication::processEvents();
    int replots = 0;
    QObject::connect(w.chart()->plot(), &QCustomPlot::afterReplot, [&replots] { ++replots; });
    // Alternate between two sizes near 70B so every step is a real change.
    const int base = MainWindow::modelSliderPosition(70'000'000'000);
    w.modelSlider()->setValue(base);
    QApplication::processEvents();
    replots = 0;
    int step = 0;
    // Each drag step's own wall time, so a slow frame shows in the percentiles instead
    // of hiding in a mean.
    std::vector<double> stepMs;
    stepMs.reserve(4096);
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        w.modelSlider()->setValue(base + 2 * (++step % 2));
        QApplication::processEvents(); // runs the queued replot and the repaint
        stepMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    std::sort(stepMs.begin(), stepMs.end());
    auto percentile = [&stepMs](double q) {
        return stepMs.empty() ? 0.0 : stepMs[std::size_t(q * double(stepMs.size() - 1))];
    };
    state.counters["p50_ms"] = percentile(0.50);
    state.counters["p95_ms"] = percentile(0.95);
    state.counters["max_ms"] = stepMs.empty() ? 0.0 : stepMs.back();
    if (replots < state.iterations())
        state.SkipWithError(QStringLiteral("only %1 replots for %2 slider changes")
                                .arg(replots)
                                .arg(qint64(state.iterations()))
                                .toUtf8()
                                .constData());
    state.counters["replots"] = replots;
}
BENCHMARK(BM_SliderToReplot)
    ->Arg(1)
    ->Arg(8)
    ->Arg(16)
    ->Arg(17)
    ->Arg(1024)
    ->Arg(16384)
    ->Unit(benchmark::kMillisecond);

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
