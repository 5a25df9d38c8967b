// The chart as data: stack tops equal the sum of their parts, the capacity
// line sits at the card's value, overflow is marked, tooltips carry exact bytes.
// (LabPlot's BarPlot tests are the model: assert data and pixel geometry.)
#include "chartscenarios.h"
#include "estimate.h"
#include "memorychart.h"
#include "widgettest.h"

#include <QLocale>
#include <QTest>
#include <qcustomplot.h>

using namespace shardscope;

class TestMemoryChart : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void stackTopIsSumOfParts();
    void capacityLineAndOverflowMarking();
    void capacityLineAtTheDriverTotal();
    void overflowHiddenWhenItFits();
    void tooltipHasExactBytes();
    void invalidReportShowsMessage();
    void measuredLabelFitsItsPlot();
    void shortChartGivesTheGpuTitleToTheBars();
};

void TestMemoryChart::measuredLabelFitsItsPlot()
{
    // One bar in a narrow chart: "measured peak used 66.6 GB" does not fit between the
    // line's start and the axis rect's end, so it reads "measured 66.6 GB" or "66.6 GB",
    // inside the axis rect; a wide chart keeps the whole label.
    const Scenario s = seventyB(1, ZeroStage::Ddp);
    const QString label = QStringLiteral("measured peak used 66.6 GB");
    for (const int width : {420, 1600}) {
        MemoryChart chart;
        QVERIFY(test::shownAt(chart, QSize(width, 500)));
        chart.setMeasured(66'571'993'088, label);
        drawReport(chart, s);
        chart.plot()->replot();
        const QCPItemText *text = chart.measuredItem();
        QVERIFY(text->visible());
        const QRectF box = itemTextRect(text);
        QVERIFY2(box.right() <= chart.plot()->axisRect()->rect().right() + 1,
                 qPrintable(QStringLiteral("%1 px wide: '%2' ends at %3, the axis rect at %4")
                                .arg(width)
                                .arg(text->text())
                                .arg(box.right())
                                .arg(chart.plot()->axisRect()->rect().right())));
        if (width == 1600)
            QCOMPARE(text->text(), label);
        else
            QVERIFY(text->text() == QStringLiteral("measured 66.6 GB") ||
                    text->text() == QStringLiteral("66.6 GB"));
    }
}

void TestMemoryChart::shortChartGivesTheGpuTitleToTheBars()
{
    // The Memory tab's chart in presentation type on a 1280 x 720 projector is 868 x 335
    // px. Its one bar reads "GPU 0–63\n× 64", so "GPUs (global rank)" gives its line to
    // the bars; at 1080p (1468 x 588) the title stays. Replots leave either as it is, and
    // the title returns when the chart grows.
    MemoryChart chart;
    chart.setChartStyle(ChartStyle::presentation(false));
    QVERIFY(test::shownAt(chart, QSize(868, 335)));
    drawReport(chart, seventyB(64, ZeroStage::Ddp));
    for (int i = 0; i < 3; ++i) {
        chart.plot()->replot();
        QCOMPARE(chart.plot()->xAxis->label(), QString());
        QCOMPARE(chart.tickLabel(0), QStringLiteral("GPU 0–63\n× 64"));
    }
    // The rule (MemoryChart::fitText()): with the title's line, the rect would be under
    // four such lines.
    const int line = QFontMetrics(chart.plot()->xAxis->labelFont()).height() +
                     chart.plot()->xAxis->labelPadding();
    QVERIFY(chart.plot()->axisRect()->height() - line < 4 * line);
    chart.resize(1468, 588);
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::processEvents();
        chart.plot()->replot();
        QCOMPARE(chart.plot()->xAxis->label(), QStringLiteral("GPUs (global rank)"));
    }
    QVERIFY(chart.plot()->axisRect()->height() >= 4 * line);
}

void TestMemoryChart::stackTopIsSumOfParts()
{
    MemoryChart chart;
    const Scenario s = seventyB(8, ZeroStage::Zero1);
    const MemoryReport r = estimate(s);
    chart.setReport(s, r, ByteUnit::GB);
    QCOMPARE(chart.barCount(), 8);
    for (int i = 0; i < 8; ++i) {
        // 70e9 x (2 + 2) + 70e9 x 12 / 8 = 385 GB (hand calculation)
        QCOMPARE(chart.stackTop(i), 385.0);
        QCOMPARE(chart.componentHeight(i, Component::Weights), 140.0);
        QCOMPARE(chart.componentHeight(i, Component::MasterWeights), 35.0);
    }
}

