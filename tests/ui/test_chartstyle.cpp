// One chart interface (StyledView): the dark theme and presentation mode reach every plot,
// the timeline panel's own controls and the Qt Charts donut, read back from the widgets:
// canvas and ink colours from QCustomPlot (and drawn pixels), tick label point sizes x
// ChartStyle::fontScale, and applyChartStyle() styling each view of a window once.
// Set SHARDSCOPE_SCREENSHOT_DIR to also save each view in dark and presentation style.
#include "breakdownview.h"
#include "chartscenarios.h"
#include "chartstyle.h"
#include "comparechart.h"
#include "estimate.h"
#include "livepanel.h"
#include "memorychart.h"
#include "plotwidget.h"
#include "session.h"
#include "stagememorychart.h"
#include "steptimebar.h"
#include "timelinepanel.h"
#include "timelineview.h"

#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLegend>
#include <QLocale>
#include <QPieSeries>
#include <QPieSlice>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>
#include <QVBoxLayout>
#include <cmath>
#include <functional>
#include <memory>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

/// Llama 3 70B on 64 GPUs, t 8, p 4, d 2, 1F1B over m 8, selective recompute: four stages.
void fourStageOneFOneB(Session &model)
{
    llama70bFourStages(model, PipelineSchedule::OneFOneB, 1);
}

/// A styled view under test, its QCustomPlots, and the tick label sizes it draws in the
/// light style (points: x axis, y axis), from the view's source.
struct Subject
{
    QString name;
    std::unique_ptr<QWidget> widget;
    std::vector<QCustomPlot *> plots;
    std::vector<std::pair<double, double>> tickPoints;
};

/// Every QCustomPlot view, filled with data, in the default (light) style.
std::vector<Subject> plotViews(Session &model)
{
    std::vector<Subject> out;
    const Scenario &s = model.scenario();
    const MemoryReport &r = model.report();

    auto memory = std::make_unique<MemoryChart>();
    memory->setReport(s, r, ByteUnit::GB);
    QCustomPlot *memoryPlot = memory->plot();
    out.push_back({QStringLiteral("MemoryChart"), std::move(memory), {memoryPlot}, {{12, 12}}});

    auto compare = std::make_unique<CompareChart>();
    compare->setScenario(s, ByteUnit::GB);
    QCustomPlot *comparePlot = compare->plot();
    // Strategy names 13 pt bold, memory 12 pt.
    out.push_back({QStringLiteral("CompareChart"), std::move(compare), {comparePlot}, {{13, 12}}});

    ScheduleParams p;
    p.schedule = PipelineSchedule::OneFOneB;
    p.stages = 4;
    p.microBatches = 8;
    const Timeline t = schedule(p);
    auto view = std::make_unique<TimelineView>();
    view->setTimeline(t);
    QCustomPlot *viewPlot = view->plot();
    out.push_back({QStringLiteral("TimelineView"), std::move(view), {viewPlot}, {{13, 13}}});

    auto stages = std::make_unique<StageMemoryChart>();
    stages->setData(s, r, t, ByteUnit::GB);
    QCustomPlot *stagesPlot = stages->plot();
    out.push_back(
        {QStringLiteral("StageMemoryChart"), std::move(stages), {stagesPlot}, {{13, 13}}});

    auto panel = std::make_unique<TimelinePanel>(&model);
    std::vector<QCustomPlot *> panelPlots = {panel->timelineView()->plot(),
                                             panel->memoryChart()->plot()};
    out.push_back(
        {QStringLiteral("TimelinePanel"), std::move(panel), panelPlots, {{13, 13}, {13, 13}}});

    auto live = std::make_unique<LivePanel>(&model);
    QCustomPlot *livePlot = live->plot();
    // 8 predicted ranks without a reading: more than 4 pairs take the 12 pt labels.
    out.push_back({QStringLiteral("LivePanel"), std::move(live), {livePlot}, {{12, 13}}});

    // Where the step goes: seconds 12 pt (the hidden key axis' style follows too).
    auto bar = std::make_unique<StepTimeBar>();
    bar->setStepTime(model.stepTime());
    QCustomPlot *barPlot = bar->plot();
    out.push_back({QStringLiteral("StepTimeBar"), std::move(bar), {barPlot}, {{12, 12}}});
    return out;
}

