// shardscope-probe end to end: the executable run through QProcess against the
// fake NVML libraries (exit codes, one JSON document per line).

#include "calibration.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

struct Run
{
    int exitCode = -1;
    QList<QByteArray> lines; ///< stdout, one entry per line
    QByteArray errors;       ///< stderr
    QJsonObject first() const
    {
        return lines.isEmpty() ? QJsonObject{} : QJsonDocument::fromJson(lines.first()).object();
    }
};

Run runProbe(const QStringList &args, const QString &library,
             const QList<QPair<QString, QString>> &env = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove(QStringLiteral("FAKE_NVML_FAIL"));
    e.remove(QStringLiteral("FAKE_NVML_GPUS"));
    e.remove(QStringLiteral("FAKE_NVML_COUNT_FAILS_AFTER"));
    e.insert(QStringLiteral("SHARDSCOPE_NVML_LIBRARY"), library);
    for (const auto &[k, v] : env)
        e.insert(k, v);
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(PROBE_EXE), args);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    const QByteArray out = p.readAllStandardOutput();
    r.lines = out.split('\n');
    while (!r.lines.isEmpty() && r.lines.last().isEmpty())
        r.lines.removeLast();
    r.errors = p.readAllStandardError();
    return r;
}

bool isJsonObject(const QByteArray &line)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    return error.error == QJsonParseError::NoError && doc.isObject();
}

const QString kFake = QStringLiteral(FAKE_NVML_PATH);

} // namespace

