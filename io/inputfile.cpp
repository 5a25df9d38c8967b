#include "inputfile.h"

#include <QFile>
#include <QFileInfo>
#include <QList>
#include <algorithm>
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

bool argumentLosesBytes(const QString &value)
{
    if (!value.contains(QChar::ReplacementCharacter))
        return false;
    const QByteArray raw = rawPathFor(value);
    return !raw.isEmpty() && raw != value.toUtf8();
}

std::optional<QByteArray> readInputFile(const QString &path, QString *error, qint64 maxBytes)
{
    const QFileInfo info(path);
    const QString name = info.fileName().isEmpty() ? path : info.fileName();
    auto fail = [&](const QString &why) {
        *error = name + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    const auto tooLarge = [&](qint64 bytes) {
        const QString limit = maxBytes % (1024 * 1024) == 0
                                  ? QStringLiteral("%1 MiB").arg(maxBytes / (1024 * 1024))
                                  : QStringLiteral("%1 bytes").arg(maxBytes);
        return fail(QStringLiteral("larger than %1 (%2 bytes)").arg(limit).arg(bytes));
    };
    if (path.startsWith(QLatin1Char(':'))) { // a compiled-in resource: memory, never blocks
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("cannot open (%1)").arg(f.errorString()));
        QByteArray bytes = f.read(maxBytes + 1);
        if (bytes.size() > maxBytes)
            return tooLarge(bytes.size());
        return bytes;
    }
    const QString notRegular = QStringLiteral("not a regular file (a directory, pipe or device "
                                              "cannot be read as an input)");
    // QFileInfo::isFile() is true only for regular files (and links to them): a FIFO,
    // socket or character device is refused here already.
    if (info.exists() && !info.isFile())
        return fail(notRegular);
    // Opened by its bytes (a path that is not valid UTF-8 by the raw argument it came
    // from) without blocking, and its type checked again on the descriptor: a file
    // swapped for a FIFO after the check above neither blocks open() nor gets read.
    const QByteArray raw =
        !info.exists() && path.contains(QChar(0xfffd)) ? rawPathFor(path) : QByteArray();
    const QByteArray bytesPath = raw.isEmpty() ? QFile::encodeName(path) : raw;
    const int fd = ::open(bytesPath.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return fail(
            QStringLiteral("cannot open (%1)").arg(QString::fromLocal8Bit(strerror(errno))));
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st = {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return fail(notRegular);
    if (st.st_size > maxBytes)
        return tooLarge(st.st_size);
    // Read with the descriptor still non-blocking: a "regular" file whose read would
    // wait (/proc/kmsg, docs/security.md) is refused at once instead of hanging.
    QByteArray bytes;
    char chunk[65536];
    while (bytes.size() <= maxBytes) {
        const qint64 want = std::min<qint64>(qint64(sizeof chunk), maxBytes + 1 - bytes.size());
        const ssize_t n = ::read(fd, chunk, std::size_t(want));
        if (n == 0)
            break;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return fail(QStringLiteral("would block on read (a kernel or device file such "
                                           "as /proc/kmsg cannot be read as an input)"));
            return fail(
                QStringLiteral("cannot read (%1)").arg(QString::fromLocal8Bit(strerror(errno))));
        }
        bytes.append(chunk, qsizetype(n));
    }
    if (bytes.size() > maxBytes)
        return tooLarge(bytes.size());
    return bytes;
}

} // namespace shardscope
