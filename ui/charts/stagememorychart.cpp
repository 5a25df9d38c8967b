#include "stagememorychart.h"

#include "estimate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <qcustomplot.h>

namespace shardscope {

namespace {

/// Legend entries at most: one row of stages.
constexpr int maxLegendEntries = 8;

QString timeTitle()
{
    return QStringLiteral("Time (forward passes)");
}

/// Stage `stage` of `stages` on a ramp: its first colour at stage 0, its last at the last
/// stage, linear in sRGB between neighbouring entries.
QColor rampAt(const std::array<QColor, 7> &ramp, int stage, int stages)
{
    const double x = stages <= 1 ? 0 : double(std::clamp(stage, 0, stages - 1)) / (stages - 1);
    const double pos = x * double(ramp.size() - 1);
    const int k = std::min(int(pos), int(ramp.size()) - 2);
    return mixColors(ramp[std::size_t(k + 1)], ramp[std::size_t(k)], pos - k);
}

} // namespace

StageMemoryChart::StageMemoryChart(QWidget *parent) : ChartView(QSize(480, 200), parent)
{
    plot()->xAxis->grid()->setVisible(false);
    plot()->xAxis->setLabel(timeTitle());

    m_capacityLine = new QCPItemStraightLine(plot());
    m_capacityText = addCapacityLabel(plot(), Qt::AlignLeft | Qt::AlignBottom);
    m_capacityText->setPadding(QMargins(6, 2, 6, 4));
    // Over the stage lines, on its plate: lines near the capacity would strike it through.
    m_capacityText->setLayer(QStringLiteral("axes"));

    // The playhead and the dots live on their own buffered layer: a frame redraws only it.
    m_playheadLine = new QCPItemStraightLine(plot());
    m_live = addLiveLayer(plot());
    m_playheadLine->setLayer(m_live);
    m_message = addPlotMessage(plot());

    // The measured trace on its own time axis (seconds of the recording), hidden until set.
    // On a layer of its own above the stage lines: it is drawn over them.
    plot()->addLayer(QStringLiteral("measured"), plot()->layer(QStringLiteral("main")),
                     QCustomPlot::limAbove);
    m_measured = new QCPGraph(plot()->xAxis2, plot()->yAxis);
    m_measured->setLayer(QStringLiteral("measured"));
    m_measured->setLineStyle(QCPGraph::lsLine);
    m_measured->setSelectable(QCP::stNone);
    m_measured->removeFromLegend();
    m_measured->setVisible(false);
    plot()->xAxis2->grid()->setVisible(false);

    placeLegendAbove(plot(), maxLegendEntries, 20, 2);
    alignTimeAxis(plot());
    setChartStyle(chartStyle());
}

bool StageMemoryChart::setLegendStages(int columns)
{
    const int p = int(m_stages.size());
    const int k = std::clamp(columns, std::min(p, 2), std::min(p, maxLegendEntries));
    std::vector<int> stages;
    for (int j = 0; j < k; ++j) // 0, .., p - 1 evenly: round(j (p - 1) / (k - 1))
        stages.push_back(k == 1 ? 0
                                : int((2 * std::int64_t(j) * (p - 1) + (k - 1)) / (2 * (k - 1))));
    if (stages == m_legendStages)
        return false;
    m_legendStages = stages;
    for (QCPGraph *line : m_lines)
        line->removeFromLegend();
    for (const int i : stages)
        addToLegend(m_lines[std::size_t(i)]);
    return true;
}

void StageMemoryChart::fitText()
{
    if (!plotLaidOut())
        return;
    bool changed = false;
    // As many legend entries as one row holds: the widest is the last stage's, always named.
    if (!m_stages.empty()) {
        const int fit = legendColumnsThatFit(plot());
        const int columns = fit >= 0 ? fit : maxLegendEntries;
        m_legendColumns = columns;
        changed = setLegendStages(columns);
    }
    const int wrap = plot()->legend->wrap();
    fitLegendColumns(plot(), maxLegendEntries); // also for exports, which emit no beforeReplot
    changed = fitValueTicks(plot()->yAxis, !m_stages.empty()) || changed;
    if (changed || plot()->legend->wrap() != wrap)
        relayoutPlot(plot());
    const QString unit = toQString(unitName(m_unit));
    const bool y = fitAxisTitle(plot()->yAxis, {QStringLiteral("%1 per GPU").arg(unit), unit});
    const QStringList timeTitles =
        m_secondsPerUnit > 0 ? QStringList{QStringLiteral("Time (s)"), QStringLiteral("s")}
                             : QStringList{timeTitle(), QStringLiteral("Time")};
    const bool top = m_measured->visible() &&
                     fitAxisTitle(plot()->xAxis2, {m_measured->name() + QStringLiteral(", s"),
                                                   QStringLiteral("Measured, s")});
    if (fitAxisTitle(plot()->xAxis, timeTitles) || y || top)
        relayoutPlot(plot());
    if (clearAxisCorner(plot())) // time "0" under memory "0"
        relayoutPlot(plot());

    // The capacity label just above its line, or just below where the axis rect ends first.
    const QRect ar = plot()->axisRect()->rect();
    const double height =
        textBox(m_capacityText->font(), m_capacityText->text(), m_capacityText->padding()).height();
    const double linePx = plot()->yAxis->coordToPixel(m_capacity);
    const double below = linePx + capacityPen(chartStyle()).widthF() / 2;
    const bool above = linePx - height >= ar.top();
    m_capacityText->setPositionAlignment(Qt::AlignLeft | (above ? Qt::AlignBottom : Qt::AlignTop));
    m_capacityText->position->setCoords(0.005,
                                        above ? m_capacity : plot()->yAxis->pixelToCoord(below));
    // A plot too short for it on either side shows the dashed line alone (no label over
    // the time axis' numbers).
    m_capacityText->setVisible(m_capacityShown && (above || below + height <= ar.bottom()));
}

void StageMemoryChart::restyle()
{
    const ChartStyle &st = chartStyle();
    applyAxisStyle(plot(), st, font(), 13);
    m_capacityLine->setPen(capacityPen(st));
    styleCapacityLabel(m_capacityText, st, font());
    m_playheadLine->setPen(playheadPen(st));
    styleMessage(m_message, st, font());
    styleLegend(plot(), st, font(), 13, QSize(36, 16));
    // The top axis in the measured colour, so it reads as the dashed line's own.
    const QColor measured = measuredColor(st.isDark());
    QCPAxis *top = plot()->xAxis2;
    top->setBasePen(QPen(measured, st.lineScale));
    top->setTickPen(QPen(measured, st.lineScale));
    top->setSubTickPen(QPen(measured, st.lineScale));
    top->setTickLabelColor(measured);
    top->setLabelColor(measured);
    top->setTickLabelFont(st.font(font(), 13));
    top->setLabelFont(st.font(font(), 14, true));
    m_measured->setPen(QPen(measured, 3 * st.lineScale, Qt::DashLine));
    styleLines();
}

void StageMemoryChart::styleLines()
{
    const int p = int(m_stages.size());
    for (int i = 0; i < p && i < int(m_lines.size()); ++i) {
        const QColor color = stageColor(i, p, chartStyle());
        m_lines[std::size_t(i)]->setPen(QPen(color, (p > 8 ? 2.5 : 3.5) * chartStyle().lineScale));
        m_dots[std::size_t(i)]->setScatterStyle(QCPScatterStyle(
            QCPScatterStyle::ssCircle, QPen(chartStyle().background, 2 * chartStyle().lineScale),
            QBrush(color), 15 * chartStyle().lineScale));
    }
}

std::int64_t StageMemoryChart::stageBytes(const GpuGroup &g, int inFlight, int embeddingInFlight,
                                          int headInFlight)
{
    return stageBytesHolding(g, inFlight, embeddingInFlight, headInFlight);
}

std::int64_t StageMemoryChart::Stage::bytesAt(double time) const
{
    return stageBytes(group, stepValueAt(inFlight, time), stepValueAt(embeddingInFlight, time),
                      stepValueAt(headInFlight, time));
}

int StageMemoryChart::inFlightAt(const StageTimeline &stage, double time)
{
    return stepValueAt(stage.inFlight, time);
}

QColor StageMemoryChart::stageColor(int stage, int stages)
{
    // Viridis (van der Walt and Smith 2015) from 0 to 0.85, so the last stage stays legible
    // on white.
    static const std::array<QColor, 7> ramp = {QColor(0x44, 0x01, 0x54), QColor(0x46, 0x33, 0x7E),
                                               QColor(0x36, 0x5C, 0x8D), QColor(0x27, 0x7F, 0x8E),
                                               QColor(0x1F, 0xA1, 0x87), QColor(0x4A, 0xC1, 0x6D),
                                               QColor(0x9F, 0xDA, 0x3A)};
    return rampAt(ramp, stage, stages);
}

QColor StageMemoryChart::stageColor(int stage, int stages, const ChartStyle &style)
{
    if (!style.isDark())
        return stageColor(stage, stages);
    // Viridis at 0.4, 0.5, .. 1.0 (matplotlib's table): the darkest, teal, stands 3.7:1
    // against the dark canvas, a non-text contrast that passes WCAG 2.1's 3:1.
    static const std::array<QColor, 7> ramp = {QColor(0x2A, 0x78, 0x8E), QColor(0x21, 0x91, 0x8C),
                                               QColor(0x22, 0xA8, 0x84), QColor(0x44, 0xBF, 0x70),
                                               QColor(0x7A, 0xD1, 0x51), QColor(0xBD, 0xDF, 0x26),
                                               QColor(0xFD, 0xE7, 0x25)};
    return rampAt(ramp, stage, stages);
}

void StageMemoryChart::setSecondsPerUnit(double seconds)
{
    if (setTimeAxisSeconds(plot()->xAxis, seconds, &m_secondsPerUnit, timeTitle()))
        plot()->replot(QCustomPlot::rpQueuedReplot);
}

void StageMemoryChart::setData(const Scenario &s, const MemoryReport &r, const Timeline &t,
                               ByteUnit unit)
{
    m_scale = unitBytes(unit);
    m_unit = unit;
    m_stages.clear();
    QString message;
    if (!t.valid())
        message = QStringLiteral("No timeline: ") + toQString(t.error);
    else if (!r.valid())
        message = QStringLiteral("Memory: ") + toQString(r.error);
    else if (r.groups.size() != t.stages.size())
        message = QStringLiteral("The report has %1 stage(s), the timeline %2")
                      .arg(r.groups.size())
                      .arg(t.stages.size());
    else if (t.stages.size() > 256)
        message = QStringLiteral("%1 stages: too many lines to draw").arg(t.stages.size());
    if (message.isEmpty()) {
        for (std::size_t i = 0; i < t.stages.size(); ++i)
            m_stages.push_back({r.groups[i], t.stages[i].inFlight, t.stages[i].embeddingInFlight,
                                t.stages[i].headInFlight});
    }
    m_makespan = message.isEmpty() ? t.makespan : 0;
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());

