#include "memorychart.h"

#include <QLocale>
#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.62;

QString exactBytes(std::int64_t bytes)
{
    return QLocale(QLocale::English).toString(qlonglong(bytes)) + QStringLiteral(" bytes");
}

} // namespace

MemoryChart::MemoryChart(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_bars(m_plot, barWidth, true)
{
    fillWithPlot(this, m_plot, QSize(480, 320));
    useCategoryAxis(m_plot->xAxis, QStringLiteral("GPUs (global rank)"), 4);
    m_message = addPlotMessage(m_plot);

    // Legend in a row above the axis rect, so it can never cover a bar.
    placeLegendAbove(m_plot, 7, 18);

    // Room right of the axis rect for the capacity label.
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    setStyle(m_style);

    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &MemoryChart::showTooltip);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (const int i = barAt(event->pos()); i >= 0)
            emit groupClicked(groupOfBar(i));
    });
}

QFont MemoryChart::scaledFont(double points, bool bold) const
{
    return m_style.font(font(), points, bold);
}

QFont MemoryChart::totalsFont(int bars) const
{
    // Large type, but never wider than a bar's slot: "1,120 GB" is about 5.5 em.
    // The axis rect is about 80 % of the widget (its size is known only after a replot).
    const double slot = 0.8 * std::max(1, width()) / std::max(1, bars);
    const double fits = slot / 5.5 * 72.0 / std::max(1.0, double(logicalDpiX()));
    QFont f = scaledFont(bars > 10 ? 11 : 13, true);
    f.setPointSizeF(std::max(7.0, std::min(f.pointSizeF(), fits)));
    return f;
}

void MemoryChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    for (QCPItemText *t : m_totals)
        t->setFont(totalsFont(barCount()));
}

