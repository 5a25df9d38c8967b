// The strategy comparison: four reports from the engine, stacked in the memory
// chart's colours, with the ZeRO paper's 70B / 64 GPU model-state numbers.
#include "catalog.h"
#include "chartscenarios.h"
#include "comparechart.h"
#include "estimate.h"
#include "mainwindow.h"
#include "palette.h"
#include "session.h"
#include "widgettest.h"

#include <QLocale>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>
#include <qcustomplot.h>

using namespace shardscope;

namespace {
Scenario llama70bPipeline()
{
    Scenario s;
    s.model = *Catalog::builtIn().model("llama3-70b");
    s.gpu.shortName = "H100";
    s.gpu.capacityBytes = 80'000'000'000;
    s.layout.gpus = 64;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    s.layout.zeroStage = ZeroStage::Zero1;
    s.training.recompute = Recompute::Selective;
    return s;
}
} // namespace

class TestCompareChart : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void zeroPaperNumbers();
    void componentsPerStrategy();
    void coloursMatchMemoryChart();
    void capacityAndOverflow();
    void peakStageOfEachStrategy();
    void impossibleSettingsDropped();
    void gibUnit();
    void tooltipShowsBreakdownAndVerdict();
    void clickSelectsStrategy();
    void clickInTheWindowIsUndoable();
    void currentStrategyIsMarked();
};

void TestCompareChart::currentStrategyIsMarked()
{
    // The band behind the scenario's own strategy spans its slot (key i + 1, +-0.48) and the
    // axis rect's height, and follows the strategy.
    CompareChart chart;
    for (const auto &[stage, index] : {std::pair{ZeroStage::Zero2, 2}, {ZeroStage::Ddp, 0}}) {
        chart.setScenario(seventyB(64, stage), ByteUnit::GB);
        const QCPItemRect *band = chart.currentBand();
        QVERIFY(band->visible());
        QCOMPARE(band->topLeft->key(), index + 1 - 0.48);
        QCOMPARE(band->bottomRight->key(), index + 1 + 0.48);
        QCOMPARE(band->topLeft->value(), 0.0);     // the axis rect's top (ratio)
        QCOMPARE(band->bottomRight->value(), 1.0); // and bottom
    }
}

void TestCompareChart::zeroPaperNumbers()
{
    CompareChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    // 70e9 x 16 = 1,120 GB; 70e9 x 4 + 70e9 x 12 / 64 = 293.125 GB;
    // 70e9 x 2 + 70e9 x 14 / 64 = 155.3125 GB; 70e9 x 16 / 64 = 17.5 GB.
    QCOMPARE(chart.stackTop(0), 1120.0);
    QCOMPARE(chart.stackTop(1), 293.125);
    QCOMPARE(chart.stackTop(2), 155.3125);
    QCOMPARE(chart.stackTop(3), 17.5);
    QCOMPARE(chart.totalText(0), QStringLiteral("1,120 GB"));
    QCOMPARE(chart.totalText(1), QStringLiteral("293.1 GB"));
    QCOMPARE(chart.totalText(2), QStringLiteral("155.3 GB"));
    QCOMPARE(chart.totalText(3), QStringLiteral("17.5 GB"));
    QCOMPARE(chart.strategyLabel(0), QStringLiteral("DDP"));
    QCOMPARE(chart.strategyLabel(3), QStringLiteral("ZeRO-3 / FSDP"));
    QCOMPARE(chart.currentIndex(), 3);
    // The same regardless of which strategy the scenario itself uses.
    chart.setScenario(seventyB(64, ZeroStage::Ddp), ByteUnit::GB);
    QCOMPARE(chart.stackTop(3), 17.5);
    QCOMPARE(chart.currentIndex(), 0);
    // And each bar is exactly the engine's report for that strategy.
    for (int i = 0; i < 4; ++i) {
        const MemoryReport r = estimate(chart.scenarioOf(i));
        QCOMPARE(chart.report(i).peakBytes(), r.peakBytes());
        QCOMPARE(chart.scenarioOf(i).layout.zeroStage, CompareChart::strategies[std::size_t(i)]);
    }
}

