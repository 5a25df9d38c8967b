#include "mainwindow.h"

#include "advancedpanel.h"
#include "breakdownview.h"
#include "chartexport.h"
#include "chartstyle.h"
#include "comparechart.h"
#include "hfconfig.h"
#include "inputfile.h"
#include "livepanel.h"
#include "memorychart.h"
#include "palette.h"
#include "scenariochanges.h"
#include "scenariofile.h"
#include "settings.h"
#include "timelinepanel.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLabel>
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
#include <QStyleFactory>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

namespace shardscope {

namespace {

/// Selects the item whose data is `id`. An id not in the list (a custom recipe or GPU
/// from a file or a lesson) selects a trailing item with data `customId`, added once and
/// showing `name` (or `customText` when the name is empty), so the box never names a
/// preset the scenario does not use.
void selectOrShowCustom(QComboBox *combo, const QString &id, const QString &name,
                        const QString &customId, const QString &customText)
{
    int index = id == customId ? -1 : combo->findData(id);
    if (index < 0) {
        index = combo->findData(customId);
        if (index < 0) {
            combo->addItem(QString(), customId);
            index = combo->count() - 1;
        }
        combo->setItemText(index, name.isEmpty() ? customText : name);
    }
    combo->setCurrentIndex(index);
}

constexpr double logMinParams = 8.0;          // 1e8 = 0.1B
const double logMaxParams = std::log10(2e12); // 2T

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString count(std::int64_t n)
{
    return QLocale(QLocale::English).toString(qlonglong(n));
}

} // namespace

int MainWindow::modelSliderPosition(std::int64_t parameters)
{
    const double l = std::log10(std::max<double>(double(parameters), 1.0));
    const double f = (l - logMinParams) / (logMaxParams - logMinParams);
    return int(std::lround(std::clamp(f, 0.0, 1.0) * modelSliderSteps));
}

std::int64_t MainWindow::modelSliderParameters(int position)
{
    const double f = double(std::clamp(position, 0, modelSliderSteps)) / modelSliderSteps;
    return std::int64_t(
        std::llround(std::pow(10.0, logMinParams + f * (logMaxParams - logMinParams))));
}

QList<int> MainWindow::gpuSliderCounts(int multiple)
{
    static const QList<int> nice = [] {
        QList<int> c{1};
        for (int p = 2; p <= maxGpuSliderCount; p *= 2) {
            if (p >= 4)
                c << p * 3 / 4;
            c << p;
        }
        return c;
    }();
    multiple = std::clamp(multiple, 1, maxGpuSliderCount);
    QList<int> counts;
    for (int c : nice)
        if (std::int64_t(c) * multiple <= maxGpuSliderCount)
            counts << c * multiple;
    return counts;
}

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_model(new ScenarioModel(Catalog::builtIn(), this))
{
    setWindowTitle(QStringLiteral("ShardScope: where GPU memory goes"));

    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(12, 8, 12, 8);
    m_verdict = new QLabel;
    m_verdict->setWordWrap(true);
    m_verdict->setObjectName(QStringLiteral("verdict"));
    QFont vf = m_verdict->font();
    vf.setPointSizeF(20);
    vf.setBold(true);
    m_verdict->setFont(vf);
    m_verdict->setMargin(12);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    QFont sf = m_summary->font();
    sf.setPointSizeF(13);
    m_summary->setFont(sf);
    m_chart = new MemoryChart;
    m_breakdown = new BreakdownView;
    auto *memorySplit = new QSplitter;
    memorySplit->addWidget(m_chart);
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
    m_tabs->addTab(memorySplit, QStringLiteral("Memory per GPU"));
    m_timeline = new TimelinePanel(m_model);
    // Its control row is wide: scroll rather than widen the window.
    auto *timelineScroll = new QScrollArea;
    timelineScroll->setWidget(m_timeline);
    timelineScroll->setWidgetResizable(true);
    timelineScroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(timelineScroll, QStringLiteral("Pipeline timeline"));
    m_compare = new CompareChart;
    m_tabs->addTab(m_compare, QStringLiteral("Compare strategies"));
    m_live = new LivePanel(m_model);
    m_tabs->addTab(m_live, QStringLiteral("Live GPUs"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentIndex() == int(View::Compare))
            m_compare->setScenario(m_model->scenario(), m_model->unit());
    });
    QFont tabFont = m_tabs->font();
    tabFont.setPointSizeF(13);
    m_tabs->tabBar()->setFont(tabFont);
    // The lesson bar: the way through the steps and the title on top, the sentence and
    // what the step changed below, across the whole bar. The buttons keep one size in
    // the top row, so repeated clicks on Next land on Next whatever a step's text.
    m_lessonBar = new QWidget;
    m_lessonBar->setObjectName(QStringLiteral("lessonBar"));
    auto *lessonLayout = new QVBoxLayout(m_lessonBar);
    lessonLayout->setContentsMargins(0, 0, 0, 4);
    lessonLayout->setSpacing(2);
    m_lessonPrev = new QPushButton(QStringLiteral("◀ Back"));
    m_lessonNext = new QPushButton(QStringLiteral("Next ▶"));
    m_lessonEnd = new QPushButton(QStringLiteral("End lesson"));
    m_lessonPrev->setToolTip(QStringLiteral("Previous step (Left, PageUp or Backspace)"));
    m_lessonNext->setToolTip(QStringLiteral("Next step (Right, PageDown or Space)"));
    m_lessonEnd->setToolTip(QStringLiteral("Leave the lesson (Escape)"));
    m_lessonName = new QLabel;
    m_lessonTitle = new QLabel;
    m_lessonLabel = new QLabel;
    m_lessonChanges = new QLabel;
    m_lessonChanges->setObjectName(QStringLiteral("lessonChanges"));
    m_lessonLabel->setWordWrap(true);
    m_lessonName->setWordWrap(true); // a long title must not widen the window
    m_lessonTitle->setWordWrap(true);
    m_lessonChanges->setWordWrap(true);
    QFont lf = m_lessonLabel->font();
    lf.setPointSizeF(15);
    m_lessonLabel->setFont(lf);
    lf.setBold(true);
    m_lessonTitle->setFont(lf);
    QFont nf = m_lessonName->font();
    nf.setPointSizeF(12);
    m_lessonName->setFont(nf);
    QFont cf = m_lessonChanges->font();
    cf.setPointSizeF(13);
    cf.setItalic(true);
    m_lessonChanges->setFont(cf);
    QFont bf = m_lessonPrev->font();
    bf.setPointSizeF(13);
    QSize buttonSize(0, 0);
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd}) {
        b->setFont(bf);
        buttonSize = buttonSize.expandedTo(b->sizeHint());
    }
    buttonSize = buttonSize.expandedTo(QSize(120, 40));
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd})
        b->setFixedSize(buttonSize);
    auto *top = new QHBoxLayout;
    top->setSpacing(8);
    top->addWidget(m_lessonPrev, 0, Qt::AlignTop);
    top->addWidget(m_lessonNext, 0, Qt::AlignTop);
    auto *titles = new QVBoxLayout; // the lesson's name over the step's title
    titles->setSpacing(0);
    titles->addWidget(m_lessonName);
    titles->addWidget(m_lessonTitle);
    top->addLayout(titles, 1);
    top->addWidget(m_lessonEnd, 0, Qt::AlignTop);
    lessonLayout->addLayout(top);
    lessonLayout->addWidget(m_lessonLabel);
    lessonLayout->addWidget(m_lessonChanges);
    m_lessonBar->setVisible(false);
    connect(m_lessonPrev, &QPushButton::clicked, this, [this] { stepLesson(-1); });
    connect(m_lessonNext, &QPushButton::clicked, this, [this] { stepLesson(+1); });
    connect(m_lessonEnd, &QPushButton::clicked, this, &MainWindow::endLesson);
    rightLayout->addWidget(m_lessonBar);
    rightLayout->addWidget(m_verdict);
    rightLayout->addWidget(m_summary);
    rightLayout->addWidget(m_tabs, 1);
    m_breakdownTimer = new QTimer(this);
    m_breakdownTimer->setSingleShot(true);
    m_breakdownTimer->setInterval(150);
    connect(m_breakdownTimer, &QTimer::timeout, this, [this] {
        m_breakdown->setReport(m_model->scenario(), m_model->report(), m_model->unit(),
                               m_selectedGroup);
        fitBreakdown();
    });
    connect(m_chart, &MemoryChart::groupClicked, this, [this](int group) {
        m_selectedGroup = group;
        m_breakdown->setReport(m_model->scenario(), m_model->report(), m_model->unit(), group);
        fitBreakdown();
    });

    auto *scroll = new QScrollArea;
    scroll->setWidget(buildControls());
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(430);
    scroll->setMaximumWidth(540);
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

    m_undo = new QUndoStack(this);
    m_snapshot = ScenarioSnapshot::of(*m_model);
    m_snapshotKey = m_snapshot.key();
    m_defaults = m_snapshot;
    m_clock.start();
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::redraw);
    connect(m_model, &ScenarioModel::changed, this, &MainWindow::recordChange);
    buildMenus();
    configureInputControls();
    syncControls();
    redraw();
    applySegmentStyle();
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
    m_undo->clear();
    m_snapshot = ScenarioSnapshot::of(*m_model);
    m_snapshotKey = m_snapshot.key();
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

