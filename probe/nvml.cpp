#include "nvml.h"

#include <QFile>
#include <dlfcn.h>

namespace shardscope::probe {

namespace {

template <typename Fn> Fn as(void *symbol)
{
    return reinterpret_cast<Fn>(symbol);
}

} // namespace

NvmlLibrary::~NvmlLibrary()
{
    if (m_handle)
        dlclose(m_handle);
}

QStringList NvmlLibrary::candidateFiles()
{
    const QString override = qEnvironmentVariable("SHARDSCOPE_NVML_LIBRARY");
    if (!override.isEmpty())
        return {override};
    return {QStringLiteral("libnvidia-ml.so.1"), QStringLiteral("libnvidia-ml.so")};
}

NvmlLibrary::Status NvmlLibrary::load()
{
    return load(candidateFiles());
}

NvmlLibrary::Status NvmlLibrary::load(const QStringList &files)
{
    if (m_status != Status::NotLoaded)
        return m_status;

    QStringList failures;
    for (const QString &file : files) {
        m_fileName = file;
        dlerror();
        m_handle = dlopen(QFile::encodeName(file).constData(), RTLD_NOW | RTLD_LOCAL);
        if (m_handle)
            break;
        const char *why = dlerror();
        failures << (why ? QString::fromLocal8Bit(why) : file + QStringLiteral(": cannot open"));
    }
    if (!m_handle) {
        m_status = Status::NotFound;
        m_error =
            QStringLiteral("NVML library not found (%1)").arg(failures.join(QStringLiteral("; ")));
        return m_status;
    }
    m_status = resolveAll() ? Status::Loaded : Status::SymbolMissing;
    return m_status;
}

void *NvmlLibrary::resolve(const char *name) const
{
    return dlsym(m_handle, name);
}

bool NvmlLibrary::resolveAll()
{
    Api &a = m_api;
    // Required, one symbol each.
    struct Required
    {
        const char *name;
        void **slot;
    };
    void *init = resolve("nvmlInit_v2");
    void *shutdown = resolve("nvmlShutdown");
    void *errorString = resolve("nvmlErrorString");
    void *driverVersion = resolve("nvmlSystemGetDriverVersion");
    void *count = resolve("nvmlDeviceGetCount_v2");
    void *handle = resolve("nvmlDeviceGetHandleByIndex_v2");
    void *name = resolve("nvmlDeviceGetName");
    void *uuid = resolve("nvmlDeviceGetUUID");
    const Required required[] = {
        {"nvmlInit_v2", &init},
        {"nvmlShutdown", &shutdown},
        {"nvmlErrorString", &errorString},
        {"nvmlSystemGetDriverVersion", &driverVersion},
        {"nvmlDeviceGetCount_v2", &count},
        {"nvmlDeviceGetHandleByIndex_v2", &handle},
        {"nvmlDeviceGetName", &name},
        {"nvmlDeviceGetUUID", &uuid},
    };
    for (const Required &r : required) {
        if (!*r.slot) {
            m_missingSymbol = QString::fromLatin1(r.name);
            break;
        }
    }

    a.deviceGetPciInfoV3 = as<nvml::DeviceGetPciInfoFn>(resolve("nvmlDeviceGetPciInfo_v3"));
    a.deviceGetPciInfoV2 = as<nvml::DeviceGetPciInfoFn>(resolve("nvmlDeviceGetPciInfo_v2"));
    a.deviceGetPciInfoV1 = as<nvml::DeviceGetPciInfoFn>(resolve("nvmlDeviceGetPciInfo"));
    a.deviceGetMemoryInfoV2 =
        as<nvml::DeviceGetMemoryInfoV2Fn>(resolve("nvmlDeviceGetMemoryInfo_v2"));
    a.deviceGetMemoryInfo = as<nvml::DeviceGetMemoryInfoFn>(resolve("nvmlDeviceGetMemoryInfo"));
    a.deviceGetComputeProcessesV3 =
        as<nvml::DeviceGetProcessesFn>(resolve("nvmlDeviceGetComputeRunningProcesses_v3"));
    a.deviceGetComputeProcessesV2 =
        as<nvml::DeviceGetProcessesFn>(resolve("nvmlDeviceGetComputeRunningProcesses_v2"));
    a.deviceGetComputeProcessesV1 =
        as<nvml::DeviceGetProcessesV1Fn>(resolve("nvmlDeviceGetComputeRunningProcesses"));

    if (m_missingSymbol.isEmpty() && !a.deviceGetPciInfoV3 && !a.deviceGetPciInfoV2 &&
        !a.deviceGetPciInfoV1)
        m_missingSymbol = QStringLiteral("nvmlDeviceGetPciInfo_v3");
    if (m_missingSymbol.isEmpty() && !a.deviceGetMemoryInfoV2 && !a.deviceGetMemoryInfo)
        m_missingSymbol = QStringLiteral("nvmlDeviceGetMemoryInfo");
    if (m_missingSymbol.isEmpty() && !a.deviceGetComputeProcessesV3 &&
        !a.deviceGetComputeProcessesV2 && !a.deviceGetComputeProcessesV1)
        m_missingSymbol = QStringLiteral("nvmlDeviceGetComputeRunningProcesses_v3");

    if (!m_missingSymbol.isEmpty()) {
        m_error = QStringLiteral("%1 lacks the NVML symbol %2 (driver too old or not NVML)")
                      .arg(m_fileName, m_missingSymbol);
        m_api = Api{};
        return false;
    }

    a.init = as<nvml::InitFn>(init);
    a.shutdown = as<nvml::ShutdownFn>(shutdown);
    a.errorString = as<nvml::ErrorStringFn>(errorString);
    a.systemGetDriverVersion = as<nvml::SystemGetDriverVersionFn>(driverVersion);
    a.deviceGetCount = as<nvml::DeviceGetCountFn>(count);
    a.deviceGetHandleByIndex = as<nvml::DeviceGetHandleByIndexFn>(handle);
    a.deviceGetName = as<nvml::DeviceGetStringFn>(name);
    a.deviceGetUuid = as<nvml::DeviceGetStringFn>(uuid);
    return true;
}

QString NvmlLibrary::errorText(nvml::nvmlReturn_t code) const
{
    if (m_status == Status::Loaded && m_api.errorString) {
        if (const char *text = m_api.errorString(code))
            return QString::fromUtf8(text);
    }
    return QStringLiteral("NVML error %1").arg(code);
}

} // namespace shardscope::probe
