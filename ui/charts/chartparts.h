#pragma once

#include "format.h"
#include "gpu.h"
#include "memoryreport.h"
#include "palette.h"
#include "qtext.h"

#include <QBrush>
#include <QMargins>
#include <QPen>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QVector>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

class QCPAbstractPlottable;
class QCPAxis;
class QCPBars;
class QCPItemStraightLine;
class QCPItemText;
class QCPLayer;
class QCustomPlot;
class QMouseEvent;
class QPoint;
class QWidget;

namespace shardscope {

// The pieces ShardScope's QCustomPlot charts are built from, written once so that every
// chart looks and behaves alike: MemoryChart, CompareChart, LivePanel, TimelineView and
// StageMemoryChart. Styling follows ChartStyle (ui/charts/palette.h): sizes are points x
// fontScale and pens pixels x lineScale.

/// The hatch over the part of a bar above capacity: Qt::BDiagPattern's diagonal stripes
/// (one pixel every 8) in `color`, as a tiled premultiplied-ARGB image brush, which the
/// raster engine fills several times faster than the pattern brush.
QBrush hatchBrush(const QColor &color);

/// Lays `plot` out as `owner`'s only child, edge to edge, and gives `owner` `minimumSize`.
void fillWithPlot(QWidget *owner, QCustomPlot *plot, QSize minimumSize);

/// Turns `axis` into a category axis titled `label`: text ticks (set them through its
/// QCPAxisTickerText), no sub-ticks, ticks `tickOutside` pixels outside, no grid lines.
void useCategoryAxis(QCPAxis *axis, const QString &label, int tickOutside);

/// Left and right margins, pixels, of plots that share a time axis (TimelineView above
/// StageMemoryChart), so that their time axes line up under each other.
inline constexpr int timeAxisLeftMargin = 150;
inline constexpr int timeAxisRightMargin = 40;
/// Fixes `plot`'s axis rect margins left and right to timeAxisLeftMargin and
/// timeAxisRightMargin; top and bottom stay automatic (legend row, axis title).
void alignTimeAxis(QCustomPlot *plot);

/// Labels a time axis whose data are timeline units (schedule.h: 1 = one forward pass
/// of one micro-batch through one stage) in seconds: ticks at round numbers of seconds,
/// each labelled with its seconds, `secondsPerUnit` seconds to a unit
/// (secondsPerTimelineUnit(), core/steptime.h). 0 (a step that cannot be timed) puts
/// QCustomPlot's plain ticker, in units, back. The data and the range stay in units.
/// `*current` is the axis' present seconds per unit (0: units), updated; the title
/// becomes "Time (s)" or, in units, `unitsTitle`. Returns whether anything changed (the
/// caller replots).
bool setTimeAxisSeconds(QCPAxis *axis, double secondsPerUnit, double *current,
                        const QString &unitsTitle);

/// Adds a buffered layer "live" above "main" and returns it: what a playhead moves lives
/// there, so a frame redraws only that layer (QCPLayer::replot), not axes and legend.
QCPLayer *addLiveLayer(QCustomPlot *plot);
/// A straight line item at time `key` (plot coordinates), top to bottom: a playhead.
void placeVerticalLine(QCPItemStraightLine *line, double key);
/// A straight line item at `value` (plot coordinates), left to right: a capacity line.
void placeHorizontalLine(QCPItemStraightLine *line, double value);
/// A playhead's pen: the ink, 3 px x lineScale.
QPen playheadPen(const ChartStyle &style);
/// A capacity line's pen: the ink, 3 px x lineScale, dashed.
QPen capacityPen(const ChartStyle &style);

/// A hidden text item centred in the axis rect at `ratioY` of its height, for the
/// "cannot draw" messages that replace a plot's data.
QCPItemText *addPlotMessage(QCustomPlot *plot, double ratioY = 0.5);
/// A message's look: 14 pt bold x fontScale in style.alert.
void styleMessage(QCPItemText *message, const ChartStyle &style, const QFont &base);

/// A capacity label: x a share of the axis rect's width, y in plot coordinates, anchored
/// at `anchor`, left-aligned lines, 6 px padding left and right, 2 px above and below,
/// drawn outside the axis rect too.
QCPItemText *addCapacityLabel(QCustomPlot *plot,
                              Qt::Alignment anchor = Qt::AlignLeft | Qt::AlignVCenter);
/// A capacity label's look: 14 pt bold x fontScale, ink on the canvas colour at 86 %
/// opacity (the line under it stays faintly visible).
void styleCapacityLabel(QCPItemText *label, const ChartStyle &style, const QFont &base);
/// Keeps a capacity label (addCapacityLabel()) beside its line at `value` (plot
/// coordinates) and inside the axis rect's height: centred on the line, moved up or down
/// no more than it must. Where the axis rect is shorter than its lines it shows one: the
/// usable bytes the line marks for a capacityText() of a driver total ("85.5 GB usable",
/// or "85.5 GB" of the compare chart's "H100\n85.5 GB\nusable"), else the lines joined
/// ("MI325X 256 GB"). A chart with a fixed right margin has it widened to the label as
/// shown. Call it after the layout, with the label's full `text`.
void fitCapacityLabel(QCustomPlot *plot, QCPItemText *label, double value, const QString &text);
/// A card by its short name and the datasheet size it is sold as, GB = 1e9 bytes:
/// "H100 80 GB"; a short name that carries its size already ("A100 40GB") as it is.
QString cardName(const Gpu &gpu);
/// The label of a card's capacity line, which is drawn at Gpu::usableBytes(): the card
/// as sold and, where the driver's total is known, that total in `unit`: "H100 80 GB\n85.5
/// GB usable" (81,559 MiB = 85,520,809,984 bytes; "79.6 GiB usable" in GiB). A card with
/// no driver figure keeps its datasheet label, "MI325X\n256 GB" ("\n= 238.4 GiB" added
/// in GiB). `oneLine` joins the lines: "H100 80 GB: 85.5 GB usable", "MI325X 256 GB".
QString capacityText(const Gpu &gpu, ByteUnit unit, bool oneLine = false);

/// A text item for the value above a bar: anchored at its bottom centre, `gap` pixels above
/// the point it is placed at.
QCPItemText *addBarValue(QCustomPlot *plot, int gap);

/// The box, pixels, that `text` in `font` fills when a QCPItemText draws it with `padding`
/// (QCPItemText::draw: QFontMetrics::boundingRect of the text, grown by the padding), at
/// the origin.
QRectF textBox(const QFont &font, const QString &text, const QMargins &padding);
/// The widest box (textBox() width, pixels) of `texts` in `font`, without padding; 0 for none.
double widestText(const QFont &font, const QVector<QString> &texts);

/// Places the value texts above bars so that none covers another, none is struck by the
/// capacity line and none leaves the axis rect; call it after the plot's layout (the
/// QCustomPlot::afterLayout signal), when pixels are known.
///
/// items[i] (from addBarValue()) holds the value of the bar at keys[i] whose stack ends at
/// tops[i] (plot coordinates), `barWidth` key units wide. A text sits `gap` pixels above
/// its bar and never over another bar. One that the
/// capacity line at `lineValue` (plot coordinates; NaN for none), drawn `lineWidth` pixels
/// wide, would cross moves just above the line, or just below it where there is no room
/// above; one that would leave the axis rect sideways is shifted inside. Bars are served
/// tallest first (the peak's number always shows); a text that touches one already placed
/// slides sideways by up to a third of its width, else stands one step higher over it
/// (still centred on its bar); one that still overlaps, or cannot fit the axis rect, is
/// hidden (the bar's tooltip keeps the number). Every text gets a plate in `plate` (the canvas
/// colour) so the grid and the line stay behind it. Returns how many were hidden.
int placeBarValues(QCustomPlot *plot, const std::vector<QCPItemText *> &items,
                   const QVector<double> &keys, const QVector<double> &tops, double barWidth,
                   double lineValue, double lineWidth, int gap, const QColor &plate);

/// The memory axis' headroom (its top over the tallest bar or line) that leaves `need`
/// pixels above them in an axis rect `height` pixels tall, at least `least` and at most 2
/// (half the height): 1 / (1 - need / height). For a value text or label above the bars.
double headroomFor(double need, int height, double least);

/// Lays `plot` out again (QCPLayoutElement::update, preparation, margins and layout) after
/// a change of tick labels or legend made in QCustomPlot::afterLayout; draws nothing.
void relayoutPlot(QCustomPlot *plot);

/// Spaces a value axis' ticks so that its labels stand about 2.5 label heights apart in
/// the axis rect's height (the ticker's tick count, 1 to 6), and shows its tick labels
/// when `labels` and the axis is at least that tall; true when that changed anything
/// (lay the plot out again).
bool fitValueTicks(QCPAxis *axis, bool labels = true);

/// True when `plot` is laid out for pixels someone will see: it is visible, or it is being
/// drawn at another size than its widget's (an export through QCustomPlot::toPainter). A
/// plot that was never shown has no real size, and a chart keeps its default choices.
bool hasRealGeometry(const QCustomPlot *plot);

/// The boxes, pixels, of the tick labels QCustomPlot draws on `axis` (a bottom or left
/// axis) at its last layout, computed as QCPAxisPainterPrivate places them: centred under
/// (beside) the tick, tickLengthOut + tickLabelPadding past the axis, QFontMetrics of the
/// tick label font; labels that are empty, or that QCustomPlot skips because they would
/// cross the viewport's border, are left out. For tests and fitting.
QVector<QRectF> tickLabelRects(const QCPAxis *axis);
/// QCustomPlot's tick label padding, pixels (QCPAxis' default).
inline constexpr int defaultTickLabelPadding = 5;
/// Keeps the left axis' lowest tick label ("0") clear of the bottom axis' leftmost one
/// where the two meet at the axis rect's corner: the left axis' tick label padding grows
/// from defaultTickLabelPadding by as much as they would overlap, plus a pixel. Call it
/// after the layout (tickLabelRects()); true when the padding changed (lay the plot out
/// again).
bool clearAxisCorner(QCustomPlot *plot);

/// The box, pixels, of `axis`' title (a bottom or left axis) at its last layout, computed
/// as QCPAxisPainterPrivate::draw places it: labelPadding past the tick labels (the widest
/// one of a left axis, the tallest of a bottom one, as tickLabelRects() finds them),
/// centred along the axis rect's side, as long as the text is (QFontMetrics of the label
/// font; a left axis' title is turned a quarter). Empty without a title. For tests.
QRectF axisTitleRect(const QCPAxis *axis);
/// Gives `axis` (bottom or left) the first of `titles`, longest first, whose text in the
/// axis' label font is no longer than the axis rect's side along it (its width, or its
/// height for a left axis), else no title: QCustomPlot draws a longer one past the ends of
/// the axis, where the widget or the legend cuts it ("Memory per GPU (GB"). Call it after
/// the layout. True when the title changed; lay the plot out again when it changed to or
/// from none.
bool fitAxisTitle(QCPAxis *axis, const QStringList &titles);
/// The memory axis' titles, longest first: "Memory per GPU (GB)", "GB per GPU", "GB" in
/// `unit` (for fitAxisTitle()).
QStringList memoryAxisTitles(ByteUnit unit);

/// The box, pixels, of a text item at the last layout (its topLeft and bottomRight anchors,
/// padding included); empty when the item is hidden.
QRectF itemTextRect(const QCPItemText *item);

/// The legend row's look: `points` pt x fontScale in the ink on the canvas colour, icons
/// `icon` pixels x fontScale.
void styleLegend(QCustomPlot *plot, const ChartStyle &style, const QFont &base, double points,
                 QSize icon);
/// Adds `plottable` to its plot's legend (QCPAbstractPlottable::addToLegend()) as an
/// entry that remembers its minimum size (the legend's layout asks for it about 30 times
/// per replot); no change when it is listed already.
void addToLegend(QCPAbstractPlottable *plottable);
/// Swaps each of `plot`'s plain legend entries (QCustomPlot adds one for every new
/// plottable, QCustomPlot::autoAddPlottableToLegend) for one like addToLegend()'s, in
/// the same cell with the same font, colours and selection. A legend placed with
/// placeLegendAbove() calls it before every replot, ahead of the layout (a swap between
/// the layout and the drawing would leave the new entry unplaced for that frame).
void useMeasuredLegendEntries(QCustomPlot *plot);
/// Puts `plottable` in the legend when `shown` (addToLegend()), else takes it out; no
/// change when it already is where it should be (an entry keeps its place).
void showInLegend(QCPAbstractPlottable *plottable, bool shown);

/// Index of the category under the widget pixel `pos` of `plot`, for categories at keys 1,
/// 2, .., `count` whose bars reach `halfWidth` key units either side: i when the key there
/// is within halfWidth of i + 1, else -1 (also outside the axis rect).
int categoryAt(const QCustomPlot *plot, const QPoint &pos, int count, double halfWidth);
/// Shows `text` as the tooltip at `event`'s position over `plot`; hides the tooltip when
/// `text` is empty (nothing under the mouse).
void showPlotTooltip(QCustomPlot *plot, const QMouseEvent *event, const QString &text);

/// The plain text of a label's rich text (what tests and screen readers compare).
QString plainTextOf(const QString &html);

/// A memory value axis: 0 to max(top, capacity) x headroom (display units), titled
/// "Memory per GPU (GB)" in `unit` (a shorter memoryAxisTitles() form it has stays).
void setMemoryAxis(QCPAxis *axis, double top, double capacity, double headroom, ByteUnit unit);

/// Stacked memory-component bars against a capacity: MemoryChart's and CompareChart's
/// bars, and LivePanel's predicted ones.
///
/// One QCPBars per Component, bottom to top in Component order, coloured componentColor()
/// and named componentName(), so the chart and its legend agree in every view. With
/// `withLine` it also adds one more QCPBars right after them (plottable(componentCount) of
/// a plot that had none before), which hatches each bar's part above the capacity, and the
/// dashed capacity line across the axis rect. The capacity label stands right of the axis
/// rect at the capacity's height (leave room with the axis rect's right margin).
class CapacityBars
{
public:
    /// Adds the bars (`barWidth` in key units), the label and, with `withLine`, the
    /// overflow hatch and the line to `plot` (which owns them).
    CapacityBars(QCustomPlot *plot, double barWidth, bool withLine);

