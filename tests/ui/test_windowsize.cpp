// The window on a 1280 x 720 screen (a classroom projector): it opens inside the
// screen's free area, frame included, and its layout fits there. Qt's offscreen
// platform draws the screen from a configuration file (offscreen:configfile=...), so
// this executable starts its own QApplication on a 1280 x 720 screen.
#include "chartparts.h"
#include "mainwindow.h"
#include "planpanel.h"
#include "session.h"
#include "stagememorychart.h"
#include "sweepchart.h"
#include "timelinepanel.h"
#include "timelineview.h"
#include "widgettest.h"
#include "wraprow.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QScreen>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

using namespace shardscope;

class TestWindowSize : public QObject
{
    Q_OBJECT
private slots:
    void opensInsideAProjectorScreen();
    void aRequestedSizeIsKept();
    void planTabNeedsNoSidewaysScroll();
    void sweepTabFitsTheScreen();
    void pipelineTabFitsTheScreen_data();
    void pipelineTabFitsTheScreen();
};

void TestWindowSize::opensInsideAProjectorScreen()
{
    const QRect free = QGuiApplication::primaryScreen()->availableGeometry();
    QCOMPARE(free.size(), QSize(1280, 720));
    MainWindow w;
    // 1600 x 950 does not fit: the window takes the screen's free area instead ...
    QCOMPARE(w.size(), QSize(1280, 720));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    // ... less its frame, which stays on the screen too.
    QVERIFY2(free.contains(w.frameGeometry()), qPrintable(QStringLiteral("frame %1,%2 %3x%4")
                                                              .arg(w.frameGeometry().x())
                                                              .arg(w.frameGeometry().y())
                                                              .arg(w.frameGeometry().width())
                                                              .arg(w.frameGeometry().height())));
    const QSize frame = w.frameGeometry().size() - w.size();
    QCOMPARE(w.size(), free.size() - frame);
    QVERIFY(w.minimumSizeHint().width() <= w.width());
    QVERIFY(w.minimumSizeHint().height() <= w.height());
    // Presentation mode and a lesson keep to it.
    w.setPresentationMode(true);
    w.startLesson(0);
    QCoreApplication::processEvents();
    QVERIFY(free.contains(w.frameGeometry()));
}

void TestWindowSize::aRequestedSizeIsKept()
{
    // --size WxH resizes the window before it is shown: that size stands.
    MainWindow w;
    QVERIFY(test::shownAt(w, QSize(1260, 700)));
    QCoreApplication::processEvents();
    QCOMPARE(w.size(), QSize(1260, 700));
}

void TestWindowSize::planTabNeedsNoSidewaysScroll()
{
    // The Plan tab at 1280 x 720, planned: its controls take a second row rather than a
    // sideways scroll, in the normal type and in presentation type.
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.showView(MainWindow::View::Plan);
    QCoreApplication::processEvents();
    PlanPanel *plan = w.planPanel();
    QVERIFY(plan->isVisible());
    plan->planNow();                          // the summary above the table takes its lines
    QWidget *viewport = plan->parentWidget(); // the tab's scroll area's viewport
    for (const bool presentation : {false, true}) {
        w.setPresentationMode(presentation);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QVERIFY2(plan->width() <= viewport->width(),
                 qPrintable(QStringLiteral("plan %1 px in a %2 px tab, %3")
                                .arg(plan->width())
                                .arg(viewport->width())
                                .arg(presentation ? "presentation" : "normal")));
        // The chart whole inside the panel; in the normal type the whole tab fits, with
        // no scrolling at all (presentation type scrolls down to the chart).
        const QRect chart(plan->plot()->mapTo(plan, QPoint(0, 0)), plan->plot()->size());
        QVERIFY(plan->rect().contains(chart));
        if (!presentation)
            QVERIFY2(plan->height() <= viewport->height(),
                     qPrintable(QStringLiteral("plan %1 px high in a %2 px tab")
                                    .arg(plan->height())
                                    .arg(viewport->height())));
        const WrapRow *controls = plan->controlsRow();
        QCOMPARE(controls->rowCount(), 2);
        // Every control inside the panel, none cut at its right edge.
        for (const QWidget *c : std::initializer_list<const QWidget *>{
                 plan->batchTokensSpin(), plan->maxGpusSpin(), plan->exportButton()}) {
            const QRect r(c->mapTo(plan, QPoint(0, 0)), c->size());
            QVERIFY2(plan->rect().contains(r), qPrintable(c->objectName()));
            QVERIFY(c->width() >= c->minimumSizeHint().width());
        }
    }
}