void TestCompareChart::componentsPerStrategy()
{
    CompareChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    // ZeRO-1: weights and gradients replicated, master and optimizer sharded.
    QCOMPARE(chart.componentHeight(1, Component::Weights), 140.0);
    QCOMPARE(chart.componentHeight(1, Component::Gradients), 140.0);
    QCOMPARE(chart.componentHeight(1, Component::MasterWeights), 4.375);
    QCOMPARE(chart.componentHeight(1, Component::OptimizerStates), 8.75);
    // ZeRO-2 shards gradients too; ZeRO-3 the weights.
    QCOMPARE(chart.componentHeight(2, Component::Gradients), 2.1875);
    QCOMPARE(chart.componentHeight(3, Component::Weights), 2.1875);
    QCOMPARE(chart.componentHeight(3, Component::Activations), 0.0);
    // Model states only: no activations or buffers in the legend.
    auto *plot = chart.plot();
    QStringList legend;
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(plot->legend->item(i)))
            legend << item->plottable()->name();
    QCOMPARE(legend, (QStringList{"Weights", "Gradients", "Master weights", "Optimizer states",
                                  "Above capacity"}));
}

void TestCompareChart::coloursMatchMemoryChart()
{
    CompareChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    auto *plot = chart.plot();
    for (int c = 0; c < componentCount; ++c) {
        auto *bars = qobject_cast<QCPBars *>(plot->plottable(c));
        QVERIFY(bars);
        QCOMPARE(bars->name(), QString::fromStdString(componentName(Component(c))));
        QCOMPARE(bars->brush().color(), componentColor(Component(c)));
    }
}

void TestCompareChart::capacityAndOverflow()
{
    CompareChart chart;
    QVERIFY(test::shownAt(chart, QSize(1200, 800)));
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    QCOMPARE(chart.capacityValue(), 80.0);
    auto *plot = chart.plot();
    plot->replot();
    // The overflow bars mark the three strategies above 80 GB, from 80 GB up.
    auto *overflow = qobject_cast<QCPBars *>(plot->plottable(componentCount));
    QVERIFY(overflow);
    QCOMPARE(overflow->data()->size(), 3);
    QCOMPARE(overflow->baseValue(), 80.0);
    QCOMPARE(overflow->data()->at(0)->value, 1040.0);
    QCOMPARE(overflow->data()->at(2)->key, 3.0);
    // The y axis shows every bar and the capacity line.
    QVERIFY(plot->yAxis->range().upper >= 1120.0);
    // 8 GPUs: nothing fits; every bar is marked.
    chart.setScenario(seventyB(8, ZeroStage::Zero3), ByteUnit::GB);
    QCOMPARE(overflow->data()->size(), 4);
    QCOMPARE(chart.stackTop(3), 140.0);
}

void TestCompareChart::peakStageOfEachStrategy()
{
    CompareChart chart;
    const Scenario s = llama70bPipeline();
    chart.setScenario(s, ByteUnit::GB);
    for (int i = 0; i < 4; ++i) {
        const MemoryReport &r = chart.report(i);
        QVERIFY2(r.valid(), r.error.c_str());
        QCOMPARE(r.groups.size(), std::size_t(4));
        const GpuGroup *peak = r.peakGroup();
        QCOMPARE(chart.stackTop(i) * 1e9, double(peak->totalBytes()));
        QVERIFY(
            chart.strategyLabel(i).contains(QStringLiteral("stage %1").arg(peak->pipelineStage)));
    }
    // Sharding only lowers the busiest GPU.
    QVERIFY(chart.stackTop(0) > chart.stackTop(1));
    QVERIFY(chart.stackTop(1) > chart.stackTop(2));
    QVERIFY(chart.stackTop(2) > chart.stackTop(3));
}