void MemoryChart::setStyle(const ChartStyle &style)
{
    m_style = style;
    const ChartStyle &st = m_style;
    applyAxisStyle(m_plot, st, font());
    m_bars.applyStyle(st, font(), true);
    styleMessage(m_message, st, font());
    styleLegend(m_plot, st, font(), 13, QSize(24, 18));
    m_plot->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
    for (QCPItemText *t : m_totals) {
        t->setColor(st.ink);
        t->setFont(totalsFont(barCount()));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit)
{
    m_unit = unit;
    const double scale = unitBytes(unit);
    m_barInfo.clear();
    if (r.valid()) {
        const bool individual = r.gpuCount() <= maxIndividualBars;
        const bool staged = r.groups.size() > 1;
        const QLocale en(QLocale::English);
        for (std::size_t gi = 0; gi < r.groups.size(); ++gi) {
            const GpuGroup &g = r.groups[gi];
            const QString stage =
                staged ? QStringLiteral("\nstage %1").arg(g.pipelineStage) : QString();
            if (individual) {
                for (std::int64_t k = 0; k < g.gpuCount; ++k)
                    m_barInfo.push_back({QStringLiteral("GPU %1").arg(g.firstRank + k) + stage,
                                         g.firstRank + k, 1, g.bytes, int(gi)});
            } else {
                const std::int64_t last = g.firstRank + g.gpuCount - 1;
                const QString label = staged ? QStringLiteral("Stage %1\nGPU %2–%3\n× %4")
                                                   .arg(g.pipelineStage)
                                                   .arg(g.firstRank)
                                                   .arg(last)
                                                   .arg(en.toString(qlonglong(g.gpuCount)))
                                      : g.gpuCount == 1
                                          ? QStringLiteral("GPU %1").arg(g.firstRank)
                                          : QStringLiteral("GPU %1–%2\n× %3")
                                                .arg(g.firstRank)
                                                .arg(last)
                                                .arg(en.toString(qlonglong(g.gpuCount)));
                m_barInfo.push_back({label, g.firstRank, g.gpuCount, g.bytes, int(gi)});
            }
        }
    }

    const int n = int(m_barInfo.size());
    QVector<double> keys(n);
    std::vector<ComponentBytes> bytes;
    QVector<QString> labels;
    for (int i = 0; i < n; ++i) {
        keys[i] = i + 1;
        bytes.push_back(m_barInfo[std::size_t(i)].bytes);
        labels << m_barInfo[std::size_t(i)].label;
    }
    m_bars.setBars(keys, bytes, scale);
    m_capacity = double(r.capacityBytes) / scale;
    m_bars.setCapacity(m_capacity, capacityText(s.gpu.shortName, r.capacityBytes, unit));
    m_bars.setCapacityVisible(r.valid());
    double top = 0;
    for (int i = 0; i < n; ++i)
        top = std::max(top, stackTop(i));

    // Total above every bar.
    while (int(m_totals.size()) < n) {
        auto *t = addBarValue(m_plot, 3);
        t->setColor(m_style.ink);
        m_totals.push_back(t);
    }
    for (int i = 0; i < int(m_totals.size()); ++i) {
        QCPItemText *t = m_totals[std::size_t(i)];
        t->setVisible(i < n);
        if (i < n) {
            t->position->setCoords(keys[i], stackTop(i));
            t->setText(toQString(formatBytes(bytes[std::size_t(i)].total(), unit)));
            t->setFont(totalsFont(n));
        }
    }

    m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, labels);
    m_plot->xAxis->setRange(0.4, std::max(1, n) + 0.6);
    setMemoryAxis(m_plot->yAxis, top, m_capacity, 1.14, unit);

    m_message->setVisible(!r.valid());
    m_message->setText(toQString("Cannot draw this layout:\n" + r.error));

    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString MemoryChart::barLabel(int i) const
{
    return i >= 0 && i < barCount() ? m_barInfo[std::size_t(i)].label : QString();
}

double MemoryChart::componentHeight(int i, Component c) const
{
    return i >= 0 && i < barCount() ? m_bars.height(i, c) : 0;
}

double MemoryChart::stackTop(int i) const
{
    return i >= 0 && i < barCount() ? m_bars.top(i) : 0;
}

QString MemoryChart::capacityLabel() const
{
    return m_bars.label()->text();
}

QString MemoryChart::tooltipText(int i) const
{
    if (i < 0 || i >= barCount())
        return {};
    const Bar &b = m_barInfo[std::size_t(i)];
    QString text = b.gpuCount == 1 ? QStringLiteral("<b>GPU %1</b>").arg(b.firstRank)
                                   : QStringLiteral("<b>GPUs %1–%2</b> (%3 identical GPUs)")
                                         .arg(b.firstRank)
                                         .arg(b.firstRank + b.gpuCount - 1)
                                         .arg(b.gpuCount);
    text += QStringLiteral("<table>");
    for (int c = componentCount - 1; c >= 0; --c) {
        const std::int64_t v = componentValue(b.bytes, Component(c));
        text +=
            QStringLiteral("<tr><td><span style='color:%1'>■</span> %2</td>"
                           "<td align=right>&nbsp;%3</td><td align=right>&nbsp;%4</td></tr>")
                .arg(componentColor(Component(c)).name(), toQString(componentName(Component(c))),
                     toQString(formatBytes(v, m_unit)), exactBytes(v));
    }
    text += QStringLiteral("<tr><td><b>Total</b></td><td align=right>&nbsp;<b>%1</b></td>"
                           "<td align=right>&nbsp;%2</td></tr></table>")
                .arg(toQString(formatBytes(b.bytes.total(), m_unit)), exactBytes(b.bytes.total()));
    return text;
}

int MemoryChart::groupOfBar(int i) const
{
    return i >= 0 && i < barCount() ? m_barInfo[std::size_t(i)].group : -1;
}

int MemoryChart::barAt(const QPoint &pos) const
{
    return categoryAt(m_plot, pos, barCount(), barWidth / 2);
}

void MemoryChart::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(m_plot, event, tooltipText(barAt(event->pos())));
}

} // namespace shardscope
