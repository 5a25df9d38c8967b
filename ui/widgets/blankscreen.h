#pragma once

#include <QPointer>
#include <QWidget>

namespace shardscope {

/// A black cover over its parent window, as slide software blanks the screen (key B in
/// PowerPoint and Impress): the class looks at the teacher, not at the chart. It covers the
/// parent's whole rectangle, follows its size, takes the keyboard focus while shown and
/// gives it back; any key or mouse click ends it. The window underneath keeps its state.
class BlankScreen : public QWidget
{
    Q_OBJECT
public:
    /// A hidden cover over `parent` (required: the window it blanks).
    explicit BlankScreen(QWidget *parent);

    /// Covers the parent and takes the focus (remembering who had it).
    void blank();
    /// Uncovers the parent and gives the focus back.
    void unblank();
    /// True while the cover is shown.
    bool isBlank() const { return isVisible(); }

protected:
    void paintEvent(QPaintEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QPointer<QWidget> m_focus; ///< who had the focus before blank()
};

} // namespace shardscope
