#pragma once

#include "chartview.h"
#include "schedule.h"

#include <QElapsedTimer>
#include <QWidget>
#include <array>
#include <vector>

class QBoxLayout;
class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimer;

namespace shardscope {

class Session;
class SettingEditor;
class StageMemoryChart;
class TimelineView;

/// The pipeline tab (docs/pipeline.md): schedule controls, the bubble figure, the timeline, the
/// per-stage memory over the step, and an animation of the step.
///
/// Schedule, p, m and v are the settings table's editors (SettingEditor, the Advanced
/// panel's controls of the same settings, named "timeline:<key>"), read from and written to
/// the Session, so p here is the memory view's p. Changing p keeps d x t x c and sets
/// gpus = d x t x p x c (d taken as at least 1 when the old layout did not divide).
/// Switching to interleaved sets v to the last interleaved v (2 at first); other schedules
/// get v = 1, as the engine requires (windowEdit()). The panel redraws on every Session::changed()
/// and recomputes the timeline only when the schedule parameters changed.
///
/// The big figure is the measured Timeline::bubbleFraction (idle share of p x step time),
/// with the closed form it comes from beside it and the over-ideal figure
/// Timeline::bubbleOverIdeal (Megatron-LM's (p - 1)/m); where the closed form does not apply
/// the measured figures are shown and labelled as measured. Invalid settings show the
/// engine's message; nothing is NaN.
///
/// Animation: a 60 Hz QTimer advances the playhead by the elapsed wall time x speed x
/// unitsPerSecond. Keys while the panel has focus: Space play/pause, Left/Right step one
/// operation boundary, Home/End jump to the start/end. Clicking the timeline seeks there.
///
/// setChartStyle() passes the style on to both plots and gives the panel itself the
/// style's look: chartPalette() colours (canvas background, ink text) and every control's
/// and label's point size x fontScale. Its slide (ChartView::renderSlide(), the window's
/// export and `shardscope export --chart timeline` alike) is the panel without its live
/// controls.
class TimelinePanel : public ChartView
{
    Q_OBJECT
public:
    /// Time units (forward passes) the playhead advances per second at speed 1x.
    static constexpr double unitsPerSecond = 4;

    /// Builds the controls and views on `model` (not owned; must outlive the panel).
    explicit TimelinePanel(Session *session, QWidget *parent = nullptr);

    /// The timeline of the model's current schedule settings (error set when invalid).
    const Timeline &timeline() const { return m_timeline; }
    /// The Gantt view.
    TimelineView *timelineView() const { return m_view; }
    /// The per-stage memory chart under it.
    StageMemoryChart *memoryChart() const { return m_memory; }

    /// Schedule selector; item data is the PipelineSchedule as int.
    QComboBox *scheduleCombo() const { return m_schedule; }
    /// p, pipeline stages (the layout's pipelineParallel).
    QSpinBox *stagesSpin() const { return m_stages; }
    /// m, micro-batches per step.
    QSpinBox *microBatchesSpin() const { return m_microBatches; }
    /// v, model chunks per stage; enabled only for interleaved 1F1B.
    QSpinBox *chunksSpin() const { return m_chunks; }
    /// Play / pause toggle.
    QPushButton *playButton() const { return m_play; }
    /// Speed factor selector (0.25x .. 8x); item data is the factor.
    QComboBox *speedCombo() const { return m_speed; }
    /// Scrub slider over [0, makespan] in 10,000 steps.
    QSlider *scrubSlider() const { return m_scrub; }

    /// The large bubble line, e.g. "Bubble 42.9% of the step" (drawn on two lines where
    /// one is wider than the panel).
    QString bubbleText() const;
    /// The explanation beside it as plain text (formula, over-ideal figure, source).
    QString formulaText() const;
    /// The error shown (the schedule's or the memory engine's message); empty when none.
    QString errorText() const;
    /// The playhead's time readout, e.g. "t = 12.0 of 21".
    QString timeText() const;
    /// The large bubble label (30 pt bold x fontScale).
    QLabel *bubbleLabel() const { return m_bubble; }

