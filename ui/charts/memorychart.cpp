#include "memorychart.h"

#include <QFontMetrics>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.62;

/// Ghost bars are this much wider than the bars, so their dashed sides show beside a
/// taller current bar.
constexpr double ghostWidth = barWidth + 0.16;

/// Room above a lesson's fixed scale for the tallest bar's total (the axis must not move
/// from step to step, so it is not fitted to the pixels as m_headroom is).
constexpr double lessonHeadroom = 1.22;

/// Pixels kept free between two tick labels.
constexpr double labelGap = 8;

/// The GPU axis' titles, longest first: `full`, then without its parenthesis ("GPUs",
/// "Pipeline stage"), then "Stage" for stages.
QStringList axisTitles(const QString &full)
{
    QStringList titles = {full};
    if (const qsizetype open = full.indexOf(QStringLiteral(" ("), 0); open > 0)
        titles << full.left(open);
    if (full.startsWith(QStringLiteral("Pipeline stage")))
        titles << QStringLiteral("Stage");
    return titles;
}

QString exactBytes(std::int64_t bytes)
{
    return QLocale(QLocale::English).toString(qlonglong(bytes)) + QStringLiteral(" bytes");
}

} // namespace

MemoryChart::MemoryChart(QWidget *parent)
    : ChartView(QSize(480, 320), parent), m_bars(plot(), barWidth, true)
{
    useCategoryAxis(plot()->xAxis, toQString(memoryAxisTitle({}, false, true, 0)), 4);
    m_message = addPlotMessage(plot());
    // The measured run's line (setMeasured()), hidden until one is open.
    m_measuredLine = new QCPItemLine(plot());
    m_measuredLine->setVisible(false);
    m_measuredText = new QCPItemText(plot());
    m_measuredText->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    m_measuredText->setVisible(false);
    // The previous step's totals behind the bars (lessons): on the grid's layer, so under
    // every bar, and out of the legend.
    m_ghost = new QCPBars(plot()->xAxis, plot()->yAxis);
    m_ghost->setLayer(QStringLiteral("grid"));
    m_ghost->setWidth(ghostWidth);
    m_ghost->setAntialiased(false);
    m_ghost->removeFromLegend();
    m_ghost->setSelectable(QCP::stNone);

    // Legend in a row above the axis rect, so it can never cover a bar.
    placeLegendAbove(plot(), 7, 18);

    // Room right of the axis rect for the capacity label.
    plot()->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    // One paint buffer, not two: nothing is drawn on the overlay layer (no selection rect),
    // and each buffer costs a clear and a blend of the whole plot per replot.
    plot()->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    setChartStyle(chartStyle());

    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mouseMove, this, &MemoryChart::showTooltip);
    connect(plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        if (const int i = barAt(event->pos()); i >= 0)
            emit groupClicked(groupOfBar(i));
    });
}

QFont MemoryChart::totalsFont() const
{
    return scaledFont(13, true);
}

void MemoryChart::restyle()
{
    const ChartStyle &st = chartStyle();
    applyAxisStyle(plot(), st, font());
    m_bars.applyStyle(st, font(), true);
    styleMessage(m_message, st, font());
    styleLegend(plot(), st, font(), 13, QSize(24, 18));
    plot()->axisRect()->setMargins(QMargins(0, 0, int(150 * st.fontScale), 0));
    for (QCPItemText *t : m_totals) {
        t->setColor(st.ink);
        t->setFont(totalsFont());
    }
    // Not the capacity line's ink: the two lines can sit close together.
    m_measuredLine->setPen(QPen(measuredColor(st.isDark()), 2.5 * st.lineScale, Qt::DashLine));
    m_measuredText->setColor(st.ink);
    m_measuredText->setFont(scaledFont(11, true));
    // Faint: the ink at a sixth for the fill, a dashed outline at half.
    QColor fill = st.ink, edge = st.ink;
    fill.setAlpha(40);
    edge.setAlpha(130);
    m_ghost->setBrush(fill);
    m_ghost->setPen(QPen(edge, 1.5 * st.lineScale, Qt::DashLine));
}

void MemoryChart::setLessonOverlay(std::int64_t scaleBytes, const MemoryReport *previous)
{
    m_lessonScaleBytes = scaleBytes;
    m_previous.clear();
    m_previousGpus = 0;
    if (previous && previous->valid()) {
        m_previous = memoryGroupBars(*previous);
        for (const MemoryBar &g : m_previous)
            m_previousGpus += g.gpuCount;
    }
}