/// The canvas colour drawn at a plot's top-left corner (outside axis rect and legend).
QColor cornerPixel(QCustomPlot *plot)
{
    plot->resize(900, 500);
    plot->replot();
    return plot->toPixmap(900, 500).toImage().pixelColor(2, 2);
}

/// WCAG 2.1 relative luminance of an sRGB colour.
double luminance(const QColor &c)
{
    const auto lin = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
}

/// WCAG 2.1 contrast ratio, lighter over darker: 1 .. 21.
double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

class TestChartStyle : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void darkReachesEveryPlot();
    void presentationScalesTickLabels();
    void timelinePanelStylesItsControls();
    void livePanelStylesItsControls();
    void breakdownFollowsTheStyle();
    void applyChartStyleStylesEachViewOnce();
    void darkColoursStayVisible();
    void emptySizeDrawsNothing();
    void screenshots();
};

void TestChartStyle::darkReachesEveryPlot()
{
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    const ChartStyle dark = ChartStyle::dark();
    for (Subject &v : plotViews(model)) {
        const QByteArray name = v.name.toUtf8();
        // Light before: white canvas, dark ink.
        for (QCustomPlot *plot : v.plots) {
            QCOMPARE(plot->axisRect()->backgroundBrush().color(), QColor(Qt::white));
            QCOMPARE(plot->xAxis->tickLabelColor(), ChartStyle::light().ink);
        }
        QVERIFY2(dynamic_cast<StyledView *>(v.widget.get()), name.constData());
        QCOMPARE(applyChartStyle(v.widget.get(), dark), 1);
        for (QCustomPlot *plot : v.plots) {
            QVERIFY2(plot->axisRect()->backgroundBrush().color() == dark.background,
                     name.constData());
            QVERIFY2(cornerPixel(plot) == dark.background, name.constData());
            for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
                QVERIFY2(axis->tickLabelColor() == dark.ink, name.constData());
                QVERIFY2(axis->labelColor() == dark.ink, name.constData());
                QVERIFY2(axis->basePen().color() == dark.ink, name.constData());
            }
            QVERIFY2(plot->legend->textColor() == dark.ink, name.constData());
            QVERIFY2(plot->legend->brush().color() == dark.background, name.constData());
        }
    }
}

void TestChartStyle::presentationScalesTickLabels()
{
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    const ChartStyle present = ChartStyle::presentation(false);
    QCOMPARE(present.fontScale, 1.5);
    for (Subject &v : plotViews(model)) {
        const QByteArray name = v.name.toUtf8();
        std::vector<std::pair<double, double>> light;
        for (std::size_t k = 0; k < v.plots.size(); ++k) {
            QCustomPlot *plot = v.plots[k];
            light.emplace_back(plot->xAxis->tickLabelFont().pointSizeF(),
                               plot->yAxis->tickLabelFont().pointSizeF());
            QVERIFY2(light.back() == v.tickPoints[k], name.constData());
        }
        applyChartStyle(v.widget.get(), present);
        for (std::size_t k = 0; k < v.plots.size(); ++k) {
            QCustomPlot *plot = v.plots[k];
            // 12 pt x 1.5 = 18 pt, 13 pt x 1.5 = 19.5 pt.
            QVERIFY2(plot->xAxis->tickLabelFont().pointSizeF() ==
                         light[k].first * present.fontScale,
                     name.constData());
            QVERIFY2(plot->yAxis->tickLabelFont().pointSizeF() ==
                         light[k].second * present.fontScale,
                     name.constData());
            // Axis titles 14 pt bold x 1.5; ink black on white (high contrast).
            QVERIFY2(plot->yAxis->labelFont().pointSizeF() == 21.0, name.constData());
            QVERIFY2(plot->xAxis->tickLabelColor() == QColor(Qt::black), name.constData());
            QVERIFY2(cornerPixel(plot) == QColor(Qt::white), name.constData());
            // Pens 1.6x: the axis line 1.5 px x 1.6 = 2.4 px.
            QVERIFY2(std::abs(plot->xAxis->basePen().widthF() - 2.4) < 1e-9, name.constData());
        }
        // And back: the light sizes again.
        applyChartStyle(v.widget.get(), ChartStyle::light());
        for (std::size_t k = 0; k < v.plots.size(); ++k)
            QVERIFY2(v.plots[k]->xAxis->tickLabelFont().pointSizeF() == light[k].first,
                     name.constData());
    }
}

