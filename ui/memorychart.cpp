#include "memorychart.h"

#include "palette.h"

#include <QLocale>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.62;

QString exactBytes(std::int64_t bytes)
{
    return QLocale(QLocale::English).toString(qlonglong(bytes)) + QStringLiteral(" bytes");
}

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

MemoryChart::MemoryChart(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(480, 320);

    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setLabel(QStringLiteral("GPUs (global rank)"));
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->xAxis->setSubTicks(false);
    m_plot->xAxis->setTickLength(0, 4);

    for (int c = 0; c < componentCount; ++c) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(qs(componentName(Component(c))));
        bars->setBrush(componentColor(Component(c)));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (c > 0)
            bars->moveAbove(m_stack[c - 1]);
        m_stack[c] = bars;
    }
    m_overflow = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_overflow->setName(QStringLiteral("Above capacity"));

    m_overflow->setWidth(barWidth);
    m_overflow->setSelectable(QCP::stNone);

    m_capacityLine = new QCPItemStraightLine(m_plot);
    m_capacityText = new QCPItemText(m_plot);
    m_capacityText->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_capacityText->position->setTypeY(QCPItemPosition::ptPlotCoords);
    m_capacityText->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_capacityText->setClipToAxisRect(false);
    m_capacityText->setTextAlignment(Qt::AlignLeft);
    m_capacityText->setPadding(QMargins(6, 2, 6, 2));

    m_message = new QCPItemText(m_plot);
    m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_message->position->setCoords(0.5, 0.5);
    m_message->setColor(overflowsColor());
    m_message->setVisible(false);

    // Legend in a row above the axis rect, so it can never cover a bar.
    placeLegendAbove(m_plot, 7, 18);

    // Room right of the axis rect for the capacity label.
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    m_plot->axisRect()->setMargins(QMargins(0, 0, 150, 0));
    applyStyle();

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
    applyStyle();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::applyStyle()
{
    const ChartStyle &st = m_style;
    const double lw = st.lineScale;
    applyAxisStyle(m_plot, st, font());
    for (auto *bars : m_stack)
        bars->setPen(QPen(st.barOutline, 1 * lw));
    m_overflow->setPen(QPen(overflowColor(), 3 * lw));
    QColor hatch = st.background;
    hatch.setAlpha(190);
    m_overflow->setBrush(QBrush(hatch, Qt::BDiagPattern));
    m_capacityLine->setPen(QPen(st.ink, 3 * lw, Qt::DashLine));
    m_capacityText->setFont(scaledFont(14, true));
    m_capacityText->setColor(st.ink);
    QColor label = st.background;
    label.setAlpha(220);
    m_capacityText->setBrush(label);
    m_message->setFont(scaledFont(14, true));
    m_plot->legend->setFont(scaledFont(13));
    m_plot->legend->setTextColor(st.ink);
    m_plot->legend->setBrush(st.background);
    m_plot->legend->setIconSize(int(24 * st.fontScale), int(18 * st.fontScale));
    m_plot->legend->setWrap(st.fontScale > 1.2 ? 4 : 7);               // large type: two rows
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-flow the items
    m_plot->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
    for (QCPItemText *t : m_totals) {
        t->setColor(st.ink);
        t->setFont(totalsFont(barCount()));
    }
}