void TestMemoryChart::capacityLineAndOverflowMarking()
{
    MemoryChart chart;
    QVERIFY(test::shownAt(chart, QSize(1200, 800)));
    const Scenario s = seventyB(64, ZeroStage::Ddp);
    drawReport(chart, s);
    QCOMPARE(chart.capacityValue(), 80.0);
    QCOMPARE(chart.capacityLabel(), QStringLiteral("H100\n80 GB"));
    // The value axis always shows both the line and the top of the bar.
    QVERIFY(chart.plot()->yAxis->range().upper >= 1120.0);
    // The overflow plottable spans exactly capacity .. top.
    auto *overflow = qobject_cast<QCPBars *>(chart.plot()->plottable(componentCount));
    QVERIFY(overflow);
    QCOMPARE(overflow->baseValue(), 80.0);
    QCOMPARE(overflow->data()->size(), 1);
    QCOMPARE(overflow->data()->at(0)->value, 1040.0);
    // Geometry: the line's pixel is below (greater y than) the bar's top pixel.
    const double linePx = chart.plot()->yAxis->coordToPixel(80.0);
    const double topPx = chart.plot()->yAxis->coordToPixel(chart.stackTop(0));
    QVERIFY(linePx > topPx);
    QVERIFY(topPx > chart.plot()->axisRect()->top()); // the bar's top is on screen
}

void TestMemoryChart::capacityLineAtTheDriverTotal()
{
    // The catalog's H100 SXM 80GB: its driver reports 81,559 MiB = 85,520,809,984 bytes,
    // where the line is drawn; the label names the card as sold and the line's value.
    Scenario s = seventyB(64, ZeroStage::Ddp);
    s.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    MemoryChart chart;
    chart.setReport(s, estimate(s), ByteUnit::GB);
    QCOMPARE(chart.capacityValue(), 85.520809984);
    QCOMPARE(chart.capacityLabel(), QStringLiteral("H100 80 GB\n85.5 GB usable"));
    // The overflow part starts at the line: 1,120 - 85.520809984 GB above it.
    auto *overflow = qobject_cast<QCPBars *>(chart.plot()->plottable(componentCount));
    QVERIFY(overflow);
    QCOMPARE(overflow->baseValue(), 85.520809984);
    QCOMPARE(overflow->data()->at(0)->value, 1120.0 - 85.520809984);
    // In GiB: 81,559 / 1,024 = 79.65 GiB.
    chart.setReport(s, estimate(s), ByteUnit::GiB);
    QCOMPARE(chart.capacityValue(), 81559 / 1024.0);
    QCOMPARE(chart.capacityLabel(), QStringLiteral("H100 80 GB\n79.6 GiB usable"));
}

void TestMemoryChart::overflowHiddenWhenItFits()
{
    MemoryChart chart;
    const Scenario s = seventyB(64, ZeroStage::Zero3);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    auto *overflow = qobject_cast<QCPBars *>(chart.plot()->plottable(componentCount));
    QCOMPARE(overflow->data()->size(), 0);
    // The value range still reaches the capacity line even though the bar is short.
    QVERIFY(chart.plot()->yAxis->range().upper > 80.0);
}

void TestMemoryChart::tooltipHasExactBytes()
{
    MemoryChart chart;
    const Scenario s = seventyB(64, ZeroStage::Zero3);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    const QString tip = chart.tooltipText(0);
    QVERIFY(tip.contains(QStringLiteral("GPUs 0–63</b> (64 identical GPUs)")));
    QVERIFY(tip.contains(QStringLiteral("8,750,000,000 bytes")));  // optimizer states
    QVERIFY(tip.contains(QStringLiteral("17,500,000,000 bytes"))); // total
    QVERIFY(chart.tooltipText(5).isEmpty());
}

void TestMemoryChart::invalidReportShowsMessage()
{
    MemoryChart chart;
    Scenario s = seventyB(0, ZeroStage::Zero3);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    QCOMPARE(chart.barCount(), 0);
    QCOMPARE(chart.stackTop(0), 0.0);
}

QTEST_MAIN(TestMemoryChart)
#include "test_memorychart.moc"
