#include "chartparts.h"

#include <QFontMetrics>
#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWidget>
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <qcustomplot.h>

namespace shardscope {

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

namespace {

/// QCustomPlot's ticker, choosing its step and writing its labels in seconds over data
/// in timeline units.
class SecondsTicker : public QCPAxisTicker
{
public:
    double secondsPerUnit = 1;

protected:
    double getTickStep(const QCPRange &range) override
    {
        const QCPRange seconds(range.lower * secondsPerUnit, range.upper * secondsPerUnit);
        return QCPAxisTicker::getTickStep(seconds) / secondsPerUnit;
    }
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar,
                         int precision) override
    {
        return QCPAxisTicker::getTickLabel(tick * secondsPerUnit, locale, formatChar, precision);
    }
};

} // namespace

bool setTimeAxisSeconds(QCPAxis *axis, double secondsPerUnit, double *current,
                        const QString &unitsTitle)
{
    const double v = secondsPerUnit > 0 && std::isfinite(secondsPerUnit) ? secondsPerUnit : 0;
    if (v == *current)
        return false;
    *current = v;
    auto *ticker = dynamic_cast<SecondsTicker *>(axis->ticker().data());
    if (v == 0) {
        if (ticker)
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    } else {
        if (!ticker) {
            auto seconds = QSharedPointer<SecondsTicker>::create();
            ticker = seconds.data();
            axis->setTicker(seconds);
        }
        ticker->secondsPerUnit = v;
    }
    axis->setLabel(v > 0 ? QStringLiteral("Time (s)") : unitsTitle);
    return true;
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

void fitCapacityLabel(QCustomPlot *plot, QCPItemText *label, double value, const QString &text)
{
    QRect area = plot->axisRect()->rect();
    QString shown = text;
    if (textBox(label->font(), shown, label->padding()).height() > area.height()) {
        // One line: a label of usable bytes keeps the value its line marks ("85.5 GB
        // usable" of capacityText(), "85.5 GB" of "H100\n85.5 GB\nusable"); any other
        // joins its lines ("H100 80 GB").
        const QStringList lines = shown.split(u'\n');
        if (lines.size() >= 2 && lines.back() == QStringLiteral("usable"))
            shown = lines.at(lines.size() - 2);
        else if (lines.size() >= 2 && lines.back().endsWith(QStringLiteral(" usable")))
            shown = lines.back();
        else
            shown.replace(u'\n', u' ');
    }
    if (label->text() != shown)
        label->setText(shown);
    // Room right of the axis rect for the label as shown: a chart's fixed right margin
    // grows to the label's width ("85.5 GB usable" is wider than "H100 80 GB").
    const int need = int(std::ceil(textBox(label->font(), shown, label->padding()).width())) + 2;
    QMargins margins = plot->axisRect()->margins();
    if (label->visible() && !(plot->axisRect()->autoMargins() & QCP::msRight) &&
        margins.right() < need) {
        margins.setRight(need);
        plot->axisRect()->setMargins(margins);
        relayoutPlot(plot);
        area = plot->axisRect()->rect();
    }
    // Centred on the line, moved no further than needed to stay inside the axis rect.
    const double height = textBox(label->font(), shown, label->padding()).height();
    const double linePx = plot->yAxis->coordToPixel(value);
    const double top =
        std::max(double(area.top()), std::min(linePx - height / 2, area.bottom() - height));
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->position->setCoords(1.0, plot->yAxis->pixelToCoord(top));
}

QString cardName(const Gpu &gpu)
{
    const QString card = toQString(gpu.shortName.empty() ? gpu.name : gpu.shortName);
    // Short names like "A100 40GB" already carry the size; "H100" does not.
    if (card.contains(QLatin1String("GB")))
        return card;
    return card + u' ' + toQString(formatBytes(gpu.capacityBytes, ByteUnit::GB));
}

QString capacityText(const Gpu &gpu, ByteUnit unit, bool oneLine)
{
    if (gpu.driverReportedBytes > 0)
        return cardName(gpu) + (oneLine ? QStringLiteral(": ") : QStringLiteral("\n")) +
               toQString(formatBytes(gpu.usableBytes(), unit)) + QStringLiteral(" usable");
    const QChar gap = oneLine ? u' ' : u'\n';
    QString text =
        toQString(gpu.shortName) + gap + toQString(formatBytes(gpu.capacityBytes, ByteUnit::GB));
    if (unit == ByteUnit::GiB)
        text += gap + QStringLiteral("= %1").arg(
                          toQString(formatBytes(gpu.capacityBytes, ByteUnit::GiB)));
    return text;
}

QCPItemText *addBarValue(QCustomPlot *plot, int gap)
{
    auto *value = new QCPItemText(plot);
    value->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    value->setPadding(QMargins(0, 0, 0, gap));
    return value;
}

QRectF textBox(const QFont &font, const QString &text, const QMargins &padding)
{
    const QRect r =
        QFontMetrics(font).boundingRect(0, 0, 0, 0, Qt::TextDontClip | Qt::AlignCenter, text);
    return QRectF(0, 0, r.width() + padding.left() + padding.right(),
                  r.height() + padding.top() + padding.bottom());
}

double widestText(const QFont &font, const QVector<QString> &texts)
{
    double widest = 0;
    for (const QString &t : texts)
        if (!t.isEmpty())
            widest = std::max(widest, textBox(font, t, QMargins()).width());
    return widest;
}

int placeBarValues(QCustomPlot *plot, const std::vector<QCPItemText *> &items,
                   const QVector<double> &keys, const QVector<double> &tops, double barWidth,
                   double lineValue, double lineWidth, int gap, const QColor &plate)
{
    const QRectF area = plot->axisRect()->rect();
    const int n = int(std::min<std::size_t>(items.size(), std::size_t(keys.size())));
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&tops](int a, int b) { return tops[a] > tops[b]; });
    const bool line = std::isfinite(lineValue);
    const double linePx = line ? plot->yAxis->coordToPixel(lineValue) : 0;
    const double clear = lineWidth / 2 + 2; // pixels kept free either side of the line
    std::vector<QRectF> placed;
    // The bars themselves: a total stands over its own bar only.
    std::vector<QRectF> bars;
    for (int i = 0; i < n; ++i) {
        const double left = plot->xAxis->coordToPixel(keys[i] - barWidth / 2);
        const double right = plot->xAxis->coordToPixel(keys[i] + barWidth / 2);
        const double top = plot->yAxis->coordToPixel(tops[i]);
        bars.emplace_back(QPointF(left, top), QPointF(right, area.bottom()));
    }
    int hidden = 0;
    for (const int i : order) {
        QCPItemText *item = items[std::size_t(i)];
        if (!item->visible())
            continue;
        item->setBrush(plate);
        const QRectF box = textBox(item->font(), item->text(), item->padding());
        // Centred over its bar, shifted inside the axis rect, and above every bar it
        // spans (a total wider than its slot reaches over the neighbours).
        double centre = plot->xAxis->coordToPixel(keys[i]);
        centre = std::clamp(centre, area.left() + box.width() / 2, area.right() - box.width() / 2);
        const double left = centre - box.width() / 2, right = centre + box.width() / 2;
        double bottom = plot->yAxis->coordToPixel(tops[i]) - gap;
        for (const QRectF &bar : bars)
            if (bar.left() < right && bar.right() > left)
                bottom = std::min(bottom, bar.top() - gap);
        if (line && bottom + clear > linePx && bottom - box.height() - clear < linePx) {
            bottom = linePx - clear; // above the line
            if (bottom - box.height() < area.top())
                bottom = linePx + clear + box.height(); // no room: below it
        }
        bottom = std::max(bottom, area.top() + box.height()); // hang below the top
        if (line && bottom + clear > linePx && bottom - box.height() - clear < linePx)
            bottom = linePx + clear + box.height();
        QRectF r(centre - box.width() / 2, bottom - box.height(), box.width(), box.height());
        const auto fitsAt = [&](const QRectF &at) {
            if (at.width() > area.width() || at.bottom() > area.bottom() ||
                at.left() < area.left() || at.right() > area.right())
                return false;
            for (int j = 0; j < n; ++j)
                if (j != i && bars[std::size_t(j)].intersects(at))
                    return false;
            return true;
        };
        const auto freeAt = [&placed](const QRectF &at) {
            return std::none_of(placed.begin(), placed.end(), [&at](const QRectF &p) {
                return p.adjusted(-2, -2, 2, 2).intersects(at);
            });
        };
        if (fitsAt(r) && !freeAt(r)) {
            // A neighbour's wide total touches this one: slide it sideways, by at most a
            // third of its width (it still stands over its own bar), rather than hide it.
            double right = 0, left = 0;
            for (const QRectF &p : placed)
                if (p.adjusted(-2, -2, 2, 2).intersects(r)) {
                    right = std::max(right, p.right() + 3 - r.left());
                    left = std::max(left, r.right() - (p.left() - 3));
                }
            for (const double shift :
                 right <= left ? std::array{right, -left} : std::array{-left, right})
                if (std::abs(shift) <= box.width() / 3 && fitsAt(r.translated(shift, 0)) &&
                    freeAt(r.translated(shift, 0))) {
                    r.translate(shift, 0);
                    centre += shift;
                    break;
                }
        }
        if (fitsAt(r) && !freeAt(r)) {
            // Still touching (equal totals side by side, as on a pipeline's middle stages):
            // one step up, over the total it touches, still centred on its own bar, where
            // the axis rect has room and the line is not crossed (a total over the line
            // would read as a bar above capacity).
            double top = r.top();
            for (const QRectF &p : placed)
                if (p.adjusted(-2, -2, 2, 2).intersects(r))
                    top = std::min(top, p.top() - 3);
            const QRectF up(r.left(), top - r.height(), r.width(), r.height());
            const bool crossesLine =
                line && up.bottom() + clear > linePx && up.top() - clear < linePx;
            if (up.top() >= area.top() && !crossesLine && fitsAt(up) && freeAt(up)) {
                r = up;
                bottom = up.bottom();
            }
        }
        if (!fitsAt(r) || !freeAt(r)) {
            item->setVisible(false);
            ++hidden;
            continue;
        }
        placed.push_back(r);
        item->position->setCoords(plot->xAxis->pixelToCoord(centre),
                                  plot->yAxis->pixelToCoord(bottom));
    }
    return hidden;
}

