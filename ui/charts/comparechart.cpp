#include "comparechart.h"

#include "chartdata.h"
#include "compare.h"
#include "estimate.h"
#include "verdict.h"

#include <QMouseEvent>
#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.56;

QString strategyTitle()
{
    return QStringLiteral("Strategy (busiest GPU of each)");
}

} // namespace

CompareChart::CompareChart(QWidget *parent)
    : ChartView(QSize(480, 320), parent), m_bars(plot(), barWidth, true)
{
    useCategoryAxis(plot()->xAxis, strategyTitle(), 4);
    plot()->xAxis->setRange(0.4, 4.6);
    for (auto &t : m_totals) {
        t = addBarValue(plot(), 0);
        t->setPadding(QMargins(3, 1, 3, 1));
        t->setClipToAxisRect(false);
    }

    // The current strategy's column: behind the grid and the bars, from the axis rect's
    // top to its bottom, one category slot wide.
    m_currentBand = new QCPItemRect(plot());
    m_currentBand->setLayer(QStringLiteral("background"));
    m_currentBand->setSelectable(false);
    for (QCPItemPosition *p : {m_currentBand->topLeft, m_currentBand->bottomRight}) {
        p->setTypeX(QCPItemPosition::ptPlotCoords);
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    m_currentBand->setVisible(false);

    // Legend in a row above the axis rect, as in MemoryChart.
    placeLegendAbove(plot(), 7, 18);
    plot()->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    // One paint buffer, not two: nothing is drawn on the overlay layer (no selection rect),
    // and each buffer costs a clear and a blend of the whole plot per replot.
    plot()->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    setChartStyle(chartStyle());

    // As in MemoryChart: a bar's numbers on hover, and a click selects its strategy.
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, &CompareChart::showTooltip);
    connect(plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (const int i = strategyAt(event->pos()); i >= 0 && event->button() == Qt::LeftButton)
            emit strategyClicked(strategies[std::size_t(i)]);
    });
}

int CompareChart::strategyAt(const QPoint &pos) const
{
    return categoryAt(plot(), pos, 4, barWidth / 2);
}

QString CompareChart::tooltipText(int i) const
{
    if (i < 0 || i >= 4)
        return {};
    const MemoryReport &r = m_reports[std::size_t(i)];
    const Scenario &s = m_scenarios[std::size_t(i)];
    QString name = strategyLabel(i).toHtmlEscaped();
    name.replace(u'\n', QStringLiteral(", "));
    QString text = QStringLiteral("<b>%1</b>").arg(name);
    if (!r.valid())
        return text +
               QStringLiteral("<br>Cannot estimate: %1").arg(toQString(r.error).toHtmlEscaped());
    const GpuGroup *peak = r.peakGroup();
    text += r.groups.size() > 1
                ? QStringLiteral("<br>busiest GPU: stage %1").arg(peak->pipelineStage)
                : QStringLiteral("<br>each GPU");
    text += QStringLiteral("<table>");
    for (int c = componentCount - 1; c >= 0; --c)
        text +=
            QStringLiteral("<tr><td><span style='color:%1'>■</span> %2</td>"
                           "<td align=right>&nbsp;%3</td></tr>")
                .arg(componentColor(Component(c)).name(), toQString(componentName(Component(c))),
                     toQString(formatBytes(componentValue(peak->bytes, Component(c)), m_unit)));
    text += QStringLiteral("<tr><td><b>Total</b></td><td align=right>&nbsp;<b>%1</b></td></tr>"
                           "</table>")
                .arg(toQString(formatBytes(r.peakBytes(), m_unit)));
    // The verdict's figures are the engine's (core/verdict.h); the spare room is the one
    // difference left for display.
    const Verdict v = verdict(s, r);
    // The card by the size it is sold as and its usable bytes where the driver's total is
    // known ("the H100 80 GB (85.5 GB usable)"), else by its datasheet figure alone.
    const QString capacity =
        s.gpu.driverReportedBytes > 0
            ? QStringLiteral("%1 (%2 usable)")
                  .arg(cardName(s.gpu).toHtmlEscaped(),
                       toQString(formatBytes(r.capacityBytes, m_unit)))
            : toQString(formatBytes(r.capacityBytes, m_unit)) + QStringLiteral(" GPU");
    if (v.gpuOverflows())
        text += QStringLiteral("<b>Overflows</b> the %1 by %2")
                    .arg(capacity, toQString(formatBytes(v.gpuOverflowBytes, m_unit)));
    else
        text += QStringLiteral("<b>Fits</b> the %1, %2 to spare")
                    .arg(capacity, toQString(formatBytes(r.capacityBytes - r.peakBytes(), m_unit)));
    if (v.hostOverflows())
        text += QStringLiteral("<br>host RAM per node overflows by %1")
                    .arg(toQString(formatBytes(v.hostOverflowBytesPerNode, m_unit)));
    return text;
}

