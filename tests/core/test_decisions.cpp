// Decisions the engine makes for the views (issue: views only draw): the strategy
// comparison, the bubble's closed form, the schedule a scenario runs, and a stage's
// memory over the step.
#include "compare.h"
#include "estimate.h"
#include "schedule.h"
#include "testscenarios.h"

#include <QTest>
#include <algorithm>

using namespace shardscope;

namespace {

Scenario plain70b(std::int64_t gpus)
{
    Scenario s = test::plainModelStates(70'000'000'000, gpus);
    s.model.id = "plain-70b";
    s.gpu.id = "h100";
    s.gpu.name = s.gpu.shortName = "H100";
    return s;
}

} // namespace

class TestDecisions : public QObject
{
    Q_OBJECT
private slots:
    void strategyComparisonMatchesZeroFigure1()
    {
        // Rajbhandari et al. 2020, Figure 1 accounting (2 + 2 + 12 bytes per parameter),
        // 70e9 parameters on 64 GPUs: DDP 16 B x 70e9 = 1,120 GB; ZeRO-1 (4 + 12/64) B;
        // ZeRO-2 (2 + 14/64) B; ZeRO-3 16/64 B per parameter.
        const auto c = compareStrategies(plain70b(64));
        const std::int64_t expected[] = {1'120'000'000'000, 293'125'000'000, 155'312'500'000,
                                         17'500'000'000};
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(c[std::size_t(i)].scenario.layout.zeroStage, ZeroStage(i));
            QVERIFY(c[std::size_t(i)].adjustments.empty());
            QCOMPARE(c[std::size_t(i)].report.peakBytes(), expected[i]);
        }
    }

    void comparisonSaysWhatItAdjusted()
    {
        Scenario s = plain70b(64);
        s.layout.zeroStage = ZeroStage::Zero3;
        s.layout.offload = Offload::OptimizerAndParams;
        s.layout.hsdpShardSize = 8;
        const auto c = compareStrategies(s);
        QCOMPARE(c[0].adjustments, (std::vector<std::string>{"no offload", "no HSDP"}));
        QCOMPARE(c[0].scenario.layout.offload, Offload::None);
        QCOMPARE(c[1].adjustments, std::vector<std::string>{"optimizer offload"});
        QCOMPARE(c[2].scenario.layout.offload, Offload::Optimizer);
        QVERIFY(c[3].adjustments.empty());
        QCOMPARE(c[3].scenario.layout.offload, Offload::OptimizerAndParams);
        for (const auto &v : c)
            QVERIFY2(v.report.valid(), v.report.error.c_str());
    }

    void bubbleClosedFormAgreesWithTheSimulation_data()
    {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("m");
        QTest::addColumn<int>("v");
        for (const int p : {2, 4, 8})
            for (const int m : {8, 16, 32}) {
                QTest::addRow("gpipe p%d m%d", p, m) << int(PipelineSchedule::GPipe) << p << m << 1;
                QTest::addRow("1f1b p%d m%d", p, m)
                    << int(PipelineSchedule::OneFOneB) << p << m << 1;
                QTest::addRow("interleaved p%d m%d", p, m)
                    << int(PipelineSchedule::Interleaved1F1B) << p << m << 2;
            }
    }

    void bubbleClosedFormAgreesWithTheSimulation()
    {
        QFETCH(int, schedule);
        QFETCH(int, p);
        QFETCH(int, m);
        QFETCH(int, v);
        ScheduleParams sp;
        sp.schedule = PipelineSchedule(schedule);
        sp.stages = p;
        sp.microBatches = m;
        sp.chunks = v;
        const Timeline t = shardscope::schedule(sp);
        QVERIFY2(t.valid(), t.error.c_str());
        const BubbleClosedForm f = bubbleClosedForm(sp);
        QCOMPARE(f.idle, (long long)(p - 1));
        QVERIFY(std::abs(f.share() - t.bubbleFraction) < 1e-12);
        QVERIFY(std::abs(f.overIdeal() - t.bubbleOverIdeal) < 1e-12);
    }

