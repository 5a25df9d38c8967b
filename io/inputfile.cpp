#include "inputfile.h"

#include <QFile>
#include <QFileInfo>
#include <QList>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shardscope {

namespace {

QList<QByteArray> &rawArguments()
{
    static QList<QByteArray> args;
    return args;
}

/// The raw bytes of the argument `path` was decoded from ("--flag=PATH" too), or empty.
QByteArray rawPathFor(const QString &path)
{
    for (const QByteArray &raw : rawArguments()) {
        const qsizetype eq = raw.startsWith("--") ? raw.indexOf('=') : -1;
        const QByteArray value = eq >= 0 ? raw.mid(eq + 1) : raw;
        if (QString::fromLocal8Bit(value) == path)
            return value;
    }
    return {};
}

} // namespace

void registerRawArguments(int argc, char **argv)
{
    rawArguments().clear();
    for (int i = 1; i < argc; ++i)
        rawArguments().append(QByteArray(argv[i]));
}

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
    const QByteArray raw =
        !info.exists() && path.contains(QChar(0xfffd)) ? rawPathFor(path) : QByteArray();
    if (!raw.isEmpty()) {
        // Opened by its bytes; the type check again, on the descriptor (no FIFO blocks:
        // O_NONBLOCK), since QFileInfo could not see the file.
        const int fd = ::open(raw.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat st = {};
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            ::close(fd);
            return fail(QStringLiteral("not a regular file (a directory, pipe or device cannot "
                                       "be read as an input)"));
        }
        if (fd < 0 || !f.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
            if (fd >= 0)
                ::close(fd);
            return fail(
                QStringLiteral("cannot open (%1)").arg(QString::fromLocal8Bit(strerror(errno))));
        }
    } else if (!f.open(QIODevice::ReadOnly)) {
        return fail(QStringLiteral("cannot open (%1)").arg(f.errorString()));
    }
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
