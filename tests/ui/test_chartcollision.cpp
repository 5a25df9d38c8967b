// Text never collides (docs/architecture.md, the chart layer): the memory chart, the comparison
// chart, the pipeline timeline, the stage memory chart, the Plan tab's chart and the Live GPUs
// chart drawn at many sizes, in the normal and the presentation style, for 1 to 16,384 GPUs and 1
// to 128 pipeline stages. In every drawing no two texts (tick labels, axis titles, bar totals, the
// capacity label, legend entries) overlap, none leaves the widget, no legend entry is cut, no axis
// title is longer than its axis, and the dashed capacity line crosses no total.
//
// The boxes are QCustomPlot's own geometry: QCPItemText's topLeft / bottomRight anchors,
// the legend items' outer rects, and tick labels and axis titles placed as
// QCPAxisPainterPrivate places them (tickLabelRects() and axisTitleRect() in
// ui/charts/chartparts.h).
#include "catalog.h"
#include "chartscenarios.h"
#include "comparechart.h"
#include "estimate.h"
#include "livepanel.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "planpanel.h"
#include "plantablemodel.h"
#include "schedule.h"
#include "session.h"
#include "stagememorychart.h"
#include "sweepchart.h"
#include "timelinepanel.h"
#include "timelineview.h"
#include "widgettest.h"

#include <QDir>
#include <QHeaderView>
#include <QLayout>
#include <QLocale>
#include <QPainter>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <cmath>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

struct Box
{
    QString what;
    QRectF rect;
};

/// Every text box of `plot` at its last layout, with `items` (totals, capacity label).
QVector<Box> textBoxes(const QCustomPlot *plot, const QVector<const QCPItemText *> &items)
{
    QVector<Box> boxes;
    for (const QRectF &r : tickLabelRects(plot->xAxis))
        boxes.push_back({QStringLiteral("x tick"), r});
    for (const QRectF &r : tickLabelRects(plot->yAxis))
        boxes.push_back({QStringLiteral("y tick"), r});
    for (const QCPAxis *axis : {plot->xAxis, plot->yAxis})
        if (const QRectF r = axisTitleRect(axis); !r.isEmpty())
            boxes.push_back({QStringLiteral("title \"%1\"").arg(axis->label()), r});
    for (const QCPItemText *t : items)
        if (t && t->visible() && t->realVisibility() && !t->text().isEmpty())
            boxes.push_back({QStringLiteral("text \"%1\"").arg(t->text()), itemTextRect(t)});
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem *item = plot->legend->item(i))
            boxes.push_back({QStringLiteral("legend %1").arg(i), QRectF(item->rect())});
    return boxes;
}

QString describe(const QRectF &r)
{
    return QStringLiteral("(%1,%2 %3x%4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height());
}

/// The checks of any plot: every text box of `plot` and `items` inside the widget and
/// clear of the others, no legend entry cut, no axis title longer than its axis (QCustomPlot
/// centres it on the axis rect's side and lets it run past both ends, where the legend or
/// the widget's edge cuts it: "Memory per GPU (GB" on a short plot). Empty when all hold.
QString textCollisions(const QCustomPlot *plot, const QVector<const QCPItemText *> &items)
{
    const QVector<Box> boxes = textBoxes(plot, items);
    const QRectF viewport(plot->viewport());
    for (int i = 0; i < boxes.size(); ++i) {
        if (!viewport.contains(boxes[i].rect))
            return boxes[i].what + QStringLiteral(" leaves the widget ") + describe(boxes[i].rect);
        for (int j = i + 1; j < boxes.size(); ++j)
            if (boxes[i].rect.intersects(boxes[j].rect))
                return boxes[i].what + u' ' + describe(boxes[i].rect) +
                       QStringLiteral(" overlaps ") + boxes[j].what + u' ' +
                       describe(boxes[j].rect);
    }
    // A legend entry narrower than its icon and text is cut ("Weig").
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem *item = plot->legend->item(i))
            if (item->outerRect().width() < item->minimumOuterSizeHint().width())
                return QStringLiteral("legend %1 is cut").arg(i);
    for (const QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        if (axis->label().isEmpty())
            continue;
        const double length = QFontMetrics(axis->labelFont())
                                  .boundingRect(0, 0, 0, 0, Qt::TextDontClip, axis->label())
                                  .width();
        const QRect ar = plot->axisRect()->rect();
        const int room = axis->axisType() == QCPAxis::atLeft ? ar.height() : ar.width();
        if (length > room)
            return QStringLiteral("title \"%1\" (%2 px) is longer than its axis (%3 px)")
                .arg(axis->label())
                .arg(length)
                .arg(room);
    }
    return {};
}

/// The checks of one bar chart's drawing: textCollisions(), and the totals inside the axis
/// rect and clear of the capacity line. Empty when all hold, else what failed.
QString collisions(const QCustomPlot *plot, const QVector<const QCPItemText *> &totals,
                   const QCPItemText *capacityLabel, double capacity, double lineWidth)
{
    QVector<const QCPItemText *> items = totals;
    items << capacityLabel;
    if (QString failure = textCollisions(plot, items); !failure.isEmpty())
        return failure;
    // Totals: inside the axis rect, clear of the dashed line.
    const QRectF area(plot->axisRect()->rect());
    const double linePx = plot->yAxis->coordToPixel(capacity);
    int shown = 0;
    for (const QCPItemText *t : totals) {
        if (!t || !t->visible())
            continue;
        ++shown;
        const QRectF r = itemTextRect(t);
        if (!area.adjusted(-1, -1, 1, 1).contains(r))
            return QStringLiteral("total %1 leaves the axis rect").arg(t->text());
        if (r.top() < linePx + lineWidth / 2 && r.bottom() > linePx - lineWidth / 2)
            return QStringLiteral("the capacity line crosses total %1").arg(t->text());
    }
    // The peak's total shows wherever the plot has room for it: three of its heights above
    // the line or below it (a 54-pixel plot at 600 x 300 in presentation type has not).
    if (!totals.isEmpty() && shown == 0 && totals.front()) {
        const double h =
            textBox(totals.front()->font(), totals.front()->text(), totals.front()->padding())
                .height();
        if (area.height() > 4 * h)
            return QStringLiteral("no total shown");
    }
    return {};
}

/// The sizes drawn: a small window's chart to a 1080p export, and short to tall.
const QList<QSize> &sizes()
{
    static const QList<QSize> list = {{600, 300},  {600, 720},  {800, 450},
                                      {960, 540},  {1280, 300}, {1280, 720},
                                      {1600, 900}, {1920, 400}, {1920, 1080}};
    return list;
}

