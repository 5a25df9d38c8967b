#include "comparechart.h"

#include "estimate.h"

#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.56;

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

CompareChart::CompareChart(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    setMinimumSize(480, 320);

    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setLabel(QStringLiteral("Strategy (busiest GPU of each)"));
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->xAxis->setSubTicks(false);
    m_plot->xAxis->setTickLength(0, 4);
    m_plot->xAxis->setRange(0.4, 4.6);

    for (int c = 0; c < componentCount; ++c) {
        auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(QString::fromStdString(componentName(Component(c))));
        bars->setBrush(componentColor(Component(c)));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (c > 0)
            bars->moveAbove(m_stack[std::size_t(c - 1)]);
        m_stack[std::size_t(c)] = bars;
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

    for (auto &t : m_totals) {
        t = new QCPItemText(m_plot);
        t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        t->setPadding(QMargins(0, 0, 0, 3));
        t->setClipToAxisRect(false);
    }

    // Legend in a row above the axis rect, as in MemoryChart.
    placeLegendAbove(m_plot, 7, 18);
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    applyStyle();
}

QFont CompareChart::scaledFont(double points, bool bold) const
{
    return m_style.font(font(), points, bold);
}

void CompareChart::setStyle(const ChartStyle &style)
{
    m_style = style;
    applyStyle();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void CompareChart::applyStyle()
{
    const ChartStyle &st = m_style;
    const double lw = st.lineScale;
    applyAxisStyle(m_plot, st, font());
    m_plot->xAxis->setTickLabelFont(scaledFont(13, true));
    // No outline between the parts: at the scale of a 1,120 GB DDP bar, a 17.5 GB
    // ZeRO-3 bar is a few pixels tall and separators would leave only white.
    for (auto *bars : m_stack)
        bars->setPen(Qt::NoPen);
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
    for (auto *t : m_totals) {
        t->setFont(scaledFont(13, true));
        t->setColor(st.ink);
    }
    m_plot->legend->setFont(scaledFont(13));
    m_plot->legend->setTextColor(st.ink);
    m_plot->legend->setBrush(st.background);
    m_plot->legend->setIconSize(int(24 * st.fontScale), int(18 * st.fontScale));
    m_plot->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
}

void CompareChart::setScenario(const Scenario &s, ByteUnit unit)
{
    m_unit = unit;
    const double scale = unitBytes(unit);
    m_current = int(s.layout.zeroStage);
    QVector<double> keys(4);
    std::array<ComponentBytes, 4> shown{};
    for (int i = 0; i < 4; ++i) {
        keys[i] = i + 1;
        Scenario v = s;
        Layout &l = v.layout;
        l.zeroStage = strategies[std::size_t(i)];
        QStringList notes;
        if (l.zeroStage == ZeroStage::Ddp && l.offload != Offload::None) {
            l.offload = Offload::None;
            notes << QStringLiteral("no offload");
        }
        if (l.zeroStage == ZeroStage::Ddp && l.hsdpShardSize > 0) {
            l.hsdpShardSize = 0;
            notes << QStringLiteral("no HSDP");
        }
        if (l.offload == Offload::OptimizerAndParams && l.zeroStage != ZeroStage::Zero3) {
            l.offload = Offload::Optimizer;
            notes << QStringLiteral("optimizer offload");
        }
        m_scenarios[std::size_t(i)] = v;
        m_reports[std::size_t(i)] = estimate(v);
        const MemoryReport &r = m_reports[std::size_t(i)];
        QString label = qs(zeroStageName(l.zeroStage));
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

    for (int c = 0; c < componentCount; ++c) {
        QVector<double> values(4);
        bool any = false;
        for (int i = 0; i < 4; ++i) {
            values[i] = double(componentValue(shown[std::size_t(i)], Component(c))) / scale;
            any = any || values[i] > 0;
        }
        m_stack[std::size_t(c)]->setData(keys, values, true);
        if (any)
            m_stack[std::size_t(c)]->addToLegend();
        else
            m_stack[std::size_t(c)]->removeFromLegend();
    }

    const MemoryReport &own = m_reports[std::size_t(m_current)];
    const std::int64_t capacityBytes = own.valid() ? own.capacityBytes : s.gpu.capacityBytes;
    m_capacity = double(capacityBytes) / scale;
    double top = 0;
    QVector<double> overKeys, overValues;
    for (int i = 0; i < 4; ++i) {
        const double t = stackTop(i);
        top = std::max(top, t);
        if (t > m_capacity) {
            overKeys << keys[i];
            overValues << t - m_capacity;
        }
        QCPItemText *text = m_totals[std::size_t(i)];
        text->position->setCoords(keys[i], t);
        text->setText(totalText(i));
    }
    m_overflow->setBaseValue(m_capacity);
    m_overflow->setData(overKeys, overValues, true);
    if (overKeys.isEmpty())
        m_overflow->removeFromLegend();
    else
        m_overflow->addToLegend();

    auto ticker = m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>();
    ticker->setTicks(keys, QVector<QString>(m_labels.begin(), m_labels.end()));
    m_plot->yAxis->setRange(0, std::max(top, m_capacity) * 1.14);
    m_plot->yAxis->setLabel(QStringLiteral("Memory per GPU (%1)").arg(qs(unitName(unit))));

    m_capacityLine->point1->setCoords(0, m_capacity);
    m_capacityLine->point2->setCoords(1, m_capacity);
    m_capacityText->position->setCoords(1.0, m_capacity);
    QString cap = QString::fromStdString(s.gpu.shortName) + u'\n' +
                  QString::fromStdString(formatBytes(capacityBytes, ByteUnit::GB));
    if (unit == ByteUnit::GiB)
        cap +=
            QStringLiteral("\n= %1").arg(QString::fromStdString(formatBytes(capacityBytes, unit)));
    m_capacityText->setText(cap);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString CompareChart::strategyLabel(int i) const
{
    return i >= 0 && i < 4 ? m_labels[std::size_t(i)] : QString();
}

double CompareChart::componentHeight(int i, Component c) const
{
    if (i < 0 || i >= 4)
        return 0;
    const auto data = m_stack[std::size_t(c)]->data();
    return i < data->size() ? data->at(i)->value : 0;
}

double CompareChart::stackTop(int i) const
{
    double sum = 0;
    for (int c = 0; c < componentCount; ++c)
        sum += componentHeight(i, Component(c));
    return sum;
}

QString CompareChart::totalText(int i) const
{
    if (i < 0 || i >= 4 || !m_reports[std::size_t(i)].valid())
        return QStringLiteral("n/a");
    return QString::fromStdString(formatBytes(m_reports[std::size_t(i)].peakBytes(), m_unit));
}

} // namespace shardscope