void MemoryChart::setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit)
{
    m_unit = unit;
    const double scale = unitBytes(unit);
    m_bars.clear();
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
                    m_bars.push_back({QStringLiteral("GPU %1").arg(g.firstRank + k) + stage,
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
                m_bars.push_back({label, g.firstRank, g.gpuCount, g.bytes, int(gi)});
            }
        }
    }

    const int n = int(m_bars.size());
    QVector<double> keys(n);
    for (int i = 0; i < n; ++i)
        keys[i] = i + 1;
    double top = 0;
    for (int c = 0; c < componentCount; ++c) {
        QVector<double> values(n);
        bool any = false;
        for (int i = 0; i < n; ++i) {
            values[i] = double(componentValue(m_bars[i].bytes, Component(c))) / scale;
            any = any || values[i] > 0;
        }
        m_stack[c]->setData(keys, values, true);
        if (any)
            m_stack[c]->addToLegend();
        else
            m_stack[c]->removeFromLegend();
    }

    m_capacity = double(r.capacityBytes) / scale;
    QVector<double> overKeys, overValues;
    for (int i = 0; i < n; ++i) {
        const double t = stackTop(i);
        top = std::max(top, t);
        if (t > m_capacity) {
            overKeys << keys[i];
            overValues << t - m_capacity;
        }
    }
    m_overflow->setBaseValue(m_capacity);
    m_overflow->setData(overKeys, overValues, true);
    if (overKeys.isEmpty())
        m_overflow->removeFromLegend();
    else
        m_overflow->addToLegend();

    // Total above every bar.
    while (int(m_totals.size()) < n) {
        auto *t = new QCPItemText(m_plot);
        t->setColor(m_style.ink);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setPadding(QMargins(0, 0, 0, 3));
        m_totals.push_back(t);
    }
    for (int i = 0; i < int(m_totals.size()); ++i) {
        QCPItemText *t = m_totals[i];
        t->setVisible(i < n);
        if (i < n) {
            t->position->setCoords(keys[i], stackTop(i));
            t->setText(qs(formatBytes(m_bars[i].bytes.total(), unit)));
            t->setFont(totalsFont(n));
        }
    }

    auto ticker = m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>();
    QVector<QString> labels;
    for (const Bar &b : m_bars)
        labels << b.label;
    ticker->setTicks(keys, labels);

    m_plot->xAxis->setRange(0.4, std::max(1, n) + 0.6);
    m_plot->yAxis->setRange(0, std::max(top, m_capacity) * 1.14);
    m_plot->yAxis->setLabel(QStringLiteral("Memory per GPU (%1)").arg(qs(unitName(unit))));

    m_capacityLine->setVisible(r.valid());
    m_capacityText->setVisible(r.valid());
    m_capacityLine->point1->setCoords(0, m_capacity);
    m_capacityLine->point2->setCoords(1, m_capacity);
    m_capacityText->position->setCoords(1.0, m_capacity);
    QString cap =
        qs(s.gpu.shortName) + QStringLiteral("\n") + qs(formatBytes(r.capacityBytes, ByteUnit::GB));
    if (unit == ByteUnit::GiB)
        cap += QStringLiteral("\n= %1").arg(qs(formatBytes(r.capacityBytes, ByteUnit::GiB)));
    m_capacityText->setText(cap);

    m_message->setVisible(!r.valid());
    m_message->setText(qs("Cannot draw this layout:\n" + r.error));

    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString MemoryChart::barLabel(int i) const
{
    return i >= 0 && i < barCount() ? m_bars[i].label : QString();
}

double MemoryChart::componentHeight(int i, Component c) const
{
    if (i < 0 || i >= barCount())
        return 0;
    const auto data = m_stack[int(c)]->data();
    return i < data->size() ? data->at(i)->value : 0;
}

double MemoryChart::stackTop(int i) const
{
    double sum = 0;
    for (int c = 0; c < componentCount; ++c)
        sum += componentHeight(i, Component(c));
    return sum;
}

QString MemoryChart::capacityLabel() const
{
    return m_capacityText->text();
}

QString MemoryChart::tooltipText(int i) const
{
    if (i < 0 || i >= barCount())
        return {};
    const Bar &b = m_bars[i];
    QString text = b.gpuCount == 1 ? QStringLiteral("<b>GPU %1</b>").arg(b.firstRank)
                                   : QStringLiteral("<b>GPUs %1–%2</b> (%3 identical GPUs)")
                                         .arg(b.firstRank)
                                         .arg(b.firstRank + b.gpuCount - 1)
                                         .arg(b.gpuCount);
    text += QStringLiteral("<table>");
    for (int c = componentCount - 1; c >= 0; --c) {
        const std::int64_t v = componentValue(b.bytes, Component(c));
        text += QStringLiteral("<tr><td><span style='color:%1'>■</span> %2</td>"
                               "<td align=right>&nbsp;%3</td><td align=right>&nbsp;%4</td></tr>")
                    .arg(componentColor(Component(c)).name(), qs(componentName(Component(c))),
                         qs(formatBytes(v, m_unit)), exactBytes(v));
    }
    text += QStringLiteral("<tr><td><b>Total</b></td><td align=right>&nbsp;<b>%1</b></td>"
                           "<td align=right>&nbsp;%2</td></tr></table>")
                .arg(qs(formatBytes(b.bytes.total(), m_unit)), exactBytes(b.bytes.total()));
    return text;
}

int MemoryChart::groupOfBar(int i) const
{
    return i >= 0 && i < barCount() ? m_bars[std::size_t(i)].group : -1;
}

int MemoryChart::barAt(const QPoint &pos) const
{
    if (!m_plot->axisRect()->rect().contains(pos))
        return -1;
    const double key = m_plot->xAxis->pixelToCoord(pos.x());
    const int i = qRound(key) - 1;
    if (i < 0 || i >= barCount() || std::abs(key - (i + 1)) > barWidth / 2)
        return -1;
    return i;
}

void MemoryChart::showTooltip(QMouseEvent *event)
{
    const int i = barAt(event->pos());
    if (i < 0)
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tooltipText(i), m_plot);
}

} // namespace shardscope