Scenario llama70b(qint64 gpus, int stages, ZeroStage z)
{
    Scenario s;
    s.model = *Catalog::builtIn().model("llama3-70b");
    s.recipe = *Catalog::builtIn().recipe("mixed-adam");
    s.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    s.layout.gpus = gpus;
    s.layout.pipelineParallel = stages;
    s.layout.zeroStage = z;
    return s;
}

/// The scenarios: 1 to 16,384 GPUs, 1 to 16 stages of Llama 3 70B (80 layers divide into
/// 1, 2, 4, 8 and 16 stages), and the ZeRO paper's 70B model states near the line: 1,120 GB
/// / 15 = 74.7 GB just under 80 GB (its total is where the line would strike it), and the
/// 17.5 GB of ZeRO-3 on 64 GPUs under a 1,120 GB DDP bar's scale.
QList<Scenario> scenarios()
{
    QList<Scenario> list;
    for (const qint64 gpus : {1, 2, 8, 16, 17, 64, 16384})
        list << llama70b(gpus, 1, ZeroStage::Zero3);
    for (const int stages : {2, 4, 8, 16})
        for (const qint64 gpus : {2, 4, 8, 16, 32, 64})
            if (gpus % stages == 0)
                list << llama70b(gpus, stages, ZeroStage::Zero1);
    // Llama 3.1 405B in 17, 63 and 128 stages of one GPU: a bar per stage.
    for (const int stages : {17, 63, 128})
        list << manyStages(stages);
    list << seventyB(15, ZeroStage::Zero3) << seventyB(14, ZeroStage::Zero3)
         << seventyB(64, ZeroStage::Zero3) << seventyB(64, ZeroStage::Ddp)
         << seventyB(8, ZeroStage::Zero1);
    return list;
}

QString name(const Scenario &s)
{
    return QStringLiteral("%1 GPUs, p %2, %3")
        .arg(s.layout.gpus)
        .arg(s.layout.pipelineParallel)
        .arg(QString::fromUtf8(zeroStageName(s.layout.zeroStage).data()));
}

QString styleName(bool presentation)
{
    return presentation ? QStringLiteral("presentation") : QStringLiteral("normal");
}

/// Draws `plot` into an image of `size` as an export does (QCustomPlot::toPainter), so
/// the layout runs for that size without the widget changing.
void exportAt(QCustomPlot *plot, QSize size)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QCPPainter painter(&image);
    plot->toPainter(&painter, size.width(), size.height());
}

/// The stage counts of the pipeline charts: 1 to 128, the divisors of Llama 3.1 405B's 126
/// layers a class splits it into, uneven splits (4, 8, 16, 17, 32, 64) and 128.
const QList<int> &stageCounts()
{
    static const QList<int> list = {1, 2, 3, 4, 7, 8, 9, 14, 16, 17, 21, 32, 42, 63, 64, 126, 128};
    return list;
}

/// textCollisions() of `plot` exported at `size`, checked in the export's own layout right
/// after the chart's fitting (which is connected to QCustomPlot::afterLayout first).
QString exportCollisions(QCustomPlot *plot, QSize size, const QVector<const QCPItemText *> &items)
{
    QString failure;
    const QMetaObject::Connection check =
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [&] {
            if (failure.isEmpty())
                failure = textCollisions(plot, items);
        });
    exportAt(plot, size);
    QObject::disconnect(check);
    return failure;
}

} // namespace

class TestChartCollision : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void memoryChartTextNeverCollides();
    void memoryChartExportNeverCollides();
    void compareChartTextNeverCollides();
    void sweepChartTextNeverCollides();
    void sweepTabInTheWindowNeverCollides();
    void compareTabAfterPresentationElsewhere_data();
    void compareTabAfterPresentationElsewhere();
    void everyTabFitsAndNeverCollides_data();
    void everyTabFitsAndNeverCollides();
    void timelineTextNeverCollides();
    void planChartTextNeverCollides();
    void liveChartTextNeverCollides();
    void timelineExportNeverCollides();
    void manyStagesLabelEveryKth();
    void memoryTitleFitsShortPlot();
    void axisTitleBoxesMatchThePixels();
    void groupsWhenTextWouldNotFit();
    void totalLeavesTheLine();
    void equalNeighbourTotalsBothShow();
    void legendOrderIsFixed();
};

void TestChartCollision::memoryChartTextNeverCollides()
{
    MemoryChart chart;
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    int drawings = 0;
    for (const bool presentation : {false, true}) {
        chart.setChartStyle(presentation ? ChartStyle::presentation(false) : ChartStyle::light());
        for (const QSize size : sizes()) {
            chart.resize(size);
            for (const Scenario &s : scenarios()) {
                const MemoryReport r = estimate(s);
                QVERIFY2(r.valid(), qPrintable(name(s) + u' ' + toQString(r.error)));
                chart.setReport(s, r, ByteUnit::GB);
                chart.plot()->replot();
                QVector<const QCPItemText *> totals;
                for (int i = 0; i < chart.barCount(); ++i)
                    totals << chart.totalItem(i);
                const QString failure =
                    collisions(chart.plot(), totals, chart.capacityItem(), chart.capacityValue(),
                               3 * (presentation ? 1.6 : 1.0));
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("%1 at %2x%3, %4: %5")
                                                           .arg(name(s))
                                                           .arg(size.width())
                                                           .arg(size.height())
                                                           .arg(styleName(presentation), failure)));
                ++drawings;
            }
        }
    }
    QVERIFY(drawings > 400);
}

void TestChartCollision::memoryChartExportNeverCollides()
{
    // An export lays the plot out at the slide's size without resizing the widget
    // (ui/charts/chartexport.cpp draws through QCustomPlot::toPainter): the chart fits its text at
    // that layout. The check runs right after the chart's own fitting, in the same layout.
    MemoryChart chart;
    chart.resize(700, 450);
    QString failure;
    QSize exported;
    const Scenario *current = nullptr;
    QObject::connect(chart.plot(), &QCustomPlot::afterLayout, &chart, [&] {
        if (!current || !failure.isEmpty())
            return;
        QVector<const QCPItemText *> totals;
        for (int i = 0; i < chart.barCount(); ++i)
            totals << chart.totalItem(i);
        failure = collisions(chart.plot(), totals, chart.capacityItem(), chart.capacityValue(),
                             3 * chart.chartStyle().lineScale);
        if (!failure.isEmpty())
            failure = QStringLiteral("%1 exported at %2x%3: %4")
                          .arg(name(*current))
                          .arg(exported.width())
                          .arg(exported.height())
                          .arg(failure);
    });
    for (const bool presentation : {false, true}) {
        chart.setChartStyle(presentation ? ChartStyle::presentation(false) : ChartStyle::light());
        for (const QSize size : {QSize(1280, 720), QSize(1920, 1080), QSize(800, 600)}) {
            for (const Scenario &s : scenarios()) {
                current = &s;
                exported = size;
                chart.setReport(s, estimate(s), ByteUnit::GB);
                exportAt(chart.plot(), size);
                QVERIFY2(failure.isEmpty(), qPrintable(failure));
            }
        }
    }
    current = nullptr;
}