void TestChartStyle::timelinePanelStylesItsControls()
{
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    TimelinePanel panel(&model);
    QCOMPARE(panel.scheduleCombo()->font().pointSizeF(), 13.0);
    QCOMPARE(panel.playButton()->font().pointSizeF(), 13.0);
    QCOMPARE(panel.bubbleLabel()->font().pointSizeF(), 30.0);

    panel.setChartStyle(ChartStyle::presentation(true));
    const ChartStyle dark = ChartStyle::dark();
    // Controls and labels: 13 pt x 1.5 = 19.5 pt, the bubble 30 pt x 1.5 = 45 pt bold.
    QCOMPARE(panel.scheduleCombo()->font().pointSizeF(), 19.5);
    QCOMPARE(panel.stagesSpin()->font().pointSizeF(), 19.5);
    QCOMPARE(panel.speedCombo()->font().pointSizeF(), 19.5);
    QCOMPARE(panel.playButton()->font().pointSizeF(), 19.5);
    QCOMPARE(panel.bubbleLabel()->font().pointSizeF(), 45.0);
    QVERIFY(panel.bubbleLabel()->font().bold());
    for (QLabel *label : panel.findChildren<QLabel *>())
        if (label->buddy()) // "Schedule", "Stages p", ...
            QCOMPARE(label->font().pointSizeF(), 19.5);
    // Colours: the dark canvas behind ink text, in the panel and the labels it holds.
    QVERIFY(panel.autoFillBackground());
    QCOMPARE(panel.palette().color(QPalette::Window), dark.background);
    QCOMPARE(panel.palette().color(QPalette::WindowText), dark.ink);
    QCOMPARE(panel.bubbleLabel()->palette().color(QPalette::WindowText), dark.ink);
    QCOMPARE(panel.scheduleCombo()->palette().color(QPalette::ButtonText), dark.ink);
    // Disabled text (v outside interleaved) is dimmed, not the full ink.
    QVERIFY(panel.palette().color(QPalette::Disabled, QPalette::WindowText) != dark.ink);
    // Passed on to both plots, fonts and all.
    QCOMPARE(panel.timelineView()->chartStyle().background, dark.background);
    QCOMPARE(panel.memoryChart()->chartStyle().fontScale, 1.5);
    QCOMPARE(panel.timelineView()->plot()->legend->font().pointSizeF(), 19.5);
}

void TestChartStyle::livePanelStylesItsControls()
{
    Session model(Catalog::builtIn());
    LivePanel panel(&model);
    QCOMPARE(panel.startButton()->font().pointSizeF(), 14.0);
    panel.setChartStyle(ChartStyle::presentation(true));
    QCOMPARE(panel.startButton()->font().pointSizeF(), 21.0); // 14 pt x 1.5
    QCOMPARE(panel.palette().color(QPalette::Window), ChartStyle::dark().background);
    QCOMPARE(panel.palette().color(QPalette::WindowText), ChartStyle::dark().ink);
    // The measured bars (black on white) take the ink on the dark canvas.
    auto *used = qobject_cast<QCPBars *>(panel.plot()->plottable(componentCount));
    QVERIFY(used);
    QCOMPARE(used->name(), QStringLiteral("Measured: used"));
    QCOMPARE(used->brush().color(), ChartStyle::dark().ink);
    QCOMPARE(LivePanel::measuredColor(ChartStyle::light()), QColor(Qt::black));
    // Predicted components keep MemoryChart's colours, parted by the canvas colour.
    for (int c = 0; c < componentCount; ++c) {
        auto *bars = qobject_cast<QCPBars *>(panel.plot()->plottable(c));
        QCOMPARE(bars->brush().color(), componentColor(Component(c)));
        QCOMPARE(bars->pen().color(), ChartStyle::dark().barOutline);
    }
    // A failure reads in the dark style's light red.
    panel.showFailure(QStringLiteral("shardscope-probe: not found"));
    QVERIFY(panel.statusIsError());
    const QList<QLabel *> labels = panel.findChildren<QLabel *>();
    QCOMPARE(labels.size(), 1);
    QCOMPARE(labels.front()->palette().color(QPalette::WindowText), ChartStyle::dark().alert);
    QCOMPARE(labels.front()->font().pointSizeF(), 21.0);
}