void TestCompareChart::impossibleSettingsDropped()
{
    CompareChart chart;
    Scenario s = seventyB(8, ZeroStage::Zero3);
    s.layout.offload = Offload::OptimizerAndParams;
    chart.setScenario(s, ByteUnit::GB);
    // DDP cannot offload; ZeRO-1/2 offload the optimizer only.
    QCOMPARE(chart.scenarioOf(0).layout.offload, Offload::None);
    QCOMPARE(chart.strategyLabel(0), QStringLiteral("DDP\nno offload"));
    QCOMPARE(chart.scenarioOf(1).layout.offload, Offload::Optimizer);
    QCOMPARE(chart.strategyLabel(1), QStringLiteral("ZeRO-1\noptimizer offload"));
    QCOMPARE(chart.scenarioOf(3).layout.offload, Offload::OptimizerAndParams);
    for (int i = 0; i < 4; ++i)
        QVERIFY(chart.report(i).valid());
    QCOMPARE(chart.stackTop(0), 1120.0);
    QCOMPARE(chart.stackTop(3), 0.0); // everything on the host
    // An invalid scenario: no bars, "n/a" above each.
    s.layout.gpus = 0;
    chart.setScenario(s, ByteUnit::GB);
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(chart.totalText(i), QStringLiteral("n/a"));
        QCOMPARE(chart.stackTop(i), 0.0);
    }
}

void TestCompareChart::gibUnit()
{
    CompareChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GiB);
    QCOMPARE(chart.stackTop(3), 17.5e9 / 1073741824.0);
    QCOMPARE(chart.totalText(3), QStringLiteral("16.3 GiB"));
    QCOMPARE(chart.capacityValue(), 80e9 / 1073741824.0);
    QCOMPARE(chart.plot()->yAxis->label(), QStringLiteral("Memory per GPU (GiB)"));
}

void TestCompareChart::tooltipShowsBreakdownAndVerdict()
{
    // The ZeRO paper's 70B model states on 64 GPUs (Rajbhandari et al. 2020, Figure 1
    // accounting, 16 bytes per parameter: 2 weights, 2 gradients, 4 master weights, 8 Adam
    // moments).
    CompareChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GB);
    // DDP: 70e9 x 16 = 1,120 GB per GPU; 1,120 - 80 = 1,040 GB over the card.
    const QString ddp = plainTextOf(chart.tooltipText(0)).simplified();
    QVERIFY2(ddp.startsWith(QStringLiteral("DDP")), qPrintable(ddp));
    QVERIFY2(ddp.contains(QStringLiteral("Weights 140 GB")), qPrintable(ddp)); // 70e9 x 2
    QVERIFY2(ddp.contains(QStringLiteral("Gradients 140 GB")), qPrintable(ddp));
    QVERIFY2(ddp.contains(QStringLiteral("Master weights 280 GB")), qPrintable(ddp));   // x 4
    QVERIFY2(ddp.contains(QStringLiteral("Optimizer states 560 GB")), qPrintable(ddp)); // x 8
    QVERIFY2(ddp.contains(QStringLiteral("Activations 0 GB")), qPrintable(ddp));
    QVERIFY2(ddp.contains(QStringLiteral("Total 1,120 GB")), qPrintable(ddp));
    QVERIFY2(ddp.contains(QStringLiteral("Overflows the 80 GB GPU by 1,040 GB")), qPrintable(ddp));
    // ZeRO-3: everything sharded 64 ways, 1,120 / 64 = 17.5 GB; 80 - 17.5 = 62.5 GB spare.
    const QString zero3 = plainTextOf(chart.tooltipText(3)).simplified();
    QVERIFY2(zero3.startsWith(QStringLiteral("ZeRO-3 / FSDP")), qPrintable(zero3));
    QVERIFY2(zero3.contains(QStringLiteral("Weights 2.19 GB")), qPrintable(zero3)); // 2.1875
    QVERIFY2(zero3.contains(QStringLiteral("Optimizer states 8.75 GB")), qPrintable(zero3));
    QVERIFY2(zero3.contains(QStringLiteral("Total 17.5 GB")), qPrintable(zero3));
    QVERIFY2(zero3.contains(QStringLiteral("Fits the 80 GB GPU, 62.5 GB to spare")),
             qPrintable(zero3));
    // In GiB: 17.5e9 / 2^30 = 16.30 GiB.
    chart.setScenario(seventyB(64, ZeroStage::Zero3), ByteUnit::GiB);
    QVERIFY(
        plainTextOf(chart.tooltipText(3)).simplified().contains(QStringLiteral("Total 16.3 GiB")));
    QVERIFY(chart.tooltipText(4).isEmpty());
    QVERIFY(chart.tooltipText(-1).isEmpty());

    // The catalog's H100 names the card as sold and its usable 81,559 MiB = 85.52 GB:
    // DDP 1,120 - 85.52 = 1,034.5 GB over; ZeRO-3 85.52 - 17.5 = 68.02 GB to spare.
    Scenario h100 = seventyB(64, ZeroStage::Zero3);
    h100.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    chart.setScenario(h100, ByteUnit::GB);
    QCOMPARE(chart.capacityValue(), 85.520809984);
    const QString over = plainTextOf(chart.tooltipText(0)).simplified();
    QVERIFY2(over.contains(QStringLiteral("Overflows the H100 80 GB (85.5 GB usable) by 1,034 GB")),
             qPrintable(over));
    const QString spare = plainTextOf(chart.tooltipText(3)).simplified();
    QVERIFY2(spare.contains(QStringLiteral("Fits the H100 80 GB (85.5 GB usable), 68 GB to spare")),
             qPrintable(spare));
}