void CompareChart::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(plot(), event, tooltipText(strategyAt(event->pos())));
}

QString CompareChart::tickLabelAt(int i, int level) const
{
    QString label = strategyLabel(i);
    if (level >= 1) // one part a line: "ZeRO-3\n/ FSDP\nstage 0\nno offload"
        label.replace(QStringLiteral(" / "), QStringLiteral("\n/ "))
            .replace(QStringLiteral(", "), QStringLiteral("\n"));
    if (level >= 2) // one word a line: "optimizer\noffload"
        label.replace(u' ', u'\n');
    return label;
}

void CompareChart::fitText()
{
    QRect area = plot()->axisRect()->rect();
    if (!plotLaidOut())
        return;
    // The capacity label's room first (fitCapacityLabel() widens the right margin to it),
    // then legend columns and value ticks: they decide the axis rect's width.
    fitCapacityLabel(plot(), m_bars.label(), m_capacity, m_capacityText);
    area = plot()->axisRect()->rect();
    const int wrap = plot()->legend->wrap();
    fitLegendColumns(plot(), 7); // also for exports, which emit no beforeReplot
    // Headroom above the tallest bar or the line for one total and the line's pen.
    const double need =
        textBox(scaledFont(13, true), QStringLiteral("8"), QMargins(3, 1, 3, 1)).height() +
        capacityPen(chartStyle()).widthF() + 8;
    const double headroom = headroomFor(need, area.height(), 1.14);
    const bool rerange = std::abs(headroom - m_headroom) > 1e-3;
    if (rerange) {
        m_headroom = headroom;
        setMemoryAxis(plot()->yAxis, m_top, m_capacity, m_headroom, m_unit);
    }
    if (fitValueTicks(plot()->yAxis) || plot()->legend->wrap() != wrap || rerange) {
        relayoutPlot(plot());
        area = plot()->axisRect()->rect();
    }
    bool changed = false;

    // Labels on one line while they fit their slots; else a part a line; else smaller
    // type (down to 8 pt).
    const double slot = area.width() / 4.2 - 8;
    auto labels = [this](int level) {
        QVector<QString> texts;
        for (int i = 0; i < 4; ++i)
            texts << tickLabelAt(i, level);
        return texts;
    };
    QFont font = scaledFont(13, true);
    int level = 0;
    while (level < 2 && widestText(font, labels(level)) > slot)
        ++level;
    const QVector<QString> texts = labels(level);
    while (widestText(font, texts) > slot && font.pointSizeF() > 8)
        font.setPointSizeF(font.pointSizeF() - 0.5);
    if (level != m_level || font != plot()->xAxis->tickLabelFont()) {
        m_level = level;
        plot()->xAxis->setTickLabelFont(font);
        QVector<double> keys = {1, 2, 3, 4};
        plot()->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, texts);
        changed = true;
    }
    if (changed)
        relayoutPlot(plot());
    // Axis titles no longer than their sides: "GB per GPU" on a short plot.
    const bool y = fitAxisTitle(plot()->yAxis, memoryAxisTitles(m_unit));
    if (fitAxisTitle(plot()->xAxis, {strategyTitle(), QStringLiteral("Strategy")}) || y)
        relayoutPlot(plot());
    if (clearAxisCorner(plot()))
        relayoutPlot(plot());

    // The capacity label stays beside its line, inside the axis rect's height.
    fitCapacityLabel(plot(), m_bars.label(), m_capacity, m_capacityText);

    QVector<double> keys(4), tops(4);
    for (int i = 0; i < 4; ++i) {
        keys[i] = i + 1;
        tops[i] = stackTop(i);
        m_totals[std::size_t(i)]->setVisible(true);
    }
    placeBarValues(plot(), std::vector<QCPItemText *>(m_totals.begin(), m_totals.end()), keys, tops,
                   barWidth, m_capacity, capacityPen(chartStyle()).widthF(), 3,
                   chartStyle().background);
}

