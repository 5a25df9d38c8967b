// Engine throughput and slider-to-replot latency (docs/performance.md: one 60 Hz frame, 16 ms).
// Run: QT_QPA_PLATFORM=offscreen build/tests/bench/bench_shardscope
//      --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
// or `cmake --build build --target bench` for docs/performance.md's figures in one table
// (bench_shardscope --table).
#include "estimate.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "schedule.h"
#include "steptime.h"

#include <QApplication>
#include <QProcess>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdio>
#include <map>
#include <qcustomplot.h>
#include <string>
#include <string_view>
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

/// The planner's hot path for Llama 3 70B on state.range(0) GPUs: the model prepared
/// once (prepare()), each estimate written over the same report (estimate(prepared, s,
/// out)), as a planner sweeping layouts of one model, or the window's GPU-count slider,
/// runs it, then `then(s, report)`; the report is identical to estimate(s)
/// (tests/core/test_equivalence.cpp). items/s is evaluations per second.
template <typename Then> void preparedEstimates(benchmark::State &state, Then then)
{
    const Scenario s = seventyB(state.range(0));
    const PreparedModel prepared = prepare(s.model);
    MemoryReport r;
    for (auto _ : state) {
        estimate(prepared, s, r);
        then(s, r);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

/// One engine report on the prepared path, the same scenario every time: a re-estimate
/// whose activation settings are unchanged (a GPU-count slider, a strategy button), so
/// the engine reuses its last activation figures; BM_EstimateNewActivations is the
/// figure when it cannot.
void BM_Estimate(benchmark::State &state)
{
    preparedEstimates(state,
                      [](const Scenario &, MemoryReport &r) { benchmark::DoNotOptimize(r); });
}
BENCHMARK(BM_Estimate)->Arg(8)->Arg(1024)->Arg(16384);

/// The prepared path with tensor and pipeline parallelism: Llama 3 70B at t 8, p 4 (four
/// groups, one a stage) on state.range(0) GPUs, ZeRO-1, the same scenario each time.
/// BM_Estimate's pure data parallelism takes the engine's one-group path
/// (core/estimate.cpp FillPath::DataParallel); this one the model-parallel path.
void BM_EstimateTensorPipeline(benchmark::State &state)
{
    Scenario s = seventyB(state.range(0));
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    s.layout.zeroStage = ZeroStage::Zero1;
    const PreparedModel prepared = prepare(s.model);
    MemoryReport r;
    for (auto _ : state) {
        estimate(prepared, s, r);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateTensorPipeline)->Arg(64)->Arg(1024)->Arg(16384);

/// The prepared path when every estimate changes the activation settings (the
/// micro-batch size alternates between 1 and 2), as the planner's innermost loops over
/// micro-batch sizes and recomputation run it: the engine's memo of activation
/// figures (core/estimate.cpp) never applies, so this is the figure without it.
void BM_EstimateNewActivations(benchmark::State &state)
{
    Scenario s = seventyB(state.range(0));
    const PreparedModel prepared = prepare(s.model);
    MemoryReport r;
    std::int64_t step = 0;
    for (auto _ : state) {
        s.training.microBatchSize = 1 + (++step & 1);
        estimate(prepared, s, r);
        benchmark::DoNotOptimize(r);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateNewActivations)->Arg(8)->Arg(1024)->Arg(16384);

/// One scenario evaluation with the time model, as the planner makes it for every
/// fitting candidate: the prepared estimate, then stepTime(s, report) (the planner issue
/// asks for at least 2 M per second per core).
void BM_EstimateAndStepTime(benchmark::State &state)
{
    preparedEstimates(state, [](const Scenario &s, const MemoryReport &r) {
        const StepTime t = stepTime(s, r);
        benchmark::DoNotOptimize(t.stepSeconds);
    });
}
BENCHMARK(BM_EstimateAndStepTime)->Arg(8)->Arg(1024)->Arg(16384);

/// The whole call, estimate(s): the model prepared again and a fresh report every
/// time (what a model-size slider step costs); the figure BM_Estimate measured before
/// the prepared path existed.
void BM_EstimateCold(benchmark::State &state)
{
    const Scenario s = seventyB(state.range(0));
    for (auto _ : state) {
        MemoryReport r = estimate(s);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimateCold)->Arg(8)->Arg(1024)->Arg(16384);

/// One pipeline schedule at p 16, m 64 (the timeline's animation size, docs/performance.md).
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

/// One drag step: the slider's new value through the Session, the engine and every
/// view's data (setValue returns when they are done), then the queued replot and the
/// repaint (processEvents). Out of line so a profiler can count one step alone
/// (`valgrind --tool=callgrind --toggle-collect='*dragStep*'`). Returns the time
/// setValue returned.
[[gnu::noinline]] std::chrono::steady_clock::time_point dragStep(QSlider *slider, int value)
{
    slider->setValue(value);
    const auto set = std::chrono::steady_clock::now();
    QApplication::processEvents(); // runs the queued replot and the repaint
    return set;
}

/// A model-size slider drag at a fixed GPU count: each step through the Session, the
/// engine, the chart update and the finished (queued) replot and repaint, in a 1920 x
/// 1080 window, in presentation mode when `presentation`. The slider is held down, as
/// the mouse holds it (QAbstractSlider::setSliderDown), so what waits for the release
/// (the model description, ui/panels/headlinecontrols.cpp) waits here too.
void sliderToReplot(benchmark::State &state, bool presentation)
{
    MainWindow w;
    w.resize(1920, 1080);
    w.setPresentationMode(presentation);
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
    w.modelSlider()->setSliderDown(true);
    int step = 0;
    // Each drag step's own wall time, so a slow frame shows in the percentiles instead
    // of hiding in a mean.
    std::vector<double> stepMs;
    stepMs.reserve(4096);
    // Where a step's milliseconds go (medians): the slider's signal through the Session,
    // the engine and every view's data (setValue returns when they are done), the memory
    // chart's replot (QCustomPlot::replotTime), and the rest of processEvents: repaint,
    // backing-store flush and other queued work.
    std::vector<double> setMs, replotMs, restMs;
    setMs.reserve(4096);
    replotMs.reserve(4096);
    restMs.reserve(4096);
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::duration d) {
        return std::chrono::duration<double, std::milli>(d).count();
    };
    for (auto _ : state) {
        const int replotsBefore = replots;
        const auto start = Clock::now();
        const auto set = dragStep(w.modelSlider(), base + 2 * (++step % 2));
        const auto end = Clock::now();
        stepMs.push_back(ms(end - start));
        setMs.push_back(ms(set - start));
        const double replot = replots > replotsBefore ? w.chart()->plot()->replotTime() : 0.0;
        replotMs.push_back(replot);
        restMs.push_back(std::max(0.0, ms(end - set) - replot));
    }
    w.modelSlider()->setSliderDown(false);
    auto percentileOf = [](std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[std::size_t(q * double(v.size() - 1))];
    };
    std::sort(stepMs.begin(), stepMs.end());
    auto percentile = [&](double q) { return percentileOf(stepMs, q); };
    state.counters["p50_ms"] = percentile(0.50);
    state.counters["p95_ms"] = percentile(0.95);
    state.counters["max_ms"] = stepMs.empty() ? 0.0 : stepMs.back();
    state.counters["set_p50_ms"] = percentileOf(setMs, 0.50);
    state.counters["replot_p50_ms"] = percentileOf(replotMs, 0.50);
    state.counters["rest_p50_ms"] = percentileOf(restMs, 0.50);
    if (replots < state.iterations())
        state.SkipWithError(QStringLiteral("only %1 replots for %2 slider changes")
                                .arg(replots)
                                .arg(qint64(state.iterations()))
                                .toUtf8()
                                .constData());
    state.counters["replots"] = replots;
}

void BM_SliderToReplot(benchmark::State &state)
{
    sliderToReplot(state, false);
}

/// The same drag in presentation mode (a projector: large type, thick lines, 1920 x
/// 1080).
void BM_SliderToReplotPresentation(benchmark::State &state)
{
    sliderToReplot(state, true);
}
/// The GPU counts every drag is measured at (docs/performance.md): one bar, eight labelled bars,
/// the most individual bars (16), the first grouped count (17), and two cluster sizes.
void dragCounts(benchmark::internal::Benchmark *b)
{
    for (const std::int64_t gpus : {1, 8, 16, 17, 1024, 16384})
        b->Arg(gpus);
    b->Unit(benchmark::kMillisecond);
}
BENCHMARK(BM_SliderToReplotPresentation)->Apply(dragCounts);
BENCHMARK(BM_SliderToReplot)->Apply(dragCounts);

} // namespace

/// The console reporter, keeping each run's median aggregate by name (the --table mode).
class TableReporter : public benchmark::ConsoleReporter
{
public:
    void ReportRuns(const std::vector<Run> &runs) override
    {
        ConsoleReporter::ReportRuns(runs);
        for (const Run &run : runs)
            if (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median")
                medians[run.run_name.str()] = run;
    }
    std::map<std::string, Run> medians;
};

/// Median wall time of `runs` runs of `program` with `arguments`, milliseconds (-1 when
/// it does not start or fails).
double processMs(const QString &program, const QStringList &arguments, int runs)
{
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        QProcess process;
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        const auto start = std::chrono::steady_clock::now();
        process.start(program, arguments);
        if (!process.waitForFinished(60'000) || process.exitStatus() != QProcess::NormalExit ||
            process.exitCode() != 0)
            return -1;
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

/// `bench` (cmake --build build --target bench): docs/performance.md's figures in one table, each
/// against its goal: the drag's p95 at every count in both modes, the engine's estimates
/// per second, a `report` process and launch to the window's first paint (medians of
/// three repetitions; of 11 and 5 processes). docs/performance.md keeps their history.
int printTable(int argc, char **argv)
{
    // The table's defaults first, so that flags given after --table override them.
    std::string filter = "--benchmark_filter=^(BM_Estimate/|BM_SliderToReplot)";
    std::string repetitions = "--benchmark_repetitions=3";
    std::string aggregates = "--benchmark_report_aggregates_only=true";
    std::vector<char *> args{argv[0], filter.data(), repetitions.data(), aggregates.data()};
    args.insert(args.end(), argv + 1, argv + argc);
    int count = int(args.size());
    benchmark::Initialize(&count, args.data());
    TableReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();

    std::printf("\n| figure | goal | measured | met |\n|---|---|---|---|\n");
    const auto row = [](const std::string &figure, const char *goal, double value, const char *unit,
                        bool met) {
        std::printf("| %s | %s | %.2f %s | %s |\n", figure.c_str(), goal, value, unit,
                    met ? "yes" : "NO");
    };
    for (const char *mode : {"BM_SliderToReplot", "BM_SliderToReplotPresentation"})
        for (const int gpus : {1, 8, 16, 17, 1024, 16384}) {
            const auto it = reporter.medians.find(std::string(mode) + "/" + std::to_string(gpus));
            if (it == reporter.medians.end())
                continue;
            const double p95 = it->second.counters.at("p95_ms");
            row(std::string("drag step p95, ") + std::to_string(gpus) +
                    (gpus == 1 ? " GPU" : " GPUs") +
                    (std::string(mode).ends_with("Presentation") ? ", presentation" : ""),
                "<= 8 ms", p95, "ms", p95 <= 8.0);
        }
    for (const int gpus : {8, 1024, 16384}) {
        const auto it = reporter.medians.find("BM_Estimate/" + std::to_string(gpus));
        if (it == reporter.medians.end())
            continue;
        const double perSecond = it->second.counters.at("items_per_second") / 1e6;
        row("engine estimates per second, " + std::to_string(gpus) + " GPUs (BM_Estimate)",
            ">= 10 M/s", perSecond, "M/s", perSecond >= 10.0);
    }
    const QString report = QStringLiteral(SHARDSCOPE_EXE);
    const double reportMs =
        processMs(report, {"report", "--model", "llama3-70b", "--gpus", "64"}, 11);
    row("`shardscope report` process", "<= 15 ms", reportMs, "ms",
        reportMs >= 0 && reportMs <= 15.0);
    const double firstFrameMs =
        processMs(QStringLiteral(SHARDSCOPE_GUI_EXE), {"--exit-after-first-frame"}, 5);
    row("launch to the window's first paint", "<= 300 ms", firstFrameMs, "ms",
        firstFrameMs >= 0 && firstFrameMs <= 300.0);
    return 0;
}

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    if (argc > 1 && std::string_view(argv[1]) == "--table") {
        argv[1] = argv[0];
        return printTable(argc - 1, argv + 1);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
