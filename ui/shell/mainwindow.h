#pragma once

#include "chartexport.h"
#include "headlinecontrols.h"
#include "lessonplayer.h"
#include "session.h"

#include <QColor>
#include <QMainWindow>
#include <functional>

class QAction;
class QButtonGroup;
class QPushButton;
class QUndoStack;
class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;
class QTabWidget;
class QMenu;
class QScrollArea;
class QSplitter;
class QTimer;

namespace shardscope {

class AdvancedPanel;
class BlankScreen;
class ScenarioHistory;
class BreakdownView;
class ChartView;
class CompareChart;
class LivePanel;
class PlanPanel;
class StepTimeBar;
class SweepChart;
class MemoryChart;
class NumbersTable;
class TimelinePanel;

/// The explorer window, composed of parts that each own one job: HeadlineControls (the
/// left column), LessonPlayer (the lesson bar and presenter keys), ScenarioHistory (undo
/// and redo), the verdict line, and the tabs (memory bars and breakdown, pipeline
/// timeline, strategy comparison, live GPUs). Every part reads the one Session and
/// redraws through LazyRefresh, so hidden tabs wait until shown. The wheel turns only a
/// control that has focus; over any other it scrolls the panel.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    /// The model-size slider's log scale and the GPU slider's counts (HeadlineControls).
    static int modelSliderPosition(std::int64_t parameters)
    {
        return HeadlineControls::modelSliderPosition(parameters);
    }
    static std::int64_t modelSliderParameters(int position)
    {
        return HeadlineControls::modelSliderParameters(position);
    }
    static constexpr int modelSliderSteps = HeadlineControls::modelSliderSteps;

    Session *session() const { return m_session; }
    MemoryChart *chart() const { return m_chart; }
    HeadlineControls *controls() const { return m_controls; }
    LessonPlayer *lessonPlayer() const { return m_lessons; }
    QSlider *modelSlider() const { return m_controls->modelSlider(); }
    QSlider *gpuSlider() const { return m_controls->gpuSlider(); }
    QSpinBox *gpuSpin() const { return m_controls->gpuSpin(); }
    QButtonGroup *strategyButtons() const { return m_controls->strategyButtons(); }
    QComboBox *modelCombo() const { return m_controls->modelCombo(); }
    QComboBox *gpuCombo() const { return m_controls->gpuCombo(); }
    QComboBox *recipeCombo() const { return m_controls->recipeCombo(); }
    /// The verdict's headline ("Overflows by 1,115 GB per GPU", or the whole sentence when
    /// it fits or has no reason) and, under it, the reason.
    QLabel *verdictLabel() const { return m_verdict; }
    QLabel *verdictReasonLabel() const { return m_verdictReason; }
    /// The "What fits?" line under the verdict (whatFitsText(), core/planner.h), whole.
    QString whatFitsText() const { return m_whatFitsText; }
    /// The whole verdict sentence (verdictText(), core/format.h).
    QString verdictSentence() const { return m_verdictSentence; }
    QLabel *modelInfoLabel() const { return m_controls->modelInfoLabel(); }
    AdvancedPanel *advancedPanel() const { return m_controls->advancedPanel(); }
    BreakdownView *breakdownView() const { return m_breakdown; }
    QTabWidget *tabs() const { return m_tabs; }
    QCheckBox *modelStatesOnlyBox() const { return m_controls->modelStatesOnlyBox(); }

    /// Presentation mode: large type and thick lines, high contrast, only the
    /// headline controls (model, GPUs, strategy) left in the panel. In a window under
    /// 800 pixels high (a 1280 x 720 projector) the type steps down (verdict 22 pt, not
    /// 30) and the bars take the donut's and the summary line's room.
    void setPresentationMode(bool on);
    bool presentationMode() const { return m_presentation; }
    /// Dark or light theme for the window and every chart.
    void setDarkTheme(bool on);
    bool darkTheme() const { return m_dark; }
    /// Toggles full screen (key F).
    void toggleFullScreen();
    /// Shows or hides the control column (View > Control column, Ctrl+B): hidden, the
    /// charts take the window's width, as a presenter view; the menus and keys still
    /// drive every setting.
    void setControlColumnShown(bool shown);
    bool controlColumnShown() const;
    /// The black cover of View > Blank screen (keys B and '.', as slide software and
    /// clickers send); any key or click ends it.
    BlankScreen *blankScreen() const { return m_blank; }

    /// Tabs, in order.
    enum class View
    {
        Memory = 0,
        Timeline = 1,
        Compare = 2,
        Live = 3,
        Plan = 4,
        Sweep = 5
    };
    void showView(View v);
    /// Runs now the redraws that wait for a slider to rest (the summary line, the numbers
    /// table, the donut and the step-time bar, 150 ms after the last change), so a
    /// screenshot shows the current scenario in every part of the window.
    void settle();
    /// The chart that draws view v (the panel itself, not its scroll area): what File >
    /// Export chart and Copy chart put on a slide.
    ChartView *viewChart(View v) const;

