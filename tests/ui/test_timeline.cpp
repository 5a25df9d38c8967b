// The pipeline tab (docs/pipeline.md): the Gantt view draws exactly the engine's Timeline, the
// playhead hides what has not started, the bubble figures and their formulas, the controls
// share p/m/v/schedule with the Session, and each stage's memory over the step.
// Set SHARDSCOPE_SCREENSHOT_DIR to also save the four panels of docs/screenshots/.
#include "catalog.h"
#include "chartscenarios.h"
#include "session.h"
#include "stagememorychart.h"
#include "timelinepanel.h"
#include "timelineview.h"

#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTest>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

Timeline gpipe44()
{
    ScheduleParams p;
    p.schedule = PipelineSchedule::GPipe;
    p.stages = 4;
    p.microBatches = 4;
    return schedule(p);
}

/// Sets the schedule controls the way a user would.
void setControls(TimelinePanel &panel, PipelineSchedule s, int p, int m, int v = 0)
{
    panel.scheduleCombo()->setCurrentIndex(panel.scheduleCombo()->findData(int(s)));
    panel.stagesSpin()->setValue(p);
    panel.microBatchesSpin()->setValue(m);
    if (v > 0)
        panel.chunksSpin()->setValue(v);
}

/// First time the stage's in-flight step function reaches its peak.
double peakMoment(const StageTimeline &st)
{
    for (const auto &[time, count] : st.inFlight)
        if (count == st.peakInFlight)
            return time;
    return -1;
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void blocksMatchTheTimeline();
    void playheadHidesUnstartedBlocks();
    void bubbleFiguresAndFormulas();
    void controlsWriteTheModelAndShareP();
    void stageMemoryAtPeakInFlight();
    void interleavedMemoryRelation();
    void invalidSettingsShowTheEngineMessage();
    void measuredTraceOverTheStages();
    void playbackStepsAndKeys();
    void presentationFitsA720pTab();
    void screenshots();
};

void TestTimeline::blocksMatchTheTimeline()
{
    TimelineView view;
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const Timeline t = gpipe44();
    view.setTimeline(t);
    view.plot()->replot();

    // 4 stages x (4 F + 4 B).
    QCOMPARE(view.blockCount(), 32);
    QCOMPARE(view.playhead(), 21.0); // (m + p - 1)(F + B) = 7 x 3: the whole step shows
    QCOMPARE(view.startedBlockCount(), 32);
    const QCPAxis *x = view.plot()->xAxis;
    const QCPAxis *y = view.plot()->yAxis;
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(view.blockCount(i), 8);
        double lastLeft = -1;
        for (int k = 0; k < 8; ++k) {
            const PipelineOp &op = t.stages[i].ops[k];
            const QRectF r = view.blockRect(i, k);
            QCOMPARE(r.left(), x->coordToPixel(op.start));
            QCOMPARE(r.right(), x->coordToPixel(op.end));
            QCOMPARE(r.center().y(), y->coordToPixel(i));
            QVERIFY(r.left() > lastLeft); // execution order left to right
            lastLeft = r.left();
            QCOMPARE(view.blockColor(i, k), TimelineView::operationColor(op.kind, op.microBatch));
            QCOMPARE(view.blockLabel(i, k), QString::number(op.microBatch + 1));
        }
    }
    // Stage 0 is the top row.
    QVERIFY(view.blockRect(0, 0).bottom() < view.blockRect(1, 0).top());
    // Hand timing: stage 3's forwards run 3..7, then the backward of micro-batch 4 (index 3,
    // GPipe runs backwards last first) from 7 to 9.
    QCOMPARE(view.blockRect(3, 0).left(), x->coordToPixel(3));
    QCOMPARE(view.blockRect(3, 4).left(), x->coordToPixel(7));
    QCOMPARE(view.blockRect(3, 4).right(), x->coordToPixel(9));
    QCOMPARE(view.blockLabel(3, 4), QStringLiteral("4"));
    // F is lighter than B of the same micro-batch.
    QVERIFY(view.blockColor(3, 3).lightness() > view.blockColor(3, 4).lightness());

    // The pixels drawn are the block colours (inside the border, clear of the label).
    const QImage img = view.plot()->toPixmap().toImage();
    for (auto [stage, index] : {std::pair{0, 0}, std::pair{3, 4}, std::pair{2, 7}}) {
        const QRectF r = view.blockRect(stage, index);
        const QColor drawn = img.pixelColor(int(r.left()) + 3, int(r.top()) + 3);
        QCOMPARE(drawn.rgb(), view.blockColor(stage, index).rgb());
    }
}

