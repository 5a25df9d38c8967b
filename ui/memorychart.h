#pragma once

#include "chartparts.h"
#include "chartstyle.h"
#include "scenario.h"

#include <QWidget>
#include <vector>

class QCustomPlot;
class QCPItemText;

namespace shardscope {

/// Stacked memory bars per GPU against the card's capacity line (QCustomPlot).
///
/// One bar per GPU while the report covers at most `maxIndividualBars` GPUs;
/// beyond that one bar per group of identical GPUs, labelled with its rank range
/// and count. The part of a bar above capacity is hatched. The view only draws
/// the report it is given; it computes nothing.
class MemoryChart : public QWidget, public StyledView
{
    Q_OBJECT
public:
    /// Most GPUs drawn as separate bars before identical GPUs are grouped.
    static constexpr int maxIndividualBars = 16;

    explicit MemoryChart(QWidget *parent = nullptr);

    /// Changes the look (light, dark, presentation) and redraws (queued).
    void setStyle(const ChartStyle &style);
    /// The same as setStyle(): the StyledView interface.
    void setChartStyle(const ChartStyle &style) override { setStyle(style); }
    /// The current look.
    const ChartStyle &style() const { return m_style; }

    /// Redraws for a report (queued replot: bursts of calls cost one replot).
    void setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit);

    /// The underlying plot, for tests and export.
    QCustomPlot *plot() const { return m_plot; }
    /// Number of bars drawn.
    int barCount() const { return int(m_barInfo.size()); }
    /// Axis label of bar i ("GPU 3", "GPU 0–63 × 64").
    QString barLabel(int i) const;
    /// Height of bar i's component in display units (GB or GiB).
    double componentHeight(int i, Component c) const;
    /// Top of bar i's stack in display units: the sum of its components.
    double stackTop(int i) const;
    /// The capacity line's value in display units.
    double capacityValue() const { return m_capacity; }
    /// The label on the capacity line, e.g. "H100\n80 GB".
    QString capacityLabel() const;
    /// Tooltip text for bar i: its GPUs and every component's exact size in bytes.
    QString tooltipText(int i) const;
    /// Index of the bar under a widget-relative pixel position, or -1.
    int barAt(const QPoint &pos) const;
    /// The report group (pipeline stage) bar i belongs to, or -1.
    int groupOfBar(int i) const;

signals:
    /// The user clicked a bar of group `group` (an index into MemoryReport::groups).
    void groupClicked(int group);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void showTooltip(QMouseEvent *event);
    /// The widget font at `points` x the style's font scale.
    QFont scaledFont(double points, bool bold = false) const;
    /// The per-bar total's font for `bars` bars: the style's size, shrunk to fit a slot.
    QFont totalsFont(int bars) const;

    struct Bar
    {
        QString label;
        std::int64_t firstRank = 0;
        std::int64_t gpuCount = 0;
        ComponentBytes bytes;
        int group = 0;
    };

    QCustomPlot *m_plot = nullptr;
    CapacityBars m_bars; ///< the stacks, the hatch above capacity, the capacity line
    QCPItemText *m_message = nullptr;
    std::vector<QCPItemText *> m_totals;
    std::vector<Bar> m_barInfo;
    double m_capacity = 0;
    ByteUnit m_unit = ByteUnit::GB;
    ChartStyle m_style;
};

} // namespace shardscope