void TestWindowSize::sweepTabFitsTheScreen()
{
    // The Sweep tab on the 1280 x 720 screen, normal and presentation type: the window keeps
    // to the screen, and the chart fills the tab with room for its lines (at least 400 x 250
    // of axis rect), every tick label and the capacity label inside the plot.
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.showView(MainWindow::View::Sweep);
    QCOMPARE(w.tabs()->currentIndex(), 5);
    QCOMPARE(w.tabs()->tabText(5), QStringLiteral("Sweep"));
    const QRect free = QGuiApplication::primaryScreen()->availableGeometry();
    for (const bool presentation : {false, true}) {
        w.setPresentationMode(presentation);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QVERIFY(free.contains(w.frameGeometry()));
        SweepChart *chart = w.sweepChart();
        QVERIFY(chart->isVisible());
        chart->plot()->replot();
        const QWidget *page = w.tabs()->currentWidget();
        QVERIFY(QRect(QPoint(0, 0), page->size())
                    .contains(QRect(chart->mapTo(page, QPoint(0, 0)), chart->size())));
        const QRect area = chart->plot()->axisRect()->rect();
        QVERIFY2(area.width() >= 400 && area.height() >= 250,
                 qPrintable(QStringLiteral("axis rect %1x%2, %3")
                                .arg(area.width())
                                .arg(area.height())
                                .arg(presentation ? "presentation" : "normal")));
        const QRect plot = chart->plot()->rect();
        QVERIFY(plot.contains(itemTextRect(chart->capacityItem()).toAlignedRect()));
        for (const QCPAxis *axis : {chart->plot()->xAxis, chart->plot()->yAxis}) {
            QVERIFY(!tickLabelRects(axis).isEmpty());
            for (const QRectF &r : tickLabelRects(axis))
                QVERIFY(QRectF(plot).contains(r));
        }
        // Every tab's name whole in the tab bar: no scroll arrows, no tab past its edge.
        const QTabBar *bar = w.tabs()->tabBar();
        QVERIFY2(bar->sizeHint().width() <= bar->width(),
                 qPrintable(QStringLiteral("tabs need %1 px of %2")
                                .arg(bar->sizeHint().width())
                                .arg(bar->width())));
        for (int i = 0; i < bar->count(); ++i)
            QVERIFY(bar->rect().contains(bar->tabRect(i)));
        // The scenario's dot: Llama 3 70B on 64 GPUs under DDP, on the DDP line.
        QCOMPARE(chart->currentDot()->dataCount(), 1);
        QCOMPARE(chart->currentDot()->data()->begin()->key, 64.0);
    }
}

void TestWindowSize::pipelineTabFitsTheScreen_data()
{
    test::addScreenRows();
}

void TestWindowSize::pipelineTabFitsTheScreen()
{
    // The Pipeline tab (review finding N3): Play, the timeline and the memory-per-stage chart on
    // screen together, with no scrolling, on a 1280 x 720 projector and at 1080p, in the
    // normal and the presentation type; four stages, as the review's lesson had.
    QFETCH(QSize, size);
    QFETCH(bool, presentation);
    MainWindow w;
    w.session()->edit([](Scenario &s) { s.layout.pipelineParallel = 4; });
    QVERIFY(test::shownAt(w, size));
    w.setPresentationMode(presentation);
    w.showView(MainWindow::View::Timeline);
    for (int i = 0; i < 3; ++i)
        QCoreApplication::processEvents();
    // At 1280 x 720 the window keeps its frame on the screen too (a few pixels less).
    QVERIFY(w.width() <= size.width() && w.width() >= size.width() - 8);
    QVERIFY(w.height() <= size.height() && w.height() >= size.height() - 8);
    TimelinePanel *panel = w.timelinePanel();
    QVERIFY(panel->isVisible());
    QVERIFY(panel->timeline().valid());
    QWidget *viewport = panel->parentWidget(); // the tab's scroll area's viewport
    const QString where = QStringLiteral("%1x%2 %3")
                              .arg(size.width())
                              .arg(size.height())
                              .arg(presentation ? "presentation" : "normal");
    QVERIFY2(panel->height() <= viewport->height() && panel->width() <= viewport->width(),
             qPrintable(QStringLiteral("%1: the panel needs %2x%3 of a %4x%5 tab")
                            .arg(where)
                            .arg(panel->width())
                            .arg(panel->height())
                            .arg(viewport->width())
                            .arg(viewport->height())));
    const QRect visible = viewport->rect();
    const auto onScreen = [&](const QWidget *widget, const char *what) {
        const QRect r(widget->mapTo(viewport, QPoint(0, 0)), widget->size());
        return std::pair{widget->isVisible() && visible.contains(r),
                         QStringLiteral("%1: %2 at %3,%4 %5x%6 outside the %7x%8 tab")
                             .arg(where, QLatin1String(what))
                             .arg(r.x())
                             .arg(r.y())
                             .arg(r.width())
                             .arg(r.height())
                             .arg(visible.width())
                             .arg(visible.height())};
    };
    for (const auto &[widget, what] :
         std::initializer_list<std::pair<const QWidget *, const char *>>{
             {panel->playButton(), "Play"},
             {panel->scrubSlider(), "the scrub bar"},
             {panel->timelineView()->plot(), "the timeline"},
             {panel->memoryChart()->plot(), "the stage memory chart"}}) {
        const auto [ok, message] = onScreen(widget, what);
        QVERIFY2(ok, qPrintable(message));
    }
    if (const QString dir = qEnvironmentVariable("SHARDSCOPE_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QDir().mkpath(dir);
        QVERIFY(
            w.grab().save(QDir(dir).filePath(QStringLiteral("pipeline-%1x%2-%3.png")
                                                 .arg(size.width())
                                                 .arg(size.height())
                                                 .arg(presentation ? "presentation" : "normal"))));
    }
    // Each plot with room for its lines: four stage rows, four memory lines.
    for (const QCustomPlot *plot : {panel->timelineView()->plot(), panel->memoryChart()->plot()}) {
        QVERIFY2(plot->axisRect()->height() >= 80,
                 qPrintable(QStringLiteral("%1: axis rect %2 px high")
                                .arg(where)
                                .arg(plot->axisRect()->height())));
    }
}

int main(int argc, char **argv)
{
    // One 1280 x 720 screen, whatever QT_QPA_PLATFORM the test runs under.
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(R"({"screens": [{"name": "projector", "x": 0, "y": 0, "width": 1280,
                   "height": 720, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})") < 0)
        return 1;
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    QApplication app(argc, argv);
    TestWindowSize test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_windowsize.moc"
