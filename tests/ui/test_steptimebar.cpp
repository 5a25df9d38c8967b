// Where one step goes (ui/charts/steptimebar.h): the stacked bar's segments are the engine's
// StepBreakdown parts of catalog scenarios and add up to the step, the legend names them
// with their seconds, the colours drawn are the legend's, the text never collides at
// window sizes in every style, an untimeable step shows its message and no bars, and in
// the window the bar follows a change once the drag rests, with the donut.
#include "../testsupport.h"
#include "chartparts.h"
#include "chartstyle.h"
#include "estimate.h"
#include "mainwindow.h"
#include "memorychart.h"
#include "session.h"
#include "steptime.h"
#include "steptimebar.h"
#include "widgettest.h"

#include <QDir>
#include <QLocale>
#include <QSet>
#include <QSplitter>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

StepTime timed(const Scenario &s)
{
    return stepTime(s, estimate(s));
}

/// Every text box of the bar at its last layout: title, legend entries, tick labels.
QVector<std::pair<QString, QRectF>> textBoxes(const StepTimeBar &bar)
{
    QVector<std::pair<QString, QRectF>> boxes;
    const QCustomPlot *plot = bar.plot();
    const QCPTextElement *title = bar.titleElement();
    const QRectF titleText =
        QFontMetricsF(title->font())
            .boundingRect(QRectF(title->rect()), Qt::AlignCenter | Qt::TextDontClip, title->text());
    boxes.push_back({QStringLiteral("title"), titleText});
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem *item = plot->legend->item(i)) // cells may be empty
            boxes.push_back({QStringLiteral("legend %1").arg(i), QRectF(item->rect())});
    for (const QRectF &r : tickLabelRects(plot->xAxis))
        boxes.push_back({QStringLiteral("x tick"), r});
    return boxes;
}

/// Empty when every text box lies inside the widget and clear of every other one, no
/// legend entry is cut and the bar has at least 12 pixels; else what failed.
QString collisions(const StepTimeBar &bar)
{
    const QCustomPlot *plot = bar.plot();
    const auto boxes = textBoxes(bar);
    const QRectF viewport(plot->viewport());
    for (int i = 0; i < boxes.size(); ++i) {
        if (!viewport.contains(boxes[i].second))
            return boxes[i].first + QStringLiteral(" leaves the widget");
        for (int j = i + 1; j < boxes.size(); ++j)
            if (boxes[i].second.intersects(boxes[j].second))
                return boxes[i].first + QStringLiteral(" overlaps ") + boxes[j].first;
    }
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (const QCPAbstractLegendItem *item = plot->legend->item(i))
            if (item->outerRect().width() < item->minimumOuterSizeHint().width() ||
                item->outerRect().height() < item->minimumOuterSizeHint().height())
                return QStringLiteral("legend %1 is cut").arg(i);
    // Laid out at the size it is drawn at.
    if (plot->viewport().size() != bar.size())
        return QStringLiteral("the plot is laid out for %1 px, drawn in %2")
            .arg(plot->viewport().height())
            .arg(bar.height());
    if (bar.timed() && plot->axisRect()->height() * 0.7 < 12)
        return QStringLiteral("the bar is %1 px thick").arg(plot->axisRect()->height() * 0.7);
    // The legend and tick labels stay clear of the bar itself.
    const QRectF area(plot->axisRect()->rect());
    for (const auto &[what, r] : boxes)
        if (what != QStringLiteral("x tick") && r.intersects(area))
            return what + QStringLiteral(" covers the bar");
    return {};
}

} // namespace

class TestStepTimeBar : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void segmentsAreTheBreakdown();
    void everyCollectiveGetsItsSegment();
    void drawnColoursMatchTheLegend();
    void untimeableStepShowsTheMessage();
    void followsTheStyle();
    void textNeverCollides();
    void windowShowsItUnderTheBars();
    void readableOnAProjector();
};

