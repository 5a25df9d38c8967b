#include "measurement.h"

#include "inputfile.h"
#include "pickle.h"

#include <QDate>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QList>
#include <QStringList>
#include <QTime>
#include <QTimeZone>
#include <algorithm>
#include <cmath>
#include <map>

namespace shardscope {

namespace {

/// a + b into *sum, false on int64 overflow.
bool add(std::int64_t a, std::int64_t b, std::int64_t *sum)
{
    return !__builtin_add_overflow(a, b, sum);
}

/// `points` cut to at most maxMeasuredTracePoints: equal runs of points in order, each
/// kept as its largest point (the first of equals), so the peak is always kept.
std::vector<MeasuredPoint> thinTrace(std::vector<MeasuredPoint> points)
{
    const std::size_t n = points.size(), most = maxMeasuredTracePoints;
    if (n <= most)
        return points;
    std::vector<MeasuredPoint> kept;
    kept.reserve(most);
    for (std::size_t run = 0; run < most; ++run) {
        const auto first = points.begin() + std::ptrdiff_t(run * n / most);
        const auto last = points.begin() + std::ptrdiff_t((run + 1) * n / most);
        kept.push_back(*std::max_element(
            first, last, [](const auto &a, const auto &b) { return a.bytes < b.bytes; }));
    }
    return kept;
}

// ---- snapshot ---------------------------------------------------------------------------

/// The Int `key` of dict `d`, or nullopt (and `*why` says which) when absent or not an int.
std::optional<std::int64_t> intField(const PickleDocument &doc, const PickleNode &d,
                                     const char *key, QString *why)
{
    const PickleNode *v = doc.find(d, key);
    if (!v || v->kind != PickleKind::Int) {
        *why = v ? QStringLiteral("its %1 is not an integer").arg(QLatin1String(key))
                 : QStringLiteral("has no %1").arg(QLatin1String(key));
        return std::nullopt;
    }
    return v->integer;
}

/// Per device: bytes at the snapshot and the trace's running sums.
struct DeviceTally
{
    std::int64_t reserved = 0, allocated = 0;
    bool traced = false;
    std::int64_t allocDelta = 0, allocMaxPrefix = 0;       // alloc / free_requested
    std::int64_t reservedDelta = 0, reservedMaxPrefix = 0; // segment_alloc / segment_free
    /// The trace's first time_us, and (time_us, allocDelta after it) per alloc /
    /// free_requested; timed stays true while every entry has a time_us.
    std::int64_t firstTime = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> allocSteps;
    bool timed = true;
};

/// The Int time_us of a trace entry, or nullopt.
std::optional<std::int64_t> timeOf(const PickleDocument &doc, const PickleNode &entry)
{
    const PickleNode *t = doc.find(entry, "time_us");
    return t && t->kind == PickleKind::Int ? std::optional<std::int64_t>(t->integer) : std::nullopt;
}

/// A device's allocated bytes over its trace (Measurement::trace): `start` at the first
/// entry, then start + the running delta after each alloc / free_requested. Empty when an
/// entry had no time_us or a sum leaves int64.
std::vector<MeasuredPoint> snapshotTrace(const DeviceTally &t, std::int64_t start)
{
    if (!t.traced || !t.timed)
        return {};
    std::vector<MeasuredPoint> points{{0.0, start}};
    points.reserve(t.allocSteps.size() + 1);
    for (const auto &[time, delta] : t.allocSteps) {
        std::int64_t bytes = 0, since = 0;
        if (!add(start, delta, &bytes) || __builtin_sub_overflow(time, t.firstTime, &since))
            return {};
        points.push_back({double(since) / 1e6, bytes});
    }
    return thinTrace(std::move(points));
}

std::optional<Measurement> readSnapshot(const QByteArray &bytes, QString *error)
{
    const auto doc =
        readPickle(std::string_view(bytes.constData(), std::size_t(bytes.size())), error);
    if (!doc) {
        *error = QStringLiteral("snapshot pickle: ") + *error;
        return std::nullopt;
    }
    auto fail = [error](const QString &why) -> std::optional<Measurement> {
        *error = QStringLiteral("snapshot: ") + why;
        return std::nullopt;
    };
    const PickleNode &root = doc->at(doc->root);
    if (root.kind != PickleKind::Dict)
        return fail(QStringLiteral("the pickle holds no dict (torch.cuda.memory._snapshot() "
                                   "returns one with segments and device_traces)"));
    const PickleNode *segments = doc->find(root, "segments");
    if (!segments || segments->kind != PickleKind::List)
        return fail(QStringLiteral("no list of segments"));

    Measurement m;
    m.source = MeasurementSource::Snapshot;
    std::map<std::int64_t, DeviceTally> devices;
    std::int64_t reserved = 0, allocated = 0;
    const QString tooLarge = QStringLiteral("byte counts past 2^63");
    for (std::size_t i = 0; i < segments->kids.size(); ++i) {
        const PickleNode &seg = doc->at(segments->kids[i]);
        QString why;
        if (seg.kind != PickleKind::Dict)
            return fail(QStringLiteral("segment %1 is not a dict").arg(i));
        const auto total = intField(*doc, seg, "total_size", &why);
        if (!total || *total < 0)
            return fail(QStringLiteral("segment %1 %2")
                            .arg(i)
                            .arg(total ? QStringLiteral("has a negative total_size") : why));
        std::int64_t device = 0;
        if (doc->find(seg, "device")) {
            const auto d = intField(*doc, seg, "device", &why);
            if (!d || *d < 0 || *d > 4095)
                return fail(QStringLiteral("segment %1's device is not 0 to 4095").arg(i));
            device = *d;
        }
        DeviceTally &tally = devices[device];
        if (!add(reserved, *total, &reserved) || !add(tally.reserved, *total, &tally.reserved))
            return fail(tooLarge);
        const PickleNode *blocks = doc->find(seg, "blocks");
        if (!blocks || blocks->kind != PickleKind::List)
            return fail(QStringLiteral("segment %1 has no list of blocks").arg(i));
        for (std::size_t j = 0; j < blocks->kids.size(); ++j) {
            const PickleNode &block = doc->at(blocks->kids[j]);
            if (block.kind != PickleKind::Dict)
                return fail(QStringLiteral("segment %1 block %2 is not a dict").arg(i).arg(j));
            const auto size = intField(*doc, block, "size", &why);
            if (!size || *size < 0)
                return fail(QStringLiteral("segment %1 block %2 %3")
                                .arg(i)
                                .arg(j)
                                .arg(size ? QStringLiteral("has a negative size") : why));
            const PickleNode *state = doc->find(block, "state");
            if (!state || state->kind != PickleKind::String)
                return fail(QStringLiteral("segment %1 block %2 has no state").arg(i).arg(j));
            if (state->text == "active_allocated" &&
                (!add(allocated, *size, &allocated) ||
                 !add(tally.allocated, *size, &tally.allocated)))
                return fail(tooLarge);
        }
    }
    m.reservedBytes = reserved;
    m.allocatedBytes = allocated;

    if (const PickleNode *traces = doc->find(root, "device_traces")) {
        if (traces->kind != PickleKind::List)
            return fail(QStringLiteral("device_traces is not a list"));
        for (std::size_t d = 0; d < traces->kids.size(); ++d) {
            const PickleNode &trace = doc->at(traces->kids[d]);
            if (trace.kind != PickleKind::List)
                return fail(QStringLiteral("device_traces[%1] is not a list").arg(d));
            if (trace.kids.empty())
                continue;
            DeviceTally &tally = devices[std::int64_t(d)];
            tally.traced = true;
            for (std::size_t k = 0; k < trace.kids.size(); ++k) {
                const PickleNode &e = doc->at(trace.kids[k]);
                const auto time = timeOf(*doc, e);
                tally.timed = tally.timed && time;
                if (k == 0 && time)
                    tally.firstTime = *time;
                const PickleNode *action = doc->find(e, "action");
                if (!action || action->kind != PickleKind::String)
                    return fail(
                        QStringLiteral("device_traces[%1][%2] has no action").arg(d).arg(k));
                const std::string &a = action->text;
                const int allocSign = a == "alloc" ? 1 : a == "free_requested" ? -1 : 0;
                const int segmentSign = (a == "segment_alloc" || a == "segment_map")    ? 1
                                        : (a == "segment_free" || a == "segment_unmap") ? -1
                                                                                        : 0;
                if (allocSign == 0 && segmentSign == 0)
                    continue; // free_completed, oom, snapshot, annotate: no change
                QString why;
                const auto size = intField(*doc, e, "size", &why);
                if (!size || *size < 0)
                    return fail(QStringLiteral("device_traces[%1][%2] %3")
                                    .arg(d)
                                    .arg(k)
                                    .arg(size ? QStringLiteral("has a negative size") : why));
                std::int64_t &delta = allocSign ? tally.allocDelta : tally.reservedDelta;
                std::int64_t &maxPrefix =
                    allocSign ? tally.allocMaxPrefix : tally.reservedMaxPrefix;
                const std::int64_t signedSize = (allocSign ? allocSign : segmentSign) * *size;
                if (!add(delta, signedSize, &delta))
                    return fail(tooLarge);
                maxPrefix = std::max(maxPrefix, delta);
                if (allocSign && tally.timed)
                    tally.allocSteps.emplace_back(*time, delta);
                ++m.samples;
            }
        }
    }
    std::optional<std::int64_t> tracedPeak;
    for (const auto &[index, t] : devices) {
        MeasuredGpu g;
        g.index = int(index);
        g.reservedBytes = t.reserved;
        g.allocatedBytes = t.allocated;
        if (t.traced) {
            // At the snapshot = at the trace's start + delta, so the largest moment is
            // snapshot - delta + the largest prefix sum (0 for the start itself).
            std::int64_t a = 0, r = 0;
            if (__builtin_sub_overflow(t.allocated, t.allocDelta, &a) ||
                !add(a, t.allocMaxPrefix, &a) ||
                __builtin_sub_overflow(t.reserved, t.reservedDelta, &r) ||
                !add(r, t.reservedMaxPrefix, &r))
                return fail(tooLarge);
            g.peakAllocatedBytes = a;
            g.peakReservedBytes = r;
            if (!tracedPeak || a > *tracedPeak) {
                // t.allocated - t.allocDelta did not overflow above.
                tracedPeak = a;
                m.trace = snapshotTrace(t, t.allocated - t.allocDelta);
                m.traceGpu = int(index);
            }
            m.peakAllocatedBytes = std::max(m.peakAllocatedBytes.value_or(a), a);
            m.peakReservedBytes = std::max(m.peakReservedBytes.value_or(r), r);
        }
        m.gpus.push_back(g);
    }
    return m;
}

// ---- profiler memory timeline -----------------------------------------------------------

/// _CATEGORY_TO_INDEX's order (torch/profiler/_memory_profiler.py), after the leading 0.
constexpr const char *profilerCategories[] = {"parameter",       "optimizer_state", "input",
                                              "temporary",       "activation",      "gradient",
                                              "autograd_detail", "unknown"};
constexpr int profilerColumns = 9;

std::optional<Measurement> readProfilerTimeline(const QByteArray &bytes, QString *error)
{
    auto fail = [error](const QString &why) -> std::optional<Measurement> {
        *error = QStringLiteral("profiler memory timeline: ") + why;
        return std::nullopt;
    };
    QJsonParseError parse;
    const QJsonDocument json = QJsonDocument::fromJson(bytes, &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("JSON error at byte %1: %2").arg(parse.offset).arg(parse.errorString()));
    const QJsonArray top = json.array();
    if (!json.isArray() || top.size() != 2 || !top.at(0).isArray() || !top.at(1).isArray())
        return fail(QStringLiteral("expected [times, sizes] (export_memory_timeline with a .json "
                                   "path writes it)"));
    const QJsonArray times = top.at(0).toArray();
    const QJsonArray sizes = top.at(1).toArray();
    if (times.size() != sizes.size())
        return fail(
            QStringLiteral("%1 times but %2 rows of sizes").arg(times.size()).arg(sizes.size()));
    if (sizes.isEmpty())
        return fail(QStringLiteral("no points"));
    Measurement m;
    m.source = MeasurementSource::ProfilerTimeline;
    std::int64_t best = 0, last = 0;
    qsizetype bestRow = -1;
    // The trace: times in microseconds (_coalesce_timeline converts the profiler's ns).
    std::vector<MeasuredPoint> trace;
    bool timed = true;
    double firstTime = 0;
    std::vector<std::int64_t> bestValues;
    constexpr double exact = 9007199254740992.0; // 2^53: doubles hold integers exactly below
    for (qsizetype i = 0; i < sizes.size(); ++i) {
        const QJsonArray row = sizes.at(i).toArray();
        if (!sizes.at(i).isArray() || row.size() != profilerColumns)
            return fail(QStringLiteral("row %1 is not a list of %2 numbers (a leading 0, then "
                                       "bytes by category)")
                            .arg(i)
                            .arg(profilerColumns));
        std::vector<std::int64_t> values;
        std::int64_t total = 0;
        for (qsizetype c = 0; c < profilerColumns; ++c) {
            const QJsonValue v = row.at(c);
            const double d = v.toDouble();
            if (!v.isDouble() || !std::isfinite(d) || std::fabs(d) >= exact)
                return fail(QStringLiteral("row %1 column %2 is not a byte count").arg(i).arg(c));
            values.push_back(std::int64_t(std::llround(d)));
            total += values.back(); // 9 values below 2^53 each: no overflow
        }
        const QJsonValue time = times.at(i);
        timed = timed && time.isDouble() && std::isfinite(time.toDouble());
        if (timed) {
            if (i == 0)
                firstTime = time.toDouble();
            trace.push_back({(time.toDouble() - firstTime) / 1e6, total});
        }
        if (bestRow < 0 || total > best) {
            best = total;
            bestRow = i;
            bestValues = values;
        }
        last = total;
    }
    m.peakAllocatedBytes = best;
    m.allocatedBytes = last;
    m.samples = sizes.size();
    if (timed)
        m.trace = thinTrace(std::move(trace));
    for (int c = 1; c < profilerColumns; ++c)
        m.categories.push_back({profilerCategories[c - 1], bestValues[std::size_t(c)]});
    return m;
}

// ---- nvidia-smi CSV ---------------------------------------------------------------------

/// "81559 MiB" or "81559" as bytes (MiB x 2^20); nullopt for anything else.
std::optional<std::int64_t> mebibytes(QString text)
{
    text = text.trimmed();
    if (text.endsWith(QLatin1String("MiB")))
        text = text.chopped(3).trimmed();
    bool ok = false;
    const qlonglong v = text.toLongLong(&ok);
    if (!ok || v < 0 || v > (qlonglong(1) << 40))
        return std::nullopt;
    return std::int64_t(v) * 1024 * 1024;
}

/// nvidia-smi's timestamp ("2026/12/03 10:00:01.250") as milliseconds since the epoch,
/// read as UTC (only differences are used); -1 when it does not parse.
qint64 smiMilliseconds(const QString &field)
{
    const QString f = field.trimmed();
    const QDate date = QDate::fromString(f.left(10), QStringLiteral("yyyy/MM/dd"));
    const QTime time = QTime::fromString(f.mid(11), QStringLiteral("HH:mm:ss.zzz"));
    if (!date.isValid() || !time.isValid() || f.size() != 23)
        return -1;
    return QDateTime(date, time, QTimeZone::utc()).toMSecsSinceEpoch();
}

bool notAvailable(const QString &field)
{
    const QString f = field.trimmed();
    return f == QLatin1String("[N/A]") || f == QLatin1String("N/A") ||
           f.startsWith(QLatin1String("[Not Supported"));
}

std::optional<Measurement> readNvidiaSmi(const QList<QByteArray> &lines, QString *error)
{
    // Columns as nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total writes them.
    int timeColumn = 0, indexColumn = 1, usedColumn = 2, totalColumn = 3, columns = 4;
    std::map<int, MeasuredGpu> gpus;
    // Per GPU: (milliseconds since the epoch, memory.used) per row; -1 ms when a row's
    // timestamp did not parse (that GPU then has no trace).
    std::map<int, std::vector<std::pair<qint64, std::int64_t>>> rows;
    Measurement m;
    m.source = MeasurementSource::NvidiaSmiCsv;
    for (qsizetype n = 0; n < lines.size(); ++n) {
        const QString line = QString::fromUtf8(lines.at(n)).trimmed();
        auto fail = [&](const QString &why) -> std::optional<Measurement> {
            *error = QStringLiteral("nvidia-smi CSV line %1: %2").arg(n + 1).arg(why);
            return std::nullopt;
        };
        if (line.isEmpty())
            continue;
        const QStringList fields = line.split(QLatin1Char(','));
        if (line.contains(QLatin1String("memory.used"))) {
            // A header (nvidia-smi repeats it when logs are appended): the columns by name,
            // units in brackets ("memory.used [MiB]").
            timeColumn = indexColumn = usedColumn = totalColumn = -1;
            columns = int(fields.size());
            for (int c = 0; c < columns; ++c) {
                const QString name = fields.at(c).section(QLatin1Char('['), 0, 0).trimmed();
                if (name == QLatin1String("timestamp"))
                    timeColumn = c;
                else if (name == QLatin1String("index"))
                    indexColumn = c;
                else if (name == QLatin1String("memory.used"))
                    usedColumn = c;
                else if (name == QLatin1String("memory.total"))
                    totalColumn = c;
            }
            if (usedColumn < 0)
                return fail(QStringLiteral("no memory.used column"));
            continue;
        }
        if (fields.size() != columns)
            return fail(
                QStringLiteral("%1 fields, the header has %2").arg(fields.size()).arg(columns));
        if (notAvailable(fields.at(usedColumn)))
            continue;
        int index = 0;
        if (indexColumn >= 0) {
            bool ok = false;
            index = fields.at(indexColumn).trimmed().toInt(&ok);
            if (!ok || index < 0 || index > 4095)
                return fail(QStringLiteral("the GPU index is not 0 to 4095"));
        }
        const auto used = mebibytes(fields.at(usedColumn));
        if (!used)
            return fail(QStringLiteral("memory.used is not a whole number of MiB"));
        MeasuredGpu &g = gpus[index];
        g.index = index;
        g.peakUsedBytes = std::max(g.peakUsedBytes.value_or(*used), *used);
        if (totalColumn >= 0 && !notAvailable(fields.at(totalColumn))) {
            const auto total = mebibytes(fields.at(totalColumn));
            if (!total)
                return fail(QStringLiteral("memory.total is not a whole number of MiB"));
            // The driver never reports more in use than the card has: a hand-edited or
            // mixed-up file, which would compare against a card that cannot exist.
            if (*used > *total)
                return fail(QStringLiteral("memory.used (%1 MiB) is above memory.total (%2 MiB)")
                                .arg(*used >> 20)
                                .arg(*total >> 20));
            g.totalBytes = total;
        }
        ++g.samples;
        ++m.samples;
        rows[index].emplace_back(timeColumn >= 0 ? smiMilliseconds(fields.at(timeColumn)) : -1,
                                 *used);
        m.peakUsedBytes = std::max(m.peakUsedBytes.value_or(*used), *used);
    }
    if (gpus.empty()) {
        *error = QStringLiteral("nvidia-smi CSV: no rows with memory.used");
        return std::nullopt;
    }
    for (const auto &[index, g] : gpus) {
        m.gpus.push_back(g);
        if (*g.peakUsedBytes == *m.peakUsedBytes && m.trace.empty()) {
            m.traceGpu = index;
            const auto &points = rows[index];
            if (std::none_of(points.begin(), points.end(),
                             [](const auto &p) { return p.first < 0; })) {
                std::vector<MeasuredPoint> trace;
                for (const auto &[ms, used] : points)
                    trace.push_back({double(ms - points.front().first) / 1e3, used});
                m.trace = thinTrace(std::move(trace));
            }
        }
    }
    return m;
}

/// True when the first line reads like nvidia-smi's CSV: a header naming memory.used, or
/// (noheader) four fields whose second is an index and third a MiB count.
bool looksLikeNvidiaSmi(const QByteArray &firstLine)
{
    if (firstLine.contains("memory.used"))
        return true;
    const QList<QByteArray> f = firstLine.split(',');
    if (f.size() != 4)
        return false;
    bool ok = false;
    f.at(1).trimmed().toInt(&ok);
    return ok &&
           (mebibytes(QString::fromUtf8(f.at(2))) || notAvailable(QString::fromUtf8(f.at(2))));
}

} // namespace

std::string measurementSourceKey(MeasurementSource s)
{
    switch (s) {
    case MeasurementSource::Snapshot:
        return "pytorch_snapshot";
    case MeasurementSource::ProfilerTimeline:
        return "profiler_memory_timeline";
    case MeasurementSource::NvidiaSmiCsv:
        return "nvidia_smi_csv";
    }
    return "pytorch_snapshot";
}

std::optional<Measurement> readMeasurement(const QByteArray &bytes, QString *error)
{
    if (bytes.isEmpty()) {
        *error = QStringLiteral("empty file");
        return std::nullopt;
    }
    const unsigned char first = static_cast<unsigned char>(bytes.at(0));
    if (first == 0x80)
        return readSnapshot(bytes, error);
    if (bytes.startsWith("\x1f\x8b")) {
        *error = QStringLiteral("a gzip file: decompress it first (gunzip); export_memory_timeline "
                                "writes plain JSON for a .json path");
        return std::nullopt;
    }
    const QByteArray start = bytes.left(4096).trimmed();
    if (start.startsWith('['))
        return readProfilerTimeline(bytes, error);
    QList<QByteArray> lines = bytes.split('\n');
    for (QByteArray &line : lines)
        if (line.endsWith('\r'))
            line.chop(1);
    const auto firstLine = std::find_if(lines.cbegin(), lines.cend(),
                                        [](const QByteArray &l) { return !l.trimmed().isEmpty(); });
    if (firstLine != lines.cend() && looksLikeNvidiaSmi(*firstLine))
        return readNvidiaSmi(lines, error);
    *error = start.startsWith('{')
                 ? QStringLiteral("a JSON object, not a profiler memory timeline ([times, sizes] "
                                  "from export_memory_timeline)")
                 : QStringLiteral("not a PyTorch memory snapshot (pickle), a profiler memory "
                                  "timeline (JSON) or an nvidia-smi CSV log");
    return std::nullopt;
}

std::optional<Measurement> readMeasurementFile(const QString &path, QString *error)
{
    const auto bytes = readInputFile(path, error, maxMeasurementFileBytes);
    if (!bytes)
        return std::nullopt;
    auto m = readMeasurement(*bytes, error);
    if (!m)
        *error = QFileInfo(path).fileName() + QStringLiteral(": ") + *error;
    return m;
}

MeasurementGap compareMeasurement(const Measurement &m, const MemoryReport &report)
{
    MeasurementGap gap;
    const GpuGroup *g = report.peakGroup();
    if (!g)
        return gap;
    gap.group = g->label;
    const std::int64_t total = g->totalBytes();
    gap.predictedPeakBytes = total;
    const std::int64_t reservedPrediction = total - g->buffers.cudaContext;
    const std::int64_t tensorPrediction = reservedPrediction - g->buffers.fragmentation;
    const std::string tensors = "total less CUDA context and fragmentation";
    const std::string segments = "total less CUDA context";

    auto largest = [&m](auto field) {
        std::optional<std::int64_t> best;
        for (const MeasuredGpu &gpu : m.gpus)
            if (const auto v = gpu.*field)
                best = std::max(best.value_or(*v), *v);
        return best;
    };
    auto addComparison = [&gap](const char *measure, const std::string &covers,
                                std::optional<std::int64_t> measured, std::int64_t predicted) {
        if (measured)
            gap.comparisons.push_back({measure, covers, *measured, predicted});
    };
    switch (m.source) {
    case MeasurementSource::Snapshot:
        addComparison("peak_allocated", tensors, largest(&MeasuredGpu::peakAllocatedBytes),
                      tensorPrediction);
        addComparison("allocated", tensors, largest(&MeasuredGpu::allocatedBytes),
                      tensorPrediction);
        addComparison("peak_reserved", segments, largest(&MeasuredGpu::peakReservedBytes),
                      reservedPrediction);
        addComparison("reserved", segments, largest(&MeasuredGpu::reservedBytes),
                      reservedPrediction);
        break;
    case MeasurementSource::ProfilerTimeline:
        addComparison("peak_allocated", tensors, m.peakAllocatedBytes, tensorPrediction);
        break;
    case MeasurementSource::NvidiaSmiCsv:
        addComparison("peak_used", "total", largest(&MeasuredGpu::peakUsedBytes), total);
        break;
    }
    if (!m.categories.empty()) {
        auto measured = [&m](std::initializer_list<const char *> names) {
            std::int64_t sum = 0;
            for (const MeasuredCategory &c : m.categories)
                for (const char *n : names)
                    if (c.name == n)
                        sum += c.bytes;
            return sum;
        };
        const ComponentBytes &b = g->bytes;
        gap.categories = {
            {"parameters",
             {"parameter"},
             {"weights", "master_weights"},
             measured({"parameter"}),
             b.weights + b.masterWeights},
            {"optimizer_states",
             {"optimizer_state"},
             {"optimizer_states"},
             measured({"optimizer_state"}),
             b.optimizerStates},
            {"gradients", {"gradient"}, {"gradients"}, measured({"gradient"}), b.gradients},
            {"activations",
             {"activation", "autograd_detail", "input"},
             {"activations"},
             measured({"activation", "autograd_detail", "input"}),
             b.activations},
            {"temporary",
             {"temporary", "unknown"},
             {"communication_buckets", "gathered_units"},
             measured({"temporary", "unknown"}),
             g->buffers.communicationBuckets + g->buffers.gatheredUnits},
        };
    }
    return gap;
}

} // namespace shardscope
