#include "comparechart.h"

#include "compare.h"
#include "estimate.h"
#include "verdict.h"

#include <QMouseEvent>
#include <QScopedValueRollback>
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
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_bars(m_plot, barWidth, true)
{
    fillWithPlot(this, m_plot, QSize(480, 320));
    useCategoryAxis(m_plot->xAxis, strategyTitle(), 4);
    m_plot->xAxis->setRange(0.4, 4.6);
    for (auto &t : m_totals) {
        t = addBarValue(m_plot, 0);
        t->setPadding(QMargins(3, 1, 3, 1));
        t->setClipToAxisRect(false);
    }

    // Legend in a row above the axis rect, as in MemoryChart.
    placeLegendAbove(m_plot, 7, 18);
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    // One paint buffer, not two: nothing is drawn on the overlay layer (no selection rect),
    // and each buffer costs a clear and a blend of the whole plot per replot.
    m_plot->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    setStyle(m_style);
    // Every layout, on screen or for an export, fits the text to the pixels it has.
    connect(m_plot, &QCustomPlot::afterLayout, this, &CompareChart::fitToPlot);

    // As in MemoryChart: a bar's numbers on hover, and a click selects its strategy.
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &CompareChart::showTooltip);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (const int i = strategyAt(event->pos()); i >= 0 && event->button() == Qt::LeftButton)
            emit strategyClicked(strategies[std::size_t(i)]);
    });
}

int CompareChart::strategyAt(const QPoint &pos) const
{
    return categoryAt(m_plot, pos, 4, barWidth / 2);
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
    const QString capacity = toQString(formatBytes(r.capacityBytes, m_unit));
    if (v.gpuOverflows())
        text += QStringLiteral("<b>Overflows</b> the %1 GPU by %2")
                    .arg(capacity, toQString(formatBytes(v.gpuOverflowBytes, m_unit)));
    else
        text += QStringLiteral("<b>Fits</b> the %1 GPU, %2 to spare")
                    .arg(capacity, toQString(formatBytes(r.capacityBytes - r.peakBytes(), m_unit)));
    if (v.hostOverflows())
        text += QStringLiteral("<br>host RAM per node overflows by %1")
                    .arg(toQString(formatBytes(v.hostOverflowBytesPerNode, m_unit)));
    return text;
}

void CompareChart::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(m_plot, event, tooltipText(strategyAt(event->pos())));
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

void CompareChart::fitToPlot()
{
    if (m_fitting)
        return;
    const QScopedValueRollback<bool> guard(m_fitting, true);
    QRect area = m_plot->axisRect()->rect();
    if (!hasRealGeometry(m_plot) || area.width() <= 0 || area.height() <= 0)
        return;
    // Legend columns and value ticks first: they decide the axis rect's width.
    const int wrap = m_plot->legend->wrap();
    fitLegendColumns(m_plot, 7); // also for exports, which emit no beforeReplot
    // Headroom above the tallest bar or the line for one total and the line's pen.
    const double need =
        textBox(scaledFont(13, true), QStringLiteral("8"), QMargins(3, 1, 3, 1)).height() +
        capacityPen(m_style).widthF() + 8;
    const double headroom = headroomFor(need, area.height(), 1.14);
    const bool rerange = std::abs(headroom - m_headroom) > 1e-3;
    if (rerange) {
        m_headroom = headroom;
        setMemoryAxis(m_plot->yAxis, m_top, m_capacity, m_headroom, m_unit);
    }
    if (fitValueTicks(m_plot->yAxis) || m_plot->legend->wrap() != wrap || rerange) {
        relayoutPlot(m_plot);
        area = m_plot->axisRect()->rect();
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
    if (level != m_level || font != m_plot->xAxis->tickLabelFont()) {
        m_level = level;
        m_plot->xAxis->setTickLabelFont(font);
        QVector<double> keys = {1, 2, 3, 4};
        m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, texts);
        changed = true;
    }
    if (changed)
        relayoutPlot(m_plot);
    // Axis titles no longer than their sides: "GB per GPU" on a short plot.
    const bool y = fitAxisTitle(m_plot->yAxis, memoryAxisTitles(m_unit));
    if (fitAxisTitle(m_plot->xAxis, {strategyTitle(), QStringLiteral("Strategy")}) || y)
        relayoutPlot(m_plot);
    if (clearAxisCorner(m_plot))
        relayoutPlot(m_plot);

    // The capacity label stays beside its line, inside the axis rect's height.
    fitCapacityLabel(m_plot, m_bars.label(), m_capacity, m_capacityText);

    QVector<double> keys(4), tops(4);
    for (int i = 0; i < 4; ++i) {
        keys[i] = i + 1;
        tops[i] = stackTop(i);
        m_totals[std::size_t(i)]->setVisible(true);
    }
    placeBarValues(m_plot, std::vector<QCPItemText *>(m_totals.begin(), m_totals.end()), keys, tops,
                   barWidth, m_capacity, capacityPen(m_style).widthF(), 3, m_style.background);
}