void TestStepTimeBar::segmentsAreTheBreakdown()
{
    // Llama 3 70B on 64 H100, ZeRO-3, full recomputation.
    const StepTime t = timed(test::llama70bZero3());
    QVERIFY2(t.valid(), t.error.c_str());
    const StepBreakdown b = stepBreakdown(t);
    StepTimeBar bar;
    bar.setStepTime(t);
    QVERIFY(bar.timed());
    QVERIFY(bar.message().isEmpty());
    QCOMPARE(bar.stepSeconds(), t.stepSeconds);

    // Every non-zero part, in the bar's order, with the engine's seconds.
    std::vector<StepTimeBar::Part> expected;
    for (int i = 0; i < StepTimeBar::partCount; ++i)
        if (StepTimeBar::partSeconds(b, StepTimeBar::Part(i)) > 0)
            expected.push_back(StepTimeBar::Part(i));
    const auto &segments = bar.segments();
    QCOMPARE(segments.size(), expected.size());
    // ZeRO-3 with full recomputation: forward, backward, recompute, the data-parallel
    // gathers and reduce-scatters, the optimizer step.
    QVERIFY(b.forward > 0 && b.backward > 0 && b.recompute > 0 && b.dataParallel > 0);
    QCOMPARE(segments[0].part, StepTimeBar::Part::Forward);
    QCOMPARE(segments[1].part, StepTimeBar::Part::Backward);
    QCOMPARE(segments[2].part, StepTimeBar::Part::Recompute);
    double sum = 0;
    const QCPBars *below = nullptr;
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const StepTimeBar::Segment &s = segments[i];
        QCOMPARE(s.part, expected[i]);
        QCOMPARE(s.seconds, StepTimeBar::partSeconds(b, s.part));
        // The bar drawn holds exactly that value, stacked on the one before.
        QCOMPARE(s.bars->data()->size(), 1);
        QCOMPARE(s.bars->data()->at(0)->key, 1.0);
        QCOMPARE(s.bars->data()->at(0)->value, s.seconds);
        QCOMPARE(s.bars->barBelow(), below);
        QCOMPARE(s.bars->brush().color(), StepTimeBar::partColor(s.part));
        below = s.bars;
        sum += s.seconds;
    }
    QVERIFY2(
        std::abs(sum - t.stepSeconds) <= 1e-9 * t.stepSeconds,
        qPrintable(QStringLiteral("%1 vs %2").arg(sum, 0, 'g', 17).arg(t.stepSeconds, 0, 'g', 17)));
    QCOMPARE(below->barAbove(), nullptr);
    // The time axis runs from 0 to the step: the last segment ends at its right end.
    QCOMPARE(bar.plot()->xAxis->range().lower, 0.0);
    QCOMPARE(bar.plot()->xAxis->range().upper, t.stepSeconds);

    // The legend: one entry per segment, in order, named with its seconds.
    const QList<QCPAbstractPlottable *> listed = bar.legendPlottables();
    QCOMPARE(listed.size(), qsizetype(segments.size()));
    for (std::size_t i = 0; i < segments.size(); ++i) {
        QCOMPARE(listed[qsizetype(i)], static_cast<QCPAbstractPlottable *>(segments[i].bars));
        const QString name = StepTimeBar::partName(segments[i].part) + u' ' +
                             StepTimeBar::secondsText(segments[i].seconds);
        QCOMPARE(listed[qsizetype(i)]->name(), name);
        QCOMPARE(bar.legendText(int(i)), name);
    }
    QVERIFY(bar.legendText(0).startsWith(QStringLiteral("Forward ")));
    QVERIFY(bar.legendText(1).startsWith(QStringLiteral("Backward ")));
    QVERIFY(bar.legendText(2).startsWith(QStringLiteral("Recompute ")));
    bool dataParallel = false;
    for (int i = 0; i < int(segments.size()); ++i)
        dataParallel =
            dataParallel || bar.legendText(i).startsWith(QStringLiteral("Data-parallel comm. "));
    QVERIFY(dataParallel);
    QCOMPARE(bar.title(),
             QStringLiteral("Where one step goes: ") + StepTimeBar::secondsText(t.stepSeconds));
    QVERIFY(!bar.title().contains(QStringLiteral("nan"), Qt::CaseInsensitive));

    // Seconds read as the text report writes them.
    QCOMPARE(StepTimeBar::secondsText(38.62), QStringLiteral("38.6 s"));
    QCOMPARE(StepTimeBar::secondsText(0.523), QStringLiteral("0.52 s"));
    QCOMPARE(StepTimeBar::secondsText(0.0041), QStringLiteral("4.1 ms"));
    QCOMPARE(StepTimeBar::secondsText(0.00012), QStringLiteral("0.12 ms"));
    // Tooltips: name, seconds and share.
    QVERIFY(bar.tooltipText(0).startsWith(QStringLiteral("<b>Forward</b><br>")));
    QVERIFY(bar.tooltipText(-1).isEmpty());
    QVERIFY(bar.tooltipText(int(segments.size())).isEmpty());
}

