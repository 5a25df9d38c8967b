#pragma once

#include <QObject>
#include <functional>

class QWidget;

namespace shardscope {

class Session;

/// The one policy for when a view redraws after the Session changes (every view of the
/// window uses it; none connects to Session::changed() itself).
///
/// After each Session::changed() the view's `refresh` runs at once when the view is on
/// screen, or when its window has not been shown yet (tests and exports read views that
/// were never shown). A view that is a hidden tab of a shown window only becomes stale,
/// and `refresh` runs when it is next shown: a slider drag in the memory view does not
/// pay for the comparison's four estimates, the schedule or the live panel.
class LazyRefresh : public QObject
{
    Q_OBJECT
public:
    /// Watches `session` for `view` (which owns this object). Does not call `refresh`
    /// yet: the view draws its first frame itself, or calls request().
    LazyRefresh(QWidget *view, Session *session, std::function<void()> refresh);

    /// What a change of the session triggers: refresh now, or mark the view stale.
    void request();
    /// Marks a view that has not drawn yet as stale, so that its first frame waits until it
    /// is first shown (a costly view, such as the strategy sweep, in a hidden tab), unless a
    /// change arrives while the window is still hidden (request() then draws at once).
    void markStale() { m_stale = true; }
    /// True when a change arrived while the view was hidden and it has not caught up.
    bool stale() const { return m_stale; }

protected:
    /// Catches the view's Show event to run a pending refresh.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_view;
    std::function<void()> m_refresh;
    bool m_stale = false;
};

} // namespace shardscope
