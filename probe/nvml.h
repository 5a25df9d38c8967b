#pragma once

#include "nvmlapi.h"

#include <QString>
#include <QStringList>

namespace shardscope::probe {

/// NVML loaded at run time with dlopen, so the probe needs no driver to build
/// or to start. Holds the resolved entry points; optional (versioned) ones are
/// nullptr where the library lacks them. Creates no CUDA context: NVML talks to
/// the kernel driver directly.
class NvmlLibrary
{
public:
    /// Where load() stands.
    enum class Status
    {
        NotLoaded,     ///< load() not called yet
        Loaded,        ///< every required symbol resolved
        NotFound,      ///< no candidate file could be opened (no driver installed)
        SymbolMissing, ///< a file opened but lacks a required symbol (see missingSymbol())
    };

    /// The entry points. Required ones are never nullptr once Loaded; the
    /// versioned variants below are tried first and may be nullptr.
    struct Api
    {
        nvml::InitFn init = nullptr;         ///< nvmlInit_v2
        nvml::ShutdownFn shutdown = nullptr; ///< nvmlShutdown
        nvml::ErrorStringFn errorString = nullptr;
        nvml::SystemGetDriverVersionFn systemGetDriverVersion = nullptr;
        nvml::DeviceGetCountFn deviceGetCount = nullptr;                 ///< nvmlDeviceGetCount_v2
        nvml::DeviceGetHandleByIndexFn deviceGetHandleByIndex = nullptr; ///< ..._v2
        nvml::DeviceGetStringFn deviceGetName = nullptr;
        nvml::DeviceGetStringFn deviceGetUuid = nullptr;
        nvml::DeviceGetPciInfoFn deviceGetPciInfoV3 = nullptr;         ///< optional
        nvml::DeviceGetPciInfoFn deviceGetPciInfoV2 = nullptr;         ///< optional
        nvml::DeviceGetPciInfoFn deviceGetPciInfoV1 = nullptr;         ///< optional (legacy layout)
        nvml::DeviceGetMemoryInfoV2Fn deviceGetMemoryInfoV2 = nullptr; ///< optional
        nvml::DeviceGetMemoryInfoFn deviceGetMemoryInfo = nullptr;     ///< optional (v1)
        nvml::DeviceGetProcessesFn deviceGetComputeProcessesV3 = nullptr;   ///< optional
        nvml::DeviceGetProcessesFn deviceGetComputeProcessesV2 = nullptr;   ///< optional
        nvml::DeviceGetProcessesV1Fn deviceGetComputeProcessesV1 = nullptr; ///< optional
    };

    NvmlLibrary() = default;
    /// Closes the library (the caller shuts NVML down first).
    ~NvmlLibrary();
    NvmlLibrary(const NvmlLibrary &) = delete;
    NvmlLibrary &operator=(const NvmlLibrary &) = delete;

    /// The files load() tries, in order: only $SHARDSCOPE_NVML_LIBRARY when that
    /// variable is set and non-empty, else libnvidia-ml.so.1 then libnvidia-ml.so
    /// (found through the dynamic loader's search path).
    static QStringList candidateFiles();

    /// Opens the first candidate file that dlopen accepts and resolves the
    /// symbols. At least one of each group must exist: the PCI info call
    /// (_v3, _v2, legacy), the memory call (_v2, v1) and the compute process
    /// list (_v3, _v2, legacy). Calling it again returns the first result.
    Status load();
    /// As load(), trying `files` instead of candidateFiles().
    Status load(const QStringList &files);

    /// The result of the last load() (NotLoaded before the first).
    Status status() const { return m_status; }
    /// The file that was opened (Loaded, SymbolMissing) or the last one tried.
    QString fileName() const { return m_fileName; }
    /// A sentence saying why loading failed (dlerror text, missing symbol).
    QString errorString() const { return m_error; }
    /// The first required symbol not found (SymbolMissing only).
    QString missingSymbol() const { return m_missingSymbol; }
    /// The resolved entry points (all nullptr unless Loaded).
    const Api &api() const { return m_api; }

    /// Leaves the library loaded for the rest of the process: the destructor no
    /// longer closes it (for a thread still blocked inside it).
    void keepLoaded() { m_handle = nullptr; }

    /// nvmlErrorString(code) when loaded, else "NVML error <code>".
    QString errorText(nvml::nvmlReturn_t code) const;

private:
    void *resolve(const char *name) const;
    bool resolveAll();

    void *m_handle = nullptr;
    Status m_status = Status::NotLoaded;
    QString m_fileName;
    QString m_error;
    QString m_missingSymbol;
    Api m_api;
};

} // namespace shardscope::probe
