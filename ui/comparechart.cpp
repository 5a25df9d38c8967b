#include "comparechart.h"

#include "compare.h"
#include "estimate.h"

#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.56;

} // namespace

CompareChart::CompareChart(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_bars(m_plot, barWidth, true)
{
    fillWithPlot(this, m_plot, QSize(480, 320));
    useCategoryAxis(m_plot->xAxis, QStringLiteral("Strategy (busiest GPU of each)"), 4);
    m_plot->xAxis->setRange(0.4, 4.6);
    for (auto &t : m_totals) {
        t = addBarValue(m_plot, 3);
        t->setClipToAxisRect(false);
    }

    // Legend in a row above the axis rect, as in MemoryChart.
    placeLegendAbove(m_plot, 7, 18);
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    setStyle(m_style);
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
    m_bars.setCapacity(m_capacity, capacityText(s.gpu.shortName, capacityBytes, unit));
    double top = 0;
    for (int i = 0; i < 4; ++i) {
        top = std::max(top, stackTop(i));
        QCPItemText *text = m_totals[std::size_t(i)];
        text->position->setCoords(keys[i], stackTop(i));
        text->setText(totalText(i));
    }

    auto ticker = m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>();
    ticker->setTicks(keys, QVector<QString>(m_labels.begin(), m_labels.end()));
    setMemoryAxis(m_plot->yAxis, top, m_capacity, 1.14, unit);
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
