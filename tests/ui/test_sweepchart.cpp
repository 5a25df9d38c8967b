// The strategy sweep chart (ui/charts/sweepchart.h) and the Session's sweep: four lines of
// the engine's peaks (core/sweep.h), in the legend's colours, gaps where the engine
// refuses a layout, the capacity line and the scenario's own dot.
#include "../testsupport.h"
#include "catalog.h"
#include "chartparts.h"
#include "chartregistry.h"
#include "chartscenarios.h"
#include "estimate.h"
#include "session.h"
#include "sweepchart.h"

#include <QLocale>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

/// Llama 3 70B on `gpus` H100 80 GB (the catalog's, mixed-precision Adam) under `z`, t `t`.
Scenario llama70b(qint64 gpus, ZeroStage z, int t = 1)
{
    Scenario s = test::catalogScenario("llama3-70b", gpus, z);
    s.layout.tensorParallel = t;
    return s;
}

/// Line `g`'s value at key `x`; NaN when it has no point there.
double valueAt(const QCPGraph *g, double x)
{
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        if (it->key == x)
            return it->value;
    return std::nan("");
}

} // namespace

class TestSweepChart : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void zeroPaperLines();
    void legendColoursMatchTheLines();
    void refusedLayoutsAreGaps();
    void dotAndCapacity();
    void sessionCachesTheSweep();
    void registeredAsSweep();
};

