#pragma once

#include "probeerror.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <QJsonObject>
#include <QMap>
#include <QNetworkAccessManager>
#include <QSet>
#include <QString>
#include <QUrl>
#include <functional>
#include <optional>
#include <vector>

namespace shardscope::probe {

/// The three dcgm-exporter gauges the cluster view reads (values in MiB).
inline constexpr char dcgmFbUsed[] = "DCGM_FI_DEV_FB_USED";
inline constexpr char dcgmFbFree[] = "DCGM_FI_DEV_FB_FREE";
inline constexpr char dcgmFbReserved[] = "DCGM_FI_DEV_FB_RESERVED";

/// The most bytes the three answers of one reading may hold together: 64 MiB
/// (67108864 bytes), about 150,000 dcgm-exporter series. A larger answer is
/// refused (prometheus_too_large) as soon as its Content-Length announces it or
/// the bytes received cross it.
inline constexpr qint64 prometheusMaxResponseBytes = 64LL << 20;

/// One series of an instant-vector answer: its labels and its value.
struct PrometheusSeries
{
    QMap<QString, QString> labels; ///< the "metric" object (includes __name__ when present)
    double value = 0;              ///< the sample value, parsed from its string form
};

/// One GPU (or MIG instance) as dcgm-exporter reports it through Prometheus.
/// Sizes in bytes (DCGM's MiB * 1048576); nullopt where the gauge is absent.
struct PrometheusGpu
{
    QString hostname;         ///< label Hostname, else hostname, else instance
    std::optional<int> index; ///< label gpu (the index on its host)
    QString uuid;             ///< label UUID
    QString modelName;        ///< label modelName
    QString pciBusId;         ///< label pci_bus_id, may be empty
    QString migProfile;       ///< label GPU_I_PROFILE (MIG only)
    QString migInstance;      ///< label GPU_I_ID (MIG only)
    std::optional<quint64> usedBytes;
    std::optional<quint64> freeBytes;
    std::optional<quint64> reservedBytes;
};

/// A cluster reading: every GPU Prometheus knows, or the error that stopped it.
struct PrometheusSnapshot
{
    qint64 timestampMs = 0; ///< ms since the Unix epoch when the queries were sent
    QString serverUrl;      ///< the server as given, its password replaced by "***"
    std::vector<PrometheusGpu> gpus;
    ProbeError error;
};

/// The most series one answer may hold (about 17 MiB of dcgm-exporter series; a
/// cluster of 100,000 GPUs): more is prometheus_too_large, so the series kept in
/// memory stay bounded whatever the 64 MiB of bytes hold.
inline constexpr qsizetype kMaxPrometheusSeries = 100000;

/// The longest label value (and error text) kept, bytes of UTF-8: a longer one (a
/// 20 MiB "Hostname") makes the answer prometheus_bad_response instead of being
/// echoed.
inline constexpr qsizetype kMaxPrometheusLabelBytes = 4096;

/// Reads one answer of the HTTP API /api/v1/query
/// ({"status":"success","data":{"resultType":"vector","result":[{"metric":{..},
/// "value":[<unix time>,"<value>"]}]}}) as its bytes arrive: feed() each chunk, then
/// finish(). A push parser over the bytes that builds no document and keeps no input:
/// between two feed() calls it holds only the string or number being read (at most
/// kMaxPrometheusLabelBytes of a kept value; a skipped string is not held at all), the
/// open containers (at most 64 deep) and the series read so far with the nine labels
/// mergeDcgmSeries() reads, their repeated values shared. So a 62 MiB answer costs its
/// kept series, not its bytes. The deadline is checked every 64 KiB fed.
class PrometheusVectorParser
{
public:
    /// Reading ends as prometheus_timeout once `deadline` has expired.
    explicit PrometheusVectorParser(
        QDeadlineTimer deadline = QDeadlineTimer(QDeadlineTimer::Forever));
    ~PrometheusVectorParser();
    PrometheusVectorParser(const PrometheusVectorParser &) = delete;
    PrometheusVectorParser &operator=(const PrometheusVectorParser &) = delete;

    /// Reads the next bytes of the answer. False once the answer is known to be bad
    /// (malformed, more than kMaxPrometheusSeries series, a kept label too long) or the
    /// deadline has passed; later bytes are then ignored and finish() says why.
    bool feed(QByteArrayView bytes);

    /// The answer has ended: its verdict, as parsePrometheusVector() describes it.
    ProbeError finish();

    /// The series read (empty after an error); call after finish().
    std::vector<PrometheusSeries> takeSeries();

    /// True when feed() stopped at the deadline.
    bool timedOut() const;

    /// Bytes of input held between feed() calls: the string or number being read.
    qsizetype bufferedBytes() const;

private:
    enum class Role : quint8;
    struct Frame;
    enum class State : quint8
    {
        Start,
        FirstKey,
        Key,
        Colon,
        FirstValue,
        Value,
        AfterValue,
        String,
        Escape,
        Hex,
        SkipString,
        SkipEscape,
        Literal,
        Done,
        Failed
    };