void MainWindow::recordChange()
{
    if (m_restoring || m_batch > 0)
        return;
    ScenarioSnapshot now = ScenarioSnapshot::of(*m_model);
    QByteArray key = now.key();
    if (key == m_snapshotKey)
        return; // the same settings again (a preset chosen twice)
    QStringList keys;
    for (const ScenarioChange &c :
         scenarioChanges(m_snapshot.scenario, m_snapshot.unit, now.scenario, now.unit))
        keys << c.key;
    const bool dragging = m_modelSlider->isSliderDown() || m_gpuSlider->isSliderDown();
    auto *command = new ScenarioChangeCommand(
        m_snapshot, now, keys, m_clock.elapsed(), dragging, !m_justRestored,
        [this](const ScenarioSnapshot &s) { restoreSnapshot(s); });
    m_justRestored = false;
    m_snapshot = std::move(now);
    m_snapshotKey = std::move(key);
    m_undo->push(command);
}

void MainWindow::asOneChange(const std::function<void()> &change)
{
    ++m_batch;
    change();
    --m_batch;
    recordChange();
}

void MainWindow::restoreSnapshot(const ScenarioSnapshot &snapshot)
{
    m_restoring = true;
    m_model->setUnit(snapshot.unit);
    m_model->setScenario(snapshot.scenario, snapshot.scaled);
    m_restoring = false;
    m_justRestored = true; // the next change is a new step, not part of this one
    m_snapshot = snapshot;
    m_snapshotKey = snapshot.key();
}

