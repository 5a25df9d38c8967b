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

} // namespace shardscope
