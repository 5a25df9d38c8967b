// Calibration logic that needs no GPU: scenario parsing, the refusal rule and
// matching NVML's PCI bus ids to CUDA's.

#include "calibration.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using namespace shardscope::probe;

namespace {

quint64 component(const CalibrationPlan &plan, const char *name)
{
    for (const CalibrationComponent &c : plan.components) {
        if (c.name == QLatin1String(name))
            return c.bytes;
    }
    return ~0ULL;
}

// A trimmed `shardscope report --json`: two groups of four ranks each.
const QByteArray kReport = R"({
  "parameters": 70000000000,
  "capacity_bytes": 80000000000,
  "groups": [
    {"label": "ranks 0-3", "first_rank": 0, "gpus": 4, "total_bytes": 6442450944,
     "bytes": {"weights": 1073741824, "gradients": 1073741824, "master_weights": 0,
               "optimizer_states": 2147483648, "activations": 1073741824, "buffers": 1073741824}},
    {"label": "ranks 4-7", "first_rank": 4, "gpus": 4, "total_bytes": 3221225472,
     "bytes": {"weights": 536870912, "gradients": 536870912, "master_weights": 0,
               "optimizer_states": 2147483648, "activations": 0, "buffers": 0}}
  ]
})";

} // namespace

class TestProbeCalibration : public QObject
{
    Q_OBJECT

private slots:
    void simpleScenario()
    {
        CalibrationPlan plan;
        const ProbeError e = parseCalibrationScenario(
            R"({"rank": 3, "bytes": {"weights": 1073741824, "gradients": 1073741824,
                "optimizer_states": 2147483648}})",
            -1, &plan);
        QVERIFY2(!e.isError(), qPrintable(e.message));
        QCOMPARE(plan.rank, 3);
        QCOMPARE(int(plan.components.size()), 6);
        QCOMPARE(plan.components.front().name, QStringLiteral("weights"));
        QCOMPARE(plan.components.back().name, QStringLiteral("buffers"));
        QCOMPARE(component(plan, "weights"), 1073741824ULL);
        QCOMPARE(component(plan, "optimizer_states"), 2147483648ULL);
        QCOMPARE(component(plan, "master_weights"), 0ULL);
        QCOMPARE(plan.totalBytes(), 4294967296ULL);
    }

    void simpleScenarioRank()
    {
        CalibrationPlan plan;
        QVERIFY(!parseCalibrationScenario(R"({"bytes": {"weights": 1}})", -1, &plan).isError());
        QCOMPARE(plan.rank, 0);
        QVERIFY(!parseCalibrationScenario(R"({"bytes": {"weights": 1}})", 5, &plan).isError());
        QCOMPARE(plan.rank, 5);
        QVERIFY(!parseCalibrationScenario(R"({"rank": 2, "bytes": {"weights": 1}})", 2, &plan)
                     .isError());
        const ProbeError e =
            parseCalibrationScenario(R"({"rank": 2, "bytes": {"weights": 1}})", 3, &plan);
        QCOMPARE(e.code, QStringLiteral("scenario_invalid"));
        QVERIFY(e.message.contains(QStringLiteral("rank 2, not rank 3")));
    }

    void reportPicksTheGroupHoldingTheRank()
    {
        CalibrationPlan plan;
        QVERIFY(!parseCalibrationScenario(kReport, 5, &plan).isError());
        QCOMPARE(plan.rank, 5);
        QCOMPARE(plan.groupLabel, QStringLiteral("ranks 4-7"));
        QCOMPARE(component(plan, "weights"), 536870912ULL);
        QCOMPARE(plan.totalBytes(), 3221225472ULL);

        QVERIFY(!parseCalibrationScenario(kReport, -1, &plan).isError());
        QCOMPARE(plan.rank, 0);
        QCOMPARE(plan.groupLabel, QStringLiteral("ranks 0-3"));
        QCOMPARE(plan.totalBytes(), 6442450944ULL);

        QVERIFY(!parseCalibrationScenario(kReport, 3, &plan).isError());
        QCOMPARE(plan.groupLabel, QStringLiteral("ranks 0-3"));

        const ProbeError e = parseCalibrationScenario(kReport, 8, &plan);
        QCOMPARE(e.code, QStringLiteral("scenario_invalid"));
        QVERIFY2(e.message.contains(QStringLiteral("ranks 0..7")), qPrintable(e.message));
    }

    void invalidScenarios_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("not json") << QByteArray("{") << QString();
        QTest::newRow("array") << QByteArray("[]") << QStringLiteral("not a JSON object");
        QTest::newRow("no bytes") << QByteArray(R"({"rank": 0})") << QStringLiteral("expected");
        QTest::newRow("unknown key") << QByteArray(R"({"bytes": {"weight": 5}})")
                                     << QStringLiteral("unknown component \"weight\"");
        QTest::newRow("negative") << QByteArray(R"({"bytes": {"weights": -1}})")
                                  << QStringLiteral("\"weights\" must be");
        QTest::newRow("fraction") << QByteArray(R"({"bytes": {"weights": 1.5}})")
                                  << QStringLiteral("\"weights\" must be");
        QTest::newRow("string") << QByteArray(R"({"bytes": {"buffers": "1024"}})")
                                << QStringLiteral("\"buffers\" must be");
        QTest::newRow("zero total")
            << QByteArray(R"({"bytes": {"weights": 0}})") << QStringLiteral("0 bytes");
        QTest::newRow("negative rank")
            << QByteArray(R"({"rank": -2, "bytes": {"weights": 1}})") << QStringLiteral("\"rank\"");
        QTest::newRow("error report") << QByteArray(R"({"error": "bad layout", "groups": []})")
                                      << QStringLiteral("bad layout");
        QTest::newRow("group without bytes")
            << QByteArray(R"({"groups": [{"first_rank": 0, "gpus": 2}]})")
            << QStringLiteral("no \"bytes\"");
        QTest::newRow("group without gpus")
            << QByteArray(R"({"groups": [{"first_rank": 0, "bytes": {}}]})")
            << QStringLiteral("first_rank or gpus");
    }

    void invalidScenarios()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, mentions);
        CalibrationPlan plan;
        const ProbeError e = parseCalibrationScenario(json, -1, &plan);
        QCOMPARE(e.code, QStringLiteral("scenario_invalid"));
        QCOMPARE(e.exitCode, 2);
        QVERIFY2(e.message.contains(mentions), qPrintable(e.message));
    }

    // Finding 3: sizes and ranks are added with overflow checks; a crafted plan
    // is refused with a one-line message naming the field instead of wrapping.
    void overflowingScenarios_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<int>("rank");
        QTest::addColumn<QString>("message");
        // 4 x 2^62 + 2^20 is 2^20 modulo 2^64; the check fires at 2^62 + 2^62 = 2^63.
        QTest::newRow("sizes wrap to 1 MiB")
            << QByteArray(R"({"bytes": {"weights": 4611686018427387904,
                           "gradients": 4611686018427387904, "master_weights": 4611686018427387904,
                           "optimizer_states": 4611686018427387904, "activations": 1048576}})")
            << -1
            << QStringLiteral("Invalid calibration scenario: the sizes in \"bytes\" add up to "
                              "more than 9223372036854775807 bytes at \"gradients\"");
        // (2^63 - 1) + 1: the largest exact sum is fine, one more byte is not.
        QTest::newRow("one byte past 2^63 - 1")
            << QByteArray(R"({"bytes": {"weights": 9223372036854774784, "gradients": 1023,
                           "buffers": 1}})")
            << -1
            << QStringLiteral("Invalid calibration scenario: the sizes in \"bytes\" add up to "
                              "more than 9223372036854775807 bytes at \"buffers\"");
        QTest::newRow("report group sizes wrap")
            << QByteArray(R"({"groups": [{"first_rank": 0, "gpus": 1, "bytes": {
                           "weights": 9223372036854774784, "optimizer_states": 9223372036854774784}}]})")
            << 0
            << QStringLiteral("Invalid calibration scenario: the sizes in \"bytes\" add up to "
                              "more than 9223372036854775807 bytes at \"optimizer_states\"");
        // first_rank + gpus = 2^63 overflowed and printed "ranks 0..-1".
        QTest::newRow("rank range wraps")
            << QByteArray(R"({"groups": [{"first_rank": 9223372036854774784, "gpus": 1024,
                           "bytes": {"weights": 1}}]})")
            << 3
            << QStringLiteral("Invalid calibration scenario: group 0: \"first_rank\" "
                              "9223372036854774784 + \"gpus\" 1024 is beyond the largest rank "
                              "2147483647");
        QTest::newRow("rank range beyond int")
            << QByteArray(R"({"groups": [{"first_rank": 4, "gpus": 2147483645},
                           {"first_rank": 0, "gpus": 4, "bytes": {"weights": 1}}]})")
            << 3
            << QStringLiteral("Invalid calibration scenario: group 0: \"first_rank\" 4 + \"gpus\" "
                              "2147483645 is beyond the largest rank 2147483647");
        QTest::newRow("no groups") << QByteArray(R"({"groups": []})") << 0
                                   << QStringLiteral("Invalid calibration scenario: the report "
                                                     "has no groups");
    }

    void overflowingScenarios()
    {
        QFETCH(QByteArray, json);
        QFETCH(int, rank);
        QFETCH(QString, message);
        CalibrationPlan plan;
        const ProbeError e = parseCalibrationScenario(json, rank, &plan);
        QCOMPARE(e.code, QStringLiteral("scenario_invalid"));
        QCOMPARE(e.exitCode, 2);
        QCOMPARE(e.message, message);
        QVERIFY(!e.message.contains(QStringLiteral("..-")));
    }

    void largestRanksStillWork()
    {
        // The last rank an int holds: first_rank 2147483640 + gpus 8 = 2^31.
        CalibrationPlan plan;
        const ProbeError e = parseCalibrationScenario(
            R"({"groups": [{"first_rank": 2147483640, "gpus": 8, "label": "top",
                            "bytes": {"weights": 9223372036854774784}}]})",
            2147483647, &plan);
        QVERIFY2(!e.isError(), qPrintable(e.message));
        QCOMPARE(plan.rank, 2147483647);
        QCOMPARE(plan.totalBytes(), 9223372036854774784ULL); // 2^63 - 1024, exact as a double
        const ProbeError missing = parseCalibrationScenario(
            R"({"groups": [{"first_rank": 2147483640, "gpus": 8, "bytes": {"weights": 1}}]})", 5,
            &plan);
        QCOMPARE(missing.message,
                 QStringLiteral("Invalid calibration scenario: no group of the report holds rank 5 "
                                "(ranks 0..2147483647)"));
    }

    // Finding 1: the reader takes at most 16 MiB, from regular files only, and
    // never blocks (in-process, so it runs in builds without CUDA too).
    void scenarioReaderBoundsItsInput()
    {
        QCOMPARE(maxScenarioBytes, 16777216LL); // 16 MiB, docs/probe.md
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray bytes = "stale";
        QElapsedTimer clock;
        clock.start();

        ProbeError e = readCalibrationScenario(QStringLiteral("/dev/zero"), &bytes);
        QCOMPARE(e.code, QStringLiteral("scenario_invalid"));
        QCOMPARE(e.exitCode, 2);
        QCOMPARE(e.message, QStringLiteral("Invalid calibration scenario: /dev/zero is a character "
                                           "device, not a regular file"));
        QVERIFY(bytes.isEmpty());

        const QString fifo = dir.filePath(QStringLiteral("plan.fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        e = readCalibrationScenario(fifo, &bytes);
        QCOMPARE(e.message,
                 QStringLiteral("Invalid calibration scenario: %1 is a FIFO, not a regular file")
                     .arg(fifo));

        e = readCalibrationScenario(dir.path(), &bytes);
        QCOMPARE(
            e.message,
            QStringLiteral("Invalid calibration scenario: %1 is a directory, not a regular file")
                .arg(dir.path()));

        const QString missing = dir.filePath(QStringLiteral("missing.json"));
        e = readCalibrationScenario(missing, &bytes);
        QCOMPARE(e.message,
                 QStringLiteral("Invalid calibration scenario: cannot read %1: No such file or "
                                "directory")
                     .arg(missing));

        // Sparse files: 16 MiB + 1 byte is refused from its size, without reading.
        const QString huge = dir.filePath(QStringLiteral("huge.json"));
        {
            QFile f(huge);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(maxScenarioBytes + 1));
        }
        e = readCalibrationScenario(huge, &bytes);
        QCOMPARE(e.message, QStringLiteral("Invalid calibration scenario: %1 is 16777217 bytes, "
                                           "more than the 16777216-byte (16 MiB) limit")
                                .arg(huge));
        QVERIFY(bytes.isEmpty());
        {
            QFile f(huge); // 1 TiB, still refused at once
            QVERIFY(f.open(QIODevice::ReadWrite));
            QVERIFY(f.resize(1LL << 40));
        }
        e = readCalibrationScenario(huge, &bytes);
        QVERIFY2(e.message.endsWith(QStringLiteral(
                     " is 1099511627776 bytes, more than the 16777216-byte (16 MiB) limit")),
                 qPrintable(e.message));
        QVERIFY2(clock.elapsed() < 3000, qPrintable(QString::number(clock.elapsed())));

        // Exactly at the limit is accepted, every byte of it.
        const QString atLimit = dir.filePath(QStringLiteral("limit.json"));
        {
            QFile f(atLimit);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(maxScenarioBytes));
        }
        e = readCalibrationScenario(atLimit, &bytes);
        QVERIFY2(!e.isError(), qPrintable(e.message));
        QCOMPARE(bytes.size(), qsizetype(16777216));
        QCOMPARE(bytes.count('\0'), qsizetype(16777216));

        // A small file comes back to the byte, and parses.
        const QString small = dir.filePath(QStringLiteral("small.json"));
        const QByteArray text = R"({"rank": 1, "bytes": {"weights": 1073741824}})";
        {
            QFile f(small);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(text), qint64(text.size()));
        }
        QVERIFY(!readCalibrationScenario(small, &bytes).isError());
        QCOMPARE(bytes, text);
        CalibrationPlan plan;
        QVERIFY(!parseCalibrationScenario(bytes, -1, &plan).isError());
        QCOMPARE(plan.totalBytes(), 1073741824ULL);
    }

    void totalBytesSaturates()
    {
        // A hand-made plan (not from the parser) still never wraps to "fits".
        CalibrationPlan plan;
        plan.components = {{QStringLiteral("weights"), ~0ULL}, {QStringLiteral("buffers"), 2}};
        QCOMPARE(plan.totalBytes(), ~0ULL);
        QVERIFY(!calibrationRefusal(plan.totalBytes(), 80ULL << 30, 512ULL << 20,
                                    QStringLiteral("device 0"))
                     .isEmpty());
    }

    void refusal()
    {
        const QString where = QStringLiteral("device 0");
        // Fits exactly: plan + margin == free.
        QVERIFY(calibrationRefusal(4ULL << 30, (4ULL << 30) + (512ULL << 20), 512ULL << 20, where)
                    .isEmpty());
        // One byte short.
        const QString r =
            calibrationRefusal(4ULL << 30, (4ULL << 30) + (512ULL << 20) - 1, 512ULL << 20, where);
        QCOMPARE(r, QStringLiteral("needs 4831838208 bytes (4294967296 for the scenario + "
                                   "536870912 margin), device 0 has 4831838207 bytes free"));
        // No margin.
        QVERIFY(calibrationRefusal(100, 100, 0, where).isEmpty());
        QVERIFY(!calibrationRefusal(101, 100, 0, where).isEmpty());
        // Overflow never wraps into "fits".
        const QString huge = calibrationRefusal(~0ULL, ~0ULL, 1, where);
        QVERIFY(huge.contains(QStringLiteral("more than 2^64")));
    }

    void pciBusIds()
    {
        QVERIFY(samePciBusId(QStringLiteral("00000000:18:00.0"), QStringLiteral("0000:18:00.0")));
        QVERIFY(samePciBusId(QStringLiteral("00000000:2A:00.0"), QStringLiteral("0000:2a:00.0")));
        QVERIFY(samePciBusId(QStringLiteral("0001:c3:00.0"), QStringLiteral("00000001:C3:00.0")));
        QVERIFY(!samePciBusId(QStringLiteral("0000:18:00.0"), QStringLiteral("0000:19:00.0")));
        QVERIFY(!samePciBusId(QStringLiteral("0000:18:00.0"), QStringLiteral("0000:18:00.1")));
        QVERIFY(!samePciBusId(QStringLiteral("0001:18:00.0"), QStringLiteral("0000:18:00.0")));
        QVERIFY(!samePciBusId(QString(), QString()));
        QVERIFY(!samePciBusId(QStringLiteral("garbage"), QStringLiteral("garbage")));
    }

    void notBuiltOrBadFile()
    {
        CalibrationOptions options;
        options.scenarioPath = QStringLiteral("/nonexistent/scenario.json");
        int exitCode = -1;
        const QJsonObject doc = runCalibration(options, &exitCode);
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe-calibration/1"));
#ifdef SHARDSCOPE_PROBE_HAVE_CUDA
        QVERIFY(calibrationAvailable());
        QCOMPARE(exitCode, 2);
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("scenario_invalid"));
#else
        QVERIFY(!calibrationAvailable());
        QCOMPARE(exitCode, 1);
        QCOMPARE(doc.value(QStringLiteral("error")).toString(),
                 QStringLiteral("calibration not built: CUDA toolkit not found at build time"));
#endif
    }
};

QTEST_GUILESS_MAIN(TestProbeCalibration)
#include "test_probe_calibration.moc"
