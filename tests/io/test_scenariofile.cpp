// Scenario files: every setting survives a round trip (identical reports), malformed
// files are refused with one line naming the field, saves are atomic, and the
// recent-files list keeps 8 existing files, most recent first.
#include "../testfiles.h"
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "reportjson.h"
#include "scenariofile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QSaveFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/resource.h>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Scenario)

namespace {

// Llama 3 70B, t 8, p 4, d 2, 1F1B, selective recomputation, on 64 H100s; and the plain
// 70B count at ZeRO-3 on 64, model states only.
using test::llama70bPipeline;

Scenario plainCount()
{
    return test::plain70bStates(64, ZeroStage::Zero3);
}

/// Every field set away from its default.
Scenario everythingChanged()
{
    Scenario s = defaultScenario();
    s.model = *Catalog::builtIn().model("llama3-8b");
    s.model.architecture->tiedEmbeddings = true;
    s.model.displayName = "Llama 3 8B, tied";
    s.recipe = Recipe{"custom", "Custom", "test", 2, 4, 4, 2};
    s.gpu = *Catalog::builtIn().gpu("a100-40gb");
    s.gpu.capacityBytes = 41'000'000'000;
    s.layout = Layout{96, 2, 4, 2, ZeroStage::Zero3, 4, Offload::OptimizerAndParams, true, 4};
    s.training.microBatchSize = 2;
    s.training.sequenceLength = 8192;
    s.training.microBatches = 12;
    s.training.recompute = Recompute::None;
    s.training.flashAttention = false;
    s.training.sequenceParallel = false;
    s.training.fp32Logits = false;
    s.training.lossKernel = LossKernel::Eager;
    s.training.dropout = true;
    s.training.activationBytes = 4;
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = 2;
    s.overheads = Overheads{1'000'000'000, 10'000'000, 200'000'000, 1, 7, 512'000'000'000};
    s.modelStatesOnly = false;
    return s;
}

QByteArray reportBytes(const Scenario &s)
{
    return QJsonDocument(reportToJson(s, estimate(s))).toJson(QJsonDocument::Compact);
}

/// plainCount() saved to `path` by saveScenarioFile(): the bytes the file then holds,
/// empty when the save failed. The file a failed save must leave as it was.
QByteArray savedPlainCount(const QString &path)
{
    QString error;
    return saveScenarioFile(path, plainCount(), ByteUnit::GB, &error) ? test::readFile(path)
                                                                      : QByteArray();
}

void writeBytes(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

} // namespace

class TestScenarioFile : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void roundTrip_data();
    void roundTrip();
    void everyFieldSurvives();
    void writesSchemaAndVersion();
    void handWrittenFileUsesDefaults();
    void gpuSpeedsSurvive();
    void oldGpuObjectWithoutSpeedsLoads();
    void emptyNamesReadAsNoneGiven();
    void malformed_data();
    void malformed();
    void truncatedFile();
    void missingFile();
    void atomicSaveKeepsOldFileOnFailure();
    void atomicSaveKeepsOldFileInReadOnlyDirectory();
    void atomicSaveKeepsOldFileWhenTheDiskIsFull();
    void atomicSaveNamesWhyALargeWriteFailed();
    void atomicSaveRefusesADevice();
    void recentFilesOrderAndLimit();
    void recentFilesDropsMissing();
};

void TestScenarioFile::roundTrip_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<int>("unit");
    QTest::newRow("llama3-70b t8 p4 d2 1F1B selective") << llama70bPipeline() << int(ByteUnit::GB);
    QTest::newRow("plain 70B count, ZeRO-3, GiB") << plainCount() << int(ByteUnit::GiB);
    QTest::newRow("every field changed") << everythingChanged() << int(ByteUnit::GB);
    Scenario offload = plainCount();
    offload.layout.gpus = 8;
    offload.layout.offload = Offload::Optimizer;
    QTest::newRow("plain 70B, 8 GPUs, optimizer offload") << offload << int(ByteUnit::GB);
    if (const Model *moe = Catalog::builtIn().model("mixtral-8x7b")) {
        Scenario s = defaultScenario();
        s.model = *moe; // a mixture of experts, with expert parallelism
        s.layout.gpus = 64;
        s.layout.expertParallel = 8;
        s.layout.zeroStage = ZeroStage::Zero1;
        QTest::newRow("mixtral 8x7B, ep 8") << s << int(ByteUnit::GB);
    }
}

