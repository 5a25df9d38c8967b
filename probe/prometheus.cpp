#include "prometheus.h"

#include <QEventLoop>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QTimer>
#include <QUrlQuery>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>

namespace shardscope::probe {

namespace {

ProbeError badResponse(const QString &why)
{
    return ProbeError::make(QStringLiteral("prometheus_bad_response"),
                            QStringLiteral("Unexpected Prometheus answer: %1").arg(why),
                            ExitFailure);
}

QString hostnameOf(const QMap<QString, QString> &labels)
{
    for (const char *key : {"Hostname", "hostname", "instance"}) {
        const QString v = labels.value(QString::fromLatin1(key));
        if (!v.isEmpty())
            return v;
    }
    return {};
}

} // namespace

std::optional<quint64> mibToBytes(double mib)
{
    if (!std::isfinite(mib) || mib < 0 || mib > 1.0e12)
        return std::nullopt;
    return quint64(std::llround(mib * 1048576.0));
}

ProbeError parsePrometheusVector(const QByteArray &body, std::vector<PrometheusSeries> *out)
{
    out->clear();
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return badResponse(QStringLiteral("not a JSON object (%1)").arg(parseError.errorString()));
    const QJsonObject root = doc.object();
    const QString status = root.value(QStringLiteral("status")).toString();
    if (status == QLatin1String("error")) {
        return ProbeError::make(QStringLiteral("prometheus_error"),
                                QStringLiteral("Prometheus error %1: %2")
                                    .arg(root.value(QStringLiteral("errorType")).toString(),
                                         root.value(QStringLiteral("error")).toString()),
                                ExitFailure);
    }
    if (status != QLatin1String("success"))
        return badResponse(QStringLiteral("status is neither success nor error"));
    const QJsonObject data = root.value(QStringLiteral("data")).toObject();
    if (data.value(QStringLiteral("resultType")).toString() != QLatin1String("vector"))
        return badResponse(QStringLiteral("resultType is not vector"));
    const QJsonValue result = data.value(QStringLiteral("result"));
    if (!result.isArray())
        return badResponse(QStringLiteral("data.result is not a list"));

    for (const QJsonValue &entry : result.toArray()) {
        const QJsonObject series = entry.toObject();
        const QJsonArray value = series.value(QStringLiteral("value")).toArray();
        if (value.size() != 2)
            return badResponse(QStringLiteral("a series has no [time, value] pair"));
        bool ok = false;
        const double v = value.at(1).toString().toDouble(&ok);
        if (!ok || !std::isfinite(v))
            continue; // "NaN", "+Inf": nothing to show
        PrometheusSeries s;
        s.value = v;
        const QJsonObject metric = series.value(QStringLiteral("metric")).toObject();
        for (auto it = metric.begin(); it != metric.end(); ++it)
            s.labels.insert(it.key(), it.value().toString());
        out->push_back(std::move(s));
    }
    return {};
}

std::vector<PrometheusGpu> mergeDcgmSeries(const std::vector<PrometheusSeries> &used,
                                           const std::vector<PrometheusSeries> &free,
                                           const std::vector<PrometheusSeries> &reserved)
{
    std::map<std::tuple<QString, QString, QString>, PrometheusGpu> byKey;
    auto add = [&](const std::vector<PrometheusSeries> &series,
                   std::optional<quint64> PrometheusGpu::*field) {
        for (const PrometheusSeries &s : series) {
            const QString host = hostnameOf(s.labels);
            const QString uuid = s.labels.value(QStringLiteral("UUID"));
            const QString gpu = s.labels.value(QStringLiteral("gpu"));
            const QString mig = s.labels.value(QStringLiteral("GPU_I_ID"));
            const QString id = uuid.isEmpty() ? QStringLiteral("#") + gpu : uuid;
            PrometheusGpu &g = byKey[{host, id, mig}];
            g.hostname = host;
            g.uuid = uuid;
            g.migInstance = mig;
            bool ok = false;
            const int index = gpu.toInt(&ok);
            if (ok)
                g.index = index;
            if (g.modelName.isEmpty())
                g.modelName = s.labels.value(QStringLiteral("modelName"));
            if (g.pciBusId.isEmpty())
                g.pciBusId = s.labels.value(QStringLiteral("pci_bus_id"));
            if (g.migProfile.isEmpty())
                g.migProfile = s.labels.value(QStringLiteral("GPU_I_PROFILE"));
            g.*field = mibToBytes(s.value);
        }
    };
    add(used, &PrometheusGpu::usedBytes);
    add(free, &PrometheusGpu::freeBytes);
    add(reserved, &PrometheusGpu::reservedBytes);

    std::vector<PrometheusGpu> gpus;
    gpus.reserve(byKey.size());
    for (auto &[key, gpu] : byKey)
        gpus.push_back(std::move(gpu));
    std::stable_sort(gpus.begin(), gpus.end(), [](const PrometheusGpu &a, const PrometheusGpu &b) {
        return std::tuple(a.hostname, a.index.value_or(-1), a.migInstance.toInt()) <
               std::tuple(b.hostname, b.index.value_or(-1), b.migInstance.toInt());
    });
    return gpus;
}

PrometheusClient::PrometheusClient(const QUrl &server, int timeoutMs)
    : m_server(server), m_timeoutMs(timeoutMs)
{
    // A loopback server is never reached through an http_proxy.
    const QHostAddress host(server.host());
    if (host.isLoopback() || server.host() == QLatin1String("localhost"))
        m_network.setProxy(QNetworkProxy::NoProxy);
}

QUrl PrometheusClient::queryUrl(const QString &query) const
{
    QUrl url = m_server;
    QString path = url.path();
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    url.setPath(path + QStringLiteral("/api/v1/query"));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("query"), query);
    url.setQuery(q);
    url.setFragment({});
    return url;
}