void TestStepTimeBar::everyCollectiveGetsItsSegment()
{
    // Llama 3 70B at t 8, p 4, d 2, 1F1B: tensor- and pipeline-parallel traffic, a bubble.
    const StepTime t = timed(test::llama70bPipeline());
    QVERIFY2(t.valid(), t.error.c_str());
    const StepBreakdown b = stepBreakdown(t);
    QVERIFY(b.tensorParallel > 0 && b.bubble > 0);
    StepTimeBar bar;
    bar.setStepTime(t);
    double sum = 0;
    QStringList names;
    for (const StepTimeBar::Segment &s : bar.segments()) {
        QCOMPARE(s.seconds, StepTimeBar::partSeconds(b, s.part));
        sum += s.seconds;
        names << StepTimeBar::partName(s.part);
    }
    QVERIFY(std::abs(sum - t.stepSeconds) <= 1e-9 * t.stepSeconds);
    QVERIFY(names.contains(QStringLiteral("Tensor-parallel comm.")));
    QVERIFY(names.contains(QStringLiteral("Pipeline bubble")));
    QCOMPARE(names.contains(QStringLiteral("Pipeline-parallel comm.")), b.pipelineParallel > 0);
    QCOMPARE(names.contains(QStringLiteral("Data-parallel comm.")), b.dataParallel > 0);
    QCOMPARE(bar.legendPlottables(), bar.drawnPlottables());

    // Back to the ZeRO-3 step: the legend lists the new set in the bar's order.
    bar.setStepTime(timed(test::llama70bZero3()));
    QVERIFY(bar.drawnPlottables().size() < qsizetype(names.size()));
    QCOMPARE(bar.legendPlottables(), bar.drawnPlottables());
    // Parts no longer there have no data left to draw.
    int withData = 0;
    for (int i = 0; i < bar.plot()->plottableCount(); ++i)
        if (auto *bars = qobject_cast<QCPBars *>(bar.plot()->plottable(i)))
            withData += bars->data()->isEmpty() ? 0 : 1;
    QCOMPARE(withData, int(bar.segments().size()));
}

