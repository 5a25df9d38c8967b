// The Plan tab (ui/panels/planpanel.h): the planner's fitting layouts (core/planner.h) ranked in a
// table, memory against step time with the Pareto frontier, a row loaded into the Session,
// and the chosen row exported through io/launchconfig.h.
//
// The scenario is the window's default (ui/shell/session.h): Llama 3 70B on 64 H100 SXM 80GB,
// b 1, m 8, s 4,096, so the global batch is m x b x d x s = 8 x 1 x 64 x 4,096 =
// 2,097,152 tokens (512 sequences).
#include "../testfiles.h"
#include "catalog.h"
#include "chartparts.h"
#include "chartscenarios.h"
#include "estimate.h"
#include "planpanel.h"
#include "plantablemodel.h"
#include "session.h"
#include "widgettest.h"

#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

constexpr std::int64_t defaultBatchTokens = 8 * 1 * 64 * 4096; // 2,097,152

/// The request `shardscope plan --model llama3-70b --gpus N --gpu h100-sxm-80gb` makes
/// for the session's scenario: t up to the GPUs per node (8), the rest PlanRequest's
/// defaults.
PlanRequest cliRequest(const Scenario &s, std::int64_t gpus, std::int64_t tokens)
{
    PlanRequest q;
    q.base = s;
    q.minGpus = q.maxGpus = gpus;
    q.globalBatchTokens = tokens;
    q.maxTensorParallel = 8;
    return q;
}

bool sameCandidate(const PlanCandidate &a, const PlanCandidate &b)
{
    return a.layout.gpus == b.layout.gpus && a.layout.tensorParallel == b.layout.tensorParallel &&
           a.layout.pipelineParallel == b.layout.pipelineParallel &&
           a.layout.contextParallel == b.layout.contextParallel &&
           a.layout.expertParallel == b.layout.expertParallel &&
           a.layout.zeroStage == b.layout.zeroStage &&
           a.layout.hsdpShardSize == b.layout.hsdpShardSize &&
           a.layout.offload == b.layout.offload &&
           a.training.microBatchSize == b.training.microBatchSize &&
           a.training.microBatches == b.training.microBatches &&
           a.training.recompute == b.training.recompute &&
           a.training.schedule == b.training.schedule && a.training.chunks == b.training.chunks &&
           a.peakBytes == b.peakBytes && a.time.stepSeconds == b.time.stepSeconds;
}

/// Shows `panel` at 1600 x 900, waits until it is on screen, and plans at once.
void showAndPlan(PlanPanel &panel)
{
    QVERIFY(test::shownAt(panel, QSize(1600, 900)));
    panel.planNow();
}

PlanCandidate synthetic(double seconds, std::int64_t bytes)
{
    PlanCandidate c;
    c.time.stepSeconds = seconds;
    c.peakBytes = bytes;
    return c;
}

} // namespace

class TestPlanPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void firstRowIsThePlannersFastest();
    void rowsSortedByStepTime();
    void activatingARowLoadsIt();
    void clickingARowLoadsIt();
    void frontierIsNonIncreasing();
    void paretoFrontierByHand();
    void invalidScenarioShowsAMessage();
    void plansOffTheMainThreadOnceItRests();
    void hiddenTabPlansWhenShown();
    void gpuRange();
    void cancelStopsALongPlan();
    void exportRoundTrips();
    void stylesAgreeWithTheLegend();
    void closesWithTheBatchBoxFocused();
    void screenshots();
};

