#include "steptimebar.h"

#include "chartparts.h"
#include "palette.h"

#include <QFontMetrics>
#include <QMouseEvent>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <qcustomplot.h>

namespace shardscope {

namespace {

/// The bar's thickness, key units (the key axis runs from 0.5 to 1.5).
constexpr double barWidth = 0.7;
/// The axis rect's height, points x fontScale: the bar is barWidth of it.
constexpr double barRectPoints = 28;
/// The legend's most columns.
constexpr int legendMostColumns = 6;
/// The legend's type, points x fontScale, and the least it steps down to.
constexpr double legendPoints = 11;
constexpr double legendLeastPoints = 8.5;

/// Tick labels of the time axis with their unit: "0 s", "10 s", "20 s".
class SecondsTicker : public QCPAxisTicker
{
protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar,
                         int precision) override
    {
        return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision) +
               QStringLiteral(" s");
    }
};

} // namespace

StepTimeBar::StepTimeBar(QWidget *parent) : ChartView(QSize(300, 0), parent)
{
    // Width only: the height follows the text (fitText()).

    // One horizontal bar: the key axis (left, hidden) holds it at 1, the value axis
    // (bottom) is the time.
    plot()->yAxis->setVisible(false);
    plot()->yAxis->setRange(0.5, 1.5);
    plot()->yAxis->grid()->setVisible(false);
    auto ticker = QSharedPointer<SecondsTicker>::create();
    ticker->setTickCount(5);
    plot()->xAxis->setTicker(ticker);
    plot()->xAxis->setNumberFormat(QStringLiteral("g"));
    plot()->xAxis->setSubTicks(false);
    plot()->xAxis->setRange(0, 1);
    for (int i = 0; i < partCount; ++i) {
        auto *bars = new QCPBars(plot()->yAxis, plot()->xAxis);
        bars->setWidth(barWidth);
        bars->setName(partName(Part(i)));
        bars->removeFromLegend();
        m_bars[std::size_t(i)] = bars;
    }
    // Each segment's seconds inside it, where they fit (drawn after, so over the bars).
    for (auto &value : m_values) {
        value = new QCPItemText(plot());
        value->setPositionAlignment(Qt::AlignCenter);
        value->setClipToAxisRect(true);
        value->setVisible(false);
    }

    // The legend in a row above the bar, the title in a row above it.
    placeLegendAbove(plot(), legendMostColumns, 12, 2);
    plot()->legend->setMargins(QMargins(4, 2, 4, 2));
    m_title = new QCPTextElement(plot(), QString());
    m_title->setMargins(QMargins(8, 4, 8, 0));
    plot()->plotLayout()->insertRow(0);
    plot()->plotLayout()->addElement(0, 0, m_title);
    plot()->plotLayout()->setRowStretchFactor(0, 0.001);
    plot()->plotLayout()->setRowSpacing(2);
    plot()->axisRect()->setAutoMargins(QCP::msBottom);
    plot()->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    setChartStyle(chartStyle());
    setStepTime(StepTime{}); // nothing timed yet: a stepTime() without an error is not a step

    // After placeLegendAbove()'s own fitting (connected first): the title and the
    // legend's columns for this width.
    connect(plot(), &QCustomPlot::beforeReplot, this, [this] {
        fitTitle();
        fitLegend();
    });
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, &StepTimeBar::showTooltip);
}

QString StepTimeBar::partName(Part p)
{
    switch (p) {
    case Part::Forward:
        return QStringLiteral("Forward");
    case Part::Backward:
        return QStringLiteral("Backward");
    case Part::Recompute:
        return QStringLiteral("Recompute");
    case Part::Bubble:
        return QStringLiteral("Pipeline bubble");
    case Part::TensorParallel:
        return QStringLiteral("Tensor-parallel comm.");
    case Part::ContextParallel:
        return QStringLiteral("Context-parallel comm.");
    case Part::ExpertParallel:
        return QStringLiteral("Expert-parallel comm.");
    case Part::PipelineParallel:
        return QStringLiteral("Pipeline-parallel comm.");
    case Part::DataParallel:
        return QStringLiteral("Data-parallel comm.");
    case Part::Optimizer:
        return QStringLiteral("Optimizer step");
    case Part::Offload:
        return QStringLiteral("Offload traffic");
    case Part::CpuOptimizer:
        return QStringLiteral("CPU optimizer");
    }
    return {};
}