double MemoryChart::axisTop() const
{
    return plot()->yAxis->range().upper;
}

double MemoryChart::ghostTop(int i) const
{
    return i >= 0 && i < ghostCount() ? m_ghostTops[std::size_t(i)] : 0;
}

void MemoryChart::rebuildGhost()
{
    // Slot by slot in the same form as the bars: per GPU where the bars are (and the
    // previous step had few enough GPUs), else its groups.
    const std::vector<MemoryBar> previous =
        !m_grouped && m_previousGpus <= maxIndividualBars ? memoryGpuBars(m_previous) : m_previous;
    const int n = std::min(barCount(), int(previous.size()));
    QVector<double> keys(n), values(n);
    m_ghostTops.assign(std::size_t(n), 0);
    for (int i = 0; i < n; ++i) {
        keys[i] = i + 1;
        values[i] = double(previous[std::size_t(i)].bytes.total()) / m_scale;
        m_ghostTops[std::size_t(i)] = values[i];
    }
    m_ghost->setData(keys, values, true);
    m_ghost->setVisible(m_valid && n > 0);
}

void MemoryChart::applyValueRange()
{
    if (!m_valid)
        return;
    double top = m_top;
    for (double g : m_ghostTops)
        top = std::max(top, g);
    const double fixed = double(m_lessonScaleBytes) / m_scale;
    // A lesson's scale holds every step's bars; an edit past it fits the axis again.
    if (fixed > 0 && std::max(top, m_capacity) <= fixed * (1 + 1e-9))
        setMemoryAxis(plot()->yAxis, fixed, 0, lessonHeadroom, m_unit);
    else
        setMemoryAxis(plot()->yAxis, top, m_capacity, m_headroom, m_unit);
}

void MemoryChart::setMeasured(std::optional<std::int64_t> bytes, const QString &label)
{
    m_measuredBytes = bytes;
    m_measuredLabel = label;
}

void MemoryChart::setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit)
{
    m_unit = unit;
    m_scale = unitBytes(unit);
    m_valid = r.valid();
    m_groups = memoryGroupBars(r);
    m_gpuCount = 0;
    for (const MemoryBar &g : m_groups)
        m_gpuCount += g.gpuCount;
    m_staged = m_groups.size() > 1;
    m_capacity = double(r.capacityBytes) / m_scale;
    m_bars.setCapacityVisible(m_valid);
    m_capacityText = capacityText(s.gpu, unit);

    // Decide from the pixels of the last layout; the next layout checks again.
    const double width = plot()->axisRect()->width();
    m_grouped = m_gpuCount > maxIndividualBars ||
                (hasRealGeometry(plot()) && width > 0 && !individualFits(width));
    m_level = 0;
    m_stride = 1;
    rebuildBars();

    m_message->setVisible(!m_valid);
    m_message->setText(toQString("Cannot draw this layout:\n" + r.error));
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::rebuildBars()
{
    m_barInfo = m_grouped ? m_groups : memoryGpuBars(m_groups);

    const int n = int(m_barInfo.size());
    QVector<double> keys(n);
    std::vector<ComponentBytes> bytes;
    bytes.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i) {
        keys[i] = i + 1;
        bytes.push_back(m_barInfo[std::size_t(i)].bytes);
    }
    m_bars.setBars(keys, bytes, m_scale);
    m_bars.setCapacity(m_capacity, m_capacityText);
    double top = 0;
    for (int i = 0; i < n; ++i)
        top = std::max(top, stackTop(i));

    // Total above every bar.
    while (int(m_totals.size()) < n) {
        auto *t = addBarValue(plot(), 0);
        t->setPadding(QMargins(3, 1, 3, 1));
        t->setColor(chartStyle().ink);
        t->setFont(totalsFont());
        m_totals.push_back(t);
    }
    for (int i = 0; i < int(m_totals.size()); ++i) {
        QCPItemText *t = m_totals[std::size_t(i)];
        t->setVisible(i < n);
        if (i < n) {
            t->position->setCoords(keys[i], stackTop(i));
            t->setText(toQString(formatBytes(bytes[std::size_t(i)].total(), m_unit)));
        }
    }

    const bool measured = m_valid && m_measuredBytes.has_value();
    m_measuredLine->setVisible(measured);
    m_measuredText->setVisible(measured);
    if (measured) {
        const double v = double(*m_measuredBytes) / m_scale;
        top = std::max(top, v);
        m_measuredLine->start->setCoords(0.4, v);
        m_measuredLine->end->setCoords(std::max(1, n) + 0.6, v);
        m_measuredText->position->setCoords(0.45, v);
        m_measuredText->setText(m_measuredLabel);
    }

    applyTickLabels();
    plot()->xAxis->setRange(0.4, std::max(1, n) + 0.6);
    m_top = top;
    rebuildGhost();
    if (m_valid)
        applyValueRange();
    else
        plot()->yAxis->setRange(0, 1); // no "1.25·10⁻⁹" ticks under the message
    plot()->yAxis->setTickLabels(m_valid);
}