void TestPlanPanel::firstRowIsThePlannersFastest()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    QCOMPARE(panel.request().globalBatchTokens, defaultBatchTokens);
    QCOMPARE(panel.batchTokensSpin()->value(), int(defaultBatchTokens));
    QCOMPARE(panel.request().minGpus, std::int64_t(64));
    QCOMPARE(panel.request().maxGpus, std::int64_t(64));

    const PlanResult r = plan(cliRequest(session.scenario(), 64, defaultBatchTokens));
    QVERIFY(r.valid());
    QVERIFY(!r.fitting.empty());
    const PlanTableModel *m = panel.tableModel();
    QCOMPARE(m->rowCount(), int(r.fitting.size()));
    QVERIFY(sameCandidate(*m->candidateAt(0), r.fitting.front()));
    QCOMPARE(m->rankAt(0), 1);
    QCOMPARE(panel.result().candidatesEvaluated, r.candidatesEvaluated);
    QVERIFY(panel.messageText().isEmpty());
    // The line above the table names the counts.
    QVERIFY2(panel.summaryText().contains(
                 QStringLiteral("%1 candidates evaluated")
                     .arg(QLocale(QLocale::English).toString(qlonglong(r.candidatesEvaluated)))),
             qPrintable(panel.summaryText()));
    QVERIFY(panel.summaryText().contains(QStringLiteral("%1 fit").arg(
        QLocale(QLocale::English).toString(qlonglong(r.fitting.size())))));
    // The headroom: the H100's driver total, 81,559 MiB = 85,520,809,984 bytes, less 5%
    // (855,208,099 x 5 = 4,276,040,495 bytes): at most 81,244,769,489 bytes per GPU.
    QVERIFY2(
        panel.summaryText().contains(QStringLiteral("fit with 5% headroom (peak at most 81.2 GB)")),
        qPrintable(panel.summaryText()));
    // Row 0's cells are the candidate's figures: peak in GB, step in seconds, MFU in %.
    const PlanCandidate &best = r.fitting.front();
    const auto cell = [m](int col) { return m->data(m->index(0, col)).toString(); };
    QCOMPARE(cell(PlanTableModel::PeakMemory),
             QString::fromStdString(formatBytes(best.peakBytes, ByteUnit::GB)));
    QCOMPARE(cell(PlanTableModel::StepSeconds), QString::number(best.time.stepSeconds, 'f', 3));
    QCOMPARE(cell(PlanTableModel::Mfu), QString::number(100 * best.time.mfu, 'f', 1) + u'%');
    QCOMPARE(cell(PlanTableModel::TensorParallel), QString::number(best.layout.tensorParallel));
    QCOMPARE(cell(PlanTableModel::DataParallel), QString::number(best.layout.dataParallel()));
    // Every fitting layout keeps the 512 sequences: m x b x d = 2,097,152 / 4,096.
    for (const PlanCandidate &c : r.fitting)
        QCOMPARE(c.training.globalBatch(c.layout.dataParallel()), std::int64_t(512));
    // And fits: its peak is at most the card's usable 81,559 MiB = 85,520,809,984 bytes.
    for (const PlanCandidate &c : r.fitting)
        QVERIFY(c.peakBytes <= 85'520'809'984);
    // The unit follows the session: GiB = 2^30 bytes.
    session.setUnit(ByteUnit::GiB);
    QCOMPARE(cell(PlanTableModel::PeakMemory),
             QString::fromStdString(formatBytes(best.peakBytes, ByteUnit::GiB)));
    QCOMPARE(m->headerData(PlanTableModel::PeakMemory, Qt::Horizontal).toString(),
             QStringLiteral("Peak/GPU (GiB)"));
}

void TestPlanPanel::rowsSortedByStepTime()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    const PlanTableModel *m = panel.tableModel();
    QVERIFY(m->rowCount() > 3);
    auto column = [m](int col) {
        std::vector<double> v;
        for (int row = 0; row < m->rowCount(); ++row)
            v.push_back(m->data(m->index(row, col), Qt::UserRole).toDouble());
        return v;
    };
    const std::vector<double> steps = column(PlanTableModel::StepSeconds);
    QVERIFY(std::is_sorted(steps.begin(), steps.end()));
    for (int row = 0; row < m->rowCount(); ++row)
        QCOMPARE(m->rankAt(row), row + 1);

    // Sorted by another column, the rows follow it; the selection stays on its layout.
    panel.tableView()->selectRow(2);
    const int chosenRank = m->rankAt(2);
    panel.tableView()->sortByColumn(PlanTableModel::PeakMemory, Qt::AscendingOrder);
    const std::vector<double> peaks = column(PlanTableModel::PeakMemory);
    QVERIFY(std::is_sorted(peaks.begin(), peaks.end()));
    const QModelIndex current = panel.tableView()->selectionModel()->currentIndex();
    QCOMPARE(m->rankAt(current.row()), chosenRank);
    panel.tableView()->sortByColumn(PlanTableModel::Mfu, Qt::DescendingOrder);
    const std::vector<double> mfu = column(PlanTableModel::Mfu);
    QVERIFY(std::is_sorted(mfu.rbegin(), mfu.rend()));
    panel.tableView()->sortByColumn(PlanTableModel::StepSeconds, Qt::AscendingOrder);
    QCOMPARE(column(PlanTableModel::StepSeconds), steps);
}