void TestScenarioFile::roundTrip()
{
    QFETCH(Scenario, scenario);
    QFETCH(int, unit);
    QVERIFY2(validate(scenario).empty(), validate(scenario).c_str());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("s.shardscope.json"));
    QString error;
    QVERIFY2(saveScenarioFile(path, scenario, ByteUnit(unit), &error), qPrintable(error));
    const auto loaded = loadScenarioFile(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    QCOMPARE(int(loaded->unit), unit);
    // The engine sees the same inputs: reports identical to the byte.
    QCOMPARE(reportBytes(loaded->scenario), reportBytes(scenario));
    const MemoryReport a = estimate(scenario), b = estimate(loaded->scenario);
    QCOMPARE(a.peakBytes(), b.peakBytes());
    QCOMPARE(a.groups.size(), b.groups.size());
    // And writing it again gives the same file.
    QCOMPARE(QJsonDocument(scenarioToJson(loaded->scenario, loaded->unit)).toJson(),
             test::readFile(path));
}

void TestScenarioFile::everyFieldSurvives()
{
    const Scenario s = everythingChanged();
    QString error;
    const auto d = scenarioFromJson(scenarioToJson(s, ByteUnit::GiB), QStringLiteral("x"), &error);
    QVERIFY2(d, qPrintable(error));
    const Scenario &t = d->scenario;
    QCOMPARE(t.model.id, s.model.id);
    QCOMPARE(t.model.displayName, std::string("Llama 3 8B, tied"));
    QVERIFY(t.model.architecture->tiedEmbeddings);
    QCOMPARE(t.model.parameters(), s.model.parameters());
    QCOMPARE(t.recipe.gradientBytes, std::int64_t(4));
    QCOMPARE(t.recipe.optimizerBytes, std::int64_t(2));
    QCOMPARE(t.gpu.id, std::string("a100-40gb"));
    QCOMPARE(t.gpu.capacityBytes, std::int64_t(41'000'000'000));
    QCOMPARE(t.gpu.driverReportedBytes, s.gpu.driverReportedBytes);
    QCOMPARE(t.layout.gpus, std::int64_t(96));
    QCOMPARE(t.layout.tensorParallel, 2);
    QCOMPARE(t.layout.pipelineParallel, 4);
    QCOMPARE(t.layout.contextParallel, 2);
    QCOMPARE(t.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(t.layout.hsdpShardSize, std::int64_t(4));
    QCOMPARE(t.layout.offload, Offload::OptimizerAndParams);
    QVERIFY(t.layout.allowUnevenStages);
    QCOMPARE(t.layout.gpusPerNode, std::int64_t(4));
    QCOMPARE(t.layout.expertParallel, s.layout.expertParallel);
    QCOMPARE(t.training.microBatchSize, std::int64_t(2));
    QCOMPARE(t.training.sequenceLength, std::int64_t(8192));
    QCOMPARE(t.training.microBatches, std::int64_t(12));
    QCOMPARE(t.training.recompute, Recompute::None);
    QVERIFY(!t.training.flashAttention);
    QVERIFY(!t.training.sequenceParallel);
    QVERIFY(!t.training.fp32Logits);
    QCOMPARE(t.training.lossKernel, LossKernel::Eager);
    QVERIFY(t.training.dropout);
    QCOMPARE(t.training.activationBytes, std::int64_t(4));
    QCOMPARE(t.training.schedule, PipelineSchedule::Interleaved1F1B);
    QCOMPARE(t.training.chunks, 2);
    QCOMPARE(t.overheads.cudaContextBytes, std::int64_t(1'000'000'000));
    QCOMPARE(t.overheads.ddpBucketBytes, std::int64_t(10'000'000));
    QCOMPARE(t.overheads.zeroBucketElements, std::int64_t(200'000'000));
    QCOMPARE(t.overheads.gatheredUnits, 1);
    QCOMPARE(t.overheads.fragmentationPercent, 7);
    QCOMPARE(t.overheads.hostRamBytesPerNode, std::int64_t(512'000'000'000));
    QVERIFY(!t.modelStatesOnly);
    QCOMPARE(d->unit, ByteUnit::GiB);
}

void TestScenarioFile::writesSchemaAndVersion()
{
    const QJsonObject o = scenarioToJson(plainCount(), ByteUnit::GB);
    QCOMPARE(o["schema"].toString(), QStringLiteral("shardscope-scenario"));
    QCOMPARE(o["version"].toInt(), 1);
    QCOMPARE(o["strategy"].toString(), QStringLiteral("zero3"));
    QCOMPARE(o["gpus"].toInteger(), 64LL);
    QCOMPARE(o["model"].toObject()["parameters"].toInteger(), 70'000'000'000LL);
    QCOMPARE(o["recipe"].toObject()["master_weights"].toInt(), 4);
    QCOMPARE(o["gpu"].toObject()["capacity_bytes"].toInteger(), 80'000'000'000LL);
    QCOMPARE(o["model_states_only"].toBool(), true);
    QCOMPARE(o["unit"].toString(), QStringLiteral("gb"));
}

void TestScenarioFile::handWrittenFileUsesDefaults()
{
    QString error;
    const auto d = scenarioFromBytes(R"({"schema": "shardscope-scenario", "version": 1,
        "model": "plain-70b", "gpus": 64, "strategy": "zero3", "model_states_only": true})",
                                     QStringLiteral("hand.json"), &error);
    QVERIFY2(d, qPrintable(error));
    const MemoryReport r = estimate(d->scenario);
    QCOMPARE(r.peakBytes(), std::int64_t(17'500'000'000)); // 70e9 x 16 / 64
    QCOMPARE(d->scenario.gpu.id, std::string("h100-sxm-80gb"));
    QCOMPARE(d->scenario.recipe.id, std::string("mixed-adam"));
}

void TestScenarioFile::gpuSpeedsSurvive()
{
    // An inline GPU carries the four step-time speeds and their source. NVIDIA H100 SXM
    // datasheet: 989.4 TFLOP/s dense BF16, 1,978.9 dense FP8, 3.35 TB/s HBM3, NVLink
    // 900 GB/s bidirectional = 450 GB/s each way.
    Scenario s = plainCount();
    s.gpu = *Catalog::builtIn().gpu("h100-sxm-80gb");
    const QJsonObject o = scenarioToJson(s, ByteUnit::GB);
    const QJsonObject g = o["gpu"].toObject();
    QCOMPARE(g["bf16_tflops"].toDouble(), 989.4);
    QCOMPARE(g["memory_gbps"].toDouble(), 3350.0);
    QCOMPARE(g["nvlink_gbps"].toDouble(), 450.0);
    QCOMPARE(g["speed_source"].toString(), QString::fromStdString(s.gpu.speedSource));
    QString error;
    const auto d = scenarioFromJson(o, QStringLiteral("x"), &error);
    QVERIFY2(d, qPrintable(error));
    const Gpu &t = d->scenario.gpu;
    QCOMPARE(t.bf16FlopsPerSecond, s.gpu.bf16FlopsPerSecond);
    QCOMPARE(t.fp8FlopsPerSecond, s.gpu.fp8FlopsPerSecond);
    QCOMPARE(t.memoryBytesPerSecond, s.gpu.memoryBytesPerSecond);
    QCOMPARE(t.nvlinkBytesPerSecond, s.gpu.nvlinkBytesPerSecond);
    QCOMPARE(t.speedSource, s.gpu.speedSource);
    // A hand-written custom card with its own speeds.
    const auto custom = scenarioFromBytes(
        R"({"schema": "shardscope-scenario", "version": 1, "model": "plain-70b",
            "gpu": {"capacity_bytes": 96000000000, "bf16_tflops": 500, "memory_gbps": 2000,
                    "speed_source": "my datasheet"}})",
        QStringLiteral("custom.json"), &error);
    QVERIFY2(custom, qPrintable(error));
    QCOMPARE(custom->scenario.gpu.bf16FlopsPerSecond, 500e12);
    QCOMPARE(custom->scenario.gpu.memoryBytesPerSecond, 2000e9);
    QCOMPARE(custom->scenario.gpu.fp8FlopsPerSecond, 0.0);
    QCOMPARE(custom->scenario.gpu.speedSource, std::string("my datasheet"));
    // A B200 carries its MXFP8 peak (NVIDIA DGX B200 datasheet: the FP8 rate, 4.5 PF
    // dense); the H100 above has none and writes 0.
    QCOMPARE(g["mxfp8_tflops"].toDouble(), 0.0);
    s.gpu = *Catalog::builtIn().gpu("b200-180gb");
    const auto b200 =
        scenarioFromJson(scenarioToJson(s, ByteUnit::GB), QStringLiteral("b"), &error);
    QVERIFY2(b200, qPrintable(error));
    QCOMPARE(b200->scenario.gpu.mxfp8FlopsPerSecond, 4500e12);
}

void TestScenarioFile::oldGpuObjectWithoutSpeedsLoads()
{
    // A file written before the speeds existed: the card loads with speeds 0 (unknown),
    // and the report's step time is null with a note, not 0.
    QString error;
    const auto d = scenarioFromBytes(
        R"({"schema": "shardscope-scenario", "version": 1, "model": "llama3-8b",
            "gpu": {"id": "old", "name": "Old card", "short": "Old",
                    "capacity_bytes": 80000000000, "driver_bytes": 0, "source": "x"}})",
        QStringLiteral("old.json"), &error);
    QVERIFY2(d, qPrintable(error));
    QCOMPARE(d->scenario.gpu.bf16FlopsPerSecond, 0.0);
    QCOMPARE(d->scenario.gpu.memoryBytesPerSecond, 0.0);
    const QJsonObject r = reportToJson(d->scenario, estimate(d->scenario));
    QVERIFY(r["step_seconds"].isNull());
    QVERIFY(r["mfu"].isNull());
    QVERIFY(r["hfu"].isNull());
    QVERIFY(r["tokens_per_second"].isNull());
    const QJsonArray notes = r["notes"].toArray();
    QVERIFY(!notes.isEmpty());
    QVERIFY2(notes.last().toString().contains(QStringLiteral("bf16_tflops")),
             qPrintable(notes.last().toString()));
}

void TestScenarioFile::emptyNamesReadAsNoneGiven()
{
    // A hand-edited file with empty GPU and recipe names loads as if they were absent, so
    // the report's header reads "8 x Custom GPU", not "8 x :".
    QString error;
    const auto d = scenarioFromBytes(
        R"({"schema": "shardscope-scenario", "version": 1, "model": "llama3-8b", "gpus": 8,
            "gpu": {"id": "", "name": "", "capacity_bytes": 80000000000},
            "recipe": {"id": "", "name": "", "weights": 2, "gradients": 2,
                       "master_weights": 4, "optimizer": 8}})",
        QStringLiteral("blank.json"), &error);
    QVERIFY2(d, qPrintable(error));
    QCOMPARE(d->scenario.gpu.id, std::string("custom"));
    QCOMPARE(d->scenario.gpu.name, std::string("Custom GPU"));
    QCOMPARE(d->scenario.gpu.shortName, std::string("Custom GPU"));
    QCOMPARE(d->scenario.recipe.id, std::string("custom"));
    QCOMPARE(d->scenario.recipe.displayName, std::string("Custom"));
    QCOMPARE(d->scenario.recipe.totalBytesPerParameter(), std::int64_t(16));
}

void TestScenarioFile::malformed_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QByteArray head =
        R"({"schema": "shardscope-scenario", "version": 1, "model": "plain-70b", )";
    QTest::newRow("not JSON") << QByteArray("gpus = 64\n") << "not valid JSON";
    QTest::newRow("array") << QByteArray("[1, 2]") << "must be a JSON object";
    QTest::newRow("other schema") << QByteArray(R"({"schema": "shardscope-lesson", "version": 1})")
                                  << "\"schema\" must be \"shardscope-scenario\"";
    QTest::newRow("newer version")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": 2, "model": "plain-70b"})")
        << "\"version\" 2 is newer than this ShardScope reads (1)";
    QTest::newRow("version as text")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": "1"})")
        << "\"version\" must be a whole number";
    QTest::newRow("missing model")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": 1})") << "missing \"model\"";
    QTest::newRow("negative gpus") << head + R"("gpus": -8})"
                                   << "\"gpus\" must be a whole number from 1 to 1048576 (got -8)";
    QTest::newRow("huge gpus") << head + R"("gpus": 1e300})"
                               << "\"gpus\" must be a whole number from 1 to 1048576 (got 1e+300)";
    QTest::newRow("fractional gpus") << head + R"("gpus": 6.5})"
                                     << "\"gpus\" must be a whole number";
    QTest::newRow("negative gpu speed")
        << head + R"("gpu": {"capacity_bytes": 80000000000, "bf16_tflops": -1}})"
        << "\"gpu.bf16_tflops\" must be 0 (unknown) or a number from 0.001 to 1e+07 (got -1)";
    QTest::newRow("gpu speed as text")
        << head + R"("gpu": {"capacity_bytes": 80000000000, "memory_gbps": "fast"}})"
        << "\"gpu.memory_gbps\" must be 0 (unknown) or a number from 0.001 to 1e+07 (got "
           "\"fast\")";
    // Review finding F12: 1e-300 cut the step line and gave inf GPU-hours.
    QTest::newRow("tiny gpu speed")
        << head + R"("gpu": {"capacity_bytes": 80000000000, "bf16_tflops": 1e-300}})"
        << "\"gpu.bf16_tflops\" must be 0 (unknown) or a number from 0.001 to 1e+07 (got "
           "1e-300)";
    QTest::newRow("tiny nvlink speed")
        << head + R"("gpu": {"capacity_bytes": 80000000000, "nvlink_gbps": 1e-300}})"
        << "\"gpu.nvlink_gbps\" must be 0 (unknown) or a number from 0.001 to 1e+07 (got "
           "1e-300)";
    QTest::newRow("gpus as text")
        << head + R"("gpus": "64"})"
        << "\"gpus\" must be a whole number from 1 to 1048576 (got \"64\")";
    QTest::newRow("bool as number") << head + R"("model_states_only": 1})"
                                    << "\"model_states_only\" must be true or false (got 1)";
    QTest::newRow("unknown strategy") << head + R"("strategy": "zero4"})"
                                      << "\"strategy\" must be one of ddp, zero1, zero2, zero3";
    QTest::newRow("unknown key") << head + R"("gpu_count": 8})"
                                 << "unknown key \"gpu_count\"";
    QTest::newRow("unknown preset") << QByteArray(R"({"schema": "shardscope-scenario", "version": 1,
        "model": "llama9"})") << "\"model\": unknown preset \"llama9\"";
    QTest::newRow("huge parameters")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": 1,
        "model": {"id": "x", "name": "X", "parameters": 1e300}})")
        << "\"parameters\" must be a non-negative whole number";
    QTest::newRow("too many parameters")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": 1,
        "model": {"id": "x", "name": "X", "parameters": 1e15}})")
        << "\"model.parameters\" must be a whole number from 1 to 100000000000000";
    QTest::newRow("negative layers")
        << QByteArray(R"({"schema": "shardscope-scenario", "version": 1,
        "model": {"id": "x", "name": "X", "layers": -2, "hidden": 4096, "ffn": 14336,
                  "heads": 32, "kv_heads": 8, "vocab": 32000}})")
        << "\"layers\" must be a non-negative whole number";
    QTest::newRow("negative recipe bytes")
        << head +
               R"("recipe": {"weights": 2, "gradients": -2, "master_weights": 4, "optimizer": 8}})"
        << "\"recipe.gradients\" must be a whole number from 0 to 64 (got -2)";
    QTest::newRow("recipe missing field")
        << head + R"("recipe": {"weights": 2, "gradients": 2, "master_weights": 4}})"
        << "missing \"recipe.optimizer\"";
    QTest::newRow("zero gpu capacity") << head + R"("gpu": {"name": "G", "capacity_bytes": 0}})"
                                       << "\"gpu.capacity_bytes\" must be a whole number from 1";
    QTest::newRow("impossible layout") << head + R"("gpus": 64, "tp": 8})"
                                       << "tensor and pipeline parallelism need an architecture";
    QTest::newRow("activation bytes 3") << head + R"("activation_bytes": 3})"
                                        << "\"activation_bytes\" must be 1, 2, 4 or 8 (got 3)";
}