void TestStepTimeBar::drawnColoursMatchTheLegend()
{
    // The pixels in the middle of each segment wide enough to hit are its colour, and the
    // legend icon the same QCPBars' brush; the seconds written inside a segment lie in it.
    StepTimeBar bar;
    bar.setStepTime(timed(test::llama70bPipeline()));
    QVERIFY(test::shownAt(bar, QSize(1000, 140)));
    bar.plot()->replot();
    const QCPAxis *x = bar.plot()->xAxis;
    const double y = bar.plot()->yAxis->coordToPixel(1);
    double start = 0;
    for (const StepTimeBar::Segment &s : bar.segments()) {
        const double left = x->coordToPixel(start), right = x->coordToPixel(start + s.seconds);
        start += s.seconds;
        const QCPItemText *value = bar.valueItem(s.part);
        QCOMPARE(value->text(), StepTimeBar::secondsText(s.seconds));
        if (value->visible()) {
            const QRectF box = itemTextRect(value);
            QVERIFY2(box.left() >= left && box.right() <= right, qPrintable(value->text()));
            QVERIFY(std::abs(box.center().y() - y) <= 1);
        }
    }
    // The longest segment, backward, has room for its seconds at 1,000 pixels.
    QVERIFY(bar.valueItem(StepTimeBar::Part::Backward)->visible());

    const QImage img = bar.plot()->toPixmap().toImage();
    start = 0;
    int checked = 0;
    QSet<QRgb> colours;
    for (const StepTimeBar::Segment &s : bar.segments()) {
        const double left = x->coordToPixel(start), right = x->coordToPixel(start + s.seconds);
        start += s.seconds;
        colours.insert(StepTimeBar::partColor(s.part).rgb());
        if (right - left < 10)
            continue;
        // The colour most pixels of the segment's middle row have (its seconds are
        // written over a few).
        std::map<QRgb, int> counts;
        for (int px = int(left) + 2; px < int(right) - 2; ++px)
            ++counts[img.pixelColor(px, int(y)).rgb()];
        const auto most = std::max_element(counts.begin(), counts.end(),
                                           [](auto a, auto b) { return a.second < b.second; });
        QCOMPARE(most->first, StepTimeBar::partColor(s.part).rgb());
        ++checked;
    }
    QVERIFY(checked >= 3);
    QCOMPARE(colours.size(), int(bar.segments().size())); // distinct
    QSet<QRgb> all;
    for (int i = 0; i < StepTimeBar::partCount; ++i)
        all.insert(StepTimeBar::partColor(StepTimeBar::Part(i)).rgb());
    QCOMPARE(all.size(), StepTimeBar::partCount);
}

void TestStepTimeBar::untimeableStepShowsTheMessage()
{
    Scenario s = test::llama70bZero3();
    s.gpu.bf16FlopsPerSecond = 0;
    const StepTime t = timed(s);
    QVERIFY(!t.valid());
    StepTimeBar bar;
    bar.setStepTime(timed(test::llama70bZero3())); // from a timed step to none
    QVERIFY(!bar.segments().empty());
    bar.setStepTime(t);
    QVERIFY(!bar.timed());
    QVERIFY(bar.segments().empty());
    QCOMPARE(bar.stepSeconds(), 0.0);
    QCOMPARE(bar.message(), QStringLiteral("Step not timed: ") + QString::fromStdString(t.error));
    QCOMPARE(bar.title(), bar.message());
    QVERIFY(!bar.message().contains(QStringLiteral("nan"), Qt::CaseInsensitive));
    QVERIFY(bar.legendPlottables().isEmpty());
    for (int i = 0; i < bar.plot()->plottableCount(); ++i)
        QVERIFY(qobject_cast<QCPBars *>(bar.plot()->plottable(i))->data()->isEmpty());
    QVERIFY(!bar.plot()->xAxis->visible());
    QCOMPARE(bar.titleElement()->textColor(), ChartStyle::light().alert);
    // Drawn at a window's width, the one line fits (elided, whole in the tooltip).
    QVERIFY(test::shownAt(bar, QSize(500, 120)));
    bar.plot()->replot();
    QVERIFY2(collisions(bar).isEmpty(), qPrintable(collisions(bar)));
    QVERIFY(!bar.titleElement()->text().contains(u'\n'));
    QVERIFY(
        QFontMetrics(bar.titleElement()->font()).horizontalAdvance(bar.titleElement()->text()) <=
        bar.plot()->width());
    // A StepTime never computed is no step either.
    bar.setStepTime(StepTime{});
    QVERIFY(!bar.timed());
    // And a timed step again draws its bar.
    bar.setStepTime(timed(test::llama70bZero3()));
    QVERIFY(bar.timed());
    QVERIFY(bar.plot()->xAxis->visible());
    QCOMPARE(bar.titleElement()->textColor(), ChartStyle::light().ink);
}