void TestChartCollision::compareChartTextNeverCollides()
{
    CompareChart chart;
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QList<Scenario> list = {seventyB(64, ZeroStage::Zero3), seventyB(8, ZeroStage::Ddp),
                            llama70b(64, 4, ZeroStage::Zero1), llama70b(16384, 1, ZeroStage::Zero3),
                            llama70b(16, 16, ZeroStage::Zero2)};
    Scenario offload = llama70b(64, 1, ZeroStage::Zero3);
    offload.layout.offload = Offload::OptimizerAndParams; // "DDP\nno offload", ...
    list << offload;
    for (const bool presentation : {false, true}) {
        chart.setChartStyle(presentation ? ChartStyle::presentation(false) : ChartStyle::light());
        for (const QSize size : sizes()) {
            chart.resize(size);
            for (const Scenario &s : list) {
                chart.setScenario(s, ByteUnit::GB);
                chart.plot()->replot();
                QVector<const QCPItemText *> totals;
                for (int i = 0; i < 4; ++i)
                    totals << chart.totalItem(i);
                const QString failure =
                    collisions(chart.plot(), totals, chart.capacityItem(), chart.capacityValue(),
                               3 * chart.chartStyle().lineScale);
                QVERIFY2(failure.isEmpty(),
                         qPrintable(QStringLiteral("compare, %1 at %2x%3, %4: %5")
                                        .arg(name(s))
                                        .arg(size.width())
                                        .arg(size.height())
                                        .arg(styleName(presentation), failure)));
            }
        }
    }
}

void TestChartCollision::sweepChartTextNeverCollides()
{
    // The four strategies' lines along each axis, on screen and exported, for the default
    // Llama 3 70B on 64 GPUs, a 16-GPU replica (gaps from 1 to 8 GPUs), 16,384 GPUs (the
    // scenario's dot at the ladder's end), the ZeRO paper's model states (1,120 GB to
    // 68 MB: six decades), and a sequence sweep no point of which can run (the message).
    SweepChart chart;
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    Scenario cp = llama70b(48, 1, ZeroStage::Zero3);
    cp.layout.contextParallel = 3;
    const QList<std::pair<Scenario, SweepAxis>> list = {
        {llama70b(64, 1, ZeroStage::Ddp), SweepAxis::Gpus},
        {llama70b(64, 4, ZeroStage::Zero1), SweepAxis::Gpus},
        {llama70b(16384, 1, ZeroStage::Zero3), SweepAxis::Gpus},
        {seventyB(64, ZeroStage::Zero3), SweepAxis::Gpus},
        {llama70b(64, 1, ZeroStage::Zero2), SweepAxis::SequenceLength},
        {llama70b(64, 1, ZeroStage::Zero3), SweepAxis::MicroBatchSize},
        {cp, SweepAxis::SequenceLength}};
    for (const bool presentation : {false, true}) {
        chart.setChartStyle(presentation ? ChartStyle::presentation(false) : ChartStyle::light());
        for (const QSize size : sizes()) {
            chart.resize(size);
            for (const auto &[s, axis] : list) {
                chart.setScenario(s, axis, ByteUnit::GB);
                chart.plot()->replot();
                const QVector<const QCPItemText *> items = {chart.capacityItem(),
                                                            chart.messageItem()};
                QString failure = textCollisions(chart.plot(), items);
                if (failure.isEmpty())
                    failure = exportCollisions(chart.plot(), size, items);
                QVERIFY2(failure.isEmpty(),
                         qPrintable(QStringLiteral("sweep along %1, %2 at %3x%4, %5: %6")
                                        .arg(QString::fromUtf8(sweepAxisId(axis).data()), name(s))
                                        .arg(size.width())
                                        .arg(size.height())
                                        .arg(styleName(presentation), failure)));
                // The capacity label stays whole inside the widget, beside its line.
                const QRectF label = itemTextRect(chart.capacityItem());
                QVERIFY(QRectF(chart.plot()->viewport()).contains(label));
            }
        }
    }
}

void TestChartCollision::sweepTabInTheWindowNeverCollides()
{
    // The window's Sweep tab at 1280 x 720 and 1920 x 1080, in the normal and the
    // presentation type, along each axis: the chart's text as the other tabs'.
    MainWindow w;
    w.tabs()->setCurrentIndex(int(MainWindow::View::Sweep));
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        for (const bool presentation : {false, true}) {
            w.setPresentationMode(presentation);
            for (const SweepAxis axis : {SweepAxis::Gpus, SweepAxis::SequenceLength,
                                         SweepAxis::MicroBatchSize, SweepAxis::StepTimeGpus}) {
                w.session()->setSweepAxis(axis);
                QCoreApplication::processEvents();
                SweepChart *chart = w.sweepChart();
                QVERIFY(chart->isVisible());
                chart->plot()->replot();
                QCOMPARE(chart->axis(), axis);
                const QString failure =
                    textCollisions(chart->plot(), {chart->capacityItem(), chart->messageItem()});
                QVERIFY2(
                    failure.isEmpty(),
                    qPrintable(QStringLiteral("Sweep tab at %1x%2, %3, %4: %5")
                                   .arg(size.width())
                                   .arg(size.height())
                                   .arg(styleName(presentation),
                                        QString::fromUtf8(sweepAxisId(axis).data()), failure)));
                // The plot whole inside the tab.
                const QWidget *page = w.tabs()->currentWidget();
                QVERIFY(QRect(QPoint(0, 0), page->size())
                            .contains(QRect(chart->plot()->mapTo(page, QPoint(0, 0)),
                                            chart->plot()->size())));
            }
        }
    }
}

void TestChartCollision::compareTabAfterPresentationElsewhere_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("dark");
    QTest::newRow("1280x720") << QSize(1280, 720) << false;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
    QTest::newRow("1280x720 dark") << QSize(1280, 720) << true;
}