void MainWindow::resetToDefaults()
{
    endLesson();
    asOneChange([this] {
        m_model->setUnit(m_defaults.unit);
        m_model->setScenario(m_defaults.scenario, m_defaults.scaled);
    });
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(QStringLiteral("&File"));
    QAction *open = file->addAction(QStringLiteral("&Open scenario or config.json…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, QStringLiteral("Open"), QString(),
            QStringLiteral("Scenarios and Hugging Face configs (*.json);;All files (*)"));
        QString error;
        bool opened = true;
        if (!path.isEmpty())
            asOneChange([&] { opened = openFile(path, &error); }); // one undo step
        if (!opened)
            showMessage(error);
    });
    m_recentMenu = file->addMenu(QStringLiteral("Open &recent"));
    rebuildRecentMenu();
    QAction *save = file->addAction(QStringLiteral("&Save scenario…"));
    save->setShortcut(QKeySequence::Save);
    connect(save, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, QStringLiteral("Save scenario"), QStringLiteral("scenario.shardscope.json"),
            // *.shardscope.json is the MIME glob the desktop entry opens (packaging/).
            QStringLiteral("ShardScope scenario (*.shardscope.json);;JSON (*.json)"));
        QString error;
        if (!path.isEmpty() && !saveScenario(path, &error))
            showMessage(error);
    });
    file->addSeparator();
    QAction *exportChart = file->addAction(QStringLiteral("&Export chart…"));
    exportChart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportChart, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, QStringLiteral("Export chart"), QStringLiteral("shardscope.png"),
            QStringLiteral("PNG 1920x1080 (*.png);;SVG (*.svg);;PDF (*.pdf)"));
        QString error;
        if (!path.isEmpty() && !exportCurrentChart(path, QSize(1920, 1080), &error))
            showMessage(error);
    });
    QAction *export4k = file->addAction(QStringLiteral("Export chart at 3840×2160…"));
    connect(export4k, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export chart (4K)"),
                                                          QStringLiteral("shardscope-4k.png"),
                                                          QStringLiteral("PNG (*.png)"));
        QString error;
        if (!path.isEmpty() && !exportCurrentChart(path, QSize(3840, 2160), &error))
            showMessage(error);
    });
    QAction *copy = file->addAction(QStringLiteral("&Copy chart"));
    copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(copy, &QAction::triggered, this, [this] {
        ExportOptions o;
        o.title = m_tabs->tabText(m_tabs->currentIndex());
        o.caption = scenarioCaption(m_model->scenario());
        if (m_tabs->currentIndex() == int(View::Memory))
            copyPlotToClipboard(m_chart->plot(), o);
        else if (m_tabs->currentIndex() == int(View::Compare))
            copyPlotToClipboard(m_compare->plot(), o);
        else
            copyWidgetToClipboard(viewWidget(View(m_tabs->currentIndex())), o);
    });
    file->addSeparator();
    QAction *quit = file->addAction(QStringLiteral("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    // Every change of the scenario is undoable, from any control, lesson or file.
    QMenu *edit = menuBar()->addMenu(QStringLiteral("&Edit"));
    QAction *undo = m_undo->createUndoAction(this, QStringLiteral("&Undo"));
    undo->setObjectName(QStringLiteral("undo"));
    undo->setShortcuts(QKeySequence::Undo);
    edit->addAction(undo);
    QAction *redo = m_undo->createRedoAction(this, QStringLiteral("&Redo"));
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

    QStringList lessonErrors;
    m_lessons = builtInLessons(&lessonErrors);
    QMenu *lessons = menuBar()->addMenu(QStringLiteral("&Lessons"));
    for (int i = 0; i < int(m_lessons.size()); ++i) {
        QAction *a = lessons->addAction(m_lessons[std::size_t(i)].title);
        connect(a, &QAction::triggered, this, [this, i] { startLesson(i); });
    }
    if (!lessonErrors.isEmpty())
        showMessage(lessonErrors.join(QStringLiteral("; ")));

    QMenu *view = menuBar()->addMenu(QStringLiteral("&View"));
    QAction *present = view->addAction(QStringLiteral("&Presentation mode"));
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F5));
    connect(present, &QAction::toggled, this, &MainWindow::setPresentationMode);
    QAction *dark = view->addAction(QStringLiteral("&Dark theme"));
    dark->setCheckable(true);
    dark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(dark, &QAction::toggled, this, &MainWindow::setDarkTheme);
    QAction *full = view->addAction(QStringLiteral("&Full screen"));
    full->setShortcuts({QKeySequence(Qt::Key_F), QKeySequence(Qt::Key_F11)});
    connect(full, &QAction::triggered, this, &MainWindow::toggleFullScreen);
    // Escape leaves full screen, as slide software does.
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(escape, &QShortcut::activated, this, [this] {
        if (isFullScreen())
            toggleFullScreen();
    });
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

void MainWindow::showView(View v)
{
    m_tabs->setCurrentIndex(int(v));
}

QWidget *MainWindow::viewWidget(View v) const
{
    return v == View::Timeline ? static_cast<QWidget *>(m_timeline) : m_tabs->widget(int(v));
}

bool MainWindow::openFile(const QString &path, QString *error)
{
    // The same reader, limit and messages as --scenario and --hf-config (io/inputfile.h).
    const auto read = readInputFile(path, error);
    if (!read)
        return false;
    const QByteArray &bytes = *read;
    const QString name = QFileInfo(path).fileName();
    QString scenarioError;
    if (auto doc = scenarioFromBytes(bytes, name, &scenarioError)) {
        m_model->setUnit(doc->unit);
        m_model->setScenario(doc->scenario);
        QSettings settings;
        RecentFiles(settings).add(QFileInfo(path).absoluteFilePath());
        rebuildRecentMenu();
        m_message.clear();
        return true;
    }
    // Not a scenario: perhaps a Hugging Face config.json.
    QString hfError;
    if (auto model = modelFromHfConfig(bytes, &hfError)) {
        if (model->displayName.empty())
            model->displayName = QFileInfo(path).dir().dirName().toStdString();
        m_model->edit([&model](Scenario &s) { s.model = *model; });
        m_message.clear();
        return true;
    }
    // A file that says it is a scenario gets the scenario's error alone.
    if (QJsonDocument::fromJson(bytes).object().value(QStringLiteral("schema")).toString() ==
        QLatin1String(scenarioFileSchema)) {
        *error = scenarioError;
        return false;
    }
    *error = QStringLiteral("%1 is neither a ShardScope scenario (%2) nor a Hugging Face "
                            "config.json (%3)")
                 .arg(name, scenarioError, hfError);
    return false;
}