void TestPlanPanel::activatingARowLoadsIt()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    QVERIFY(panel.tableModel()->rowCount() > 3);
    const PlanCandidate row3 = *panel.tableModel()->candidateAt(2);
    const QString summary = panel.summaryText();
    QSignalSpy planned(&panel, &PlanPanel::planned);

    emit panel.tableView()->activated(panel.tableModel()->index(2, 0));
    const Scenario &s = session.scenario();
    QCOMPARE(s.layout.tensorParallel, row3.layout.tensorParallel);
    QCOMPARE(s.layout.pipelineParallel, row3.layout.pipelineParallel);
    QCOMPARE(s.layout.contextParallel, row3.layout.contextParallel);
    QCOMPARE(s.layout.zeroStage, row3.layout.zeroStage);
    QCOMPARE(s.layout.hsdpShardSize, row3.layout.hsdpShardSize);
    QCOMPARE(s.layout.offload, row3.layout.offload);
    QCOMPARE(s.training.microBatchSize, row3.training.microBatchSize);
    QCOMPARE(s.training.microBatches, row3.training.microBatches);
    QCOMPARE(s.training.recompute, row3.training.recompute);
    QCOMPARE(s.training.schedule, row3.training.schedule);
    QCOMPARE(s.training.chunks, row3.training.chunks);
    // The memory view now draws that layout: the session's report is the row's peak, and
    // it fits (the planner keeps only verdict Fits).
    QCOMPARE(session.report().peakBytes(), row3.peakBytes);
    QCOMPARE(session.verdict().kind, Verdict::Kind::Fits);
    // The plan's inputs did not change (the batch is still 512 sequences): no new plan,
    // and the row is the chosen one, drawn on the chart.
    QVERIFY(!panel.isPlanning());
    QCOMPARE(planned.count(), 0);
    QCOMPARE(panel.summaryText(), summary);
    QCOMPARE(panel.chosenRank(), 3);
    QCOMPARE(panel.selectedGraph()->dataCount(), 1);
    QCOMPARE(panel.selectedGraph()->data()->begin()->key, row3.time.stepSeconds);
    QCOMPARE(panel.selectedGraph()->data()->begin()->value, double(row3.peakBytes) / 1e9);
}

void TestPlanPanel::clickingARowLoadsIt()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    showAndPlan(panel);
    QVERIFY(panel.tableModel()->rowCount() > 5);
    const PlanCandidate row5 = *panel.tableModel()->candidateAt(4);
    QTableView *view = panel.tableView();
    const QRect cell = view->visualRect(panel.tableModel()->index(4, PlanTableModel::Strategy));
    QVERIFY(!cell.isEmpty());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QCOMPARE(session.scenario().layout.tensorParallel, row5.layout.tensorParallel);
    QCOMPARE(session.scenario().layout.pipelineParallel, row5.layout.pipelineParallel);
    QCOMPARE(session.scenario().training.microBatches, row5.training.microBatches);
    QCOMPARE(session.report().peakBytes(), row5.peakBytes);
    QCOMPARE(panel.chosenRank(), 5);
}

void TestPlanPanel::frontierIsNonIncreasing()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    const QCPGraph *frontier = panel.frontierGraph();
    const QCPGraph *points = panel.pointsGraph();
    QCOMPARE(points->dataCount(), panel.tableModel()->rowCount());
    QVERIFY(frontier->dataCount() >= 1);
    // Step time grows along the frontier while memory falls.
    double lastKey = -1, lastValue = std::numeric_limits<double>::infinity();
    for (auto it = frontier->data()->constBegin(); it != frontier->data()->constEnd(); ++it) {
        QVERIFY(it->key > lastKey);
        QVERIFY(it->value <= lastValue);
        lastKey = it->key;
        lastValue = it->value;
    }
    // The fastest layout opens the frontier, and every point is dominated by a frontier
    // point that is no slower and no larger.
    QCOMPARE(frontier->data()->constBegin()->key,
             panel.tableModel()->candidateAt(0)->time.stepSeconds);
    for (auto p = points->data()->constBegin(); p != points->data()->constEnd(); ++p) {
        bool dominated = false;
        for (auto f = frontier->data()->constBegin(); f != frontier->data()->constEnd(); ++f)
            dominated = dominated || (f->key <= p->key && f->value <= p->value);
        QVERIFY(dominated);
    }
    // The capacity line at the H100's usable 81,559 MiB = 85.520809984 GB (not the
    // datasheet's 80), and every point under it.
    QCOMPARE(panel.capacityLine()->point1->value(), 85.520809984);
    for (auto p = points->data()->constBegin(); p != points->data()->constEnd(); ++p)
        QVERIFY(p->value <= 85.520809984);
}

