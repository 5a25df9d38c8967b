// The Session (ui/shell/session.h): one change signal, derived values computed lazily and equal
// to the engine's own functions; LazyRefresh (ui/shell/lazyrefresh.h): hidden tabs wait until
// shown; ScenarioHistory (ui/shell/scenariohistory.h): one undo step per change.
#include "../testsupport.h"
#include "lazyrefresh.h"
#include "measurement.h"
#include "memorychart.h"
#include "planjob.h"
#include "scenariohistory.h"
#include "session.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

using namespace shardscope;

class TestSession : public QObject
{
    Q_OBJECT
private slots:
    void startsOnTheDocumentedDefault();
    void oneSignalPerChange();
    void derivedValuesAreTheEngines();
    void preparedModelKeptWhileTheModelStays();
    void scheduleResimulatedOnlyWhenItsParametersChange();
    void hiddenTabsWaitUntilShown();
    void historyRecordsAndRestores();
    void planJobRunsOffTheGuiThread();
    void planJobCancelsAndDiscards();
    void measurementDrawnBesideTheBars();
};

void TestSession::startsOnTheDocumentedDefault()
{
    Session session(Catalog::builtIn());
    const Scenario &s = session.scenario();
    QCOMPARE(QString::fromStdString(s.model.id), QStringLiteral("llama3-70b"));
    QCOMPARE(s.layout.gpus, std::int64_t(64));
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    // DDP keeps 16 B per parameter on every GPU: Llama 3 70B's 70,553,706,496 parameters
    // (Meta's config.json, docs/models.md) are 1,128,859,303,936 B of model states,
    // far above 80 GB, so the verdict is a GPU overflow.
    QCOMPARE(s.model.parameters(), std::int64_t(70'553'706'496));
    QCOMPARE(session.report().groups.front().bytes.modelStates(),
             std::int64_t(16) * 70'553'706'496);
    QCOMPARE(session.verdict().kind, Verdict::Kind::Gpu);
}

void TestSession::oneSignalPerChange()
{
    Session session(Catalog::builtIn());
    QSignalSpy spy(&session, &Session::changed);
    const std::uint64_t r0 = session.revision();
    session.setGpus(128);
    session.setGpus(128); // the same value: no change, no signal
    session.setZeroStage(ZeroStage::Zero3);
    session.edit([](Scenario &s) {
        s.layout.tensorParallel = 8;
        s.training.sequenceLength = 8192;
    });
    session.setUnit(ByteUnit::GiB);
    QCOMPARE(spy.count(), 4);
    QCOMPARE(session.revision(), r0 + 4);
}

void TestSession::derivedValuesAreTheEngines()
{
    Session session(Catalog::builtIn());
    session.setGpus(64);
    session.setZeroStage(ZeroStage::Zero3);
    const Scenario s = session.scenario();
    const MemoryReport direct = estimate(s);
    QCOMPARE(session.report().peakBytes(), direct.peakBytes());
    QCOMPARE(session.verdict().kind, verdict(s, direct).kind);
    QCOMPARE(session.verdict().gpuOverflowBytes, verdict(s, direct).gpuOverflowBytes);
    const auto variants = compareStrategies(s);
    for (std::size_t i = 0; i < variants.size(); ++i)
        QCOMPARE(session.comparison()[i].report.peakBytes(), variants[i].report.peakBytes());
    // After a change every derived value follows: ZeRO-3 on 64 GPUs shards the 16 B per
    // parameter 64 ways, so the model states per GPU drop to ceil(P / 64) x 16 B at most.
    session.setGpus(8);
    QCOMPARE(session.report().peakBytes(), estimate(session.scenario()).peakBytes());
    QCOMPARE(session.comparison()[3].report.peakBytes(),
             compareStrategies(session.scenario())[3].report.peakBytes());
}

void TestSession::preparedModelKeptWhileTheModelStays()
{
    Session session(Catalog::builtIn());
    const std::uint64_t first = session.preparedModel().serial;
    QVERIFY(first != 0);
    // The GPU slider and a strategy button keep the model: the same PreparedModel, and
    // the report is the engine's.
    session.setGpus(128);
    session.setZeroStage(ZeroStage::Zero3);
    QCOMPARE(session.preparedModel().serial, first);
    QCOMPARE(session.report().peakBytes(), estimate(session.scenario()).peakBytes());
    QCOMPARE(session.report().groups.size(), estimate(session.scenario()).groups.size());
    // A new model is prepared again, and so is anything edit() may have changed.
    session.setModelPreset("llama3-8b");
    const std::uint64_t second = session.preparedModel().serial;
    QVERIFY(second != first);
    QCOMPARE(session.preparedModel().parameters, session.scenario().model.parameters());
    QCOMPARE(session.report().peakBytes(), estimate(session.scenario()).peakBytes());
    session.edit([](Scenario &s) { s.training.microBatches = 4; });
    QVERIFY(session.preparedModel().serial != second);
}

void TestSession::scheduleResimulatedOnlyWhenItsParametersChange()
{
    Session session(Catalog::builtIn());
    session.edit([](Scenario &s) {
        s.layout.gpus = 64;
        s.layout.tensorParallel = 8;
        s.layout.pipelineParallel = 4;
        s.training.microBatches = 8;
    });
    const Timeline &first = session.timeline();
    QVERIFY(first.valid());
    // 1F1B with p 4, m 8: (p - 1) / (m + p - 1) = 3 / 11 of the step is bubble
    // (Narayanan et al. 2021, section 2.2).
    QCOMPARE(first.bubbleFraction, 3.0 / 11.0);
    const double makespan = first.makespan;
    session.setScaledModel(30'000'000'000); // a model-size drag keeps the schedule
    QCOMPARE(session.timeline().makespan, makespan);
    session.edit([](Scenario &s) { s.training.microBatches = 16; });
    QCOMPARE(session.timeline().bubbleFraction, 3.0 / 19.0);
    QCOMPARE(session.scheduleParameters().microBatches, 16);
}

void TestSession::hiddenTabsWaitUntilShown()
{
    Session session(Catalog::builtIn());
    QTabWidget tabs;
    auto *shown = new QLabel;
    auto *hidden = new QLabel;
    tabs.addTab(shown, QStringLiteral("shown"));
    tabs.addTab(hidden, QStringLiteral("hidden"));
    int shownRuns = 0, hiddenRuns = 0;
    auto *a = new LazyRefresh(shown, &session, [&] { ++shownRuns; });
    auto *b = new LazyRefresh(hidden, &session, [&] { ++hiddenRuns; });
    // Before the window is shown every view refreshes at once (tests and exports).
    session.setGpus(32);
    QCOMPARE(shownRuns, 1);
    QCOMPARE(hiddenRuns, 1);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    session.setGpus(16);
    session.setGpus(8);
    QCOMPARE(shownRuns, 3);
    QCOMPARE(hiddenRuns, 1); // a hidden tab of a shown window waits
    QVERIFY(b->stale());
    QVERIFY(!a->stale());
    tabs.setCurrentIndex(1);
    QCOMPARE(hiddenRuns, 2); // once, however many changes it missed
    QVERIFY(!b->stale());
}

void TestSession::historyRecordsAndRestores()
{
    Session session(Catalog::builtIn());
    bool dragging = false;
    ScenarioHistory history(&session, [&dragging] { return dragging; });
    QUndoStack *undo = history.undoStack();
    session.setGpus(128);
    QCOMPARE(undo->count(), 1);
    history.asOneChange([&] {
        session.setZeroStage(ZeroStage::Zero3);
        session.setUnit(ByteUnit::GiB);
    });
    QCOMPARE(undo->count(), 2);
    undo->undo();
    QCOMPARE(session.scenario().layout.zeroStage, ZeroStage::Ddp);
    QCOMPARE(session.unit(), ByteUnit::GB);
    QCOMPARE(session.scenario().layout.gpus, std::int64_t(128));
    undo->undo();
    QCOMPARE(session.scenario().layout.gpus, std::int64_t(64));
    history.resetToDefaults(); // already at the defaults: nothing to record
    undo->redo();
    QCOMPARE(session.scenario().layout.gpus, std::int64_t(128));
    history.resetToDefaults();
    QCOMPARE(session.scenario().layout.gpus, std::int64_t(64));
    undo->undo();
    QCOMPARE(session.scenario().layout.gpus, std::int64_t(128));
}

void TestSession::planJobRunsOffTheGuiThread()
{
    // The job's result is plan()'s for the same request, byte for byte in every row.
    Session session(Catalog::builtIn());
    PlanJob &job = session.planJob();
    QSignalSpy finished(&job, &PlanJob::finished);
    const PlanRequest q = test::planRequest("llama3-70b", 64, 64, 4096);
    QVERIFY(job.start(q, "key-64"));
    QVERIFY(job.isRunning());
    QCOMPARE(job.runningKey(), QByteArray("key-64"));
    QVERIFY(!job.start(q, "second")); // one at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    QVERIFY(!job.isRunning());
    QCOMPARE(finished.at(0).at(0).toByteArray(), QByteArray("key-64"));
    const auto r = finished.at(0).at(1).value<PlanResult>();
    const PlanResult direct = plan(q);
    QVERIFY(r.valid());
    QVERIFY(!r.cancelled);
    QCOMPARE(r.fitting.size(), direct.fitting.size());
    QCOMPARE(r.candidatesEvaluated, direct.candidatesEvaluated);
    for (std::size_t i = 0; i < r.fitting.size(); ++i) {
        QCOMPARE(r.fitting[i].peakBytes, direct.fitting[i].peakBytes);
        QCOMPARE(r.fitting[i].time.stepSeconds, direct.fitting[i].time.stepSeconds);
    }
}

void TestSession::planJobCancelsAndDiscards()
{
    // Llama 3 70B over 1 to 16,384 GPUs takes seconds: cancel() ends it early with what
    // it found so far, marked cancelled; discard() ends it with no finished() at all.
    Session session(Catalog::builtIn());
    PlanJob &job = session.planJob();
    QSignalSpy progressed(&job, &PlanJob::progressed);
    QSignalSpy finished(&job, &PlanJob::finished);
    const PlanRequest q = test::planRequest("llama3-70b", 1, 16384, 4096);
    QVERIFY(job.start(q, "long"));
    QTRY_VERIFY_WITH_TIMEOUT(progressed.count() > 0, 30000);
    const qint64 total = progressed.last().at(1).toLongLong();
    QVERIFY(progressed.last().at(0).toLongLong() < total);
    job.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const auto r = finished.at(0).at(1).value<PlanResult>();
    QVERIFY(r.cancelled);
    QCOMPARE(r.candidates, total);
    QVERIFY(r.candidatesEvaluated + r.candidatesPruned + r.candidatesSlower < total);

    QVERIFY(job.start(q, "discarded"));
    job.discard();
    QVERIFY(!job.isRunning());
    QTest::qWait(50); // a queued finished() of the discarded plan would arrive here
    QCOMPARE(finished.count(), 1);
}

void TestSession::measurementDrawnBesideTheBars()
{
    Session session(Catalog::builtIn());
    session.edit([](Scenario &s) { s.layout.zeroStage = ZeroStage::Zero3; });
    QSignalSpy spy(&session, &Session::changed);
    QVERIFY(!session.measuredPeak());
    QString error;
    auto m = readMeasurementFile(QFINDTESTDATA("../io/data/measurement/snapshot.pickle"), &error);
    QVERIFY2(m, qPrintable(error));
    session.setMeasurement(std::move(m), QStringLiteral("snapshot.pickle"));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(session.measurementName(), QStringLiteral("snapshot.pickle"));
    // The snapshot's trace peak (scripts/make-measurement-fixtures.py) against the peak
    // group's total less the CUDA context and fragmentation.
    const auto peak = session.measuredPeak();
    QVERIFY(peak);
    QCOMPARE(peak->measure, std::string("peak_allocated"));
    QCOMPARE(peak->measuredBytes, std::int64_t(18'874'368));
    const GpuGroup &g = *session.report().peakGroup();
    QCOMPARE(peak->predictedBytes,
             g.totalBytes() - g.buffers.cudaContext - g.buffers.fragmentation);

    MemoryChart chart;
    chart.setMeasured(peak->measuredBytes, QStringLiteral("measured"));
    chart.setReport(session.scenario(), session.report(), ByteUnit::GB);
    QCOMPARE(chart.measuredValue(), 18'874'368 / 1e9);
    chart.setMeasured(std::nullopt, QString());
    QVERIFY(std::isnan(chart.measuredValue()));

    session.setMeasurement(std::nullopt);
    QVERIFY(!session.measuredPeak());
    QVERIFY(session.measurementName().isEmpty());
    QCOMPARE(spy.count(), 2);
}

QTEST_MAIN(TestSession)
#include "test_session.moc"