void TestChartCollision::compareTabAfterPresentationElsewhere()
{
    // The review's path (review): the window opens on the Memory tab, F5 there turns
    // presentation on while the Compare tab is hidden, then a click shows Compare. Its chart
    // was restyled while hidden and must fit its text to the presentation type when shown:
    // "ZeRO-2" and "ZeRO-3 / FSDP" apart, the capacity line clear of every total. No
    // replot is forced here: what is checked is what the window drew by itself.
    QFETCH(QSize, size);
    QFETCH(bool, dark);
    MainWindow w;
    w.setDarkTheme(dark);
    QVERIFY(test::shownAt(w, size));
    QCOMPARE(w.tabs()->currentIndex(), int(MainWindow::View::Memory));
    QCoreApplication::processEvents();
    w.setPresentationMode(true); // F5 on the Memory tab
    QCoreApplication::processEvents();
    w.showView(MainWindow::View::Compare); // then a click on the Compare tab
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    const QImage shown = w.grab().toImage(); // a paint, as the screen gets
    CompareChart *chart = w.compareChart();
    QVERIFY(chart->isVisible());
    QCOMPARE(chart->chartStyle().fontScale, ChartStyle::presentation(dark).fontScale);
    QVector<const QCPItemText *> totals;
    for (int i = 0; i < 4; ++i)
        totals << chart->totalItem(i);
    const QString failure = collisions(chart->plot(), totals, chart->capacityItem(),
                                       chart->capacityValue(), 3 * chart->chartStyle().lineScale);
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QDir().mkpath(dir);
        QVERIFY(shown.save(QDir(dir).filePath(QStringLiteral("compare-after-f5-%1x%2%3.png")
                                                  .arg(size.width())
                                                  .arg(size.height())
                                                  .arg(dark ? "-dark" : ""))));
    }
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    // The plot whole inside its tab.
    const QWidget *page = w.tabs()->currentWidget();
    QVERIFY(QRect(QPoint(0, 0), page->size())
                .contains(QRect(chart->plot()->mapTo(page, QPoint(0, 0)), chart->plot()->size())));
}

void TestChartCollision::everyTabFitsAndNeverCollides_data()
{
    test::addScreenRows();
}

void TestChartCollision::everyTabFitsAndNeverCollides()
{
    // Every tab of the window at 1280 x 720 (a classroom projector) and 1920 x 1080, in the
    // normal type and in presentation type turned on from the Memory tab (F5 there, as a
    // lecture starts), then each tab clicked in turn (review): each tab's charts are
    // whole on screen without scrolling, with room for their plot, and no text of theirs
    // collides. Nothing forces a replot: what is checked is what the window drew.
    QFETCH(QSize, size);
    QFETCH(bool, presentation);
    MainWindow w;
    QVERIFY(test::shownAt(w, size));
    w.setPresentationMode(presentation);
    QCoreApplication::processEvents();
    struct Chart
    {
        const char *what;
        QCustomPlot *plot;
        QVector<const QCPItemText *> totals; ///< bar totals, kept clear of the capacity line
        QVector<const QCPItemText *> items;  ///< other text (capacity label, message)
        double capacity = 0;                 ///< the capacity line's value with totals
    };
    const auto chartsOf = [&w](MainWindow::View view) {
        QVector<Chart> charts;
        switch (view) {
        case MainWindow::View::Memory: {
            Chart c{"memory", w.chart()->plot(), {}, {w.chart()->capacityItem()}};
            for (int i = 0; i < w.chart()->barCount(); ++i)
                c.totals << w.chart()->totalItem(i);
            c.capacity = w.chart()->capacityValue();
            charts << c;
            break;
        }
        case MainWindow::View::Timeline: {
            const TimelinePanel *panel = w.timelinePanel();
            charts << Chart{"timeline", panel->timelineView()->plot(), {}, {}}
                   << Chart{"stage memory",
                            panel->memoryChart()->plot(),
                            {},
                            {panel->memoryChart()->capacityItem()}};
            break;
        }
        case MainWindow::View::Compare: {
            Chart c{"compare", w.compareChart()->plot(), {}, {w.compareChart()->capacityItem()}};
            for (int i = 0; i < 4; ++i)
                c.totals << w.compareChart()->totalItem(i);
            c.capacity = w.compareChart()->capacityValue();
            charts << c;
            break;
        }
        case MainWindow::View::Live: {
            auto *live = qobject_cast<LivePanel *>(w.viewChart(view));
            Chart c{"live", live->plot(), live->valueItems(), {live->capacityLabel()}};
            c.capacity = live->capacityValue(0) > 0 ? live->capacityValue(0) : 80.0;
            charts << c;
            break;
        }
        case MainWindow::View::Plan:
            charts << Chart{"plan",
                            w.planPanel()->plot(),
                            {},
                            {w.planPanel()->capacityLabel(), w.planPanel()->plotMessage()}};
            break;
        case MainWindow::View::Sweep:
            charts << Chart{"sweep",
                            w.sweepChart()->plot(),
                            {},
                            {w.sweepChart()->capacityItem(), w.sweepChart()->messageItem()}};
            break;
        }
        return charts;
    };
    const QString where = QStringLiteral("%1x%2 %3")
                              .arg(size.width())
                              .arg(size.height())
                              .arg(styleName(presentation));
    for (int tab = 0; tab < w.tabs()->count(); ++tab) {
        const auto view = MainWindow::View(tab);
        w.showView(view); // a click on the tab
        for (int i = 0; i < 3; ++i)
            QCoreApplication::processEvents();
        QCOMPARE(w.tabs()->currentIndex(), tab);
        // What is on screen of the tab: its scroll area's viewport, else the whole page.
        QWidget *page = w.tabs()->currentWidget();
        if (auto *scroll = qobject_cast<QScrollArea *>(page))
            page = scroll->viewport();
        for (const Chart &c : chartsOf(view)) {
            const QString name = where + QStringLiteral(", %1 tab, %2 chart")
                                             .arg(w.tabs()->tabText(tab), QLatin1String(c.what));
            QVERIFY2(c.plot->isVisible(), qPrintable(name + QStringLiteral(" hidden")));
            const QRect r(c.plot->mapTo(page, QPoint(0, 0)), c.plot->size());
            QVERIFY2(page->rect().contains(r),
                     qPrintable(name + QStringLiteral(": plot %1 outside the %2x%3 tab")
                                           .arg(describe(r))
                                           .arg(page->width())
                                           .arg(page->height())));
            const QRect area = c.plot->axisRect()->rect();
            QVERIFY2(area.height() >= 60 && area.width() >= 200,
                     qPrintable(name + QStringLiteral(": axis rect %1").arg(describe(area))));
            const QString failure = c.totals.isEmpty()
                                        ? textCollisions(c.plot, c.items)
                                        : collisions(c.plot, c.totals, c.items.front(), c.capacity,
                                                     3 * ChartStyle::presentation(false).lineScale);
            QVERIFY2(failure.isEmpty(), qPrintable(name + QStringLiteral(": ") + failure));
        }
        if (view == MainWindow::View::Live) {
            // Its bar values read from a classroom's back row: never under 8 pt times the
            // style's scale (12 pt in presentation type); the number drops its words and unit
            // before its type shrinks.
            auto *live = qobject_cast<LivePanel *>(w.viewChart(view));
            const double least = 8 * std::max(1.0, live->chartStyle().fontScale);
            for (const QCPItemText *t : live->valueItems())
                QVERIFY2(!t->visible() || t->font().pointSizeF() >= least,
                         qPrintable(where + QStringLiteral(": Live value '%1' at %2 pt")
                                                .arg(t->text())
                                                .arg(t->font().pointSizeF())));
        }
        if (view == MainWindow::View::Compare) {
            // Every strategy's total is on screen: the lesson's sentence reads them out
            // (review finding N5: ZeRO-2's "175.1 GB" touched ZeRO-1's "321 GB" by 3 px at
            // 1280 x 720 in presentation and was hidden).
            for (int i = 0; i < 4; ++i)
                QVERIFY2(w.compareChart()->totalItem(i)->visible(),
                         qPrintable(where + QStringLiteral(": the Compare tab hides %1's total")
                                                .arg(w.compareChart()->strategyLabel(i))));
        }
        if (view == MainWindow::View::Plan) {
            // What a row achieves (step, MFU, peak) is on screen beside its rank, never
            // behind the table's sideways scroll bar (review finding N2).
            const QTableView *table = w.planPanel()->tableView();
            const QHeaderView *header = table->horizontalHeader();
            for (const int column : {PlanTableModel::Rank, PlanTableModel::StepSeconds,
                                     PlanTableModel::Mfu, PlanTableModel::PeakMemory}) {
                const int right =
                    header->sectionViewportPosition(column) + header->sectionSize(column);
                QVERIFY2(header->sectionViewportPosition(column) >= 0 &&
                             right <= table->viewport()->width(),
                         qPrintable(where + QStringLiteral(": Plan column %1 ends at %2 of %3")
                                                .arg(column)
                                                .arg(right)
                                                .arg(table->viewport()->width())));
            }
        }
        if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
            QDir().mkpath(dir);
            QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("tab%1-%2x%3-%4.png")
                                                         .arg(tab)
                                                         .arg(size.width())
                                                         .arg(size.height())
                                                         .arg(styleName(presentation)))));
        }
    }
}

