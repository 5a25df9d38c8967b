// The Live GPUs tab (docs/probe.md): the probe's JSON parsed to the byte, the panel fed by the
// real shardscope-probe loading the fake NVML library (tests/probe/fake_nvml.cpp), and
// every probe fault (hang, crash, garbage, error document, missing binary) reported as one
// line with the process reaped and the predicted bars still drawn.
// Set SHARDSCOPE_SCREENSHOT_DIR to also save docs/screenshots/live-gpus.png.
#include "livepanel.h"
#include "probeclient.h"
#include "session.h"
#include "widgettest.h"

#include <QDir>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

// Recorded from `SHARDSCOPE_NVML_LIBRARY=libfake_nvml.so shardscope-probe --watch 10 --count 1`.
const QByteArray recordedLine =
    R"({"driver_version":"550.54.15","gpus":[{"free_bytes":74229743616,"index":0,"name":"NVIDIA H100 80GB HBM3","pci_bus_id":"00000000:18:00.0","processes":[{"pid":4242,"used_bytes":8589934592},{"pid":4343,"used_bytes":2147483648}],"reserved_bytes":553648128,"total_bytes":85520809984,"used_bytes":10737418240,"uuid":"GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a50"},{"free_bytes":79598452736,"index":1,"name":"NVIDIA H100 80GB HBM3","pci_bus_id":"00000000:2A:00.0","processes":[{"pid":5151,"used_bytes":null}],"reserved_bytes":553648128,"total_bytes":85520809984,"used_bytes":5368709120,"uuid":"GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a51"}],"nvml_memory_api":"v2","schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1796029611307})"
    "\n";

// The fake library's canned values (tests/probe/fake_nvml.cpp).
constexpr qint64 totalBytes = 85520809984;
constexpr qint64 reservedBytes = 553648128;
constexpr qint64 used0 = 10737418240; // 10 GiB
constexpr qint64 used1 = 5368709120;  // 5 GiB

/// Llama 3 8B on 2 GPUs with ZeRO-3 (the screenshot's scenario).
void llama8bZero3(Session &model)
{
    model.setModelPreset("llama3-8b");
    model.setGpus(2);
    model.setZeroStage(ZeroStage::Zero3);
}

QProcessEnvironment probeEnvironment(const QString &key = {}, const QString &value = {})
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SHARDSCOPE_NVML_LIBRARY"), QStringLiteral(FAKE_NVML_PATH));
    if (!key.isEmpty())
        env.insert(key, value);
    return env;
}

ProbeSample parsed(const QByteArray &line)
{
    const auto r = parseProbeLine(line);
    if (const auto *s = std::get_if<ProbeSample>(&r))
        return *s;
    qWarning() << "parse failed:" << std::get<QString>(r);
    return {};
}

} // namespace

class TestLivePanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void parsesRecordedLineToTheByte();
    void parsesV1LineWithoutReserved();
    void linesThatAreNoReadingGiveAMessage_data();
    void linesThatAreNoReadingGiveAMessage();
    void candidateProgramsNextToTheApp();
    void panelMeasuresFakeLibraryToTheByte();
    void rankOutsideScenarioHasNoDifference();
    void probeFaultsGiveOneLine_data();
    void probeFaultsGiveOneLine();
    void stopReapsTheProcess();
    void burstOfReadingsCostsOneReplot();
    void predictedBarsWithoutProbe();
    void screenshot();
};