QFont CompareChart::scaledFont(double points, bool bold) const
{
    return m_style.font(font(), points, bold);
}

void CompareChart::setStyle(const ChartStyle &style)
{
    m_style = style;
    const ChartStyle &st = m_style;
    applyAxisStyle(m_plot, st, font());
    m_plot->xAxis->setTickLabelFont(scaledFont(13, true));
    // No outline between the parts: at the scale of a 1,120 GB DDP bar, a 17.5 GB
    // ZeRO-3 bar is a few pixels tall and separators would leave only white.
    m_bars.applyStyle(st, font(), false);
    for (auto *t : m_totals) {
        t->setFont(scaledFont(13, true));
        t->setColor(st.ink);
    }
    styleLegend(m_plot, st, font(), 13, QSize(24, 18));
    m_plot->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CompareChart::setScenario(const Scenario &s, ByteUnit unit)
{
    m_unit = unit;
    const double scale = unitBytes(unit);
    m_current = int(s.layout.zeroStage);
    QVector<double> keys(4);
    std::array<ComponentBytes, 4> shown{};
    // The engine decides each strategy's variant and what it had to adjust.
    const std::array<StrategyVariant, 4> variants = compareStrategies(s);
    for (int i = 0; i < 4; ++i) {
        keys[i] = i + 1;
        const StrategyVariant &variant = variants[std::size_t(i)];
        const Layout &l = variant.scenario.layout;
        QStringList notes;
        for (const std::string &a : variant.adjustments)
            notes << QString::fromStdString(a);
        m_scenarios[std::size_t(i)] = variant.scenario;
        m_reports[std::size_t(i)] = variant.report;
        const MemoryReport &r = m_reports[std::size_t(i)];
        QString label = toQString(zeroStageName(l.zeroStage));
        if (r.valid()) {
            const GpuGroup *g = r.peakGroup();
            shown[std::size_t(i)] = g->bytes;
            if (r.groups.size() > 1)
                notes << QStringLiteral("stage %1").arg(g->pipelineStage);
        }
        if (!notes.isEmpty())
            label += u'\n' + notes.join(QStringLiteral(", "));
        m_labels[std::size_t(i)] = label;
    }

    m_bars.setBars(keys, std::vector<ComponentBytes>(shown.begin(), shown.end()), scale);

    const MemoryReport &own = m_reports[std::size_t(m_current)];
    const std::int64_t capacityBytes = own.valid() ? own.capacityBytes : s.gpu.capacityBytes;
    m_capacity = double(capacityBytes) / scale;
    m_capacityText = capacityText(s.gpu.shortName, capacityBytes, unit);
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
    m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, ticks);
    m_top = top;
    setMemoryAxis(m_plot->yAxis, top, m_capacity, m_headroom, unit);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
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
