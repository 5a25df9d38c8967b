#include "chartparts.h"

#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace shardscope {

QString toQString(std::string_view text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

void fillWithPlot(QWidget *owner, QCustomPlot *plot, QSize minimumSize)
{
    auto *layout = new QVBoxLayout(owner);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot);
    owner->setMinimumSize(minimumSize);
}

void useCategoryAxis(QCPAxis *axis, const QString &label, int tickOutside)
{
    axis->grid()->setVisible(false);
    axis->setLabel(label);
    axis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    axis->setSubTicks(false);
    axis->setTickLength(0, tickOutside);
}

void alignTimeAxis(QCustomPlot *plot)
{
    plot->axisRect()->setAutoMargins(QCP::msTop | QCP::msBottom);
    plot->axisRect()->setMargins(QMargins(timeAxisLeftMargin, 0, timeAxisRightMargin, 0));
}

QCPLayer *addLiveLayer(QCustomPlot *plot)
{
    plot->addLayer(QStringLiteral("live"), plot->layer(QStringLiteral("main")),
                   QCustomPlot::limAbove);
    QCPLayer *live = plot->layer(QStringLiteral("live"));
    live->setMode(QCPLayer::lmBuffered);
    return live;
}

void placeVerticalLine(QCPItemStraightLine *line, double key)
{
    line->point1->setCoords(key, 0);
    line->point2->setCoords(key, 1);
}

void placeHorizontalLine(QCPItemStraightLine *line, double value)
{
    line->point1->setCoords(0, value);
    line->point2->setCoords(1, value);
}

QPen playheadPen(const ChartStyle &style)
{
    return QPen(style.ink, 3 * style.lineScale);
}

QPen capacityPen(const ChartStyle &style)
{
    return QPen(style.ink, 3 * style.lineScale, Qt::DashLine);
}

QCPItemText *addPlotMessage(QCustomPlot *plot, double ratioY)
{
    auto *message = new QCPItemText(plot);
    message->position->setType(QCPItemPosition::ptAxisRectRatio);
    message->position->setCoords(0.5, ratioY);
    message->setVisible(false);
    return message;
}

void styleMessage(QCPItemText *message, const ChartStyle &style, const QFont &base)
{
    message->setFont(style.font(base, 14, true));
    message->setColor(style.alert);
}

QCPItemText *addCapacityLabel(QCustomPlot *plot, Qt::Alignment anchor)
{
    auto *label = new QCPItemText(plot);
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->setPositionAlignment(anchor);
    label->setClipToAxisRect(false);
    label->setTextAlignment(Qt::AlignLeft);
    label->setPadding(QMargins(6, 2, 6, 2));
    return label;
}

void styleCapacityLabel(QCPItemText *label, const ChartStyle &style, const QFont &base)
{
    label->setFont(style.font(base, 14, true));
    label->setColor(style.ink);
    QColor plate = style.background;
    plate.setAlpha(220);
    label->setBrush(plate);
}

QString capacityText(const std::string &gpuName, std::int64_t capacityBytes, ByteUnit unit)
{
    QString text = toQString(gpuName) + u'\n' + toQString(formatBytes(capacityBytes, ByteUnit::GB));
    if (unit == ByteUnit::GiB)
        text += QStringLiteral("\n= %1").arg(toQString(formatBytes(capacityBytes, ByteUnit::GiB)));
    return text;
}

QCPItemText *addBarValue(QCustomPlot *plot, int gap)
{
    auto *value = new QCPItemText(plot);
    value->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    value->setPadding(QMargins(0, 0, 0, gap));
    return value;
}

void styleLegend(QCustomPlot *plot, const ChartStyle &style, const QFont &base, double points,
                 QSize icon)
{
    QCPLegend *legend = plot->legend;
    legend->setFont(style.font(base, points));
    legend->setTextColor(style.ink);
    legend->setBrush(style.background);
    legend->setIconSize(int(icon.width() * style.fontScale), int(icon.height() * style.fontScale));
}

void showInLegend(QCPAbstractPlottable *plottable, bool shown)
{
    if (shown)
        plottable->addToLegend();
    else
        plottable->removeFromLegend();
}

