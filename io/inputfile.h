#pragma once

#include <QByteArray>
#include <QString>
#include <optional>

namespace shardscope {

/// The most bytes any ShardScope input file may hold: 16 MiB. Scenario files and
/// lessons are a few kilobytes and a Hugging Face config.json a few more, so this
/// only stops what is not an input at all (a disk image, /dev/zero).
inline constexpr qint64 maxInputFileBytes = 16 * 1024 * 1024;

/// Reads a whole input file: the one reader behind every entry point (the window's
/// File > Open and drop, `--scenario`, `--hf-config`, lesson files), so each takes
/// the same files and refuses the same way, in one line "<file name>: <why>":
/// - "cannot open (<reason>)" for a missing or unreadable path;
/// - "not a regular file (a directory, pipe or device cannot be read as an input)"
///   for anything but a regular file: its type is checked before it is opened, so a
///   FIFO never blocks and a device such as /dev/zero is never read;
/// - "larger than 16 MiB (<n> bytes)" for a regular file over `maxBytes`, also when it
///   grows while read (at most maxBytes + 1 bytes are ever read);
/// - "would block on read (...)" for a file that stat() calls regular but whose read
///   would wait (/proc/kmsg): it is opened and read with O_NONBLOCK, and its type is
///   checked again on the open descriptor, so no input ever hangs an entry point.
/// Resource paths (":/...") are read through QFile (they cannot block).
/// A path that is not valid UTF-8 (a file named in another encoding) cannot survive
/// the trip through QString: each bad byte becomes U+FFFD. When `path` holds U+FFFD
/// and names no file, the raw argument it was decoded from (registerRawArguments())
/// is opened instead, so such files open from the command line too.
std::optional<QByteArray> readInputFile(const QString &path, QString *error,
                                        qint64 maxBytes = maxInputFileBytes);

/// Remembers the process's arguments as the bytes they were given in, for
/// readInputFile()'s recovery of paths that are not valid UTF-8. Call once from main().
void registerRawArguments(int argc, char **argv);

/// True when `value` was decoded from a raw argument (registerRawArguments()) whose
/// bytes are not its UTF-8: a name that is not valid UTF-8, which a file written under
/// `value` would not have (review finding F13: `export --out $'bad-\xff.svg'` wrote
/// "bad-\xef\xbf\xbd.svg" and reported it written). False without raw arguments.
bool argumentLosesBytes(const QString &value);

} // namespace shardscope