void relayoutPlot(QCustomPlot *plot)
{
    plot->plotLayout()->update(QCPLayoutElement::upPreparation);
    plot->plotLayout()->update(QCPLayoutElement::upMargins);
    plot->plotLayout()->update(QCPLayoutElement::upLayout);
}

double headroomFor(double need, int height, double least)
{
    return std::max(least, 1.0 / std::max(0.5, 1.0 - need / std::max(1, height)));
}

bool fitValueTicks(QCPAxis *axis, bool labels)
{
    const double labelHeight = QFontMetricsF(axis->tickLabelFont()).height();
    const double height = axis->axisRect()->height();
    const int count = std::clamp(int(height / (2.5 * labelHeight)), 1, 6);
    // QCPAxisTicker's readable steps come within 0.8x of the asked one: labels stand at
    // least 2 heights apart where the axis has 2.5; a shorter axis shows none.
    const bool shown = labels && height >= 2.5 * labelHeight;
    if (axis->ticker()->tickCount() == count && axis->tickLabels() == shown)
        return false;
    axis->ticker()->setTickCount(count);
    axis->setTickLabels(shown);
    return true;
}

bool hasRealGeometry(const QCustomPlot *plot)
{
    return plot->isVisible() || plot->viewport() != plot->rect();
}

QVector<QRectF> tickLabelRects(const QCPAxis *axis)
{
    QVector<QRectF> rects;
    if (!axis->visible() || !axis->tickLabels())
        return rects;
    const bool bottom = axis->axisType() == QCPAxis::atBottom;
    if (!bottom && axis->axisType() != QCPAxis::atLeft)
        return rects;
    const QRect ar = axis->axisRect()->rect();
    const QRect viewport = axis->parentPlot()->viewport();
    const QVector<double> ticks = axis->tickVector();
    const QVector<QString> labels = axis->tickVectorLabels();
    // QCPAxisPainterPrivate::draw: the labels start past the longer outward tick.
    const int distance = axis->offset() +
                         std::max(0, std::max(axis->tickLengthOut(), axis->subTickLengthOut())) +
                         axis->tickLabelPadding();
    const QFontMetrics metrics(axis->tickLabelFont());
    for (int i = 0; i < std::min(ticks.size(), labels.size()); ++i) {
        const double at = axis->coordToPixel(ticks[i]);
        if (labels[i].isEmpty() || (bottom ? at < ar.left() - 1 || at > ar.right() + 1
                                           : at < ar.top() - 1 || at > ar.bottom() + 1))
            continue;
        const QRect b = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip, labels[i]);
        const QRectF r =
            bottom ? QRectF(at - b.width() / 2.0, ar.bottom() + distance, b.width(), b.height())
                   : QRectF(ar.left() - distance - b.width(), at - b.height() / 2.0, b.width(),
                            b.height());
        // QCPAxisPainterPrivate::placeTickLabel skips a label the viewport would cut.
        if (bottom ? r.left() < viewport.left() || r.right() > viewport.right()
                   : r.top() < viewport.top() || r.bottom() > viewport.bottom())
            continue;
        rects << r;
    }
    return rects;
}

