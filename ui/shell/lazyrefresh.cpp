#include "lazyrefresh.h"

#include "session.h"

#include <QEvent>
#include <QWidget>

namespace shardscope {

LazyRefresh::LazyRefresh(QWidget *view, Session *session, std::function<void()> refresh)
    : QObject(view), m_view(view), m_refresh(std::move(refresh))
{
    view->installEventFilter(this);
    connect(session, &Session::changed, this, &LazyRefresh::request);
}

void LazyRefresh::request()
{
    m_stale = m_view->window()->isVisible() && !m_view->isVisible();
    if (!m_stale)
        m_refresh();
}

bool LazyRefresh::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Show && m_stale) {
        m_stale = false;
        m_refresh();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace shardscope