void TestStepTimeBar::followsTheStyle()
{
    StepTimeBar bar;
    bar.setStepTime(timed(test::llama70bZero3()));
    QCOMPARE(bar.plot()->xAxis->tickLabelFont().pointSizeF(), 12.0);
    QCOMPARE(bar.titleElement()->font().pointSizeF(), 13.0);
    QCOMPARE(bar.plot()->legend->font().pointSizeF(), 11.0);
    const ChartStyle dark = ChartStyle::dark();
    QCOMPARE(applyChartStyle(&bar, dark), 1);
    QCOMPARE(bar.chartStyle().background, dark.background);
    QCOMPARE(bar.plot()->axisRect()->backgroundBrush().color(), dark.background);
    QCOMPARE(bar.plot()->xAxis->tickLabelColor(), dark.ink);
    QCOMPARE(bar.plot()->legend->textColor(), dark.ink);
    QCOMPARE(bar.titleElement()->textColor(), dark.ink);
    for (const StepTimeBar::Segment &s : bar.segments()) {
        QCOMPARE(s.bars->pen().color(), dark.barOutline);
        QCOMPARE(s.bars->brush().color(), StepTimeBar::partColor(s.part));
    }
    const ChartStyle present = ChartStyle::presentation(false);
    bar.setChartStyle(present);
    QCOMPARE(bar.plot()->xAxis->tickLabelFont().pointSizeF(), 18.0);
    QCOMPARE(bar.titleElement()->font().pointSizeF(), 19.5);
    QCOMPARE(bar.plot()->legend->font().pointSizeF(), 16.5);
    QCOMPARE(bar.plot()->xAxis->tickLabelColor(), QColor(Qt::black));
    // The larger type asks for more height.
    QVERIFY(test::shownAt(bar, QSize(800, 100)));
    bar.plot()->replot();
    const int presentHeight = bar.minimumHeight();
    bar.setChartStyle(ChartStyle::light());
    bar.plot()->replot();
    QVERIFY2(bar.minimumHeight() < presentHeight,
             qPrintable(QStringLiteral("%1 vs %2").arg(bar.minimumHeight()).arg(presentHeight)));
}

void TestStepTimeBar::textNeverCollides()
{
    // At the widths the chart column has (a 1280 x 720 projector to a 1080p export) and the
    // height it asks for, in every style, for a plain step and one with many parts.
    const Scenario scenarios[] = {test::llama70bZero3(), test::llama70bPipeline(),
                                  test::catalogScenario("llama3-8b", 1, ZeroStage::Ddp)};
    const ChartStyle styles[] = {ChartStyle::light(), ChartStyle::dark(),
                                 ChartStyle::presentation(false), ChartStyle::presentation(true)};
    for (const Scenario &s : scenarios) {
        const StepTime t = timed(s);
        QVERIFY2(t.valid(), t.error.c_str());
        for (const ChartStyle &style : styles) {
            for (const int width : {420, 520, 760, 1200, 1800}) {
                StepTimeBar bar;
                bar.setChartStyle(style);
                bar.setStepTime(t);
                QVERIFY(test::shownAt(bar, QSize(width, 100)));
                bar.plot()->replot();
                QCoreApplication::processEvents();
                // Given the height it asked for (as the splitter gives it).
                bar.resize(width, std::max(bar.minimumHeight(), 60));
                bar.plot()->replot();
                bar.plot()->replot();
                const QString where =
                    QStringLiteral("%1 GPUs %2, %3 px, font x%4%5")
                        .arg(s.layout.gpus)
                        .arg(QString::fromStdString(s.model.displayName))
                        .arg(width)
                        .arg(style.fontScale)
                        .arg(style.isDark() ? QStringLiteral(" dark") : QString());
                if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
                    !dir.isEmpty()) {
                    QDir().mkpath(dir);
                    bar.grab().save(QDir(dir).filePath(
                        QStringLiteral("steptimebar-%1gpus-p%2-%3px-x%4%5.png")
                            .arg(s.layout.gpus)
                            .arg(s.layout.pipelineParallel)
                            .arg(width)
                            .arg(style.fontScale)
                            .arg(style.isDark() ? QStringLiteral("-dark") : QString())));
                }
                const QString failure = collisions(bar);
                QVERIFY2(failure.isEmpty(), qPrintable(where + QStringLiteral(": ") + failure));
                QVERIFY2(!tickLabelRects(bar.plot()->xAxis).isEmpty(), qPrintable(where));
                // Compact: two rows of legend at most from 760 px in the normal type.
                if (style.fontScale == 1.0 && width >= 760)
                    QVERIFY2(
                        bar.minimumHeight() <= 130,
                        qPrintable(where + QStringLiteral(": %1 px").arg(bar.minimumHeight())));
            }
        }
    }
}

