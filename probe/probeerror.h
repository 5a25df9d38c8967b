#pragma once

#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace shardscope::probe {

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

/// Adds "error", "error_code" and (when non-zero) "nvml_return" to `doc`. The
/// message is printed as printableText() gives it: credentials redacted,
/// control characters escaped, so it stays one line.
void addError(QJsonObject &doc, const ProbeError &error);

/// `text` with every control character written as a visible escape, so echoed
/// text (file names, arguments, a server's error message) stays on one line and
/// cannot drive a terminal: LF, CR and TAB become "\n", "\r", "\t"; other C0
/// controls and DEL become "\xNN" (ESC is "\x1b"); C1 controls (U+0080..U+009F)
/// the Unicode line and paragraph separators and the bidirectional controls (U+061C,
/// U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) become "\uNNNN". Everything else,
/// backslashes included, is kept as it is. Never fails.
QString escapeControlCharacters(const QString &text);

/// One URL as typed, possibly malformed, redacted without a parser: everything
/// between "://" and the last '@' is user information and becomes "***" (a plain
/// user name before the first ':' is kept: "user:***@"), every query value
/// becomes "***" ("?token=***", a bare "?TOKEN" is "?***") and so does the
/// fragment. So a password holding '/', '?', '#' or '@', a bad port or host, or
/// a token in the user name or query string is never printed. Never fails.
QString redactUrlText(const QString &url);

/// `text` with every "scheme://..." in it (up to white space, a quote or an
/// angle bracket) redacted as redactUrlText() does, and a bare
/// "user:password@host" at the start or after a space, quote or bracket given
/// as "user:***@host". Idempotent; text without such a URL is returned
/// unchanged. Never fails.
QString redactCredentials(const QString &text);

/// `url` as the probe prints it, redacted through QUrl's own parse: the
/// password, if any, is "***" (the user name is kept); a user name without a
/// password (a token) is "***"; every query value and a fragment are "***". The
/// result then goes through redactUrlText(), which catches credentials a tolerant
/// parse put elsewhere (in the path); an invalid URL gets redactUrlText() alone.
/// Never fails.
QString redactedUrl(const QUrl &url);

/// What the probe prints for a message: redactCredentials(), then
/// escapeControlCharacters(). Never fails.
QString printableText(const QString &text);

} // namespace shardscope::probe