    const int p = int(m_stages.size());
    while (int(m_lines.size()) < p) {
        auto *line = new QCPGraph(plot()->xAxis, plot()->yAxis);
        line->setLineStyle(QCPGraph::lsStepLeft);
        line->setSelectable(QCP::stNone);
        // Steps are horizontal and vertical: antialiasing adds nothing but costs most of
        // a frame for ZB-H1 at p 16, m 64 (hundreds of steps per line).
        line->setAntialiased(false);
        line->removeFromLegend(); // setLegendStages() names the stages the legend shows
        auto *dot = new QCPGraph(plot()->xAxis, plot()->yAxis);
        dot->setLineStyle(QCPGraph::lsNone);
        dot->setSelectable(QCP::stNone);
        dot->removeFromLegend();
        dot->setLayer(m_live);
        m_lines.push_back(line);
        m_dots.push_back(dot);
    }
    double top = 0;
    for (int i = 0; i < int(m_lines.size()); ++i) {
        QCPGraph *line = m_lines[i];
        QCPGraph *dot = m_dots[i];
        const bool used = i < p;
        line->setVisible(used);
        dot->setVisible(used);
        if (!used) {
            line->data()->clear();
            dot->data()->clear();
            line->removeFromLegend();
            continue;
        }
        line->setName(QStringLiteral("Stage %1").arg(i));

        QVector<double> keys, values;
        const Stage &st = m_stages[i];
        // The engine's memory over the step (stageMemoryOverTime); the chart only draws it.
        const std::vector<MemoryStep> steps = stageMemoryOverTime(
            st.group, st.inFlight, st.embeddingInFlight, st.headInFlight, m_makespan);
        keys.reserve(int(steps.size()));
        values.reserve(int(steps.size()));
        for (const MemoryStep &step : steps) {
            keys << step.time;
            values << double(step.bytes) / m_scale;
            top = std::max(top, values.back());
        }
        line->setData(keys, values, true);
    }