void TestCompareChart::clickSelectsStrategy()
{
    // A click on ZeRO-3's bar makes ZeRO-3 the session's strategy, through
    // Session::setZeroStage() as the strategy buttons do; the chart redraws for it.
    Session session(Catalog::builtIn());
    session.setScenario(seventyB(64, ZeroStage::Ddp));
    CompareChart chart;
    QObject::connect(&chart, &CompareChart::strategyClicked, &session, &Session::setZeroStage);
    QObject::connect(&session, &Session::changed, &chart,
                     [&] { chart.setScenario(session.scenario(), session.unit()); });
    chart.setScenario(session.scenario(), session.unit());
    QVERIFY(test::shownAt(chart, QSize(1200, 800)));
    QCustomPlot *plot = chart.plot();
    plot->replot();
    QCOMPARE(chart.currentIndex(), 0);
    // The bar of strategy i stands at key i + 1; halfway up the axis rect (a 17.5 GB bar is
    // a few pixels tall under the 1,120 GB one, but its column is the whole height).
    const auto barPixel = [plot](int i) {
        return QPoint(int(plot->xAxis->coordToPixel(i + 1)), plot->axisRect()->center().y());
    };
    QCOMPARE(chart.strategyAt(barPixel(3)), 3);
    QTest::mouseClick(plot, Qt::LeftButton, {}, barPixel(3));
    QCOMPARE(session.scenario().layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(chart.currentIndex(), 3);
    QTest::mouseClick(plot, Qt::LeftButton, {}, barPixel(1));
    QCOMPARE(session.scenario().layout.zeroStage, ZeroStage::Zero1);
    // Between two bars, and outside the axis rect: nothing changes.
    const QPoint between(int(plot->xAxis->coordToPixel(2.5)), plot->axisRect()->center().y());
    QCOMPARE(chart.strategyAt(between), -1);
    QTest::mouseClick(plot, Qt::LeftButton, {}, between);
    QCOMPARE(session.scenario().layout.zeroStage, ZeroStage::Zero1);
    QTest::mouseClick(plot, Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(session.scenario().layout.zeroStage, ZeroStage::Zero1);
}

void TestCompareChart::clickInTheWindowIsUndoable()
{
    // In the window, a click on the comparison's ZeRO-2 bar is one scenario change, like a
    // press of the ZeRO-2 button: Undo brings DDP back.
    MainWindow window;
    QVERIFY(test::shownAt(window, QSize(1600, 950)));
    Session *session = window.session();
    session->setZeroStage(ZeroStage::Ddp);
    CompareChart *chart = window.compareChart();
    window.tabs()->setCurrentWidget(chart);
    QCoreApplication::processEvents();
    QCustomPlot *plot = chart->plot();
    plot->replot();
    const int undoSteps = window.undoStack()->count();
    const QPoint zero2(int(plot->xAxis->coordToPixel(3)), plot->axisRect()->center().y());
    QCOMPARE(chart->strategyAt(zero2), 2);
    QTest::mouseClick(plot, Qt::LeftButton, {}, zero2);
    QCOMPARE(session->scenario().layout.zeroStage, ZeroStage::Zero2);
    QCOMPARE(window.undoStack()->count(), undoSteps + 1);
    window.undoStack()->undo();
    QCOMPARE(session->scenario().layout.zeroStage, ZeroStage::Ddp);
}

QTEST_MAIN(TestCompareChart)
#include "test_comparechart.moc"
