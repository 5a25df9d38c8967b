#pragma once

#include "lesson.h"
#include "scenariochangecommand.h"
#include "scenariomodel.h"

#include <QElapsedTimer>
#include <QMainWindow>
#include <functional>

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
class QTimer;

namespace shardscope {

class AdvancedPanel;
class BreakdownView;
class CompareChart;
class LivePanel;
class MemoryChart;
class TimelinePanel;

/// The explorer window: headline controls (model size, GPU count, strategy, GPU,
/// recipe) on the left; the verdict and the stacked memory chart on the right.
/// Every control writes to the one ScenarioModel; every view redraws from its
/// changed() signal. Sliders track while dragged, so the chart follows the drag.
/// Every change of the model is a step on the undo stack (Edit menu). While a lesson
/// runs, the presenter keys (Right, PageDown, Space / Left, PageUp, Backspace / Home,
/// End / Escape) step it whatever widget has focus. The wheel turns only a control that
/// has focus; over any other it scrolls the panel.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    /// Slider position (0..modelSliderSteps) for a parameter count on the log scale
    /// 1e8 .. 2e12, and back.
    static int modelSliderPosition(std::int64_t parameters);
    static std::int64_t modelSliderParameters(int position);
    static constexpr int modelSliderSteps = 1000;
    /// The GPU counts the GPU slider steps through: 1, 2, 3, 4, 6, 8, 12, ... 16,384,
    /// each times `multiple` (t x p x c, so every step is a valid layout), up to 16,384.
    static QList<int> gpuSliderCounts(int multiple = 1);

    ScenarioModel *scenarioModel() const { return m_model; }
    MemoryChart *chart() const { return m_chart; }
    QSlider *modelSlider() const { return m_modelSlider; }
    QSlider *gpuSlider() const { return m_gpuSlider; }
    QSpinBox *gpuSpin() const { return m_gpuSpin; }
    QButtonGroup *strategyButtons() const { return m_strategy; }
    QComboBox *modelCombo() const { return m_modelCombo; }
    QComboBox *gpuCombo() const { return m_gpuCombo; }
    QComboBox *recipeCombo() const { return m_recipeCombo; }
    QLabel *verdictLabel() const { return m_verdict; }
    QLabel *modelInfoLabel() const { return m_modelInfo; }
    AdvancedPanel *advancedPanel() const { return m_advanced; }
    BreakdownView *breakdownView() const { return m_breakdown; }
    QTabWidget *tabs() const { return m_tabs; }
    QCheckBox *modelStatesOnlyBox() const { return m_statesOnly; }

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

    /// Tabs, in order.
    enum class View
    {
        Memory = 0,
        Timeline = 1,
        Compare = 2,
        Live = 3
    };
    void showView(View v);
    /// The widget that draws view v (the panel itself, not its scroll area).
    QWidget *viewWidget(View v) const;

    /// Loads a scenario file (or, failing that, a Hugging Face config.json) into the
    /// window; on a bad file returns false, sets `*error` and changes nothing.
    bool openFile(const QString &path, QString *error);
    /// Saves every setting to a versioned scenario file, atomically.
    bool saveScenario(const QString &path, QString *error);
    /// Exports the current tab's chart to PNG, SVG or PDF (by extension) at `size`,
    /// with a title and the settings as caption.
    bool exportCurrentChart(const QString &path, QSize size, QString *error);

    /// The undo history: one ScenarioChangeCommand per change of the scenario or unit
    /// (a slider drag, a lesson step or an opened file is one). It starts empty when the
    /// window is first shown.
    QUndoStack *undoStack() const { return m_undo; }
    /// Puts every setting back to the window's start (Llama 3 70B, 64 x H100 SXM, DDP,
    /// mixed-precision AdamW, GB) as one undoable step, and leaves any lesson.
    void resetToDefaults();

    /// Starts a lesson at its first step (index into builtInLessons()). While it runs the
    /// presenter keys step it from any widget of the window (see eventFilter()).
    void startLesson(int index);
    /// Number of built-in lessons.
    int lessonCount() const { return int(m_lessons.size()); }
    /// Steps of lesson `index` (0 for an index out of range).
    int lessonStepCount(int index) const
    {
        return index >= 0 && index < lessonCount() ? int(m_lessons[std::size_t(index)].steps.size())
                                                   : 0;
    }
    /// Steps the running lesson by +1 / -1; returns false at either end or with none.
    bool stepLesson(int delta);
    /// Leaves the lesson; the settings stay where the last step put them.
    void endLesson();
    /// The lesson bar's sentence ("" with no lesson running).
    QString lessonText() const;
    /// The lesson bar's line of what the last step changed, compared with the screen
    /// before it: "Changed: Sequence length → 8,192 tokens" or "No settings changed."
    /// ("" with no lesson running).
    QString lessonChangesText() const;
    int lessonStep() const { return m_lessonStep; }

