#include "qtext.h"

#include "controltext.h"

namespace shardscope {

QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString terminalText(const QString &text, TextLines lines)
{
    return probe::escapedControls(text, lines == TextLines::Many);
}

} // namespace shardscope