    /// True while the animation runs.
    bool isPlaying() const;
    /// Shows or hides the live controls (schedule settings, playback, scrub bar): a
    /// slide export draws the bubble line, the timeline and the memory chart only.
    void setControlsShown(bool shown);
    bool controlsShown() const { return m_controlsShown; }
    /// Compact type for a short screen (a 1280 x 720 projector, either type): the controls a
    /// step smaller (10 pt, at most 12 pt in presentation type) and the step buttons their
    /// icons, the bubble figure too (18 pt x fontScale) at the end of the playback row where
    /// it fits, its formula lines in its tooltip, and the two charts' type at most
    /// compactChartScale, so that the controls, the bubble, the timeline and the
    /// memory-over-time chart are on screen together without scrolling.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    /// Shows the memory-over-time chart under the timeline (the default), or leaves it out
    /// (a running lesson's bar on a short screen takes its room). Shown, it labels the time
    /// axis both charts share and the timeline draws only its line
    /// (TimelineView::setTimeAxisLabelled()); left out, the timeline labels its own.
    void setMemoryChartShown(bool shown);
    /// The largest chart type scale in compact type: presentation's 1.5 steps down to
    /// this, as a lesson's text does on a short screen (LessonPlayer::setTypeScale()).
    static constexpr double compactChartScale = 1.2;
    /// Shows or hides the schedule settings row alone (schedule, p, m, v); playback
    /// stays. A lesson running in presentation on a short screen hides it: its step
    /// says what it changed, and the timeline needs the room.
    void setScheduleSettingsShown(bool shown);
    /// Playhead time, time units.
    double playhead() const { return m_playhead; }
    /// Speed factor (1 = unitsPerSecond time units per second).
    double speed() const { return m_speedFactor; }

public slots:
    /// Starts the animation (from 0 when the playhead is at the end).
    void play();
    /// Stops the animation where it is.
    void pause();
    /// play() or pause().
    void togglePlay();
    /// Pauses and moves the playhead to the next operation start or end (the end of the
    /// step if none is left).
    void stepForward();
    /// Pauses and moves the playhead to the previous operation start or end (0 if none).
    void stepBack();
    /// Sets the speed factor (clamped to 0.25 .. 8) and selects it in speedCombo().
    void setSpeed(double factor);
    /// Advances the playhead by `seconds` of wall time at the current speed; at the end of
    /// the step it stops there and pauses. What the timer calls each frame.
    void advance(double seconds);
    /// Moves the playhead of both views to `time` (clamped to [0, makespan]).
    void setPlayhead(double time);

protected:
    /// Styles both plots, the controls and the labels (see the class comment).
    void restyle() override;
    /// Hides the live controls (setControlsShown(false)) for a slide ...
    void beginSlide() override;
    /// ... and shows them again as they were.
    void endSlide() override;
    void keyPressEvent(QKeyEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    /// Arranges the controls again: a restyle while hidden (presentation mode turned on in
    /// another tab) measured them against a stale width.
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    /// Puts the schedule settings and the playback controls side by side when both fit,
    /// else one above the other, and the settings' two halves (schedule and p; m and v)
    /// likewise; compact, the bubble figure at the end of the playback row where it fits
    /// there; else the figure and its formula side by side or one above the other,
    /// whichever is less tall, the figure wrapped where one line is wider than the panel.
    void arrangeControls();
    /// Fonts and sizes of the panel's own controls and labels in chartStyle() (the palette is
    /// the window's until setChartStyle() gives the panel one), the two charts' style (type
    /// stepped down in compact) and their minimum heights.
    void applyStyle();
    /// Which of the timeline, the memory chart and the scrub bar show (an impossible
    /// layout shows its message alone), and whether the timeline labels its time axis.
    void updateChartVisibility();
    /// The time readout's width for this step's digits and the panel's minimum width: the
    /// widest of the control groups (the settings' halves, the playback row).
    void updateMinimumWidth();
    void refresh();
    void syncControls();
    void updateBubbleText();
    void updatePlaybackControls();

    Session *m_session;
    bool m_controlsShown = true;       ///< setControlsShown()
    bool m_controlsBeforeSlide = true; ///< controlsShown() when beginSlide() hid them
    bool m_compact = false;            ///< setCompact()
    bool m_settingsShown = true;       ///< setScheduleSettingsShown()
    bool m_memoryShown = true;         ///< setMemoryChartShown()
    bool m_drawable = true;            ///< no error: the charts can draw
    Timeline m_timeline;
    ScheduleParams m_params;
    bool m_haveTimeline = false;
    std::vector<double> m_boundaries; ///< sorted distinct op starts and ends

    TimelineView *m_view = nullptr;
    StageMemoryChart *m_memory = nullptr;
    std::vector<SettingEditor *> m_editors; ///< schedule, p, m, v from the settings table
    QComboBox *m_schedule = nullptr;
    QSpinBox *m_stages = nullptr;
    QSpinBox *m_microBatches = nullptr;
    QSpinBox *m_chunks = nullptr;
    QLabel *m_chunksLabel = nullptr;
    std::vector<QLabel *> m_controlLabels;       ///< "Schedule", "Stages p", ..., "Speed"
    QWidget *m_settingsRow = nullptr;            ///< schedule, p, m, v
    std::array<QWidget *, 2> m_settingsHalves{}; ///< schedule and p; m and v
    QBoxLayout *m_settingsLayout = nullptr;      ///< the halves; direction set by arrangeControls()
    QWidget *m_playbackRow = nullptr;            ///< step, play, step, speed, time
    QBoxLayout *m_playbackLayout = nullptr;      ///< its row; compact, the bubble figure ends it
    QBoxLayout *m_controls = nullptr;  ///< holds the two rows; direction set by arrangeControls()
    QBoxLayout *m_bubbleRow = nullptr; ///< bubble figure and formula; arrangeControls() too
    QPushButton *m_play = nullptr;
    QPushButton *m_stepBack = nullptr;
    QPushButton *m_stepForward = nullptr;
    QComboBox *m_speed = nullptr;
    QSlider *m_scrub = nullptr;
    QLabel *m_time = nullptr;
    QLabel *m_bubble = nullptr;
    QString m_bubbleLine; ///< bubbleText(); m_bubble may show it on two lines
    QLabel *m_formula = nullptr;
    QLabel *m_error = nullptr;
    QTimer *m_timer = nullptr;
    QElapsedTimer m_clock;
    double m_playhead = 0;
    double m_speedFactor = 1;
};

} // namespace shardscope
