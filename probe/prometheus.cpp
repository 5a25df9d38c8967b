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

// The labels mergeDcgmSeries() reads, as shared strings: a kept label's key is a copy of
// one of these, so 100,000 series share nine keys. Every other label is skipped unread.
const QString *keptLabel(QStringView key)
{
    static const QString kept[] = {
        QStringLiteral("Hostname"),  QStringLiteral("hostname"),   QStringLiteral("instance"),
        QStringLiteral("UUID"),      QStringLiteral("gpu"),        QStringLiteral("GPU_I_ID"),
        QStringLiteral("modelName"), QStringLiteral("pci_bus_id"), QStringLiteral("GPU_I_PROFILE")};
    for (const QString &k : kept)
        if (k == key)
            return &k;
    return nullptr;
}

// Distinct label values shared between series (host, model and instance names repeat
// on every GPU of a node); at most this many are remembered.
constexpr qsizetype kMaxInternedValues = 65536;

// Nesting deeper than this is refused.
constexpr int kMaxDepth = 64;

// A number or literal longer than this is refused.
constexpr qsizetype kMaxLiteralBytes = 1024;

} // namespace

/// What a container or a value is for, by its place in the answer.
enum class PrometheusVectorParser::Role : quint8
{
    Skip,   ///< read and dropped
    Root,   ///< the answer object
    Data,   ///< root.data
    Result, ///< data.result, the series list
    Series, ///< one element of the list
    Metric, ///< series.metric, the labels
    Value,  ///< series.value, [time, "value"]
    Status,
    ErrorType,
    ErrorText,
    ResultType,
    Label,      ///< a kept label's value
    SampleValue ///< the value's string
};

/// One open object or array.
struct PrometheusVectorParser::Frame
{
    Role role = Role::Skip;
    bool object = false;
    int elements = 0;               ///< values read so far in this container
    const QString *label = nullptr; ///< Metric: the kept label whose value comes next
    Role valueRole = Role::Skip;    ///< objects: what the value after the key is for
};

PrometheusVectorParser::PrometheusVectorParser(QDeadlineTimer deadline) : m_deadline(deadline)
{
    m_frames.reserve(kMaxDepth + 1);
}

PrometheusVectorParser::~PrometheusVectorParser() = default;

bool PrometheusVectorParser::fail(const QString &why)
{
    if (m_error.isEmpty())
        m_error = why;
    m_state = State::Failed;
    return false;
}

QString PrometheusVectorParser::at() const
{
    return QStringLiteral(" at byte %1").arg(m_offset);
}

// What a value with this first byte is for, given the container it lies in.
PrometheusVectorParser::Role PrometheusVectorParser::roleOfValue(char first) const
{
    if (m_frames.empty())
        return Role::Root;
    const Frame &f = m_frames.back();
    const bool isString = first == '"', isObject = first == '{', isArray = first == '[';
    switch (f.role) {
    case Role::Root:
    case Role::Data:
    case Role::Series:
        switch (f.valueRole) {
        case Role::Status:
        case Role::ErrorType:
        case Role::ErrorText:
        case Role::ResultType:
            return isString ? f.valueRole : Role::Skip;
        case Role::Data:
        case Role::Metric:
            return isObject ? f.valueRole : Role::Skip;
        case Role::Result:
        case Role::Value:
            return isArray ? f.valueRole : Role::Skip;
        default:
            return Role::Skip;
        }
    case Role::Result:
        return isObject ? Role::Series : Role::Skip;
    case Role::Metric:
        return isString && f.label ? Role::Label : Role::Skip;
    case Role::Value:
        return isString && f.elements == 1 ? Role::SampleValue : Role::Skip;
    default:
        return Role::Skip;
    }
}

// A key has been read in the innermost object: what its value will be for.
void PrometheusVectorParser::onKey()
{
    Frame &f = m_frames.back();
    const QString key = QString::fromUtf8(m_text);
    f.label = nullptr;
    f.valueRole = Role::Skip;
    if (f.role == Role::Metric) {
        f.label = keptLabel(key);
        return;
    }
    // The keys whose values are read, by the object they stand in; any other is skipped.
    static constexpr struct
    {
        Role object;
        const char *key;
        Role value;
    } keys[] = {
        {Role::Root, "status", Role::Status},         {Role::Root, "errorType", Role::ErrorType},
        {Role::Root, "error", Role::ErrorText},       {Role::Root, "data", Role::Data},
        {Role::Data, "resultType", Role::ResultType}, {Role::Data, "result", Role::Result},
        {Role::Series, "metric", Role::Metric},       {Role::Series, "value", Role::Value}};
    for (const auto &k : keys)
        if (k.object == f.role && key == QLatin1String(k.key)) {
            f.valueRole = k.value;
            return;
        }
}