    // The legend's stages for as many columns as the last layout measured (8 at first);
    // the same stages as before keep their entries.
    setLegendStages(m_legendColumns);

    m_capacity = r.valid() ? double(r.capacityBytes) / m_scale : 0;
    m_capacityLine->setVisible(r.valid() && p > 0);
    m_capacityShown = r.valid() && p > 0;
    m_capacityText->setVisible(m_capacityShown);
    placeHorizontalLine(m_capacityLine, m_capacity);
    m_capacityText->position->setCoords(0.005, m_capacity);
    m_capacityText->setText(capacityText(s.gpu, unit, true));

    // The same time axis as TimelineView: 1 % to spare on the right.
    plot()->xAxis->setRange(0, (m_makespan > 0 ? m_makespan : 1) * 1.01);
    m_stagesTop = top;
    drawMeasured(false); // redrawn only when the unit or its visibility changed
    const QString unitTitle = QStringLiteral("%1 per GPU").arg(toQString(unitName(unit)));
    if (plot()->yAxis->label() != unitTitle && plot()->yAxis->label() != toQString(unitName(unit)))
        plot()->yAxis->setLabel(unitTitle); // fitText() shortens it where it does not fit
    m_playheadLine->setVisible(p > 0);
    styleLines();
    movePlayhead(m_playhead);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void StageMemoryChart::setMeasuredTrace(const std::vector<MeasuredPoint> &trace,
                                        const QString &label)
{
    const bool same =
        label == m_measured->name() && trace.size() == m_trace.size() &&
        std::equal(trace.begin(), trace.end(), m_trace.begin(), [](const auto &a, const auto &b) {
            return a.seconds == b.seconds && a.bytes == b.bytes;
        });
    if (!same) {
        m_trace = trace;
        m_measured->setName(label);
    }
    drawMeasured(!same);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void StageMemoryChart::drawMeasured(bool traceChanged)
{
    const bool shown = !m_trace.empty() && !m_stages.empty();
    if (!traceChanged && shown == m_measured->visible() && m_scale == m_measuredScale) {
        setValueRange();
        return;
    }
    m_measuredScale = m_scale;
    QVector<double> keys, values;
    m_measuredTop = 0;
    if (shown) {
        keys.reserve(int(m_trace.size()));
        values.reserve(int(m_trace.size()));
        for (const MeasuredPoint &point : m_trace) {
            keys << point.seconds;
            values << double(point.bytes) / m_scale;
            m_measuredTop = std::max(m_measuredTop, values.back());
        }
    }
    m_measured->setData(keys, values, true);
    m_measured->setVisible(shown);
    QCPAxis *top = plot()->xAxis2;
    top->setVisible(shown);
    if (shown) {
        const double first = std::min(0.0, keys.front());
        const double last = std::max(first + 1e-6, keys.back());
        top->setRange(first, last + (last - first) * 0.01);
    }
    setValueRange();
}

std::vector<std::pair<double, double>> StageMemoryChart::measuredLine() const
{
    std::vector<std::pair<double, double>> out;
    if (!m_measured->visible())
        return out;
    for (auto it = m_measured->data()->constBegin(); it != m_measured->data()->constEnd(); ++it)
        out.emplace_back(it->key, it->value);
    return out;
}

void StageMemoryChart::setValueRange()
{
    // 25 % headroom: room for the capacity label above its line even in a short chart.
    plot()->yAxis->setRange(0, std::max({m_stagesTop, m_measuredTop, m_capacity, 1e-9}) * 1.25);
}

void StageMemoryChart::setPlayhead(double time)
{
    movePlayhead(time);
    m_live->replot();
}

void StageMemoryChart::movePlayhead(double time)
{
    if (!std::isfinite(time))
        time = 0;
    m_playhead = std::clamp(time, 0.0, std::max(0.0, m_makespan));
    placeVerticalLine(m_playheadLine, m_playhead);
    for (int i = 0; i < int(m_stages.size()); ++i) {
        QCPGraphData d(m_playhead, valueAt(i, m_playhead));
        m_dots[i]->data()->set(QVector<QCPGraphData>{d}, true);
    }
}

std::int64_t StageMemoryChart::bytesAt(int stage, double time) const
{
    if (stage < 0 || stage >= stageCount())
        return 0;
    return m_stages[stage].bytesAt(time);
}

double StageMemoryChart::valueAt(int stage, double time) const
{
    return double(bytesAt(stage, time)) / m_scale;
}

double StageMemoryChart::markerValue(int stage) const
{
    if (stage < 0 || stage >= stageCount() || m_dots[stage]->data()->isEmpty())
        return 0;
    return m_dots[stage]->data()->constBegin()->value;
}

std::vector<std::pair<double, double>> StageMemoryChart::line(int stage) const
{
    std::vector<std::pair<double, double>> out;
    if (stage < 0 || stage >= stageCount())
        return out;
    for (auto it = m_lines[stage]->data()->constBegin(); it != m_lines[stage]->data()->constEnd();
         ++it)
        out.emplace_back(it->key, it->value);
    return out;
}

QString StageMemoryChart::message() const
{
    return m_message->visible() ? m_message->text() : QString();
}

} // namespace shardscope
