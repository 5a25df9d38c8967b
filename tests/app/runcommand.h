#pragma once

// Runs a subcommand in-process, as `shardscope NAME ARGS...` would, and keeps what it
// printed: shared by the app tests.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTextStream>

namespace shardscope::test {

/// What one subcommand run returned and printed.
struct Run
{
    int code = 0;
    QString out, err;
};

/// Calls `command(args, out, err)` with args = "shardscope", `name`, `rest`.
template <typename Command>
Run runCommand(Command command, const char *name, const QStringList &rest)
{
    Run r;
    QTextStream out(&r.out), err(&r.err);
    r.code = command(QStringList{QStringLiteral("shardscope"), QString::fromLatin1(name)} + rest,
                     out, err);
    return r;
}

/// The whole file, or empty when it cannot be read.
inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace shardscope::test
