#include "mainwindow.h"

#include "advancedpanel.h"
#include "breakdownview.h"
#include "chartexport.h"
#include "comparechart.h"
#include "hfconfig.h"
#include "inputfile.h"
#include "livepanel.h"
#include "memorychart.h"
#include "palette.h"
#include "scenariofile.h"
#include "settings.h"
#include "timelinepanel.h"

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
#include <QScrollArea>
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
#include <QVBoxLayout>
#include <cmath>

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
    rightLayout->setContentsMargins(12, 12, 12, 12);
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
    memorySplit->addWidget(m_breakdown);
    memorySplit->setStretchFactor(0, 3);
    memorySplit->setStretchFactor(1, 1);
    m_breakdown->setMinimumWidth(360);
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
    // The lesson bar: title, one sentence, and the way through the steps.
    m_lessonBar = new QWidget;
    m_lessonBar->setObjectName(QStringLiteral("lessonBar"));
    auto *lessonLayout = new QHBoxLayout(m_lessonBar);
    auto *lessonPrev = new QPushButton(QStringLiteral("◀ Back"));
    auto *lessonNext = new QPushButton(QStringLiteral("Next ▶"));
    auto *lessonEnd = new QPushButton(QStringLiteral("End lesson"));
    m_lessonTitle = new QLabel;
    m_lessonLabel = new QLabel;
    m_lessonLabel->setWordWrap(true);
    m_lessonTitle->setWordWrap(true); // a long title must not widen the window
    QFont lf = m_lessonLabel->font();
    lf.setPointSizeF(15);
    m_lessonLabel->setFont(lf);
    lf.setBold(true);
    m_lessonTitle->setFont(lf);
    auto *lessonText = new QVBoxLayout;
    lessonText->addWidget(m_lessonTitle);
    lessonText->addWidget(m_lessonLabel);
    lessonLayout->addWidget(lessonPrev);
    lessonLayout->addLayout(lessonText, 1);
    lessonLayout->addWidget(lessonNext);
    lessonLayout->addWidget(lessonEnd);
    m_lessonBar->setVisible(false);
    connect(lessonPrev, &QPushButton::clicked, this, [this] { stepLesson(-1); });
    connect(lessonNext, &QPushButton::clicked, this, [this] { stepLesson(+1); });
    connect(lessonEnd, &QPushButton::clicked, this, &MainWindow::endLesson);
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
    });
    connect(m_chart, &MemoryChart::groupClicked, this, [this](int group) {
        m_selectedGroup = group;
        m_breakdown->setReport(m_model->scenario(), m_model->report(), m_model->unit(), group);
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
    resize(1600, 950);
    setAcceptDrops(true);

    connect(m_model, &ScenarioModel::changed, this, &MainWindow::redraw);
    buildMenus();
    syncControls();
    redraw();
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
        if (!path.isEmpty() && !openFile(path, &error))
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
    if (!text.isEmpty())
        m_summary->setText(QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                               .arg(overflowsColor().name(), text.toHtmlEscaped()));
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
            if (!openFile(path, &error))
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

void MainWindow::endLesson()
{
    m_lesson = -1;
    m_lessonBar->setVisible(false);
}

QString MainWindow::lessonText() const
{
    return m_lesson < 0 ? QString() : m_lessonLabel->text();
}

void MainWindow::applyLessonStep()
{
    const Lesson &lesson = m_lessons[std::size_t(m_lesson)];
    const LessonStep &step = lesson.steps[std::size_t(m_lessonStep)];
    const ScenarioDocument doc = lessonDocument(lesson, m_lessonStep);
    m_model->setUnit(doc.unit);
    m_model->setScenario(doc.scenario);
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
    m_lessonTitle->setText(QStringLiteral("%1 · step %2 of %3: %4")
                               .arg(lesson.title)
                               .arg(m_lessonStep + 1)
                               .arg(lesson.steps.size())
                               .arg(step.title));
    m_lessonLabel->setText(step.text);
}

void MainWindow::keyPressEvent(QKeyEvent *event)
{
    // Arrow keys walk a lesson; space plays the pipeline animation.
    if (m_lesson >= 0 && (event->key() == Qt::Key_Right || event->key() == Qt::Key_PageDown)) {
        stepLesson(+1);
        return;
    }
    if (m_lesson >= 0 && (event->key() == Qt::Key_Left || event->key() == Qt::Key_PageUp)) {
        stepLesson(-1);
        return;
    }
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
    if (!openFile(urls.first().toLocalFile(), &error))
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
    m_chart->setStyle(style);
    m_compare->setStyle(style);
    m_breakdown->setFontScale(m_presentation ? 1.4 : 1.0);
    QFont panel = font();
    panel.setPointSizeF(m_presentation ? 17 : 12);
    m_controlPanel->setFont(panel);
    QFont vf = m_verdict->font();
    vf.setPointSizeF(m_presentation ? 30 : 20);
    m_verdict->setFont(vf);
    QFont sf = m_summary->font();
    sf.setPointSizeF(m_presentation ? 18 : 13);
    m_summary->setFont(sf);
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
    m_gpuSpin = new QSpinBox;
    const Setting &gpusSetting = *settingByKey("gpus");
    m_gpuSpin->setRange(int(gpusSetting.displayMin()), int(gpusSetting.displayMax()));
    m_gpuSpin->setObjectName(QStringLiteral("setting:gpus"));
    m_gpuSpin->setToolTip(
        QString::fromUtf8(gpusSetting.help.data(), qsizetype(gpusSetting.help.size())));
    m_gpuSpin->setGroupSeparatorShown(true);
    m_gpuSpin->setSuffix(QStringLiteral(" GPUs"));
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