QColor StepTimeBar::partColor(Part p)
{
    switch (p) {
    case Part::Forward:
        return QColor(0x00, 0x72, 0xB2); // Okabe-Ito blue
    case Part::Backward:
        return QColor(0x56, 0xB4, 0xE9); // sky blue
    case Part::Recompute:
        return QColor(0x00, 0x9E, 0x73); // bluish green
    case Part::Bubble:
        return QColor(0xBD, 0xBD, 0xBD); // TimelineView::bubbleColor()
    case Part::TensorParallel:
        return QColor(0xD5, 0x5E, 0x00); // vermillion
    case Part::ContextParallel:
        return QColor(0x99, 0x99, 0x33); // Tol olive
    case Part::ExpertParallel:
        return QColor(0x88, 0x22, 0x55); // Tol wine
    case Part::PipelineParallel:
        return QColor(0xF0, 0xE4, 0x42); // yellow
    case Part::DataParallel:
        return QColor(0xE6, 0x9F, 0x00); // orange
    case Part::Optimizer:
        return QColor(0xCC, 0x79, 0xA7); // reddish purple
    case Part::Offload:
        return QColor(0xAA, 0x44, 0x99); // Tol purple
    case Part::CpuOptimizer:
        return QColor(0xCC, 0x66, 0x77); // Tol rose
    }
    return Qt::gray;
}

double StepTimeBar::partSeconds(const StepBreakdown &b, Part p)
{
    switch (p) {
    case Part::Forward:
        return b.forward;
    case Part::Backward:
        return b.backward;
    case Part::Recompute:
        return b.recompute;
    case Part::Bubble:
        return b.bubble;
    case Part::TensorParallel:
        return b.tensorParallel;
    case Part::ContextParallel:
        return b.contextParallel;
    case Part::ExpertParallel:
        return b.expertParallel;
    case Part::PipelineParallel:
        return b.pipelineParallel;
    case Part::DataParallel:
        return b.dataParallel;
    case Part::Optimizer:
        return b.optimizer;
    case Part::Offload:
        return b.offload;
    case Part::CpuOptimizer:
        return b.cpuOptimizer;
    }
    return 0;
}

