// The Prometheus cluster view against a small HTTP server on 127.0.0.1 that
// serves recorded /api/v1/query answers (dcgm-exporter label names).

#include "prometheus.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrlQuery>
#include <QtTest>

using namespace shardscope::probe;

namespace {

constexpr qint64 kMiB = 1048576;

QByteArray series(const char *name, const char *hostKey, const char *host, int gpu,
                  const char *uuid, const char *value)
{
    return QStringLiteral(
               R"({"metric":{"__name__":"%1","DCGM_FI_DRIVER_VERSION":"550.54.15","%2":"%3",)"
               R"("UUID":"%4","device":"nvidia%5","gpu":"%5","instance":"10.0.0.5:9400",)"
               R"("job":"dcgm-exporter","modelName":"NVIDIA H100 80GB HBM3",)"
               R"("pci_bus_id":"00000000:1%5:00.0"},"value":[1717171717.123,"%6"]})")
        .arg(QLatin1String(name), QLatin1String(hostKey), QLatin1String(host), QLatin1String(uuid))
        .arg(gpu)
        .arg(QLatin1String(value))
        .toUtf8();
}

QByteArray vector(const QList<QByteArray> &entries)
{
    QByteArray joined;
    for (const QByteArray &e : entries)
        joined += (joined.isEmpty() ? "" : ",") + e;
    return R"({"status":"success","data":{"resultType":"vector","result":[)" + joined + "]}}";
}

const QByteArray kUsed = vector({
    series("DCGM_FI_DEV_FB_USED", "Hostname", "node-a", 0, "GPU-aaaa-0", "10240"),
    series("DCGM_FI_DEV_FB_USED", "Hostname", "node-a", 1, "GPU-aaaa-1", "0"),
    series("DCGM_FI_DEV_FB_USED", "hostname", "node-b", 0, "GPU-bbbb-0", "81000"),
});
const QByteArray kFree = vector({
    series("DCGM_FI_DEV_FB_FREE", "Hostname", "node-a", 0, "GPU-aaaa-0", "70871"),
    series("DCGM_FI_DEV_FB_FREE", "Hostname", "node-a", 1, "GPU-aaaa-1", "81111"),
    series("DCGM_FI_DEV_FB_FREE", "hostname", "node-b", 0, "GPU-bbbb-0", "111"),
});
const QByteArray kReserved = vector({
    series("DCGM_FI_DEV_FB_RESERVED", "Hostname", "node-a", 0, "GPU-aaaa-0", "448"),
    series("DCGM_FI_DEV_FB_RESERVED", "Hostname", "node-a", 1, "GPU-aaaa-1", "448"),
});
const QByteArray kBadData =
    R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:20: parse error: unexpected end of input"})";

// Serves canned answers keyed by the "query" parameter; unknown queries get an
// empty vector. In hang mode it accepts connections and never answers.
class FakePrometheus
{
public:
    struct Answer
    {
        int status = 200;
        QByteArray body;
        QByteArray contentType = "application/json";
    };

    FakePrometheus()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection())
                QObject::connect(s, &QTcpSocket::readyRead, s, [this, s] { onRead(s); });
        });
    }

    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }

    QHash<QString, Answer> answers;
    bool hang = false;
    QStringList paths; ///< request targets seen

private:
    void onRead(QTcpSocket *s)
    {
        QByteArray &buffer = m_buffers[s];
        buffer += s->readAll();
        if (!buffer.contains("\r\n\r\n"))
            return;
        const QList<QByteArray> requestLine = buffer.left(buffer.indexOf("\r\n")).split(' ');
        buffer.clear();
        if (requestLine.size() < 2)
            return;
        const QString target = QString::fromUtf8(requestLine.at(1));
        paths << target;
        if (hang)
            return;
        const QUrl url(target);
        const QString query = QUrlQuery(url).queryItemValue(QStringLiteral("query"));
        Answer a = answers.value(query, Answer{200, vector({}), "application/json"});
        const QByteArray reason = a.status == 200 ? "OK" : "Error";
        s->write("HTTP/1.1 " + QByteArray::number(a.status) + " " + reason + "\r\nContent-Type: " +
                 a.contentType + "\r\nContent-Length: " + QByteArray::number(a.body.size()) +
                 "\r\nConnection: close\r\n\r\n" + a.body);
        s->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

void serveRecorded(FakePrometheus &server)
{
    server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_USED"), {200, kUsed});
    server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_FREE"), {200, kFree});
    server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_RESERVED"), {200, kReserved});
}

} // namespace

