#include "probeclient.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QTimer>
#include <algorithm>
#include <cstring>

namespace shardscope {

namespace {

constexpr char probeName[] = "shardscope-probe";

/// "5 s", "1.5 s", "250 ms".
QString duration(int ms)
{
    if (ms >= 1000)
        return QStringLiteral("%1 s").arg(QString::number(ms / 1000.0, 'g', 4));
    return QStringLiteral("%1 ms").arg(ms);
}

} // namespace

ProbeClient::ProbeClient(QObject *parent)
    : QObject(parent), m_process(new QProcess(this)), m_watchdog(new QTimer(this))
{
    m_watchdog->setSingleShot(true);
    connect(m_watchdog, &QTimer::timeout, this, &ProbeClient::onWatchdog);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ProbeClient::readOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_stderr += m_process->readAllStandardError();
        if (m_stderr.size() > 8192)
            m_stderr = m_stderr.right(8192);
    });
    connect(m_process, &QProcess::finished, this, &ProbeClient::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProbeClient::onError);
}

ProbeClient::~ProbeClient()
{
    halt();
}

QStringList ProbeClient::candidatePrograms()
{
    const QString dir = QCoreApplication::applicationDirPath();
    const QString name = QString::fromLatin1(probeName);
    QStringList candidates{QDir(dir).filePath(name),
                           QDir::cleanPath(dir + QStringLiteral("/../probe/") + name)};
    const QString inPath = QStandardPaths::findExecutable(name);
    if (!inPath.isEmpty())
        candidates << inPath;
    return candidates;
}

QString ProbeClient::findDefaultProgram()
{
    for (const QString &c : candidatePrograms()) {
        const QFileInfo info(c);
        if (info.isFile() && info.isExecutable())
            return c;
    }
    return {};
}

void ProbeClient::setProgram(const QString &path)
{
    m_program = path;
}

QString ProbeClient::programDisplayName() const
{
    const QString p = m_resolved.isEmpty() ? m_program : m_resolved;
    return p.isEmpty() ? QString::fromLatin1(probeName) : QFileInfo(p).fileName();
}

void ProbeClient::setIntervalMs(int ms)
{
    m_intervalMs = std::max(1, ms);
}

void ProbeClient::setTimeoutMs(int ms)
{
    m_timeoutMs = std::max(1, ms);
}

void ProbeClient::start()
{
    halt();
    m_lastError.clear();
    m_stderr.clear();
    m_gotLine = false;

    if (m_program.isEmpty()) {
        m_resolved = findDefaultProgram();
        if (m_resolved.isEmpty()) {
            fail(QStringLiteral("probe not found: %1 (looked in %2, %3 and PATH)")
                     .arg(QString::fromLatin1(probeName),
                          QDir::toNativeSeparators(QCoreApplication::applicationDirPath()),
                          QDir::toNativeSeparators(
                              QDir::cleanPath(QCoreApplication::applicationDirPath() +
                                              QStringLiteral("/../probe")))));
            return;
        }
    } else if (!m_program.contains(u'/')) {
        m_resolved = QStandardPaths::findExecutable(m_program);
        if (m_resolved.isEmpty()) {
            m_resolved = m_program;
            fail(QStringLiteral("probe not found: %1 (not in PATH)").arg(m_program));
            return;
        }
    } else {
        m_resolved = m_program;
        if (!QFileInfo(m_resolved).isFile()) {
            fail(QStringLiteral("probe not found: %1").arg(QDir::toNativeSeparators(m_resolved)));
            return;
        }
    }

    m_process->setProgram(m_resolved);
    m_process->setArguments({QStringLiteral("--watch"), QString::number(m_intervalMs)});
    m_process->setProcessEnvironment(m_environment);
    m_running = true;
    emit runningChanged(true);
    if (!m_running) // a slot stopped it
        return;
    armWatchdog(m_timeoutMs);
    m_process->start(QIODevice::ReadOnly);
}

