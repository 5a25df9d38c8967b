#include "blankscreen.h"

#include <QApplication>
#include <QEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

namespace shardscope {

BlankScreen::BlankScreen(QWidget *parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(QStringLiteral("Blank screen: press any key to return"));
    setToolTip(QStringLiteral("Press any key or click to return"));
    parent->installEventFilter(this); // follow the window's size
    hide();
}

void BlankScreen::blank()
{
    m_focus = QApplication::focusWidget();
    setGeometry(parentWidget()->rect());
    raise();
    show();
    setFocus(Qt::OtherFocusReason);
}

void BlankScreen::unblank()
{
    hide();
    if (m_focus)
        m_focus->setFocus(Qt::OtherFocusReason);
}

void BlankScreen::paintEvent(QPaintEvent *)
{
    QPainter(this).fillRect(rect(), Qt::black);
}

void BlankScreen::keyPressEvent(QKeyEvent *event)
{
    event->accept();
    unblank();
}

void BlankScreen::mousePressEvent(QMouseEvent *event)
{
    event->accept();
    unblank();
}

bool BlankScreen::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == parentWidget() && event->type() == QEvent::Resize && isVisible())
        setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace shardscope