bool MainWindow::saveScenario(const QString &path, QString *error)
{
    if (!saveScenarioFile(path, m_model->scenario(), m_model->unit(), error))
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
        connect(a, &QAction::triggered, this, [this, path] {
            QString error;
            bool opened = true;
            asOneChange([&] { opened = openFile(path, &error); });
            if (!opened)
                showMessage(error);
        });
    }
    m_recentMenu->setEnabled(!files.isEmpty());
}

bool MainWindow::exportCurrentChart(const QString &path, QSize size, QString *error)
{
    ExportOptions o;
    o.size = size;
    o.title =
        QStringLiteral("%1: %2").arg(m_tabs->tabText(m_tabs->currentIndex()), m_verdict->text());
    o.caption = scenarioCaption(m_model->scenario());
    switch (View(m_tabs->currentIndex())) {
    case View::Memory:
        return exportPlot(m_chart->plot(), path, o, error);
    case View::Compare:
        return exportPlot(m_compare->plot(), path, o, error);
    case View::Timeline:
    case View::Live:
        break;
    }
    return exportWidget(viewWidget(View(m_tabs->currentIndex())), path, o, error);
}

void MainWindow::startLesson(int index)
{
    if (index < 0 || index >= int(m_lessons.size()))
        return;
    m_lesson = index;
    m_lessonStep = 0;
    m_lessonBar->setVisible(true);
    // The presenter keys, whatever has focus: see eventFilter().
    qApp->installEventFilter(this);
    applyLessonStep();
}

bool MainWindow::stepLesson(int delta)
{
    if (m_lesson < 0)
        return false;
    const int next = m_lessonStep + delta;
    if (next < 0 || next >= int(m_lessons[std::size_t(m_lesson)].steps.size()))
        return false;
    m_lessonStep = next;
    applyLessonStep();
    return true;
}

void MainWindow::goToLessonStep(int step)
{
    if (m_lesson < 0)
        return;
    const int last = int(m_lessons[std::size_t(m_lesson)].steps.size()) - 1;
    step = std::clamp(step, 0, last);
    if (step == m_lessonStep)
        return;
    m_lessonStep = step;
    applyLessonStep();
}

void MainWindow::endLesson()
{
    m_lesson = -1;
    m_lessonBar->setVisible(false);
    qApp->removeEventFilter(this);
}

QString MainWindow::lessonText() const
{
    return m_lesson < 0 ? QString() : m_lessonLabel->text();
}

QString MainWindow::lessonChangesText() const
{
    return m_lesson < 0 ? QString() : m_lessonChanges->text();
}