void TestChartCollision::planChartTextNeverCollides()
{
    // The Plan tab's chart (ui/panels/planpanel.h) at every size, drawn as an export draws it:
    // Llama 3 70B on the default 64 GPUs (2,883 fitting layouts), on 8 and on 1 (4 fit,
    // all offloading), and Llama 3.1 405B on 1 (none fits: the message alone, as
    // `shardscope plan --model llama3.1-405b --gpus 1` says). Its capacity label also
    // stays inside the axis rect, above the line.
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    QVERIFY(test::shownAt(panel, QSize(1280, 720)));
    int drawings = 0;
    const std::pair<const char *, qint64> cases[] = {
        {"llama3-70b", 64}, {"llama3-70b", 8}, {"llama3-70b", 1}, {"llama3.1-405b", 1}};
    for (const auto &[model, gpus] : cases) {
        session.edit([model, gpus](Scenario &s) {
            s.model = *Catalog::builtIn().model(model);
            s.layout.gpus = gpus;
        });
        panel.planNow();
        QCOMPARE(panel.result().fitting.empty(), std::string_view(model) == "llama3.1-405b");
        for (const bool presentation : {false, true}) {
            panel.setChartStyle(presentation ? ChartStyle::presentation(false)
                                             : ChartStyle::light());
            for (const QSize size : sizes()) {
                QCustomPlot *plot = panel.plot();
                const QCPItemText *label = panel.capacityLabel();
                QString failure;
                QRectF box, area;
                double linePx = 0;
                const QMetaObject::Connection check =
                    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [&] {
                        if (!failure.isEmpty())
                            return;
                        failure = textCollisions(plot, {label, panel.plotMessage()});
                        box = itemTextRect(label);
                        area = QRectF(plot->axisRect()->rect());
                        linePx = plot->yAxis->coordToPixel(panel.capacityLine()->point1->value());
                    });
                exportAt(plot, size);
                QObject::disconnect(check);
                const QString where = QStringLiteral("plan, %1 on %2 GPUs at %3x%4, %5")
                                          .arg(QString::fromLatin1(model))
                                          .arg(gpus)
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(styleName(presentation));
                QVERIFY2(failure.isEmpty(), qPrintable(where + QStringLiteral(": ") + failure));
                if (label->visible() && area.height() > 3 * box.height()) {
                    QVERIFY2(area.adjusted(-1, -1, 1, 1).contains(box),
                             qPrintable(where + QStringLiteral(": capacity label ") +
                                        describe(box) + QStringLiteral(" leaves the axis rect ") +
                                        describe(area)));
                    QVERIFY2(box.bottom() <= linePx + 1,
                             qPrintable(where + QStringLiteral(": capacity label below its line")));
                }
                ++drawings;
            }
        }
    }
    QCOMPARE(drawings, 4 * 2 * int(sizes().size()));
}

void TestChartCollision::liveChartTextNeverCollides()
{
    // The Live GPUs tab's chart (ui/panels/livepanel.h) at every size in both styles: the
    // predicted bars alone before a reading (the default Llama 3 70B on 64 GPUs draws its
    // first 8 ranks at 1,195 GB each; Llama 3 8B, ZeRO-3, on 2), and readings of 2, 8 and
    // 16 H100s beside Llama 3 8B, ZeRO-3 (each pair's tick label then carries "measured -
    // predicted", the measured bars their used and reserved bytes).
    Session session(Catalog::builtIn());
    LivePanel panel(&session);
    QVERIFY(test::shownAt(panel, QSize(1280, 720)));
    auto reading = [](int gpus) {
        ProbeSample s;
        s.source = QStringLiteral("nvml");
        for (int i = 0; i < gpus; ++i) {
            ProbeGpu g;
            g.index = i;
            g.name = QStringLiteral("NVIDIA H100 80GB HBM3");
            g.totalBytes = 85'520'809'984; // 81,559 MiB, the driver's H100 total
            g.reservedBytes = 536'870'912;
            g.usedBytes = 40'000'000'000 + qint64(i) * 1'000'000'000;
            g.freeBytes = g.totalBytes - g.usedBytes - *g.reservedBytes;
            s.gpus.push_back(g);
        }
        return s;
    };
    struct Case
    {
        const char *what;
        int gpus;  ///< the scenario's
        int probe; ///< GPUs read, 0 for no reading
    };
    const Case cases[] = {{"70B, no reading", 64, 0},
                          {"8B, no reading", 2, 0},
                          {"8B, 2 read", 2, 2},
                          {"8B, 8 read", 8, 8},
                          {"8B, 16 read", 16, 16}};
    int drawings = 0;
    for (const Case &c : cases) {
        session.edit([&c](Scenario &s) {
            s.model = *Catalog::builtIn().model(c.gpus == 64 ? "llama3-70b" : "llama3-8b");
            s.layout.gpus = c.gpus;
            s.layout.zeroStage = c.gpus == 64 ? ZeroStage::Ddp : ZeroStage::Zero3;
        });
        if (c.probe > 0)
            panel.showReading(reading(c.probe));
        else
            panel.showFailure(QStringLiteral("no reading"));
        for (const bool presentation : {false, true}) {
            panel.setChartStyle(presentation ? ChartStyle::presentation(false)
                                             : ChartStyle::light());
            QCoreApplication::processEvents(); // the queued rebuild
            for (const QSize size : sizes()) {
                QCustomPlot *plot = panel.plot();
                QString failure;
                const QMetaObject::Connection check =
                    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [&] {
                        if (failure.isEmpty())
                            failure = collisions(plot, panel.valueItems(), panel.capacityLabel(),
                                                 panel.capacityValue(0) > 0 ? panel.capacityValue(0)
                                                                            : 80.0,
                                                 3 * panel.chartStyle().lineScale);
                    });
                exportAt(plot, size);
                QObject::disconnect(check);
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("live, %1 at %2x%3, %4: %5")
                                                           .arg(QString::fromLatin1(c.what))
                                                           .arg(size.width())
                                                           .arg(size.height())
                                                           .arg(styleName(presentation), failure)));
                ++drawings;
            }
        }
    }
    QCOMPARE(drawings, 5 * 2 * int(sizes().size()));
}