void ProbeClient::stop()
{
    const bool was = m_running;
    halt();
    if (was)
        emit runningChanged(false);
}

void ProbeClient::halt()
{
    m_running = false;
    m_watchdog->stop();
    if (m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
    m_buffer.clear();
}

void ProbeClient::fail(const QString &reason)
{
    const bool was = m_running;
    halt();
    m_lastError = reason;
    if (was)
        emit runningChanged(false);
    emit failed(reason);
}

void ProbeClient::armWatchdog(int ms)
{
    m_watchdog->setInterval(ms);
    m_watchdog->start();
}

void ProbeClient::readOutput()
{
    if (!m_running) {
        m_process->readAllStandardOutput();
        return;
    }
    m_buffer += m_process->readAllStandardOutput();
    std::optional<ProbeSample> latest;
    qsizetype from = 0;
    for (qsizetype nl = m_buffer.indexOf('\n'); nl >= 0; nl = m_buffer.indexOf('\n', from)) {
        const QByteArray line = m_buffer.mid(from, nl - from);
        from = nl + 1;
        if (line.trimmed().isEmpty())
            continue;
        m_gotLine = true;
        auto parsed = parseProbeLine(line);
        if (auto *reason = std::get_if<QString>(&parsed)) {
            if (latest) {
                emit sample(*latest);
                if (!m_running)
                    return;
            }
            fail(*reason);
            return;
        }
        latest = std::move(std::get<ProbeSample>(parsed));
    }
    m_buffer.remove(0, from);
    if (m_buffer.size() > maxLineBytes) {
        fail(QStringLiteral("%1 printed more than 4 MiB without a line break: not a reading")
                 .arg(programDisplayName()));
        return;
    }
    if (latest) {
        armWatchdog(m_intervalMs + m_timeoutMs);
        emit sample(*latest);
    }
}

void ProbeClient::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!m_running)
        return;
    readOutput();
    if (!m_running)
        return;
    if (!m_buffer.trimmed().isEmpty()) { // a last line without its line break
        m_buffer += '\n';
        const QByteArray rest = m_buffer;
        m_buffer.clear();
        auto parsed = parseProbeLine(rest);
        if (auto *reason = std::get_if<QString>(&parsed)) {
            fail(*reason);
            return;
        }
        emit sample(std::get<ProbeSample>(parsed));
        if (!m_running)
            return;
    }
    const QString name = programDisplayName();
    if (status == QProcess::CrashExit) {
        const char *signalName = ::strsignal(exitCode);
        fail(QStringLiteral("%1 crashed: signal %2 (%3)")
                 .arg(name)
                 .arg(exitCode)
                 .arg(signalName ? QString::fromLocal8Bit(signalName)
                                 : QStringLiteral("unknown signal")));
        return;
    }
    m_stderr += m_process->readAllStandardError();
    const QList<QByteArray> errLines = m_stderr.trimmed().split('\n');
    const QString lastErr = QString::fromLocal8Bit(errLines.constLast()).simplified().left(200);
    const QString detail = lastErr.isEmpty() ? QString() : QStringLiteral(": ") + lastErr;
    if (exitCode != 0)
        fail(QStringLiteral("%1 exited with code %2%3").arg(name).arg(exitCode).arg(detail));
    else
        fail(QStringLiteral("%1 stopped without a reason (exit code 0)%2").arg(name, detail));
}

void ProbeClient::onError(QProcess::ProcessError error)
{
    if (!m_running || error != QProcess::FailedToStart)
        return; // crashes are reported by onFinished
    fail(QStringLiteral("probe could not start: %1 (%2)")
             .arg(QDir::toNativeSeparators(m_resolved), m_process->errorString()));
}

void ProbeClient::onWatchdog()
{
    if (!m_running)
        return;
    const int waited = m_gotLine ? m_intervalMs + m_timeoutMs : m_timeoutMs;
    fail(QStringLiteral("%1 sent no reading within %2; stopped it")
             .arg(programDisplayName(), duration(waited)));
}

} // namespace shardscope