void TestTimeline::playheadHidesUnstartedBlocks()
{
    TimelineView view;
    view.resize(1200, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setTimeline(gpipe44());
    view.setPlayhead(7.5);
    view.plot()->replot();
    const QCPAxis *x = view.plot()->xAxis;

    // Started by 7.5: every stage's 4 forwards (the last ends at 7 on stage 3), and stage 3's
    // first backward (7 to 9); stage 2's first backward starts at 9.
    QCOMPARE(view.startedBlockCount(), 17);
    QVERIFY(view.filledRect(2, 4).isEmpty());
    const QRectF running = view.filledRect(3, 4);
    QCOMPARE(running.left(), x->coordToPixel(7));
    QCOMPARE(running.right(), x->coordToPixel(7.5));
    QCOMPARE(view.filledRect(3, 3), view.blockRect(3, 3)); // finished: whole block

    const QImage img = view.plot()->toPixmap().toImage();
    const QRectF unstarted = view.blockRect(2, 4);
    QVERIFY(img.pixelColor(int(unstarted.left()) + 4, int(unstarted.top()) + 4).rgb() !=
            view.blockColor(2, 4).rgb());
    QCOMPARE(img.pixelColor(int(running.left()) + 3, int(running.top()) + 3).rgb(),
             view.blockColor(3, 4).rgb());
    // Just right of the playhead the running block is not filled yet.
    const int beyond = int(x->coordToPixel(8.5));
    QVERIFY(img.pixelColor(beyond, int(running.center().y())).rgb() != view.blockColor(3, 4).rgb());

    view.setPlayhead(0);
    QCOMPARE(view.startedBlockCount(), 0);
    view.setPlayhead(-3); // clamped
    QCOMPARE(view.playhead(), 0.0);
    view.setPlayhead(100);
    QCOMPARE(view.playhead(), 21.0);
}

void TestTimeline::bubbleFiguresAndFormulas()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);

    // GPipe p 4, m 4: (p - 1)/(m + p - 1) = 3/7 = 42.86% of the step; (p - 1)/m = 75% over
    // ideal (docs/pipeline.md's table: (p - 1) / (m + p - 1) = 3 / 7 = 42.9% at p = m = 4).
    setControls(panel, PipelineSchedule::GPipe, 4, 4);
    QCOMPARE(panel.bubbleText(), QStringLiteral("Bubble 42.9% of the step"));
    QVERIFY(panel.formulaText().contains(QStringLiteral("(p − 1)/(m + p − 1) = 3/7")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("75.0% over ideal compute")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("(p − 1)/m = 3/4")));

    // 1F1B p 4, m 32: 3/35 = 8.57%; 3/32 = 9.375% over ideal.
    setControls(panel, PipelineSchedule::OneFOneB, 4, 32);
    QCOMPARE(panel.bubbleText(), QStringLiteral("Bubble 8.6% of the step"));
    QVERIFY(panel.formulaText().contains(QStringLiteral("= 3/35")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("= 3/32")));

    // Interleaved p 4, m 8, v 2: idle 4.5 of a 28.5 step = 3/19 = 15.79%; 3/16 over ideal.
    setControls(panel, PipelineSchedule::Interleaved1F1B, 4, 8, 2);
    QCOMPARE(panel.timeline().makespan, 28.5);
    QCOMPARE(panel.bubbleText(), QStringLiteral("Bubble 15.8% of the step"));
    QVERIFY(panel.formulaText().contains(QStringLiteral("(p − 1)/(v·m + p − 1) = 3/19")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("(p − 1)/(v·m) = 3/16")));

    // ZB-H1 p 4, m 8 with F = B = W = 1: idle 3 per stage of a 27 step = 3/27 = 11.1%;
    // 3/24 = 12.5% over ideal, Qi et al.'s (p - 1)/3m.
    setControls(panel, PipelineSchedule::ZeroBubbleH1, 4, 8);
    QCOMPARE(panel.timeline().makespan, 27.0);
    QCOMPARE(panel.bubbleText(), QStringLiteral("Bubble 11.1% of the step"));
    QVERIFY(panel.formulaText().contains(QStringLiteral("(p − 1)/(3m) = 3/24")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("12.5% over ideal")));
    QVERIFY(panel.formulaText().contains(QStringLiteral("Qi et al. 2023")));

    // ZB-H1 with m < p: the closed form does not hold; the measured figure is shown as such.
    setControls(panel, PipelineSchedule::ZeroBubbleH1, 4, 2);
    const Timeline &t = panel.timeline();
    QVERIFY(std::abs(t.bubbleFraction - 3.0 / 9) > 1e-6);
    QCOMPARE(panel.bubbleText(),
             QStringLiteral("Bubble %1% of the step").arg(t.bubbleFraction * 100, 0, 'f', 1));
    QVERIFY(panel.formulaText().contains(QStringLiteral("measured")));
}

