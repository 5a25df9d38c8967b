#include "calibration.h"

#include "sampler.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

#ifdef SHARDSCOPE_PROBE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace shardscope::probe {

namespace {

ProbeError invalid(const QString &why)
{
    return ProbeError::make(QStringLiteral("scenario_invalid"),
                            QStringLiteral("Invalid calibration scenario: %1").arg(why), ExitUsage);
}

// Parses a "bytes" object; the sizes must add up to at most 2^63 - 1 bytes
// (the document prints them as qint64), checked as each one is added.
ProbeError parseBytes(const QJsonObject &bytes, std::vector<CalibrationComponent> *out)
{
    out->clear();
    for (auto it = bytes.begin(); it != bytes.end(); ++it) {
        bool known = false;
        for (const char *key : calibrationComponentKeys)
            known = known || it.key() == QLatin1String(key);
        if (!known)
            return invalid(QStringLiteral("unknown component \"%1\" in \"bytes\"").arg(it.key()));
    }
    qint64 total = 0;
    for (const char *key : calibrationComponentKeys) {
        const QJsonValue v = bytes.value(QLatin1String(key));
        CalibrationComponent c{QString::fromLatin1(key), 0};
        if (!v.isUndefined() && !v.isNull()) {
            const qint64 n = v.isDouble() ? v.toInteger(-1) : -1;
            if (n < 0) {
                return invalid(
                    QStringLiteral("\"%1\" must be a non-negative integer count of bytes")
                        .arg(c.name));
            }
            if (__builtin_add_overflow(total, n, &total)) {
                return invalid(QStringLiteral("the sizes in \"bytes\" add up to more than %1 "
                                              "bytes at \"%2\"")
                                   .arg(std::numeric_limits<qint64>::max())
                                   .arg(c.name));
            }
            c.bytes = quint64(n);
        }
        out->push_back(c);
    }
    return {};
}

QString fileTypeName(mode_t mode)
{
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISDIR(mode))
        return QStringLiteral("a directory");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a plain file");
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace

quint64 CalibrationPlan::totalBytes() const
{
    quint64 total = 0;
    for (const CalibrationComponent &c : components) {
        if (__builtin_add_overflow(total, c.bytes, &total))
            return std::numeric_limits<quint64>::max();
    }
    return total;
}

ProbeError readCalibrationScenario(const QString &path, QByteArray *out, const QByteArray &rawPath)
{
    out->clear();
    // O_NONBLOCK: opening a FIFO without a writer would otherwise wait forever.
    const QByteArray file = rawPath.isEmpty() ? QFile::encodeName(path) : rawPath;
    const int fd = ::open(file.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return invalid(QStringLiteral("cannot read %1: %2").arg(path, errnoText(errno)));
    struct FdCloser
    {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};

    struct stat info = {};
    if (::fstat(fd, &info) != 0)
        return invalid(QStringLiteral("cannot read %1: %2").arg(path, errnoText(errno)));
    if (!S_ISREG(info.st_mode)) {
        return invalid(
            QStringLiteral("%1 is %2, not a regular file").arg(path, fileTypeName(info.st_mode)));
    }
    const QString limit = QStringLiteral("the %1-byte (%2 MiB) limit")
                              .arg(maxScenarioBytes)
                              .arg(maxScenarioBytes >> 20);
    auto grewPastLimit = [&] {
        return invalid(QStringLiteral("%1 grew past %2 while being read").arg(path, limit));
    };
    if (qint64(info.st_size) > maxScenarioBytes) {
        return invalid(QStringLiteral("%1 is %2 bytes, more than %3")
                           .arg(path, QString::number(qint64(info.st_size)), limit));
    }

    // Read at most one byte past the limit, whatever st_size said.
    QByteArray data(qsizetype(info.st_size) + 1, Qt::Uninitialized);
    qint64 size = 0;
    for (;;) {
        if (size == data.size()) {
            if (size > maxScenarioBytes)
                return grewPastLimit();
            data.resize(qsizetype(std::min<qint64>(maxScenarioBytes + 1, 2 * size + 4096)));
        }
        const ssize_t n = ::read(fd, data.data() + size, std::size_t(data.size() - size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return invalid(QStringLiteral("cannot read %1: %2").arg(path, errnoText(errno)));
        if (n == 0)
            break;
        size += n;
    }
    if (size > maxScenarioBytes)
        return grewPastLimit();
    data.truncate(qsizetype(size));
    *out = std::move(data);
    return {};
}

ProbeError parseCalibrationScenario(const QByteArray &json, int rank, CalibrationPlan *out)
{
    *out = CalibrationPlan{};
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return invalid(parseError.errorString());
    if (!doc.isObject())
        return invalid(QStringLiteral("the document is not a JSON object"));
    const QJsonObject root = doc.object();

    if (root.contains(QStringLiteral("groups"))) {
        if (root.contains(QStringLiteral("error")))
            return invalid(QStringLiteral("the report is an error: %1")
                               .arg(root.value(QStringLiteral("error")).toString()));
        const int wanted = rank < 0 ? 0 : rank;
        const QJsonArray groups = root.value(QStringLiteral("groups")).toArray();
        if (groups.isEmpty())
            return invalid(QStringLiteral("the report has no groups"));
        // One past the last rank of any group; ranks are ints, so at most 2^31.
        constexpr qint64 rankEnd = qint64(std::numeric_limits<int>::max()) + 1;
        qint64 ranks = 0;
        for (qsizetype i = 0; i < groups.size(); ++i) {
            const QJsonObject group = groups.at(i).toObject();
            const qint64 first = group.value(QStringLiteral("first_rank")).toInteger(-1);
            const qint64 gpus = group.value(QStringLiteral("gpus")).toInteger(-1);
            if (first < 0 || gpus < 1)
                return invalid(QStringLiteral("a group lacks first_rank or gpus"));
            qint64 end = 0;
            if (__builtin_add_overflow(first, gpus, &end) || end > rankEnd) {
                return invalid(QStringLiteral("group %1: \"first_rank\" %2 + \"gpus\" %3 is "
                                              "beyond the largest rank %4")
                                   .arg(i)
                                   .arg(first)
                                   .arg(gpus)
                                   .arg(std::numeric_limits<int>::max()));
            }
            ranks = std::max(ranks, end);
            if (wanted < first || wanted >= end)
                continue;
            out->rank = wanted;
            out->groupLabel = group.value(QStringLiteral("label")).toString();
            if (!group.value(QStringLiteral("bytes")).isObject())
                return invalid(
                    QStringLiteral("the group holding rank %1 has no \"bytes\"").arg(wanted));
            if (ProbeError e =
                    parseBytes(group.value(QStringLiteral("bytes")).toObject(), &out->components);
                e.isError())
                return e;
            if (out->totalBytes() == 0)
                return invalid(QStringLiteral("rank %1 needs 0 bytes").arg(wanted));
            return {};
        }
        return invalid(QStringLiteral("no group of the report holds rank %1 (ranks 0..%2)")
                           .arg(wanted)
                           .arg(ranks - 1));
    }

    if (!root.value(QStringLiteral("bytes")).isObject())
        return invalid(QStringLiteral("expected {\"rank\", \"bytes\": {...}} or a report with "
                                      "\"groups\""));
    int fileRank = -1;
    if (root.contains(QStringLiteral("rank"))) {
        const qint64 r = root.value(QStringLiteral("rank")).toInteger(-1);
        if (r < 0 || r > std::numeric_limits<int>::max())
            return invalid(QStringLiteral("\"rank\" must be a non-negative integer"));
        fileRank = int(r);
    }
    if (rank >= 0 && fileRank >= 0 && rank != fileRank)
        return invalid(
            QStringLiteral("the file describes rank %1, not rank %2").arg(fileRank).arg(rank));
    out->rank = rank >= 0 ? rank : std::max(fileRank, 0);
    if (ProbeError e = parseBytes(root.value(QStringLiteral("bytes")).toObject(), &out->components);
        e.isError())
        return e;
    if (out->totalBytes() == 0)
        return invalid(QStringLiteral("the scenario needs 0 bytes"));
    return {};
}

QString calibrationRefusal(quint64 neededBytes, quint64 freeBytes, quint64 marginBytes,
                           const QString &where)
{
    quint64 sum = 0;
    const bool overflow = __builtin_add_overflow(neededBytes, marginBytes, &sum);
    if (!overflow && sum <= freeBytes)
        return {};
    const QString total = overflow ? QStringLiteral("more than 2^64") : QString::number(sum);
    return QStringLiteral("needs %1 bytes (%2 for the scenario + %3 margin), %4 has %5 bytes free")
        .arg(total)
        .arg(neededBytes)
        .arg(marginBytes)
        .arg(where)
        .arg(freeBytes);
}

bool samePciBusId(const QString &a, const QString &b)
{
    static const QRegularExpression re(
        QStringLiteral("^([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])$"));
    auto parse = [](const QString &id) -> std::optional<std::array<uint, 4>> {
        const QRegularExpressionMatch m = re.match(id.trimmed());
        if (!m.hasMatch())
            return std::nullopt;
        std::array<uint, 4> parts{};
        for (int i = 0; i < 4; ++i)
            parts[std::size_t(i)] = m.captured(i + 1).toUInt(nullptr, 16);
        return parts;
    };
    const auto pa = parse(a);
    const auto pb = parse(b);
    return pa && pb && *pa == *pb;
}

QJsonObject calibrationErrorDocument(const ProbeError &error)
{
    QJsonObject doc{{QStringLiteral("schema"), QString::fromUtf16(calibrationSchema)},
                    {QStringLiteral("source"), QStringLiteral("calibration")},
                    {QStringLiteral("timestamp_ms"), nowMs()}};
    addError(doc, error);
    return doc;
}

bool calibrationAvailable()
{
#ifdef SHARDSCOPE_PROBE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

#ifndef SHARDSCOPE_PROBE_HAVE_CUDA

QJsonObject runCalibration(const CalibrationOptions &, int *exitCode)
{
    const ProbeError error = ProbeError::make(
        QStringLiteral("calibration_not_built"),
        QStringLiteral("calibration not built: CUDA toolkit not found at build time"), ExitFailure);
    *exitCode = error.exitCode;
    return calibrationErrorDocument(error);
}

#else

namespace {

ProbeError cudaFailure(const char *call, cudaError_t rc)
{
    return ProbeError::make(QStringLiteral("cuda_error"),
                            QStringLiteral("%1 failed: %2 (%3)")
                                .arg(QString::fromLatin1(call),
                                     QString::fromUtf8(cudaGetErrorString(rc)),
                                     QString::fromUtf8(cudaGetErrorName(rc))),
                            ExitFailure);
}

// A device reading whose difference or sum does not fit in a qint64 (only
// nonsense readings get there): refused, naming the output field.
enum class Reader
{
    Nvml,
    Cuda
};

ProbeError readingOverflow(Reader reader, const QString &field)
{
    const bool cuda = reader == Reader::Cuda;
    return ProbeError::make(cuda ? QStringLiteral("cuda_error") : QStringLiteral("nvml_error"),
                            QStringLiteral("%1 readings overflow \"%2\" (beyond 2^63 - 1 bytes)")
                                .arg(cuda ? QStringLiteral("CUDA") : QStringLiteral("NVML"), field),
                            ExitFailure);
}

// Frees every allocation on scope exit, whatever path leaves the run.
struct Allocations
{
    std::vector<void *> pointers;
    ~Allocations()
    {
        for (void *p : pointers)
            cudaFree(p);
    }
};

} // namespace

QJsonObject runCalibration(const CalibrationOptions &options, int *exitCode)
{
    auto fail = [exitCode](const ProbeError &error) {
        *exitCode = error.exitCode;
        return calibrationErrorDocument(error);
    };
    QElapsedTimer clock;
    clock.start();

    QByteArray scenario;
    if (ProbeError e =
            readCalibrationScenario(options.scenarioPath, &scenario, options.scenarioFile);
        e.isError())
        return fail(e);
    CalibrationPlan plan;
    if (ProbeError e = parseCalibrationScenario(scenario, options.rank, &plan); e.isError())
        return fail(e);
    const quint64 needed = plan.totalBytes();

    // 1. NVML before any CUDA call: no context exists yet.
    NvmlSampler nvml;
    ProbeError error;
    const unsigned count = nvml.deviceCount(&error);
    if (error.isError())
        return fail(error);
    if (options.device >= count) {
        return fail(ProbeError::make(
            QStringLiteral("device_not_found"),
            QStringLiteral("--device %1: NVML sees %2 GPU(s)").arg(options.device).arg(count),
            ExitUsage));
    }
    GpuReading before;
    if (error = nvml.readDevice(options.device, &before); error.isError())
        return fail(error);
    const QString where = QStringLiteral("device %1 (%2)").arg(options.device).arg(before.name);
    if (QString refusal = calibrationRefusal(needed, before.freeBytes, options.marginBytes, where);
        !refusal.isEmpty()) {
        return fail(ProbeError::make(QStringLiteral("calibration_refused"),
                                     QStringLiteral("Refusing to calibrate: ") + refusal,
                                     ExitFailure));
    }

    // 2. The CUDA device on the same PCI bus (CUDA's order and
    // CUDA_VISIBLE_DEVICES differ from NVML's).
    int cudaCount = 0;
    if (cudaError_t rc = cudaGetDeviceCount(&cudaCount); rc != cudaSuccess)
        return fail(cudaFailure("cudaGetDeviceCount", rc));
    int cudaDevice = -1;
    for (int d = 0; d < cudaCount && cudaDevice < 0; ++d) {
        char bus[32] = {};
        if (cudaDeviceGetPCIBusId(bus, int(sizeof bus) - 1, d) == cudaSuccess &&
            samePciBusId(QString::fromLatin1(bus), before.pciBusId))
            cudaDevice = d;
    }
    if (cudaDevice < 0) {
        return fail(ProbeError::make(
            QStringLiteral("cuda_device_not_found"),
            QStringLiteral("No CUDA device is on PCI bus %1 (hidden by CUDA_VISIBLE_DEVICES?)")
                .arg(before.pciBusId),
            ExitFailure));
    }

    // 3. Context baseline.
    if (cudaError_t rc = cudaSetDevice(cudaDevice); rc != cudaSuccess)
        return fail(cudaFailure("cudaSetDevice", rc));
    if (cudaError_t rc = cudaFree(nullptr); rc != cudaSuccess)
        return fail(cudaFailure("cudaFree(0)", rc));
    GpuReading context;
    if (error = nvml.readDevice(options.device, &context); error.isError())
        return fail(error);
    size_t cudaFree0 = 0;
    size_t cudaTotal = 0;
    if (cudaError_t rc = cudaMemGetInfo(&cudaFree0, &cudaTotal); rc != cudaSuccess)
        return fail(cudaFailure("cudaMemGetInfo", rc));
    if (QString refusal = calibrationRefusal(needed, cudaFree0, options.marginBytes,
                                             where + QStringLiteral(" after context creation"));
        !refusal.isEmpty()) {
        return fail(ProbeError::make(QStringLiteral("calibration_refused"),
                                     QStringLiteral("Refusing to calibrate: ") + refusal,
                                     ExitFailure));
    }

    // 4. One allocation per component, a reading after each.
    Allocations allocations;
    QJsonArray components;
    qint64 measuredTotal = 0;
    quint64 usedBefore = context.usedBytes;
    size_t freeBefore = cudaFree0;
    for (const CalibrationComponent &c : plan.components) {
        qint64 measured = 0;
        qint64 cudaDelta = 0;
        if (c.bytes > 0) {
            void *p = nullptr;
            if (cudaError_t rc = cudaMalloc(&p, size_t(c.bytes)); rc != cudaSuccess) {
                ProbeError e = cudaFailure("cudaMalloc", rc);
                e.message += QStringLiteral(" allocating %1 (%2 bytes)").arg(c.name).arg(c.bytes);
                return fail(e);
            }
            allocations.pointers.push_back(p);
            GpuReading after;
            if (error = nvml.readDevice(options.device, &after); error.isError())
                return fail(error);
            size_t freeAfter = 0;
            if (cudaError_t rc = cudaMemGetInfo(&freeAfter, &cudaTotal); rc != cudaSuccess)
                return fail(cudaFailure("cudaMemGetInfo", rc));
            // The builtins compute in infinite precision and check the qint64 result.
            if (__builtin_sub_overflow(after.usedBytes, usedBefore, &measured))
                return fail(
                    readingOverflow(Reader::Nvml, c.name + QStringLiteral(".measured_bytes")));
            if (__builtin_sub_overflow(freeBefore, freeAfter, &cudaDelta)) {
                return fail(readingOverflow(Reader::Cuda,
                                            c.name + QStringLiteral(".cuda_free_delta_bytes")));
            }
            usedBefore = after.usedBytes;
            freeBefore = freeAfter;
        }
        qint64 difference = 0;
        if (__builtin_add_overflow(measuredTotal, measured, &measuredTotal))
            return fail(readingOverflow(Reader::Nvml, QStringLiteral("measured_total_bytes")));
        if (__builtin_sub_overflow(measured, c.bytes, &difference))
            return fail(
                readingOverflow(Reader::Nvml, c.name + QStringLiteral(".difference_bytes")));
        components.append(QJsonObject{{QStringLiteral("name"), c.name},
                                      {QStringLiteral("predicted_bytes"), qint64(c.bytes)},
                                      {QStringLiteral("measured_bytes"), measured},
                                      {QStringLiteral("cuda_free_delta_bytes"), cudaDelta},
                                      {QStringLiteral("difference_bytes"), difference}});
    }
    qint64 baseline = 0;
    qint64 totalDifference = 0;
    if (__builtin_sub_overflow(context.usedBytes, before.usedBytes, &baseline))
        return fail(readingOverflow(Reader::Nvml, QStringLiteral("context.baseline_bytes")));
    if (__builtin_sub_overflow(measuredTotal, needed, &totalDifference))
        return fail(readingOverflow(Reader::Nvml, QStringLiteral("difference_bytes")));

    // 5. This process as NVML lists it (absent inside a PID namespace).
    GpuReading last;
    QJsonValue processUsed(QJsonValue::Null);
    if (nvml.readDevice(options.device, &last).isError() == false && last.processes) {
        const auto pid = quint32(QCoreApplication::applicationPid());
        for (const ProcessReading &p : *last.processes) {
            if (p.pid == pid && p.usedBytes)
                processUsed = qint64(*p.usedBytes);
        }
    }

    *exitCode = ExitOk;
    return QJsonObject{{QStringLiteral("schema"), QString::fromUtf16(calibrationSchema)},
                       {QStringLiteral("source"), QStringLiteral("calibration")},
                       {QStringLiteral("timestamp_ms"), nowMs()},
                       {QStringLiteral("scenario_file"), options.scenarioPath},
                       {QStringLiteral("rank"), plan.rank},
                       {QStringLiteral("group_label"), plan.groupLabel},
                       {QStringLiteral("driver_version"), nvml.driverVersion()},
                       {QStringLiteral("nvml_memory_api"), nvml.memoryApi()},
                       {QStringLiteral("device"),
                        QJsonObject{{QStringLiteral("index"), qint64(options.device)},
                                    {QStringLiteral("cuda_index"), cudaDevice},
                                    {QStringLiteral("name"), before.name},
                                    {QStringLiteral("uuid"), before.uuid},
                                    {QStringLiteral("pci_bus_id"), before.pciBusId},
                                    {QStringLiteral("total_bytes"), qint64(before.totalBytes)}}},
                       {QStringLiteral("margin_bytes"), qint64(options.marginBytes)},
                       {QStringLiteral("context"),
                        QJsonObject{{QStringLiteral("used_before_bytes"), qint64(before.usedBytes)},
                                    {QStringLiteral("used_after_bytes"), qint64(context.usedBytes)},
                                    {QStringLiteral("baseline_bytes"), baseline},
                                    {QStringLiteral("cuda_free_bytes"), qint64(cudaFree0)},
                                    {QStringLiteral("cuda_total_bytes"), qint64(cudaTotal)}}},
                       {QStringLiteral("components"), components},
                       {QStringLiteral("predicted_total_bytes"), qint64(needed)},
                       {QStringLiteral("measured_total_bytes"), measuredTotal},
                       {QStringLiteral("difference_bytes"), totalDifference},
                       {QStringLiteral("process_used_bytes"), processUsed},
                       {QStringLiteral("elapsed_ms"), clock.elapsed()}};
}

#endif

} // namespace shardscope::probe