void TestScenarioFile::malformed()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    const auto d = scenarioFromBytes(json, QStringLiteral("bad.json"), &error);
    QVERIFY(!d);
    QVERIFY2(error.startsWith(QStringLiteral("bad.json: ")), qPrintable(error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(!error.contains(u'\n'), qPrintable(error));
}

void TestScenarioFile::truncatedFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.json"));
    const QByteArray full =
        QJsonDocument(scenarioToJson(llama70bPipeline(), ByteUnit::GB)).toJson();
    // Every truncation point is refused; none yields a partial scenario.
    for (qsizetype n :
         {qsizetype(0), qsizetype(1), full.size() / 3, full.size() / 2, full.size() - 3}) {
        writeBytes(path, full.left(n));
        QString error;
        QVERIFY(!loadScenarioFile(path, &error));
        QVERIFY2(error.startsWith(QStringLiteral("t.json: not valid JSON")), qPrintable(error));
    }
}

void TestScenarioFile::missingFile()
{
    QString error;
    QVERIFY(!loadScenarioFile(QStringLiteral("/nonexistent/dir/nothing.json"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("nothing.json: cannot open")), qPrintable(error));
}

void TestScenarioFile::atomicSaveKeepsOldFileOnFailure()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.json"));
    QString error;
    const QByteArray before = savedPlainCount(path);
    QVERIFY(!before.isEmpty());
    // A crash mid-save: half the bytes written, then the writer gives up.
    const bool ok = writeFileAtomically(
        path,
        [](QSaveFile &f) {
            f.write(QByteArray("{\"schema\": \"shardscope-scen"));
            return false;
        },
        &error);
    QVERIFY(!ok);
    QVERIFY(error.startsWith(QStringLiteral("cannot write ")));
    QCOMPARE(test::readFile(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("keep.json")});
    QVERIFY(loadScenarioFile(path, &error));
}

