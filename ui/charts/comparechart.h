#pragma once

#include "chartparts.h"
#include "chartview.h"
#include "compare.h"
#include "scenario.h"

#include <QWidget>
#include <array>

class QCustomPlot;
class QCPItemRect;
class QCPItemText;

namespace shardscope {

/// DDP, ZeRO-1, ZeRO-2 and ZeRO-3 side by side for one model and set of GPUs
/// (QCustomPlot): one stacked bar per strategy showing its busiest GPU (the peak
/// pipeline stage), in MemoryChart's component colours (ui/charts/palette.h), against the
/// card's capacity line, with the total above each bar and a legend.
///
/// The four variants come from compareStrategies() (core/compare.h), served by
/// Session::comparison() in the window and the command line; the bars are
/// compareBars() (chartdata.h). Where a setting is impossible for a strategy the
/// variant drops it and the bar's label says so: DDP has no CPU offload and no HSDP
/// shard group, and ZeRO-1/2 offload the optimizer only (parameter offload needs ZeRO-3).
class CompareChart : public ChartView
{
    Q_OBJECT
public:
    /// The strategies drawn, left to right.
    static constexpr std::array<ZeroStage, 4> strategies = {ZeroStage::Ddp, ZeroStage::Zero1,
                                                            ZeroStage::Zero2, ZeroStage::Zero3};

    explicit CompareChart(QWidget *parent = nullptr);

    /// Draws `variants`, the comparison of scenario `s` (Session::comparison()), in `unit`
    /// (queued replot).
    void setComparison(const Scenario &s, const std::array<StrategyVariant, 4> &variants,
                       ByteUnit unit);
    /// setComparison(s, compareStrategies(s), unit): for a chart without a Session.
    void setScenario(const Scenario &s, ByteUnit unit);
    /// The report computed for strategy i (0 = DDP .. 3 = ZeRO-3).
    const MemoryReport &report(int i) const { return m_reports.at(std::size_t(i)); }
    /// The scenario strategy i was estimated with (zeroStage set, impossible settings dropped).
    const Scenario &scenarioOf(int i) const { return m_scenarios.at(std::size_t(i)); }
    /// Axis label of strategy i, e.g. "ZeRO-1" or "DDP\nno offload" or "ZeRO-3 / FSDP\nstage 0".
    QString strategyLabel(int i) const;
    /// Height of strategy i's component in display units (GB or GiB); 0 when invalid.
    double componentHeight(int i, Component c) const;
    /// Top of strategy i's stack in display units: the sum of its components.
    double stackTop(int i) const;
    /// The text above strategy i's bar: its total ("293.1 GB"), or "n/a" when invalid.
    QString totalText(int i) const;
    /// The capacity line's value in display units.
    double capacityValue() const { return m_capacity; }
    /// The capacity label's text item (for tests: its pixel box).
    const QCPItemText *capacityItem() const { return m_bars.label(); }
    /// Index of the scenario's own strategy, 0 (DDP) .. 3 (ZeRO-3).
    int currentIndex() const { return m_current; }
    /// The faint band behind the current strategy's column, the axis rect's full height,
    /// so that a class sees which bar the window's settings are (hidden out of range).
    const QCPItemRect *currentBand() const { return m_currentBand; }
    /// The total drawn above strategy i's bar (0..3); null out of range.
    QCPItemText *totalItem(int i) const
    {
        return i >= 0 && i < 4 ? m_totals[std::size_t(i)] : nullptr;
    }

    /// Index of the strategy whose bar is under a widget-relative pixel position of
    /// plot(), or -1 (also outside the axis rect).
    int strategyAt(const QPoint &pos) const;
    /// Tooltip text of strategy i (rich text): its name and busiest GPU, every component
    /// of that GPU and the total in the display unit, and the verdict (verdict(),
    /// core/verdict.h): it fits with so much to spare, or overflows the GPU (or the host
    /// RAM per node) by so much; the engine's message for an invalid estimate. Empty out
    /// of range.
    QString tooltipText(int i) const;

signals:
    /// The user clicked strategy `stage`'s bar: the window makes it the scenario's
    /// strategy, through the same undoable edit as the strategy buttons
    /// (Session::setZeroStage()).
    void strategyClicked(shardscope::ZeroStage stage);

private:
    /// Shows tooltipText() of the bar under the mouse, or hides the tooltip.
    void showTooltip(QMouseEvent *event);
    /// Strategy i's tick label at length `level`: 0 strategyLabel(i), 1 a part a line, 2 a
    /// word a line.
    QString tickLabelAt(int i, int level) const;
    /// After each layout (QCustomPlot::afterLayout): legend columns, tick labels that fit
    /// their slots (a part a line, then smaller type), the capacity label beside its line
    /// and the totals where neither the line nor another total covers them.
    void fitText() override;
    /// Styles the bars, the totals, the legend and the axes in chartStyle().
    void restyle() override;

    CapacityBars m_bars; ///< the stacks, the hatch above capacity, the capacity line
    std::array<QCPItemText *, 4> m_totals{};
    QCPItemRect *m_currentBand = nullptr; ///< currentBand()
    std::array<MemoryReport, 4> m_reports;
    std::array<Scenario, 4> m_scenarios;
    std::array<QString, 4> m_labels;
    double m_capacity = 0;
    double m_top = 0;         ///< the tallest stack, display units
    double m_headroom = 1.14; ///< value axis: max(top, capacity) x this
    QString m_capacityText;   ///< the capacity label in full, e.g. "H100 80 GB\n85.5 GB usable"
    int m_current = 0;
    int m_level = 0; ///< tick label length: 0 as written, 1 a part a line, 2 a word
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