class TestProbeCli : public QObject
{
    Q_OBJECT

private slots:
    void jsonSample()
    {
        const Run r = runProbe({QStringLiteral("--json")}, kFake);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.lines.size(), 1);
        QVERIFY(isJsonObject(r.lines.first()));
        const QJsonObject doc = r.first();
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe/1"));
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v2"));
        const QJsonArray gpus = doc.value(QStringLiteral("gpus")).toArray();
        QCOMPARE(gpus.size(), 2);
        QCOMPARE(gpus.at(0).toObject().value(QStringLiteral("total_bytes")).toInteger(),
                 85520809984LL);
        QCOMPARE(gpus.at(0).toObject().value(QStringLiteral("free_bytes")).toInteger(),
                 74229743616LL);
    }

    void legacyLibraryReportsV1()
    {
        const Run r = runProbe({QStringLiteral("--json")}, QStringLiteral(FAKE_NVML_LEGACY_PATH));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.first().value(QStringLiteral("nvml_memory_api")).toString(),
                 QStringLiteral("v1"));
    }

    void watchPrintsOneDocumentPerLine()
    {
        const Run r = runProbe({QStringLiteral("--watch"), QStringLiteral("10"),
                                QStringLiteral("--count"), QStringLiteral("3")},
                               kFake);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.lines.size(), 3);
        qint64 last = 0;
        for (const QByteArray &line : r.lines) {
            QVERIFY2(isJsonObject(line), line.constData());
            const QJsonObject doc = QJsonDocument::fromJson(line).object();
            QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 2);
            const qint64 t = doc.value(QStringLiteral("timestamp_ms")).toInteger();
            QVERIFY(t >= last);
            last = t;
        }
    }

    void watchStopsOnAFailureMidway()
    {
        const Run r =
            runProbe({QStringLiteral("--watch"), QStringLiteral("10"), QStringLiteral("--count"),
                      QStringLiteral("5")},
                     kFake, {{QStringLiteral("FAKE_NVML_COUNT_FAILS_AFTER"), QStringLiteral("2")}});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.lines.size(), 3);
        const QJsonObject last = QJsonDocument::fromJson(r.lines.last()).object();
        QCOMPARE(last.value(QStringLiteral("error_code")).toString(), QStringLiteral("nvml_error"));
    }

    void missingLibraryExitsZero()
    {
        const Run r =
            runProbe({QStringLiteral("--json")}, QStringLiteral("/nonexistent/libnvml.so"));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("nvml_not_found"));
        QVERIFY(!r.first().value(QStringLiteral("error")).toString().isEmpty());
    }

    void missingSymbolExitsZero()
    {
        const Run r = runProbe({QStringLiteral("--json")}, QStringLiteral(FAKE_NVML_NOINIT_PATH));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("symbol_missing"));
    }

    void nvmlErrorExitsOne()
    {
        const Run r = runProbe({QStringLiteral("--json")}, kFake,
                               {{QStringLiteral("FAKE_NVML_FAIL"), QStringLiteral("count")}});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("nvml_error"));
        QCOMPARE(r.first().value(QStringLiteral("nvml_return")).toInt(), 999);
    }

    void noGpuExitsZero()
    {
        const Run r = runProbe({QStringLiteral("--json")}, kFake,
                               {{QStringLiteral("FAKE_NVML_GPUS"), QStringLiteral("0")}});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("no_gpus"));
    }

    void textOutputWithoutJson()
    {
        const Run r = runProbe({}, kFake);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.lines.size() >= 3);
        QVERIFY(r.lines.first().contains("550.54.15"));
        QVERIFY(r.lines.at(1).contains("NVIDIA H100 80GB HBM3"));
    }

    void badUsageExitsTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--bogus")};
        QTest::newRow("watch not a number")
            << QStringList{QStringLiteral("--watch"), QStringLiteral("abc")};
        QTest::newRow("watch zero") << QStringList{QStringLiteral("--watch"), QStringLiteral("0")};
        QTest::newRow("count without watch")
            << QStringList{QStringLiteral("--count"), QStringLiteral("3")};
        QTest::newRow("rank without calibrate")
            << QStringList{QStringLiteral("--rank"), QStringLiteral("1")};
        QTest::newRow("positional") << QStringList{QStringLiteral("extra")};
        QTest::newRow("calibrate with watch")
            << QStringList{QStringLiteral("--calibrate"), QStringLiteral("x.json"),
                           QStringLiteral("--watch"), QStringLiteral("10")};
        QTest::newRow("prometheus not http")
            << QStringList{QStringLiteral("--prometheus"), QStringLiteral("ftp://host/")};
        QTest::newRow("missing value") << QStringList{QStringLiteral("--watch")};
    }

    void badUsageExitsTwo()
    {
        QFETCH(QStringList, args);
        const Run r = runProbe(args, kFake);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.errors.isEmpty());
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(), QStringLiteral("usage"));
    }

    void calibrateWithoutCudaOrRefused()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("big.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // 80 GiB of weights: more than the fake GPU 0 has free (74229743616 bytes).
        f.write(R"({"rank": 0, "bytes": {"weights": 85899345920}})");
        f.close();

        const Run r = runProbe({QStringLiteral("--calibrate"), path}, kFake);
        QCOMPARE(r.lines.size(), 1);
        const QJsonObject doc = r.first();
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe-calibration/1"));
        QCOMPARE(r.exitCode, 1);
        if (!shardscope::probe::calibrationAvailable()) {
            QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                     QStringLiteral("calibration_not_built"));
            QCOMPARE(doc.value(QStringLiteral("error")).toString(),
                     QStringLiteral("calibration not built: CUDA toolkit not found at build time"));
            return;
        }
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("calibration_refused"));
        const QString message = doc.value(QStringLiteral("error")).toString();
        QVERIFY2(message.contains(QStringLiteral("has 74229743616 bytes free")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("needs 86436216832 bytes")), qPrintable(message));
    }

    void calibrateBadScenarioExitsTwo()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built");
        const Run r =
            runProbe({QStringLiteral("--calibrate"), QStringLiteral("/nonexistent.json")}, kFake);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("scenario_invalid"));
    }

    void calibrateWithoutAUsableCudaDevice()
    {
        // The fake GPUs exist only for NVML: CUDA either has no driver here or
        // no device on the fake PCI bus. Either way: a clean error, no crash.
        // (On a machine whose real GPU sits on the fake's bus it calibrates 1 MiB.)
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("small.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"bytes": {"weights": 1048576}})");
        f.close();
        const Run r = runProbe(
            {QStringLiteral("--calibrate"), path, QStringLiteral("--rank"), QStringLiteral("0")},
            kFake);
        QCOMPARE(r.lines.size(), 1);
        const QJsonObject doc = r.first();
        if (r.exitCode == 0) {
            QCOMPARE(doc.value(QStringLiteral("components")).toArray().size(), 6);
            return;
        }
        QCOMPARE(r.exitCode, 1);
        const QString code = doc.value(QStringLiteral("error_code")).toString();
        QVERIFY2(code == QLatin1String("cuda_error") ||
                     code == QLatin1String("cuda_device_not_found"),
                 qPrintable(code));
    }
};

QTEST_GUILESS_MAIN(TestProbeCli)
#include "test_probe_cli.moc"
