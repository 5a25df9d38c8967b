#pragma once

#include "chartview.h"
#include "steptime.h"

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>
#include <array>
#include <vector>

class QCPAbstractPlottable;
class QCPBars;
class QCPItemText;
class QCPTextElement;
class QCustomPlot;
class QMouseEvent;

namespace shardscope {

/// Where one training step goes, as one horizontal stacked bar (QCustomPlot): forward,
/// backward, recompute, the pipeline bubble, each collective's exposed communication, the
/// optimizer step and the offload traffic and CPU optimizer, each a segment as long as its
/// seconds (StepBreakdown, core/steptime.h), left to right in that order. A title reads
/// "Where one step goes: 38.6 s"; the legend above the bar names each part with its
/// seconds; the x axis is in seconds. A step that cannot be timed shows a one-line message
/// in place of the bar. Draws a StepTime; computes nothing.
class StepTimeBar : public ChartView
{
    Q_OBJECT
public:
    /// The parts of a step, in the bar's order (left to right) and the legend's.
    enum class Part
    {
        Forward,
        Backward,
        Recompute,
        Bubble,
        TensorParallel,
        ContextParallel,
        ExpertParallel,
        PipelineParallel,
        DataParallel,
        Optimizer,
        Offload,
        CpuOptimizer
    };
    /// How many parts there are.
    static constexpr int partCount = 12;

    /// One drawn segment: a part that is not zero, its seconds and its bars.
    struct Segment
    {
        Part part = Part::Forward;
        double seconds = 0;
        QCPBars *bars = nullptr;
    };

    explicit StepTimeBar(QWidget *parent = nullptr);

    /// Draws the parts of `t` (stepBreakdown()), or its error as the message when it is not
    /// valid (queued replot).
    void setStepTime(const StepTime &t);

    /// A part's name in the legend and tooltips, e.g. "Data-parallel comm.".
    static QString partName(Part p);
    /// A part's colour: distinct from every other part's, on light and dark canvases
    /// (Okabe-Ito, then Paul Tol's muted colours; the bubble in TimelineView's grey).
    static QColor partColor(Part p);
    /// The colour of the seconds written inside part p's segment: near-black on a light
    /// fill, white on a dark one.
    static QColor valueColor(Part p);
    /// Part `p` of breakdown `b`, seconds.
    static double partSeconds(const StepBreakdown &b, Part p);
    /// A legend entry's text: the part's name and, with `seconds`, its seconds
    /// ("Forward 10.0 s"); without them where the legend would take more than two rows.
    static QString entryName(const Segment &segment, bool seconds);
    /// Seconds as the bar writes them: "38.6 s", "0.52 s", "4.1 ms".
    static QString secondsText(double seconds);

    /// The segments drawn, left to right (the parts that are not zero); empty when the step
    /// is not timed.
    const std::vector<Segment> &segments() const { return m_segments; }
    /// The plottables the legend lists, in its order (empty cells skipped).
    QList<QCPAbstractPlottable *> legendPlottables() const;
    /// The segments' plottables, left to right.
    QList<QCPAbstractPlottable *> drawnPlottables() const;
    /// The legend's text of segment i, e.g. "Forward 10.0 s" (or "Forward" in a narrow
    /// plot, fitLegend()); empty out of range.
    QString legendText(int i) const;
    /// True when the last StepTime was valid (the bar shows), false when the message does.
    bool timed() const { return m_timed; }
    /// The step's seconds (StepTime::stepSeconds); 0 when not timed.
    double stepSeconds() const { return m_stepSeconds; }
    /// The title in full: "Where one step goes: 38.6 s", or the message when not timed.
    QString title() const { return m_titleText; }
    /// The message shown in place of the bar ("Step not timed: ..."); empty when timed.
    QString message() const { return m_timed ? QString() : m_titleText; }
    /// The seconds written inside part p's segment (shown where they fit), for tests.
    QCPItemText *valueItem(Part p) const { return m_values[std::size_t(p)]; }
    /// The title's text element (elided to the plot's width), for tests.
    QCPTextElement *titleElement() const { return m_title; }

    /// Index of the segment under a widget-relative pixel position of plot(), or -1.
    int segmentAt(const QPoint &pos) const;
    /// Tooltip text of segment i: its name, seconds and share of the step; empty out of
    /// range.
    QString tooltipText(int i) const;

    /// As wide as a chart column, as high as the title, the legend rows, a readable bar
    /// and the axis need at the current width and style (also the minimum height, set
    /// after each layout).
    QSize sizeHint() const override;

private:
    /// Before each replot: the title elided to the plot's width.
    void fitTitle();
    /// Before each replot: as many legend columns as fit the plot's width, each as wide
    /// as its own widest entry, at most six.
    void fitLegend();
    /// After each layout: tick spacing for the axis' width, the minimum height the text
    /// needs.
    void fitText() override;
    /// Styles the plot in chartStyle().
    void restyle() override;
    /// The pixels the title, legend, bar and axis need (neededHeight()).
    int neededHeight() const;
    void showTooltip(QMouseEvent *event);

    QCPTextElement *m_title = nullptr;
    std::array<QCPBars *, partCount> m_bars{};
    std::array<QCPItemText *, partCount> m_values{}; ///< seconds inside each segment
    std::vector<Segment> m_segments;
    QString m_titleText;
    double m_stepSeconds = 0;
    bool m_timed = false;
    int m_needed = 0; ///< the height last asked for (neededHeight())
};

} // namespace shardscope