// A string value for `role` has been read into m_text.
void PrometheusVectorParser::onString(Role role)
{
    switch (role) {
    case Role::Status:
        m_status = QString::fromUtf8(m_text);
        break;
    case Role::ErrorType:
        m_errorType = QString::fromUtf8(m_text);
        break;
    case Role::ErrorText:
        m_errorText = QString::fromUtf8(m_text);
        break;
    case Role::ResultType:
        m_resultType = QString::fromUtf8(m_text);
        break;
    case Role::Label: {
        QString value = QString::fromUtf8(m_text);
        if (const auto it = m_interned.constFind(value); it != m_interned.cend())
            value = *it; // shares the text of an earlier series
        else if (m_interned.size() < kMaxInternedValues)
            m_interned.insert(value);
        m_current.labels.insert(*m_frames.back().label, value);
        break;
    }
    case Role::SampleValue:
        m_current.value = QString::fromUtf8(m_text).toDouble(&m_valueOk);
        break;
    default:
        break;
    }
}

// Opens an object or array for `role`.
bool PrometheusVectorParser::open(Role role, bool object)
{
    if (int(m_frames.size()) >= kMaxDepth)
        return fail(QStringLiteral("nested more than %1 levels").arg(kMaxDepth));
    if (role == Role::Result) {
        // A second "result" list replaces the first.
        m_haveResult = true;
        m_series.clear();
        m_seriesError.clear();
    } else if (role == Role::Series) {
        m_current = PrometheusSeries();
        m_values = 0;
        m_valueOk = false;
    } else if (role == Role::Value) {
        m_values = 0;
    }
    m_frames.push_back(Frame{role, object});
    m_state = object ? State::FirstKey : State::FirstValue;
    return true;
}

// The innermost container has ended.
bool PrometheusVectorParser::close()
{
    const Frame f = m_frames.back();
    m_frames.pop_back();
    if (f.role == Role::Value)
        m_values = f.elements;
    if (f.role == Role::Series) {
        if (m_values != 2) {
            if (m_seriesError.isEmpty())
                m_seriesError = QStringLiteral("a series has no [time, value] pair");
        } else if (m_valueOk && std::isfinite(m_current.value)) { // "NaN", "+Inf": nothing to show
            m_series.push_back(std::move(m_current));
        }
        m_current = PrometheusSeries();
    }
    return endValue();
}

// A value has ended: count it in its container and check the series bound.
bool PrometheusVectorParser::endValue()
{
    if (m_frames.empty()) {
        m_state = State::Done;
        return true;
    }
    Frame &f = m_frames.back();
    ++f.elements;
    if (f.role == Role::Result) {
        if (qsizetype(m_series.size()) > kMaxPrometheusSeries) {
            m_tooManySeries = true;
            return fail(QStringLiteral("too many series"));
        }
    }
    m_state = State::AfterValue;
    return true;
}

// A byte that starts a value.
bool PrometheusVectorParser::beginValue(char c)
{
    const Role role = roleOfValue(c);
    if (m_frames.empty() && c != '{')
        return fail(QStringLiteral("not an object"));
    if (!m_frames.empty() && m_frames.back().role == Role::Result && c != '{') {
        // Reported once the answer's shape is known to be a vector.
        if (m_seriesError.isEmpty())
            m_seriesError = QStringLiteral("a series has no [time, value] pair");
    }
    if (c == '{' || c == '[')
        return open(role, c == '{');
    if (c == '"') {
        m_text.clear();
        m_stringRole = role;
        m_stringIsKey = false;
        m_textLimit = role == Role::Skip                               ? -1
                      : role == Role::SampleValue                      ? 64
                      : role == Role::Label || role == Role::ErrorText ? kMaxPrometheusLabelBytes
                                                                       : 1024;
        m_state = role == Role::Skip ? State::SkipString : State::String;
        return true;
    }
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
        m_text.clear();
        m_text += c;
        m_literalStart = m_offset;
        m_state = State::Literal;
        return true;
    }
    return fail(QStringLiteral("illegal value%1").arg(at()));
}

// Appends one decoded code point to m_text, refusing a string past its limit.
bool PrometheusVectorParser::appendCodePoint(char32_t u)
{
    if (u < 0x80)
        m_text += char(u);
    else
        m_text += QString::fromUcs4(&u, 1).toUtf8();
    return m_textLimit < 0 || m_text.size() <= m_textLimit ||
           fail(QStringLiteral("a string longer than %1 bytes").arg(m_textLimit));
}

// The closing quote of a string read into m_text.
bool PrometheusVectorParser::endString()
{
    if (m_pendingHigh) {
        m_pendingHigh = 0;
        if (!appendCodePoint(0xfffd))
            return false;
    }
    if (m_stringIsKey) {
        m_state = State::Colon;
        if (m_frames.back().role != Role::Skip)
            onKey();
        return true;
    }
    onString(m_stringRole);
    return endValue();
}