QColor StepTimeBar::valueColor(Part p)
{
    // WCAG relative luminance of the fill: dark text on light colours, white on dark.
    const QColor c = partColor(p);
    const auto lin = [](double v) {
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    const double l = 0.2126 * lin(c.redF()) + 0.7152 * lin(c.greenF()) + 0.0722 * lin(c.blueF());
    return l > 0.18 ? QColor(20, 20, 20) : QColor(Qt::white);
}

QString StepTimeBar::entryName(const Segment &segment, bool seconds)
{
    return seconds ? partName(segment.part) + u' ' + secondsText(segment.seconds)
                   : partName(segment.part);
}

QString StepTimeBar::secondsText(double seconds)
{
    // As the text report writes a step's parts (stepBreakdownText()), and milliseconds
    // where two decimals of a second would read 0.00.
    char buf[32];
    if (!std::isfinite(seconds))
        return QStringLiteral("–");
    if (seconds >= 10)
        std::snprintf(buf, sizeof buf, "%.1f s", seconds);
    else if (seconds >= 0.01)
        std::snprintf(buf, sizeof buf, "%.2f s", seconds);
    else
        std::snprintf(buf, sizeof buf, seconds >= 0.001 ? "%.1f ms" : "%.2f ms", seconds * 1e3);
    return QString::fromLatin1(buf);
}

void StepTimeBar::setStepTime(const StepTime &t)
{
    m_timed = t.valid() && std::isfinite(t.stepSeconds) && t.stepSeconds > 0;
    m_stepSeconds = m_timed ? t.stepSeconds : 0;
    m_segments.clear();
    const StepBreakdown b = m_timed ? stepBreakdown(t) : StepBreakdown{};
    // Out of the stack first, then stacked left to right: moveAbove() onto a bar that has
    // one above it already would insert between them.
    for (QCPBars *bars : m_bars)
        bars->moveAbove(nullptr);
    QCPBars *below = nullptr;
    double start = 0;
    for (QCPItemText *value : m_values)
        value->setVisible(false);
    for (int i = 0; i < partCount; ++i) {
        QCPBars *bars = m_bars[std::size_t(i)];
        const double seconds = partSeconds(b, Part(i));
        if (m_timed && std::isfinite(seconds) && seconds > 0) {
            bars->data()->set({QCPBarsData(1, seconds)}, true);
            bars->moveAbove(below);
            below = bars;
            m_segments.push_back({Part(i), seconds, bars});
            bars->setName(entryName(m_segments.back(), true));
            QCPItemText *value = m_values[std::size_t(i)];
            value->position->setCoords(start + seconds / 2, 1);
            value->setText(secondsText(seconds));
            start += seconds;
        } else {
            bars->data()->clear();
        }
    }
    // The legend lists the segments in the bar's order; rebuilt only when the set changes
    // (an entry taken out and put back would go to the end).
    if (legendPlottables() != drawnPlottables()) {
        for (QCPBars *bars : m_bars)
            bars->removeFromLegend();
        for (const Segment &s : m_segments)
            addToLegend(s.bars);
    }

    plot()->xAxis->setVisible(m_timed);
    plot()->xAxis->grid()->setVisible(m_timed);
    if (m_timed) {
        plot()->xAxis->setRange(0, m_stepSeconds);
        m_titleText = QStringLiteral("Where one step goes: %1").arg(secondsText(m_stepSeconds));
    } else {
        m_titleText =
            t.error.empty()
                ? QStringLiteral("Step not timed")
                : QStringLiteral("Step not timed: %1").arg(QString::fromStdString(t.error));
    }
    m_title->setTextColor(m_timed ? chartStyle().ink : chartStyle().alert);
    fitTitle();
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void StepTimeBar::restyle()
{
    const ChartStyle &style = chartStyle();
    applyAxisStyle(plot(), style, font(), 12);
    plot()->xAxis->setLabel(QString()); // the tick labels say "s"
    styleLegend(plot(), style, font(), legendPoints, QSize(20, 16));
    m_title->setFont(style.font(font(), 13, true));
    m_title->setTextColor(m_timed ? style.ink : style.alert);
    const QPen outline(style.barOutline, 1 * style.lineScale);
    for (int i = 0; i < partCount; ++i) {
        QCPBars *bars = m_bars[std::size_t(i)];
        bars->setPen(outline);
        bars->setBrush(partColor(Part(i)));
        QCPItemText *value = m_values[std::size_t(i)];
        value->setFont(style.font(font(), 10, true));
        value->setColor(valueColor(Part(i)));
    }
    // Room either side of the bar for the first and last tick labels.
    const int side = int(std::ceil(28 * style.fontScale));
    plot()->axisRect()->setMargins(QMargins(side, 0, side, 0));
    plot()->axisRect()->setMinimumSize(0, int(std::ceil(barRectPoints * style.fontScale)));
    fitTitle();
}

QList<QCPAbstractPlottable *> StepTimeBar::legendPlottables() const
{
    QList<QCPAbstractPlottable *> listed;
    const QCPLegend *legend = plot()->legend;
    for (int i = 0; i < legend->itemCount(); ++i) // cells, some empty, in fill order
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i)))
            listed << item->plottable();
    return listed;
}

QList<QCPAbstractPlottable *> StepTimeBar::drawnPlottables() const
{
    QList<QCPAbstractPlottable *> drawn;
    for (const Segment &s : m_segments)
        drawn << s.bars;
    return drawn;
}