    bool step(char c);
    bool beginValue(char c);
    bool open(Role role, bool object);
    bool close();
    bool endValue();
    bool endString();
    bool endLiteral();
    bool appendCodePoint(char32_t u);
    void onKey();
    void onString(Role role);
    Role roleOfValue(char first) const;
    bool fail(const QString &why);
    QString at() const;

    QDeadlineTimer m_deadline;
    State m_state = State::Start;
    std::vector<Frame> m_frames;
    QByteArray m_text; ///< the string, key or number being read (UTF-8, escapes decoded)
    qsizetype m_textLimit = -1;
    Role m_stringRole{};
    bool m_stringIsKey = false;
    char32_t m_hex = 0;
    int m_hexDigits = 0;
    char32_t m_pendingHigh = 0; ///< a high surrogate waiting for its low half
    qint64 m_offset = 0;        ///< bytes read so far
    qint64 m_literalStart = 0;
    qint64 m_sinceTick = 0;
    PrometheusSeries m_current;
    int m_values = 0;
    bool m_valueOk = false;
    std::vector<PrometheusSeries> m_series;
    QSet<QString> m_interned;
    QString m_status, m_errorType, m_errorText, m_resultType, m_seriesError, m_error;
    bool m_haveResult = false;
    bool m_tooManySeries = false;
    bool m_timedOut = false;
};

/// Parses one whole answer of the HTTP API /api/v1/query with PrometheusVectorParser
/// into *out. Series whose value is not a finite number are skipped. Errors (exit 1):
/// prometheus_error for {"status":"error","errorType":..,"error":..},
/// prometheus_bad_response for anything that is not such a document or not a vector
/// (or holds a label longer than kMaxPrometheusLabelBytes), prometheus_too_large for
/// more than kMaxPrometheusSeries series, prometheus_timeout when `deadline` has expired
/// (checked every 64 KiB of input; *out is then empty).
ProbeError parsePrometheusVector(const QByteArray &body, std::vector<PrometheusSeries> *out,
                                 QDeadlineTimer deadline = QDeadlineTimer(QDeadlineTimer::Forever));

/// MiB (DCGM's unit) to bytes, rounded to the nearest byte; nullopt for
/// negative or non-finite values.
std::optional<quint64> mibToBytes(double mib);

/// Joins the three gauges into one record per GPU, keyed by host, UUID (or
/// gpu index) and MIG instance, sorted by host, index and instance.
std::vector<PrometheusGpu> mergeDcgmSeries(const std::vector<PrometheusSeries> &used,
                                           const std::vector<PrometheusSeries> &free,
                                           const std::vector<PrometheusSeries> &reserved);

/// Reads per-GPU framebuffer memory from a Prometheus server that scrapes
/// NVIDIA's dcgm-exporter: one GET /api/v1/query?query=<gauge> per gauge, sent
/// together. Needs a running Qt event loop for fetchAsync(); fetch() runs its own.
/// The client must outlive a fetch in flight.
class PrometheusClient
{
public:
    /// `server` is the base URL (http://host:9090, a path prefix is kept; a
    /// user:password in it is used to log in and printed as user:***);
    /// `timeoutMs` bounds the whole fetch: connecting, downloading, parsing
    /// and merging; `maxResponseBytes` caps the three answers together.
    explicit PrometheusClient(const QUrl &server, int timeoutMs = 5000,
                              qint64 maxResponseBytes = prometheusMaxResponseBytes);

    /// The query URL for `query` on this server.
    QUrl queryUrl(const QString &query) const;

    /// Sends the queries and calls `done` once with the snapshot. Errors (exit
    /// 1): prometheus_unreachable (no HTTP answer: connection refused, unknown
    /// host, TLS failure, ...), prometheus_timeout (not done within the
    /// timeout, parsing included), prometheus_error (an error document or any
    /// HTTP status >= 400, empty body included), prometheus_too_large (more than
    /// maxResponseBytes announced or received), prometheus_bad_response; no_gpus
    /// (exit 0) when neither FB_USED nor FB_FREE has a series. Messages carry
    /// the URL with its password redacted.
    void fetchAsync(std::function<void(PrometheusSnapshot)> done);

    /// fetchAsync() waited on in a local event loop.
    PrometheusSnapshot fetch();

private:
    QUrl m_server;
    int m_timeoutMs;
    qint64 m_maxResponseBytes;
    QNetworkAccessManager m_network;
};

/// The cluster document: the reading schema with "source":"prometheus",
/// "prometheus_url" and gpus carrying "hostname" (sizes in bytes, null where
/// a gauge is missing; total_bytes = used + free + reserved when all known,
/// used + free when reserved is missing). Errors give the error document.
QJsonObject snapshotToJson(const PrometheusSnapshot &snapshot);

} // namespace shardscope::probe
