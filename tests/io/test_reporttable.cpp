// The per-GPU numbers table (io/reporttable.h) and the file-name stem of exports
// (core/format.h scenarioFileStem): what Copy as CSV / Markdown and File > Export data
// write, checked against hand calculations.
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "reporttable.h"

#include <QTest>

using namespace shardscope;

class TestReportTable : public QObject
{
    Q_OBJECT
private slots:
    void zeroStatesOnlyByHand();
    void pipelineStagesAreRows();
    void csvAndMarkdown();
    void invalidReportHasNoRows();
    void fileStems();
};

namespace {

/// Llama 3 70B, mixed-precision AdamW, H100 SXM 80GB, `gpus` GPUs.
Scenario seventyB(std::int64_t gpus, ZeroStage stage)
{
    return test::catalogScenario("llama3-70b", gpus, stage);
}

} // namespace

void TestReportTable::zeroStatesOnlyByHand()
{
    // ZeRO-3 on 64 GPUs, model states only (the ZeRO paper's Figure 1 accounting): each
    // GPU holds ceil(70,553,706,496 / 64) = 1,102,401,664 parameters' shards, x 2 B
    // weights, 2 B gradients, 4 B master weights, 8 B Adam = 17,638,426,624 B in all,
    // 20.6% of the 85,520,809,984 bytes (81,559 MiB) the H100's driver reports.
    Scenario s = seventyB(64, ZeroStage::Zero3);
    s.modelStatesOnly = true;
    const ReportTable t = reportTable(s, estimate(s), ByteUnit::GB);
    QCOMPARE(t.values.size(), std::size_t(1));
    const auto &row = t.values.front();
    QCOMPARE(row[1], std::int64_t(64));
    QCOMPARE(row[3], std::int64_t(2) * 1'102'401'664);
    QCOMPARE(row[4], std::int64_t(2) * 1'102'401'664);
    QCOMPARE(row[5], std::int64_t(4) * 1'102'401'664);
    QCOMPARE(row[6], std::int64_t(8) * 1'102'401'664);
    QCOMPARE(row[7], std::int64_t(0));
    QCOMPARE(row[9], std::int64_t(17'638'426'624));
    // per mille: 17,638,426,624 x 1000 / 85,520,809,984 = 206.25 -> 206
    QCOMPARE(row[10], std::int64_t(206));
    QCOMPARE(t.rankLabels.front(), QStringLiteral("GPU 0–63"));
    QCOMPARE(t.text(0, 9), QStringLiteral("17.6"));
    QCOMPARE(t.text(0, 10), QStringLiteral("20.6%"));
    QCOMPARE(t.headers.value(9), QStringLiteral("Total (GB)"));
    QCOMPARE(t.headers.value(10), QStringLiteral("Of H100"));
}

void TestReportTable::pipelineStagesAreRows()
{
    // t 8, p 4 on 64 GPUs: four stages of 16 GPUs (d 2 x t 8), ranks 0-15, 16-31, ...
    Scenario s = seventyB(64, ZeroStage::Zero1);
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    const MemoryReport r = estimate(s);
    QVERIFY(r.valid());
    const ReportTable t = reportTable(s, r, ByteUnit::GiB);
    QCOMPARE(t.values.size(), std::size_t(4));
    for (std::size_t i = 0; i < 4; ++i) {
        QCOMPARE(t.values[i][1], std::int64_t(16));
        QCOMPARE(t.values[i][2], std::int64_t(i));
        QCOMPARE(t.values[i][9], r.groups[i].totalBytes());
    }
    QCOMPARE(t.rankLabels[1], QStringLiteral("GPU 16–31"));
    QCOMPARE(t.headers.value(3), QStringLiteral("Weights (GiB)"));
}

void TestReportTable::csvAndMarkdown()
{
    Scenario s = seventyB(64, ZeroStage::Zero3);
    s.modelStatesOnly = true;
    const ReportTable t = reportTable(s, estimate(s), ByteUnit::GB);
    const QStringList lines = toCsv(t).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 2);
    QCOMPARE(lines[0], QStringLiteral("GPUs,Count,Stage,Weights (bytes),Gradients (bytes),"
                                      "Master weights (bytes),Optimizer states (bytes),"
                                      "Activations (bytes),Buffers (bytes),Total (bytes),"
                                      "Of H100 (fraction),Host offload (bytes)"));
    QCOMPARE(lines[1], QStringLiteral("GPU 0–63,64,0,2204803328,2204803328,4409606656,"
                                      "8819213312,0,0,17638426624,0.206,0"));
    const QStringList md = toMarkdown(t).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(md.size(), 3);
    QVERIFY(md[0].startsWith(QStringLiteral("| GPUs | Count | Stage | Weights (GB) |")));
    QCOMPARE(md[1], QStringLiteral("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"));
    QCOMPARE(md[2], QStringLiteral("| GPU 0–63 | 64 | 0 | 2.2 | 2.2 | 4.4 | 8.8 | 0.0 | 0.0 | "
                                   "17.6 | 20.6% | 0.0 |"));
}

void TestReportTable::invalidReportHasNoRows()
{
    Scenario s = seventyB(64, ZeroStage::Zero3);
    s.layout.tensorParallel = 3; // 64 heads are not divisible by 3
    const MemoryReport r = estimate(s);
    QVERIFY(!r.valid());
    const ReportTable t = reportTable(s, r, ByteUnit::GB);
    QVERIFY(t.values.empty());
    QCOMPARE(t.headers.size(), ReportTable::columnCount);
    QCOMPARE(toCsv(t).count(QStringLiteral("\r\n")), 1); // the header alone
}

void TestReportTable::fileStems()
{
    QCOMPARE(QString::fromStdString(scenarioFileStem(seventyB(64, ZeroStage::Ddp))),
             QStringLiteral("llama3-70b-64xh100-ddp"));
    Scenario s = seventyB(512, ZeroStage::Zero3);
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    QCOMPARE(QString::fromStdString(scenarioFileStem(s)),
             QStringLiteral("llama3-70b-512xh100-zero3-t8-p4"));
    s.model.id = "My Model/v2 (final)";
    s.gpu.shortName = "";
    s.gpu.id = "";
    QCOMPARE(QString::fromStdString(scenarioFileStem(s)),
             QStringLiteral("my-model-v2-final-512xgpu-zero3-t8-p4"));
}

QTEST_MAIN(TestReportTable)
#include "test_reporttable.moc"