QString StepTimeBar::legendText(int i) const
{
    if (i < 0 || i >= int(m_segments.size()))
        return {};
    return m_segments[std::size_t(i)].bars->name();
}

void StepTimeBar::fitLegend()
{
    // Columns as wide as their own widest entry (QCustomPlot's grid sizes each column so),
    // not all as wide as the widest one: as many as fit the plot's width. Where that
    // leaves more than two rows, the type steps down (to legendLeastPoints) while that
    // saves a row, and then the entries drop their seconds (the segments and tooltips
    // keep them), so the bar keeps to the height a short window has.
    QCPLegend *legend = plot()->legend;
    QVector<QCPAbstractLegendItem *> items;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem *item = legend->item(i))
            items << item;
    if (items.isEmpty())
        return;
    const int room =
        plot()->viewport().width() - legend->margins().left() - legend->margins().right();
    const QMargins itemMargins = items.front()->margins();
    const int fixed = legend->iconSize().width() + legend->iconTextPadding() + itemMargins.left() +
                      itemMargins.right();
    // Columns that fit at `font`, the entries with or without their seconds.
    auto columnsAt = [&](const QFont &font, bool seconds) {
        const QFontMetrics metrics(font);
        QVector<int> widths;
        for (const Segment &segment : m_segments) {
            const QString name = entryName(segment, seconds);
            widths << fixed + metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip, name).width();
        }
        int columns = std::min<int>(legendMostColumns, int(widths.size()));
        for (; columns > 1; --columns) {
            int total = (columns - 1) * legend->columnSpacing();
            for (int c = 0; c < columns; ++c) {
                int widest = 0;
                for (int i = c; i < widths.size(); i += columns)
                    widest = std::max(widest, widths[i]);
                total += widest;
            }
            if (total <= room)
                break;
        }
        return columns;
    };
    const auto rowsOf = [&items](int columns) {
        return (int(items.size()) + columns - 1) / columns;
    };
    QFont font = chartStyle().font(this->font(), legendPoints);
    bool seconds = true;
    int columns = columnsAt(font, seconds);
    for (const bool withSeconds : {true, false})
        for (double points = legendPoints; rowsOf(columns) > 2 && points >= legendLeastPoints;
             points -= 0.5) {
            const QFont smaller = chartStyle().font(this->font(), points);
            const int more = columnsAt(smaller, withSeconds);
            if (rowsOf(more) < rowsOf(columns)) {
                font = smaller;
                seconds = withSeconds;
                columns = more;
            }
        }
    for (const Segment &segment : m_segments)
        if (const QString name = entryName(segment, seconds); segment.bars->name() != name)
            segment.bars->setName(name);
    if (legend->font() != font)
        legend->setFont(font); // the entries' too
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-flow the entries
    }
}

void StepTimeBar::fitTitle()
{
    const QMargins m = m_title->margins();
    const int room = std::max(40, plot()->viewport().width() - m.left() - m.right() - 2);
    // A timed step's title shortens before it elides, so the seconds always show: "Where
    // one step goes: 38.6 s", "One step: 38.6 s", "38.6 s".
    const QFontMetrics metrics(m_title->font());
    QString shown = m_titleText;
    if (m_timed)
        for (const QString &shorter :
             {QStringLiteral("One step: %1").arg(secondsText(m_stepSeconds)),
              secondsText(m_stepSeconds)})
            if (metrics.horizontalAdvance(shown) > room)
                shown = shorter;
    shown = metrics.elidedText(shown, Qt::ElideRight, room);
    if (m_title->text() != shown)
        m_title->setText(shown);
    plot()->setToolTip(shown != m_titleText ? m_titleText : QString());
}

