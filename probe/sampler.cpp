#include "sampler.h"

#include "probeschema.h"

#include <QJsonArray>
#include <chrono>
#include <future>
#include <limits>
#include <memory>
#include <thread>

namespace shardscope::probe {

using namespace nvml;

namespace {

// NVML fills fixed buffers; the extra NUL guards against a full one.
template <unsigned N> struct TextBuffer
{
    char data[N + 1] = {};
    QString text() const { return QString::fromUtf8(data); }
};

QString fromFixed(const char *chars, std::size_t size)
{
    std::size_t n = 0;
    while (n < size && chars[n] != '\0')
        ++n;
    return QString::fromUtf8(chars, qsizetype(n));
}

// Calls a process-list entry point: a size query first, then a read with some
// slack because processes can start between the two calls. A count above
// kMaxNvmlProcesses is refused (*tooMany set) before anything is allocated.
template <typename Info, typename Fn>
nvmlReturn_t listProcesses(Fn fn, nvmlDevice_t device, std::vector<ProcessReading> *out,
                           unsigned *tooMany)
{
    unsigned count = 0;
    nvmlReturn_t rc = fn(device, &count, nullptr);
    std::vector<Info> infos;
    for (int attempt = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 4; ++attempt) {
        if (count > kMaxNvmlProcesses) {
            *tooMany = count;
            return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        infos.assign(std::size_t(count) + 8, Info{});
        count = unsigned(infos.size());
        rc = fn(device, &count, infos.data());
    }
    if (rc != NVML_SUCCESS)
        return rc;
    out->clear();
    for (unsigned i = 0; i < count && i < infos.size(); ++i) {
        ProcessReading p;
        p.pid = infos[i].pid;
        if (infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE_ULL)
            p.usedBytes = infos[i].usedGpuMemory;
        out->push_back(p);
    }
    return NVML_SUCCESS;
}

} // namespace

NvmlSampler::NvmlSampler() : m_files(NvmlLibrary::candidateFiles()) {}

NvmlSampler::NvmlSampler(const QStringList &libraryFiles) : m_files(libraryFiles) {}

NvmlSampler::~NvmlSampler()
{
    if (m_initialised)
        m_library.api().shutdown();
}

ProbeError NvmlSampler::nvmlFailure(const char *call, nvmlReturn_t rc) const
{
    return ProbeError::make(QStringLiteral("nvml_error"),
                            QStringLiteral("%1 failed: %2 (NVML error %3)")
                                .arg(QString::fromLatin1(call), m_library.errorText(rc))
                                .arg(rc),
                            ExitFailure, rc);
}

ProbeError NvmlSampler::open()
{
    if (m_opened)
        return m_openError;
    m_opened = true;

    switch (m_library.load(m_files)) {
    case NvmlLibrary::Status::NotFound:
        m_openError = ProbeError::make(
            QStringLiteral("nvml_not_found"),
            QStringLiteral("No NVIDIA driver: %1").arg(m_library.errorString()), ExitOk);
        return m_openError;
    case NvmlLibrary::Status::SymbolMissing:
        m_openError =
            ProbeError::make(QStringLiteral("symbol_missing"), m_library.errorString(), ExitOk);
        return m_openError;
    case NvmlLibrary::Status::NotLoaded:
    case NvmlLibrary::Status::Loaded:
        break;
    }

    const NvmlLibrary::Api &api = m_library.api();
    // nvmlInit_v2 on a thread of its own, so that a driver that never answers (the
    // bad-input review's F8) is reported instead of hanging the probe. The thread
    // holds only what it captured by value; if it never returns it is left behind.
    auto answer = std::make_shared<std::promise<nvmlReturn_t>>();
    std::future<nvmlReturn_t> done = answer->get_future();
    std::thread([init = api.init, answer] { answer->set_value(init()); }).detach();
    if (done.wait_for(std::chrono::milliseconds(m_initTimeoutMs)) != std::future_status::ready) {
        m_library.keepLoaded(); // never unmap code a thread is still running
        m_openError = ProbeError::make(
            QStringLiteral("nvml_timeout"),
            QStringLiteral("NVML did not answer in %1 s: nvmlInit_v2 (%2) is still running; the "
                           "driver or a GPU may be hung (nvidia-smi would wait too)")
                .arg(QString::number(m_initTimeoutMs / 1000.0, 'g', 6), m_library.fileName()),
            ExitFailure);
        return m_openError;
    }
    const nvmlReturn_t rc = done.get();
    if (rc == NVML_ERROR_DRIVER_NOT_LOADED) {
        m_openError = ProbeError::make(
            QStringLiteral("no_driver"),
            QStringLiteral("NVML is installed but the NVIDIA kernel driver is not loaded: %1")
                .arg(m_library.errorText(rc)),
            ExitOk, rc);
        return m_openError;
    }
    if (rc != NVML_SUCCESS) {
        m_openError = ProbeError::make(QStringLiteral("nvml_init_failed"),
                                       QStringLiteral("nvmlInit_v2 failed: %1 (NVML error %2)")
                                           .arg(m_library.errorText(rc))
                                           .arg(rc),
                                       ExitOk, rc);
        return m_openError;
    }
    m_initialised = true;

    TextBuffer<NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE> version;
    const nvmlReturn_t vrc =
        api.systemGetDriverVersion(version.data, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
    if (vrc != NVML_SUCCESS) {
        m_openError = nvmlFailure("nvmlSystemGetDriverVersion", vrc);
        return m_openError;
    }
    m_driverVersion = version.text();
    return m_openError;
}

unsigned NvmlSampler::deviceCount(ProbeError *error)
{
    *error = open();
    if (error->isError())
        return 0;
    unsigned count = 0;
    const nvmlReturn_t rc = m_library.api().deviceGetCount(&count);
    if (rc != NVML_SUCCESS) {
        *error = nvmlFailure("nvmlDeviceGetCount_v2", rc);
        return 0;
    }
    return count;
}

QString NvmlSampler::memoryApi() const
{
    return m_useMemoryV2 && m_library.api().deviceGetMemoryInfoV2 ? QStringLiteral("v2")
                                                                  : QStringLiteral("v1");
}

nvmlReturn_t NvmlSampler::readMemory(nvmlDevice_t device, GpuReading *out)
{
    const NvmlLibrary::Api &api = m_library.api();
    if (m_useMemoryV2 && api.deviceGetMemoryInfoV2) {
        nvmlMemory_v2_t memory{};
        memory.version = nvmlMemory_v2;
        const nvmlReturn_t rc = api.deviceGetMemoryInfoV2(device, &memory);
        if (rc == NVML_SUCCESS) {
            out->totalBytes = memory.total;
            out->reservedBytes = memory.reserved;
            out->freeBytes = memory.free;
            out->usedBytes = memory.used;
            return rc;
        }
        if (rc != NVML_ERROR_FUNCTION_NOT_FOUND && rc != NVML_ERROR_NOT_SUPPORTED)
            return rc;
        m_useMemoryV2 = false;
    }
    if (!api.deviceGetMemoryInfo)
        return NVML_ERROR_FUNCTION_NOT_FOUND;
    nvmlMemory_t memory{};
    const nvmlReturn_t rc = api.deviceGetMemoryInfo(device, &memory);
    if (rc == NVML_SUCCESS) {
        out->totalBytes = memory.total;
        out->reservedBytes.reset();
        out->freeBytes = memory.free;
        out->usedBytes = memory.used;
    }
    return rc;
}

void NvmlSampler::readProcesses(nvmlDevice_t device, GpuReading *out)
{
    const NvmlLibrary::Api &api = m_library.api();
    std::vector<ProcessReading> list;
    unsigned tooMany = 0;
    nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (api.deviceGetComputeProcessesV3)
        rc = listProcesses<nvmlProcessInfo_t>(api.deviceGetComputeProcessesV3, device, &list,
                                              &tooMany);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND && api.deviceGetComputeProcessesV2)
        rc = listProcesses<nvmlProcessInfo_t>(api.deviceGetComputeProcessesV2, device, &list,
                                              &tooMany);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND && api.deviceGetComputeProcessesV1)
        rc = listProcesses<nvmlProcessInfo_v1_t>(api.deviceGetComputeProcessesV1, device, &list,
                                                 &tooMany);
    if (rc == NVML_SUCCESS) {
        out->processes = std::move(list);
        out->processesError.clear();
    } else if (tooMany > 0) {
        out->processes.reset();
        out->processesError =
            QStringLiteral("nvmlDeviceGetComputeRunningProcesses reports %1 processes, more than "
                           "the %2 the probe reads")
                .arg(tooMany)
                .arg(kMaxNvmlProcesses);
    } else {
        out->processes.reset();
        out->processesError = QStringLiteral("nvmlDeviceGetComputeRunningProcesses failed: %1")
                                  .arg(m_library.errorText(rc));
    }
}

ProbeError NvmlSampler::readDevice(unsigned index, GpuReading *out)
{
    ProbeError error = open();
    if (error.isError())
        return error;
    const NvmlLibrary::Api &api = m_library.api();
    *out = GpuReading{};
    out->index = index;

    nvmlDevice_t device = nullptr;
    nvmlReturn_t rc = api.deviceGetHandleByIndex(index, &device);
    if (rc != NVML_SUCCESS)
        return nvmlFailure("nvmlDeviceGetHandleByIndex_v2", rc);

    TextBuffer<NVML_DEVICE_NAME_V2_BUFFER_SIZE> name;
    if ((rc = api.deviceGetName(device, name.data, NVML_DEVICE_NAME_V2_BUFFER_SIZE)) !=
        NVML_SUCCESS)
        return nvmlFailure("nvmlDeviceGetName", rc);
    out->name = name.text();

    TextBuffer<NVML_DEVICE_UUID_V2_BUFFER_SIZE> uuid;
    if ((rc = api.deviceGetUuid(device, uuid.data, NVML_DEVICE_UUID_V2_BUFFER_SIZE)) !=
        NVML_SUCCESS)
        return nvmlFailure("nvmlDeviceGetUUID", rc);
    out->uuid = uuid.text();

    nvmlPciInfo_t pci{};
    rc = NVML_ERROR_FUNCTION_NOT_FOUND;
    if (api.deviceGetPciInfoV3)
        rc = api.deviceGetPciInfoV3(device, &pci);
    if (rc == NVML_ERROR_FUNCTION_NOT_FOUND && api.deviceGetPciInfoV2)
        rc = api.deviceGetPciInfoV2(device, &pci);
    if (rc == NVML_SUCCESS) {
        out->pciBusId = fromFixed(pci.busId, sizeof pci.busId);
    } else if (rc == NVML_ERROR_FUNCTION_NOT_FOUND && api.deviceGetPciInfoV1) {
        // The legacy struct starts with a 16-char bus id and is smaller.
        pci = nvmlPciInfo_t{};
        rc = api.deviceGetPciInfoV1(device, &pci);
        if (rc == NVML_SUCCESS)
            out->pciBusId = fromFixed(pci.busIdLegacy, sizeof pci.busIdLegacy);
    }
    if (rc != NVML_SUCCESS)
        return nvmlFailure("nvmlDeviceGetPciInfo", rc);

    if ((rc = readMemory(device, out)) != NVML_SUCCESS) {
        return nvmlFailure(memoryApi() == QLatin1String("v2") ? "nvmlDeviceGetMemoryInfo_v2"
                                                              : "nvmlDeviceGetMemoryInfo",
                           rc);
    }
    // No GPU holds 2^63 bytes, and no part of its memory exceeds the whole: such a
    // reading is a driver fault, refused rather than printed as a negative size.
    const quint64 maxBytes = quint64(std::numeric_limits<qint64>::max());
    if (out->totalBytes > maxBytes || out->usedBytes > out->totalBytes ||
        out->freeBytes > out->totalBytes || out->reservedBytes.value_or(0) > out->totalBytes) {
        return ProbeError::make(
            QStringLiteral("nvml_bad_reading"),
            QStringLiteral("NVML reported an impossible memory reading for GPU %1: total %2, "
                           "used %3, free %4, reserved %5 bytes")
                .arg(index)
                .arg(out->totalBytes)
                .arg(out->usedBytes)
                .arg(out->freeBytes)
                .arg(out->reservedBytes.value_or(0)),
            ExitFailure);
    }
    readProcesses(device, out);
    return {};
}

NvmlSample NvmlSampler::sample()
{
    NvmlSample s;
    s.timestampMs = nowMs();
    const unsigned count = deviceCount(&s.error);
    s.driverVersion = m_driverVersion;
    if (s.error.isError())
        return s;
    if (count == 0) {
        s.error =
            ProbeError::make(QStringLiteral("no_gpus"),
                             QStringLiteral("NVML sees no NVIDIA GPU on this machine"), ExitOk);
        return s;
    }
    if (count > kMaxNvmlDevices) {
        s.error = ProbeError::make(QStringLiteral("nvml_bad_reading"),
                                   QStringLiteral("nvmlDeviceGetCount_v2 reports %1 GPUs, more "
                                                  "than the %2 the probe reads")
                                       .arg(count)
                                       .arg(kMaxNvmlDevices),
                                   ExitFailure);
        return s;
    }

    // A fallback to v1 on a later device rereads the earlier ones with v1 too.
    for (int pass = 0; pass < 2; ++pass) {
        const bool startedWithV2 = m_useMemoryV2;
        s.gpus.assign(count, GpuReading{});
        for (unsigned i = 0; i < count; ++i) {
            const ProbeError error = readDevice(i, &s.gpus[i]);
            if (error.isError()) {
                s.gpus.clear();
                s.error = error;
                return s;
            }
        }
        if (startedWithV2 == m_useMemoryV2)
            break;
    }
    s.memoryApi = memoryApi();
    return s;
}

QJsonObject gpuToJson(const GpuReading &gpu)
{
    QJsonObject o{{QString(probeschema::index), qint64(gpu.index)},
                  {QString(probeschema::name), gpu.name},
                  {QString(probeschema::uuid), gpu.uuid},
                  {QString(probeschema::pciBusId), gpu.pciBusId},
                  {QString(probeschema::totalBytes), qint64(gpu.totalBytes)},
                  {QString(probeschema::reservedBytes), gpu.reservedBytes
                                                            ? QJsonValue(qint64(*gpu.reservedBytes))
                                                            : QJsonValue(QJsonValue::Null)},
                  {QString(probeschema::usedBytes), qint64(gpu.usedBytes)},
                  {QString(probeschema::freeBytes), qint64(gpu.freeBytes)}};
    if (gpu.processes) {
        QJsonArray list;
        for (const ProcessReading &p : *gpu.processes) {
            list.append(QJsonObject{
                {QString(probeschema::pid), qint64(p.pid)},
                {QString(probeschema::usedBytes),
                 p.usedBytes ? QJsonValue(qint64(*p.usedBytes)) : QJsonValue(QJsonValue::Null)}});
        }
        o.insert(QString(probeschema::processes), list);
    } else {
        o.insert(QString(probeschema::processes), QJsonValue(QJsonValue::Null));
        o.insert(QString(probeschema::processesError), gpu.processesError);
    }
    return o;
}

QJsonObject sampleToJson(const NvmlSample &sample)
{
    QJsonObject doc{{QString(probeschema::schema), QString(probeschema::id)},
                    {QString(probeschema::source), QStringLiteral("nvml")},
                    {QString(probeschema::timestampMs), sample.timestampMs}};
    if (!sample.driverVersion.isEmpty())
        doc.insert(QString(probeschema::driverVersion), sample.driverVersion);
    if (sample.error.isError()) {
        addError(doc, sample.error);
        doc.insert(QString(probeschema::gpus), QJsonArray{});
        return doc;
    }
    doc.insert(QString(probeschema::memoryApi), sample.memoryApi);
    QJsonArray gpus;
    for (const GpuReading &g : sample.gpus)
        gpus.append(gpuToJson(g));
    doc.insert(QString(probeschema::gpus), gpus);
    return doc;
}

} // namespace shardscope::probe
