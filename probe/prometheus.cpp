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
#include <cctype>
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

namespace {

// The labels mergeDcgmSeries() reads; every other label of a series is skipped unread.
bool keptLabel(QStringView key)
{
    static const QStringList kept{
        QStringLiteral("Hostname"),  QStringLiteral("hostname"),   QStringLiteral("instance"),
        QStringLiteral("UUID"),      QStringLiteral("gpu"),        QStringLiteral("GPU_I_ID"),
        QStringLiteral("modelName"), QStringLiteral("pci_bus_id"), QStringLiteral("GPU_I_PROFILE")};
    return kept.contains(key);
}

// A pull parser over one answer's bytes that builds no document: values are read where
// they lie and skipped when not needed, so a 64 MiB answer costs its series, not a DOM
// several times its size, and the deadline is checked every 64 KiB of input.
class VectorReader
{
public:
    VectorReader(const QByteArray &body, QDeadlineTimer deadline)
        : m_p(body.constData()), m_begin(body.constData()), m_end(body.constData() + body.size()),
          m_deadline(deadline)
    {
    }

    QString error;         ///< why the bytes are not JSON, or what was too large
    bool timedOut = false; ///< the deadline passed while reading

    bool ws()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
        return tick();
    }
    bool atEnd()
    {
        ws();
        return m_p == m_end;
    }
    bool peek(char c) { return ws() && m_p < m_end && *m_p == c; }
    bool expect(char c)
    {
        if (!peek(c))
            return fail(
                QStringLiteral("expected '%1' at byte %2").arg(QLatin1Char(c)).arg(offset()));
        ++m_p;
        return true;
    }
    // After a member or element: true at ',' (consumed), false at `close` (consumed) or
    // on an error (error set).
    bool more(char close, bool *ok)
    {
        *ok = false;
        if (!ws() || m_p == m_end)
            return fail(QStringLiteral("unexpected end"));
        if (*m_p == ',') {
            ++m_p;
            *ok = true;
            return true;
        }
        if (*m_p == close) {
            ++m_p;
            *ok = true;
            return false;
        }
        return fail(QStringLiteral("expected ',' or '%1' at byte %2")
                        .arg(QLatin1Char(close))
                        .arg(offset()));
    }
    // After a member or element: 1 at ',' (consumed), 0 at `close` (consumed), -1 on an
    // error (error set).
    int next(char close)
    {
        bool ok = false;
        if (more(close, &ok))
            return 1;
        return ok ? 0 : -1;
    }
    // A string into `out` (escapes decoded); refused past `maxChars` UTF-8 bytes.
    bool string(QString *out, qsizetype maxChars)
    {
        if (!expect('"'))
            return false;
        QByteArray utf8;
        while (true) {
            if (m_p == m_end)
                return fail(QStringLiteral("unterminated string"));
            const char c = *m_p++;
            if (c == '"')
                break;
            if (static_cast<unsigned char>(c) < 0x20)
                return fail(QStringLiteral("control character in a string"));
            if (c != '\\') {
                utf8 += c;
            } else {
                if (m_p == m_end)
                    return fail(QStringLiteral("unterminated string"));
                const char e = *m_p++;
                switch (e) {
                case '"':
                case '\\':
                case '/':
                    utf8 += e;
                    break;
                case 'b':
                    utf8 += '\b';
                    break;
                case 'f':
                    utf8 += '\f';
                    break;
                case 'n':
                    utf8 += '\n';
                    break;
                case 'r':
                    utf8 += '\r';
                    break;
                case 't':
                    utf8 += '\t';
                    break;
                case 'u': {
                    char32_t u = 0;
                    if (!hex4(&u))
                        return false;
                    if (u >= 0xd800 && u <= 0xdbff && m_end - m_p >= 6 && m_p[0] == '\\' &&
                        m_p[1] == 'u') {
                        m_p += 2;
                        char32_t low = 0;
                        if (!hex4(&low))
                            return false;
                        u = low >= 0xdc00 && low <= 0xdfff
                                ? 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00)
                                : 0xfffd;
                    } else if (u >= 0xd800 && u <= 0xdfff) {
                        u = 0xfffd;
                    }
                    utf8 += QString::fromUcs4(&u, 1).toUtf8();
                    break;
                }
                default:
                    return fail(QStringLiteral("bad escape in a string"));
                }
            }
            if (utf8.size() > maxChars)
                return fail(QStringLiteral("a string longer than %1 bytes").arg(maxChars));
        }
        if (out)
            *out = QString::fromUtf8(utf8);
        return tick();
    }
    // Any value, unread; nesting past 64 levels is refused.
    bool skip(int depth = 0)
    {
        if (depth > 64)
            return fail(QStringLiteral("nested more than 64 levels"));
        if (!ws() || m_p == m_end)
            return fail(QStringLiteral("unexpected end"));
        const char c = *m_p;
        if (c == '"') {
            ++m_p;
            for (; m_p < m_end && *m_p != '"'; ++m_p) {
                if (*m_p == '\\' && ++m_p == m_end)
                    break;
                if (!tick())
                    return false;
            }
            if (m_p == m_end)
                return fail(QStringLiteral("unterminated string"));
            ++m_p;
            return true;
        }
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            ++m_p;
            if (peek(close)) {
                ++m_p;
                return true;
            }
            for (bool ok = true;;) {
                if (c == '{' && !(string(nullptr, 1 << 20) && expect(':')))
                    return false;
                if (!skip(depth + 1))
                    return false;
                if (!more(close, &ok))
                    return ok;
            }
        }
        const char *start = m_p;
        while (m_p < m_end && (std::isalnum(static_cast<unsigned char>(*m_p)) || *m_p == '-' ||
                               *m_p == '+' || *m_p == '.'))
            ++m_p;
        const QByteArray word(start, m_p - start);
        bool number = false;
        (void)word.toDouble(&number);
        if (word == "true" || word == "false" || word == "null" || number)
            return tick();
        return fail(QStringLiteral("illegal value at byte %1").arg(start - m_begin));
    }
    bool fail(const QString &why)
    {
        if (error.isEmpty())
            error = why;
        return false;
    }