    /// Bar i at keys[i] holds bytes[i] / scale of each component (display units); a
    /// component that is 0 on every bar leaves the legend. Sizes must match.
    void setBars(const QVector<double> &keys, const std::vector<ComponentBytes> &bytes,
                 double scale);
    /// Moves the line and the label to `capacity` (display units), writes `label`, and
    /// hatches what of each bar stands above the capacity (its legend entry only while a
    /// bar does).
    void setCapacity(double capacity, const QString &label);
    /// Shows or hides the line and the label.
    void setCapacityVisible(bool visible);

    /// Height of bar i's component, display units; 0 out of range.
    double height(int bar, Component c) const;
    /// Top of bar i's stack: the sum of its components.
    double top(int bar) const;
    /// The bars of one component.
    QCPBars *parts(Component c) const { return m_parts[std::size_t(c)]; }
    /// The hatch above capacity; null without a line.
    QCPBars *overflow() const { return m_overflow; }
    /// The dashed capacity line; null without a line.
    QCPItemStraightLine *line() const { return m_line; }
    /// The capacity label.
    QCPItemText *label() const { return m_label; }

    /// The look: 1 px x lineScale outlines in style.barOutline between the parts (none
    /// when `outlines` is false), the overflow outlined in overflowColor() 3 px x
    /// lineScale over a hatch in the canvas colour, capacityPen() and
    /// styleCapacityLabel().
    void applyStyle(const ChartStyle &style, const QFont &base, bool outlines);

private:
    /// Puts in the legend exactly the parts (and the overflow) m_inLegend names, in
    /// Component order, the overflow last; no change when it already lists them so.
    void syncLegend();

    std::array<QCPBars *, componentCount> m_parts{};
    std::array<bool, componentCount + 1> m_inLegend{}; ///< parts, then the overflow
    QCPBars *m_overflow = nullptr;
    QCPItemStraightLine *m_line = nullptr;
    QCPItemText *m_label = nullptr;
    QVector<double> m_keys;
};

} // namespace shardscope