    TimelinePanel *timelinePanel() const { return m_timeline; }
    CompareChart *compareChart() const { return m_compare; }
    LivePanel *livePanel() const { return m_live; }
    /// The one-line message of the last failed open/save/export ("" when none).
    QString lastMessage() const { return m_message; }

    /// While a lesson runs (installed on the application): Right, PageDown and Space step
    /// forward, Left, PageUp and Backspace back, Home and End go to the first and last
    /// step and Escape ends the lesson, for any widget of this window, before the widget
    /// or a shortcut sees them (digits still type). On the window's spin boxes, combo
    /// boxes and sliders: a wheel turn without focus is ignored, so it scrolls the panel.
    bool eventFilter(QObject *watched, QEvent *event) override;

protected:
    void keyPressEvent(QKeyEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QWidget *buildControls();
    void buildMenus();
    void applyLook();
    void applySegmentStyle();
    void applyTextSizes();
    double panelPointSize() const;
    void configureInputControls();
    void fitBreakdown();
    bool handleLessonKey(QKeyEvent *event);
    void goToLessonStep(int step);
    void recordChange();
    void asOneChange(const std::function<void()> &change);
    void restoreSnapshot(const ScenarioSnapshot &snapshot);
    void syncControls();
    void redraw();

    ScenarioModel *m_model = nullptr;
    MemoryChart *m_chart = nullptr;
    QComboBox *m_modelCombo = nullptr;
    QSlider *m_modelSlider = nullptr;
    QLabel *m_modelSize = nullptr;
    QLabel *m_modelInfo = nullptr;
    QSlider *m_gpuSlider = nullptr;
    QSpinBox *m_gpuSpin = nullptr;
    QButtonGroup *m_strategy = nullptr;
    QComboBox *m_gpuCombo = nullptr;
    QComboBox *m_recipeCombo = nullptr;
    QSpinBox *m_recipeBytes[4] = {};
    QButtonGroup *m_unit = nullptr;
    QCheckBox *m_statesOnly = nullptr;
    QLabel *m_verdict = nullptr;
    QLabel *m_summary = nullptr;
    AdvancedPanel *m_advanced = nullptr;
    BreakdownView *m_breakdown = nullptr;
    QScrollArea *m_breakdownScroll = nullptr; ///< holds m_breakdown
    QTabWidget *m_tabs = nullptr;
    QList<int> m_gpuCounts;   ///< what the GPU slider steps through now
    int m_selectedGroup = -1; ///< group shown in the breakdown (-1: the peak group)
    bool m_presentation = false;
    bool m_dark = false;
    QList<QWidget *> m_secondaryControls; ///< hidden in presentation mode
    QWidget *m_controlPanel = nullptr;
    TimelinePanel *m_timeline = nullptr;
    CompareChart *m_compare = nullptr;
    LivePanel *m_live = nullptr;
    QWidget *m_lessonBar = nullptr;
    QLabel *m_lessonName = nullptr;  ///< the lesson's title
    QLabel *m_lessonTitle = nullptr; ///< "Step 2 of 7: 8,192 tokens"
    QLabel *m_lessonLabel = nullptr;
    QLabel *m_lessonChanges = nullptr; ///< "Changed: ..." under the sentence
    QPushButton *m_lessonPrev = nullptr;
    QPushButton *m_lessonNext = nullptr;
    QPushButton *m_lessonEnd = nullptr;
    QUndoStack *m_undo = nullptr;
    ScenarioSnapshot m_snapshot; ///< the model as last recorded on the undo stack
    QByteArray m_snapshotKey;    ///< m_snapshot.key()
    ScenarioSnapshot m_defaults; ///< the model as the window started
    QElapsedTimer m_clock;       ///< times changes, to merge bursts
    bool m_restoring = false;    ///< an undo or redo is writing the model
    bool m_justRestored = false; ///< no change since the last undo or redo
    int m_batch = 0;             ///< > 0 inside asOneChange()
    bool m_shown = false;
    bool m_compact = false;                   ///< shorter than compactHeight: smaller type
    static constexpr int compactHeight = 800; ///< below this, presentation type steps down
    QSize m_fittedSize;                       ///< the size the constructor chose for the screen
    std::vector<Lesson> m_lessons;
    int m_lesson = -1;
    int m_lessonStep = 0;
    QMenu *m_recentMenu = nullptr;
    QTimer *m_breakdownTimer = nullptr; ///< coalesces breakdown redraws during drags
    QString m_message;
    void showMessage(const QString &text);
    void applyLessonStep();
    void rebuildRecentMenu();
};

} // namespace shardscope