void TestLivePanel::parsesRecordedLineToTheByte()
{
    const ProbeSample s = parsed(recordedLine);
    QCOMPARE(s.source, QStringLiteral("nvml"));
    QCOMPARE(s.timestampMs, 1796029611307);
    QCOMPARE(s.driverVersion, QStringLiteral("550.54.15"));
    QCOMPARE(s.memoryApi, QStringLiteral("v2"));
    QCOMPARE(s.gpus.size(), std::size_t(2));
    const ProbeGpu &g0 = s.gpus[0];
    QCOMPARE(g0.index, 0);
    QCOMPARE(g0.name, QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(g0.uuid, QStringLiteral("GPU-0f6a2c4e-1b3d-4e5f-8a9b-0c1d2e3f4a50"));
    QCOMPARE(g0.pciBusId, QStringLiteral("00000000:18:00.0"));
    QCOMPARE(g0.totalBytes, totalBytes);
    QCOMPARE(g0.reservedBytes.value_or(-1), reservedBytes);
    QCOMPARE(g0.usedBytes, used0);
    QCOMPARE(g0.freeBytes, 74229743616);
    QCOMPARE(g0.totalBytes, *g0.reservedBytes + g0.usedBytes + g0.freeBytes);
    QCOMPARE(g0.processes.size(), std::size_t(2));
    QCOMPARE(g0.processes[0].pid, 4242);
    QCOMPARE(g0.processes[0].usedBytes.value_or(-1), 8589934592);
    QCOMPARE(g0.processes[1].pid, 4343);
    QCOMPARE(g0.processes[1].usedBytes.value_or(-1), 2147483648);
    const ProbeGpu &g1 = s.gpus[1];
    QCOMPARE(g1.index, 1);
    QCOMPARE(g1.pciBusId, QStringLiteral("00000000:2A:00.0"));
    QCOMPARE(g1.usedBytes, used1);
    QCOMPARE(g1.freeBytes, 79598452736);
    QCOMPARE(g1.processes.size(), std::size_t(1));
    QCOMPARE(g1.processes[0].pid, 5151);
    QVERIFY(!g1.processes[0].usedBytes.has_value()); // NVML_VALUE_NOT_AVAILABLE
}

void TestLivePanel::parsesV1LineWithoutReserved()
{
    // The legacy library's reading: reserved_bytes null, used includes the reserve.
    const ProbeSample s = parsed(
        R"({"driver_version":"550.54.15","gpus":[{"free_bytes":74229743616,"index":0,"name":"NVIDIA H100 80GB HBM3","pci_bus_id":"0000:18:00.0","processes":null,"processes_error":"nvmlDeviceGetComputeRunningProcesses failed: No Permission","reserved_bytes":null,"total_bytes":85520809984,"used_bytes":11291066368,"uuid":"GPU-x"}],"nvml_memory_api":"v1","schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1})");
    QCOMPARE(s.memoryApi, QStringLiteral("v1"));
    QCOMPARE(s.gpus.size(), std::size_t(1));
    QVERIFY(!s.gpus[0].reservedBytes.has_value());
    QCOMPARE(s.gpus[0].usedBytes, used0 + reservedBytes);
    QVERIFY(s.gpus[0].processes.empty());
    QCOMPARE(s.gpus[0].processesError,
             QStringLiteral("nvmlDeviceGetComputeRunningProcesses failed: No Permission"));
}