int StepTimeBar::neededHeight() const
{
    // What QCPLayoutGrid needs to give every row its minimum (with less it squeezes them
    // all, text included): the title, the legend at its present columns, the axis rect's
    // minimum (the bar) and its bottom margin (the tick labels), and the spacing.
    const QCPLayoutGrid *layout = plot()->plotLayout();
    int needed = static_cast<const QCPLayoutElement *>(m_title)->minimumOuterSizeHint().height() +
                 plot()->legend->minimumOuterSizeHint().height() +
                 plot()->axisRect()->minimumSize().height() + 2 * layout->rowSpacing();
    const QCPAxis *x = plot()->xAxis;
    if (x->visible()) // the margin the axis took at the last layout, or about that before one
        needed += std::max(plot()->axisRect()->margins().bottom(),
                           x->offset() + x->tickLengthOut() + x->tickLabelPadding() +
                               QFontMetrics(x->tickLabelFont()).height() + 4);
    return needed;
}

QSize StepTimeBar::sizeHint() const
{
    return QSize(480, std::max(m_needed, neededHeight()));
}

void StepTimeBar::fitText()
{
    if (!hasRealGeometry(plot()))
        return;
    // Ticks about two and a half labels apart.
    if (m_timed) {
        const QRect area = plot()->axisRect()->rect();
        // The widest label is about as wide as the step's seconds ("38.6 s"), or "0.25 s".
        const QFontMetricsF metrics(plot()->xAxis->tickLabelFont());
        const double label = std::max(metrics.horizontalAdvance(secondsText(m_stepSeconds)),
                                      metrics.horizontalAdvance(QStringLiteral("0.25 s")));
        const int count = std::clamp(int(area.width() / std::max(1.0, 2.5 * label)), 1, 8);
        const auto ticker = plot()->xAxis->ticker();
        if (ticker->tickCount() != count) {
            ticker->setTickCount(count);
            relayoutPlot(plot());
        }
    }
    // Each segment's seconds inside it where they fit its length and the bar's thickness.
    const QCPAxis *x = plot()->xAxis;
    const double thickness = std::abs(plot()->yAxis->coordToPixel(1 + barWidth / 2) -
                                      plot()->yAxis->coordToPixel(1 - barWidth / 2));
    double start = 0;
    for (const Segment &segment : m_segments) {
        QCPItemText *value = m_values[std::size_t(segment.part)];
        const double length = x->coordToPixel(start + segment.seconds) - x->coordToPixel(start);
        start += segment.seconds;
        const QRectF box = textBox(value->font(), value->text(), value->padding());
        value->setVisible(m_timed && box.width() + 8 <= length && box.height() <= thickness + 2);
    }

    // The widget as high as its text needs: the splitter above gives it that much.
    const int needed = neededHeight();
    if (needed != m_needed) {
        m_needed = needed;
        setMinimumHeight(needed);
        updateGeometry();
        // A taller widget now resizes the plot inside this replot, where QCustomPlot
        // skips the replot its resize asks for: lay it out again at its new size.
        plot()->replot(QCustomPlot::rpQueuedReplot);
    }
}

int StepTimeBar::segmentAt(const QPoint &pos) const
{
    if (!m_timed || !plot()->axisRect()->rect().contains(pos))
        return -1;
    if (std::abs(plot()->yAxis->pixelToCoord(pos.y()) - 1) > barWidth / 2)
        return -1;
    const double x = plot()->xAxis->pixelToCoord(pos.x());
    double start = 0;
    for (std::size_t i = 0; i < m_segments.size(); ++i) {
        const double end = start + m_segments[i].seconds;
        if (x >= start && x < end)
            return int(i);
        start = end;
    }
    return -1;
}

QString StepTimeBar::tooltipText(int i) const
{
    if (i < 0 || i >= int(m_segments.size()) || !(m_stepSeconds > 0))
        return {};
    const Segment &s = m_segments[std::size_t(i)];
    return QStringLiteral("<b>%1</b><br>%2, %3% of the step")
        .arg(partName(s.part).toHtmlEscaped(), secondsText(s.seconds),
             QString::number(100 * s.seconds / m_stepSeconds, 'f', 1));
}

void StepTimeBar::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(plot(), event, tooltipText(segmentAt(event->pos())));
}

} // namespace shardscope
