#pragma once

#include "probedocument.h"

#include <QByteArray>
#include <QMetaType>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <optional>
#include <variant>
#include <vector>

class QTimer;

namespace shardscope {

/// Runs `shardscope-probe --watch MS` as a separate process and turns its output into
/// sample() and failed() signals, so that no driver fault can take the window down.
///
/// Every failure stops the client (the process is killed and reaped before failed() is
/// emitted, so processState() is NotRunning in any slot connected to it) and is reported
/// as one line: the probe is missing ("probe not found: ..."), cannot start, prints
/// nothing for timeoutMs() (hang: "... sent no reading within 5 s; stopped it"), crashes
/// (the signal is named), exits (the code and its last stderr line), prints garbage, or
/// prints an error document (its message). There is no automatic retry: the faults the
/// probe reports (no driver, no GPU, a missing binary) do not go away by themselves, and
/// retrying would only repeat the message; start() tries again.
///
/// Deadlines: the first line must come within timeoutMs(), each later one within
/// intervalMs() + timeoutMs(). When several lines arrive at once only the newest sample
/// is emitted.
class ProbeClient : public QObject
{
    Q_OBJECT
public:
    /// Default sampling interval, ms.
    static constexpr int defaultIntervalMs = 1000;
    /// Default time to wait for a line beyond the interval, ms.
    static constexpr int defaultTimeoutMs = 5000;
    /// Longest line accepted before the output is called garbage, bytes.
    static constexpr qsizetype maxLineBytes = 4 * 1024 * 1024;

    /// An idle client; nothing runs until start().
    explicit ProbeClient(QObject *parent = nullptr);
    /// Stops the probe (kills and reaps it) if it runs.
    ~ProbeClient() override;

    /// Where the probe is looked for when no program is set, in order:
    /// `shardscope-probe` next to the application binary, `../probe/shardscope-probe`
    /// from it (the build tree: app/ and probe/), then PATH.
    static QStringList candidatePrograms();
    /// The first existing candidate, or an empty string.
    static QString findDefaultProgram();

    /// Sets the probe executable; empty (the default) searches candidatePrograms().
    void setProgram(const QString &path);
    /// The configured program (empty: search).
    QString program() const { return m_program; }
    /// The program started last (or to be started), for display: a path or the bare name.
    QString programDisplayName() const;

    /// Sets the sampling interval passed as `--watch MS` (at least 1).
    void setIntervalMs(int ms);
    /// The sampling interval, ms.
    int intervalMs() const { return m_intervalMs; }
    /// Sets the hang time-out (at least 1 ms).
    void setTimeoutMs(int ms);
    /// The hang time-out, ms.
    int timeoutMs() const { return m_timeoutMs; }
    /// Environment of the probe process (default: this process's environment).
    void setProcessEnvironment(const QProcessEnvironment &env) { m_environment = env; }

    /// True between start() and stop() or a failure.
    bool isRunning() const { return m_running; }
    /// State of the underlying process; NotRunning whenever isRunning() is false.
    QProcess::ProcessState processState() const { return m_process->state(); }
    /// The last failure reason (empty after a successful start()).
    QString lastError() const { return m_lastError; }

public slots:
    /// Starts the probe (restarts it if running). A missing program fails at once.
    void start();
    /// Stops the probe if it runs; emits runningChanged(false) but not failed().
    void stop();

signals:
    /// The probe produced a reading.
    void sample(const shardscope::ProbeSample &sample);
    /// The client stopped because of `reason` (one line).
    void failed(const QString &reason);
    /// isRunning() changed.
    void runningChanged(bool running);

private:
    void readOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void onWatchdog();
    void fail(const QString &reason);
    void halt();
    void armWatchdog(int ms);

    QProcess *m_process = nullptr;
    QTimer *m_watchdog = nullptr;
    QString m_program;
    QString m_resolved;
    QProcessEnvironment m_environment = QProcessEnvironment::systemEnvironment();
    int m_intervalMs = defaultIntervalMs;
    int m_timeoutMs = defaultTimeoutMs;
    bool m_running = false;
    bool m_gotLine = false;
    QByteArray m_buffer;
    QByteArray m_stderr;
    QString m_lastError;
};

} // namespace shardscope

Q_DECLARE_METATYPE(shardscope::ProbeSample)