void TestLivePanel::linesThatAreNoReadingGiveAMessage_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << QByteArray("  \n")
                           << QStringLiteral("shardscope-probe printed an empty line");
    QTest::newRow("text") << QByteArray("GPU 0: 10.0 GiB used\n")
                          << QStringLiteral("shardscope-probe printed something that is not "
                                            "JSON: \"GPU 0: 10.0 GiB used\"");
    QTest::newRow("cut") << recordedLine.left(40)
                         << QStringLiteral(
                                "shardscope-probe printed something that is not "
                                "JSON: \"{\"driver_version\":\"550.54.15\",\"gpus\":[{\"\"");
    QTest::newRow("long garbage")
        << QByteArray(100, 'x')
        << QStringLiteral("shardscope-probe printed something that is not JSON: \"%1…\"")
               .arg(QString(60, u'x'));
    QTest::newRow("array") << QByteArray("[1,2]")
                           << QStringLiteral(
                                  "shardscope-probe printed JSON that is not a reading: \"[1,2]\"");
    QTest::newRow("no schema") << QByteArray(R"({"gpus":[]})")
                               << QStringLiteral("shardscope-probe printed JSON without the "
                                                 "schema shardscope-probe/1: \"{\"gpus\":[]}\"");
    QTest::newRow("other schema")
        << QByteArray(R"({"schema":"shardscope-probe-calibration/1","gpus":[]})")
        << QStringLiteral("shardscope-probe printed schema \"shardscope-probe-calibration/1\", "
                          "expected shardscope-probe/1");
    QTest::newRow("no gpus") << QByteArray(R"({"schema":"shardscope-probe/1"})")
                             << QStringLiteral(
                                    "shardscope-probe printed a malformed reading: no gpus list");
    QTest::newRow("no used")
        << QByteArray(
               R"({"schema":"shardscope-probe/1","gpus":[{"index":3,"total_bytes":1,"free_bytes":1}]})")
        << QStringLiteral("shardscope-probe printed a malformed reading: GPU 3 has no valid "
                          "used_bytes");
    QTest::newRow("negative")
        << QByteArray(
               R"({"schema":"shardscope-probe/1","gpus":[{"index":0,"total_bytes":-1,"used_bytes":1,"free_bytes":1}]})")
        << QStringLiteral("shardscope-probe printed a malformed reading: GPU 0 has no valid "
                          "total_bytes");
    QTest::newRow("fraction")
        << QByteArray(
               R"({"schema":"shardscope-probe/1","gpus":[{"index":0,"total_bytes":2,"used_bytes":1.5,"free_bytes":1}]})")
        << QStringLiteral("shardscope-probe printed a malformed reading: GPU 0 has no valid "
                          "used_bytes");
    QTest::newRow("no index")
        << QByteArray(
               R"({"schema":"shardscope-probe/1","gpus":[{"index":null,"total_bytes":2,"used_bytes":1,"free_bytes":1}]})")
        << QStringLiteral("shardscope-probe printed a malformed reading: gpus[0] has no valid "
                          "index");
    QTest::newRow("gpu not object")
        << QByteArray(R"({"schema":"shardscope-probe/1","gpus":[7]})")
        << QStringLiteral("shardscope-probe printed a malformed reading: gpus[0] is not an "
                          "object");
    // Error documents give their own message.
    // Recorded from the probe with the fake library (FAKE_NVML_FAIL=init, a missing
    // library, FAKE_NVML_GPUS=0).
    QTest::newRow("no_driver")
        << QByteArray(
               R"({"error":"NVML is installed but the NVIDIA kernel driver is not loaded: Driver Not Loaded","error_code":"no_driver","gpus":[],"nvml_return":9,"schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1796029611389})")
        << QStringLiteral(
               "NVML is installed but the NVIDIA kernel driver is not loaded: Driver Not Loaded");
    QTest::newRow("nvml_not_found")
        << QByteArray(
               R"j({"error":"No NVIDIA driver: NVML library not found (/nonexistent.so: cannot open shared object file: No such file or directory)","error_code":"nvml_not_found","gpus":[],"schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1796029611473
})j")
        << QStringLiteral("No NVIDIA driver: NVML library not found (/nonexistent.so: cannot "
                          "open shared object file: No such file or directory)");
    QTest::newRow("no_gpus")
        << QByteArray(
               R"({"driver_version":"550.54.15","error":"NVML sees no NVIDIA GPU on this machine","error_code":"no_gpus","gpus":[],"schema":"shardscope-probe/1","source":"nvml","timestamp_ms":1796029611558})")
        << QStringLiteral("NVML sees no NVIDIA GPU on this machine");
    QTest::newRow("empty message")
        << QByteArray(
               R"({"error":"","error_code":"nvml_error","gpus":[],"schema":"shardscope-probe/1"})")
        << QStringLiteral("shardscope-probe reported an error (nvml_error)");
}

void TestLivePanel::linesThatAreNoReadingGiveAMessage()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, message);
    const auto r = parseProbeLine(line);
    QVERIFY(std::holds_alternative<QString>(r));
    QCOMPARE(std::get<QString>(r), message);
}

