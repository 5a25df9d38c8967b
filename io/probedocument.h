#pragma once

// The probe's reading document (`shardscope-probe/1`, docs/probe.md "Reading
// document") as the app reads it: QtCore only, so the window, tests and fuzzers
// share one parser. Its keys are probe/probeschema.h's, the list the probe writes.

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <optional>
#include <variant>
#include <vector>

namespace shardscope {

/// One compute process on a GPU, as the probe reports it.
struct ProbeProcess
{
    qint64 pid = 0;                  ///< host PID
    std::optional<qint64> usedBytes; ///< empty where NVML cannot measure it
};

/// One GPU of a probe reading (docs/probe.md, "Reading document"). Sizes in bytes.
struct ProbeGpu
{
    int index = 0;                       ///< NVML index (PCI bus order)
    QString name;                        ///< e.g. "NVIDIA H100 80GB HBM3"
    QString uuid;                        ///< e.g. "GPU-0f6a2c4e-..."
    QString pciBusId;                    ///< e.g. "00000000:18:00.0"
    qint64 totalBytes = 0;               ///< memory visible to the driver
    std::optional<qint64> reservedBytes; ///< driver/firmware reserve; empty under NVML v1
    qint64 usedBytes = 0;                ///< allocated (v1: allocated + reserved)
    qint64 freeBytes = 0;                ///< unallocated
    std::vector<ProbeProcess> processes; ///< compute processes (empty when refused)
    QString processesError;              ///< why NVML refused the process list, else empty
};

/// One reading of every GPU: a parsed `shardscope-probe/1` document without `error`.
struct ProbeSample
{
    QString source;             ///< "nvml" or "prometheus"
    qint64 timestampMs = 0;     ///< when the reading started, ms since the Unix epoch
    QString driverVersion;      ///< NVIDIA driver version (nvml), else empty
    QString memoryApi;          ///< "v2" or "v1" (nvml), else empty
    std::vector<ProbeGpu> gpus; ///< every GPU, in the probe's order (NVML index)
};

/// Parses one line the probe printed. Returns the sample, or one line for a person
/// saying what is wrong: not JSON, JSON without the `shardscope-probe/1` schema, a
/// malformed GPU entry, or the document's own `error` message (e.g. "No NVIDIA driver:
/// ..."). Every GPU entry needs an integer index and total, used and free bytes, as the
/// nvml source always prints them. Pure function: no I/O.
std::variant<ProbeSample, QString> parseProbeLine(const QByteArray &line);

} // namespace shardscope