void TestTimeline::controlsWriteTheModelAndShareP()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    const Layout before = model.scenario().layout; // 64 GPUs, t = c = p = 1: d = 64
    QCOMPARE(before.gpus, std::int64_t(64));

    panel.stagesSpin()->setValue(4);
    QCOMPARE(model.scenario().layout.pipelineParallel, 4);
    QCOMPARE(model.scenario().layout.gpus, std::int64_t(256)); // d x t x c = 64 kept: 64 x 4
    QCOMPARE(model.scenario().layout.dataParallel(), std::int64_t(64));
    QCOMPARE(int(panel.timeline().stages.size()), 4);
    QCOMPARE(int(model.report().groups.size()), 4);

    panel.microBatchesSpin()->setValue(16);
    QCOMPARE(model.scenario().training.microBatches, std::int64_t(16));
    QVERIFY(!panel.chunksSpin()->isEnabled());

    panel.scheduleCombo()->setCurrentIndex(
        panel.scheduleCombo()->findData(int(PipelineSchedule::Interleaved1F1B)));
    QCOMPARE(model.scenario().training.schedule, PipelineSchedule::Interleaved1F1B);
    QCOMPARE(model.scenario().training.chunks, 2); // interleaving needs v >= 2
    QVERIFY(panel.chunksSpin()->isEnabled());
    panel.chunksSpin()->setValue(4);
    QCOMPARE(model.scenario().training.chunks, 4);

    panel.scheduleCombo()->setCurrentIndex(
        panel.scheduleCombo()->findData(int(PipelineSchedule::ZeroBubbleH1)));
    QCOMPARE(model.scenario().training.schedule, PipelineSchedule::ZeroBubbleH1);
    QCOMPARE(model.scenario().training.chunks, 1);
    QVERIFY(!panel.chunksSpin()->isEnabled());
    panel.scheduleCombo()->setCurrentIndex(
        panel.scheduleCombo()->findData(int(PipelineSchedule::Interleaved1F1B)));
    QCOMPARE(model.scenario().training.chunks, 4); // the last interleaved v comes back

    // p is one setting: a change made elsewhere (the memory view) reaches the panel.
    model.edit([](Scenario &s) {
        s.layout.pipelineParallel = 8;
        s.layout.gpus = 512;
        s.training.schedule = PipelineSchedule::OneFOneB;
        s.training.chunks = 1;
        s.training.microBatches = 24;
    });
    QCOMPARE(panel.stagesSpin()->value(), 8);
    QCOMPARE(panel.microBatchesSpin()->value(), 24);
    QCOMPARE(panel.scheduleCombo()->currentData().toInt(), int(PipelineSchedule::OneFOneB));
    QCOMPARE(int(panel.timeline().stages.size()), 8);
    QCOMPARE(panel.timelineView()->blockCount(), 8 * 24 * 2);
    QCOMPARE(panel.memoryChart()->stageCount(), 8);
}