void TestLivePanel::candidateProgramsNextToTheApp()
{
    const QString dir = QCoreApplication::applicationDirPath();
    const QStringList c = ProbeClient::candidatePrograms();
    QVERIFY(c.size() >= 2);
    QCOMPARE(c[0], dir + QStringLiteral("/shardscope-probe"));
    QCOMPARE(c[1], QDir::cleanPath(dir + QStringLiteral("/../probe/shardscope-probe")));
    ProbeClient client;
    QCOMPARE(client.intervalMs(), 1000);
    QCOMPARE(client.timeoutMs(), 5000);
}

void TestLivePanel::panelMeasuresFakeLibraryToTheByte()
{
    Session model(Catalog::builtIn());
    llama8bZero3(model);
    const MemoryReport &r = model.report();
    QVERIFY(r.valid());
    QCOMPARE(r.groups.size(), std::size_t(1));
    const qint64 predicted = r.groups[0].bytes.total();

    LivePanel panel(&model);
    panel.client()->setProgram(QStringLiteral(PROBE_EXE));
    panel.client()->setIntervalMs(100);
    panel.client()->setTimeoutMs(20000); // generous: sanitizer builds start slowly
    panel.client()->setProcessEnvironment(probeEnvironment());
    QSignalSpy samples(panel.client(), &ProbeClient::sample);
    QCOMPARE(panel.startButton()->text(), QStringLiteral("Start"));
    panel.startButton()->click();
    QCOMPARE(panel.startButton()->text(), QStringLiteral("Stop"));
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasReading(), 20000);
    QCOMPARE(panel.statusText(),
             QStringLiteral("Reading 2 GPUs every 100 ms from shardscope-probe"));
    QVERIFY(!panel.statusIsError());

    QCOMPARE(panel.pairCount(), 2);
    QCOMPARE(panel.measuredUsedHeight(0), double(used0) / 1e9);
    QCOMPARE(panel.measuredUsedHeight(1), double(used1) / 1e9);
    QCOMPARE(panel.measuredReservedHeight(0), double(reservedBytes) / 1e9);
    QCOMPARE(panel.capacityValue(0), 85.520809984);
    QCOMPARE(panel.capacityValue(1), 85.520809984);
    // Both ranks of one ZeRO-3 group hold the same predicted bytes, stacked by component.
    QCOMPARE(panel.predictedTop(0), double(predicted) / 1e9);
    QCOMPARE(panel.predictedHeight(1, Component::Weights), double(r.groups[0].bytes.weights) / 1e9);
    QCOMPARE(panel.differenceBytes(0).value_or(0), used0 - predicted);
    QCOMPARE(panel.differenceBytes(1).value_or(0), used1 - predicted);
    // The label shows the same difference in formatBytes' three significant digits, a
    // trailing zero dropped (-63.98 GB reads -64 GB), with a true minus sign.
    QVERIFY2(std::abs(double(used0 - predicted) / 1e9 + 64.0) < 0.05,
             qPrintable(QString::number(double(used0 - predicted) / 1e9)));
    QCOMPARE(panel.differenceText(0), QStringLiteral("measured − predicted: −64 GB"));
    // Model states only (the ZeRO paper's Figure 1 accounting) pins the prediction: Llama 3 8B has
    // 8,030,261,248 parameters x 16 B / 2 GPUs = 64,242,089,984 B per GPU under ZeRO-3.
    model.setModelStatesOnly(true);
    QCOMPARE(panel.predictedTop(0), 64.242089984);
    QCOMPARE(panel.differenceBytes(0).value_or(0), used0 - 64242089984);
    QCOMPARE(panel.differenceText(0), QStringLiteral("measured − predicted: −53.5 GB"));
    QCOMPARE(panel.differenceText(1), QStringLiteral("measured − predicted: −58.9 GB"));
    QCOMPARE(panel.pairLabel(0), QStringLiteral("GPU 0 · rank 0\nmeasured − predicted: −53.5 GB"));

    // Units follow the model: 10 GiB and 5 GiB exactly.
    model.setUnit(ByteUnit::GiB);
    QCOMPARE(panel.measuredUsedHeight(0), 10.0);
    QCOMPARE(panel.measuredUsedHeight(1), 5.0);
    QCOMPARE(panel.measuredReservedHeight(1), 0.515625); // 528 MiB
    QCOMPARE(panel.capacityValue(0), 81559.0 / 1024);    // 81,559 MiB
    QCOMPARE(panel.predictedTop(0), 64242089984.0 / 1073741824.0);
    QCOMPARE(panel.differenceText(0), QStringLiteral("measured − predicted: −49.8 GiB"));
    QCOMPARE(panel.plot()->yAxis->label(), QStringLiteral("Memory per GPU (GiB)"));

    panel.startButton()->click();
    QCOMPARE(panel.startButton()->text(), QStringLiteral("Start"));
    QVERIFY(!panel.client()->isRunning());
    QCOMPARE(panel.client()->processState(), QProcess::NotRunning);
    QVERIFY(panel.hasReading()); // stopping keeps the last reading
    QVERIFY(panel.statusText().startsWith(QStringLiteral("Stopped; showing the reading of ")));
    QVERIFY(samples.count() >= 1);
}

