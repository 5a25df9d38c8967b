#pragma once

// Whole-file reads and writes the tests share: inputs written to a temporary folder,
// exported files read back.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace shardscope::test {

/// The whole file at `path`, or empty when it cannot be read.
inline QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Writes `bytes` to the file at `path`, replacing what it held; false when it cannot be
/// written whole.
inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

} // namespace shardscope::test
