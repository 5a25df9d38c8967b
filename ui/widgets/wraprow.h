#pragma once

#include <QList>
#include <QWidget>

class QVBoxLayout;

namespace shardscope {

/// A row of control groups that wraps onto more rows when its width does not hold them
/// all (a 1280 x 720 projector in presentation type, say).
///
/// Each group is a widget with its own layout (a label and its box) and stays whole. The
/// groups go left to right, as many on a row as their size hints fit `spacing` pixels
/// apart, in the order they were added; a trailing group stands at the right end of the
/// last row. The row asks for no width of its own (its horizontal size policy is
/// Ignored), so it never widens the window or a scroll area around it; its height is its
/// rows'. Qt has no flow layout of its own (its "Flow Layout" is an example, not a class).
class WrapRow : public QWidget
{
public:
    /// An empty row; `spacing` pixels between groups and between rows.
    explicit WrapRow(int spacing, QWidget *parent = nullptr);

    /// Adds `group` after the groups added before it. The row takes it as a child.
    void addGroup(QWidget *group);
    /// Adds `group` as the last one, at the right end of the last row (once per row; groups
    /// added later go before it).
    void addTrailingGroup(QWidget *group);

    /// How many rows the groups take at the row's current width (1 with no groups).
    int rowCount() const;
    /// The row (0-based) `group` stands on; -1 when it is not one of the row's groups.
    int rowOf(const QWidget *group) const;

protected:
    void resizeEvent(QResizeEvent *event) override;
    /// Arranges the groups again when one of them changes its size hint (a new font).
    bool event(QEvent *event) override;

private:
    /// Puts the groups on rows for `width` pixels, rebuilding the layout only when a
    /// group moves to another row.
    void arrange(int width);

    QVBoxLayout *m_rows;
    QList<QWidget *> m_groups;
    bool m_trailing = false; ///< the last group stands at the right
    QList<int> m_rowOfGroup; ///< the row of each group in m_groups
    int m_spacing;
    bool m_arranging = false; ///< guards against the layout's own requests
};

} // namespace shardscope
