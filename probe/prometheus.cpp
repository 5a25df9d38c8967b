#include "prometheus.h"

#include "probeschema.h"

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
#include <utility>

namespace shardscope::probe {

namespace {

ProbeError badResponse(const QString &why)
{
    return ProbeError::make(QStringLiteral("prometheus_bad_response"),
                            QStringLiteral("Unexpected Prometheus answer: %1").arg(why),
                            ExitFailure);
}

ProbeError parseTimeout()
{
    return ProbeError::make(QStringLiteral("prometheus_timeout"),
                            QStringLiteral("The Prometheus answer was not parsed in time"),
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

ProbeError parsePrometheusVector(const QByteArray &body, std::vector<PrometheusSeries> *out,
                                 QDeadlineTimer deadline)
{
    out->clear();
    auto expired = [&] {
        if (!deadline.hasExpired())
            return false;
        out->clear();
        return true;
    };
    if (expired())
        return parseTimeout();
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (expired())
        return parseTimeout();
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

    qsizetype seen = 0;
    for (const QJsonValue &entry : result.toArray()) {
        if ((++seen & 1023) == 0 && expired())
            return parseTimeout();
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

PrometheusClient::PrometheusClient(const QUrl &server, int timeoutMs, qint64 maxResponseBytes)
    : m_server(server), m_timeoutMs(timeoutMs), m_maxResponseBytes(maxResponseBytes)
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
        std::vector<QByteArray> bodies; ///< what each reply sent so far
        std::vector<qint64> announced;  ///< each reply's Content-Length, 0 if none
        std::vector<std::vector<PrometheusSeries>> series;
        QPointer<QTimer> timer;
        QDeadlineTimer deadline;  ///< connect, download and parse end here
        qint64 receivedBytes = 0; ///< all replies together
        int pending = 0;
        bool finished = false;
    };
    auto state = std::make_shared<State>();
    state->deadline = QDeadlineTimer(m_timeoutMs, Qt::PreciseTimer);
    state->snapshot.timestampMs = nowMs();
    const QString server = redactedUrl(m_server);
    state->snapshot.serverUrl = server;
    state->done = std::move(done);

    const char *gauges[] = {dcgmFbUsed, dcgmFbFree, dcgmFbReserved};
    state->bodies.resize(std::size(gauges));
    state->announced.resize(std::size(gauges));
    state->series.resize(std::size(gauges));
    state->pending = int(std::size(gauges));

    const int timeoutMs = m_timeoutMs;
    const qint64 maxBytes = m_maxResponseBytes;
    const QString limit = QStringLiteral("%1 MiB").arg(double(maxBytes) / 1048576.0, 0, 'g', 6);
    auto timeoutError = [server, timeoutMs] {
        return ProbeError::make(QStringLiteral("prometheus_timeout"),
                                QStringLiteral("Prometheus at %1 did not answer within %2 ms")
                                    .arg(server, QString::number(timeoutMs)),
                                ExitFailure);
    };
    auto tooLargeError = [server, maxBytes, limit] {
        return ProbeError::make(QStringLiteral("prometheus_too_large"),
                                QStringLiteral("Prometheus at %1 sent more than %2 bytes (the %3 "
                                               "limit of one reading)")
                                    .arg(server, QString::number(maxBytes), limit),
                                ExitFailure);
    };

    // Ends the fetch once. `current` is the reply whose signal handler calls it
    // (nullptr from the timer): deleted later, the others at once. Deleting a
    // reply stops its transfer like abort() does, without abort()'s
    // OperationCanceledError: with Qt 6.4, that second error on a reply whose
    // own error is already queued prints "QNetworkReplyImplPrivate::error:
    // Internal problem, this method must only be called once."
    auto finish = [state, timeoutError](ProbeError error, QNetworkReply *current) {
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
            if (r == current)
                r->deleteLater();
            else
                delete r.data();
        }
        state->bodies.clear();
        if (!error.isError() && state->deadline.hasExpired())
            error = timeoutError();
        state->snapshot.error = error;
        if (!error.isError()) {
            state->snapshot.gpus =
                mergeDcgmSeries(state->series[0], state->series[1], state->series[2]);
            if (state->deadline.hasExpired()) {
                state->snapshot.gpus.clear();
                state->snapshot.error = timeoutError();
            } else if (state->snapshot.gpus.empty()) {
                state->snapshot.error = ProbeError::make(
                    QStringLiteral("no_gpus"),
                    QStringLiteral("Prometheus has no %1 or %2 series (is dcgm-exporter scraped?)")
                        .arg(QLatin1String(dcgmFbUsed), QLatin1String(dcgmFbFree)),
                    ExitOk);
            }
        }
        state->series.clear();
        auto callback = std::move(state->done);
        if (callback)
            callback(state->snapshot);
    };

    state->timer = new QTimer;
    state->timer->setSingleShot(true);
    state->timer->setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5% early
    QObject::connect(state->timer, &QTimer::timeout, state->timer,
                     [finish, timeoutError] { finish(timeoutError(), nullptr); });

    for (std::size_t i = 0; i < std::size(gauges); ++i) {
        QNetworkRequest request(queryUrl(QString::fromLatin1(gauges[i])));
        request.setRawHeader("Accept", "application/json");
        QNetworkReply *reply = m_network.get(request);
        // Flow control: Qt buffers at most 1 MiB that has not been read yet.
        reply->setReadBufferSize(1 << 20);
        state->replies.emplace_back(reply);

        // Moves what has arrived into the body; false once the reading is over
        // (this call may end it: past the deadline or past the size cap).
        auto absorb = [state, reply, i, maxBytes, finish, timeoutError, tooLargeError] {
            if (state->finished)
                return false;
            if (state->deadline.hasExpired()) {
                finish(timeoutError(), reply); // even when a flood of data delays the timer
                return false;
            }
            const QByteArray chunk = reply->readAll();
            state->receivedBytes += chunk.size();
            if (state->receivedBytes > maxBytes) {
                finish(tooLargeError(), reply);
                return false;
            }
            state->bodies[i] += chunk;
            return true;
        };
        QObject::connect(
            reply, &QNetworkReply::metaDataChanged, reply,
            [state, reply, i, maxBytes, limit, server, finish] {
                if (state->finished)
                    return;
                bool ok = false;
                const qint64 length =
                    reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&ok);
                state->announced[i] = ok && length > 0 ? length : 0;
                qint64 total = 0;
                bool overflow = false;
                for (const qint64 n : state->announced)
                    overflow = overflow || __builtin_add_overflow(total, n, &total);
                if (!overflow && total <= maxBytes)
                    return;
                const QString what =
                    length > maxBytes
                        ? QStringLiteral("a %1-byte answer").arg(length)
                        : QStringLiteral("answers of more than %1 bytes together").arg(maxBytes);
                finish(
                    ProbeError::make(QStringLiteral("prometheus_too_large"),
                                     QStringLiteral("Prometheus at %1 announced %2, more than the "
                                                    "%3-byte (%4) limit of one reading")
                                         .arg(server, what, QString::number(maxBytes), limit),
                                     ExitFailure),
                    reply);
            });
        QObject::connect(reply, &QNetworkReply::readyRead, reply, [absorb] { absorb(); });
        QObject::connect(
            reply, &QNetworkReply::finished, reply,
            [state, finish, absorb, reply, i, server, timeoutError, gauge = gauges[i]] {
                if (!absorb())
                    return;
                const QByteArray body = std::exchange(state->bodies[i], QByteArray());
                const int http = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                // The path and the gauge, never the query string as such: its
                // values are redacted wherever text is printed.
                QUrl target = reply->url();
                target.setQuery(QString());
                const QString url =
                    QStringLiteral("%1 (query %2)").arg(redactedUrl(target), QLatin1String(gauge));
                ProbeError error;
                if (http >= 400) {
                    // Prometheus answers errors with 4xx/5xx and a JSON body: prefer the
                    // body; any other answer with an error status is still the server's.
                    if (!body.isEmpty())
                        error = parsePrometheusVector(body, &state->series[i], state->deadline);
                    if (error.code != QLatin1String("prometheus_error") &&
                        error.code != QLatin1String("prometheus_timeout")) {
                        const QString reason =
                            reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString();
                        error = ProbeError::make(
                            QStringLiteral("prometheus_error"),
                            reason.isEmpty()
                                ? QStringLiteral("Prometheus answered HTTP %1 to %2")
                                      .arg(QString::number(http), url)
                                : QStringLiteral("Prometheus answered HTTP %1 (%2) to %3")
                                      .arg(QString::number(http), reason, url),
                            ExitFailure);
                    }
                } else if (http != 0 && !body.isEmpty()) {
                    error = parsePrometheusVector(body, &state->series[i], state->deadline);
                } else if (reply->error() != QNetworkReply::NoError) {
                    // No HTTP answer at all: refused, unknown host, TLS, reset.
                    error =
                        ProbeError::make(QStringLiteral("prometheus_unreachable"),
                                         QStringLiteral("Cannot reach Prometheus at %1: %2")
                                             .arg(server, redactCredentials(reply->errorString())),
                                         ExitFailure);
                } else {
                    error = badResponse(QStringLiteral("empty body from %1").arg(url));
                }
                if (error.code == QLatin1String("prometheus_timeout"))
                    error = timeoutError();
                if (error.isError())
                    finish(error, reply);
                else if (--state->pending == 0)
                    finish({}, reply);
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
    QJsonObject doc{{QString(probeschema::schema), QString(probeschema::id)},
                    {QString(probeschema::source), QStringLiteral("prometheus")},
                    {QString(probeschema::timestampMs), snapshot.timestampMs},
                    {QString(probeschema::prometheusUrl), snapshot.serverUrl}};
    if (snapshot.error.isError()) {
        addError(doc, snapshot.error);
        doc.insert(QString(probeschema::gpus), QJsonArray{});
        return doc;
    }
    auto bytes = [](const std::optional<quint64> &v) {
        return v ? QJsonValue(qint64(*v)) : QJsonValue(QJsonValue::Null);
    };
    QJsonArray gpus;
    for (const PrometheusGpu &g : snapshot.gpus) {
        QJsonObject o{{QString(probeschema::hostname), g.hostname},
                      {QString(probeschema::index),
                       g.index ? QJsonValue(*g.index) : QJsonValue(QJsonValue::Null)},
                      {QString(probeschema::uuid), g.uuid},
                      {QString(probeschema::name), g.modelName},
                      {QString(probeschema::usedBytes), bytes(g.usedBytes)},
                      {QString(probeschema::freeBytes), bytes(g.freeBytes)},
                      {QString(probeschema::reservedBytes), bytes(g.reservedBytes)}};
        std::optional<quint64> total;
        if (g.usedBytes && g.freeBytes)
            total = *g.usedBytes + *g.freeBytes + g.reservedBytes.value_or(0);
        o.insert(QString(probeschema::totalBytes), bytes(total));
        if (!g.pciBusId.isEmpty())
            o.insert(QString(probeschema::pciBusId), g.pciBusId);
        if (!g.migInstance.isEmpty()) {
            o.insert(QStringLiteral("mig_instance"), g.migInstance);
            o.insert(QStringLiteral("mig_profile"), g.migProfile);
        }
        gpus.append(o);
    }
    doc.insert(QString(probeschema::gpus), gpus);
    return doc;
}

} // namespace shardscope::probe