private:
    qint64 offset() const { return m_p - m_begin; }
    bool hex4(char32_t *out)
    {
        if (m_end - m_p < 4)
            return fail(QStringLiteral("bad \\u escape"));
        bool ok = false;
        *out = char32_t(QByteArray(m_p, 4).toUInt(&ok, 16));
        m_p += 4;
        return ok || fail(QStringLiteral("bad \\u escape"));
    }
    // Checks the deadline once per 64 KiB read.
    bool tick()
    {
        if (m_p - m_lastTick < 65536)
            return true;
        m_lastTick = m_p;
        if (!m_deadline.hasExpired())
            return true;
        timedOut = true;
        return fail(QStringLiteral("timeout"));
    }

    const char *m_p;
    const char *m_begin;
    const char *m_end;
    const char *m_lastTick = m_p;
    QDeadlineTimer m_deadline;
};

} // namespace

ProbeError parsePrometheusVector(const QByteArray &body, std::vector<PrometheusSeries> *out,
                                 QDeadlineTimer deadline)
{
    out->clear();
    if (deadline.hasExpired())
        return parseTimeout();
    VectorReader r(body, deadline);
    QString status, errorType, errorText, resultType;
    bool haveResult = false;
    bool tooManySeries = false;
    QString seriesError; // the first malformed series, reported once the shape is known
    auto readSeries = [&]() -> bool {
        if (!r.peek('{')) {
            seriesError = QStringLiteral("a series has no [time, value] pair");
            return r.skip();
        }
        r.expect('{');
        PrometheusSeries s;
        int values = 0;
        bool valueOk = false;
        if (r.peek('}')) {
            r.expect('}');
        } else {
            for (;;) {
                QString key;
                if (!r.string(&key, 1024) || !r.expect(':'))
                    return false;
                if (key == QLatin1String("metric") && r.peek('{')) {
                    r.expect('{');
                    if (r.peek('}')) {
                        r.expect('}');
                    } else {
                        for (;;) {
                            QString label;
                            if (!r.string(&label, 1024) || !r.expect(':'))
                                return false;
                            if (keptLabel(label) && r.peek('"')) {
                                QString v;
                                if (!r.string(&v, kMaxPrometheusLabelBytes))
                                    return false;
                                s.labels.insert(label, v);
                            } else if (!r.skip()) {
                                return false;
                            }
                            if (const int next = r.next('}'); next <= 0) {
                                if (next < 0)
                                    return false;
                                break;
                            }
                        }
                    }
                } else if (key == QLatin1String("value") && r.peek('[')) {
                    r.expect('[');
                    values = 0;
                    if (r.peek(']')) {
                        r.expect(']');
                    } else {
                        for (;;) {
                            if (values == 1 && r.peek('"')) {
                                QString v;
                                if (!r.string(&v, 64))
                                    return false;
                                s.value = v.toDouble(&valueOk);
                            } else if (!r.skip()) {
                                return false;
                            }
                            ++values;
                            if (const int next = r.next(']'); next <= 0) {
                                if (next < 0)
                                    return false;
                                break;
                            }
                        }
                    }
                } else if (!r.skip()) {
                    return false;
                }
                if (const int next = r.next('}'); next <= 0) {
                    if (next < 0)
                        return false;
                    break;
                }
            }
        }
        if (values != 2) {
            if (seriesError.isEmpty())
                seriesError = QStringLiteral("a series has no [time, value] pair");
            return true;
        }
        if (valueOk && std::isfinite(s.value)) // "NaN", "+Inf": nothing to show
            out->push_back(std::move(s));
        return true;
    };

    auto parse = [&]() -> bool {
        if (!r.peek('{'))
            return r.fail(QStringLiteral("not an object"));
        r.expect('{');
        if (r.peek('}')) {
            r.expect('}');
            return r.atEnd() || r.fail(QStringLiteral("garbage after the object"));
        }
        for (;;) {
            QString key;
            if (!r.string(&key, 1024) || !r.expect(':'))
                return false;
            if (key == QLatin1String("status") && r.peek('"')) {
                if (!r.string(&status, 1024))
                    return false;
            } else if (key == QLatin1String("errorType") && r.peek('"')) {
                if (!r.string(&errorType, 1024))
                    return false;
            } else if (key == QLatin1String("error") && r.peek('"')) {
                if (!r.string(&errorText, kMaxPrometheusLabelBytes))
                    return false;
            } else if (key == QLatin1String("data") && r.peek('{')) {
                r.expect('{');
                if (r.peek('}')) {
                    r.expect('}');
                } else {
                    for (;;) {
                        QString dkey;
                        if (!r.string(&dkey, 1024) || !r.expect(':'))
                            return false;
                        if (dkey == QLatin1String("resultType") && r.peek('"')) {
                            if (!r.string(&resultType, 1024))
                                return false;
                        } else if (dkey == QLatin1String("result") && r.peek('[')) {
                            haveResult = true;
                            out->clear();
                            seriesError.clear();
                            r.expect('[');
                            if (r.peek(']')) {
                                r.expect(']');
                            } else {
                                for (;;) {
                                    if (!readSeries())
                                        return false;
                                    if (qsizetype(out->size()) > kMaxPrometheusSeries) {
                                        tooManySeries = true;
                                        return r.fail(QStringLiteral("too many series"));
                                    }
                                    if (const int next = r.next(']'); next <= 0) {
                                        if (next < 0)
                                            return false;
                                        break;
                                    }
                                }
                            }
                        } else if (!r.skip()) {
                            return false;
                        }
                        if (const int next = r.next('}'); next <= 0) {
                            if (next < 0)
                                return false;
                            break;
                        }
                    }
                }
            } else if (!r.skip()) {
                return false;
            }
            if (const int next = r.next('}'); next <= 0) {
                if (next < 0)
                    return false;
                break;
            }
        }
        return r.atEnd() || r.fail(QStringLiteral("garbage after the object"));
    };

    const bool parsed = parse();
    if (r.timedOut || deadline.hasExpired()) {
        out->clear();
        return parseTimeout();
    }
    if (!parsed) {
        out->clear();
        if (tooManySeries)
            return ProbeError::make(QStringLiteral("prometheus_too_large"),
                                    QStringLiteral("Prometheus sent more than %1 series in one "
                                                   "answer, the most one reading holds")
                                        .arg(kMaxPrometheusSeries),
                                    ExitFailure);
        return badResponse(QStringLiteral("not a JSON object (%1)").arg(r.error));
    }
    if (status == QLatin1String("error")) {
        out->clear();
        return ProbeError::make(QStringLiteral("prometheus_error"),
                                QStringLiteral("Prometheus error %1: %2").arg(errorType, errorText),
                                ExitFailure);
    }
    auto shapeError = [&](const QString &why) {
        out->clear();
        return badResponse(why);
    };
    if (status != QLatin1String("success"))
        return shapeError(QStringLiteral("status is neither success nor error"));
    if (resultType != QLatin1String("vector"))
        return shapeError(QStringLiteral("resultType is not vector"));
    if (!haveResult)
        return shapeError(QStringLiteral("data.result is not a list"));
    if (!seriesError.isEmpty())
        return shapeError(seriesError);
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
                if (!overflow && total <= maxBytes) {
                    // The body's whole size at once: no doubling reallocations on the way.
                    if (state->announced[i] > 0)
                        state->bodies[i].reserve(state->announced[i]);
                    return;
                }
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