void TestStepTimeBar::windowShowsItUnderTheBars()
{
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1600, 950)));
    StepTimeBar *bar = w.stepTimeBar();
    QVERIFY(bar);
    // In the Memory tab's chart column, right under the memory bars.
    auto *column = qobject_cast<QSplitter *>(w.chart()->parentWidget());
    QVERIFY(column);
    QCOMPARE(column->indexOf(w.chart()), 0);
    QCOMPARE(column->indexOf(bar), 1);
    QVERIFY(bar->isVisible());
    QTRY_VERIFY(bar->timed());
    QCOMPARE(bar->stepSeconds(), w.session()->stepTime().stepSeconds);
    QVERIFY(bar->height() >= bar->minimumHeight());
    QVERIFY(bar->height() <= 160);

    // A change redraws the memory bars at once; the time bar follows with the donut once
    // the drag rests (the breakdown timer), not inside the drag's frame.
    const double before = bar->stepSeconds();
    w.session()->setGpus(128);
    const double after = w.session()->stepTime().stepSeconds;
    QVERIFY(after != before);
    QCOMPARE(bar->stepSeconds(), before);
    QTRY_COMPARE(bar->stepSeconds(), after);
    double sum = 0;
    for (const StepTimeBar::Segment &s : bar->segments())
        sum += s.seconds;
    QVERIFY(std::abs(sum - after) <= 1e-9 * after);

    // Styled with the window.
    w.setDarkTheme(true);
    QCOMPARE(bar->chartStyle().background, ChartStyle::dark().background);
    w.setPresentationMode(true);
    QCOMPARE(bar->chartStyle().fontScale, ChartStyle::presentation(true).fontScale);
    QVERIFY(bar->isVisible());
}

void TestStepTimeBar::readableOnAProjector()
{
    // Presentation mode on a 1280 x 720 projector, the pipeline step's eight parts: the bar
    // lies under the memory chart, which keeps its minimum, and its text is whole. Under a
    // running lesson's bar it gives its room back.
    MainWindow w;
    w.resize(1280, 720);
    w.setPresentationMode(true);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.session()->setScenario(test::llama70bPipeline());
    StepTimeBar *bar = w.stepTimeBar();
    QTRY_COMPARE(bar->stepSeconds(), w.session()->stepTime().stepSeconds);
    QCOMPARE(int(bar->segments().size()), 8);
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QCoreApplication::processEvents();
    }
    QCOMPARE(w.size(), QSize(1280, 720));
    QVERIFY(bar->isVisible());
    QVERIFY(w.chart()->height() >= w.chart()->minimumHeight());
    QVERIFY(bar->height() >= bar->minimumHeight());
    QVERIFY2(collisions(*bar).isEmpty(), qPrintable(collisions(*bar)));
    QCOMPARE(bar->chartStyle().fontScale, 1.5);

    w.startLesson(0);
    QCoreApplication::processEvents();
    QVERIFY(!bar->isVisible());
    QCOMPARE(w.size(), QSize(1280, 720));
    w.endLesson();
    QCoreApplication::processEvents();
    QVERIFY(bar->isVisible());
}

QTEST_MAIN(TestStepTimeBar)
#include "test_steptimebar.moc"