void TestSweepChart::zeroPaperLines()
{
    // 70e9 parameters, model states only (the ZeRO paper's Figure 1): DDP 1,120 GB flat,
    // ZeRO-3 16 x 7e10 / N bytes: 17.5 GB at 64 GPUs, 1,120 GB on one.
    SweepChart chart;
    chart.setScenario(seventyB(64, ZeroStage::Zero3), SweepAxis::Gpus, ByteUnit::GB);
    QCOMPARE(chart.line(0)->dataCount(), 15);
    for (const double n : {1.0, 64.0, 16384.0})
        QCOMPARE(valueAt(chart.line(0), n), 1120.0);
    QCOMPARE(valueAt(chart.line(3), 64), 17.5);
    QCOMPARE(valueAt(chart.line(3), 1), 1120.0);
    QCOMPARE(valueAt(chart.line(1), 64), 293.125); // 4 Psi + 12 Psi / 64
    QCOMPARE(chart.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(chart.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Every value and the capacity are inside the value axis.
    QVERIFY(chart.plot()->yAxis->range().contains(1120));
    QVERIFY(chart.plot()->yAxis->range().contains(68'359'376 / 1e9));
    QVERIFY(chart.plot()->xAxis->range().contains(1));
    QVERIFY(chart.plot()->xAxis->range().contains(16384));
}

void TestSweepChart::legendColoursMatchTheLines()
{
    SweepChart chart;
    chart.setScenario(llama70b(64, ZeroStage::Ddp), SweepAxis::Gpus, ByteUnit::GB);
    const QStringList names = {"DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP"};
    QSet<QRgb> colours;
    for (int i = 0; i < 4; ++i) {
        const QCPGraph *g = chart.line(i);
        QCOMPARE(g->name(), names[i]);
        QCOMPARE(g->pen().color(), SweepChart::strategyColor(i, false));
        QVERIFY(chart.plot()->legend->hasItemWithPlottable(g)); // its icon is drawn with its pen
        colours.insert(g->pen().color().rgb());
    }
    QCOMPARE(colours.size(), 4);
    // The dark theme swaps ZeRO-3's blue for sky blue, readable on the dark canvas; the
    // scenario's dot on the ZeRO-3 line follows, whichever came first, style or data.
    chart.setScenario(llama70b(64, ZeroStage::Zero3), SweepAxis::Gpus, ByteUnit::GB);
    chart.setChartStyle(ChartStyle::dark());
    QCOMPARE(chart.line(3)->pen().color(), QColor(0x56, 0xB4, 0xE9));
    QCOMPARE(chart.currentDot()->scatterStyle().brush().color(), QColor(0x56, 0xB4, 0xE9));
}

void TestSweepChart::refusedLayoutsAreGaps()
{
    // t = 8: 1, 2 and 4 GPUs cannot hold a replica; those keys have NaN (QCPGraph breaks the
    // line there and draws no marker), never 0; from 8 on every strategy has a point.
    SweepChart chart;
    chart.setScenario(llama70b(64, ZeroStage::Zero1, 8), SweepAxis::Gpus, ByteUnit::GB);
    for (int i = 0; i < 4; ++i)
        for (const double n : {1.0, 2.0, 4.0, 8.0, 64.0, 16384.0}) {
            const double v = valueAt(chart.line(i), n);
            if (n < 8)
                QVERIFY(std::isnan(v));
            else
                QVERIFY(v > 0);
        }
    QVERIFY(!chart.messageItem()->visible());
    // No point can run: the message says so and the axes keep a finite range.
    Scenario cp = llama70b(48, ZeroStage::Zero3);
    cp.layout.contextParallel = 3;
    chart.setScenario(cp, SweepAxis::SequenceLength, ByteUnit::GB);
    QVERIFY(chart.messageItem()->visible());
    const QCPRange y = chart.plot()->yAxis->range();
    QVERIFY(std::isfinite(y.lower) && std::isfinite(y.upper) && y.lower > 0);
}

void TestSweepChart::dotAndCapacity()
{
    // The scenario's own point is its report's peak, at its own GPU count, on its line.
    const Scenario s = llama70b(64, ZeroStage::Zero3);
    SweepChart chart;
    chart.setScenario(s, SweepAxis::Gpus, ByteUnit::GB);
    QCOMPARE(chart.currentDot()->dataCount(), 1);
    const double peak = double(estimate(s).peakBytes()) / 1e9;
    QCOMPARE(chart.currentDot()->data()->begin()->key, 64.0);
    QCOMPARE(chart.currentDot()->data()->begin()->value, peak);
    QCOMPARE(valueAt(chart.line(3), 64), peak);
    QCOMPARE(chart.currentDot()->scatterStyle().brush().color(),
             SweepChart::strategyColor(3, false));
    // The driver's 81,559 MiB = 85,520,809,984 bytes, labelled as the other charts label
    // it; in GiB too (81,559 / 1,024 = 79.6474609375 GiB).
    QCOMPARE(chart.capacityValue(), 85.520809984);
    QCOMPARE(chart.capacityItem()->text(), QStringLiteral("H100 80 GB\n85.5 GB usable"));
    QCOMPARE(chart.capacityItem()->text(), capacityText(s.gpu, ByteUnit::GB));
    chart.setScenario(s, SweepAxis::Gpus, ByteUnit::GiB);
    QCOMPARE(chart.capacityValue(), 79.6474609375);
    QVERIFY(chart.plot()->yAxis->label().contains(QStringLiteral("GiB")));
    // Off the ladder (48 GPUs) the dot still stands at 48, between 32 and 64.
    chart.setScenario(llama70b(48, ZeroStage::Zero3), SweepAxis::Gpus, ByteUnit::GB);
    QCOMPARE(chart.currentDot()->data()->begin()->key, 48.0);
    // Along the sequence length the dot is at the scenario's 4,096 tokens.
    chart.setScenario(s, SweepAxis::SequenceLength, ByteUnit::GB);
    QCOMPARE(chart.currentDot()->data()->begin()->key, double(s.training.sequenceLength));
    QCOMPARE(chart.axis(), SweepAxis::SequenceLength);
}

void TestSweepChart::sessionCachesTheSweep()
{
    Session session(Catalog::builtIn());
    QSignalSpy changed(&session, &Session::changed);
    const StrategySweep *first = &session.sweep();
    QCOMPARE(first->axis, SweepAxis::Gpus);
    QCOMPARE(&session.sweep(), first); // cached: the same object until a change
    const auto ddp64 = first->peakBytes[0][6];
    QCOMPARE(ddp64, std::optional<std::int64_t>(session.report().peakBytes())); // 2^6 = 64
    session.setSweepAxis(SweepAxis::SequenceLength);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(session.sweep().axis, SweepAxis::SequenceLength);
    QCOMPARE(session.sweep().values.front(), std::int64_t(512));
    session.setSweepAxis(SweepAxis::SequenceLength); // no change, no signal
    QCOMPARE(changed.count(), 1);
    // A change of the scenario recomputes it: 8-way tensor parallel leaves gaps at 1 to 4.
    session.setSweepAxis(SweepAxis::Gpus);
    session.edit([](Scenario &s) { s.layout.tensorParallel = 8; });
    QVERIFY(!session.sweep().peakBytes[0][0]);
    QVERIFY(session.sweep().peakBytes[0][3]); // 8 GPUs
}

void TestSweepChart::registeredAsSweep()
{
    const ChartEntry *entry = findChart(QStringLiteral("sweep"));
    QVERIFY(entry);
    QCOMPARE(entry->name, QStringLiteral("Sweep"));
    QVERIFY(chartIdList().endsWith(QStringLiteral("steptime or sweep")));
    Session session(Catalog::builtIn());
    const auto chart = makeOffscreenChart(*entry, &session, QSize(1280, 720));
    auto *sweep = qobject_cast<SweepChart *>(chart.get());
    QVERIFY(sweep);
    QCOMPARE(sweep->line(3)->dataCount(), 15);
    QCOMPARE(entry->slideTitle(session),
             QStringLiteral("Llama 3 70B on H100: memory per GPU against the number of GPUs"));
}

QTEST_MAIN(TestSweepChart)
#include "test_sweepchart.moc"
