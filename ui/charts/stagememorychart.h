#pragma once

#include "chartparts.h"
#include "chartview.h"
#include "measurement.h"
#include "scenario.h"
#include "schedule.h"

#include <QWidget>
#include <cstdint>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCPLayer;

namespace shardscope {

/// Each pipeline stage's memory per GPU over one training step, against the card's
/// capacity (QCustomPlot step lines, one per stage, and a dot per stage at the playhead).
///
/// Memory of stage i at time t, bytes (stageBytes()):
///
///     group.totalBytes() - activations.layers - activations.embedding - activations.output
///         + inFlight_i(t) x group.chunkActivationBytes
///         + embeddingInFlight_i(t) x group.embeddingBytesPerMicroBatch
///         + headInFlight_i(t) x group.outputBytesPerMicroBatch
///
/// that is, model states + buffers (+ the larger of the recompute working set and the loss
/// backward, ActivationBytes::transient, which the report counts once per stage) + the activations
/// of the micro-batch chunks in flight at t, where inFlight_i is the schedule's step function
/// StageTimeline::inFlight (a set is held from the start of its F to the end of its B), and the
/// embedding and logits of the micro-batches in flight in the chunk holding them (StageTimeline::
/// embeddingInFlight on the first stage, headInFlight on the last). At the moment a stage
/// reaches its peak the line equals the report's stage total exactly: the engine counts
/// the same peaks in closed form (peakInFlightBound, embeddingInFlightBound,
/// headInFlightBound), and the working set and fragmentation reserve at that peak.
/// ZB-H1's pending weight gradients (M_W, Qi et al. 2023 Table 1) are not in the report
/// and not drawn. The fragmentation reserve stays at its peak value over the whole step.
///
/// A measured run's trace (setMeasuredTrace(): a snapshot's allocated bytes, a profiler
/// timeline, an nvidia-smi log) is drawn over the stages as a dashed measuredColor() line
/// against its own time axis on top, in seconds of the recording and titled in the same
/// colour with the trace's name ("Measured allocated, GPU 0, s"): a recording spans
/// several steps at a time scale of its own, so it is set beside the predicted step, not
/// stretched onto it. Its values share the memory axis.
///
/// Its look follows a ChartStyle (setChartStyle), the stage ramp included: on a dark
/// canvas the lines take the light part of viridis, so stage 0 stays visible.
class StageMemoryChart : public ChartView
{
    Q_OBJECT
public:
    /// An empty chart (no stages) until setData().
    explicit StageMemoryChart(QWidget *parent = nullptr);

    /// Redraws for a timeline and the report of the same scenario (its groups are the
    /// stages, in order); `unit` is the display unit. If either is invalid, or the two
    /// disagree on the number of stages, the chart shows the reason instead of lines.
    /// Queued replot.
    void setData(const Scenario &s, const MemoryReport &r, const Timeline &t, ByteUnit unit);
    /// Draws a measured trace (Measurement::trace, seconds and bytes) over the stages,
    /// named `label` on its time axis ("Measured allocated, GPU 0"; "Measured" where that
    /// does not fit); an empty trace removes it. Queued replot.
    void setMeasuredTrace(const std::vector<MeasuredPoint> &trace, const QString &label);
    /// The measured trace as drawn: (seconds, display value) per point, for tests.
    std::vector<std::pair<double, double>> measuredLine() const;
    /// Moves the playhead (time units of the timeline, clamped to [0, makespan]) and the
    /// per-stage dots with it. Redraws only their layer (immediately; the widget repaints on
    /// the next event loop pass).
    void setPlayhead(double time);
    /// Labels the time axis in seconds, `seconds` to a time unit (secondsPerTimelineUnit(),
    /// core/steptime.h); 0 labels it in time units. Queued replot.
    void setSecondsPerUnit(double seconds);
    /// Playhead time, time units.
    double playhead() const { return m_playhead; }