QString MemoryChart::labelAt(int i, int level) const
{
    return toQString(memoryBarLabel(m_barInfo[std::size_t(i)], m_staged, !m_grouped, level));
}

void MemoryChart::applyTickLabels()
{
    const int n = barCount();
    QVector<double> keys(n);
    QVector<QString> labels(n);
    for (int i = 0; i < n; ++i) {
        keys[i] = i + 1;
        if (i % m_stride == 0)
            labels[i] = labelAt(i, m_level);
    }
    plot()->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, labels);
    // Numbers alone under stage bars: the axis title says what they count.
    const QString title = toQString(memoryAxisTitle(m_groups, m_staged, !m_grouped, m_level));
    m_xTitle = title;
    // fitText() shortens it where it does not fit, and drops it on a short chart where the
    // ticks name their GPUs (left so here, for fitText() to judge on the laid-out rect).
    const QString shown = plot()->xAxis->label();
    const bool dropped = shown.isEmpty() && memoryTicksNameTheirGpus(m_staged, !m_grouped, m_level);
    if (!dropped && !axisTitles(title).contains(shown))
        plot()->xAxis->setLabel(title);
}

bool MemoryChart::individualFits(double axisWidth) const
{
    if (!m_valid || m_gpuCount > maxIndividualBars || m_gpuCount < 1)
        return m_gpuCount >= 1 && m_gpuCount <= maxIndividualBars;
    const double slot = axisWidth / (double(m_gpuCount) + 0.2);
    // The widest label: the largest rank, with its stage line where there are stages.
    QVector<QString> labels, totals;
    for (const MemoryBar &g : m_groups) {
        MemoryBar last = g;
        last.firstRank = g.firstRank + g.gpuCount - 1;
        labels << toQString(memoryBarLabel(last, m_staged, true, 0));
        totals << toQString(formatBytes(g.bytes.total(), m_unit));
    }
    const double label = widestText(plot()->xAxis->tickLabelFont(), labels);
    const double total = widestText(totalsFont(), totals) + 6; // padding and a gap
    return label + labelGap <= slot && total + 2 <= slot;
}