bool MainWindow::handleLessonKey(QKeyEvent *event)
{
    // Plain keys only (a keypad's PageDown too): Ctrl+Home and the like stay the widget's.
    if ((event->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false;
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
        if (event->type() == QEvent::KeyPress)
            stepLesson(+1);
        return true;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Backspace:
        if (event->type() == QEvent::KeyPress)
            stepLesson(-1);
        return true;
    case Qt::Key_Home:
        if (event->type() == QEvent::KeyPress)
            goToLessonStep(0);
        return true;
    case Qt::Key_End:
        if (event->type() == QEvent::KeyPress)
            goToLessonStep(std::numeric_limits<int>::max());
        return true;
    case Qt::Key_Escape:
        if (event->type() == QEvent::KeyPress)
            endLesson();
        return true;
    default:
        return false;
    }
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    const QEvent::Type type = event->type();
    if (m_lesson >= 0 && (type == QEvent::KeyPress || type == QEvent::ShortcutOverride)) {
        // Keys for this window's widgets only: a file dialog, a menu or a combo box's
        // open list keep theirs. Taking the ShortcutOverride keeps shortcuts (Escape's
        // leave-full-screen) from firing; taking the KeyPress keeps the focused widget
        // (a spin box's cursor, a slider's Home, the tab bar's arrows) from acting too.
        auto *widget = qobject_cast<QWidget *>(watched);
        if (widget && widget->window() == this &&
            handleLessonKey(static_cast<QKeyEvent *>(event))) {
            event->accept();
            return true;
        }
        return false;
    }
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

void MainWindow::applyLessonStep()
{
    const Lesson &lesson = m_lessons[std::size_t(m_lesson)];
    const LessonStep &step = lesson.steps[std::size_t(m_lessonStep)];
    const ScenarioDocument doc = lessonDocument(lesson, m_lessonStep);
    // What the step changes on screen, named: with the advanced settings hidden the
    // sentence alone would not say that the sequence length or the offload moved.
    const ScenarioSnapshot before = ScenarioSnapshot::of(*m_model);
    asOneChange([this, &doc] {
        m_model->setUnit(doc.unit);
        m_model->setScenario(doc.scenario);
    });
    m_lessonChanges->setText(
        changesSentence(scenarioChanges(before.scenario, before.unit, doc.scenario, doc.unit)));
    switch (lessonViewAt(lesson, m_lessonStep)) {
    case LessonView::Memory:
        showView(View::Memory);
        break;
    case LessonView::Timeline:
        showView(View::Timeline);
        break;
    case LessonView::Compare:
        showView(View::Compare);
        break;
    }
    m_lessonName->setText(lesson.title);
    m_lessonTitle->setText(QStringLiteral("Step %1 of %2: %3")
                               .arg(m_lessonStep + 1)
                               .arg(lesson.steps.size())
                               .arg(step.title));
    m_lessonLabel->setText(step.text);
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
    QString error;
    bool opened = true;
    asOneChange([&] { opened = openFile(urls.first().toLocalFile(), &error); });
    if (!opened)
        showMessage(error);
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
    for (QWidget *w : m_secondaryControls)
        w->setVisible(!on);
    if (on)
        m_advanced->setVisible(false);
    applyLook();
}

void MainWindow::setDarkTheme(bool on)
{
    m_dark = on;
    applyLook();
}

void MainWindow::applyLook()
{
    // Window colours: Fusion with a dark palette, or the default light one.
    if (m_dark) {
        QPalette p;
        p.setColor(QPalette::Window, QColor(0x1E, 0x20, 0x25));
        p.setColor(QPalette::WindowText, QColor(0xEE, 0xEE, 0xEE));
        p.setColor(QPalette::Base, QColor(0x12, 0x14, 0x18));
        p.setColor(QPalette::AlternateBase, QColor(0x26, 0x29, 0x30));
        p.setColor(QPalette::Text, QColor(0xEE, 0xEE, 0xEE));
        p.setColor(QPalette::Button, QColor(0x2B, 0x2E, 0x35));
        p.setColor(QPalette::ButtonText, QColor(0xEE, 0xEE, 0xEE));
        p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));
        p.setColor(QPalette::HighlightedText, Qt::black);
        p.setColor(QPalette::ToolTipBase, QColor(0x26, 0x29, 0x30));
        p.setColor(QPalette::ToolTipText, QColor(0xEE, 0xEE, 0xEE));
        setPalette(p);
    } else {
        setPalette(QApplication::style()->standardPalette());
    }
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
    // little, so a long verdict keeps to two or three lines; the donut gives its width
    // and the summary line (the panel beside it says the same) its height to the bars,
    // whose labels would collide at presentation size.
    m_compact = height() < compactHeight;
    const bool roomy = !(m_presentation && m_compact);
    m_breakdownScroll->setVisible(roomy);
    m_summary->setVisible(roomy || !m_message.isEmpty());
    QFont panel = font();
    panel.setPointSizeF(panelPointSize());
    m_controlPanel->setFont(panel);
    applySegmentStyle();
    QFont vf = m_verdict->font();
    vf.setPointSizeF(m_presentation ? (m_compact ? 22 : 30) : 20);
    m_verdict->setFont(vf);
    QFont sf = m_summary->font();
    sf.setPointSizeF(m_presentation ? (m_compact ? 14 : 18) : 13);
    m_summary->setFont(sf);
}

double MainWindow::panelPointSize() const
{
    return m_presentation ? (m_compact ? 15 : 17) : 12;
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    if ((height() < compactHeight) != m_compact)
        applyTextSizes();
}

void MainWindow::applySegmentStyle()
{
    // The strategy and unit buttons: the selected one filled with Okabe-Ito blue (light
    // theme) or sky blue (dark), the others the plain face, so the choice reads from the
    // back of a room: WCAG 2.1 contrast between the faces, selected against unselected,
    // 5.0:1 light (#0072B2 on #FAFAFA) and 5.9:1 dark (#56B4E9 on #2B2E35); the labels
    // on them 5.2:1 (white on blue) and 9.1:1 (black on sky blue). Focus: a dashed edge.
    struct Colors
    {
        const char *face, *text, *edge, *hover, *selected, *selectedText, *selectedEdge, *focus;
    };
    static const Colors light{"#FAFAFA", "#1A1A1A", "#8A8A8A", "#E3EEF6",
                              "#0072B2", "#FFFFFF", "#004F7C", "#1A1A1A"};
    static const Colors dark{"#2B2E35", "#EEEEEE", "#70757F", "#363A43",
                             "#56B4E9", "#000000", "#A8D8F5", "#EEEEEE"};
    const Colors &c = m_dark ? dark : light;
    const QString css =
        QStringLiteral("QPushButton { background-color: %1; color: %2; border: 1px solid %3; "
                       "border-radius: 6px; padding: 4px 4px; }"
                       "QPushButton:hover:!checked { background-color: %4; }"
                       "QPushButton:checked { background-color: %5; color: %6; "
                       "border: 2px solid %7; }"
                       "QPushButton:focus { border: 2px dashed %8; }")
            .arg(QLatin1String(c.face), QLatin1String(c.text), QLatin1String(c.edge),
                 QLatin1String(c.hover), QLatin1String(c.selected), QLatin1String(c.selectedText),
                 QLatin1String(c.selectedEdge), QLatin1String(c.focus));
    // A style sheet stops the panel's font reaching the button: give its size here.
    const QString size = QStringLiteral("QPushButton { font-size: %1pt; }").arg(panelPointSize());
    for (QButtonGroup *group : {m_strategy, m_unit})
        for (QAbstractButton *b : group->buttons())
            b->setStyleSheet(size + css);
}

