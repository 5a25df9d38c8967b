#pragma once

#include <QFont>
#include <QLabel>
#include <QMargins>
#include <QString>
#include <array>
#include <limits>

namespace shardscope {

/// A word-wrapped QLabel that remembers the heights it has measured for its current
/// text, font and margins.
///
/// QLabel::heightForWidth() lays its text out again (a HarfBuzz shaping of the whole
/// string, about 0.2 ms for a two-line sentence) every time it is asked, and a layout
/// asks each changed label several times per relayout: its own layout, the splitter
/// above it and the scroll area's minimum size each ask again at the same width. The
/// window's verdict, "What fits?" and model lines change on every slider step, so the
/// repeats cost a drag step about a millisecond (tests/bench BM_SliderToReplot,
/// docs/performance.md). The answer for a width is QLabel's own, computed once; a new
/// text, font, margin, indent, alignment, text format, interaction or screen DPI
/// forgets every stored height. Drawing, the size hints and everything else are
/// QLabel's.
class WrapLabel : public QLabel
{
public:
    /// A word-wrapped label showing `text` (plain or rich, as QLabel detects it).
    explicit WrapLabel(const QString &text = QString(), QWidget *parent = nullptr);

    /// QLabel::heightForWidth(width) in pixels, from the memo when this text, font and
    /// geometry were measured at `width` before.
    int heightForWidth(int width) const override;

private:
    /// Everything QLabel's height for a width depends on besides the width.
    struct Key
    {
        QString text;
        QFont font;
        QMargins contents;
        int margin = 0;
        int indent = 0;
        int alignment = 0;
        int format = 0;      ///< Qt::TextFormat: plain or rich text lay out differently
        int interaction = 0; ///< Qt::TextInteractionFlags: selectable text is a document
        int dpi = 0;         ///< logical DPI of the screen: a font's pixels depend on it
        bool wordWrap = false;
        bool operator==(const Key &) const = default;
    };
    Key currentKey() const;

    /// The last few widths measured for m_key (a relayout asks about one or two).
    struct Entry
    {
        int width = std::numeric_limits<int>::min(); ///< no width a layout asks about
        int height = 0;
    };
    mutable Key m_key;
    mutable std::array<Entry, 4> m_entries{};
    mutable std::size_t m_next = 0;
};

} // namespace shardscope
