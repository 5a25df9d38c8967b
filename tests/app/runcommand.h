#pragma once

// Runs a subcommand in-process, as `shardscope NAME ARGS...` would, and keeps what it
// printed: shared by the app tests.

#include "../testfiles.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QTest>
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

/// runCommand() with "--json" after `rest`: the object the command printed (empty when it
/// printed none); a failed run's standard error goes to the test log.
template <typename Command>
QJsonObject runJson(Command command, const char *name, const QStringList &rest)
{
    const Run r = runCommand(command, name, rest + QStringList{QStringLiteral("--json")});
    if (r.code != 0)
        qWarning("%s", qPrintable(r.err));
    return QJsonDocument::fromJson(r.out.toUtf8()).object();
}

/// A subcommand to run in-process as `shardscope NAME ARGS...`, for the tests of that
/// one subcommand: `cli(rest)` is runCommand() and `cli.json(rest)` runJson().
template <typename Command> struct Subcommand
{
    Command command;  ///< the run...Command() function
    const char *name; ///< its name on the command line

    /// runCommand() with `rest`.
    Run operator()(const QStringList &rest) const { return runCommand(command, name, rest); }
    /// runJson() with `rest`: the object it printed with "--json".
    QJsonObject json(const QStringList &rest) const { return runJson(command, name, rest); }
};

/// Checks that `r` refused its arguments as every subcommand must (CONTRIBUTING.md,
/// "Errors"): exit code 2, nothing on standard output, and one line on standard error
/// that starts with `message`. A failed check returns from here and fails the test.
inline void verifyRefusal(const Run &r, const QString &message)
{
    QCOMPARE(r.code, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(message), qPrintable(r.err));
    QCOMPARE(r.err.count(u'\n'), 1); // one line
}

} // namespace shardscope::test
