#include "inputfile.h"

#include <QFile>
#include <QFileInfo>

namespace shardscope {

std::optional<QByteArray> readInputFile(const QString &path, QString *error, qint64 maxBytes)
{
    const QFileInfo info(path);
    const QString name = info.fileName().isEmpty() ? path : info.fileName();
    auto fail = [&](const QString &why) {
        *error = name + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    // QFileInfo::isFile() is true only for regular files (and links to them): a FIFO,
    // socket or character device is refused here, before open() could block on it.
    if (info.exists() && !info.isFile())
        return fail(QStringLiteral("not a regular file (a directory, pipe or device cannot "
                                   "be read as an input)"));
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot open (%1)").arg(f.errorString()));
    const auto tooLarge = [&](qint64 bytes) {
        const QString limit = maxBytes % (1024 * 1024) == 0
                                  ? QStringLiteral("%1 MiB").arg(maxBytes / (1024 * 1024))
                                  : QStringLiteral("%1 bytes").arg(maxBytes);
        return fail(QStringLiteral("larger than %1 (%2 bytes)").arg(limit).arg(bytes));
    };
    if (f.size() > maxBytes)
        return tooLarge(f.size());
    QByteArray bytes = f.read(maxBytes + 1);
    if (bytes.size() > maxBytes)
        return tooLarge(bytes.size());
    return bytes;
}

} // namespace shardscope