QWidget *MainWindow::buildControls()
{
    const Catalog &catalog = m_model->catalog();
    auto *panel = new QWidget;
    m_controlPanel = panel;
    auto *layout = new QVBoxLayout(panel);
    QFont big = panel->font();
    big.setPointSizeF(12);
    panel->setFont(big);

    // Model: preset list plus a log-scale size slider.
    auto *modelBox = new QGroupBox(QStringLiteral("Model"));
    auto *modelForm = new QVBoxLayout(modelBox);
    m_modelCombo = new QComboBox;
    for (const Model &m : catalog.models())
        m_modelCombo->addItem(qs(m.displayName), qs(m.id));
    m_modelCombo->addItem(QStringLiteral("Scaled from the size slider"), QStringLiteral("scaled"));
    // Models from a file or the command line (their name replaces this text).
    m_modelCombo->addItem(QStringLiteral("Custom model"), QStringLiteral("custom"));
    m_modelSlider = new QSlider(Qt::Horizontal);
    m_modelSlider->setRange(0, modelSliderSteps);
    m_modelSlider->setPageStep(25);
    m_modelSlider->setToolTip(QStringLiteral("Model size, log scale from 0.1B to 2T parameters"));
    m_modelSlider->setAccessibleName(QStringLiteral("Model size")); // its value: redraw()
    m_modelSize = new QLabel;
    QFont sizeFont = big;
    sizeFont.setPointSizeF(16);
    sizeFont.setBold(true);
    m_modelSize->setFont(sizeFont);
    m_modelInfo = new QLabel;
    m_modelInfo->setWordWrap(true);
    modelForm->addWidget(m_modelCombo);
    modelForm->addWidget(m_modelSize);
    modelForm->addWidget(m_modelSlider);
    auto *ends = new QHBoxLayout;
    ends->addWidget(new QLabel(QStringLiteral("0.1B")));
    ends->addStretch();
    ends->addWidget(new QLabel(QStringLiteral("2T")));
    modelForm->addLayout(ends);
    modelForm->addWidget(m_modelInfo);
    m_secondaryControls << m_modelInfo;
    layout->addWidget(modelBox);

    connect(m_modelCombo, &QComboBox::activated, this, [this](int index) {
        const QString id = m_modelCombo->itemData(index).toString();
        if (id == QStringLiteral("custom"))
            return; // already the current model
        if (id == QStringLiteral("scaled"))
            m_model->setScaledModel(modelSliderParameters(m_modelSlider->value()));
        else
            m_model->setModelPreset(id.toStdString());
    });
    connect(m_modelSlider, &QSlider::valueChanged, this,
            [this](int pos) { m_model->setScaledModel(modelSliderParameters(pos)); });

    // GPUs: count slider + exact spin box, and the card.
    auto *gpuBox = new QGroupBox(QStringLiteral("GPUs"));
    auto *gpuForm = new QVBoxLayout(gpuBox);
    m_gpuSlider = new QSlider(Qt::Horizontal);
    m_gpuCounts = gpuSliderCounts();
    m_gpuSlider->setRange(0, int(m_gpuCounts.size()) - 1);
    m_gpuSlider->setPageStep(2);
    m_gpuSlider->setToolTip(QStringLiteral("GPU count, 1 to %1 (the box takes up to %2)")
                                .arg(QLocale(QLocale::English).toString(maxGpuSliderCount))
                                .arg(QLocale(QLocale::English).toString(qlonglong(maxGpus))));
    m_gpuSlider->setAccessibleName(QStringLiteral("GPU count")); // its value: redraw()
    m_gpuSpin = new QSpinBox;
    const Setting &gpusSetting = *settingByKey("gpus");
    m_gpuSpin->setRange(int(gpusSetting.displayMin()), int(gpusSetting.displayMax()));
    m_gpuSpin->setObjectName(QStringLiteral("setting:gpus"));
    m_gpuSpin->setToolTip(
        QString::fromUtf8(gpusSetting.help.data(), qsizetype(gpusSetting.help.size())));
    m_gpuSpin->setGroupSeparatorShown(true);
    m_gpuSpin->setSuffix(QStringLiteral(" GPUs"));
    m_gpuSpin->setAccessibleName(QStringLiteral("GPUs"));
    m_gpuSpin->setMinimumWidth(140);
    auto *countRow = new QHBoxLayout;
    countRow->addWidget(m_gpuSlider, 1);
    countRow->addWidget(m_gpuSpin);
    gpuForm->addLayout(countRow);
    m_gpuCombo = new QComboBox;
    for (const Gpu &g : catalog.gpus())
        m_gpuCombo->addItem(qs(g.name), qs(g.id));
    gpuForm->addWidget(m_gpuCombo);
    layout->addWidget(gpuBox);

    connect(m_gpuSlider, &QSlider::valueChanged, this,
            [this](int pos) { m_model->setGpus(m_gpuCounts.value(pos, 1)); });
    connect(m_gpuSpin, &QSpinBox::valueChanged, this, [this](int v) { m_model->setGpus(v); });
    connect(m_gpuCombo, &QComboBox::activated, this, [this](int index) {
        m_model->setGpu(m_gpuCombo->itemData(index).toString().toStdString());
    });

    // Strategy: segmented buttons, big enough for a projector.
    auto *strategyBox = new QGroupBox(QStringLiteral("Strategy (data parallel)"));
    strategyBox->setObjectName(QStringLiteral("setting:strategy"));
    auto *strategyRow = new QHBoxLayout(strategyBox);
    m_strategy = new QButtonGroup(this);
    for (int z = 0; z <= 3; ++z) {
        auto *b = new QPushButton(z == 3 ? QStringLiteral("ZeRO-3\n/ FSDP")
                                         : QString::fromUtf8(zeroStageName(ZeroStage(z)).data()));
        b->setCheckable(true);
        b->setMinimumHeight(52);
        static const char *tips[] = {
            "DDP: every GPU keeps a full copy of weights, gradients and optimizer states",
            "ZeRO-1: optimizer states (and fp32 master weights) sharded over the GPUs",
            "ZeRO-2: gradients sharded too (FSDP SHARD_GRAD_OP)",
            "ZeRO-3 / FSDP FULL_SHARD: weights sharded too; gathered layer by layer"};
        b->setToolTip(QString::fromLatin1(tips[z]));
        b->setAccessibleName(b->text().replace(u'\n', u' ')); // "ZeRO-3 / FSDP"
        m_strategy->addButton(b, z);
        strategyRow->addWidget(b);
    }
    layout->addWidget(strategyBox);
    connect(m_strategy, &QButtonGroup::idClicked, this,
            [this](int id) { m_model->setZeroStage(ZeroStage(id)); });

    // Recipe: preset plus editable bytes per parameter.
    auto *recipeBox = new QGroupBox(QStringLiteral("Training recipe (bytes per parameter)"));
    auto *recipeForm = new QFormLayout(recipeBox);
    m_recipeCombo = new QComboBox;
    for (const Recipe &r : catalog.recipes())
        m_recipeCombo->addItem(qs(r.displayName), qs(r.id));
    m_recipeCombo->addItem(QStringLiteral("Custom"), QStringLiteral("custom"));
    recipeForm->addRow(m_recipeCombo);
    const char *names[] = {"Weights", "Gradients", "Master weights", "Optimizer states"};
    for (int i = 0; i < 4; ++i) {
        m_recipeBytes[i] = new QSpinBox;
        m_recipeBytes[i]->setRange(0, 64);
        m_recipeBytes[i]->setSuffix(QStringLiteral(" B"));
        recipeForm->addRow(QString::fromLatin1(names[i]), m_recipeBytes[i]);
        connect(m_recipeBytes[i], &QSpinBox::valueChanged, this, [this] {
            m_model->setRecipeBytes(m_recipeBytes[0]->value(), m_recipeBytes[1]->value(),
                                    m_recipeBytes[2]->value(), m_recipeBytes[3]->value());
        });
    }
    layout->addWidget(recipeBox);
    m_secondaryControls << recipeBox;
    connect(m_recipeCombo, &QComboBox::activated, this, [this](int index) {
        m_model->setRecipe(m_recipeCombo->itemData(index).toString().toStdString());
    });

    // Unit switch.
    auto *unitBox = new QGroupBox(QStringLiteral("Unit and accounting"));
    auto *unitLayout = new QVBoxLayout(unitBox);
    auto *unitRow = new QHBoxLayout;
    unitLayout->addLayout(unitRow);
    m_unit = new QButtonGroup(this);
    const char *unitTips[] = {"GB = 10^9 bytes, as vendors and papers count",
                              "GiB = 2^30 bytes, as drivers and nvidia-smi count"};
    for (int u = 0; u < 2; ++u) {
        auto *b = new QPushButton(qs(unitName(ByteUnit(u))));
        b->setCheckable(true);
        b->setToolTip(QString::fromLatin1(unitTips[u]));
        m_unit->addButton(b, u);
        unitRow->addWidget(b);
    }
    m_statesOnly = new QCheckBox(QStringLiteral("Model states only (ZeRO paper)"));
    m_statesOnly->setObjectName(QStringLiteral("setting:model_states_only"));
    m_statesOnly->setToolTip(QStringLiteral(
        "Count weights, gradients, master weights and optimizer states only, as the ZeRO "
        "paper's Figure 1 and the teaching notes do. Off: activations and buffers too."));
    unitLayout->addWidget(m_statesOnly);
    layout->addWidget(unitBox);
    m_secondaryControls << unitBox;
    connect(m_unit, &QButtonGroup::idClicked, this,
            [this](int id) { m_model->setUnit(ByteUnit(id)); });
    connect(m_statesOnly, &QCheckBox::toggled, this,
            [this](bool on) { m_model->setModelStatesOnly(on); });

    // Advanced settings, collapsed so the headline controls stay in front.
    auto *more = new QToolButton;
    more->setText(QStringLiteral("Advanced: layout, training step, buffers"));
    more->setCheckable(true);
    more->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    more->setArrowType(Qt::RightArrow);
    more->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_advanced = new AdvancedPanel(m_model);
    m_advanced->setVisible(false);
    connect(more, &QToolButton::toggled, this, [this, more](bool on) {
        more->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        m_advanced->setVisible(on);
    });
    layout->addWidget(more);
    layout->addWidget(m_advanced);
    m_secondaryControls << more;

    // Long preset names must not widen the panel: combos elide instead (their popups
    // show every item whole). 10 characters keep the expanded advanced settings, label
    // beside field, inside the column at the presentation font.
    for (QComboBox *combo : panel->findChildren<QComboBox *>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(10);
    }
    layout->addStretch();
    return panel;
}