void TestPlanPanel::paretoFrontierByHand()
{
    // (1 s, 50 B) is fastest; (2 s, 60 B) is slower and larger: out; (3 s, 40 B) and
    // (3 s, 30 B) tie on time: the smaller one enters; (4 s, 30 B) is no smaller: out;
    // (5 s, 10 B) enters. Frontier: indexes 0, 3, 5.
    const std::vector<PlanCandidate> c = {synthetic(1, 50), synthetic(2, 60), synthetic(3, 40),
                                          synthetic(3, 30), synthetic(4, 30), synthetic(5, 10)};
    QCOMPARE(PlanPanel::paretoFrontier(c), (std::vector<int>{0, 3, 5}));
    // A candidate without a time is left off: (2 s, 60 B) is then the fastest and enters.
    std::vector<PlanCandidate> untimed = c;
    untimed[0].time.error = "no speed";
    QCOMPARE(PlanPanel::paretoFrontier(untimed), (std::vector<int>{1, 3, 5}));
}

void TestPlanPanel::invalidScenarioShowsAMessage()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    QVERIFY(panel.tableModel()->rowCount() > 0);

    // A plain parameter count (the ZeRO paper's 70B) has no layers to split.
    session.setScenario(seventyB(64, ZeroStage::Zero3));
    // The message needs no plan: it shows at once.
    QVERIFY2(panel.messageText().contains(QStringLiteral("no architecture")),
             qPrintable(panel.messageText()));
    QVERIFY(!panel.messageText().contains(u'\n'));
    QCOMPARE(panel.tableModel()->rowCount(), 0);
    QCOMPARE(panel.pointsGraph()->dataCount(), 0);
    QVERIFY(!panel.isPlanning());

    // An invalid scenario: sequence length 0 is the engine's one-line error.
    Session other(Catalog::builtIn());
    PlanPanel second(&other);
    other.edit([](Scenario &s) { s.training.sequenceLength = 0; });
    second.planNow();
    QVERIFY2(second.messageText().startsWith(QStringLiteral("Cannot plan: ")),
             qPrintable(second.messageText()));
    QVERIFY(!second.messageText().contains(QStringLiteral("nan"), Qt::CaseInsensitive));
    QCOMPARE(second.tableModel()->rowCount(), 0);
    // Back to a valid scenario: the message goes, the rows come back.
    other.edit([](Scenario &s) { s.training.sequenceLength = 4096; });
    second.planNow();
    QVERIFY(second.messageText().isEmpty());
    QVERIFY(second.tableModel()->rowCount() > 0);

    // Nothing fits one GPU of Llama 3.1 405B: its 405,853,388,800 parameters (Meta's
    // config.json, docs/models.md) x 16 B = 6.49 TB of model states overflow the 85.5 GB card
    // and, offloaded, the node's 2 TB of host RAM: a message, no rows.
    other.setModelPreset("llama3.1-405b");
    other.setGpus(1);
    QCOMPARE(other.scenario().model.parameters(), std::int64_t(405'853'388'800));
    second.planNow();
    QVERIFY2(second.messageText().startsWith(QStringLiteral("Nothing fits 1 ×")),
             qPrintable(second.messageText()));
    QCOMPARE(second.tableModel()->rowCount(), 0);
}

void TestPlanPanel::plansOffTheMainThreadOnceItRests()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    QSignalSpy planned(&panel, &PlanPanel::planned);
    // A drag: five changes in a row (never shown: LazyRefresh refreshes on each). The
    // plan waits for the session to rest, then runs once, on the worker thread.
    for (std::int64_t gpus : {72, 80, 96, 112, 128})
        session.setGpus(gpus);
    QVERIFY(panel.isPlanning());
    QCOMPARE(planned.count(), 0);
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlanning(), 30000);
    QCOMPARE(planned.count(), 1);
    QCOMPARE(panel.result().fitting.empty(), false);
    QCOMPARE(panel.request().minGpus, std::int64_t(128));
    // The batch followed the layout: m x b x d x s = 8 x 1 x 128 x 4,096 = 4,194,304.
    QCOMPARE(panel.request().globalBatchTokens, std::int64_t(4'194'304));
    const PlanResult r = plan(cliRequest(session.scenario(), 128, 4'194'304));
    QVERIFY(sameCandidate(*panel.tableModel()->candidateAt(0), r.fitting.front()));

    // An edited batch stays; it is snapped to a multiple of s.
    panel.batchTokensSpin()->setValue(2'000'000);
    QCOMPARE(panel.request().globalBatchTokens, std::int64_t(488) * 4096); // 1,998,848
    session.setGpus(64);
    QCOMPARE(panel.request().globalBatchTokens, std::int64_t(488) * 4096);
    // A change while a plan runs ends in the latest inputs only.
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlanning(), 30000);
    QCOMPARE(panel.result().fitting.front().layout.gpus, std::int64_t(64));
}