void MemoryChart::fitText()
{
    QRect area = plot()->axisRect()->rect();
    const bool real = hasRealGeometry(plot()) && area.width() > 0 && area.height() > 0;
    bool changed = false;

    if (real) {
        // The capacity label's room first (fitCapacityLabel() widens the right margin to
        // it), then legend columns and value ticks: they decide the axis rect's width.
        fitCapacityLabel(plot(), m_bars.label(), m_capacity, m_capacityText);
        area = plot()->axisRect()->rect();
        const int wrap = plot()->legend->wrap();
        fitLegendColumns(plot(), 7); // also for exports, which emit no beforeReplot
        // Headroom above the tallest bar or the line for one total and the line's pen.
        const double need =
            textBox(totalsFont(), QStringLiteral("8"), QMargins(3, 1, 3, 1)).height() +
            capacityPen(chartStyle()).widthF() + 8;
        const double headroom = headroomFor(need, area.height(), 1.14);
        const bool rerange = m_valid && std::abs(headroom - m_headroom) > 1e-3;
        if (rerange) {
            m_headroom = headroom;
            applyValueRange();
        }
        if (fitValueTicks(plot()->yAxis, m_valid) || plot()->legend->wrap() != wrap || rerange) {
            relayoutPlot(plot());
            area = plot()->axisRect()->rect();
        }

        // The measured line's label, shortened to what fits left of the axis rect's end:
        // "measured peak used 66.6 GB", "measured 66.6 GB", "66.6 GB".
        if (m_measuredText->visible()) {
            const QStringList words = m_measuredLabel.split(u' ');
            const QString size = words.mid(std::max<qsizetype>(0, words.size() - 2)).join(u' ');
            const double room = area.right() - plot()->xAxis->coordToPixel(0.45) -
                                2 * m_measuredText->padding().left();
            const QFontMetrics metrics(m_measuredText->font());
            QString fitted = size;
            for (const QString &text : {m_measuredLabel, QStringLiteral("measured ") + size})
                if (metrics.horizontalAdvance(text) <= room) {
                    fitted = text;
                    break;
                }
            m_measuredText->setText(fitted);
        }

        const bool grouped = !individualFits(area.width());
        if (grouped != m_grouped) {
            m_grouped = grouped;
            m_level = 0;
            m_stride = 1;
            rebuildBars();
            changed = true;
        }
        // The longest labels that fit their slots; then every k-th of the shortest.
        const int n = barCount();
        const double slot = area.width() / (double(std::max(1, n)) + 0.2);
        const QFont font = plot()->xAxis->tickLabelFont();
        int level = 0, stride = 1;
        if (m_grouped) {
            auto widest = [&](int lv) {
                QVector<QString> texts;
                for (int i = 0; i < n; ++i)
                    texts << labelAt(i, lv);
                return widestText(font, texts) + labelGap;
            };
            double need = widest(0);
            while (need > slot && level < 2)
                need = widest(++level);
            stride = std::max(1, int(std::ceil(need / slot)));
        }
        if (level != m_level || stride != m_stride) {
            m_level = level;
            m_stride = stride;
            applyTickLabels();
            changed = true;
        }
        if (changed)
            relayoutPlot(plot());
        // Axis titles no longer than their sides: "GB per GPU" on a short plot. Where the
        // axis rect, with the GPU title's line, would be under four such lines high (a
        // 1280 x 720 projector's type) and the tick labels name their GPUs, the title
        // gives its line to the bars. Judged with the line counted in either case, so
        // dropping it never brings it back.
        const QCPAxis *x = plot()->xAxis;
        const int titleLine = QFontMetrics(x->labelFont()).height() + x->labelPadding();
        const int withTitle = plot()->axisRect()->height() - (x->label().isEmpty() ? titleLine : 0);
        const bool dropTitle =
            withTitle < 4 * titleLine && memoryTicksNameTheirGpus(m_staged, !m_grouped, m_level);
        // The GPU title first: its line decides the height the value title is fitted to.
        if (fitAxisTitle(plot()->xAxis, dropTitle ? QStringList() : axisTitles(m_xTitle)))
            relayoutPlot(plot());
        if (fitAxisTitle(plot()->yAxis, memoryAxisTitles(m_unit)))
            relayoutPlot(plot());
        if (clearAxisCorner(plot())) // "0" under "0" where the first bar is near the corner
            relayoutPlot(plot());
    }

    // The capacity label stays beside its line, inside the axis rect's height.
    fitCapacityLabel(plot(), m_bars.label(), m_capacity, m_capacityText);

    // Totals: tallest first, none over another or under the line.
    const int n = barCount();
    QVector<double> keys(n), tops(n);
    for (int i = 0; i < int(m_totals.size()); ++i)
        m_totals[std::size_t(i)]->setVisible(i < n);
    for (int i = 0; i < n; ++i) {
        keys[i] = i + 1;
        tops[i] = stackTop(i);
    }
    if (real)
        placeBarValues(plot(), m_totals, keys, tops, barWidth,
                       m_bars.line()->visible() ? m_capacity : std::nan(""),
                       capacityPen(chartStyle()).widthF(), 3, chartStyle().background);
}

QString MemoryChart::barLabel(int i) const
{
    return i >= 0 && i < barCount() ? labelAt(i, 0) : QString();
}

QString MemoryChart::tickLabel(int i) const
{
    return i >= 0 && i < barCount() && i % m_stride == 0 ? labelAt(i, m_level) : QString();
}

QCPItemText *MemoryChart::totalItem(int i) const
{
    return i >= 0 && i < barCount() ? m_totals[std::size_t(i)] : nullptr;
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
    return m_capacityText;
}

QString MemoryChart::tooltipText(int i) const
{
    if (i < 0 || i >= barCount())
        return {};
    const MemoryBar &b = m_barInfo[std::size_t(i)];
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
    return categoryAt(plot(), pos, barCount(), barWidth / 2);
}

void MemoryChart::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(plot(), event, tooltipText(barAt(event->pos())));
}

} // namespace shardscope