void TestChartCollision::timelineTextNeverCollides()
{
    // The pipeline tab as it is on screen: the timeline over the stage memory chart, at a
    // 720p projector's and a 1080p screen's size, for 1 to 128 stages.
    Session session(Catalog::builtIn());
    TimelinePanel panel(&session);
    QVERIFY(test::shownAt(panel, QSize(1280, 720)));
    int drawings = 0;
    for (const bool presentation : {false, true}) {
        panel.setChartStyle(presentation ? ChartStyle::presentation(false) : ChartStyle::light());
        for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
            panel.resize(size);
            for (const int p : stageCounts()) {
                const Scenario s = manyStages(p);
                session.setScenario(s);
                QCoreApplication::processEvents(); // the controls' layouts, as on screen
                const QString where = QStringLiteral("p %1 at %2x%3, %4")
                                          .arg(p)
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(styleName(presentation));
                QVERIFY2(session.report().valid(), qPrintable(where));
                QVERIFY2(panel.timeline().valid(), qPrintable(where));
                panel.layout()->activate();
                TimelineView *view = panel.timelineView();
                StageMemoryChart *memory = panel.memoryChart();
                QCOMPARE(memory->stageCount(), p);
                view->plot()->replot();
                memory->plot()->replot();
                QString failure = textCollisions(view->plot(), {});
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("timeline, ") + where +
                                                       QStringLiteral(": ") + failure));
                failure = textCollisions(memory->plot(), {memory->capacityItem()});
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("stage memory, ") + where +
                                                       QStringLiteral(": ") + failure));
                ++drawings;
                // SHARDSCOPE_SCREENSHOT_DIR: the tab with 126 stages, to look at.
                if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
                    !dir.isEmpty() && p == 126) {
                    QDir().mkpath(dir);
                    QVERIFY(panel.grab().save(
                        QDir(dir).filePath(QStringLiteral("pipeline-p126-%1x%2-%3.png")
                                               .arg(size.width())
                                               .arg(size.height())
                                               .arg(styleName(presentation)))));
                }
            }
        }
    }
    QCOMPARE(drawings, 2 * 2 * int(stageCounts().size()));
}

void TestChartCollision::timelineExportNeverCollides()
{
    // A slide export of each pipeline chart (QCustomPlot::toPainter at the slide's size),
    // from a window-sized widget.
    TimelineView view;
    StageMemoryChart memory;
    view.resize(900, 400);
    memory.resize(900, 300);
    for (const bool presentation : {false, true}) {
        const ChartStyle style =
            presentation ? ChartStyle::presentation(false) : ChartStyle::light();
        view.setChartStyle(style);
        memory.setChartStyle(style);
        // Every stage count on one GPU each, and 1 to 16,384 GPUs as d x p under ZeRO-1 (the
        // memory axis' range and numbers change with d).
        QList<Scenario> list;
        for (const int p : stageCounts())
            list << manyStages(p);
        for (const int p : {1, 16, 128})
            for (const qint64 gpus : {1, 2, 8, 16, 17, 64, 16384})
                if (gpus % p == 0 && gpus > p) {
                    Scenario s = manyStages(p);
                    s.layout.gpus = gpus;
                    s.layout.zeroStage = ZeroStage::Zero1;
                    list << s;
                }
        for (const Scenario &s : list) {
            const int p = s.layout.pipelineParallel;
            const Timeline t = schedule(scheduleParams(s));
            const MemoryReport r = estimate(s);
            QVERIFY2(t.valid() && r.valid(), qPrintable(name(s) + u' ' + toQString(r.error)));
            view.setTimeline(t);
            memory.setData(s, r, t, ByteUnit::GB);
            for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)}) {
                const QString where = QStringLiteral("%1 GPUs, p %2 exported at %3x%4, %5")
                                          .arg(s.layout.gpus)
                                          .arg(p)
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(styleName(presentation));
                QString failure = exportCollisions(view.plot(), size, {});
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("timeline, ") + where +
                                                       QStringLiteral(": ") + failure));
                failure = exportCollisions(memory.plot(), size, {memory.capacityItem()});
                QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("stage memory, ") + where +
                                                       QStringLiteral(": ") + failure));
                // With a measured trace: a top time axis and one more legend entry (at
                // the projector's size, the tighter one).
                if (size.width() != 1280)
                    continue;
                memory.setMeasuredTrace({{0.0, 1'000'000'000}, {12.5, r.peakBytes()}},
                                        QStringLiteral("Measured allocated, GPU 0"));
                failure = exportCollisions(memory.plot(), size, {memory.capacityItem()});
                memory.setMeasuredTrace({}, {});
                QVERIFY2(failure.isEmpty(),
                         qPrintable(QStringLiteral("stage memory with a measured trace, ") + where +
                                    QStringLiteral(": ") + failure));
            }
        }
    }
}

