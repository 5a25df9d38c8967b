#include "mainwindow.h"

#include "advancedpanel.h"
#include "blankscreen.h"
#include "breakdownview.h"
#include "chartexport.h"
#include "chartregistry.h"
#include "chartstyle.h"
#include "commandline.h"
#include "comparechart.h"
#include "exportslidedialog.h"
#include "hfconfig.h"
#include "htmlexport.h"
#include "inputfile.h"
#include "launchconfigread.h"
#include "lazyrefresh.h"
#include "lesson.h"
#include "livepanel.h"
#include "measurement.h"
#include "memorychart.h"
#include "numberstable.h"
#include "oomdialog.h"
#include "openedfile.h"
#include "palette.h"
#include "planpanel.h"
#include "qtext.h"
#include "reportjson.h"
#include "reporttable.h"
#include "scenariochanges.h"
#include "scenariofile.h"
#include "scenariohistory.h"
#include "settings.h"
#include "steptimebar.h"
#include "sweepchart.h"
#include "timelinepanel.h"
#include "wraplabel.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontMetrics>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <array>
#include <cmath>
#include <functional>
#include <limits>

namespace shardscope {

namespace {

QString count(std::int64_t n)
{
    return QLocale(QLocale::English).toString(qlonglong(n));
}

/// The registry's entry `id` (ui/charts/chartregistry.h): every chart of the window is built
/// and drawn through it, as `shardscope export --chart` does.
const ChartEntry &chartEntry(const char *id)
{
    const ChartEntry *entry = findChart(QLatin1String(id));
    Q_ASSERT(entry);
    return *entry;
}

/// The registry's entry of tab `tab` (MainWindow::View order): Memory, Pipeline, Compare
/// and Sweep; null for Live and Plan, which are not in the registry.
const ChartEntry *tabChart(int tab)
{
    static const char *const ids[] = {"memory", "timeline", "compare", nullptr, nullptr, "sweep"};
    return tab >= 0 && tab < int(std::size(ids)) && ids[tab] ? findChart(QLatin1String(ids[tab]))
                                                             : nullptr;
}

/// The registry's chart `id`, built on `session`.
template <typename Chart> Chart *makeChart(const char *id, Session *session)
{
    return static_cast<Chart *>(chartEntry(id).make(session, nullptr));
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_session(new Session(Catalog::builtIn(), this))
{
    setWindowTitle(QStringLiteral("ShardScope: where GPU memory goes"));

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(12, 8, 12, 8);
    m_verdict = new WrapLabel;
    m_verdict->setObjectName(QStringLiteral("verdict"));
    QFont vf = m_verdict->font();
    vf.setPointSizeF(20);
    vf.setBold(true);
    m_verdict->setFont(vf);
    m_verdict->setMargin(12);
    // The reason under the verdict's headline, in the summary's type: a long sentence
    // wraps there instead of taking four lines of the headline's size.
    m_verdictReason = new WrapLabel;
    m_verdictReason->setObjectName(QStringLiteral("verdictReason"));
    // "What fits?": the fewest GPUs per strategy and the fastest layout here, one line
    // (elided; the whole line is its tooltip), following every change.
    // Plain text beside a bold title, not one rich-text label: a rich label lays out a
    // QTextDocument for every width the layout asks about, 1.2 ms of each drag step at
    // 1,024 GPUs (tests/bench BM_SliderToReplot).
    m_whatFitsRow = new QWidget;
    auto *whatFitsLayout = new QHBoxLayout(m_whatFitsRow);
    whatFitsLayout->setContentsMargins(0, 0, 0, 0);
    m_whatFitsTitle = new QLabel(QStringLiteral("What fits?"));
    m_whatFitsTitle->setTextFormat(Qt::PlainText);
    m_whatFitsTitle->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_whatFits = new WrapLabel;
    m_whatFits->setObjectName(QStringLiteral("whatFits"));
    m_whatFits->setTextFormat(Qt::PlainText);
    m_whatFits->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    whatFitsLayout->addWidget(m_whatFitsTitle, 0, Qt::AlignTop);
    whatFitsLayout->addWidget(m_whatFits, 1);
    m_summary = new WrapLabel;
    m_summary->setObjectName(QStringLiteral("summary"));
    QFont sf = m_summary->font();
    sf.setPointSizeF(13);
    m_summary->setFont(sf);
    m_chart = makeChart<MemoryChart>("memory", m_session);
    m_breakdown = new BreakdownView;
    m_numbers = new NumbersTable;
    m_timeBar = makeChart<StepTimeBar>("steptime", m_session);
    m_timeBar->setObjectName(QStringLiteral("stepTimeBar"));
    // The bars, where the step's time goes under them (as high as its text needs), and
    // their numbers; the table takes what the bars leave, and scrolls.
    m_chartColumn = new QSplitter(Qt::Vertical);
    m_chartColumn->addWidget(m_chart);
    m_chartColumn->addWidget(m_timeBar);
    m_chartColumn->addWidget(m_numbers);
    m_chartColumn->setStretchFactor(0, 1);
    m_chartColumn->setStretchFactor(1, 0);
    m_chartColumn->setStretchFactor(2, 0);
    m_chartColumn->setChildrenCollapsible(false);
    auto *memorySplit = new QSplitter;
    memorySplit->addWidget(m_chartColumn);
    // The donut and its table scroll when the window is short (1280 x 720, presentation
    // type) rather than squeeze the table over the donut or make the window taller.
    m_breakdownScroll = new QScrollArea;
    m_breakdownScroll->setWidget(m_breakdown);
    m_breakdownScroll->viewport()->installEventFilter(this); // fitBreakdown() on resize
    m_breakdownScroll->setFrameShape(QFrame::NoFrame);
    m_breakdownScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    memorySplit->addWidget(m_breakdownScroll);
    // Two thirds for the bars: 750 and 377 pixels at 1600 wide; at 1280 the 430-pixel
    // panel leaves 514 for the bars beside the donut's 300.
    memorySplit->setStretchFactor(0, 2);
    memorySplit->setStretchFactor(1, 1);
    m_breakdownScroll->setMinimumWidth(300);
    m_tabs = new QTabWidget;
    m_tabs->addTab(memorySplit, chartEntry("memory").name);
    m_timeline = makeChart<TimelinePanel>("timeline", m_session);
    // Its control row is wide: scroll rather than widen the window.
    auto *timelineScroll = new QScrollArea;
    timelineScroll->setWidget(m_timeline);
    timelineScroll->setWidgetResizable(true);
    timelineScroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(timelineScroll, chartEntry("timeline").name);
    m_compare = makeChart<CompareChart>("compare", m_session);
    m_tabs->addTab(m_compare, chartEntry("compare").name);
    // A click on a strategy's bar selects it, the same undoable edit as its button.
    connect(m_compare, &CompareChart::strategyClicked, m_session, &Session::setZeroStage);
    m_live = new LivePanel(m_session);
    m_tabs->addTab(m_live, QStringLiteral("Live GPUs"));
    // Which layout is fastest that fits: the planner's ranking, plotted; a row loads it.
    m_plan = new PlanPanel(m_session);
    auto *planScroll = new QScrollArea; // its controls and table scroll, not widen the window
    planScroll->setWidget(m_plan);
    planScroll->setWidgetResizable(true);
    planScroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(planScroll, QStringLiteral("Plan"));
    // Each strategy along the GPU count (or the sequence length, micro-batch size): its
    // sweep is about 60 estimates, so it waits, as every hidden view, until it is shown.
    m_sweep = makeChart<SweepChart>("sweep", m_session);
    m_tabs->addTab(m_sweep, chartEntry("sweep").name);
    auto *sweepRefresh = new LazyRefresh(
        m_sweep, m_session, [this] { chartEntry("sweep").draw(*m_sweep, *m_session); });
    sweepRefresh->markStale(); // its first frame, too, when first shown
    // The comparison's four estimates, like every hidden view, wait until it is shown.
    new LazyRefresh(m_compare, m_session,
                    [this] { chartEntry("compare").draw(*m_compare, *m_session); });
    new LazyRefresh(memorySplit, m_session, [this] { redrawMemoryView(); });
    QFont tabFont = m_tabs->font();
    tabFont.setPointSizeF(13);
    m_tabs->tabBar()->setFont(tabFont);
    m_history = new ScenarioHistory(
        m_session, [this] { return m_controls && m_controls->dragging(); }, this);
    m_lessons = new LessonPlayer(
        m_session, [this](const std::function<void()> &change) { m_history->asOneChange(change); });
    connect(m_lessons, &LessonPlayer::runningChanged, this, &MainWindow::applyTextSizes);
    // Leaving a lesson frees the chart's scale and drops the ghost at once.
    connect(m_lessons, &LessonPlayer::runningChanged, this, [this](bool running) {
        if (!running)
            redrawMemoryView();
    });
    connect(m_lessons, &LessonPlayer::viewRequested, this, [this](LessonView v) {
        showView(v == LessonView::Timeline  ? View::Timeline
                 : v == LessonView::Compare ? View::Compare
                                            : View::Memory);
    });
    rightLayout->addWidget(m_lessons);
    rightLayout->addWidget(m_verdict);
    rightLayout->addWidget(m_verdictReason);
    rightLayout->addWidget(m_whatFitsRow);
    rightLayout->addWidget(m_summary);
    rightLayout->addWidget(m_tabs, 1);
    m_summaryTimer = new QTimer(this);
    m_summaryTimer->setSingleShot(true);
    m_summaryTimer->setInterval(150);
    connect(m_summaryTimer, &QTimer::timeout, this, &MainWindow::showSummary);
    m_breakdownTimer = new QTimer(this);
    m_breakdownTimer->setSingleShot(true);
    m_breakdownTimer->setInterval(150);
    connect(m_breakdownTimer, &QTimer::timeout, this, &MainWindow::redrawBreakdown);
    connect(m_chart, &MemoryChart::groupClicked, this, [this](int group) {
        m_selectedGroup = group;
        m_breakdown->setReport(m_session->scenario(), m_session->report(), m_session->unit(),
                               group);
        fitBreakdown();
    });

    auto *scroll = new QScrollArea;
    m_controls = new HeadlineControls(m_session);
    scroll->setWidget(m_controls);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(430);
    scroll->setMaximumWidth(540);
    scroll->setObjectName(QStringLiteral("controlScroll"));
    m_controlScroll = scroll;
    auto *splitter = new QSplitter;
    splitter->addWidget(scroll);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    setCentralWidget(splitter);
    // 1600 x 950, or the screen's free area if that is smaller (a 1280 x 720 projector).
    const QScreen *screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
    m_fittedSize = QSize(1600, 950);
    if (screen)
        m_fittedSize = m_fittedSize.boundedTo(screen->availableGeometry().size());
    resize(m_fittedSize);
    setAcceptDrops(true);

    // The verdict line is always on screen: it redraws on every change.
    connect(m_session, &Session::changed, this, &MainWindow::redraw);
    buildMenus();
    configureInputControls();
    redraw();
    showSummary();
    redrawMemoryView();
    m_numbers->setReport(m_session->scenario(), m_session->report(), m_session->unit());
    m_timeBar->setStepTime(m_session->stepTime());
    m_compare->setScenario(m_session->scenario(), m_session->unit());
    applyTextSizes();
}

void MainWindow::configureInputControls()
{
    // The wheel turns a control only once it has focus (a click or Tab gives it focus,
    // the wheel does not); over any other it scrolls the panel. Typed numbers count on
    // Enter or when focus leaves, so a half-typed "1638" is never a setting and the box
    // does not regroup the digits under the cursor (16384 stays 16384).
    for (QWidget *w : findChildren<QWidget *>()) {
        auto *spin = qobject_cast<QAbstractSpinBox *>(w);
        if (!spin && !qobject_cast<QComboBox *>(w) && !qobject_cast<QSlider *>(w))
            continue;
        w->setFocusPolicy(Qt::StrongFocus);
        w->installEventFilter(this);
        if (spin)
            spin->setKeyboardTracking(false);
    }
}

void MainWindow::fitBreakdown()
{
    // The donut fills the height its table leaves; when the table needs more than there
    // is, the column scrolls instead of drawing the table over the donut. The height a
    // row needs comes from its height for this width (wrapped text), else its minimum.
    const QSize room = m_breakdownScroll->viewport()->size();
    int needed = 0;
    if (QLayout *layout = m_breakdown->layout()) {
        const QMargins m = layout->contentsMargins();
        const int inner = room.width() - m.left() - m.right();
        int items = 0;
        for (int i = 0; i < layout->count(); ++i) {
            QLayoutItem *item = layout->itemAt(i);
            if (item->isEmpty())
                continue;
            needed += item->hasHeightForWidth() ? item->heightForWidth(inner)
                                                : item->minimumSize().height();
            ++items;
        }
        needed += m.top() + m.bottom() + std::max(0, items - 1) * layout->spacing();
    }
    m_breakdown->resize(room.width(), std::max(room.height(), needed));
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_shown)
        return;
    m_shown = true;
    // The history starts with what the window opens on (flags, file, lesson).
    m_history->startHere();
    // At the size chosen for the screen (no --size), keep the frame on it too.
    const QScreen *screen = this->screen();
    if (!screen || size() != m_fittedSize)
        return;
    const QRect free = screen->availableGeometry();
    const QSize frame = frameGeometry().size() - size();
    const QSize fit = m_fittedSize.boundedTo(free.size() - frame);
    if (fit != size())
        resize(fit);
    if (!free.contains(frameGeometry()))
        move(free.topLeft());
}

QUndoStack *MainWindow::undoStack() const
{
    return m_history->undoStack();
}

void MainWindow::resetToDefaults()
{
    endLesson();
    m_openNotes.clear();
    m_history->resetToDefaults();
}

bool MainWindow::openMeasurementFile(const QString &path)
{
    QString error;
    auto m = readMeasurementFile(path, &error);
    if (!m) {
        showMessage(error);
        return false;
    }
    m_session->setMeasurement(std::move(m), QFileInfo(path).fileName());
    return true;
}

void MainWindow::openFromUser(const QString &path)
{
    QString error;
    bool opened = true;
    m_history->asOneChange([&] { opened = openFile(path, &error); }); // one undo step
    if (!opened)
        showMessage(error);
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction *open = file->addAction(QStringLiteral("&Open scenario or config.json…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Open"), QString(),
            QStringLiteral(
                "Scenarios, Hugging Face configs and launch configs (*.json *.yaml *.yml "
                "*.toml *.sh *.args);;All files (*)"));
        if (!path.isEmpty())
            openFromUser(path);
    });
    QAction *openMeasurement = file->addAction(QStringLiteral("Open &measurement…"));
    connect(openMeasurement, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Open measurement"), QString(),
            QStringLiteral("PyTorch snapshots, profiler timelines, nvidia-smi logs "
                           "(*.pickle *.pkl *.json *.csv);;All files (*)"));
        if (!path.isEmpty())
            openMeasurementFile(path);
    });
    QAction *openLesson = file->addAction(QStringLiteral("Open &lesson…"));
    openLesson->setObjectName(QStringLiteral("openLesson"));
    connect(openLesson, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Open lesson"), QString(),
            QStringLiteral("ShardScope lessons (*.json);;All files (*)"));
        QString error;
        if (!path.isEmpty() && openLessonFile(path, &error) < 0)
            showMessage(error);
    });
    m_recentMenu = file->addMenu(QStringLiteral("Open &recent"));
    rebuildRecentMenu();
    // An action that asks where to write (a save dialog titled `title` over `filters`, the
    // default name ending in `suffix`) and writes there with `write`, showing why it failed.
    using Writer = std::function<bool(const QString &path, QString *error)>;
    const auto addSaveAction = [this, file](const QString &text, const QString &title,
                                            const QString &suffix, const QString &filters,
                                            const Writer &write) {
        QAction *action = file->addAction(text);
        connect(action, &QAction::triggered, this, [this, title, suffix, filters, write] {
            const QString path =
                QFileDialog::getSaveFileName(this, title, defaultFileName(suffix), filters);
            QString error;
            if (!path.isEmpty() && !write(path, &error))
                showMessage(error);
        });
        return action;
    };
    QAction *save = addSaveAction(
        QStringLiteral("&Save scenario…"), QStringLiteral("Save scenario"),
        QStringLiteral(".shardscope.json"),
        // *.shardscope.json is the MIME glob the desktop entry opens (packaging/).
        QStringLiteral("ShardScope scenario (*.shardscope.json);;JSON (*.json)"),
        [this](const QString &path, QString *error) { return saveScenario(path, error); });
    save->setShortcut(QKeySequence::Save);
    file->addSeparator();
    // Export: the slide's title, caption and size first (editable), then where.
    const auto addExportAction = [this, file](const QString &text, QSize size) {
        QAction *action = file->addAction(text);
        connect(action, &QAction::triggered, this, [this, size] {
            ExportOptions defaults = slideOptions();
            defaults.size = size;
            ExportSlideDialog dialog(defaults, this);
            if (dialog.exec() != QDialog::Accepted)
                return;
            const ExportOptions o = dialog.options();
            const QString path = QFileDialog::getSaveFileName(
                this, QStringLiteral("Export chart"),
                defaultFileName(
                    o.size == QSize(1920, 1080)
                        ? QStringLiteral(".png")
                        : QStringLiteral("-%1x%2.png").arg(o.size.width()).arg(o.size.height())),
                QStringLiteral("PNG (*.png);;SVG (*.svg);;PDF (*.pdf);;HTML page with the numbers "
                               "and command line (*.html)"));
            QString error;
            if (!path.isEmpty() && !exportCurrentChart(path, o, &error))
                showMessage(error);
        });
        return action;
    };
    addExportAction(QStringLiteral("&Export chart…"), QSize(1920, 1080))
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    addExportAction(QStringLiteral("Export chart at 3840×2160…"), QSize(3840, 2160));
    QAction *copy = file->addAction(QStringLiteral("&Copy chart"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(copy, &QAction::triggered, this,
            [this] { viewChart(View(m_tabs->currentIndex()))->copySlide(slideOptions()); });
    QAction *dataAction = addSaveAction(
        QStringLiteral("Export &data…"), QStringLiteral("Export data"), QStringLiteral(".csv"),
        QStringLiteral("CSV (*.csv);;JSON (*.json)"),
        [this](const QString &path, QString *error) { return exportData(path, error); });
    dataAction->setObjectName(QStringLiteral("exportData"));
    dataAction->setToolTip(QStringLiteral("The per-GPU numbers as CSV (exact bytes) or the "
                                          "whole report as JSON (as shardscope report --json)"));
    file->addSeparator();
    QAction *quit = file->addAction(QStringLiteral("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    // Every change of the scenario is undoable, from any control, lesson or file.
    QMenu *edit = menuBar()->addMenu(QStringLiteral("&Edit"));
    QAction *undo = undoStack()->createUndoAction(this, QStringLiteral("&Undo"));
    undo->setObjectName(QStringLiteral("undo"));
    undo->setShortcuts(QKeySequence::Undo);
    edit->addAction(undo);
    QAction *redo = undoStack()->createRedoAction(this, QStringLiteral("&Redo"));
    redo->setObjectName(QStringLiteral("redo"));
    QList<QKeySequence> redoKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)};
    for (const QKeySequence &k : QKeySequence::keyBindings(QKeySequence::Redo))
        if (!redoKeys.contains(k))
            redoKeys << k;
    redo->setShortcuts(redoKeys);
    edit->addAction(redo);
    edit->addSeparator();
    QAction *reset = edit->addAction(QStringLiteral("Reset to &defaults"));
    reset->setObjectName(QStringLiteral("resetToDefaults"));
    reset->setToolTip(QStringLiteral("Llama 3 70B on 64 x H100, DDP, mixed-precision AdamW "
                                     "(undoable)"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetToDefaults);
    edit->addSeparator();
    // What students type to see the same thing (review): Ctrl+Shift+C is Copy chart.
    QAction *copyLine = edit->addAction(QStringLiteral("Copy as co&mmand line"));
    copyLine->setObjectName(QStringLiteral("copyCommandLine"));
    copyLine->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C));
    copyLine->setToolTip(QStringLiteral("The shardscope command that opens these settings, this "
                                        "tab and this mode"));
    connect(copyLine, &QAction::triggered, this, [this] { copyCommandLine(false); });
    QAction *copyReport = edit->addAction(QStringLiteral("Copy as &report command line"));
    copyReport->setObjectName(QStringLiteral("copyReportCommandLine"));
    copyReport->setToolTip(QStringLiteral("shardscope report with these settings: the same "
                                          "numbers as text, without a window"));
    connect(copyReport, &QAction::triggered, this, [this] { copyCommandLine(true); });

    m_lessonsMenu = menuBar()->addMenu(QStringLiteral("&Lessons"));
    rebuildLessonsMenu();
    if (!m_lessons->loadErrors().isEmpty())
        showMessage(m_lessons->loadErrors());

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    QAction *present = view->addAction(QStringLiteral("&Presentation mode"));
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F5));
    connect(present, &QAction::toggled, this, &MainWindow::setPresentationMode);
    QAction *dark = view->addAction(QStringLiteral("&Dark theme"));
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(dark, &QAction::toggled, this, &MainWindow::setDarkTheme);
    view->addSeparator();
    m_fixedScaleAction = view->addAction(QStringLiteral("Fixed &scale in lessons"));
    m_fixedScaleAction->setObjectName(QStringLiteral("lessonFixedScale"));
    m_fixedScaleAction->setToolTip(QStringLiteral("One y axis for every step of a lesson, at "
                                                  "its largest step"));
    m_ghostAction = view->addAction(QStringLiteral("&Ghost of the previous step in lessons"));
    m_ghostAction->setObjectName(QStringLiteral("lessonGhost"));
    m_ghostAction->setToolTip(QStringLiteral("Faint bars of the previous step behind the bars"));
    for (QAction *a : {m_fixedScaleAction, m_ghostAction}) {
        a->setCheckable(true);
        a->setChecked(true);
        connect(a, &QAction::toggled, this, [this] { redrawMemoryView(); });
    }
    view->addSeparator();
    // What the Sweep tab varies (Session::setSweepAxis()).
    QMenu *sweep = view->addMenu(QStringLiteral("S&weep against"));
    auto *sweepGroup = new QActionGroup(this);
    const std::array<std::pair<SweepAxis, QString>, 4> axes = {
        {{SweepAxis::Gpus, QStringLiteral("&GPUs")},
         {SweepAxis::SequenceLength, QStringLiteral("&Sequence length")},
         {SweepAxis::MicroBatchSize, QStringLiteral("&Micro-batch size")},
         {SweepAxis::StepTimeGpus, QStringLiteral("Step &time against GPUs")}}};
    for (const auto &[axis, label] : axes) {
        QAction *a = sweep->addAction(label);
        a->setObjectName(QStringLiteral("sweep:") + toQString(sweepAxisId(axis)));
        a->setCheckable(true);
        a->setChecked(axis == m_session->sweepAxis());
        sweepGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, axis] {
            m_session->setSweepAxis(axis);
            showView(View::Sweep);
        });
    }
    connect(m_session, &Session::changed, sweepGroup, [this, sweepGroup] {
        const QString id =
            QStringLiteral("sweep:") + toQString(sweepAxisId(m_session->sweepAxis()));
        for (QAction *a : sweepGroup->actions())
            if (a->objectName() == id && !a->isChecked())
                a->setChecked(true);
    });
    view->addSeparator();
    QAction *full = view->addAction(QStringLiteral("&Full screen"));
    full->setShortcuts({QKeySequence(Qt::Key_F), QKeySequence(Qt::Key_F11)});
    connect(full, &QAction::triggered, this, &MainWindow::toggleFullScreen);
    // A presenter view: the charts the window's width; the menus and keys still work.
    m_controlColumnAction = view->addAction(QStringLiteral("&Control column"));
    m_controlColumnAction->setCheckable(true);
    m_controlColumnAction->setChecked(true);
    m_controlColumnAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    connect(m_controlColumnAction, &QAction::toggled, m_controlScroll, &QWidget::setVisible);
    // Black, as slide software does on B or '.' (what clickers send for their blank key).
    // A text field with the focus keeps the letters it is typed (its shortcut override).
    m_blank = new BlankScreen(this);
    QAction *blank = view->addAction(QStringLiteral("&Blank screen"));
    blank->setShortcuts({QKeySequence(Qt::Key_B), QKeySequence(Qt::Key_Period)});
    connect(blank, &QAction::triggered, m_blank, &BlankScreen::blank);
    QMenu *tools = menuBar()->addMenu(QStringLiteral("&Tools"));
    QAction *oom = tools->addAction(QStringLiteral("E&xplain an out-of-memory message…"));
    oom->setObjectName(QStringLiteral("action:explain-oom"));
    connect(oom, &QAction::triggered, this, [this] {
        auto *dialog = new OomDialog(*m_session, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    // Escape leaves full screen, as slide software does.
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, [this] {
        if (isFullScreen())
            toggleFullScreen();
    });
}

void MainWindow::setControlColumnShown(bool shown)
{
    m_controlColumnAction->setChecked(shown); // toggled() shows or hides the column
}

bool MainWindow::controlColumnShown() const
{
    return m_controlColumnAction->isChecked();
}

void MainWindow::showMessage(const QString &text)
{
    m_message = text;
    if (!text.isEmpty()) {
        m_summary->setText(QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                               .arg(overflowsColor().name(), text.toHtmlEscaped()));
        m_summary->setVisible(true); // an error shows even where the summary is hidden
    }
}

QString MainWindow::commandLine(bool report, QStringList *notes) const
{
    const Scenario &s = m_session->scenario();
    CommandLine line;
    if (report) {
        line = reportCommandLine(s, m_session->unit());
    } else {
        static const QString views[] = {QStringLiteral("memory"),  QStringLiteral("timeline"),
                                        QStringLiteral("compare"), QStringLiteral("live"),
                                        QStringLiteral("plan"),    QStringLiteral("sweep")};
        const int tab = m_tabs->currentIndex();
        WindowView view;
        // The memory tab is where the window starts: no --view for it.
        if (tab > 0 && tab < int(std::size(views)))
            view.view = views[tab];
        view.presentation = m_presentation;
        if (tab == int(View::Sweep))
            view.sweepAxis = toQString(sweepAxisId(m_session->sweepAxis()));
        line = windowCommandLine(s, m_session->unit(), view);
    }
    if (notes)
        *notes = line.notes;
    return line.text();
}

void MainWindow::copyCommandLine(bool report)
{
    QStringList notes;
    const QString text = commandLine(report, &notes);
    QGuiApplication::clipboard()->setText(text);
    QStatusBar *bar = statusBar();
    if (!m_statusBarFollowsMessage) {
        // Shown only while it holds a message, so the window's layout is the usual one
        // otherwise (screenshots, the fit tests).
        m_statusBarFollowsMessage = true;
        connect(bar, &QStatusBar::messageChanged, bar,
                [bar](const QString &message) { bar->setVisible(!message.isEmpty()); });
    }
    bar->setVisible(true);
    bar->showMessage(
        QStringLiteral("Copied: %1%2")
            .arg(oneLineText(text),
                 notes.isEmpty()
                     ? QString()
                     : QStringLiteral(" (note: %1)").arg(oneLineText(notes.join(u' ')))),
        10'000);
}

void MainWindow::showView(View v)
{
    m_tabs->setCurrentIndex(int(v));
}

ChartView *MainWindow::viewChart(View v) const
{
    switch (v) {
    case View::Memory:
        return m_chart;
    case View::Timeline:
        return m_timeline;
    case View::Compare:
        return m_compare;
    case View::Live:
        return m_live;
    case View::Plan:
        return m_plan;
    case View::Sweep:
        return m_sweep;
    }
    return m_chart;
}

void MainWindow::rebuildLessonsMenu()
{
    m_lessonsMenu->clear();
    for (int i = 0; i < lessonCount(); ++i) {
        QAction *a = m_lessonsMenu->addAction(m_lessons->lessons()[std::size_t(i)].title);
        connect(a, &QAction::triggered, this, [this, i] { startLesson(i); });
    }
    m_lessonsMenu->addSeparator();
    QAction *add = m_lessonsMenu->addAction(QStringLiteral("&Add this view as a lesson step…"));
    add->setObjectName(QStringLiteral("addLessonStep"));
    add->setToolTip(QStringLiteral("The settings changed since the last step you added, with "
                                   "this tab, a title and a sentence"));
    connect(add, &QAction::triggered, this, &MainWindow::askForLessonStep);
    QAction *save = m_lessonsMenu->addAction(QStringLiteral("&Save lesson as…"));
    save->setObjectName(QStringLiteral("saveLesson"));
    connect(save, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString title = QInputDialog::getText(this, QStringLiteral("Save lesson"),
                                                    QStringLiteral("Lesson title:"),
                                                    QLineEdit::Normal, QString(), &ok);
        if (!ok)
            return;
        const QString path = QFileDialog::getSaveFileName(
            this, QStringLiteral("Save lesson as"), QStringLiteral("my-lesson.json"),
            QStringLiteral("ShardScope lesson (*.json)"));
        QString error;
        if (!path.isEmpty() && !saveLesson(path, title, &error))
            showMessage(error);
    });
}

void MainWindow::askForLessonStep()
{
    QDialog dialog(this);
    dialog.setWindowTitle(QStringLiteral("Add this view as a lesson step"));
    auto *form = new QFormLayout(&dialog);
    auto *title = new QLineEdit;
    auto *text = new QLineEdit;
    title->setPlaceholderText(QStringLiteral("ZeRO-3 on 64 GPUs"));
    text->setPlaceholderText(QStringLiteral("One sentence the class reads, ending in a full "
                                            "stop."));
    text->setMinimumWidth(420);
    form->addRow(QStringLiteral("Step title:"), title);
    form->addRow(QStringLiteral("Sentence:"), text);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QString error;
    if (!addViewAsLessonStep(title->text(), text->text(), &error))
        showMessage(error);
}

bool MainWindow::addViewAsLessonStep(const QString &title, const QString &text, QString *error)
{
    const int tab = m_tabs->currentIndex();
    const LessonView view = tab == int(View::Timeline)  ? LessonView::Timeline
                            : tab == int(View::Compare) ? LessonView::Compare
                                                        : LessonView::Memory;
    return m_lessons->addDraftStep(title, text, view, error);
}

int MainWindow::openLessonFile(const QString &path, QString *error)
{
    auto lesson = loadLessonFile(path, error);
    if (!lesson)
        return -1;
    const int index = m_lessons->addLesson(std::move(*lesson));
    rebuildLessonsMenu();
    m_message.clear();
    startLesson(index);
    return index;
}

void MainWindow::setLessonChartOptions(bool fixedScale, bool ghost)
{
    m_fixedScaleAction->setChecked(fixedScale);
    m_ghostAction->setChecked(ghost);
    redrawMemoryView();
}

bool MainWindow::openFile(const QString &path, QString *error)
{
    // A lesson is told by its content, whatever its name (File > Open, a drop).
    if (const auto bytes = readInputFile(path, error); bytes && isLessonJson(*bytes))
        return openLessonFile(path, error) >= 0;
    const auto opened = openScenarioOrConfig(path, error);
    if (!opened)
        return false;
    QStringList notes;
    const QString name = QFileInfo(path).fileName();
    if (opened->launch) {
        // The layout and batch the file says, over the defaults; the window's model and
        // GPU stay (a launch config names neither).
        ScenarioDocument doc{defaultScenario(), m_session->unit()};
        doc.scenario.model = m_session->scenario().model;
        doc.scenario.gpu = m_session->scenario().gpu;
        if (!applyLaunchConfig(*opened->launch, name, {}, &doc, &notes, error))
            return false;
        if (const std::string e = validate(doc.scenario); !e.empty()) {
            *error = oneLineText(name) + QStringLiteral(": ") + QString::fromStdString(e);
            return false;
        }
        notes.prepend(QStringLiteral("The model and GPU are the window's; what the file does "
                                     "not say is the defaults'."));
        m_session->setScenario(doc.scenario);
    } else if (opened->scenario) {
        m_session->setUnit(opened->scenario->unit);
        m_session->setScenario(opened->scenario->scenario);
        QSettings settings;
        RecentFiles(settings).add(QFileInfo(path).absoluteFilePath());
        rebuildRecentMenu();
    } else {
        m_session->edit([&opened](Scenario &s) { s.model = *opened->model; });
    }
    m_message.clear();
    m_openNotes = notes;
    m_openNotesFile = name;
    showSummary();
    return true;
}

bool MainWindow::saveScenario(const QString &path, QString *error)
{
    if (!saveScenarioFile(path, m_session->scenario(), m_session->unit(), error))
        return false;
    QSettings settings;
    RecentFiles(settings).add(QFileInfo(path).absoluteFilePath());
    rebuildRecentMenu();
    return true;
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    QSettings settings;
    const QStringList files = RecentFiles(settings).files();
    for (const QString &path : files) {
        QAction *a = m_recentMenu->addAction(QFileInfo(path).fileName());
        a->setToolTip(path);
        connect(a, &QAction::triggered, this, [this, path] { openFromUser(path); });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

ExportOptions MainWindow::slideOptions() const
{
    ExportOptions o;
    // The registry's title for the tab's chart, as `shardscope export --chart` titles it;
    // the Live and Plan tabs, outside the registry, by their names.
    const int tab = m_tabs->currentIndex();
    const ChartEntry *entry = tabChart(tab);
    o.title = entry && entry->slideTitle ? entry->slideTitle(*m_session) : m_tabs->tabText(tab);
    o.caption = scenarioCaption(m_session->scenario());
    return o;
}

bool MainWindow::exportCurrentChart(const QString &path, QSize size, QString *error)
{
    ExportOptions o = slideOptions();
    o.size = size;
    return exportCurrentChart(path, o, error);
}

bool MainWindow::exportCurrentChart(const QString &path, const ExportOptions &o, QString *error)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QStringLiteral("html") || suffix == QStringLiteral("htm")) {
        // The page for students (htmlexport.h): the tab's chart from the registry, as
        // `shardscope export --format html` draws it, with the lines that reproduce it.
        const int tab = m_tabs->currentIndex();
        const ChartEntry *entry = tabChart(tab);
        if (!entry) {
            *error = QStringLiteral("An HTML page holds the Memory, Pipeline, Compare or Sweep "
                                    "chart; export this tab as PNG, SVG or PDF");
            return false;
        }
        QStringList notes;
        const QString window = commandLine(false, &notes);
        const Scenario &s = m_session->scenario();
        const QString axis =
            tab == int(View::Sweep) ? toQString(sweepAxisId(m_session->sweepAxis())) : QString();
        const QList<QPair<QString, QString>> commands{
            {QStringLiteral("Open this view in ShardScope"), window},
            {QStringLiteral("Print the report of these settings as text"), commandLine(true)},
            {QStringLiteral("Write this page again"),
             exportCommandLine(s, m_session->unit(), entry->id, axis, QStringLiteral("html"),
                               QFileInfo(path).fileName())
                 .text()}};
        return exportHtml(*entry, m_session, o, commands, notes, path, error);
    }
    return viewChart(View(m_tabs->currentIndex()))->exportSlide(path, o, error);
}

QString MainWindow::defaultFileName(const QString &suffix) const
{
    return QString::fromStdString(scenarioFileStem(m_session->scenario())) + suffix;
}

bool MainWindow::exportData(const QString &path, QString *error)
{
    QByteArray bytes;
    if (path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive)) {
        bytes = QJsonDocument(reportToJson(m_session->scenario(), m_session->report()))
                    .toJson(QJsonDocument::Indented);
    } else {
        if (!m_session->report().valid()) {
            *error = QStringLiteral("Nothing to export: ") +
                     QString::fromStdString(m_session->report().error);
            return false;
        }
        bytes = toCsv(reportTable(m_session->scenario(), m_session->report(), m_session->unit()))
                    .toUtf8();
    }
    return writeBytesAtomically(path, bytes, error);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    const QEvent::Type type = event->type();
    if (type == QEvent::Resize && watched == m_breakdownScroll->viewport()) {
        fitBreakdown();
        return false;
    }
    if (type == QEvent::Wheel) {
        // Installed on the spin boxes, combo boxes and sliders: without focus the wheel
        // scrolls what holds them (ignored here, the event goes on to the parents).
        auto *widget = qobject_cast<QWidget *>(watched);
        if (widget && widget != this && !widget->hasFocus()) {
            event->ignore();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::keyPressEvent(QKeyEvent *event)
{
    // Space plays the pipeline animation (during a lesson eventFilter() takes it first).
    if (event->key() == Qt::Key_Space && m_tabs->currentIndex() == int(View::Timeline)) {
        m_timeline->togglePlay();
        return;
    }
    QMainWindow::keyPressEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    openFromUser(urls.first().toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::toggleFullScreen()
{
    if (isFullScreen())
        showNormal();
    else
        showFullScreen();
}

void MainWindow::setPresentationMode(bool on)
{
    m_presentation = on;
    m_controls->setPresentation(on);
    applyLook();
}

void MainWindow::setDarkTheme(bool on)
{
    m_dark = on;
    applyLook();
}

void MainWindow::applyLook()
{
    // Window colours: a dark palette, or the style's default light one.
    setPalette(m_dark ? darkWindowPalette() : QApplication::style()->standardPalette());
    const ChartStyle style = m_presentation ? ChartStyle::presentation(m_dark)
                             : m_dark       ? ChartStyle::dark()
                                            : ChartStyle::light();
    // Every chart, hidden tabs too, takes the theme and presentation scale at once.
    applyChartStyle(this, style);
    fitBreakdown();
    applyTextSizes();
}

void MainWindow::applyTextSizes()
{
    // Under 800 pixels of height (a 1280 x 720 projector) presentation type steps down a
    // little, and the summary line (the panel beside it says the same) gives its height
    // to the bars.
    m_compact = height() < compactHeight;
    const bool roomy = !(m_presentation && m_compact);
    // In presentation the bars take the donut's width: its table at projector type would
    // wrap every cell, and the bars say the same in the room's type.
    m_breakdownScroll->setVisible(!m_presentation);
    // On a short screen a running lesson's sentence and "Changed:" line say what the
    // summary line would, and the bars need its height.
    const bool lesson = m_lessons->lesson() >= 0;
    m_summary->setVisible((roomy && !(m_compact && lesson)) || !m_message.isEmpty());
    m_whatFitsRow->setVisible(!(m_compact && lesson));
    m_controls->applyLook(m_dark, panelPointSize());
    // Presentation at 1080p: a 36 pt verdict (48 px at 96 dpi), 24 pt lesson sentences
    // (32 px) and 18 pt tabs; a step smaller under 800 pixels of height.
    QFont vf = m_verdict->font();
    vf.setPointSizeF(m_presentation ? (m_compact ? 24 : 36) : 20);
    m_verdict->setFont(vf);
    m_verdict->setMargin(m_compact ? 6 : 12);
    QFont sf = m_summary->font();
    sf.setPointSizeF(m_presentation ? (m_compact ? 15 : 20) : 13);
    m_summary->setFont(sf);
    m_whatFits->setFont(sf);
    QFont bold = sf;
    bold.setBold(true);
    m_whatFitsTitle->setFont(bold);
    QFont rf = sf;
    rf.setPointSizeF(m_presentation ? (m_compact ? 13 : 20) : 13);
    rf.setBold(m_presentation && !m_compact);
    m_verdictReason->setFont(rf);
    // Lesson text 24 px at 1280x720 (18 pt at 96 dpi), 32 px at 1080p; on the short
    // screen the step's title beside the buttons and "Changed:" on one line pay for it.
    m_lessons->setCompact(m_presentation && m_compact);
    m_lessons->setTypeScale(m_presentation ? (m_compact ? 1.2 : 1.6) : 1.0);
    QFont tf = m_tabs->tabBar()->font();
    // 14 pt on a short screen: all six tabs' names whole at 1280 x 720, with no scroll arrows.
    tf.setPointSizeF(m_presentation ? (m_compact ? 14 : 18) : 13);
    m_tabs->tabBar()->setFont(tf);
    // The pipeline tab compact on a short screen in either type, and under a running
    // lesson's bar in presentation: Play, the timeline and the memory-over-time chart on
    // screen together (tests/ui/test_windowsize.cpp). Under a lesson's bar in presentation
    // or on a short screen the memory chart gives the timeline its room, and on a short
    // screen the schedule settings (the step names what it set) go too.
    m_timeline->setCompact(m_compact || (m_presentation && lesson));
    m_timeline->setMemoryChartShown(!(lesson && (m_presentation || m_compact)));
    m_timeline->setScheduleSettingsShown(!(m_compact && lesson));
    // The Plan tab's table beside its chart on a short screen in presentation type: the
    // controls, three rows and the whole chart without scrolling.
    m_plan->setCompact(m_presentation && m_compact);
    // The control column gives way to the chart; the headline controls stay in it.
    m_controlScroll->setMinimumWidth(m_presentation ? (m_compact ? 370 : 420) : 430);
    m_controlScroll->setMaximumWidth(m_presentation ? (m_compact ? 380 : 460) : 540);
    // The numbers table is for the desk, not the projector, and under 800 pixels of
    // height the bars need its room (File > Export data and Copy still have the numbers).
    m_numbers->setVisible(!m_presentation && !m_compact);
    // Where the step goes, under the bars, unless a running lesson's bar takes its room on
    // a short screen (the summary line still says the step time).
    if (const bool shown = !(m_compact && lesson); m_timeBar->isVisibleTo(m_chartColumn) != shown) {
        m_timeBar->setVisible(shown);
        // The column's minimum height changes with it, and so the tabs' and the window's:
        // every widget up the chain forgets its remembered size at once, before the first
        // show too (a lesson started from the command line), so that the window never
        // grows past a 720-pixel screen on a stale minimum.
        m_chartColumn->refresh();
        for (QWidget *w = m_chartColumn->parentWidget(); w && w != this; w = w->parentWidget())
            w->updateGeometry();
    }
}

double MainWindow::panelPointSize() const
{
    return m_presentation ? (m_compact ? 15 : 17) : 12;
}

void MainWindow::showWhatFits()
{
    m_whatFits->setText(m_whatFitsText);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    if ((height() < compactHeight) != m_compact)
        applyTextSizes();
}

void MainWindow::redraw()
{
    const Scenario &s = m_session->scenario();
    const MemoryReport &r = m_session->report();
    const ByteUnit unit = m_session->unit();
    const Verdict &v = m_session->verdict();
    m_verdictSentence = toQString(verdictText(v, s, r, unit));
    // "Overflows by 12 GB per GPU: <why>": the headline before the first ": ", the
    // reason under it (a verdict without a reason is all headline).
    const qsizetype colon = m_verdictSentence.indexOf(QStringLiteral(": "));
    const bool split = colon > 0 && v.kind != Verdict::Kind::Fits;
    m_verdict->setText(split ? m_verdictSentence.left(colon) : m_verdictSentence);
    QString reason = split ? m_verdictSentence.mid(colon + 2) : QString();
    if (!reason.isEmpty())
        reason[0] = reason[0].toUpper(); // a sentence of its own now
    m_verdictReason->setText(reason);
    m_verdictReason->setVisible(split);
    // A style sheet costs a parse and a polish: set it only when the colour changes.
    const QColor bg = v.kind == Verdict::Kind::Fits ? fitsColor() : overflowsColor();
    if (bg != m_verdictColor) {
        m_verdictColor = bg;
        m_verdict->setStyleSheet(QStringLiteral("QLabel#verdict { background: %1; color: white; "
                                                "border-radius: 8px; }")
                                     .arg(bg.name()));
    }
    m_whatFitsText = toQString(shardscope::whatFitsText(m_session->whatFits(), unit));
    showWhatFits();
    // The summary line (a wrapped label, about a millisecond to lay out again) follows
    // once the slider rests, like the donut.
    m_summaryTimer->start();
}

void MainWindow::showSummary()
{
    const Scenario &s = m_session->scenario();
    const MemoryReport &r = m_session->report();
    if (r.valid()) {
        // The step time, MFU and time to train (core/steptime.h) in the same line: the
        // question after "does it fit" is "how fast".
        const StepTime &t = m_session->stepTime();
        m_summary->setText(
            QStringLiteral("%1 on %2 × %3 with %4 (%5 B/param). %6 %7")
                .arg(toQString(s.model.displayName), count(s.layout.gpus),
                     toQString(s.gpu.shortName),
                     QString::fromUtf8(zeroStageName(s.layout.zeroStage).data()),
                     QString::number(s.recipe.totalBytesPerParameter()),
                     t.valid()
                         ? toQString(stepTimeText(t, s.layout.gpus, s.throughput.tokenBudget)) +
                               u'.'
                         : QString(),
                     !r.notes.empty() ? toQString(r.notes.front())
                     : t.valid()      ? QString()
                                      : QStringLiteral("Counts model states, activations and "
                                                            "buffers.")));
    } else {
        m_summary->clear();
    }
    // The report's first note stands in the summary; the others are counted after it and,
    // with a launch config's notes, every one is in the tooltip (the report's first).
    QStringList lines;
    if (r.valid() && r.notes.size() > 1) {
        const int more = int(r.notes.size()) - 1;
        m_summary->setText(m_summary->text() +
                           (more == 1
                                ? QStringLiteral(" 1 more note (hover to read).")
                                : QStringLiteral(" %1 more notes (hover to read).").arg(more)));
        for (const std::string &note : r.notes)
            lines << oneLineText(toQString(note)).toHtmlEscaped();
    }
    if (!m_openNotes.isEmpty()) {
        m_summary->setText(m_summary->text() +
                           QStringLiteral(" %1: %2 (hover to read).")
                               .arg(oneLineText(m_openNotesFile).toHtmlEscaped(),
                                    m_openNotes.size() == 1
                                        ? QStringLiteral("1 note")
                                        : QStringLiteral("%1 notes").arg(m_openNotes.size())));
        for (const QString &note : m_openNotes)
            lines << oneLineText(note).toHtmlEscaped();
    }
    m_summary->setToolTip(
        lines.isEmpty() ? QString()
                        : QStringLiteral("<p>%1</p>").arg(lines.join(QStringLiteral("<br>"))));
}

void MainWindow::redrawBreakdown()
{
    m_numbers->setReport(m_session->scenario(), m_session->report(), m_session->unit());
    chartEntry("steptime").draw(*m_timeBar, *m_session);
    m_breakdown->setReport(m_session->scenario(), m_session->report(), m_session->unit(),
                           m_selectedGroup);
    fitBreakdown();
}

void MainWindow::settle()
{
    if (m_summaryTimer->isActive()) {
        m_summaryTimer->stop();
        showSummary();
    }
    if (m_breakdownTimer->isActive()) {
        m_breakdownTimer->stop();
        redrawBreakdown();
    }
}

void MainWindow::redrawMemoryView()
{
    // A running lesson's scale and ghost, as the View menu asks (both on by default).
    const bool fixed = m_fixedScaleAction && m_fixedScaleAction->isChecked();
    const bool ghost = m_ghostAction && m_ghostAction->isChecked();
    m_chart->setLessonOverlay(fixed ? m_session->lessonScaleBytes() : 0,
                              ghost ? m_session->previousStepReport() : nullptr);
    chartEntry("memory").draw(*m_chart, *m_session);
    if (m_selectedGroup >= int(m_session->report().groups.size()))
        m_selectedGroup = -1;
    // The donut (about 12 ms to redraw, tests/bench), the numbers table (its columns fit
    // their contents) and the step's time bar (stepTime() and a replot) follow once the
    // slider rests, so the bars keep to one frame.
    m_breakdownTimer->start();
}

} // namespace shardscope
