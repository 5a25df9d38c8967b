#pragma once

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