bool clearAxisCorner(QCustomPlot *plot)
{
    QCPAxis *y = plot->yAxis;
    const QVector<QRectF> xs = tickLabelRects(plot->xAxis);
    const QVector<QRectF> ys = tickLabelRects(y);
    int padding = defaultTickLabelPadding;
    if (!xs.isEmpty() && !ys.isEmpty()) {
        const QRectF first = *std::min_element(
            xs.begin(), xs.end(), [](auto &a, auto &b) { return a.left() < b.left(); });
        const QRectF lowest = *std::max_element(
            ys.begin(), ys.end(), [](auto &a, auto &b) { return a.bottom() < b.bottom(); });
        // Where the left label would end with the default padding.
        const double right = lowest.right() + y->tickLabelPadding() - defaultTickLabelPadding;
        if (first.top() < lowest.bottom() && right >= first.left() - 1)
            padding += int(std::ceil(right - first.left() + 2));
    }
    if (y->tickLabelPadding() == padding)
        return false;
    y->setTickLabelPadding(padding);
    return true;
}

QRectF axisTitleRect(const QCPAxis *axis)
{
    const QString title = axis->label();
    const bool bottom = axis->axisType() == QCPAxis::atBottom;
    if (title.isEmpty() || !axis->visible() || (!bottom && axis->axisType() != QCPAxis::atLeft))
        return {};
    // QCPAxisPainterPrivate::draw: past the longer outward tick, the tick labels' padding
    // and their largest box (labels it skipped count nothing), then the label's padding.
    int distance =
        axis->offset() + std::max(0, std::max(axis->tickLengthOut(), axis->subTickLengthOut()));
    if (axis->tickLabels() && !axis->tickVectorLabels().isEmpty()) {
        double largest = 0;
        for (const QRectF &r : tickLabelRects(axis))
            largest = std::max(largest, bottom ? r.height() : r.width());
        distance += axis->tickLabelPadding() + int(std::ceil(largest));
    }
    distance += axis->labelPadding();
    const QRect ar = axis->axisRect()->rect();
    const QRect b =
        QFontMetrics(axis->labelFont()).boundingRect(0, 0, 0, 0, Qt::TextDontClip, title);
    if (bottom)
        return QRectF(ar.left() + (ar.width() - b.width()) / 2.0, ar.bottom() + distance, b.width(),
                      b.height());
    return QRectF(ar.left() - distance - b.height(), ar.bottom() - (ar.height() + b.width()) / 2.0,
                  b.height(), b.width());
}

