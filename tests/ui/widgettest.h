#pragma once

// Putting a widget on screen (offscreen under QT_QPA_PLATFORM=offscreen) before a UI test
// looks at what it draws.

#include <QSize>
#include <QTest>
#include <QWidget>

namespace shardscope::test {

/// Resizes `w` to `size`, shows it and waits until it is exposed; false when it never is.
inline bool shownAt(QWidget &w, QSize size)
{
    w.resize(size);
    w.show();
    return QTest::qWaitForWindowExposed(&w);
}

} // namespace shardscope::test
