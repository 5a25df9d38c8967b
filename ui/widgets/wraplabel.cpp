#include "wraplabel.h"

namespace shardscope {

WrapLabel::WrapLabel(const QString &text, QWidget *parent) : QLabel(text, parent)
{
    setWordWrap(true);
}

WrapLabel::Key WrapLabel::currentKey() const
{
    return Key{text(),        font(),           contentsMargins(), margin(),
               indent(),      int(alignment()), int(textFormat()), int(textInteractionFlags()),
               logicalDpiY(), wordWrap()};
}

int WrapLabel::heightForWidth(int width) const
{
    Key key = currentKey();
    if (!(key == m_key)) {
        m_key = std::move(key);
        m_entries.fill(Entry{});
        m_next = 0;
    } else {
        for (const Entry &e : m_entries)
            if (e.width == width)
                return e.height;
    }
    const int height = QLabel::heightForWidth(width);
    m_entries[m_next] = Entry{width, height};
    m_next = (m_next + 1) % m_entries.size();
    return height;
}

} // namespace shardscope
