// The pipeline tab's animation (docs/performance.md): one 60 Hz frame must stay well inside 16.7
// ms. Run: QT_QPA_PLATFORM=offscreen build/tests/bench/bench_timeline
//      --benchmark_repetitions=10 --benchmark_report_aggregates_only=true
#include "session.h"
#include "stagememorychart.h"
#include "timelinepanel.h"
#include "timelineview.h"

#include <QApplication>
#include <benchmark/benchmark.h>
#include <memory>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

/// Llama 3 70B, t 8, p 16 (5 layers a stage), d 1, m 64, selective recompute.
void setUp(Session &model, PipelineSchedule schedule)
{
    model.edit([schedule](Scenario &s) {
        s.layout.tensorParallel = 8;
        s.layout.pipelineParallel = 16;
        s.layout.gpus = 128;
        s.training.schedule = schedule;
        s.training.chunks = 1;
        s.training.microBatches = 64;
        s.training.recompute = Recompute::Selective;
    });
}

/// A Session set up by setUp() and its pipeline tab, shown at 1600 x 900 with its first
/// paint done.
struct ShownPanel
{
    Session model{Catalog::builtIn()};
    std::unique_ptr<TimelinePanel> panel;

    explicit ShownPanel(PipelineSchedule schedule)
    {
        setUp(model, schedule);
        panel = std::make_unique<TimelinePanel>(&model);
        panel->resize(1600, 900);
        panel->show();
        QApplication::processEvents();
    }
};

/// Counts paint events of both views' plots, to check every frame really redrew them.
class PaintCounter : public QObject
{
public:
    int timeline = 0;
    int memory = 0;
    explicit PaintCounter(TimelinePanel &panel)
        : m_timeline(panel.timelineView()->plot()), m_memory(panel.memoryChart()->plot())
    {
        m_timeline->installEventFilter(this);
        m_memory->installEventFilter(this);
    }
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint) {
            timeline += watched == m_timeline ? 1 : 0;
            memory += watched == m_memory ? 1 : 0;
        }
        return false;
    }

private:
    QObject *m_timeline;
    QObject *m_memory;
};

/// One animation frame at 1x: advance the playhead by 1/60 s (which redraws the playhead
/// layers of the timeline and the stage memory chart), then the repaint of both
/// (processEvents). Arg:
/// the PipelineSchedule (1 = 1F1B: 2048 blocks; 3 = ZB-H1: 3072 blocks), p 16, m 64.
void BM_AnimationFrame(benchmark::State &state)
{
    ShownPanel shown{PipelineSchedule(state.range(0))};
    TimelinePanel &panel = *shown.panel;
    if (!panel.errorText().isEmpty()) {
        state.SkipWithError(panel.errorText().toUtf8().constData());
        return;
    }
    panel.setPlayhead(0);
    QApplication::processEvents();
    PaintCounter paints(panel);
    for (auto _ : state) {
        if (panel.playhead() >= panel.timeline().makespan)
            panel.setPlayhead(0);
        panel.advance(1.0 / 60);
        QApplication::processEvents();
    }
    if (paints.timeline < state.iterations() || paints.memory < state.iterations())
        state.SkipWithError("a frame did not repaint both views");
    state.counters["blocks"] = panel.timelineView()->blockCount();
}
BENCHMARK(BM_AnimationFrame)
    ->Arg(int(PipelineSchedule::OneFOneB))
    ->Arg(int(PipelineSchedule::ZeroBubbleH1))
    ->Unit(benchmark::kMillisecond);

/// Rebuilding after a change of m (64 <-> 63) through the Session: the estimate,
/// the schedule, both views' new data and the finished replot and repaint.
void BM_RebuildAfterMicroBatches(benchmark::State &state)
{
    ShownPanel shown{PipelineSchedule(state.range(0))};
    Session &model = shown.model;
    PaintCounter paints(*shown.panel);
    int step = 0;
    for (auto _ : state) {
        const int m = 64 - (++step % 2);
        model.edit([m](Scenario &s) { s.training.microBatches = m; });
        QApplication::processEvents();
    }
    if (paints.timeline < state.iterations() || paints.memory < state.iterations())
        state.SkipWithError("a change did not repaint both views");
}
BENCHMARK(BM_RebuildAfterMicroBatches)
    ->Arg(int(PipelineSchedule::OneFOneB))
    ->Arg(int(PipelineSchedule::ZeroBubbleH1))
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