void TestLivePanel::rankOutsideScenarioHasNoDifference()
{
    Session model(Catalog::builtIn());
    model.setModelPreset("llama3-8b");
    model.setGpus(1);
    model.setZeroStage(ZeroStage::Zero3);
    LivePanel panel(&model);
    panel.showReading(parsed(recordedLine));
    QCOMPARE(panel.pairCount(), 2);
    QVERIFY(panel.differenceBytes(0).has_value());
    QVERIFY(!panel.differenceBytes(1).has_value());
    QCOMPARE(panel.predictedTop(1), 0.0);
    QCOMPARE(panel.measuredUsedHeight(1), double(used1) / 1e9);
    QCOMPARE(panel.differenceText(1), QString());
    QCOMPARE(panel.pairLabel(1), QStringLiteral("GPU 1 · rank 1"));
}

void TestLivePanel::probeFaultsGiveOneLine_data()
{
    QTest::addColumn<QString>("program");
    QTest::addColumn<QString>("envKey");
    QTest::addColumn<QString>("envValue");
    // Generous deadlines except where the hang itself is tested.
    QTest::addColumn<int>("timeoutMs");
    QTest::addColumn<QString>("message");
    const QString fake = QStringLiteral(FAKE_PROBE_EXE);
    const QString probe = QStringLiteral(PROBE_EXE);
    const QString mode = QStringLiteral("FAKE_PROBE_MODE");
    QTest::newRow("hang") << fake << mode << QStringLiteral("hang") << 300
                          << QStringLiteral("fakeprobe sent no reading within 300 ms; stopped it");
    QTest::newRow("hang after one reading")
        << fake << mode << QStringLiteral("late") << 2000 // then interval + time-out
        << QStringLiteral("fakeprobe sent no reading within 2.1 s; stopped it");
    QTest::newRow("crash") << fake << mode << QStringLiteral("crash") << 10000
                           << QStringLiteral("fakeprobe crashed: signal 6 (Aborted)");
    QTest::newRow("garbage") << fake << mode << QStringLiteral("garbage") << 10000
                             << QStringLiteral("shardscope-probe printed something that is not "
                                               "JSON: \"GPU 0: 10.0 GiB used of 79.6 GiB\"");
    QTest::newRow("no schema") << fake << mode << QStringLiteral("noschema") << 10000
                               << QStringLiteral("shardscope-probe printed JSON without the "
                                                 "schema shardscope-probe/1: \"{\"gpus\":[]}\"");
    QTest::newRow("error document")
        << fake << mode << QStringLiteral("error") << 10000
        << QStringLiteral("nvmlDeviceGetMemoryInfo_v2 failed: GPU is lost (NVML error 15)");
    QTest::newRow("exit code") << fake << mode << QStringLiteral("exit") << 10000
                               << QStringLiteral("fakeprobe exited with code 3: fakeprobe: "
                                                 "cannot open /dev/nvidiactl");
    QTest::newRow("missing probe")
        << QStringLiteral("/nonexistent/shardscope-probe") << mode << QString() << 10000
        << QStringLiteral("probe not found: /nonexistent/shardscope-probe");
    QTest::newRow("missing in PATH")
        << QStringLiteral("shardscope-probe-that-is-not-installed") << mode << QString() << 10000
        << QStringLiteral("probe not found: shardscope-probe-that-is-not-installed (not in PATH)");
    // The real probe's error documents, through the fake library.
    QTest::newRow("no driver")
        << probe << QStringLiteral("FAKE_NVML_FAIL") << QStringLiteral("init") << 10000
        << QStringLiteral(
               "NVML is installed but the NVIDIA kernel driver is not loaded: Driver Not Loaded");
    QTest::newRow("no NVML")
        << probe << QStringLiteral("SHARDSCOPE_NVML_LIBRARY")
        << QStringLiteral("/nonexistent/libnvidia-ml.so.1") << 10000
        << QStringLiteral("No NVIDIA driver: NVML library not found (/nonexistent/"
                          "libnvidia-ml.so.1: cannot open shared object file: No such file or "
                          "directory)");
    QTest::newRow("no GPU") << probe << QStringLiteral("FAKE_NVML_GPUS") << QStringLiteral("0")
                            << 10000 << QStringLiteral("NVML sees no NVIDIA GPU on this machine");
}

