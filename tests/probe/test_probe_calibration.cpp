// Calibration logic that needs no GPU: scenario parsing, the refusal rule and
// matching NVML's PCI bus ids to CUDA's.

#include "calibration.h"

#include <QtTest>

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