/// A full disk while QSaveFile writes out its buffer: Qt 6.4's commit() would rename the
/// truncated temporary over the old file and report success (a 0-byte launch config
/// after `export-config --out` on a full tmpfs). The process's file-size limit
/// (RLIMIT_FSIZE, with SIGXFSZ ignored so write() fails with EFBIG) makes the same
/// failure without a full disk: the save fails and the old file stays whole.
void TestScenarioFile::atomicSaveKeepsOldFileWhenTheDiskIsFull()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("keep.json"));
    QString error;
    const QByteArray before = savedPlainCount(path);
    QVERIFY(before.size() > 200);

    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit small = old;
    small.rlim_cur = 100; // bytes: less than the 369-byte file below
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool ok = writeBytesAtomically(path, QByteArray(369, 'x'), &error);
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);

    QVERIFY(!ok);
    QVERIFY2(error.startsWith(QStringLiteral("cannot write ")), qPrintable(error));
    QCOMPARE(test::readFile(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("keep.json")});
}

/// Review finding F13: an SVG export on a full disk said "cannot write x.svg: Unknown error".
/// A write larger than the device's buffer goes straight to the file; when the disk
/// fills mid-write it is short, which is no error to QIODevice, so the reason was never
/// recorded. writeAllBytes() writes on, and the next write fails with it (here EFBIG,
/// under a 100-byte file-size limit; ENOSPC on a full disk).
void TestScenarioFile::atomicSaveNamesWhyALargeWriteFailed()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("chart.svg"));
    QString error;
    const auto previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit small = old;
    small.rlim_cur = 100;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool ok = writeBytesAtomically(path, QByteArray(1 << 20, 'x'), &error);
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    QVERIFY(!ok);
    QCOMPARE(error, QStringLiteral("cannot write %1: %2")
                        .arg(path, QString::fromLocal8Bit(std::strerror(EFBIG))));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