void TestTimeline::stageMemoryAtPeakInFlight()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    // Llama 3 70B, t 8, p 4, d 2 (64 GPUs), 1F1B, selective recompute, m 8.
    llama70bFourStages(model, PipelineSchedule::OneFOneB, 1);
    const MemoryReport &r = model.report();
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(r.groups.size(), std::size_t(4));
    const StageMemoryChart *chart = panel.memoryChart();
    QCOMPARE(chart->stageCount(), 4);
    QCOMPARE(chart->capacityValue(), 85.520809984); // the driver's 81,559 MiB
    const int p = 4;
    for (int i = 0; i < p; ++i) {
        const GpuGroup &g = r.groups[i];
        const StageTimeline &st = panel.timeline().stages[i];
        QCOMPARE(st.peakInFlight, p - i); // 1F1B: stage i holds p - i micro-batches
        QCOMPARE(g.peakInFlight, p - i);
        QVERIFY(g.activationBytesPerMicroBatch() > 0);
        const double when = peakMoment(st);
        QVERIFY(when >= 0);
        // Model states + buffers (+ working set) + the p - i micro-batches in flight.
        const std::int64_t expected = g.totalBytes() - g.activations.layers -
                                      g.activations.embedding - g.activations.output +
                                      std::int64_t(p - i) * g.activationBytesPerMicroBatch();
        QCOMPARE(chart->bytesAt(i, when), expected);
        // The relation: with v = 1 the peak is the report's stage total, working set and
        // fragmentation reserve included (both are counted at that peak).
        QCOMPARE(chart->bytesAt(i, when), g.totalBytes());
        QVERIFY(g.activations.workingSet > 0);
        // After the last B nothing is in flight: p - i micro-batches less.
        const double end = panel.timeline().makespan;
        QCOMPARE(chart->bytesAt(i, end) + std::int64_t(p - i) * g.activationBytesPerMicroBatch(),
                 g.totalBytes());
        QCOMPARE(chart->valueAt(i, when), double(g.totalBytes()) / 1e9);
        // The line as drawn has that value at that key, and the dot follows the playhead.
        bool found = false;
        for (const auto &[key, value] : chart->line(i))
            if (key == when) {
                QCOMPARE(value, double(expected) / 1e9);
                found = true;
            }
        QVERIFY(found);
        panel.setPlayhead(when);
        QCOMPARE(chart->markerValue(i), double(expected) / 1e9);
    }
    // In GiB the same bytes / 2^30.
    model.setUnit(ByteUnit::GiB);
    const double when0 = peakMoment(panel.timeline().stages[0]);
    QCOMPARE(chart->valueAt(0, when0), double(r.groups[0].totalBytes()) / 1073741824.0);
}