void TestPlanPanel::hiddenTabPlansWhenShown()
{
    Session session(Catalog::builtIn());
    QTabWidget tabs;
    tabs.addTab(new QWidget, QStringLiteral("Memory"));
    auto *panel = new PlanPanel(&session);
    tabs.addTab(panel, QStringLiteral("Plan"));
    QVERIFY(test::shownAt(tabs, QSize(1200, 800)));
    session.setGpus(128);
    QTest::qWait(PlanPanel::restMilliseconds * 2);
    QVERIFY(!panel->isPlanning()); // a hidden tab does not plan
    QVERIFY(panel->result().fitting.empty());
    tabs.setCurrentIndex(1);
    QTRY_VERIFY_WITH_TIMEOUT(!panel->result().fitting.empty(), 30000);
    QCOMPARE(panel->result().fitting.front().layout.gpus, std::int64_t(128));
}

void TestPlanPanel::gpuRange()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.rangeCheck()->setChecked(true);
    // Checking it starts at half the session's count up to the count: 32 to 64.
    QCOMPARE(panel.minGpusSpin()->value(), 32);
    QCOMPARE(panel.maxGpusSpin()->value(), 64);
    panel.minGpusSpin()->setValue(40);
    panel.maxGpusSpin()->setValue(48);
    panel.planNow();
    const PlanRequest q = panel.request();
    QCOMPARE(q.minGpus, std::int64_t(40));
    QCOMPARE(q.maxGpus, std::int64_t(48));
    PlanRequest cli = cliRequest(session.scenario(), 40, defaultBatchTokens);
    cli.maxGpus = 48;
    const PlanResult r = plan(cli);
    QCOMPARE(panel.tableModel()->rowCount(), int(r.fitting.size()));
    QVERIFY(sameCandidate(*panel.tableModel()->candidateAt(0), r.fitting.front()));
    // Every row is within the range; 40 GPUs split evenly too: d 8 x p 5 (or d 4 x p 10),
    // p a divisor of Llama 3 70B's 80 layers and d of the 512 sequences.
    bool forty = false;
    for (const PlanCandidate &c : r.fitting) {
        QVERIFY(c.layout.gpus >= 40 && c.layout.gpus <= 48);
        forty = forty || c.layout.gpus == 40;
    }
    QVERIFY(forty);
    // Loading a row at 40 GPUs sets the session's count and does not plan again.
    for (int row = 0; row < panel.tableModel()->rowCount(); ++row)
        if (panel.tableModel()->candidateAt(row)->layout.gpus == 40) {
            const PlanCandidate c = *panel.tableModel()->candidateAt(row);
            panel.loadRow(row);
            QCOMPARE(session.scenario().layout.gpus, c.layout.gpus);
            QCOMPARE(session.report().peakBytes(), c.peakBytes);
            QVERIFY(!panel.isPlanning());
            break;
        }
}