void MainWindow::syncControls()
{
    const Scenario &s = m_model->scenario();
    const QSignalBlocker b1(m_modelCombo), b2(m_modelSlider), b3(m_gpuSlider), b4(m_gpuSpin),
        b5(m_gpuCombo), b6(m_recipeCombo);
    const QString modelId = m_model->modelIsScaled() ? QStringLiteral("scaled") : qs(s.model.id);
    int modelIndex = m_modelCombo->findData(modelId);
    if (modelIndex < 0 || modelId == QStringLiteral("custom")) {
        modelIndex = m_modelCombo->findData(QStringLiteral("custom"));
        m_modelCombo->setItemText(
            modelIndex, qs(s.model.displayName.empty() ? "Custom model" : s.model.displayName));
    }
    m_modelCombo->setCurrentIndex(modelIndex);
    if (!m_modelSlider->isSliderDown() && !m_model->modelIsScaled())
        m_modelSlider->setValue(modelSliderPosition(s.model.parameters()));
    m_gpuSpin->setValue(int(std::min<std::int64_t>(s.layout.gpus, m_gpuSpin->maximum())));
    const int multiple = int(std::min<std::int64_t>(s.layout.modelParallel(), maxGpuSliderCount));
    if (m_gpuCounts.value(0) != multiple) {
        m_gpuCounts = gpuSliderCounts(multiple);
        m_gpuSlider->setRange(0, int(m_gpuCounts.size()) - 1);
    }
    if (!m_gpuSlider->isSliderDown()) {
        int best = 0;
        for (int i = 0; i < m_gpuCounts.size(); ++i)
            if (std::abs(m_gpuCounts[i] - s.layout.gpus) <
                std::abs(m_gpuCounts[best] - s.layout.gpus))
                best = i;
        m_gpuSlider->setValue(best);
    }
    selectOrShowCustom(m_gpuCombo, qs(s.gpu.id), qs(s.gpu.name), QStringLiteral("custom-gpu"),
                       QStringLiteral("Custom GPU"));
    selectOrShowCustom(m_recipeCombo, qs(s.recipe.id), qs(s.recipe.displayName),
                       QStringLiteral("custom"), QStringLiteral("Custom"));
    const std::int64_t bytes[] = {s.recipe.weightBytes, s.recipe.gradientBytes,
                                  s.recipe.masterWeightBytes, s.recipe.optimizerBytes};
    for (int i = 0; i < 4; ++i) {
        const QSignalBlocker b(m_recipeBytes[i]);
        m_recipeBytes[i]->setValue(int(bytes[i]));
    }
    if (auto *button = m_strategy->button(int(s.layout.zeroStage)))
        button->setChecked(true);
    if (auto *button = m_unit->button(int(m_model->unit())))
        button->setChecked(true);
    {
        const QSignalBlocker b(m_statesOnly);
        m_statesOnly->setChecked(s.modelStatesOnly);
    }
}