    void bubbleClosedFormHandValues()
    {
        // 1F1B, p 4, m 8: 3 / 11 of the makespan and 3 / 8 over ideal; GPipe the same;
        // interleaved v 2: 3 / 19 and 3 / 16; ZB-H1: 3 / 27 and 3 / 24.
        ScheduleParams sp;
        sp.stages = 4;
        sp.microBatches = 8;
        QCOMPARE(bubbleClosedForm(sp).shareDenominator, 11LL);
        QCOMPARE(bubbleClosedForm(sp).overIdealDenominator, 8LL);
        sp.schedule = PipelineSchedule::Interleaved1F1B;
        sp.chunks = 2;
        QCOMPARE(bubbleClosedForm(sp).shareDenominator, 19LL);
        sp.schedule = PipelineSchedule::ZeroBubbleH1;
        sp.chunks = 1;
        QCOMPARE(bubbleClosedForm(sp).shareDenominator, 27LL);
        QCOMPARE(bubbleClosedForm(sp).overIdealDenominator, 24LL);
    }

    void scenarioScheduleParams()
    {
        Scenario s;
        s.layout.pipelineParallel = 4;
        s.training.microBatches = 16;
        s.training.schedule = PipelineSchedule::OneFOneB;
        s.training.chunks = 3; // ignored: only interleaved has chunks
        QCOMPARE(scheduleParams(s).chunks, 1);
        QCOMPARE(scheduleParams(s).stages, 4);
        QCOMPARE(scheduleParams(s).microBatches, 16);
        s.training.schedule = PipelineSchedule::Interleaved1F1B;
        QCOMPARE(scheduleParams(s).chunks, 3);
    }

    void memoryOverTimePeaksAtTheReportedTotal_data()
    {
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("chunks");
        QTest::newRow("gpipe") << int(PipelineSchedule::GPipe) << 1;
        QTest::newRow("1f1b") << int(PipelineSchedule::OneFOneB) << 1;
        QTest::newRow("interleaved") << int(PipelineSchedule::Interleaved1F1B) << 2;
        QTest::newRow("zb-h1") << int(PipelineSchedule::ZeroBubbleH1) << 1;
    }

    void memoryOverTimePeaksAtTheReportedTotal()
    {
        QFETCH(int, schedule);
        QFETCH(int, chunks);
        Scenario s = test::llama7bOnH100(8);
        s.layout.pipelineParallel = 4;
        s.training.microBatches = 8;
        s.training.recompute = Recompute::Selective;
        s.training.schedule = PipelineSchedule(schedule);
        s.training.chunks = chunks;
        const MemoryReport r = estimate(s);
        QVERIFY2(r.valid(), r.error.c_str());
        const Timeline t = shardscope::schedule(scheduleParams(s));
        QVERIFY2(t.valid(), t.error.c_str());
        QCOMPARE(r.groups.size(), t.stages.size());
        for (std::size_t i = 0; i < t.stages.size(); ++i) {
            const auto steps = stageMemoryOverTime(r.groups[i], t.stages[i], t.makespan);
            QVERIFY(!steps.empty());
            QCOMPARE(steps.back().time, t.makespan);
            const auto peak = std::max_element(
                steps.begin(), steps.end(),
                [](const MemoryStep &a, const MemoryStep &b) { return a.bytes < b.bytes; });
            // The report's stage total is the schedule's peak: the closed-form in-flight
            // bounds and the simulation agree (docs/pipeline.md).
            QCOMPARE(peak->bytes, r.groups[i].totalBytes());
            // After the last backward nothing is held: the stage's states and buffers.
            QCOMPARE(steps.back().bytes, r.groups[i].totalBytes() - r.groups[i].activations.layers -
                                             r.groups[i].activations.embedding -
                                             r.groups[i].activations.output);
        }
    }
};

QTEST_APPLESS_MAIN(TestDecisions)
#include "test_decisions.moc"