void TestChartStyle::breakdownFollowsTheStyle()
{
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    BreakdownView view;
    view.setReport(model.scenario(), model.report(), ByteUnit::GB, 0);
    QVERIFY(view.series()->count() > 0);
    QCOMPARE(view.titleLabel()->font().pointSizeF(), 14.0);

    const ChartStyle dark = ChartStyle::dark();
    QCOMPARE(applyChartStyle(&view, dark), 1);
    QCOMPARE(view.chart()->backgroundBrush().color(), dark.background);
    QVERIFY(view.chart()->isBackgroundVisible());
    QCOMPARE(view.chart()->legend()->labelColor(), dark.ink);
    QCOMPARE(view.titleLabel()->palette().color(QPalette::WindowText), dark.ink);
    QCOMPARE(view.palette().color(QPalette::Window), dark.background);
    // Slices keep the component colours of every chart (and of the table's swatches),
    // parted by the canvas colour.
    for (QPieSlice *slice : view.series()->slices()) {
        QCOMPARE(slice->borderColor(), dark.barOutline);
        bool known = false;
        for (int c = 0; c < componentCount; ++c)
            known =
                known || (slice->label() == QString::fromStdString(componentName(Component(c))) &&
                          slice->color() == componentColor(Component(c)));
        QVERIFY2(known, qPrintable(slice->label()));
    }
    // A new report keeps the style.
    view.setReport(model.scenario(), model.report(), ByteUnit::GB, 3);
    for (QPieSlice *slice : view.series()->slices())
        QCOMPARE(slice->borderColor(), dark.barOutline);

    view.setChartStyle(ChartStyle::presentation(false));
    QCOMPARE(view.titleLabel()->font().pointSizeF(), 21.0); // 14 pt x 1.5
    QCOMPARE(view.chart()->backgroundBrush().color(), QColor(Qt::white));
    QCOMPARE(view.chart()->legend()->labelColor(), QColor(Qt::black));
    // The old entry point still scales the text alone (MainWindow's 1.4).
    view.setFontScale(1.4);
    QCOMPARE(view.titleLabel()->font().pointSizeF(), 14 * 1.4);
    QCOMPARE(view.chart()->backgroundBrush().color(), QColor(Qt::white));
}

void TestChartStyle::applyChartStyleStylesEachViewOnce()
{
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    // A window-like tree: views side by side and one inside a plain container.
    QWidget root;
    auto *layout = new QVBoxLayout(&root);
    auto *memory = new MemoryChart;
    auto *panel = new TimelinePanel(&model);
    auto *breakdown = new BreakdownView;
    auto *box = new QWidget;
    auto *compare = new CompareChart(box);
    auto *live = new LivePanel(&model);
    for (QWidget *w : {static_cast<QWidget *>(memory), static_cast<QWidget *>(panel),
                       static_cast<QWidget *>(breakdown), box, static_cast<QWidget *>(live)})
        layout->addWidget(w);
    live->hide(); // a hidden tab is styled too

    // Five outermost views; the panel passes the style on to its two plots itself.
    const ChartStyle dark = ChartStyle::dark();
    QCOMPARE(applyChartStyle(&root, dark), 5);
    QCOMPARE(memory->chartStyle().background, dark.background);
    QCOMPARE(compare->chartStyle().background, dark.background);
    QCOMPARE(panel->chartStyle().background, dark.background);
    QCOMPARE(panel->timelineView()->chartStyle().background, dark.background);
    QCOMPARE(panel->memoryChart()->chartStyle().background, dark.background);
    QCOMPARE(breakdown->chartStyle().background, dark.background);
    QCOMPARE(live->chartStyle().background, dark.background);
    QCOMPARE(applyChartStyle(nullptr, dark), 0);

    // The existing entry point of the memory and compare charts is the same call.
    memory->setChartStyle(ChartStyle::light());
    QCOMPARE(memory->plot()->xAxis->tickLabelColor(), ChartStyle::light().ink);
    memory->setChartStyle(dark);
    QCOMPARE(memory->chartStyle().background, dark.background);
}