int categoryAt(const QCustomPlot *plot, const QPoint &pos, int count, double halfWidth)
{
    if (!plot->axisRect()->rect().contains(pos))
        return -1;
    const double key = plot->xAxis->pixelToCoord(pos.x());
    const int i = qRound(key) - 1;
    if (i < 0 || i >= count || std::abs(key - (i + 1)) > halfWidth)
        return -1;
    return i;
}

void showPlotTooltip(QCustomPlot *plot, const QMouseEvent *event, const QString &text)
{
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, plot);
}

QString plainTextOf(const QString &html)
{
    QTextDocument doc;
    doc.setHtml(html);
    return doc.toPlainText();
}

bool waitsWhileHidden(const QWidget *view, bool *stale)
{
    *stale = view->window()->isVisible() && !view->isVisible();
    return *stale;
}

void setMemoryAxis(QCPAxis *axis, double top, double capacity, double headroom, ByteUnit unit)
{
    axis->setRange(0, std::max(top, capacity) * headroom);
    axis->setLabel(QStringLiteral("Memory per GPU (%1)").arg(toQString(unitName(unit))));
}

CapacityBars::CapacityBars(QCustomPlot *plot, double barWidth, bool withLine)
{
    for (int c = 0; c < componentCount; ++c) {
        auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(toQString(componentName(Component(c))));
        bars->setBrush(componentColor(Component(c)));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        if (c > 0)
            bars->moveAbove(m_parts[std::size_t(c - 1)]);
        m_parts[std::size_t(c)] = bars;
    }
    if (withLine) {
        m_overflow = new QCPBars(plot->xAxis, plot->yAxis);
        m_overflow->setName(QStringLiteral("Above capacity"));
        m_overflow->setWidth(barWidth);
        m_overflow->setSelectable(QCP::stNone);
        m_line = new QCPItemStraightLine(plot);
    }
    m_label = addCapacityLabel(plot);
}

void CapacityBars::setBars(const QVector<double> &keys, const std::vector<ComponentBytes> &bytes,
                           double scale)
{
    m_keys = keys;
    const int n = int(std::min<std::size_t>(std::size_t(keys.size()), bytes.size()));
    for (int c = 0; c < componentCount; ++c) {
        QVector<double> values(n);
        bool any = false;
        for (int i = 0; i < n; ++i) {
            values[i] = double(componentValue(bytes[std::size_t(i)], Component(c))) / scale;
            any = any || values[i] > 0;
        }
        m_parts[std::size_t(c)]->setData(keys.first(n), values, true);
        showInLegend(m_parts[std::size_t(c)], any);
    }
}

void CapacityBars::setCapacity(double capacity, const QString &label)
{
    m_label->position->setCoords(1.0, capacity);
    m_label->setText(label);
    if (!m_line)
        return;
    placeHorizontalLine(m_line, capacity);
    QVector<double> overKeys, overValues;
    for (int i = 0; i < m_keys.size(); ++i) {
        const double t = top(i);
        if (t > capacity) {
            overKeys << m_keys[i];
            overValues << t - capacity;
        }
    }
    m_overflow->setBaseValue(capacity);
    m_overflow->setData(overKeys, overValues, true);
    showInLegend(m_overflow, !overKeys.isEmpty());
}

void CapacityBars::setCapacityVisible(bool visible)
{
    m_label->setVisible(visible);
    if (m_line)
        m_line->setVisible(visible);
}

double CapacityBars::height(int bar, Component c) const
{
    const auto data = m_parts[std::size_t(c)]->data();
    return bar >= 0 && bar < data->size() ? data->at(bar)->value : 0;
}

double CapacityBars::top(int bar) const
{
    double sum = 0;
    for (int c = 0; c < componentCount; ++c)
        sum += height(bar, Component(c));
    return sum;
}

void CapacityBars::applyStyle(const ChartStyle &style, const QFont &base, bool outlines)
{
    const double lw = style.lineScale;
    for (QCPBars *bars : m_parts)
        bars->setPen(outlines ? QPen(style.barOutline, 1 * lw) : QPen(Qt::NoPen));
    if (m_overflow) {
        m_overflow->setPen(QPen(overflowColor(), 3 * lw));
        QColor hatch = style.background;
        hatch.setAlpha(190);
        m_overflow->setBrush(QBrush(hatch, Qt::BDiagPattern));
        m_line->setPen(capacityPen(style));
    }
    styleCapacityLabel(m_label, style, base);
}

} // namespace shardscope