void TestPlanPanel::cancelStopsALongPlan()
{
    // Llama 3 70B over 1 to 16,384 GPUs: about a million candidates, seconds of CPU. The tab
    // says how far it got, Cancel stops it, and the message says where it stopped.
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    QSignalSpy planned(&panel, &PlanPanel::planned);
    panel.rangeCheck()->setChecked(true);
    panel.minGpusSpin()->setValue(1);
    panel.maxGpusSpin()->setValue(16384);
    QTRY_VERIFY_WITH_TIMEOUT(panel.cancelButton()->isVisibleTo(&panel), 5000);
    const QRegularExpression progress(QStringLiteral("^Planning… ([0-9,]+) of ([0-9,]+) layouts$"));
    QTRY_VERIFY2_WITH_TIMEOUT(progress.match(panel.summaryText()).hasMatch(),
                              qPrintable(panel.summaryText()), 30000);
    const QString total = progress.match(panel.summaryText()).captured(2);
    panel.cancelPlan();
    QTRY_VERIFY_WITH_TIMEOUT(!panel.isPlanning(), 30000);
    QCOMPARE(planned.count(), 1);
    QVERIFY(!panel.cancelButton()->isVisibleTo(&panel));
    const QString message = panel.messageText();
    QVERIFY2(message.startsWith(QStringLiteral("Plan cancelled after ")), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral(" of %1 layouts").arg(total)), qPrintable(message));
    QVERIFY2(!message.contains(QStringLiteral("after %1 ").arg(total)), qPrintable(message));

    // Closing the tab while a long plan runs stops it: the destructor returns.
    auto *again = new PlanPanel(&session);
    again->rangeCheck()->setChecked(true);
    again->minGpusSpin()->setValue(1);
    again->maxGpusSpin()->setValue(16384);
    QTRY_VERIFY_WITH_TIMEOUT(again->cancelButton()->isVisibleTo(again), 5000);
    delete again;
}

void TestPlanPanel::exportRoundTrips()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    // Nothing planned yet: nothing to export.
    QVERIFY(!panel.exportLaunchConfig(dir.filePath(QStringLiteral("none.json")),
                                      LaunchFormat::DeepSpeed, &error));
    QVERIFY(error.contains(QStringLiteral("no layout")));

    panel.planNow();
    panel.loadRow(2);
    const PlanCandidate c = *panel.tableModel()->candidateAt(2);
    const QString path = dir.filePath(QStringLiteral("launch.json"));
    QVERIFY2(panel.exportLaunchConfig(path, LaunchFormat::DeepSpeed, &error), qPrintable(error));
    const QByteArray bytes = test::readFile(path);
    // The same document `shardscope export-config --format deepspeed` writes for the layout.
    const auto expected = exportLaunchConfig(session.scenario(), LaunchFormat::DeepSpeed, &error);
    QVERIFY(expected);
    QCOMPARE(bytes, expected->text);
    // And it reads back as the row: train_batch_size = m x b x d = 512 sequences
    // (DeepSpeed docs/_pages/config-json.md), the row's b, m and ZeRO stage.
    const QJsonObject o = QJsonDocument::fromJson(bytes).object();
    QCOMPARE(o.value(QStringLiteral("train_batch_size")).toInteger(), 512);
    QCOMPARE(o.value(QStringLiteral("train_micro_batch_size_per_gpu")).toInteger(),
             c.training.microBatchSize);
    QCOMPARE(o.value(QStringLiteral("gradient_accumulation_steps")).toInteger(),
             c.training.microBatches);
    QCOMPARE(o.value(QStringLiteral("zero_optimization"))
                 .toObject()
                 .value(QStringLiteral("stage"))
                 .toInt(),
             int(c.layout.zeroStage));

    // torchtitan carries every degree (torchtitan/config/job_config.py Parallelism).
    const QString toml = dir.filePath(QStringLiteral("launch.toml"));
    QVERIFY2(panel.exportLaunchConfig(toml, LaunchFormat::Torchtitan, &error) ||
                 error.startsWith(QStringLiteral("torchtitan: ")),
             qPrintable(error));
    if (QFile::exists(toml)) {
        const QString text = QString::fromUtf8(test::readFile(toml));
        QVERIFY(text.contains(
            QStringLiteral("tensor_parallel_degree = %1").arg(c.layout.tensorParallel)));
        QVERIFY(text.contains(
            QStringLiteral("pipeline_parallel_degree = %1").arg(c.layout.pipelineParallel)));
    }
    // Megatron-LM's arguments for the first row Megatron runs (DDP or its distributed
    // optimizer, ZeRO-1): the row's degrees and batch as pretrain_gpt.py flags.
    for (int row = 0; row < panel.tableModel()->rowCount(); ++row) {
        const PlanCandidate m = *panel.tableModel()->candidateAt(row);
        if (m.layout.zeroStage > ZeroStage::Zero1)
            continue;
        panel.loadRow(row);
        const QString args = dir.filePath(QStringLiteral("megatron.sh"));
        QVERIFY2(panel.exportLaunchConfig(args, LaunchFormat::Megatron, &error), qPrintable(error));
        const QString text = QString::fromUtf8(test::readFile(args));
        QVERIFY(text.contains(
            QStringLiteral("--tensor-model-parallel-size %1").arg(m.layout.tensorParallel)));
        QVERIFY(text.contains(
            QStringLiteral("--pipeline-model-parallel-size %1").arg(m.layout.pipelineParallel)));
        QVERIFY(
            text.contains(QStringLiteral("--micro-batch-size %1").arg(m.training.microBatchSize)));
        break;
    }

    // An unwritable path is one line naming it.
    QVERIFY(!panel.exportLaunchConfig(dir.filePath(QStringLiteral("missing/dir/x.json")),
                                      LaunchFormat::DeepSpeed, &error));
    QVERIFY(error.contains(QStringLiteral("missing/dir")));
}

