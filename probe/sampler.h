#pragma once

#include "nvml.h"
#include "probeerror.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace shardscope::probe {

/// The most GPUs one sample reads. nvmlDeviceGetCount_v2 answering more (a
/// faulty or hostile library, e.g. 4294967295) is refused as nvml_bad_reading
/// before anything is allocated; far above any one machine's GPU count.
inline constexpr unsigned kMaxNvmlDevices = 4096;

/// The most compute processes read per GPU (about 32 MiB of NVML structs). A
/// larger count leaves that GPU's process list null with a processes_error.
inline constexpr unsigned kMaxNvmlProcesses = 1U << 20;

/// How long nvmlInit_v2 may take by default, ms. It normally answers in well under a
/// second (a few seconds on a large machine with persistence mode off); a driver or GPU
/// in a bad state can block it forever, which the probe reports as nvml_timeout.
inline constexpr int kNvmlInitTimeoutMs = 10000;

/// One process holding memory on a GPU, as NVML's compute process list gives it.
struct ProcessReading
{
    quint32 pid = 0;
    std::optional<quint64> usedBytes; ///< bytes; nullopt where NVML cannot tell
};

/// One GPU's memory as NVML reports it, all sizes in bytes.
struct GpuReading
{
    unsigned index = 0; ///< NVML index (PCI bus order, not CUDA's default order)
    QString name;       ///< e.g. "NVIDIA H100 80GB HBM3"
    QString uuid;       ///< e.g. "GPU-0f6a..."
    QString pciBusId;   ///< e.g. "00000000:18:00.0"
    quint64 totalBytes = 0;
    quint64 freeBytes = 0;
    quint64 usedBytes = 0;                ///< v2: allocated; v1: allocated plus reserved
    std::optional<quint64> reservedBytes; ///< v2 only: held by driver and firmware
    /// Compute processes; nullopt when NVML refused the list (processesError says why).
    std::optional<std::vector<ProcessReading>> processes;
    QString processesError;
};

/// One reading of every GPU (or the error that prevented it).
struct NvmlSample
{
    qint64 timestampMs = 0; ///< ms since the Unix epoch when the reading started
    QString driverVersion;  ///< nvmlSystemGetDriverVersion, e.g. "550.54.15"
    QString memoryApi;      ///< "v2" (nvmlDeviceGetMemoryInfo_v2) or "v1"
    std::vector<GpuReading> gpus;
    ProbeError error; ///< set when the reading failed or there is nothing to read
};

/// Reads GPU memory through NVML. Loads the library and calls nvmlInit_v2 on
/// first use, keeps NVML initialised across samples (for --watch) and calls
/// nvmlShutdown when destroyed. Memory is read with nvmlDeviceGetMemoryInfo_v2
/// (version word nvml::nvmlMemory_v2) and falls back to the v1 call for every
/// device once the v2 symbol is missing or answers FUNCTION_NOT_FOUND or
/// NOT_SUPPORTED, so one document never mixes the two meanings of "used".
class NvmlSampler
{
public:
    /// Uses NvmlLibrary::candidateFiles() (honours $SHARDSCOPE_NVML_LIBRARY).
    NvmlSampler();
    /// Tries exactly `libraryFiles`.
    explicit NvmlSampler(const QStringList &libraryFiles);
    /// Calls nvmlShutdown if nvmlInit_v2 succeeded.
    ~NvmlSampler();
    NvmlSampler(const NvmlSampler &) = delete;
    NvmlSampler &operator=(const NvmlSampler &) = delete;

    /// Loads NVML, initialises it and reads the driver version, once; later
    /// calls return the first result. Errors: nvml_not_found, symbol_missing,
    /// no_driver, nvml_init_failed (exit 0), nvml_error (exit 1) and
    /// nvml_timeout (exit 1) when nvmlInit_v2 has not returned within the init
    /// timeout: it runs on a thread of its own, left blocked in the library (which
    /// then stays loaded and is never shut down) while the probe reports and exits.
    ProbeError open();

    /// The most `ms` nvmlInit_v2 may take (default kNvmlInitTimeoutMs); before open().
    void setInitTimeout(int ms) { m_initTimeoutMs = ms; }

    /// Number of GPUs NVML sees (nvmlDeviceGetCount_v2); sets *error on failure.
    unsigned deviceCount(ProbeError *error);

    /// Reads every GPU. With no GPU, `error` is no_gpus (exit 0); a failing
    /// NVML call after initialisation gives nvml_error (exit 1).
    NvmlSample sample();

    /// Reads the GPU with NVML index `index` into *out (for calibration).
    ProbeError readDevice(unsigned index, GpuReading *out);

    /// "v2" or "v1": the memory call the last reading used.
    QString memoryApi() const;
    /// nvmlSystemGetDriverVersion after a successful open(), else empty.
    QString driverVersion() const { return m_driverVersion; }
    /// The loaded library (its file name, status and error text).
    const NvmlLibrary &library() const { return m_library; }

private:
    ProbeError nvmlFailure(const char *call, nvml::nvmlReturn_t rc) const;
    nvml::nvmlReturn_t readMemory(nvml::nvmlDevice_t device, GpuReading *out);
    void readProcesses(nvml::nvmlDevice_t device, GpuReading *out);

    QStringList m_files;
    NvmlLibrary m_library;
    bool m_opened = false;
    bool m_initialised = false;
    int m_initTimeoutMs = kNvmlInitTimeoutMs;
    ProbeError m_openError;
    QString m_driverVersion;
    bool m_useMemoryV2 = true;
};

/// The reading document (docs/probe.md): schema, source "nvml", timestamp_ms,
/// driver_version, nvml_memory_api and gpus with sizes in bytes; or, when
/// `sample.error` is set, the error document with an empty gpus list.
QJsonObject sampleToJson(const NvmlSample &sample);

/// One GPU object of the "gpus" list (sizes in bytes, reserved_bytes null
/// under the v1 call, processes null when NVML refused the list).
QJsonObject gpuToJson(const GpuReading &gpu);

} // namespace shardscope::probe
