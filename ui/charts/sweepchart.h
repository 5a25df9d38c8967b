#pragma once

#include "chartview.h"
#include "format.h"
#include "memoryreport.h"
#include "scenario.h"
#include "sweep.h"

#include <QColor>
#include <QStringList>
#include <array>

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace shardscope {

/// DDP, ZeRO-1, ZeRO-2 and ZeRO-3 as four lines of peak memory per GPU against the GPU
/// count, the sequence length or the micro-batch size, or of step time (seconds, no
/// capacity line) against the GPU count (QCustomPlot): the strategy sweep of
/// core/sweep.h, served by Session::sweep(). Both axes are logarithmic (GPUs and tokens
/// double from point to point; 16 Psi / N is a straight line), the card's capacity is the
/// dashed line with its label as in the other memory charts, and the scenario itself is a
/// large dot on its strategy's line. A point the engine refuses is left out, so the line
/// shows a gap there, never a zero.
class SweepChart : public ChartView
{
    Q_OBJECT
public:
    explicit SweepChart(QWidget *parent = nullptr);

    /// The colour of strategy i's line (0 = DDP .. 3 = ZeRO-3), Okabe-Ito: orange #E69F00,
    /// reddish purple #CC79A7, bluish green #009E73, blue #0072B2 (sky blue #56B4E9 on a
    /// `dark` canvas, where the blue is too dark to read).
    static QColor strategyColor(int i, bool dark);

    /// Draws `sweep` (Session::sweep() of scenario `s`) with the scenario's own point,
    /// `current` (its report: Session::report()), in `unit` (queued replot).
    void setSweep(const Scenario &s, const StrategySweep &sweep, const MemoryReport &current,
                  ByteUnit unit);
    /// setSweep(s, sweepStrategies(s, axis), estimate(s), unit): for a chart without a Session.
    void setScenario(const Scenario &s, SweepAxis axis, ByteUnit unit);

    /// Strategy i's line (0 = DDP .. 3 = ZeRO-3); null out of range.
    QCPGraph *line(int i) const { return i >= 0 && i < 4 ? m_lines[std::size_t(i)] : nullptr; }
    /// The scenario's own point: one data point, or none when its report is invalid.
    QCPGraph *currentDot() const { return m_dot; }
    /// The dashed capacity line.
    QCPItemStraightLine *capacityLine() const { return m_capacityLine; }
    /// The capacity label's text item (for tests: its pixel box).
    const QCPItemText *capacityItem() const { return m_capacityLabel; }
    /// The message shown when no point of the sweep can be estimated (null never).
    const QCPItemText *messageItem() const { return m_message; }
    /// The capacity line's value in display units (GB or GiB).
    double capacityValue() const { return m_capacity; }
    /// The axis being swept.
    SweepAxis axis() const { return m_axis; }

private:
    /// After each layout: legend columns, the tick labels of both log axes thinned until
    /// they stand apart, axis titles no longer than their sides, and the capacity label
    /// beside its line inside the axis rect.
    void fitText() override;
    /// Lines, dot, capacity line and label, legend and axes in chartStyle().
    void restyle() override;
    /// The value axis' ticks for its range and height: 1, 2, 5 x 10^k, or decades alone, or
    /// every second decade, ... so that labels stand 2.5 label heights apart; true when
    /// they changed.
    bool fitValueAxisTicks();
    /// The axis rect's right margin: the capacity label's room where the line shows, a
    /// little air otherwise (the step-time sweep).
    void placeRightMargin();
    /// The swept axis' tick labels, every k-th value, k the smallest whose labels do not
    /// touch; true when they changed.
    bool fitKeyAxisTicks();

    std::array<QCPGraph *, 4> m_lines{};
    QCPGraph *m_dot = nullptr;
    QCPItemStraightLine *m_capacityLine = nullptr;
    QCPItemText *m_capacityLabel = nullptr;
    QCPItemText *m_message = nullptr;
    SweepAxis m_axis = SweepAxis::Gpus;
    std::vector<std::int64_t> m_values; ///< the swept values, as drawn
    double m_capacity = 0;
    QString m_capacityText;
    int m_stage = 0;       ///< the scenario's strategy, 0 (DDP) .. 3 (ZeRO-3): the dot's colour
    bool m_noData = false; ///< no point of the sweep can be estimated: the message shows
    double m_low = 1, m_high = 10; ///< the value axis' range, display units
    int m_keyStride = 0;           ///< every k-th swept value labelled; 0 before the first fit
    QString m_valueTicksKey;       ///< the value ticks last set, as text (no relayout when equal)
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