bool fitAxisTitle(QCPAxis *axis, const QStringList &titles)
{
    const QRect ar = axis->axisRect()->rect();
    const int room = axis->axisType() == QCPAxis::atLeft ? ar.height() : ar.width();
    const QFontMetrics metrics(axis->labelFont());
    QString title;
    for (const QString &candidate : titles)
        if (metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip, candidate).width() <= room) {
            title = candidate;
            break;
        }
    if (title == axis->label())
        return false;
    axis->setLabel(title);
    return true;
}

QStringList memoryAxisTitles(ByteUnit unit)
{
    const QString name = toQString(unitName(unit));
    return {QStringLiteral("Memory per GPU (%1)").arg(name), QStringLiteral("%1 per GPU").arg(name),
            name};
}

QRectF itemTextRect(const QCPItemText *item)
{
    if (!item->visible())
        return {};
    return QRectF(item->topLeft->pixelPosition(), item->bottomRight->pixelPosition()).normalized();
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

namespace {

/// QCustomPlot's legend entry (icon, then the plottable's name), remembering its
/// minimum size for its name, font, icon size and margins.
///
/// QCPPlottableLegendItem lays its name out (a HarfBuzz shaping) in every
/// minimumOuterSizeHint(), which the legend's layout and fitLegendColumns() ask about 30
/// times per replot: 0.86 M instructions of a drag step's 15.8 M at 1,024 GPUs
/// (callgrind, tests/bench BM_SliderToReplot). The size is QCustomPlot's own, computed
/// once per key; drawing is QCPPlottableLegendItem's.
class LegendEntry : public QCPPlottableLegendItem
{
public:
    using QCPPlottableLegendItem::QCPPlottableLegendItem;

protected:
    QSize minimumOuterSizeHint() const override
    {
        Key key = currentKey();
        if (!(key == m_sizeKey) || !m_size.isValid()) {
            m_sizeKey = std::move(key);
            m_size = QCPPlottableLegendItem::minimumOuterSizeHint();
        }
        return m_size;
    }

private:
    /// What the size depends on: the name, the font, the icon's size (the box's height
    /// at least), the padding and the margins.
    struct Key
    {
        QString name;
        QFont font;
        QSize icon;
        int padding = 0;
        QMargins margins;
        bool operator==(const Key &) const = default;
    };
    Key currentKey() const
    {
        return Key{mPlottable ? mPlottable->name() : QString(), getFont(),
                   mParentLegend->iconSize(), mParentLegend->iconTextPadding(), mMargins};
    }

    mutable Key m_sizeKey;
    mutable QSize m_size;
};

} // namespace

void useMeasuredLegendEntries(QCustomPlot *plot)
{
    QCPLegend *legend = plot->legend;
    for (int i = 0; i < legend->itemCount(); ++i) {
        auto *plain = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
        if (!plain || dynamic_cast<LegendEntry *>(plain))
            continue;
        // The same cell, look and state: only the measuring differs.
        auto *entry = new LegendEntry(legend, plain->plottable());
        entry->setLayer(plain->layer());
        entry->setMargins(plain->margins());
        entry->setFont(plain->font());
        entry->setTextColor(plain->textColor());
        entry->setSelectedFont(plain->selectedFont());
        entry->setSelectedTextColor(plain->selectedTextColor());
        entry->setSelectable(plain->selectable());
        entry->setSelected(plain->selected());
        int row = 0, column = 0;
        legend->indexToRowCol(i, row, column);
        legend->take(plain);
        legend->addElement(row, column, entry);
        delete plain;
    }
}

void addToLegend(QCPAbstractPlottable *plottable)
{
    QCPLegend *legend = plottable->parentPlot() ? plottable->parentPlot()->legend : nullptr;
    if (legend && !legend->hasItemWithPlottable(plottable))
        legend->addItem(new LegendEntry(legend, plottable));
}

void showInLegend(QCPAbstractPlottable *plottable, bool shown)
{
    if (shown)
        addToLegend(plottable);
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

void setMemoryAxis(QCPAxis *axis, double top, double capacity, double headroom, ByteUnit unit)
{
    axis->setRange(0, std::max(top, capacity) * headroom);
    // A title fitAxisTitle() shortened stays until the next fit: no relayout a frame.
    const QStringList titles = memoryAxisTitles(unit);
    if (!titles.contains(axis->label()))
        axis->setLabel(titles.front());
}

namespace {

/// Bars filled and outlined as whole-pixel rectangles on a raster target. QCPBars::draw
/// fills a QPolygonF: even unantialiased, the raster engine scans it into one span per
/// pixel row and blends the spans, which Qt 6 hands to its thread pool in segments once
/// there are more than 96 of them (QT_THREAD_PARALLEL_FILLS in qdrawhelper.cpp), so a
/// tall bar waits on thread hand-offs. Here an opaque colour fills a QRect (one memory
/// fill), a texture brush (the overflow hatch) is one unscaled image blit of a sheet
/// tiled with it at the device's origin (so its stripes sit where the brush's would),
/// and each side of the outline is a filled QRect. Each edge is the rounded pixel of
/// the coordinate QCPBars computes, so stacked parts still meet without a gap. Vector
/// targets (SVG, PDF), transforms beyond a translation, antialiasing, selection and
/// other brushes are drawn by QCPBars as before.
class PixelBars : public QCPBars
{
public:
    using QCPBars::QCPBars;

protected:
    void draw(QCPPainter *painter) override
    {
        if (!mKeyAxis || !mValueAxis || mDataContainer->isEmpty())
            return;
        const bool solid = mBrush.style() == Qt::SolidPattern && mBrush.color().alpha() == 255;
        const bool texture =
            mBrush.style() == Qt::TexturePattern && mBrush.transform().isIdentity();
        const int device = painter->device() ? painter->device()->devType() : 0;
        const bool raster = device == QInternal::Image || device == QInternal::Pixmap ||
                            device == QInternal::Widget;
        if (!(solid || texture) || !raster || antialiased() || antialiasedFill() ||
            selectable() != QCP::stNone || painter->transform().type() > QTransform::TxTranslate) {
            QCPBars::draw(painter);
            return;
        }
        QCPBarsDataContainer::const_iterator begin, end;
        getVisibleDataBounds(begin, end);
        const bool outline = mPen.style() != Qt::NoPen && mPen.color().alpha() == 255;
        const int w = outline ? std::max(1, int(std::lround(mPen.widthF()))) : 0;
        const int half = w / 2;
        const QPoint shift = painter->transform().map(QPointF(0, 0)).toPoint();
        for (auto it = begin; it != end; ++it) {
            const QRectF r = getBarRect(it->key, it->value);
            const int left = int(std::lround(r.left())), right = int(std::lround(r.right()));
            const int top = int(std::lround(r.top())), bottom = int(std::lround(r.bottom()));
            if (right <= left || bottom <= top)
                continue;
            const QRect bar(left, top, right - left, bottom - top);
            if (solid)
                painter->fillRect(bar, mBrush.color());
            else
                drawTexture(painter, bar.translated(shift), shift);
            if (!outline)
                continue;
            const QColor ink = mPen.color();
            const int width = bar.width() + w, height = bar.height() + w;
            painter->fillRect(QRect(left - half, top - half, width, w), ink);
            painter->fillRect(QRect(left - half, bottom - half, width, w), ink);
            painter->fillRect(QRect(left - half, top - half, w, height), ink);
            painter->fillRect(QRect(right - half, top - half, w, height), ink);
        }
    }

private:
    /// Blits the part of the tiled sheet under `device` (device pixels; `shift` is the
    /// painter's translation), tiling a larger sheet first when this one is too small
    /// or the brush changed.
    void drawTexture(QCPPainter *painter, const QRect &device, QPoint shift)
    {
        const QImage tile = mBrush.textureImage();
        const int tw = std::max(1, tile.width()), th = std::max(1, tile.height());
        const QSize need(device.width() + tw, device.height() + th);
        if (m_sheetKey != tile.cacheKey() || m_sheet.width() < need.width() ||
            m_sheet.height() < need.height()) {
            const QSize size = need.expandedTo(m_sheet.size());
            m_sheet = QImage(size, QImage::Format_ARGB32_Premultiplied);
            m_sheet.fill(Qt::transparent);
            QPainter p(&m_sheet);
            p.fillRect(m_sheet.rect(), QBrush(tile));
            m_sheetKey = tile.cacheKey();
        }
        const int x = ((device.left() % tw) + tw) % tw, y = ((device.top() % th) + th) % th;
        painter->drawImage(device.topLeft() - shift, m_sheet, QRect(QPoint(x, y), device.size()));
    }

    QImage m_sheet;        ///< the texture tiled from the device's origin
    qint64 m_sheetKey = 0; ///< cacheKey() of the tile m_sheet repeats
};

} // namespace

CapacityBars::CapacityBars(QCustomPlot *plot, double barWidth, bool withLine)
{
    for (int c = 0; c < componentCount; ++c) {
        auto *bars = new PixelBars(plot->xAxis, plot->yAxis);
        bars->setName(toQString(componentName(Component(c))));
        bars->setBrush(componentColor(Component(c)));
        bars->setWidth(barWidth);
        bars->setStackingGap(0);
        bars->setSelectable(QCP::stNone);
        // Bars are axis-aligned rectangles: antialiasing only blurs their edges, and a
        // drag repaints them every frame (tests/bench BM_SliderToReplot).
        bars->setAntialiased(false);
        bars->setAntialiasedFill(false);
        if (c > 0)
            bars->moveAbove(m_parts[std::size_t(c - 1)]);
        m_parts[std::size_t(c)] = bars;
    }
    if (withLine) {
        m_overflow = new PixelBars(plot->xAxis, plot->yAxis);
        m_overflow->setName(QStringLiteral("Above capacity"));
        m_overflow->setWidth(barWidth);
        m_overflow->setSelectable(QCP::stNone);
        // The hatch is a pattern brush: filled with antialiasing it cost about 0.25 ms a
        // bar per replot (8 bars: 4.6 -> 2.7 ms at 1200 x 800, tests/bench).
        m_overflow->setAntialiased(false);
        m_overflow->setAntialiasedFill(false);
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
        m_inLegend[std::size_t(c)] = any;
    }
    syncLegend();
}

void CapacityBars::syncLegend()
{
    // The legend lists the parts bottom to top in Component order, then the overflow:
    // the same order in every step of a lesson, whatever comes and goes.
    std::vector<QCPAbstractPlottable *> ours(m_parts.begin(), m_parts.end());
    if (m_overflow)
        ours.push_back(m_overflow);
    std::vector<QCPAbstractPlottable *> wanted, listed;
    for (std::size_t i = 0; i < ours.size(); ++i)
        if (m_inLegend[i])
            wanted.push_back(ours[i]);
    QCPLegend *legend = ours.front()->parentPlot()->legend;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i)))
            if (std::find(ours.begin(), ours.end(), item->plottable()) != ours.end())
                listed.push_back(item->plottable());
    if (listed == wanted)
        return;
    for (QCPAbstractPlottable *p : ours)
        p->removeFromLegend();
    for (QCPAbstractPlottable *p : wanted)
        addToLegend(p);
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
    m_inLegend[componentCount] = !overKeys.isEmpty();
    syncLegend();
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

QBrush hatchBrush(const QColor &color)
{
    // Qt::BDiagPattern's stripes, lines one pixel wide every 8 pixels, as a premultiplied
    // ARGB tile: the raster engine fills a tiled ARGB32_Premultiplied texture on its fast
    // path, where a pattern brush is colourised and blended pixel by pixel on every fill.
    QImage tile(8, 8, QImage::Format_ARGB32_Premultiplied);
    tile.fill(Qt::transparent);
    for (int i = 0; i < 8; ++i)
        tile.setPixelColor(7 - i, i, color);
    return QBrush(tile);
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
        m_overflow->setBrush(hatchBrush(hatch));
        m_line->setPen(capacityPen(style));
    }
    styleCapacityLabel(m_label, style, base);
}

} // namespace shardscope