    /// Loads a scenario file (or, failing that, a Hugging Face config.json, or a launch
    /// config: io/openedfile.h) into the window; a lesson file (told by its content,
    /// isLessonJson()) goes to openLessonFile(). On a bad file returns false, sets
    /// `*error` and changes nothing. A launch config's layout applies over the defaults
    /// with the window's model and GPU kept; its notes (what the file could not say) are
    /// then openNotes(), shown after the summary line with every note in its tooltip.
    bool openFile(const QString &path, QString *error);
    /// The notes of the launch config opened last (empty after any other file or a reset).
    QStringList openNotes() const { return m_openNotes; }
    /// Reads a lesson file (docs/lessons.md), adds it to the Lessons menu and starts it at
    /// its first step; returns its index for startLesson(), or -1 with `*error` (one line
    /// naming the file, the step and the field) and nothing changed.
    int openLessonFile(const QString &path, QString *error);
    /// Lessons > Add this view as a lesson step: the current settings, against the
    /// draft's previous step, with the current tab's view (LessonPlayer::addDraftStep()).
    bool addViewAsLessonStep(const QString &title, const QString &text, QString *error);
    /// Lessons > Save lesson as: writes the draft (LessonPlayer::saveDraft()).
    bool saveLesson(const QString &path, const QString &title, QString *error)
    {
        return m_lessons->saveDraft(path, title, error);
    }
    /// The memory chart's lesson options (View menu, both on at start): one y axis for
    /// all of a lesson's steps, and the previous step's bars as a faint ghost.
    void setLessonChartOptions(bool fixedScale, bool ghost);
    /// Saves every setting to a versioned scenario file, atomically.
    bool saveScenario(const QString &path, QString *error);
    /// The current tab's slide options at 1920 x 1080: the title `shardscope export
    /// --chart` gives the same chart (chartregistry.h slideTitle, e.g. the verdict; the
    /// tab's name for Live and Plan) and the settings as caption (scenarioCaption()).
    ExportOptions slideOptions() const;
    /// Exports the current tab's chart to PNG, SVG or PDF (by extension) at `size`,
    /// with slideOptions()' title and caption; a name ending in .html (or .htm) gets one
    /// self-contained page of the Memory, Pipeline, Compare or Sweep chart with its numbers
    /// and the command lines (exportHtml(), ui/charts/htmlexport.h).
    bool exportCurrentChart(const QString &path, QSize size, QString *error);
    /// The same with the options given (File > Export chart's dialog, ExportSlideDialog).
    bool exportCurrentChart(const QString &path, const ExportOptions &options, QString *error);
    /// Writes the current numbers (File > Export data): a path ending in .json gets the
    /// report as `shardscope report --json` writes it, any other the per-GPU table as CSV
    /// (toCsv(), exact bytes). Atomic; on failure sets `*error` and writes nothing.
    bool exportData(const QString &path, QString *error);
    /// The file name a save or export dialog proposes: scenarioFileStem() + `suffix`,
    /// e.g. "llama3-70b-64xh100-ddp.png".
    QString defaultFileName(const QString &suffix) const;
    /// The numbers table under the memory bars.
    NumbersTable *numbersTable() const { return m_numbers; }
    /// Where one step goes, the stacked time bar under the memory bars; it follows a
    /// change with the donut, once a drag rests.
    StepTimeBar *stepTimeBar() const { return m_timeBar; }

    /// The undo history: one ScenarioChangeCommand per change of the scenario or unit
    /// (a slider drag, a lesson step or an opened file is one). It starts empty when the
    /// window is first shown.
    QUndoStack *undoStack() const;
    /// Puts every setting back to the window's start (Llama 3 70B, 64 x H100 SXM, DDP,
    /// mixed-precision AdamW, GB) as one undoable step, and leaves any lesson.
    void resetToDefaults();
    /// The `shardscope` command line that opens this window's scenario, unit, tab, sweep axis
    /// and presentation mode (windowCommandLine(), io/commandline.h), quoted for a shell.
    /// With `report` true, `shardscope report ...` for the same scenario and unit instead.
    /// `*notes` (when not null) gets what the flags cannot state.
    QString commandLine(bool report = false, QStringList *notes = nullptr) const;
    /// Edit > Copy as command line (Ctrl+Alt+C), and Copy as report command line: puts
    /// commandLine(report) on the clipboard and shows it, with any notes, in the status
    /// bar for ten seconds (the bar shows only while it holds a message).
    void copyCommandLine(bool report = false);