void TestLivePanel::probeFaultsGiveOneLine()
{
    QFETCH(QString, program);
    QFETCH(QString, envKey);
    QFETCH(QString, envValue);
    QFETCH(int, timeoutMs);
    QFETCH(QString, message);

    Session model(Catalog::builtIn());
    llama8bZero3(model);
    LivePanel panel(&model);
    ProbeClient *client = panel.client();
    client->setProgram(program);
    client->setIntervalMs(100);
    client->setTimeoutMs(timeoutMs);
    client->setProcessEnvironment(probeEnvironment(envKey, envValue));
    QSignalSpy failed(client, &ProbeClient::failed);
    QSignalSpy running(client, &ProbeClient::runningChanged);
    QProcess::ProcessState stateInSlot = QProcess::Running;
    connect(client, &ProbeClient::failed, this, [&] { stateInSlot = client->processState(); });

    panel.startButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QCOMPARE(failed.at(0).at(0).toString(), message);
    QVERIFY(!message.contains(u'\n'));
    // Reaped before failed() is emitted: no zombie, nothing left running.
    QCOMPARE(stateInSlot, QProcess::NotRunning);
    QCOMPARE(client->processState(), QProcess::NotRunning);
    QVERIFY(!client->isRunning());
    QCOMPARE(client->lastError(), message);
    // runningChanged(true) is not emitted when the program is missing.
    QVERIFY(running.isEmpty() || !running.constLast().at(0).toBool());

    // The panel says why, keeps the predicted bars and drops any measurement.
    QCOMPARE(panel.statusText(), message);
    QVERIFY(panel.statusIsError());
    QCOMPARE(panel.startButton()->text(), QStringLiteral("Start"));
    QVERIFY(!panel.hasReading());
    QCOMPARE(panel.pairCount(), 2);
    const double predicted = double(model.report().groups[0].bytes.total()) / 1e9;
    QCOMPARE(panel.predictedTop(0), predicted);
    QCOMPARE(panel.predictedTop(1), predicted);
    QCOMPARE(panel.measuredUsedHeight(0), 0.0);

    // No second report arrives later (e.g. from the process's exit).
    QTest::qWait(200);
    QCOMPARE(failed.count(), 1);
}

