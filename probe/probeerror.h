#pragma once

#include <QJsonObject>
#include <QString>

namespace shardscope::probe {

/// The "schema" value of every reading document the probe prints.
inline constexpr char16_t probeSchema[] = u"shardscope-probe/1";

/// Process exit codes (docs/probe.md, "Exit codes").
enum ExitCode : int
{
    ExitOk = 0,      ///< readings printed, or nothing to read (no driver, no GPU)
    ExitFailure = 1, ///< a call failed mid-way; the caller should stop and show the error
    ExitUsage = 2,   ///< bad command line or unreadable input file
};

/// Why a document carries an `error` instead of readings. An empty `code`
/// means no error.
struct ProbeError
{
    QString code;          ///< "error_code" in the JSON, e.g. "nvml_not_found"
    QString message;       ///< "error": one sentence for a person
    int nvmlReturn = 0;    ///< the nvmlReturn_t that caused it, 0 when none did
    int exitCode = ExitOk; ///< the exit code this condition maps to

    bool isError() const { return !code.isEmpty(); }

    /// An error with the given code, message and exit code.
    static ProbeError make(const QString &code, const QString &message, int exitCode,
                           int nvmlReturn = 0)
    {
        return ProbeError{code, message, nvmlReturn, exitCode};
    }
};

/// Milliseconds since the Unix epoch, UTC (the "timestamp_ms" field).
qint64 nowMs();

/// A document holding only an error: {"schema", "source", "timestamp_ms",
/// "error", "error_code", "nvml_return" (when non-zero), "gpus": []}.
/// `source` is "nvml", "prometheus" or "calibration".
QJsonObject errorDocument(const QString &source, const ProbeError &error);

/// Adds "error", "error_code" and (when non-zero) "nvml_return" to `doc`.
void addError(QJsonObject &doc, const ProbeError &error);

} // namespace shardscope::probe
