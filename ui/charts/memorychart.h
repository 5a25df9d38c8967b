#pragma once

#include "chartdata.h"
#include "chartparts.h"
#include "chartview.h"
#include "scenario.h"

#include <QWidget>
#include <cmath>
#include <optional>
#include <vector>

class QCPBars;
class QCustomPlot;
class QCPItemText;
class QCPItemLine;

namespace shardscope {

/// Stacked memory bars per GPU against the card's capacity line (QCustomPlot).
///
/// One bar per GPU while the report covers at most `maxIndividualBars` GPUs and every
/// bar's label and total fit its slot (measured with QFontMetrics in the current style at
/// each layout, on screen and in exports); otherwise one bar per group of identical GPUs
/// (the report's groups: one per pipeline stage), labelled with its rank range and count.
/// Labels that still do not fit get shorter ("Stage 3" → "3"), then only every k-th is
/// written; totals never cover each other or the capacity line (placeBarValues()). The
/// part of a bar above capacity is hatched. The view only draws the report it is given;
/// it computes nothing.
class MemoryChart : public ChartView
{
    Q_OBJECT
public:
    /// Most GPUs drawn as separate bars before identical GPUs are grouped.
    static constexpr int maxIndividualBars = 16;

    explicit MemoryChart(QWidget *parent = nullptr);

    /// Redraws for a report (queued replot: bursts of calls cost one replot).
    void setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit);
    /// A measured per-GPU figure drawn as a dashed line across the bars, labelled `label`
    /// ("measured peak allocated 18.9 GB (snapshot.pickle)"), or none (nullopt). Call
    /// before setReport(), which draws it; the value axis reaches it.
    void setMeasured(std::optional<std::int64_t> bytes, const QString &label);
    /// The measured line's label (for tests: its text, shortened to fit, and pixel box).
    const QCPItemText *measuredItem() const { return m_measuredText; }
    /// The measured line's value in display units, or NaN without one.
    double measuredValue() const
    {
        return m_measuredBytes ? double(*m_measuredBytes) / m_scale : std::nan("");
    }

    /// What a running lesson adds, from the next setReport() on: the value axis fixed at
    /// `scaleBytes` (Session::lessonScaleBytes(); 0 fits each report, and a report above
    /// it is fitted too), and faint ghost bars of `previous`'s totals (the previous
    /// step, Session::previousStepReport(); null for none) behind the bars, slot by slot.
    void setLessonOverlay(std::int64_t scaleBytes, const MemoryReport *previous);
    /// The value axis' upper end in display units (GB or GiB) at the last layout.
    double axisTop() const;
    /// Number of ghost bars drawn (0 without a previous step).
    int ghostCount() const { return int(m_ghostTops.size()); }
    /// Height of ghost bar i in display units: the previous step's total in that slot.
    double ghostTop(int i) const;
    /// The ghost bars' plottable (for tests: its pen and brush).
    const QCPBars *ghostBars() const { return m_ghost; }

    /// Number of bars drawn.
    int barCount() const { return int(m_barInfo.size()); }
    /// Axis label of bar i ("GPU 3", "GPU 0–63 × 64"), in full (the tick may show less).
    QString barLabel(int i) const;
    /// The tick label drawn under bar i at the last layout: barLabel(i), a shorter form
    /// ("Stage 3", "3"), or empty where only every labelStride()-th bar is labelled.
    QString tickLabel(int i) const;
    /// Every how many bars a tick label is written (1: all) at the last layout.
    int labelStride() const { return m_stride; }
    /// True when identical GPUs share one bar (too many GPUs, or their text would not fit).
    bool grouped() const { return m_grouped; }
    /// The total drawn above bar i ("17.5 GB"); null out of range. Hidden when it would
    /// cover another total (its tooltip keeps the number).
    QCPItemText *totalItem(int i) const;
    /// Height of bar i's component in display units (GB or GiB).
    double componentHeight(int i, Component c) const;
    /// Top of bar i's stack in display units: the sum of its components.
    double stackTop(int i) const;
    /// The capacity line's value in display units.
    double capacityValue() const { return m_capacity; }
    /// The label on the capacity line, e.g. "H100\n80 GB".
    QString capacityLabel() const;
    /// The capacity label's text item (for tests: its pixel box).
    const QCPItemText *capacityItem() const { return m_bars.label(); }
    /// Tooltip text for bar i: its GPUs and every component's exact size in bytes.
    QString tooltipText(int i) const;
    /// Index of the bar under a widget-relative pixel position, or -1.
    int barAt(const QPoint &pos) const;
    /// The report group (pipeline stage) bar i belongs to, or -1.
    int groupOfBar(int i) const;

signals:
    /// The user clicked a bar of group `group` (an index into MemoryReport::groups).
    void groupClicked(int group);

private:
    void showTooltip(QMouseEvent *event);
    /// The per-bar totals' font: 13 pt bold x fontScale.
    QFont totalsFont() const;
    /// Fills m_barInfo (one bar per GPU or per group), the bars, the totals' text and the
    /// value axis from m_groups.
    void rebuildBars();
    /// The value axis: fixed at the lesson's scale when one is set and the bars fit under
    /// it, else the tallest stack, ghost or capacity times m_headroom.
    void applyValueRange();
    /// Fills the ghost bars from m_previous for the bars now drawn.
    void rebuildGhost();
    /// Writes the tick labels for m_level and m_stride.
    void applyTickLabels();
    /// After each layout (QCustomPlot::afterLayout): legend columns, grouping, label
    /// length and stride for the axis rect's width, then the totals' places.
    void fitText() override;
    /// Styles the bars, the totals, the legend and the axes in chartStyle().
    void restyle() override;
    /// True when one bar per GPU fits `axisWidth` pixels: labels and totals in their slots.
    bool individualFits(double axisWidth) const;
    /// The tick label of bar i at length `level` (0 full, 1 one line, 2 a number).
    QString labelAt(int i, int level) const;

    CapacityBars m_bars; ///< the stacks, the hatch above capacity, the capacity line
    std::optional<std::int64_t> m_measuredBytes; ///< setMeasured()
    QString m_measuredLabel;
    QCPItemLine *m_measuredLine = nullptr;
    QCPItemText *m_measuredText = nullptr;
    QCPItemText *m_message = nullptr;
    std::vector<QCPItemText *> m_totals;
    std::vector<MemoryBar> m_barInfo; ///< the bars drawn: m_groups, or one per GPU
    std::vector<MemoryBar> m_groups;  ///< memoryGroupBars() of the report
    std::int64_t m_gpuCount = 0;
    bool m_valid = false;
    bool m_staged = false;
    bool m_grouped = false;
    int m_level = 0;  ///< tick label length: 0 full, 1 one line, 2 a number
    int m_stride = 1; ///< every m_stride-th bar labelled
    double m_capacity = 0;
    double m_top = 0;         ///< the tallest stack, display units
    double m_headroom = 1.14; ///< value axis: max(top, capacity) x this
    QString m_capacityText;   ///< the capacity label in full, e.g. "H100 80 GB\n85.5 GB usable"
    QString m_xTitle;         ///< the GPU axis' title in full (fitText() may shorten it)
    double m_scale = 1;       ///< bytes per display unit
    std::int64_t m_lessonScaleBytes = 0; ///< setLessonOverlay(): 0 for none
    std::vector<MemoryBar> m_previous;   ///< the previous step's group bars
    std::int64_t m_previousGpus = 0;     ///< GPUs in m_previous
    QCPBars *m_ghost = nullptr;          ///< the previous step's totals, faint
    std::vector<double> m_ghostTops;     ///< display units, one per ghost bar
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