void TestChartCollision::manyStagesLabelEveryKth()
{
    // 126 stages of Llama 3.1 405B in the pipeline tab at 1280 x 720: 126 rows in a
    // timeline a few hundred pixels tall cannot each carry a label, so every k-th does
    // (k one of 1, 2, 4, 5, 10, 20, 25, 50, ..), and the stage memory legend names stages
    // evenly spaced from 0 to 125 rather than 126 entries.
    Session session(Catalog::builtIn());
    TimelinePanel panel(&session);
    QVERIFY(test::shownAt(panel, QSize(1280, 720)));
    session.setScenario(manyStages(126));
    panel.layout()->activate();
    QCustomPlot *timeline = panel.timelineView()->plot();
    timeline->replot();
    const QVector<double> ticks = timeline->yAxis->tickVector();
    QVERIFY(ticks.size() >= 2);
    QCOMPARE(ticks.front(), 0.0);
    const double k = ticks[1] - ticks[0];
    QVERIFY2(QList<double>({2, 4, 5, 10, 20, 25, 50}).contains(k), qPrintable(QString::number(k)));
    // Rows of (axis rect height / 126) pixels, k of them between labels: at least one label
    // height apart.
    const double row = timeline->axisRect()->height() / 126.0;
    QVERIFY(k * row >= QFontMetrics(timeline->yAxis->tickLabelFont()).height());
    QVERIFY(timeline->yAxis->tickVectorLabels().front() == QStringLiteral("Stage 0") ||
            timeline->yAxis->tickVectorLabels().front() == QStringLiteral("0"));

    StageMemoryChart *memory = panel.memoryChart();
    memory->plot()->replot();
    const std::vector<int> &named = memory->legendStages();
    QVERIFY(named.size() >= 2 && named.size() <= 8);
    QCOMPARE(int(memory->plot()->legend->itemCount()), int(named.size()));
    QCOMPARE(named.front(), 0);
    QCOMPARE(named.back(), 125);
    // Evenly spaced: entry j is stage round(j x 125 / (n - 1)).
    const int n = int(named.size());
    for (int j = 0; j < n; ++j)
        QCOMPARE(named[std::size_t(j)], int(std::lround(j * 125.0 / (n - 1))));
    // Two stages: both named.
    session.setScenario(manyStages(2));
    memory->plot()->replot();
    QCOMPARE(memory->legendStages(), (std::vector<int>{0, 1}));
}

void TestChartCollision::memoryTitleFitsShortPlot()
{
    // Lesson 4 in presentation at 1920 x 1080 left the memory chart a plot shorter than its
    // title: "Memory per GPU (GB)" in 21 pt bold is about 260 px long, so a 200 px plot
    // takes the short title "GB per GPU" instead, and a tall one the full title.
    MemoryChart chart;
    chart.setChartStyle(ChartStyle::presentation(false));
    QVERIFY(test::shownAt(chart, QSize(1000, 400)));
    const Scenario s = seventyB(64, ZeroStage::Zero3);
    drawReport(chart, s);
    const QCPAxis *y = chart.plot()->yAxis;
    const QFontMetrics metrics(y->labelFont());
    const int room = chart.plot()->axisRect()->height();
    QVERIFY2(metrics.horizontalAdvance(QStringLiteral("Memory per GPU (GB)")) > room,
             qPrintable(QString::number(room)));
    QVERIFY2(metrics.horizontalAdvance(QStringLiteral("GB per GPU")) <= room,
             qPrintable(QString::number(room)));
    QCOMPARE(y->label(), QStringLiteral("GB per GPU"));
    QVERIFY(textCollisions(chart.plot(), {}).isEmpty());
    chart.resize(1000, 900);
    chart.plot()->replot();
    QCOMPARE(y->label(), QStringLiteral("Memory per GPU (GB)"));
}

void TestChartCollision::axisTitleBoxesMatchThePixels()
{
    // axisTitleRect() computes where QCustomPlot draws a title; the drawing agrees: ink
    // (dark pixels on the light canvas) inside the box, none beside it along the axis, and
    // none between the box and the widget's edge.
    MemoryChart chart;
    QVERIFY(test::shownAt(chart, QSize(900, 500)));
    const Scenario s = seventyB(8, ZeroStage::Zero3);
    drawReport(chart, s);
    const QImage image = chart.plot()->toPixmap().toImage();
    const auto ink = [&image](const QRect &r) {
        int n = 0;
        for (int y = std::max(0, r.top()); y <= std::min(image.height() - 1, r.bottom()); ++y)
            for (int x = std::max(0, r.left()); x <= std::min(image.width() - 1, r.right()); ++x)
                n += QColor(image.pixel(x, y)).lightness() < 128 ? 1 : 0;
        return n;
    };
    const QRect ar = chart.plot()->axisRect()->rect();
    const QRect y = axisTitleRect(chart.plot()->yAxis).toAlignedRect();
    QVERIFY2(ink(y) > 50, qPrintable(describe(y)));
    QCOMPARE(ink(QRect(0, ar.top(), y.left() - 1, ar.height())), 0);                // left of it
    QCOMPARE(ink(QRect(y.left(), ar.top(), y.width(), y.top() - ar.top() - 1)), 0); // above
    QCOMPARE(ink(QRect(y.left(), y.bottom() + 2, y.width(), ar.bottom() - y.bottom() - 2)), 0);
    const QRect x = axisTitleRect(chart.plot()->xAxis).toAlignedRect();
    QVERIFY2(ink(x) > 50, qPrintable(describe(x)));
    QCOMPARE(ink(QRect(0, x.bottom() + 2, image.width(), image.height())), 0);         // below it
    QCOMPARE(ink(QRect(ar.left(), x.top(), x.left() - 1 - ar.left(), x.height())), 0); // left
    QCOMPARE(ink(QRect(x.right() + 2, x.top(), ar.right() - x.right() - 2, x.height())), 0);
}

void TestChartCollision::groupsWhenTextWouldNotFit()
{
    MemoryChart chart;
    QVERIFY(test::shownAt(chart, QSize(600, 300)));
    // 1,120 GB / 16 = 70 GB on each of 16 identical GPUs (ZeRO paper accounting): at 600 px
    // sixteen "70 GB" totals cannot stand side by side, so one bar stands for them all.
    const Scenario sixteen = seventyB(16, ZeroStage::Zero3);
    chart.setReport(sixteen, estimate(sixteen), ByteUnit::GB);
    chart.plot()->replot();
    QVERIFY(chart.grouped());
    QCOMPARE(chart.barCount(), 1);
    QCOMPARE(chart.barLabel(0), QStringLiteral("GPU 0–15\n× 16"));
    QCOMPARE(chart.totalItem(0)->text(), QStringLiteral("70 GB"));
    // Two GPUs fit side by side, each with its own label and total.
    const Scenario two = seventyB(2, ZeroStage::Zero3); // 1,120 / 2 = 560 GB
    chart.setReport(two, estimate(two), ByteUnit::GB);
    chart.plot()->replot();
    QVERIFY(!chart.grouped());
    QCOMPARE(chart.barCount(), 2);
    QCOMPARE(chart.tickLabel(1), QStringLiteral("GPU 1"));
    // 16 stages of Llama 3 70B in 600 px: one bar per stage, numbered, the title saying
    // what the numbers are; where even numbers crowd, every k-th is written.
    const Scenario stages = llama70b(16, 16, ZeroStage::Zero1);
    chart.setReport(stages, estimate(stages), ByteUnit::GB);
    chart.plot()->replot();
    QCOMPARE(chart.barCount(), 16);
    QCOMPARE(chart.barLabel(3), QStringLiteral("Stage 3\nGPU 3"));
    QCOMPARE(chart.plot()->xAxis->label(), QStringLiteral("Pipeline stage (1 GPU each)"));
    QVERIFY(chart.tickLabel(0) == QStringLiteral("0"));
    QVERIFY(chart.labelStride() >= 1);
    // A big window gives each of the 16 GPUs its bar and its full label back.
    chart.resize(1920, 1080);
    chart.plot()->replot();
    QCOMPARE(chart.labelStride(), 1);
    QCOMPARE(chart.tickLabel(3), chart.barLabel(3));
}