    /// Stages drawn (0 when nothing is drawn).
    int stageCount() const { return int(m_stages.size()); }
    /// Memory per GPU of `stage` at `time` (time units), bytes; 0 when out of range.
    std::int64_t bytesAt(int stage, double time) const;
    /// bytesAt() in the display unit (GB or GiB).
    double valueAt(int stage, double time) const;
    /// Value of the stage's dot at the playhead, display units; 0 when the stage is absent.
    double markerValue(int stage) const;
    /// The stage's line as drawn: (time, display value) per step, for tests.
    std::vector<std::pair<double, double>> line(int stage) const;
    /// The capacity line, display units.
    double capacityValue() const { return m_capacity; }
    /// Text shown instead of lines (empty when the lines are drawn).
    QString message() const;
    /// The stages the legend names, in order: all of them while their entries fit one
    /// row, else as many as fit, evenly spaced from stage 0 to the last (the colour ramp is
    /// ordered, so the ones between read off it). At most 8.
    const std::vector<int> &legendStages() const { return m_legendStages; }
    /// The capacity label's text item (for tests: its pixel box).
    const QCPItemText *capacityItem() const { return m_capacityText; }

    /// The formula above for one stage with `inFlight` chunk sets, `embeddingInFlight`
    /// embedding sets and `headInFlight` logits sets in flight, bytes.
    static std::int64_t stageBytes(const GpuGroup &group, int inFlight, int embeddingInFlight,
                                   int headInFlight);
    /// The step function's count at `time`: the last entry at or before `time`; 0 before
    /// the first and for an empty function.
    static int inFlightAt(const StageTimeline &stage, double time);
    /// Line colour of stage i of p: an ordered, colour-blind-safe ramp (viridis, dark purple
    /// at stage 0 to green-yellow at the last stage), so neighbouring stages look alike.
    static QColor stageColor(int stage, int stages);
    /// stageColor() for a canvas: on a dark one (ChartStyle::isDark) viridis from 0.4 (teal,
    /// 3.7:1 on the dark canvas) to 1 (yellow), else stageColor(stage, stages).
    static QColor stageColor(int stage, int stages, const ChartStyle &style);

private:
    /// After each layout (QCustomPlot::afterLayout): legend entries and columns for the
    /// plot's width, value ticks and axis titles for its height, the capacity label above
    /// its line or, where the axis rect has no room above it, below (hidden where it has
    /// room on neither side).
    void fitText() override;
    /// Styles the plot in chartStyle().
    void restyle() override;
    /// Names `columns` stages in the legend (all when there are no more), evenly spaced;
    /// true when that changed the legend.
    bool setLegendStages(int columns);
    void movePlayhead(double time);
    /// Pens and dots of the stage lines in use, in the current style.
    void styleLines();
    /// The memory axis' range: stages, capacity and measured trace, 25 % above the top.
    void setValueRange();
    /// Redraws the measured trace when `traceChanged`, the unit changed or it is shown or
    /// hidden now (a slider drag redraws none of its points), then setValueRange().
    void drawMeasured(bool traceChanged);

    struct Stage
    {
        GpuGroup group;
        std::vector<std::pair<double, int>> inFlight, embeddingInFlight, headInFlight;
        /// stageBytes() at `time`.
        std::int64_t bytesAt(double time) const;
    };

    std::vector<QCPGraph *> m_lines;
    QCPGraph *m_measured = nullptr; ///< setMeasuredTrace(), on xAxis2
    double m_measuredTop = 0;       ///< its largest value, display units
    double m_measuredScale = 0;     ///< bytes per display unit it was drawn in
    std::vector<MeasuredPoint> m_trace;
    double m_stagesTop = 0; ///< the stage lines' largest value, display units
    std::vector<QCPGraph *> m_dots;
    QCPItemStraightLine *m_capacityLine = nullptr;
    QCPItemText *m_capacityText = nullptr;
    QCPItemStraightLine *m_playheadLine = nullptr;
    double m_secondsPerUnit = 0;
    QCPLayer *m_live = nullptr; ///< buffered layer: playhead and dots
    QCPItemText *m_message = nullptr;
    std::vector<Stage> m_stages;
    std::vector<int> m_legendStages; ///< legendStages()
    int m_legendColumns = 8;         ///< legend entries one row held at the last layout
    bool m_capacityShown = false;    ///< a capacity to label (fitText() may lack the room)
    double m_makespan = 0;
    double m_playhead = 0;
    double m_capacity = 0;
    double m_scale = 1e9;
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