bool PrometheusVectorParser::feed(QByteArrayView bytes)
{
    if (m_state == State::Failed)
        return false;
    for (const char c : bytes) {
        if (!step(c))
            return false;
        ++m_offset;
        if (++m_sinceTick >= 65536) {
            m_sinceTick = 0;
            if (m_deadline.hasExpired()) {
                m_timedOut = true;
                return fail(QStringLiteral("timeout"));
            }
        }
    }
    return true;
}

// One byte of the answer.
bool PrometheusVectorParser::step(char c)
{
    const bool space = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    switch (m_state) {
    case State::Start:
        return space || beginValue(c);
    case State::Done:
        return space || fail(QStringLiteral("garbage after the object"));
    case State::FirstKey:
    case State::Key:
        if (space)
            return true;
        if (c == '}' && m_state == State::FirstKey)
            return close();
        if (c != '"')
            return fail(QStringLiteral("expected '\"'%1").arg(at()));
        m_text.clear();
        m_stringIsKey = true;
        m_stringRole = Role::Skip;
        m_textLimit = m_frames.back().role == Role::Skip ? -1 : 1024;
        m_state = m_frames.back().role == Role::Skip ? State::SkipString : State::String;
        return true;
    case State::Colon:
        if (space)
            return true;
        if (c != ':')
            return fail(QStringLiteral("expected ':'%1").arg(at()));
        m_state = State::Value;
        return true;
    case State::FirstValue:
        if (c == ']')
            return close();
        [[fallthrough]];
    case State::Value:
        return space || beginValue(c);
    case State::AfterValue: {
        if (space)
            return true;
        const bool object = m_frames.back().object;
        if (c == ',') {
            m_state = object ? State::Key : State::Value;
            return true;
        }
        if (c == (object ? '}' : ']'))
            return close();
        return fail(QStringLiteral("expected ',' or '%1'%2")
                        .arg(QLatin1Char(object ? '}' : ']'))
                        .arg(at()));
    }
    case State::SkipString:
        if (c == '\\')
            m_state = State::SkipEscape;
        else if (c == '"')
            return m_stringIsKey ? (m_state = State::Colon, true) : endValue();
        return true;
    case State::SkipEscape:
        m_state = State::SkipString;
        return true;
    case State::String:
        if (c == '"')
            return endString();
        if (static_cast<unsigned char>(c) < 0x20)
            return fail(QStringLiteral("control character in a string"));
        if (m_pendingHigh && c != '\\') {
            m_pendingHigh = 0;
            if (!appendCodePoint(0xfffd))
                return false;
        }
        if (c == '\\') {
            m_state = State::Escape;
            return true;
        }
        m_text += c;
        return m_textLimit < 0 || m_text.size() <= m_textLimit ||
               fail(QStringLiteral("a string longer than %1 bytes").arg(m_textLimit));
    case State::Escape: {
        m_state = State::String;
        char decoded = 0;
        switch (c) {
        case '"':
        case '\\':
        case '/':
            decoded = c;
            break;
        case 'b':
            decoded = '\b';
            break;
        case 'f':
            decoded = '\f';
            break;
        case 'n':
            decoded = '\n';
            break;
        case 'r':
            decoded = '\r';
            break;
        case 't':
            decoded = '\t';
            break;
        case 'u':
            m_hex = 0;
            m_hexDigits = 0;
            m_state = State::Hex;
            return true;
        default:
            return fail(QStringLiteral("bad escape in a string"));
        }
        if (m_pendingHigh) {
            m_pendingHigh = 0;
            if (!appendCodePoint(0xfffd))
                return false;
        }
        return appendCodePoint(char32_t(static_cast<unsigned char>(decoded)));
    }
    case State::Hex: {
        const int digit = (c >= '0' && c <= '9')   ? c - '0'
                          : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                          : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                   : -1;
        if (digit < 0)
            return fail(QStringLiteral("bad \\u escape"));
        m_hex = m_hex * 16 + char32_t(digit);
        if (++m_hexDigits < 4)
            return true;
        m_state = State::String;
        const char32_t u = m_hex;
        if (m_pendingHigh) {
            const char32_t high = std::exchange(m_pendingHigh, 0);
            if (u >= 0xdc00 && u <= 0xdfff)
                return appendCodePoint(0x10000 + ((high - 0xd800) << 10) + (u - 0xdc00));
            if (!appendCodePoint(0xfffd))
                return false;
        }
        if (u >= 0xd800 && u <= 0xdbff) {
            m_pendingHigh = u; // a low surrogate may follow
            return true;
        }
        return appendCodePoint(u >= 0xdc00 && u <= 0xdfff ? 0xfffd : u);
    }
    case State::Literal:
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
            m_text += c;
            return m_text.size() <= kMaxLiteralBytes ||
                   fail(QStringLiteral("a value longer than %1 bytes").arg(kMaxLiteralBytes));
        }
        if (!endLiteral())
            return false;
        return step(c); // the byte after the literal
    case State::Failed:
        return false;
    }
    return false;
}