void TestTimeline::measuredTraceOverTheStages()
{
    // A measured run's trace is drawn over the stage lines against its own time axis on
    // top (seconds of the recording), sharing the memory axis; closing it removes it.
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    panel.resize(1280, 720);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    llama70bFourStages(model, PipelineSchedule::OneFOneB, 1);
    const StageMemoryChart *chart = panel.memoryChart();
    QCOMPARE(chart->stageCount(), 4);
    QVERIFY(chart->measuredLine().empty());
    QVERIFY(!chart->plot()->xAxis2->visible());
    panel.grab();
    const int stageEntries = chart->plot()->legend->itemCount();

    Measurement m;
    m.source = MeasurementSource::Snapshot;
    m.traceGpu = 3;
    m.trace = {{0.0, 40'000'000'000}, {1.5, 90'000'000'000}, {3.0, 50'000'000'000}};
    model.setMeasurement(m, QStringLiteral("run.pickle"));
    panel.grab(); // the panel refreshes lazily, on its next paint
    const std::vector<std::pair<double, double>> expected = {{0.0, 40.0}, {1.5, 90.0}, {3.0, 50.0}};
    QCOMPARE(chart->measuredLine(), expected);
    QCustomPlot *plot = const_cast<QCustomPlot *>(chart->plot());
    QVERIFY(plot->xAxis2->visible());
    QCOMPARE(plot->xAxis2->range().lower, 0.0);
    QCOMPARE(plot->xAxis2->range().upper, 3.03); // 1 % to spare, as the step's axis
    // The 90 GB measured peak is above the card's 85.5 GB usable and every stage: the memory axis
    // reaches 90 x 1.25.
    QCOMPARE(plot->yAxis->range().upper, 112.5);
    // Named on its own axis, in its colour; the legend keeps naming the stages.
    plot->replot(); // the title fits at the layout (fitText())
    QCOMPARE(plot->legend->itemCount(), stageEntries);
    QCOMPARE(plot->xAxis2->label(), QStringLiteral("Measured allocated, GPU 3, s"));
    QCOMPARE(plot->xAxis2->labelColor(), measuredColor(false));

    model.setMeasurement(std::nullopt);
    panel.grab();
    QVERIFY(chart->measuredLine().empty());
    QVERIFY(!plot->xAxis2->visible());
    QCOMPARE(plot->legend->itemCount(), stageEntries);
    QVERIFY(plot->yAxis->range().upper < 112.5);
}

void TestTimeline::interleavedMemoryRelation()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    // The same layout, interleaved 1F1B with v 2.
    llama70bFourStages(model, PipelineSchedule::Interleaved1F1B, 2);
    const MemoryReport &r = model.report();
    QVERIFY2(r.valid(), r.error.c_str());
    const StageMemoryChart *chart = panel.memoryChart();
    for (int i = 0; i < 4; ++i) {
        const GpuGroup &g = r.groups[i];
        const StageTimeline &st = panel.timeline().stages[i];
        const int peak = st.peakInFlight; // 2 (p - i - 1) + (v - 1) p + 1 sets
        QCOMPARE(peak, 2 * (4 - i - 1) + 4 + 1);
        // The embedding lives in chunk 0 of stage 0 and the head in chunk v - 1 of stage 3:
        // the report counts their tensors for the micro-batches in flight in those chunks,
        // min(2 p, m) = 8 and 1, which the simulated schedule confirms.
        QCOMPARE(g.embeddingInFlight, i == 0 ? 8 : 0);
        QCOMPARE(st.peakEmbeddingInFlight, i == 0 ? 8 : 0);
        QCOMPARE(g.outputInFlight, i == 3 ? 1 : 0);
        QCOMPARE(st.peakHeadInFlight, i == 3 ? 1 : 0);
        // So the line at the stage's peak is the report's stage total, last stage included
        // (its fifth set is the head chunk's first forward), and never above it.
        QCOMPARE(chart->bytesAt(i, peakMoment(st)), g.totalBytes());
        for (const auto &[key, value] : chart->line(i))
            QVERIFY(value <= double(g.totalBytes()) / 1e9 * (1 + 1e-12));
        if (i == 3)
            QVERIFY(g.outputBytesPerMicroBatch > 0 && peak == 5);
    }
}

void TestTimeline::invalidSettingsShowTheEngineMessage()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    setControls(panel, PipelineSchedule::Interleaved1F1B, 4, 6, 2);
    QCOMPARE(panel.errorText(), QStringLiteral("Cannot schedule: interleaved 1F1B needs "
                                               "micro-batches (6) to be a multiple of stages (4)"));
    QCOMPARE(panel.timelineView()->blockCount(), 0);
    QCOMPARE(panel.memoryChart()->stageCount(), 0);
    QVERIFY(!panel.memoryChart()->message().isEmpty());
    QVERIFY(!panel.bubbleText().contains(QStringLiteral("nan"), Qt::CaseInsensitive));
    QVERIFY(!panel.playButton()->isEnabled());
    panel.play(); // nothing to play: no crash, not playing
    QVERIFY(!panel.isPlaying());
    panel.stepForward();
    QCOMPARE(panel.playhead(), 0.0);

    // Fixing m clears it.
    panel.microBatchesSpin()->setValue(8);
    QCOMPARE(panel.errorText(), QString());
    QCOMPARE(panel.timelineView()->blockCount(), 4 * 8 * 2 * 2);

    // A layout the memory engine refuses: the timeline still draws, the message shows.
    setControls(panel, PipelineSchedule::OneFOneB, 3, 8);
    QCOMPARE(panel.errorText(),
             QStringLiteral("Memory engine: layers (80) are not divisible by pipeline stages "
                            "(3); allow uneven stages or change p"));
    QCOMPARE(panel.timelineView()->blockCount(), 3 * 8 * 2);
    QVERIFY(panel.memoryChart()->message().contains(QStringLiteral("layers (80)")));
    QVERIFY(panel.bubbleText().contains(QStringLiteral("20.0%"))); // 2/10
}