void TestChartStyle::darkColoursStayVisible()
{
    const ChartStyle dark = ChartStyle::dark();
    const ChartStyle light = ChartStyle::light();
    // Stage lines: viridis from 0.4 on the dark canvas, every stage at least 3:1 (WCAG 2.1
    // non-text contrast); the light ramp is the one the view always drew.
    for (int p : {1, 2, 4, 16})
        for (int i = 0; i < p; ++i) {
            QVERIFY(contrast(StageMemoryChart::stageColor(i, p, dark), dark.background) >= 3.0);
            QCOMPARE(StageMemoryChart::stageColor(i, p, light), StageMemoryChart::stageColor(i, p));
        }
    QCOMPARE(StageMemoryChart::stageColor(0, 4, dark), QColor(0x2A, 0x78, 0x8E));
    QCOMPARE(StageMemoryChart::stageColor(3, 4, dark), QColor(0xFD, 0xE7, 0x25));
    // Canvas messages: 8:1 on dark, the light style's red at least 4.5:1 on white.
    QVERIFY(contrast(dark.alert, dark.background) >= 7.0);
    QVERIFY(contrast(light.alert, light.background) >= 4.5);
    // The bubble recedes on both canvases: its fill close to the canvas, its lines apart.
    const auto [lightLines, lightFill] = TimelineView::bubbleColors(light);
    QCOMPARE(lightLines, TimelineView::bubbleColor());
    QCOMPARE(lightFill, QColor(0xF3, 0xF3, 0xF3));
    const auto [darkLines, darkFill] = TimelineView::bubbleColors(dark);
    QVERIFY(contrast(darkFill, dark.background) < 1.3);
    QVERIFY(contrast(darkLines, darkFill) > 1.5);

    // Drawn: a dark timeline's idle time is dark, its blocks keep their colours, and the
    // stage lines match their legend icons (the legend draws the line's own pen).
    Session model(Catalog::builtIn());
    fourStageOneFOneB(model);
    TimelinePanel panel(&model);
    panel.setChartStyle(dark);
    TimelineView *view = panel.timelineView();
    view->plot()->resize(1400, 500); // laid out by the replot: block rectangles in pixels
    view->plot()->replot();
    const QImage img = view->plot()->toPixmap(1400, 500).toImage();
    const QCPAxis *x = view->plot()->xAxis;
    const QCPAxis *y = view->plot()->yAxis;
    // Stage 3 idles until its first forward at t = 3 (1F1B, p 4): the mean of a 9 x 9 patch
    // there, hatch lines and the fill between them (one pixel may fall on a line).
    const int cx = int(x->coordToPixel(1.5)), cy = int(y->coordToPixel(3));
    int lightness = 0;
    for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx)
            lightness += img.pixelColor(cx + dx, cy + dy).lightness();
    const QColor idle = img.pixelColor(cx, cy);
    QVERIFY2(
        lightness / 81 < 70,
        qPrintable(QStringLiteral("%1, mean lightness %2").arg(idle.name()).arg(lightness / 81)));
    const QRectF block = view->blockRect(0, 0);
    QCOMPARE(img.pixelColor(int(block.left()) + 3, int(block.top()) + 3).rgb(),
             view->blockColor(0, 0).rgb());
    StageMemoryChart *chart = panel.memoryChart();
    for (int i = 0; i < chart->stageCount(); ++i) {
        // Plottable 0 is the measured trace's line (none here), then a line and a dot per stage.
        auto *line = qobject_cast<QCPGraph *>(chart->plot()->plottable(1 + 2 * i));
        QVERIFY(line);
        QCOMPARE(line->name(), QStringLiteral("Stage %1").arg(i));
        QCOMPARE(line->pen().color(), StageMemoryChart::stageColor(i, 4, dark));
        QVERIFY(chart->plot()->legend->hasItemWithPlottable(line));
    }
}

