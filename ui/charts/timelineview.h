#pragma once

#include "chartparts.h"
#include "chartview.h"
#include "schedule.h"

#include <QColor>
#include <QRectF>
#include <QWidget>
#include <utility>
#include <vector>

class QCustomPlot;
class QCPAbstractPlottable;
class QCPLayer;
class QCPItemStraightLine;
class QCPItemText;
class QMouseEvent;

namespace shardscope {

class TimelineBlocks;

/// A pipeline timeline as a Gantt chart (QCustomPlot axes and legend; the blocks are one
/// custom plottable that draws every operation in a single pass, so a frame stays cheap at
/// p 16, m 64: 3072 blocks for ZB-H1, see tests/bench/bench_timeline.cpp).
///
/// One row per stage (stage 0 at the top), time left to right in units of one forward pass
/// (OpCosts::forward = 1). Each operation is a block coloured by micro-batch (a cyclic
/// Okabe-Ito palette); F is a light tint, B the full colour, W hatched. Blocks wide enough
/// carry the micro-batch number, 1-based as in the papers' figures (and "c2" for the second
/// chunk when interleaved). Idle time is a light grey hatch (the bubble).
///
/// The playhead is a vertical line at a time t: left of it the timeline is drawn in full,
/// right of it only faint outlines of the blocks, so blocks that start at or after t are
/// outlines, the running block is filled up to t, and the bubble hatch stops at t. The view
/// computes nothing: it draws the Timeline it is given.
///
/// Its look follows a ChartStyle (setChartStyle): canvas, ink of axes, labels and playhead,
/// the bubble hatch and the outlines of what has not run (both a step off the canvas), and
/// every font and pen scaled. Block colours stay the same in every style. When the
/// stage axis title is taller than the rows (large type in a short view), a shorter one
/// stands in, or none.
class TimelineView : public ChartView
{
    Q_OBJECT
public:
    /// Left and right margins of the plot area, pixels: StageMemoryChart uses the same, so
    /// both time axes line up under each other.
    static constexpr int leftMargin = timeAxisLeftMargin;
    static constexpr int rightMargin = timeAxisRightMargin;
    /// Timelines with more operations than this are not drawn (a message says so); the
    /// panel still shows their bubble figures. 65,536 = p 64 x m 512 x 2.
    static constexpr int maxDrawnOperations = 65536;

    /// An empty view (no timeline, no blocks) until setTimeline().
    explicit TimelineView(QWidget *parent = nullptr);
    /// Defined where TimelineBlocks is complete.
    ~TimelineView() override;

    /// Shows a timeline (an invalid one shows its error text and no blocks). The playhead
    /// keeps its time, clamped to [0, makespan]; if it was at the end it stays at the end.
    /// Queued replot.
    void setTimeline(const Timeline &t);
    /// The timeline drawn.
    const Timeline &timeline() const { return m_timeline; }
    /// Moves the playhead to `time` (time units), clamped to [0, makespan]. Redraws only the
    /// layer of the blocks and the playhead (immediately; the widget repaints on the next
    /// event loop pass).
    void setPlayhead(double time);
    /// Playhead time, time units (makespan after the first setTimeline()).
    double playhead() const { return m_playhead; }

    /// Labels the time axis in seconds, `seconds` to a time unit (secondsPerTimelineUnit(),
    /// core/steptime.h); 0 labels it in time units. Queued replot.
    void setSecondsPerUnit(double seconds);
    /// Seconds to a time unit, 0 when the axis is in units.
    double secondsPerUnit() const { return m_secondsPerUnit; }
    /// Writes the time axis' numbers and title (the default), or only draws its line and
    /// ticks: the pipeline tab's memory chart right under the timeline labels the same
    /// time axis (the same fixed margins), and a short screen needs the height for the
    /// rows. Queued replot.
    void setTimeAxisLabelled(bool labelled);
    bool timeAxisLabelled() const { return m_timeAxisLabelled; }

    /// Operations in the timeline (all stages), drawn or not.
    int blockCount() const;
    /// Operations of one stage (0 for a stage out of range).
    int blockCount(int stage) const;
    /// Operations that have started by the playhead (start < playhead): the filled blocks.
    int startedBlockCount() const;
    /// Full extent of operation `index` of `stage` (execution order) in widget pixels of
    /// plot(), whether drawn or not: left = xAxis->coordToPixel(op.start). Empty when out of
    /// range. Valid after the plot has been laid out (a replot).
    QRectF blockRect(int stage, int index) const;
    /// The filled part of that block at the current playhead, pixels: empty when the
    /// operation has not started, the part up to the playhead while it runs, else blockRect.
    QRectF filledRect(int stage, int index) const;
    /// Fill colour of that block (the base colour for hatched W); invalid when out of range.
    QColor blockColor(int stage, int index) const;
    /// Text drawn in that block when it is wide enough: "5" for micro-batch index 4; with
    /// chunks, "5 c2" for chunk index 1 (the label shows the number on its own if the chunk
    /// does not fit).
    QString blockLabel(int stage, int index) const;
    /// Tooltip text of the block under a plot-relative pixel position, empty if none.
    QString tooltipAt(const QPointF &pos) const;

    /// Base colour of a micro-batch (0-based): Okabe-Ito without black, cyclic over 7.
    static QColor microBatchColor(int microBatch);
    /// Fill colour of an operation: F a light tint of the micro-batch colour, B (full or
    /// input-gradient) the colour itself, W the tint (hatched over in the colour).
    static QColor operationColor(OpKind kind, int microBatch);
    /// The colour of the bubble hatch's lines on the light canvas (the fill under it is a
    /// lighter grey).
    static QColor bubbleColor();
    /// The bubble hatch's lines and the fill under them in `style`: bubbleColor() on
    /// #F3F3F3 on a light canvas; on a dark one 30 % and 7 % of the way from the canvas to
    /// the ink, so idle time recedes as it does on white.
    static std::pair<QColor, QColor> bubbleColors(const ChartStyle &style);

signals:
    /// The user clicked or dragged on the plot at this time (time units): the panel seeks.
    void seekRequested(double time);

private:
    void handleMouse(QMouseEvent *event);
    void showTooltip(QMouseEvent *event);
    /// After each layout (QCustomPlot::afterLayout): every k-th stage labelled, k the
    /// smallest of 1, 2, 4, 5, 10, 20, 25, 50, .. that keeps the labels a text height
    /// apart; "Stage 12" and the stage title that fits the axis rect's height ("Pipeline
    /// stage (GPU)", else "Stage (GPU)") in the fixed left margin, else the numbers alone
    /// under a title, else no title; the time title that fits the width.
    void fitText() override;
    /// Styles the plot in chartStyle().
    void restyle() override;
    /// Labels every `stride`-th stage, "Stage 3" or, with `numbers`, "3".
    void applyStageTicks(int stride, bool numbers);

    TimelineBlocks *m_blocks = nullptr;
    std::vector<QCPAbstractPlottable *> m_legendEntries; // F, B, W, bubble
    QCPItemStraightLine *m_playheadLine = nullptr;
    QCPLayer *m_live = nullptr; ///< buffered layer: blocks and playhead
    QCPItemText *m_message = nullptr;
    Timeline m_timeline;
    double m_playhead = 0;
    bool m_drawable = false;
    int m_stageStride = 1;       ///< every m_stageStride-th stage labelled
    bool m_stageNumbers = false; ///< stage labels are bare numbers
    double m_secondsPerUnit = 0;
    bool m_timeAxisLabelled = true; ///< setTimeAxisLabelled()
};

} // namespace shardscope