void TestTimeline::playbackStepsAndKeys()
{
    Session model(Catalog::builtIn());
    TimelinePanel panel(&model);
    setControls(panel, PipelineSchedule::GPipe, 4, 4);
    QCOMPARE(panel.playhead(), 21.0);
    panel.setPlayhead(0);
    panel.stepForward(); // boundaries of GPipe p4 m4: 0, 1, 2, ...
    QCOMPARE(panel.playhead(), 1.0);
    panel.stepForward();
    QCOMPARE(panel.playhead(), 2.0);
    panel.stepBack();
    QCOMPARE(panel.playhead(), 1.0);
    QCOMPARE(panel.timelineView()->playhead(), 1.0);
    QCOMPARE(panel.memoryChart()->playhead(), 1.0);
    // In seconds: the Session's step time fixes the seconds a time unit stands for
    // (core/steptime.h, secondsPerTimelineUnit), so t = 1 unit of the 21-unit GPipe step.
    const double k = secondsPerTimelineUnit(model.stepTime(), 4);
    QVERIFY(k > 0);
    QCOMPARE(panel.timelineView()->secondsPerUnit(), k);
    const int decimals = 21 * k < 10 ? 2 : 21 * k < 1000 ? 1 : 0;
    QCOMPARE(panel.timeText(), QStringLiteral("t = %1 of %2 s")
                                   .arg(1 * k, 0, 'f', decimals)
                                   .arg(21 * k, 0, 'f', decimals));

    // Speed 2x: 0.5 s of wall time moves 0.5 x 2 x 4 = 4 time units.
    panel.setSpeed(2);
    QCOMPARE(panel.speedCombo()->currentData().toDouble(), 2.0);
    panel.advance(0.5);
    QCOMPARE(panel.playhead(), 5.0);
    panel.play();
    QVERIFY(panel.isPlaying());
    panel.advance(100); // past the end: stops at the end
    QCOMPARE(panel.playhead(), 21.0);
    QVERIFY(!panel.isPlaying());

    // Keys: space toggles, arrows step.
    panel.setPlayhead(3);
    QTest::keyClick(&panel, Qt::Key_Space);
    QVERIFY(panel.isPlaying());
    QTest::keyClick(&panel, Qt::Key_Space);
    QVERIFY(!panel.isPlaying());
    const double at = panel.playhead();
    QTest::keyClick(&panel, Qt::Key_Right);
    QCOMPARE(panel.playhead(), std::floor(at) + 1);
    QTest::keyClick(&panel, Qt::Key_Left);
    QCOMPARE(panel.playhead(), std::floor(at));

    // Scrub: half the slider is half the step.
    panel.scrubSlider()->setValue(panel.scrubSlider()->maximum() / 2);
    QCOMPARE(panel.playhead(), 10.5);
    // Playing from the end restarts at 0.
    panel.setPlayhead(21);
    panel.play();
    QCOMPARE(panel.playhead(), 0.0);
    panel.pause();
}