void TestChartCollision::equalNeighbourTotalsBothShow()
{
    // Llama 3 70B on 64 H100s as t 8 x p 4 under ZeRO-1, presentation on a 1280 x 720
    // projector: the middle stages' totals (24.8 and 24.6 GB) are each wider than a
    // stage's slot, so side by side they touch. The second stands one step higher over its
    // own bar, under the line, rather than being hidden: all four show, none over another.
    MainWindow w;
    w.setPresentationMode(true);
    QVERIFY(test::shownAt(w, QSize(1280, 720)));
    w.session()->edit([](Scenario &s) {
        s.layout.tensorParallel = 8;
        s.layout.pipelineParallel = 4;
        s.layout.zeroStage = ZeroStage::Zero1;
    });
    QCoreApplication::processEvents();
    MemoryChart *chart = w.chart();
    chart->plot()->replot();
    QCOMPARE(chart->barCount(), 4);
    QVector<QRectF> boxes;
    const double linePx = chart->plot()->yAxis->coordToPixel(chart->capacityValue());
    for (int i = 0; i < 4; ++i) {
        const QCPItemText *total = chart->totalItem(i);
        QVERIFY2(total->visible(), qPrintable(QStringLiteral("stage %1's total hidden").arg(i)));
        const QRectF box = itemTextRect(total);
        QVERIFY(std::abs(box.center().x() - chart->plot()->xAxis->coordToPixel(i + 1)) <
                box.width() / 2);    // over its own bar
        QVERIFY(box.top() > linePx); // on the bars' side of the line
        boxes << box;
    }
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j)
            QVERIFY2(!boxes[i].intersects(boxes[j]),
                     qPrintable(QStringLiteral("totals %1 and %2 overlap").arg(i).arg(j)));
    // Side by side at one height, the two middle ones would touch.
    QVERIFY(boxes[1]
                .adjusted(-2, -2, 2, 2)
                .intersects(boxes[2].translated(0, boxes[1].top() - boxes[2].top())));
}

void TestChartCollision::totalLeavesTheLine()
{
    // 1,120 GB / 15 = 74.67 GB ends 5.3 GB under the 80 GB line, about the height of its
    // own total; 1,120 GB / 14 = 80 GB ends on it: each total stays clear of the line, on
    // one side or the other, on a plate of the canvas colour.
    MemoryChart chart;
    QVERIFY(test::shownAt(chart, QSize(1280, 720)));
    for (const auto &[gpus, text] : {std::pair{15, "74.7 GB"}, std::pair{14, "80 GB"}}) {
        const Scenario s = seventyB(gpus, ZeroStage::Zero3);
        drawReport(chart, s);
        const QCPItemText *total = chart.totalItem(0);
        QCOMPARE(total->text(), QString::fromUtf8(text));
        QVERIFY(total->visible());
        const QRectF box = itemTextRect(total);
        const double linePx = chart.plot()->yAxis->coordToPixel(80.0);
        const double half = capacityPen(chart.chartStyle()).widthF() / 2;
        QVERIFY2(box.bottom() < linePx - half || box.top() > linePx + half,
                 qPrintable(
                     QStringLiteral("%1..%2 vs %3").arg(box.top()).arg(box.bottom()).arg(linePx)));
        QCOMPARE(total->brush().color(), chart.chartStyle().background); // on a plate
    }

    // The comparison: ZeRO-3's 17.5 GB (70e9 x 16 / 64) under a 1,120 GB DDP bar's scale,
    // where the 80 GB line runs a few pixels above the short bar.
    CompareChart compare;
    QVERIFY(test::shownAt(compare, QSize(1280, 720)));
    compare.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    compare.plot()->replot();
    const QCPItemText *zero3 = compare.totalItem(3);
    QCOMPARE(zero3->text(), QStringLiteral("17.5 GB"));
    QVERIFY(zero3->visible());
    const QRectF r = itemTextRect(zero3);
    const double line = compare.plot()->yAxis->coordToPixel(80.0);
    const double half = capacityPen(compare.chartStyle()).widthF() / 2;
    QVERIFY2(r.bottom() < line - half || r.top() > line + half,
             qPrintable(QStringLiteral("%1..%2 vs %3").arg(r.top()).arg(r.bottom()).arg(line)));
}

void TestChartCollision::legendOrderIsFixed()
{
    // The legend lists what is drawn in Component order, whatever came and went before.
    MemoryChart chart;
    auto names = [&chart] {
        QStringList list;
        for (int i = 0; i < chart.plot()->legend->itemCount(); ++i)
            if (auto *item = qobject_cast<QCPPlottableLegendItem *>(chart.plot()->legend->item(i)))
                list << item->plottable()->name();
        return list;
    };
    auto inOrder = [](const QStringList &list) {
        QStringList all;
        for (int c = 0; c < componentCount; ++c)
            all << QString::fromUtf8(componentName(Component(c)).data());
        all << QStringLiteral("Above capacity");
        int at = -1;
        for (const QString &n : list) {
            const int k = int(all.indexOf(n));
            if (k <= at)
                return false;
            at = k;
        }
        return true;
    };
    const Scenario full = llama70b(8, 1, ZeroStage::Ddp);   // activations, buffers, overflow
    const Scenario states = seventyB(64, ZeroStage::Zero3); // model states only, fits
    chart.setReport(full, estimate(full), ByteUnit::GB);
    const QStringList first = names();
    QVERIFY(first.contains(QStringLiteral("Above capacity")));
    QVERIFY(inOrder(first));
    chart.setReport(states, estimate(states), ByteUnit::GB);
    QVERIFY(!names().contains(QStringLiteral("Above capacity")));
    QVERIFY(inOrder(names()));
    chart.setReport(full, estimate(full), ByteUnit::GB);
    QCOMPARE(names(), first);
}

QTEST_MAIN(TestChartCollision)
#include "test_chartcollision.moc"