/// A target that exists but is not a regular file is refused, never replaced and never
/// "written" with a false success: /dev/full (every write fails) and a folder.
void TestScenarioFile::atomicSaveRefusesADevice()
{
    QString error;
    if (QFileInfo::exists(QStringLiteral("/dev/full"))) {
        QVERIFY(!writeBytesAtomically(QStringLiteral("/dev/full"), "{}", &error));
        QCOMPARE(error, QStringLiteral("cannot write /dev/full: not a regular file"));
        QVERIFY(!QFileInfo(QStringLiteral("/dev/full")).isFile()); // still the device
    }
    QTemporaryDir dir;
    QVERIFY(!writeBytesAtomically(dir.path(), "{}", &error));
    QCOMPARE(error, QStringLiteral("cannot write %1: not a regular file").arg(dir.path()));
}

void TestScenarioFile::atomicSaveKeepsOldFileInReadOnlyDirectory()
{
    QTemporaryDir dir;
    const QString sub = dir.filePath(QStringLiteral("ro"));
    QVERIFY(QDir().mkpath(sub));
    const QString path = sub + QStringLiteral("/s.json");
    QString error;
    const QByteArray before = savedPlainCount(path);
    QVERIFY(!before.isEmpty());
    QFile::setPermissions(sub, QFile::ReadOwner | QFile::ExeOwner);
    // Root ignores directory permissions: then there is nothing to test here.
    QFile probe(sub + QStringLiteral("/probe"));
    if (probe.open(QIODevice::WriteOnly)) {
        probe.close();
        probe.remove();
        QFile::setPermissions(sub, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QSKIP("running with permission to write into read-only directories (root)");
    }
    QVERIFY(!saveScenarioFile(path, llama70bPipeline(), ByteUnit::GB, &error));
    QVERIFY(error.contains(QStringLiteral("s.json")));
    QFile::setPermissions(sub, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    QCOMPARE(test::readFile(path), before);
}

void TestScenarioFile::recentFilesOrderAndLimit()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    RecentFiles recent(settings);
    QStringList paths;
    for (int i = 0; i < 10; ++i) {
        paths << dir.filePath(QStringLiteral("s%1.json").arg(i));
        writeBytes(paths.back(), "{}");
        recent.add(paths.back());
    }
    QStringList files = recent.files();
    QCOMPARE(files.size(), RecentFiles::maxEntries);
    QCOMPARE(files.first(), paths[9]);
    QCOMPARE(files.last(), paths[2]);
    // Re-opening an older file moves it to the front without duplicating it.
    recent.add(paths[5]);
    files = recent.files();
    QCOMPARE(files.size(), 8);
    QCOMPARE(files.first(), paths[5]);
    QCOMPARE(files.count(paths[5]), 1);
    QCOMPARE(files.at(1), paths[9]);
    // A relative spelling of the same file is the same entry.
    QDir::setCurrent(dir.path());
    recent.add(QStringLiteral("s9.json"));
    QCOMPARE(recent.files().first(), paths[9]);
    QCOMPARE(recent.files().count(paths[9]), 1);
    recent.remove(paths[9]);
    QVERIFY(!recent.files().contains(paths[9]));
    // Persisted in the settings file.
    settings.sync();
    QSettings again(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    QCOMPARE(RecentFiles(again).files(), recent.files());
    recent.clear();
    QVERIFY(recent.files().isEmpty());
}

void TestScenarioFile::recentFilesDropsMissing()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
    RecentFiles recent(settings);
    const QString a = dir.filePath(QStringLiteral("a.json")),
                  b = dir.filePath(QStringLiteral("b.json"));
    writeBytes(a, "{}");
    writeBytes(b, "{}");
    recent.add(a);
    recent.add(b);
    QCOMPARE(recent.files(), (QStringList{b, a}));
    QVERIFY(QFile::remove(a));
    QCOMPARE(recent.files(), QStringList{b});
    // The pure helper: the new path first, missing ones dropped, at most 8.
    const QStringList list = RecentFiles::updated(
        {QStringLiteral("/x/1"), QStringLiteral("/x/gone"), QStringLiteral("/x/2")},
        QStringLiteral("/x/new"), [](const QString &p) { return !p.endsWith(u'e'); });
    QCOMPARE(list, (QStringList{QStringLiteral("/x/new"), QStringLiteral("/x/1"),
                                QStringLiteral("/x/2")}));
}

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "test_scenariofile.moc"