void TestTimeline::presentationFitsA720pTab()
{
    // Presentation type (1.5x) in the tab of a 1280 x 720 window, about 850 pixels wide:
    // the settings in two rows, the bubble figure on two lines, nothing wider than the tab.
    Session model(Catalog::builtIn());
    model.edit([](Scenario &s) {
        s.model = *Catalog::builtIn().model("llama3.1-405b");
        s.layout.gpus = 126;
        s.layout.pipelineParallel = 126;
        s.layout.allowUnevenStages = true;
        s.training.microBatches = 126;
    });
    TimelinePanel panel(&model);
    panel.setChartStyle(ChartStyle::presentation(false));
    panel.resize(850, 1000);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCoreApplication::processEvents();
    QVERIFY2(panel.minimumWidth() <= 850, qPrintable(QString::number(panel.minimumWidth())));
    QCOMPARE(panel.width(), 850);
    // 1F1B, p 126, m 126: (p - 1) / (m + p - 1) = 125 / 251 = 49.8 %.
    QCOMPARE(panel.bubbleText(), QStringLiteral("Bubble 49.8% of the step"));
    QLabel *bubble = panel.bubbleLabel();
    QCOMPARE(bubble->text(), QStringLiteral("Bubble 49.8%\nof the step"));
    QVERIFY(bubble->geometry().right() < panel.width());
    QVERIFY(bubble->sizeHint().width() <= bubble->width());
    // Every control inside the panel, none cut.
    for (QWidget *w :
         {static_cast<QWidget *>(panel.chunksSpin()), static_cast<QWidget *>(panel.speedCombo())}) {
        const QRect r(w->mapTo(&panel, QPoint(0, 0)), w->size());
        QVERIFY2(r.right() < panel.width(), qPrintable(w->metaObject()->className()));
        QVERIFY(w->width() >= w->minimumSizeHint().width());
    }
    // A wide panel keeps the figure on one line.
    panel.resize(1800, 1000);
    QCoreApplication::processEvents();
    QCOMPARE(bubble->text(), QStringLiteral("Bubble 49.8% of the step"));

    // Compact (a 1280 x 720 presentation, whose tab is about 850 x 510): the controls,
    // the bubble, the timeline and the memory-over-time chart fit without scrolling; the
    // formula lines go into the bubble's tooltip, and come back when the screen is tall
    // again. The memory chart labels the time axis the timeline shares.
    QVERIFY(panel.memoryChart()->isVisible());
    panel.setCompact(true);
    panel.resize(850, 510);
    QCoreApplication::processEvents();
    QVERIFY(panel.memoryChart()->isVisible());
    QVERIFY(panel.timelineView()->isVisible());
    QVERIFY(!panel.timelineView()->timeAxisLabelled());
    QVERIFY2(panel.minimumSizeHint().height() <= 510,
             qPrintable(QString::number(panel.minimumSizeHint().height())));
    QCOMPARE(panel.memoryChart()->chartStyle().fontScale, TimelinePanel::compactChartScale);
    QVERIFY(panel.bubbleLabel()->toolTip().contains(QStringLiteral("idle share")));
    QCOMPARE(bubble->text(), QStringLiteral("Bubble 49.8% of the step")); // smaller type
    // A lesson's bar takes the memory chart's room: the timeline labels its own axis.
    panel.setMemoryChartShown(false);
    QCoreApplication::processEvents();
    QVERIFY(!panel.memoryChart()->isVisible());
    QVERIFY(panel.timelineView()->timeAxisLabelled());
    QVERIFY(panel.timelineView()->height() >= 240);
    panel.setMemoryChartShown(true);
    panel.setCompact(false);
    QCoreApplication::processEvents();
    QVERIFY(panel.memoryChart()->isVisible());
    QCOMPARE(panel.memoryChart()->chartStyle().fontScale, 1.5);
    QVERIFY(panel.bubbleLabel()->toolTip().isEmpty());

    // Under a running lesson on a short screen the schedule settings give way (the
    // lesson step names what it set); playback stays, and a slide export's
    // setControlsShown(true) afterwards does not bring the settings back.
    panel.setScheduleSettingsShown(false);
    QVERIFY(!panel.scheduleCombo()->isVisible());
    QVERIFY(panel.playButton()->isVisible());
    panel.setControlsShown(false);
    panel.setControlsShown(true);
    QVERIFY(!panel.scheduleCombo()->isVisible());
    QVERIFY(panel.playButton()->isVisible());
    panel.setScheduleSettingsShown(true);
    QVERIFY(panel.scheduleCombo()->isVisible());
}

void TestTimeline::screenshots()
{
    struct Shot
    {
        const char *file;
        PipelineSchedule schedule;
        int p, m, v;
        double at; ///< playhead as a share of the step
    };
    // The whole step, except 1F1B p 4 m 32, caught two thirds in (finished, running and
    // waiting blocks side by side).
    const Shot shots[] = {
        {"timeline-gpipe-p4-m4.png", PipelineSchedule::GPipe, 4, 4, 0, 1},
        {"timeline-1f1b-p4-m32.png", PipelineSchedule::OneFOneB, 4, 32, 0, 0.67},
        {"timeline-interleaved-p4-m8-v2.png", PipelineSchedule::Interleaved1F1B, 4, 8, 2, 1},
        {"timeline-zbh1-p4-m8.png", PipelineSchedule::ZeroBubbleH1, 4, 8, 0, 1},
        {"timeline-zbh1-p16-m64.png", PipelineSchedule::ZeroBubbleH1, 16, 64, 0, 0.5}, // not docs
    };
    const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
    for (const Shot &shot : shots) {
        Session model(Catalog::builtIn());
        // The memory view's usual 70B layout: t 8, d 2, selective recompute.
        model.edit([](Scenario &s) {
            s.layout.tensorParallel = 8;
            s.layout.pipelineParallel = 4;
            s.layout.gpus = 64;
            s.training.recompute = Recompute::Selective;
        });
        TimelinePanel panel(&model);
        setControls(panel, shot.schedule, shot.p, shot.m, shot.v);
        panel.resize(1600, 900);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        panel.setPlayhead(panel.timeline().makespan * shot.at);
        QCoreApplication::processEvents();
        const QImage img = panel.grab().toImage();
        QCOMPARE(img.size(), QSize(1600, 900));
        QCOMPARE(panel.errorText(), QString());
        if (!dir.isEmpty()) {
            QDir().mkpath(dir);
            QVERIFY(img.save(QDir(dir).filePath(QString::fromUtf8(shot.file))));
        }
    }
}

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