void MainWindow::redraw()
{
    syncControls();
    const Scenario &s = m_model->scenario();
    const MemoryReport &r = m_model->report();
    const ByteUnit unit = m_model->unit();

    m_modelSize->setText(
        s.model.architecture && s.model.architecture->isMoe()
            ? QStringLiteral("%1 parameters, %2 active")
                  .arg(qs(formatParameters(s.model.parameters())),
                       qs(formatParameters(s.model.activeParameters())))
            : QStringLiteral("%1 parameters").arg(qs(formatParameters(s.model.parameters()))));
    QString info;
    if (m_model->modelIsScaled()) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("Scaled Llama-style shape, not a published model: %1 layers, "
                              "hidden %2, FFN %3, %4 heads (%5 KV), vocabulary %6. "
                              "Exactly %7 parameters.")
                   .arg(a.layers)
                   .arg(count(a.hidden), count(a.ffn))
                   .arg(a.heads)
                   .arg(a.kvHeads)
                   .arg(count(a.vocab), count(s.model.parameters()));
    } else if (s.model.architecture && s.model.architecture->isMoe()) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("Mixture of experts: %1 layers, hidden %2, %3 routed experts (%4 "
                              "active per token, FFN %5) plus %6 shared: exactly %7 parameters, "
                              "%8 active per token. Source: %9")
                   .arg(a.layers)
                   .arg(count(a.hidden))
                   .arg(a.experts)
                   .arg(a.activeExperts)
                   .arg(count(a.effectiveExpertFfn()))
                   .arg(a.sharedExperts)
                   .arg(count(s.model.parameters()), count(s.model.activeParameters()),
                        qs(s.model.source));
    } else if (s.model.architecture) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("%1 layers, hidden %2, FFN %3, %4 heads (%5 KV), vocabulary %6: "
                              "exactly %7 parameters. Source: %8")
                   .arg(a.layers)
                   .arg(count(a.hidden), count(a.ffn))
                   .arg(a.heads)
                   .arg(a.kvHeads)
                   .arg(count(a.vocab), count(s.model.parameters()), qs(s.model.source));
    } else {
        info = QStringLiteral("A plain count of %1 parameters (no architecture). Source: %2")
                   .arg(count(s.model.parameters()), qs(s.model.source));
    }
    m_modelInfo->setText(info);
    // What a screen reader says for the sliders (their positions are only steps).
    m_modelSlider->setAccessibleDescription(m_modelSize->text());
    m_gpuSlider->setAccessibleDescription(
        s.layout.gpus == 1 ? QStringLiteral("1 GPU")
                           : QStringLiteral("%1 GPUs").arg(count(s.layout.gpus)));

    m_verdict->setText(qs(verdictText(s, r, unit)));
    const QColor bg = r.fits() ? fitsColor() : overflowsColor();
    m_verdict->setStyleSheet(QStringLiteral("QLabel#verdict { background: %1; color: white; "
                                            "border-radius: 8px; }")
                                 .arg(bg.name()));
    if (r.valid()) {
        m_summary->setText(
            QStringLiteral("%1 on %2 × %3 with %4 (%5 B/param). %6")
                .arg(qs(s.model.displayName), count(s.layout.gpus), qs(s.gpu.shortName),
                     QString::fromUtf8(zeroStageName(s.layout.zeroStage).data()),
                     QString::number(s.recipe.totalBytesPerParameter()),
                     r.notes.empty()
                         ? QStringLiteral("Counts model states, activations and buffers.")
                         : qs(r.notes.front())));
    } else {
        m_summary->clear();
    }
    m_chart->setReport(s, r, unit);
    if (m_tabs->currentIndex() == int(View::Compare)) // four estimates: only when on screen
        m_compare->setScenario(s, unit);
    if (m_selectedGroup >= int(r.groups.size()))
        m_selectedGroup = -1;
    // The donut costs about 12 ms to redraw (tests/bench): during a drag it follows
    // once the slider rests, so the bars keep to one frame.
    m_breakdownTimer->start();
}

} // namespace shardscope
