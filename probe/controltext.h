#pragma once

// The one escaping of control characters, shared by the probe's error lines
// (probeerror.cpp) and the app's terminal filter (io/qtext.cpp). Header only: the probe
// builds on its own, without the app's libraries.

#include <QString>
#include <algorithm>

namespace shardscope::probe {

/// True for a character escapedControls() rewrites: C0, DEL, C1, the line separators and
/// the bidirectional controls that reorder what a reader sees (U+061C, U+200E/F,
/// U+202A..E, U+2066..9; CVE-2021-42574). With `keepBreaks`, LF and TAB are kept.
inline bool isEscapedControl(char16_t u, bool keepBreaks)
{
    if (keepBreaks && (u == u'\n' || u == u'\t'))
        return false;
    return u < 0x20 || (u >= 0x7f && u <= 0x9f) || u == 0x2028 || u == 0x2029 || u == 0x061c ||
           u == 0x200e || u == 0x200f || (u >= 0x202a && u <= 0x202e) ||
           (u >= 0x2066 && u <= 0x2069);
}

/// `text` with every isEscapedControl() character written out: LF, CR and TAB as "\n",
/// "\r", "\t", other C0 controls and DEL as "\xNN", the rest as "\uNNNN". Everything else,
/// backslashes included, is kept.
inline QString escapedControls(const QString &text, bool keepBreaks)
{
    if (std::none_of(text.cbegin(), text.cend(),
                     [keepBreaks](QChar c) { return isEscapedControl(c.unicode(), keepBreaks); }))
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (!isEscapedControl(u, keepBreaks))
            out += c;
        else if (u == u'\n')
            out += QLatin1String("\\n");
        else if (u == u'\r')
            out += QLatin1String("\\r");
        else if (u == u'\t')
            out += QLatin1String("\\t");
        else if (u <= 0x7f)
            out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
        else
            out += QStringLiteral("\\u%1").arg(uint(u), 4, 16, QLatin1Char('0'));
    }
    return out;
}

} // namespace shardscope::probe
