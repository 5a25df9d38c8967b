#pragma once

// The one conversion of engine text to Qt's: every layer above core/ (io/, ui/, app/)
// turns the engine's UTF-8 std::string and std::string_view into QString here.

#include <QString>
#include <string_view>

namespace shardscope {

/// Engine text (UTF-8: ids, names, messages, formatted numbers) as a QString; a
/// std::string or a string literal converts on the way in. Invalid UTF-8 sequences
/// become U+FFFD, as QString::fromUtf8 makes them.
QString toQString(std::string_view text);

/// How terminalText() treats line breaks.
enum class TextLines
{
    One,  ///< a message: LF, CR and TAB become "\n", "\r", "\t", so it stays one line
    Many, ///< a report: LF and TAB are kept, every other control character is escaped
};

/// `text` made safe to print on a terminal: the one filter of every text ShardScope
/// prints (report, plan, export and export-config output, every error line), since names
/// come from files (a config.json's _name_or_path, a scenario's gpu.name, NVML). C0
/// controls (ESC is "\x1b") and DEL become "\xNN"; C1 controls (U+0080..U+009F), the
/// line and paragraph separators (U+2028, U+2029) and the bidirectional controls that
/// reorder what a reader sees (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069:
/// "Trojan Source", CVE-2021-42574) become "\uNNNN". Everything else, backslashes
/// included, is kept. Never fails.
QString terminalText(const QString &text, TextLines lines = TextLines::One);

} // namespace shardscope