void PrometheusClient::fetchAsync(std::function<void(PrometheusSnapshot)> done)
{
    // Owned by the connections below (through the reply and timer objects, which
    // are deleted once the fetch ends), so nothing outlives the fetch.
    struct State
    {
        PrometheusSnapshot snapshot;
        std::function<void(PrometheusSnapshot)> done;
        std::vector<QPointer<QNetworkReply>> replies;
        std::vector<std::vector<PrometheusSeries>> series;
        QPointer<QTimer> timer;
        int pending = 0;
        bool finished = false;
    };
    auto state = std::make_shared<State>();
    state->snapshot.timestampMs = nowMs();
    state->snapshot.serverUrl = m_server.toString();
    state->done = std::move(done);

    const char *gauges[] = {dcgmFbUsed, dcgmFbFree, dcgmFbReserved};
    state->series.resize(std::size(gauges));
    state->pending = int(std::size(gauges));

    auto finish = [state](const ProbeError &error) {
        if (state->finished)
            return;
        state->finished = true;
        if (state->timer) {
            state->timer->stop();
            state->timer->deleteLater();
        }
        for (const QPointer<QNetworkReply> &r : state->replies) {
            if (!r)
                continue;
            if (r->isRunning())
                r->abort();
            r->deleteLater();
        }
        state->snapshot.error = error;
        if (!error.isError()) {
            state->snapshot.gpus =
                mergeDcgmSeries(state->series[0], state->series[1], state->series[2]);
            if (state->snapshot.gpus.empty()) {
                state->snapshot.error = ProbeError::make(
                    QStringLiteral("no_gpus"),
                    QStringLiteral("Prometheus has no %1 or %2 series (is dcgm-exporter scraped?)")
                        .arg(QLatin1String(dcgmFbUsed), QLatin1String(dcgmFbFree)),
                    ExitOk);
            }
        }
        auto callback = std::move(state->done);
        if (callback)
            callback(state->snapshot);
    };

    const QString server = m_server.toString();
    const int timeoutMs = m_timeoutMs;
    state->timer = new QTimer;
    state->timer->setSingleShot(true);
    QObject::connect(state->timer, &QTimer::timeout, state->timer, [finish, server, timeoutMs] {
        finish(ProbeError::make(QStringLiteral("prometheus_timeout"),
                                QStringLiteral("Prometheus at %1 did not answer within %2 ms")
                                    .arg(server)
                                    .arg(timeoutMs),
                                ExitFailure));
    });

    for (std::size_t i = 0; i < std::size(gauges); ++i) {
        QNetworkRequest request(queryUrl(QString::fromLatin1(gauges[i])));
        request.setRawHeader("Accept", "application/json");
        QNetworkReply *reply = m_network.get(request);
        state->replies.emplace_back(reply);
        QObject::connect(reply, &QNetworkReply::finished, reply, [state, finish, reply, i, server] {
            if (state->finished)
                return;
            const QByteArray body = reply->readAll();
            const int http = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            ProbeError error;
            if (http != 0 && !body.isEmpty()) {
                // Prometheus answers errors with 4xx/5xx and a JSON body: prefer the body.
                error = parsePrometheusVector(body, &state->series[i]);
                if (error.code == QLatin1String("prometheus_bad_response") && http >= 400) {
                    error = ProbeError::make(QStringLiteral("prometheus_error"),
                                             QStringLiteral("Prometheus answered HTTP %1 to %2")
                                                 .arg(http)
                                                 .arg(reply->url().toString()),
                                             ExitFailure);
                }
            } else if (reply->error() != QNetworkReply::NoError) {
                error = ProbeError::make(QStringLiteral("prometheus_unreachable"),
                                         QStringLiteral("Cannot reach Prometheus at %1: %2")
                                             .arg(server, reply->errorString()),
                                         ExitFailure);
            } else {
                error =
                    badResponse(QStringLiteral("empty body from %1").arg(reply->url().toString()));
            }
            if (error.isError())
                finish(error);
            else if (--state->pending == 0)
                finish({});
        });
    }
    state->timer->start(timeoutMs);
}