void TestLivePanel::stopReapsTheProcess()
{
    ProbeClient client;
    client.setProgram(QStringLiteral(FAKE_PROBE_EXE));
    client.setTimeoutMs(20000);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("FAKE_PROBE_MODE"), QStringLiteral("late"));
    client.setProcessEnvironment(env);
    QSignalSpy samples(&client, &ProbeClient::sample);
    QSignalSpy failed(&client, &ProbeClient::failed);
    client.start();
    QTRY_COMPARE_WITH_TIMEOUT(samples.count(), 1, 20000);
    QCOMPARE(samples.at(0).at(0).value<ProbeSample>().gpus.at(0).usedBytes, used0);
    QCOMPARE(client.processState(), QProcess::Running);
    client.stop();
    QCOMPARE(client.processState(), QProcess::NotRunning);
    QVERIFY(!client.isRunning());
    QTest::qWait(100);
    QCOMPARE(failed.count(), 0); // a deliberate stop is not a failure
    // Restarting after a stop reads again.
    client.start();
    QTRY_COMPARE_WITH_TIMEOUT(samples.count(), 2, 20000);
    // The destructor reaps the running probe (no "destroyed while running" warning).
}

void TestLivePanel::burstOfReadingsCostsOneReplot()
{
    Session model(Catalog::builtIn());
    llama8bZero3(model);
    LivePanel panel(&model);
    QVERIFY(test::shownAt(panel, QSize(1200, 700)));
    QTest::qWait(50);
    QSignalSpy replots(panel.plot(), &QCustomPlot::afterReplot);
    ProbeSample s = parsed(recordedLine);
    for (int i = 0; i < 50; ++i) {
        s.gpus[0].usedBytes = used0 + i;
        panel.showReading(s);
    }
    QCOMPARE(replots.count(), 0);
    QTRY_COMPARE(replots.count(), 1);
    QTest::qWait(50);
    QCOMPARE(replots.count(), 1);
    QCOMPARE(panel.measuredUsedHeight(0), double(used0 + 49) / 1e9); // the newest reading
}

void TestLivePanel::predictedBarsWithoutProbe()
{
    Session model(Catalog::builtIn()); // Llama 3 70B, 64 GPUs, DDP
    LivePanel panel(&model);
    QCOMPARE(panel.statusText(),
             QStringLiteral("Press Start to read this machine's GPUs with shardscope-probe"));
    QCOMPARE(panel.pairCount(), LivePanel::gpusWithoutReading);
    QCOMPARE(panel.predictedTop(7), double(model.report().groups[0].bytes.total()) / 1e9);
    QCOMPARE(panel.capacityValue(0), 0.0);
    QCOMPARE(panel.pairLabel(0), QStringLiteral("Rank 0"));
    // An impossible layout: no pairs, no crash.
    model.edit([](Scenario &s) { s.layout.tensorParallel = 7; });
    QVERIFY(!model.report().valid());
    QCOMPARE(panel.pairCount(), 0);
    panel.showReading(parsed(recordedLine));
    QCOMPARE(panel.pairCount(), 2);
    QCOMPARE(panel.predictedTop(0), 0.0);
    QCOMPARE(panel.measuredUsedHeight(0), double(used0) / 1e9);
}

void TestLivePanel::screenshot()
{
    Session model(Catalog::builtIn());
    llama8bZero3(model);
    LivePanel panel(&model);
    panel.client()->setProgram(QStringLiteral(PROBE_EXE));
    panel.client()->setTimeoutMs(20000);
    panel.client()->setProcessEnvironment(probeEnvironment());
    QVERIFY(test::shownAt(panel, QSize(1600, 900)));
    panel.startButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(panel.hasReading(), 20000);
    panel.plot()->replot();
    const QImage img = panel.grab().toImage();
    QCOMPARE(img.size(), QSize(1600, 900));
    const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        QDir().mkpath(dir);
        QVERIFY(img.save(QDir(dir).filePath(QStringLiteral("live-gpus.png"))));
    }
    QCOMPARE(panel.statusText(), QStringLiteral("Reading 2 GPUs every 1 s from shardscope-probe"));
    QCOMPARE(panel.startButton()->text(), QStringLiteral("Stop"));
}

QTEST_MAIN(TestLivePanel)
#include "test_livepanel.moc"