class TestProbePrometheus : public QObject
{
    Q_OBJECT

private slots:
    void parsesAVector()
    {
        std::vector<PrometheusSeries> out;
        QVERIFY(!parsePrometheusVector(kUsed, &out).isError());
        QCOMPARE(int(out.size()), 3);
        QCOMPARE(out[0].labels.value(QStringLiteral("UUID")), QStringLiteral("GPU-aaaa-0"));
        QCOMPARE(out[0].labels.value(QStringLiteral("modelName")),
                 QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(out[0].value, 10240.0);
        QCOMPARE(out[2].labels.value(QStringLiteral("hostname")), QStringLiteral("node-b"));
    }

    void skipsNonFiniteValues()
    {
        std::vector<PrometheusSeries> out;
        const QByteArray body =
            R"({"status":"success","data":{"resultType":"vector","result":[)"
            R"({"metric":{"gpu":"0"},"value":[1,"NaN"]},{"metric":{"gpu":"1"},"value":[1,"5.0e+01"]}]}})";
        QVERIFY(!parsePrometheusVector(body, &out).isError());
        QCOMPARE(int(out.size()), 1);
        QCOMPARE(out[0].value, 50.0);
    }

    void parsesAnErrorAnswer()
    {
        std::vector<PrometheusSeries> out;
        const ProbeError e = parsePrometheusVector(kBadData, &out);
        QCOMPARE(e.code, QStringLiteral("prometheus_error"));
        QCOMPARE(e.exitCode, 1);
        QVERIFY(e.message.contains(QStringLiteral("bad_data")));
        QVERIFY(e.message.contains(QStringLiteral("parse error")));
    }

    void rejectsOtherShapes_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("html") << QByteArray("<html>oops</html>");
        QTest::newRow("matrix") << QByteArray(
            R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
        QTest::newRow("no status") << QByteArray(R"({"data":{}})");
        QTest::newRow("bad value") << QByteArray(
            R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1]}]}})");
    }

    void rejectsOtherShapes()
    {
        QFETCH(QByteArray, body);
        std::vector<PrometheusSeries> out;
        QCOMPARE(parsePrometheusVector(body, &out).code, QStringLiteral("prometheus_bad_response"));
    }

    void mibToBytesConverts()
    {
        QCOMPARE(mibToBytes(81559).value(), 85520809984ULL);
        QCOMPARE(mibToBytes(0).value(), 0ULL);
        QCOMPARE(mibToBytes(0.5).value(), 524288ULL);
        QVERIFY(!mibToBytes(-1));
        QVERIFY(!mibToBytes(std::nan("")));
    }

    void mergesGaugesPerGpu()
    {
        std::vector<PrometheusSeries> used, free, reserved;
        QVERIFY(!parsePrometheusVector(kUsed, &used).isError());
        QVERIFY(!parsePrometheusVector(kFree, &free).isError());
        QVERIFY(!parsePrometheusVector(kReserved, &reserved).isError());
        const std::vector<PrometheusGpu> gpus = mergeDcgmSeries(used, free, reserved);
        QCOMPARE(int(gpus.size()), 3);
        QCOMPARE(gpus[0].hostname, QStringLiteral("node-a"));
        QCOMPARE(gpus[0].index.value(), 0);
        QCOMPARE(gpus[0].uuid, QStringLiteral("GPU-aaaa-0"));
        QCOMPARE(gpus[0].modelName, QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(gpus[0].usedBytes.value(), quint64(10240 * kMiB));
        QCOMPARE(gpus[0].freeBytes.value(), quint64(70871 * kMiB));
        QCOMPARE(gpus[0].reservedBytes.value(), quint64(448 * kMiB));
        QCOMPARE(gpus[1].index.value(), 1);
        QCOMPARE(gpus[1].usedBytes.value(), 0ULL);
        QCOMPARE(gpus[2].hostname, QStringLiteral("node-b"));
        QVERIFY(!gpus[2].reservedBytes);
    }

    void migInstancesStayApart()
    {
        auto mig = [](const char *id, double v) {
            PrometheusSeries s;
            s.labels = {{QStringLiteral("Hostname"), QStringLiteral("n")},
                        {QStringLiteral("gpu"), QStringLiteral("0")},
                        {QStringLiteral("UUID"), QStringLiteral("GPU-m")},
                        {QStringLiteral("GPU_I_ID"), QString::fromLatin1(id)},
                        {QStringLiteral("GPU_I_PROFILE"), QStringLiteral("3g.40gb")}};
            s.value = v;
            return s;
        };
        const auto gpus = mergeDcgmSeries({mig("2", 10), mig("1", 20)}, {}, {});
        QCOMPARE(int(gpus.size()), 2);
        QCOMPARE(gpus[0].migInstance, QStringLiteral("1"));
        QCOMPARE(gpus[0].usedBytes.value(), quint64(20 * kMiB));
        QCOMPARE(gpus[1].migProfile, QStringLiteral("3g.40gb"));
    }

    void queryUrlKeepsAPathPrefix()
    {
        PrometheusClient c(QUrl(QStringLiteral("http://prom.example:9090/prometheus/")));
        QCOMPARE(c.queryUrl(QStringLiteral("DCGM_FI_DEV_FB_USED")).toString(),
                 QStringLiteral(
                     "http://prom.example:9090/prometheus/api/v1/query?query=DCGM_FI_DEV_FB_USED"));
        PrometheusClient bare(QUrl(QStringLiteral("http://127.0.0.1:9090")));
        QCOMPARE(bare.queryUrl(QStringLiteral("up")).path(), QStringLiteral("/api/v1/query"));
    }

    void fetchesFromAServer()
    {
        FakePrometheus server;
        serveRecorded(server);
        QVERIFY(server.listen());
        PrometheusClient client(QUrl(server.url()), 5000);
        const PrometheusSnapshot s = client.fetch();
        QVERIFY2(!s.error.isError(), qPrintable(s.error.message));
        QCOMPARE(int(s.gpus.size()), 3);
        QCOMPARE(server.paths.size(), 3);
        QVERIFY(
            server.paths.contains(QStringLiteral("/api/v1/query?query=DCGM_FI_DEV_FB_RESERVED")));

        const QJsonObject doc = snapshotToJson(s);
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe/1"));
        QCOMPARE(doc.value(QStringLiteral("source")).toString(), QStringLiteral("prometheus"));
        QCOMPARE(doc.value(QStringLiteral("prometheus_url")).toString(), server.url());
        const QJsonArray gpus = doc.value(QStringLiteral("gpus")).toArray();
        const QJsonObject a0 = gpus.at(0).toObject();
        QCOMPARE(a0.value(QStringLiteral("hostname")).toString(), QStringLiteral("node-a"));
        QCOMPARE(a0.value(QStringLiteral("index")).toInt(), 0);
        QCOMPARE(a0.value(QStringLiteral("uuid")).toString(), QStringLiteral("GPU-aaaa-0"));
        QCOMPARE(a0.value(QStringLiteral("name")).toString(),
                 QStringLiteral("NVIDIA H100 80GB HBM3"));
        QCOMPARE(a0.value(QStringLiteral("pci_bus_id")).toString(),
                 QStringLiteral("00000000:10:00.0"));
        QCOMPARE(a0.value(QStringLiteral("used_bytes")).toInteger(), 10240 * kMiB);
        QCOMPARE(a0.value(QStringLiteral("free_bytes")).toInteger(), 70871 * kMiB);
        QCOMPARE(a0.value(QStringLiteral("reserved_bytes")).toInteger(), 448 * kMiB);
        QCOMPARE(a0.value(QStringLiteral("total_bytes")).toInteger(), 85520809984LL);
        const QJsonObject b0 = gpus.at(2).toObject();
        QCOMPARE(b0.value(QStringLiteral("hostname")).toString(), QStringLiteral("node-b"));
        QVERIFY(b0.value(QStringLiteral("reserved_bytes")).isNull());
        QCOMPARE(b0.value(QStringLiteral("total_bytes")).toInteger(), (81000 + 111) * kMiB);
    }

    void errorAnswerIsReported()
    {
        FakePrometheus server;
        serveRecorded(server);
        server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_FREE"), {400, kBadData});
        QVERIFY(server.listen());
        PrometheusClient client(QUrl(server.url()), 5000);
        const PrometheusSnapshot s = client.fetch();
        QCOMPARE(s.error.code, QStringLiteral("prometheus_error"));
        QCOMPARE(s.error.exitCode, 1);
        QVERIFY(s.error.message.contains(QStringLiteral("bad_data")));
        QVERIFY(s.gpus.empty());
        const QJsonObject doc = snapshotToJson(s);
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("prometheus_error"));
        QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 0);
    }

    void httpErrorWithoutJson()
    {
        FakePrometheus server;
        serveRecorded(server);
        server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_USED"),
                              {503, "<html>Service Unavailable</html>", "text/html"});
        QVERIFY(server.listen());
        PrometheusClient client(QUrl(server.url()), 5000);
        const PrometheusSnapshot s = client.fetch();
        QCOMPARE(s.error.code, QStringLiteral("prometheus_error"));
        QVERIFY2(s.error.message.contains(QStringLiteral("HTTP 503")), qPrintable(s.error.message));
    }

    void emptyClusterIsNoGpus()
    {
        FakePrometheus server; // every query answers an empty vector
        QVERIFY(server.listen());
        PrometheusClient client(QUrl(server.url()), 5000);
        const PrometheusSnapshot s = client.fetch();
        QCOMPARE(s.error.code, QStringLiteral("no_gpus"));
        QCOMPARE(s.error.exitCode, 0);
    }

    void connectionRefused()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close();
        PrometheusClient client(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)), 5000);
        const PrometheusSnapshot s = client.fetch();
        QCOMPARE(s.error.code, QStringLiteral("prometheus_unreachable"));
        QCOMPARE(s.error.exitCode, 1);
        QVERIFY2(s.error.message.contains(QStringLiteral("refused"), Qt::CaseInsensitive),
                 qPrintable(s.error.message));
    }

    void timeout()
    {
        FakePrometheus server;
        server.hang = true;
        QVERIFY(server.listen());
        PrometheusClient client(QUrl(server.url()), 300);
        QElapsedTimer clock;
        clock.start();
        const PrometheusSnapshot s = client.fetch();
        QCOMPARE(s.error.code, QStringLiteral("prometheus_timeout"));
        QCOMPARE(s.error.exitCode, 1);
        QVERIFY(clock.elapsed() >= 250);
        QVERIFY(clock.elapsed() < 5000);
        // Nothing fires after the fetch has ended.
        QTest::qWait(100);
    }

    void commandLineEndToEnd()
    {
        FakePrometheus server;
        serveRecorded(server);
        QVERIFY(server.listen());
        QProcess p;
        p.start(QStringLiteral(PROBE_EXE),
                {QStringLiteral("--prometheus"), server.url(), QStringLiteral("--json")});
        QVERIFY(p.waitForStarted());
        // The server lives in this thread: keep its event loop turning.
        QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 30000);
        QCOMPARE(p.exitCode(), 0);
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 1);
        const QJsonObject doc = QJsonDocument::fromJson(lines.first()).object();
        QCOMPARE(doc.value(QStringLiteral("source")).toString(), QStringLiteral("prometheus"));
        QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 3);
        QCOMPARE(doc.value(QStringLiteral("gpus"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("hostname")),
                 QJsonValue(QStringLiteral("node-a")));
    }

    void commandLineFailureExitsOne()
    {
        FakePrometheus server;
        serveRecorded(server);
        server.answers.insert(QStringLiteral("DCGM_FI_DEV_FB_USED"), {400, kBadData});
        QVERIFY(server.listen());
        QProcess p;
        p.start(QStringLiteral(PROBE_EXE),
                {QStringLiteral("--prometheus"), server.url(), QStringLiteral("--json"),
                 QStringLiteral("--timeout"), QStringLiteral("5000")});
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 30000);
        QCOMPARE(p.exitCode(), 1);
        const QJsonObject doc = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("prometheus_error"));
    }
};

QTEST_GUILESS_MAIN(TestProbePrometheus)
#include "test_probe_prometheus.moc"