PrometheusSnapshot PrometheusClient::fetch()
{
    QEventLoop loop;
    std::optional<PrometheusSnapshot> result;
    fetchAsync([&](PrometheusSnapshot s) {
        result = std::move(s);
        loop.quit();
    });
    if (!result)
        loop.exec();
    return *result;
}

QJsonObject snapshotToJson(const PrometheusSnapshot &snapshot)
{
    QJsonObject doc{{QStringLiteral("schema"), QString::fromUtf16(probeSchema)},
                    {QStringLiteral("source"), QStringLiteral("prometheus")},
                    {QStringLiteral("timestamp_ms"), snapshot.timestampMs},
                    {QStringLiteral("prometheus_url"), snapshot.serverUrl}};
    if (snapshot.error.isError()) {
        addError(doc, snapshot.error);
        doc.insert(QStringLiteral("gpus"), QJsonArray{});
        return doc;
    }
    auto bytes = [](const std::optional<quint64> &v) {
        return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
    };
    QJsonArray gpus;
    for (const PrometheusGpu &g : snapshot.gpus) {
        QJsonObject o{{QStringLiteral("hostname"), g.hostname},
                      {QStringLiteral("index"),
                       g.index ? QJsonValue(*g.index) : QJsonValue(QJsonValue::Null)},
                      {QStringLiteral("uuid"), g.uuid},
                      {QStringLiteral("name"), g.modelName},
                      {QStringLiteral("used_bytes"), bytes(g.usedBytes)},
                      {QStringLiteral("free_bytes"), bytes(g.freeBytes)},
                      {QStringLiteral("reserved_bytes"), bytes(g.reservedBytes)}};
        std::optional<quint64> total;
        if (g.usedBytes && g.freeBytes)
            total = *g.usedBytes + *g.freeBytes + g.reservedBytes.value_or(0);
        o.insert(QStringLiteral("total_bytes"), bytes(total));
        if (!g.pciBusId.isEmpty())
            o.insert(QStringLiteral("pci_bus_id"), g.pciBusId);
        if (!g.migInstance.isEmpty()) {
            o.insert(QStringLiteral("mig_instance"), g.migInstance);
            o.insert(QStringLiteral("mig_profile"), g.migProfile);
        }
        gpus.append(o);
    }
    doc.insert(QStringLiteral("gpus"), gpus);
    return doc;
}

} // namespace shardscope::probe