// The end of a number or true/false/null read into m_text.
bool PrometheusVectorParser::endLiteral()
{
    bool number = false;
    (void)m_text.toDouble(&number);
    if (!(m_text == "true" || m_text == "false" || m_text == "null" || number))
        return fail(QStringLiteral("illegal value at byte %1").arg(m_literalStart));
    return endValue();
}

qsizetype PrometheusVectorParser::bufferedBytes() const
{
    return m_text.size();
}

ProbeError PrometheusVectorParser::finish()
{
    if (m_state != State::Failed && m_state != State::Done) {
        if (m_state == State::Start)
            fail(QStringLiteral("not an object"));
        else if (m_state == State::String || m_state == State::SkipString ||
                 m_state == State::Escape || m_state == State::SkipEscape || m_state == State::Hex)
            fail(QStringLiteral("unterminated string"));
        else
            fail(QStringLiteral("unexpected end"));
    }
    m_frames.clear();
    m_interned.clear();
    if (m_timedOut || m_deadline.hasExpired()) {
        m_series.clear();
        return parseTimeout();
    }
    if (m_state == State::Failed) {
        m_series.clear();
        if (m_tooManySeries)
            return ProbeError::make(QStringLiteral("prometheus_too_large"),
                                    QStringLiteral("Prometheus sent more than %1 series in one "
                                                   "answer, the most one reading holds")
                                        .arg(kMaxPrometheusSeries),
                                    ExitFailure);
        return badResponse(QStringLiteral("not a JSON object (%1)").arg(m_error));
    }
    if (m_status == QLatin1String("error")) {
        m_series.clear();
        return ProbeError::make(
            QStringLiteral("prometheus_error"),
            QStringLiteral("Prometheus error %1: %2").arg(m_errorType, m_errorText), ExitFailure);
    }
    auto shapeError = [&](const QString &why) {
        m_series.clear();
        return badResponse(why);
    };
    if (m_status != QLatin1String("success"))
        return shapeError(QStringLiteral("status is neither success nor error"));
    if (m_resultType != QLatin1String("vector"))
        return shapeError(QStringLiteral("resultType is not vector"));
    if (!m_haveResult)
        return shapeError(QStringLiteral("data.result is not a list"));
    if (!m_seriesError.isEmpty())
        return shapeError(m_seriesError);
    return {};
}

std::vector<PrometheusSeries> PrometheusVectorParser::takeSeries()
{
    return std::exchange(m_series, {});
}

bool PrometheusVectorParser::timedOut() const
{
    return m_timedOut;
}

ProbeError parsePrometheusVector(const QByteArray &body, std::vector<PrometheusSeries> *out,
                                 QDeadlineTimer deadline)
{
    out->clear();
    if (deadline.hasExpired())
        return parseTimeout();
    PrometheusVectorParser parser(deadline);
    parser.feed(body);
    const ProbeError error = parser.finish();
    *out = parser.takeSeries();
    return error;
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
        /// Each reply's parser, fed as its bytes arrive: no answer is held whole.
        std::vector<std::unique_ptr<PrometheusVectorParser>> parsers;
        std::vector<qint64> bodyBytes; ///< what each reply sent so far
        std::vector<qint64> announced; ///< each reply's Content-Length, 0 if none
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
    for (std::size_t i = 0; i < std::size(gauges); ++i)
        state->parsers.push_back(std::make_unique<PrometheusVectorParser>(state->deadline));
    state->bodyBytes.resize(std::size(gauges));
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
        state->parsers.clear();
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

        // Parses what has arrived; false once the reading is over (this call may end
        // it: past the deadline, past the size cap, or an answer known to be bad).
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
            state->bodyBytes[i] += chunk.size();
            PrometheusVectorParser &parser = *state->parsers[i];
            if (parser.feed(chunk))
                return true;
            if (parser.timedOut()) {
                finish(timeoutError(), reply);
                return false;
            }
            // A bad answer with a success status ends the reading now; an error status
            // waits for the end, where the status is reported if the body is no error
            // document.
            const int http = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            if (http > 0 && http < 400) {
                ProbeError error = parser.finish();
                if (error.code == QLatin1String("prometheus_timeout"))
                    error = timeoutError();
                finish(error, reply);
                return false;
            }
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
                const bool hasBody = state->bodyBytes[i] > 0;
                PrometheusVectorParser &parser = *state->parsers[i];
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
                    if (hasBody)
                        error = parser.finish();
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
                } else if (http != 0 && hasBody) {
                    error = parser.finish();
                    state->series[i] = parser.takeSeries();
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
