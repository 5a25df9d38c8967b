#include "wraprow.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QResizeEvent>
#include <QScopedValueRollback>
#include <QVBoxLayout>

namespace shardscope {

WrapRow::WrapRow(int spacing, QWidget *parent)
    : QWidget(parent), m_rows(new QVBoxLayout(this)), m_spacing(spacing)
{
    m_rows->setContentsMargins(0, 0, 0, 0);
    m_rows->setSpacing(spacing);
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
}

void WrapRow::addGroup(QWidget *group)
{
    group->setParent(this);
    if (m_trailing)
        m_groups.insert(m_groups.size() - 1, group);
    else
        m_groups.push_back(group);
    m_rowOfGroup.clear(); // lay every group out again
    arrange(width());
}

void WrapRow::addTrailingGroup(QWidget *group)
{
    Q_ASSERT(!m_trailing); // one trailing group
    group->setParent(this);
    m_groups.push_back(group);
    m_trailing = true;
    m_rowOfGroup.clear();
    arrange(width());
}

int WrapRow::rowCount() const
{
    return m_rowOfGroup.isEmpty() ? 1 : m_rowOfGroup.back() + 1;
}

int WrapRow::rowOf(const QWidget *group) const
{
    const qsizetype i = m_groups.indexOf(group);
    return i < 0 || i >= m_rowOfGroup.size() ? -1 : m_rowOfGroup[i];
}

void WrapRow::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrange(event->size().width());
}

bool WrapRow::event(QEvent *event)
{
    const bool handled = QWidget::event(event);
    if (event->type() == QEvent::LayoutRequest)
        arrange(width());
    return handled;
}

void WrapRow::arrange(int width)
{
    if (m_arranging)
        return;
    const QScopedValueRollback<bool> guard(m_arranging, true);
    QList<int> rows;
    int row = 0;
    int x = 0;
    for (QWidget *g : std::as_const(m_groups)) {
        const int w = g->sizeHint().width();
        if (x > 0 && x + m_spacing + w > width) {
            ++row;
            x = 0;
        }
        x += (x > 0 ? m_spacing : 0) + w;
        rows.push_back(row);
    }
    if (rows == m_rowOfGroup)
        return;
    m_rowOfGroup = rows;
    // The groups stay this widget's children; only the row layouts are made anew.
    while (QLayoutItem *item = m_rows->takeAt(0))
        delete item; // an empty QHBoxLayout: its widget items go with it
    QHBoxLayout *line = nullptr;
    for (qsizetype i = 0; i < m_groups.size(); ++i) {
        if (!line || (i > 0 && rows[i] != rows[i - 1])) {
            if (line)
                line->addStretch(1); // the row before keeps its groups on the left
            line = new QHBoxLayout;
            line->setSpacing(m_spacing);
            m_rows->addLayout(line);
        }
        if (m_trailing && i == m_groups.size() - 1)
            line->addStretch(1); // the trailing group at the right end
        line->addWidget(m_groups[i]);
    }
    if (line && !m_trailing)
        line->addStretch(1);
    updateGeometry();
}

} // namespace shardscope