void TestChartStyle::screenshots()
{
    const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
    struct Look
    {
        const char *name;
        ChartStyle style;
    };
    const Look looks[] = {{"dark", ChartStyle::dark()},
                          {"presentation-light", ChartStyle::presentation(false)},
                          {"presentation-dark", ChartStyle::presentation(true)}};
    for (const Look &look : looks) {
        Session model(Catalog::builtIn());
        fourStageOneFOneB(model);
        ScheduleParams p;
        p.schedule = PipelineSchedule::OneFOneB;
        p.stages = 4;
        p.microBatches = 8;
        const Timeline t = schedule(p);

        TimelinePanel panel(&model);
        panel.resize(1600, 900);
        // ZB-H1 (hatched W blocks) at about the size of the window's tab on a 1280 x 720
        // projector.
        Session zbModel(Catalog::builtIn());
        llama70bFourStages(zbModel, PipelineSchedule::ZeroBubbleH1, 1);
        TimelinePanel zb(&zbModel);
        zb.resize(1240, 620);
        StageMemoryChart stages;
        stages.setData(model.scenario(), model.report(), t, ByteUnit::GB);
        stages.resize(1200, 360);
        LivePanel live(&model);
        live.resize(1200, 700);
        // Llama 3 8B, ZeRO-3 on two GPUs, beside a reading of two H100s (the fake NVML
        // library's figures, tests/probe/fake_nvml.cpp): measured bars beside predicted.
        Session eightB(Catalog::builtIn());
        eightB.setModelPreset("llama3-8b");
        eightB.setGpus(2);
        eightB.setZeroStage(ZeroStage::Zero3);
        LivePanel reading(&eightB);
        reading.resize(1200, 700);
        ProbeSample sample;
        for (int i = 0; i < 2; ++i) {
            ProbeGpu g;
            g.index = i;
            g.name = QStringLiteral("NVIDIA H100 80GB HBM3");
            g.totalBytes = 85520809984;
            g.reservedBytes = 553648128;
            g.usedBytes = i == 0 ? 10737418240 : 5368709120;
            g.freeBytes = g.totalBytes - *g.reservedBytes - g.usedBytes;
            sample.gpus.push_back(g);
        }
        reading.showReading(sample);
        BreakdownView breakdown;
        breakdown.setReport(model.scenario(), model.report(), ByteUnit::GB, 0);
        breakdown.resize(420, 700);
        const std::pair<QWidget *, const char *> shots[] = {
            {&panel, "timelinepanel"}, {&zb, "timelinepanel-zbh1"},     {&stages, "stagememory"},
            {&live, "livepanel"},      {&reading, "livepanel-reading"}, {&breakdown, "breakdown"}};
        for (const auto &[widget, name] : shots) {
            QCOMPARE(applyChartStyle(widget, look.style), 1);
            widget->show();
            QVERIFY(QTest::qWaitForWindowExposed(widget));
            panel.setPlayhead(panel.timeline().makespan * 0.6);
            zb.setPlayhead(zb.timeline().makespan * 0.6);
            stages.setPlayhead(t.makespan * 0.6);
            QCoreApplication::processEvents();
            for (QCustomPlot *plot : widget->findChildren<QCustomPlot *>())
                plot->replot();
            const QImage img = widget->grab().toImage();
            QCOMPARE(img.size(), widget->size());
            if (!dir.isEmpty()) {
                QDir().mkpath(dir);
                QVERIFY(
                    img.save(QDir(dir).filePath(QStringLiteral("%1-%2.png").arg(name, look.name))));
            }
            widget->hide();
        }
    }
}

void TestChartStyle::emptySizeDrawsNothing()
{
    // A plot laid out at zero height (a hidden tab's, when a lesson starts at 1280 x 720)
    // must not replot into null paint buffers: Qt would warn once per layer. A plain
    // QCustomPlot does; PlotWidget waits for a size and then draws as before.
    QTest::failOnWarning(QRegularExpression(QStringLiteral("QPainter|paint buffer")));
    PlotWidget plot;
    plot.resize(400, 0);
    plot.show();
    QCoreApplication::processEvents();
    plot.resize(400, 300);
    QCoreApplication::processEvents();
    plot.replot();
    QCOMPARE(plot.viewport().size(), QSize(400, 300));
    QVERIFY(!plot.toPixmap().isNull());
}

QTEST_MAIN(TestChartStyle)
#include "test_chartstyle.moc"