void TestPlanPanel::stylesAgreeWithTheLegend()
{
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    panel.planNow();
    for (const ChartStyle &st :
         {ChartStyle::light(), ChartStyle::dark(), ChartStyle::presentation(false)}) {
        panel.setChartStyle(st);
        QCustomPlot *plot = panel.plot();
        QCOMPARE(plot->legend->itemCount(), 3);
        // Each legend entry draws its graph's own pen and scatter (QCPPlottableLegendItem).
        for (QCPGraph *g : {panel.pointsGraph(), panel.frontierGraph(), panel.selectedGraph()})
            QVERIFY(plot->legend->itemWithPlottable(g));
        QCOMPARE(panel.pointsGraph()->scatterStyle().pen().color(),
                 st.isDark() ? QColor(0x56, 0xB4, 0xE9) : QColor(0x00, 0x72, 0xB2));
        QCOMPARE(panel.selectedGraph()->scatterStyle().pen().color(), st.ink);
        QCOMPARE(panel.palette().color(QPalette::Window), st.background);
    }
}

void TestPlanPanel::closesWithTheBatchBoxFocused()
{
    // A window closed while the global batch box has the focus: deleting the box emits
    // editingFinished, which must not reach the half-destroyed panel (UBSan's vptr check
    // in the sanitizer build caught it in a panel's destructor).
    Session session(Catalog::builtIn());
    auto *panel = new PlanPanel(&session);
    showAndPlan(*panel);
    panel->activateWindow();
    panel->batchTokensSpin()->setFocus();
    QCoreApplication::processEvents();
    QSignalSpy finished(panel->batchTokensSpin(), &QSpinBox::editingFinished);
    delete panel;
    QCOMPARE(finished.count(), 1); // the focus-out during the delete (the path that crashed)
}

void TestPlanPanel::screenshots()
{
    // Looking at it (CONTRIBUTING.md "UI changes"): SHARDSCOPE_PLAN_SCREENSHOTS=DIR saves
    // the panel at 1600 x 900 in the three styles.
    const QString out = qEnvironmentVariable("SHARDSCOPE_PLAN_SCREENSHOTS");
    if (out.isEmpty())
        QSKIP("set SHARDSCOPE_PLAN_SCREENSHOTS=DIR to save screenshots");
    QDir().mkpath(out);
    Session session(Catalog::builtIn());
    PlanPanel panel(&session);
    showAndPlan(panel);
    panel.loadRow(2);
    const std::pair<const char *, ChartStyle> styles[] = {
        {"plan.png", ChartStyle::light()},
        {"plan-dark.png", ChartStyle::dark()},
        {"plan-presentation.png", ChartStyle::presentation(false)}};
    for (const auto &[name, st] : styles) {
        panel.setChartStyle(st);
        QTest::qWait(50);
        panel.plot()->replot();
        QCOMPARE(panel.size(), QSize(1600, 900)); // nothing forces it wider
        QVERIFY(panel.grab().save(QDir(out).filePath(QString::fromLatin1(name))));
    }
}

QTEST_MAIN(TestPlanPanel)
#include "test_planpanel.moc"
