#pragma once

#include "probeerror.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <vector>

namespace shardscope::probe {

/// The "schema" value of a calibration document.
inline constexpr char16_t calibrationSchema[] = u"shardscope-probe-calibration/1";

/// The component keys of a scenario's "bytes" object, in allocation order
/// (the same keys as each "groups" entry of `shardscope report --json`).
inline constexpr const char *calibrationComponentKeys[] = {
    "weights", "gradients", "master_weights", "optimizer_states", "activations", "buffers"};

/// The most bytes --calibrate reads from SCENARIO.json: 16 MiB (16777216 bytes),
/// far above any `shardscope report --json` document.
inline constexpr qint64 maxScenarioBytes = 16LL << 20;

/// One allocation the calibration makes: a component name and its size in bytes.
struct CalibrationComponent
{
    QString name;
    quint64 bytes = 0;
};

/// What to allocate for one rank, parsed from SCENARIO.json.
struct CalibrationPlan
{
    int rank = 0;
    QString groupLabel; ///< the report group's "label" when read from a report
    std::vector<CalibrationComponent> components; ///< all six keys, in allocation order

    /// Sum of the component sizes, bytes; saturates at 2^64 - 1 instead of
    /// wrapping (parseCalibrationScenario() only makes plans whose sum fits in
    /// a qint64).
    quint64 totalBytes() const;
};

/// Parses SCENARIO.json for `rank` (-1: the file's "rank", else 0). Accepts
/// {"rank": R, "bytes": {<component>: bytes, ...}} or a whole report
/// {"groups": [{"first_rank", "gpus", "bytes", ...}]}, picking the group with
/// first_rank <= rank < first_rank + gpus. Missing components count 0 bytes.
/// Errors: scenario_invalid (exit 2) for malformed JSON, unknown component
/// keys, sizes that are not non-negative integers, sizes whose sum exceeds
/// 2^63 - 1 bytes (the message names the component where it does), a group
/// whose first_rank + gpus goes past rank 2^31 - 1 (message names the group),
/// a report without groups, a rank no group holds, a --rank that contradicts
/// the file's, or a plan of 0 bytes.
ProbeError parseCalibrationScenario(const QByteArray &json, int rank, CalibrationPlan *out);

/// Reads SCENARIO.json at `path` into *out, taking at most maxScenarioBytes
/// (16 MiB). The file is opened with O_NONBLOCK and checked with fstat() before
/// anything is read, so a FIFO never blocks and a FIFO, a device (/dev/zero), a
/// socket or a directory is refused without reading. Errors: scenario_invalid
/// (exit 2), the message naming the file: it cannot be opened, it is not a
/// regular file ("X is a FIFO, not a regular file"), it is larger than the
/// limit ("X is N bytes, more than the 16777216-byte (16 MiB) limit"; also
/// when it grows past the limit while being read), or a read fails. `rawPath`, when
/// not empty, is the file name as the command line gave its bytes, opened instead of
/// `path` (which names it in messages): a name that is not valid UTF-8 does not
/// survive the trip through QString, each bad byte becoming U+FFFD.
ProbeError readCalibrationScenario(const QString &path, QByteArray *out,
                                   const QByteArray &rawPath = {});

/// Empty when `neededBytes + marginBytes` fit in `freeBytes`; else the refusal
/// "needs N bytes (S for the scenario + M margin), <where> has F bytes free".
QString calibrationRefusal(quint64 neededBytes, quint64 freeBytes, quint64 marginBytes,
                           const QString &where);

/// True when two PCI bus ids name the same function, comparing
/// domain:bus:device.function as numbers so NVML's "00000000:18:00.0" equals
/// CUDA's "0000:18:00.0". False when either does not parse.
bool samePciBusId(const QString &a, const QString &b);

/// Options of `--calibrate`.
struct CalibrationOptions
{
    QString scenarioPath;
    QByteArray scenarioFile;            ///< the path's bytes as given, if not valid UTF-8
    int rank = -1;                      ///< --rank, -1 when not given
    unsigned device = 0;                ///< --device: NVML index of the GPU to use
    quint64 marginBytes = 512ULL << 20; ///< kept free beyond the plan (context, rounding)
};

/// True when this build has the CUDA runtime (SHARDSCOPE_PROBE_HAVE_CUDA).
bool calibrationAvailable();

/// Runs a calibration (docs/probe.md, "Calibration"): NVML reading before any
/// CUDA call, the context baseline after cudaFree(0), then one cudaMalloc per
/// component with a reading after each. Refuses (calibration_refused, exit 1)
/// before allocating when the plan plus margin exceeds NVML's or the CUDA
/// runtime's free memory. Sets *exitCode. Without CUDA at build time returns
/// calibration_not_built (exit 1).
QJsonObject runCalibration(const CalibrationOptions &options, int *exitCode);

/// A calibration error document: {"schema", "source":"calibration",
/// "timestamp_ms", "error", "error_code"}.
QJsonObject calibrationErrorDocument(const ProbeError &error);

} // namespace shardscope::probe