    /// The lessons (LessonPlayer): start one at its first step (index into
    /// builtInLessons()), step it, leave it, and read its bar.
    void startLesson(int index) { m_lessons->startLesson(index); }
    int lessonCount() const { return int(m_lessons->lessons().size()); }
    /// Steps of lesson `index` (0 for an index out of range).
    int lessonStepCount(int index) const
    {
        return index >= 0 && index < lessonCount()
                   ? int(m_lessons->lessons()[std::size_t(index)].steps.size())
                   : 0;
    }
    bool stepLesson(int delta) { return m_lessons->stepLesson(delta); }
    void endLesson() { m_lessons->endLesson(); }
    QString lessonText() const { return m_lessons->lessonText(); }
    QString lessonChangesText() const { return m_lessons->lessonChangesText(); }
    int lessonStep() const { return m_lessons->lessonStep(); }

    TimelinePanel *timelinePanel() const { return m_timeline; }
    CompareChart *compareChart() const { return m_compare; }
    PlanPanel *planPanel() const { return m_plan; }
    SweepChart *sweepChart() const { return m_sweep; }

    /// On the window's spin boxes, combo boxes and sliders: a wheel turn without focus is
    /// ignored, so it scrolls the panel. On the breakdown's viewport: fits the donut.
    bool eventFilter(QObject *watched, QEvent *event) override;

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void buildMenus();
    void applyLook();
    void applyTextSizes();
    double panelPointSize() const;
    void configureInputControls();
    void fitBreakdown();
    void redraw();
    /// The summary line: model, GPUs, strategy, the step time and the report's first note.
    void showSummary();
    void redrawMemoryView();
    /// The numbers table, the step-time bar and the donut for the current report.
    void redrawBreakdown();
    void openFromUser(const QString &path);
    /// File > Open measurement: reads a snapshot pickle, profiler timeline or nvidia-smi log
    /// (readMeasurementFile()) into the Session, whose memory chart draws it beside the
    /// bars; a refused or malformed file shows its one-line message and changes nothing.
    /// True when opened.
    bool openMeasurementFile(const QString &path);
    void showMessage(const QString &text);
    void showWhatFits();
    void rebuildRecentMenu();
    void rebuildLessonsMenu();
    /// The small dialog behind "Add this view as a lesson step…".
    void askForLessonStep();

    Session *m_session = nullptr;
    ScenarioHistory *m_history = nullptr;
    HeadlineControls *m_controls = nullptr;
    LessonPlayer *m_lessons = nullptr;
    MemoryChart *m_chart = nullptr;
    NumbersTable *m_numbers = nullptr;
    StepTimeBar *m_timeBar = nullptr;
    QSplitter *m_chartColumn = nullptr; ///< the bars, the step's time bar, the numbers table
    QLabel *m_verdict = nullptr;
    QLabel *m_verdictReason = nullptr;
    QString m_verdictSentence;
    QWidget *m_whatFitsRow = nullptr; ///< the bold title and the line beside it
    QLabel *m_whatFitsTitle = nullptr;
    QLabel *m_whatFits = nullptr;
    QString m_whatFitsText;
    QScrollArea *m_controlScroll = nullptr;   ///< holds m_controls
    QAction *m_controlColumnAction = nullptr; ///< View > Control column
    BlankScreen *m_blank = nullptr;           ///< View > Blank screen
    QLabel *m_summary = nullptr;
    QTimer *m_summaryTimer = nullptr; ///< the summary line follows once a drag rests
    QColor m_verdictColor;            ///< the verdict's background, whose style sheet is set
    BreakdownView *m_breakdown = nullptr;
    QScrollArea *m_breakdownScroll = nullptr; ///< holds m_breakdown
    QTabWidget *m_tabs = nullptr;
    int m_selectedGroup = -1; ///< group shown in the breakdown (-1: the peak group)
    bool m_presentation = false;
    bool m_statusBarFollowsMessage = false; ///< copyCommandLine() hid the bar once it empties
    bool m_dark = false;
    TimelinePanel *m_timeline = nullptr;
    CompareChart *m_compare = nullptr;
    LivePanel *m_live = nullptr;
    PlanPanel *m_plan = nullptr;
    SweepChart *m_sweep = nullptr;
    bool m_shown = false;
    bool m_compact = false;                   ///< shorter than compactHeight: smaller type
    static constexpr int compactHeight = 800; ///< below this, presentation type steps down
    QSize m_fittedSize;                       ///< the size the constructor chose for the screen
    QMenu *m_recentMenu = nullptr;
    QMenu *m_lessonsMenu = nullptr;
    QAction *m_fixedScaleAction = nullptr; ///< View > Fixed scale in lessons
    QAction *m_ghostAction = nullptr;      ///< View > Ghost of the previous step
    QTimer *m_breakdownTimer = nullptr;    ///< coalesces breakdown and time bar redraws in drags
    QString m_message;
    QString m_openNotesFile; ///< the launch config whose notes are shown, by file name
    QStringList m_openNotes; ///< what that launch config could not say (openNotes())
};

} // namespace shardscope
