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

/// The data rows of a test run on both classroom screens, 1280 x 720 (a projector) and
/// 1920 x 1080, in the normal and the presentation type: columns "size" (QSize) and
/// "presentation" (bool), rows named like "1280x720 presentation".
inline void addScreenRows()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("presentation");
    for (const QSize size : {QSize(1280, 720), QSize(1920, 1080)})
        for (const bool presentation : {false, true})
            QTest::addRow("%dx%d %s", size.width(), size.height(),
                          presentation ? "presentation" : "normal")
                << size << presentation;
}

} // namespace shardscope::test