void CompareChart::restyle()
{
    const ChartStyle &st = chartStyle();
    applyAxisStyle(plot(), st, font());
    plot()->xAxis->setTickLabelFont(scaledFont(13, true));
    // No outline between the parts: at the scale of a 1,120 GB DDP bar, a 17.5 GB
    // ZeRO-3 bar is a few pixels tall and separators would leave only white.
    m_bars.applyStyle(st, font(), false);
    for (auto *t : m_totals) {
        t->setFont(scaledFont(13, true));
        t->setColor(st.ink);
    }
    styleLegend(plot(), st, font(), 13, QSize(24, 18));
    QColor band = st.ink;
    band.setAlpha(st.isDark() ? 40 : 22);
    m_currentBand->setPen(Qt::NoPen);
    m_currentBand->setBrush(band);
    plot()->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
}

void CompareChart::setScenario(const Scenario &s, ByteUnit unit)
{
    setComparison(s, compareStrategies(s), unit);
}

void CompareChart::setComparison(const Scenario &s, const std::array<StrategyVariant, 4> &variants,
                                 ByteUnit unit)
{
    m_unit = unit;
    const double scale = unitBytes(unit);
    const CompareBars bars = compareBars(s, variants);
    m_current = bars.current;
    m_currentBand->setVisible(m_current >= 0 && m_current < 4);
    m_currentBand->topLeft->setCoords(m_current + 1 - 0.48, 0);
    m_currentBand->bottomRight->setCoords(m_current + 1 + 0.48, 1);
    QVector<double> keys(4);
    std::vector<ComponentBytes> shown(4);
    for (int i = 0; i < 4; ++i) {
        const auto k = std::size_t(i);
        keys[i] = i + 1;
        m_scenarios[k] = variants[k].scenario;
        m_reports[k] = variants[k].report;
        m_labels[k] = toQString(bars.bars[k].label);
        shown[k] = bars.bars[k].bytes;
    }

    m_bars.setBars(keys, shown, scale);

    m_capacity = double(bars.capacityBytes) / scale;
    // Three short lines, "H100\n85.5 GB\nusable", so the label keeps to the chart's
    // right margin even at 600 px in the presentation style.
    m_capacityText =
        s.gpu.driverReportedBytes > 0
            ? QStringLiteral("%1\n%2\nusable")
                  .arg(toQString(s.gpu.shortName), toQString(formatBytes(bars.capacityBytes, unit)))
            : capacityText(s.gpu, unit);
    m_bars.setCapacity(m_capacity, m_capacityText);
    double top = 0;
    for (int i = 0; i < 4; ++i) {
        top = std::max(top, stackTop(i));
        QCPItemText *text = m_totals[std::size_t(i)];
        text->position->setCoords(keys[i], stackTop(i));
        text->setText(totalText(i));
    }

    QVector<QString> ticks;
    for (int i = 0; i < 4; ++i)
        ticks << tickLabelAt(i, m_level);
    plot()->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, ticks);
    m_top = top;
    setMemoryAxis(plot()->yAxis, top, m_capacity, m_headroom, unit);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

QString CompareChart::strategyLabel(int i) const
{
    return i >= 0 && i < 4 ? m_labels[std::size_t(i)] : QString();
}

double CompareChart::componentHeight(int i, Component c) const
{
    return i >= 0 && i < 4 ? m_bars.height(i, c) : 0;
}

double CompareChart::stackTop(int i) const
{
    return i >= 0 && i < 4 ? m_bars.top(i) : 0;
}

QString CompareChart::totalText(int i) const
{
    if (i < 0 || i >= 4 || !m_reports[std::size_t(i)].valid())
        return QStringLiteral("n/a");
    return QString::fromStdString(formatBytes(m_reports[std::size_t(i)].peakBytes(), m_unit));
}

} // namespace shardscope
