#include "sweepchart.h"

#include "chartparts.h"
#include "estimate.h"
#include "layout.h"
#include "qtext.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <qcustomplot.h>

namespace shardscope {

namespace {

/// Strategy i's name in the legend: "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP".
QString strategyName(int i)
{
    return toQString(zeroStageName(ZeroStage(i)));
}

/// A swept value as its tick says it: "16,384" GPUs, "128k" tokens (k = 1,024, as context
/// lengths are named), "64" sequences.
QString valueLabel(SweepAxis axis, std::int64_t x)
{
    if (axis == SweepAxis::SequenceLength && x >= 1024 && x % 1024 == 0)
        return QString::number(x / 1024) + u'k';
    return toQString(formatCount(x));
}

/// The swept axis' titles, longest first (fitAxisTitle()).
QStringList keyTitles(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SequenceLength:
        return {QStringLiteral("Sequence length (tokens, log scale)"),
                QStringLiteral("Sequence length"), QStringLiteral("Tokens")};
    case SweepAxis::MicroBatchSize:
        return {QStringLiteral("Micro-batch size (sequences, log scale)"),
                QStringLiteral("Micro-batch size"), QStringLiteral("Batch")};
    case SweepAxis::Gpus:
    case SweepAxis::StepTimeGpus:
        break;
    }
    return {QStringLiteral("Number of GPUs (log scale)"), QStringLiteral("GPUs")};
}

/// The value axis' titles, longest first: "Memory per GPU (GB, log scale)", then
/// memoryAxisTitles(); for a step-time sweep "Step time (s, log scale)", "Step time (s)",
/// "s".
QStringList valueTitles(SweepAxis axis, ByteUnit unit)
{
    if (sweepsStepTime(axis))
        return {QStringLiteral("Step time (s, log scale)"), QStringLiteral("Step time (s)"),
                QStringLiteral("s")};
    QStringList titles = memoryAxisTitles(unit);
    titles.prepend(QStringLiteral("Memory per GPU (%1, log scale)").arg(toQString(unitName(unit))));
    return titles;
}

/// A value tick's text: "1,000", "20", "0.5", "0.02".
QString valueTickLabel(double v)
{
    if (v >= 1)
        return toQString(formatCount(std::llround(v)));
    return QString::number(v, 'g', 2);
}

/// The points of a log axis between `low` and `high` (both > 0): each mantissa x 10^e for
/// every `decadeStride`-th decade e.
QVector<double> logTicks(double low, double high, std::initializer_list<double> mantissas,
                         int decadeStride)
{
    QVector<double> ticks;
    const int first = int(std::floor(std::log10(low)));
    const int last = int(std::ceil(std::log10(high)));
    for (int e = first; e <= last; ++e) {
        if (((e % decadeStride) + decadeStride) % decadeStride != 0)
            continue;
        for (const double m : mantissas) {
            const double v = m * std::pow(10.0, e);
            if (v >= low && v <= high)
                ticks << v;
        }
    }
    return ticks;
}

constexpr std::array<QCPScatterStyle::ScatterShape, 4> markers = {
    QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
    QCPScatterStyle::ssDiamond};

} // namespace

QColor SweepChart::strategyColor(int i, bool dark)
{
    switch (i) {
    case 0:
        return QColor(0xE6, 0x9F, 0x00); // orange
    case 1:
        return QColor(0xCC, 0x79, 0xA7); // reddish purple
    case 2:
        return QColor(0x00, 0x9E, 0x73); // bluish green
    default:
        return dark ? QColor(0x56, 0xB4, 0xE9) : QColor(0x00, 0x72, 0xB2); // sky blue / blue
    }
}

SweepChart::SweepChart(QWidget *parent) : ChartView(QSize(480, 320), parent)
{
    QCustomPlot *p = plot();
    for (int i = 0; i < 4; ++i) {
        QCPGraph *g = p->addGraph();
        g->setName(strategyName(i));
        g->setSelectable(QCP::stNone);
        m_lines[std::size_t(i)] = g;
    }
    m_dot = p->addGraph();
    m_dot->setName(QStringLiteral("this scenario"));
    m_dot->setLineStyle(QCPGraph::lsNone);
    m_dot->setSelectable(QCP::stNone);
    m_capacityLine = new QCPItemStraightLine(p);
    m_capacityLabel = addCapacityLabel(p);
    m_capacityLine->setVisible(false); // until setSweep() places them
    m_capacityLabel->setVisible(false);
    m_message = addPlotMessage(p);
    m_message->setText(QStringLiteral("No point of this sweep can be estimated"));

    for (QCPAxis *axis : {p->xAxis, p->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
        axis->setSubTicks(false);
    }
    p->xAxis->setLabel(keyTitles(m_axis).front());
    p->yAxis->setLabel(valueTitles(m_axis, m_unit).front());

    placeLegendAbove(p, 5, 18);
    p->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    // One paint buffer, as CompareChart: nothing is drawn on the overlay layer.
    p->layer(QStringLiteral("overlay"))->setMode(QCPLayer::lmLogical);
    setChartStyle(chartStyle());
}

void SweepChart::setScenario(const Scenario &s, SweepAxis axis, ByteUnit unit)
{
    setSweep(s, sweepStrategies(s, axis), estimate(s), unit);
}

void SweepChart::setSweep(const Scenario &s, const StrategySweep &sweep,
                          const MemoryReport &current, ByteUnit unit)
{
    const bool newAxis = sweep.axis != m_axis || sweep.values != m_values;
    m_axis = sweep.axis;
    m_values = sweep.values;
    m_unit = unit;
    const double scale = unitBytes(unit);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    double low = std::numeric_limits<double>::infinity(), high = 0;
    auto widen = [&low, &high](double v) {
        low = std::min(low, v);
        high = std::max(high, v);
    };
    bool any = false;
    // What is drawn: memory per GPU in `unit`, or step time in seconds.
    const bool time = sweepsStepTime(m_axis);
    for (std::size_t k = 0; k < 4; ++k) {
        QVector<double> keys, values;
        for (std::size_t i = 0; i < m_values.size(); ++i) {
            std::optional<double> value;
            if (time && i < sweep.stepSeconds[k].size())
                value = sweep.stepSeconds[k][i];
            else if (!time && i < sweep.peakBytes[k].size() && sweep.peakBytes[k][i])
                value = double(*sweep.peakBytes[k][i]) / scale;
            keys << double(m_values[i]);
            // A refused layout (or a zero, which a log axis cannot place) is a gap: NaN breaks
            // QCPGraph's line there and draws no marker.
            if (value && *value > 0) {
                values << *value;
                widen(values.back());
                any = true;
            } else {
                values << nan;
            }
        }
        m_lines[k]->setData(keys, values, true);
    }

    // The scenario's own point, on its strategy's line where its value is on the ladder.
    const std::int64_t own = sweepValueOf(s, m_axis);
    m_stage = std::clamp(int(s.layout.zeroStage), 0, 3);
    const double ownValue = time              ? sweptStepSeconds(s, current).value_or(0)
                            : current.valid() ? double(current.peakBytes()) / scale
                                              : 0;
    if (ownValue > 0 && own > 0) {
        const double v = ownValue;
        m_dot->setData(QVector<double>{double(own)}, QVector<double>{v}, true);
        widen(v);
    } else {
        m_dot->data()->clear();
    }
    QCPScatterStyle dot = m_dot->scatterStyle();
    dot.setBrush(strategyColor(m_stage, chartStyle().isDark()));
    m_dot->setScatterStyle(dot);

    m_capacity = double(sweep.capacityBytes) / scale;
    m_capacityText = capacityText(s.gpu, unit);
    const bool capacity = sweep.capacityBytes > 0 && !time; // no line on a time axis
    const bool hadCapacity = m_capacityLine->visible();
    m_capacityLine->setVisible(capacity);
    m_capacityLabel->setVisible(capacity);
    if (capacity) {
        widen(m_capacity);
        m_capacityLine->point1->setCoords(1, m_capacity);
        m_capacityLine->point2->setCoords(2, m_capacity);
        m_capacityLabel->setText(m_capacityText);
        m_capacityLabel->position->setCoords(1.0, m_capacity);
    }
    if (capacity != hadCapacity)
        placeRightMargin();
    m_noData = !any;
    m_message->setVisible(m_noData);

    // Log ranges: half a step beyond the swept values (and the scenario's own, if it is
    // off the ladder), and a factor of 1.8 around every value drawn.
    double first = m_values.empty() ? 1 : double(m_values.front());
    double last = m_values.empty() ? 2 : double(m_values.back());
    if (own > 0) {
        first = std::min(first, double(own));
        last = std::max(last, double(own));
    }
    plot()->xAxis->setRange(first / 1.5, last * 1.5);
    if (high <= 0 || !std::isfinite(low)) {
        low = 1;
        high = 100;
    }
    // Step times of one layout family can lie within a factor of 2: a decade at least, so
    // that two 1-2-5 ticks are always on the axis.
    if (time && high > 0 && high / low < 10)
        low = high / 10;
    m_low = low / 1.8;
    m_high = high * 1.8;
    plot()->yAxis->setRange(m_low, m_high);
    if (newAxis) {
        m_keyStride = 0;
        plot()->xAxis->setLabel(keyTitles(m_axis).front());
    }
    const QStringList titles = valueTitles(m_axis, unit);
    if (!titles.contains(plot()->yAxis->label()))
        plot()->yAxis->setLabel(titles.front());
    // Default ticks until the first fit: every value, and the decades.
    if (m_keyStride == 0) {
        QVector<double> keys;
        QVector<QString> labels;
        for (const std::int64_t x : m_values) {
            keys << double(x);
            labels << valueLabel(m_axis, x);
        }
        plot()->xAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, labels);
    }
    m_valueTicksKey.clear();
    QVector<QString> labels;
    const QVector<double> ticks = logTicks(m_low, m_high, {1}, 1);
    for (const double v : ticks)
        labels << valueTickLabel(v);
    plot()->yAxis->ticker().staticCast<QCPAxisTickerText>()->setTicks(ticks, labels);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

bool SweepChart::fitKeyAxisTicks()
{
    QCPAxis *axis = plot()->xAxis;
    if (m_values.size() < 2)
        return false;
    const double spacing =
        std::abs(axis->coordToPixel(double(m_values[1])) - axis->coordToPixel(double(m_values[0])));
    QVector<QString> all;
    for (const std::int64_t x : m_values)
        all << valueLabel(m_axis, x);
    const double widest = widestText(axis->tickLabelFont(), all);
    int stride = 1;
    while (stride < int(m_values.size()) && stride * spacing < widest + 10)
        ++stride;
    if (stride == m_keyStride)
        return false;
    m_keyStride = stride;
    QVector<double> keys;
    QVector<QString> labels;
    for (std::size_t i = 0; i < m_values.size(); i += std::size_t(stride)) {
        keys << double(m_values[i]);
        labels << all[int(i)];
    }
    axis->ticker().staticCast<QCPAxisTickerText>()->setTicks(keys, labels);
    return true;
}

void SweepChart::placeRightMargin()
{
    // Room for the capacity label beside its line; a step-time sweep has neither.
    const int right = m_capacityLine->visible() ? int(150 * chartStyle().fontScale)
                                                : int(24 * chartStyle().fontScale);
    plot()->axisRect()->setMargins(QMargins(0, 0, right, 0));
}

bool SweepChart::fitValueAxisTicks()
{
    QCPAxis *axis = plot()->yAxis;
    const double labelHeight = QFontMetricsF(axis->tickLabelFont()).height();
    const double height = axis->axisRect()->height();
    struct Option
    {
        std::initializer_list<double> mantissas;
        int decadeStride;
    };
    static const Option options[] = {{{1, 2, 5}, 1}, {{1}, 1}, {{1}, 2}, {{1}, 3}, {{1}, 4}};
    QVector<double> ticks;
    for (const Option &o : options) {
        ticks = logTicks(m_low, m_high, o.mantissas, o.decadeStride);
        double gap = std::numeric_limits<double>::infinity();
        for (int i = 1; i < ticks.size(); ++i)
            gap = std::min(
                gap, std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1])));
        if (gap >= 2.5 * labelHeight && ticks.size() >= 2)
            break;
    }
    const bool shown = height >= 2.5 * labelHeight;
    QVector<QString> labels;
    QString key = shown ? QStringLiteral("+") : QStringLiteral("-");
    for (const double v : ticks) {
        labels << valueTickLabel(v);
        key += labels.back() + u' ';
    }
    if (key == m_valueTicksKey)
        return false;
    m_valueTicksKey = key;
    axis->ticker().staticCast<QCPAxisTickerText>()->setTicks(ticks, labels);
    axis->setTickLabels(shown);
    return true;
}

void SweepChart::fitText()
{
    if (!plotLaidOut())
        return;
    const int wrap = plot()->legend->wrap();
    fitLegendColumns(plot(), 5); // also for exports, which emit no beforeReplot
    bool relayout = plot()->legend->wrap() != wrap;
    if (relayout)
        relayoutPlot(plot());
    // Value ticks decide the left margin, and so the key axis' width: them first.
    if (fitValueAxisTicks())
        relayoutPlot(plot());
    if (fitKeyAxisTicks())
        relayoutPlot(plot());
    const bool y = fitAxisTitle(plot()->yAxis, valueTitles(m_axis, m_unit));
    if (fitAxisTitle(plot()->xAxis, keyTitles(m_axis)) || y)
        relayoutPlot(plot());
    // A new width can change what fits: once more, then the corner.
    if (fitValueAxisTicks() | fitKeyAxisTicks())
        relayoutPlot(plot());
    if (clearAxisCorner(plot()))
        relayoutPlot(plot());
    if (m_capacityLabel->visible())
        fitCapacityLabel(plot(), m_capacityLabel, m_capacity, m_capacityText);
    // The message within the axis rect: on one line, on two, or not at all.
    if (m_noData) {
        const QRect area = plot()->axisRect()->rect();
        QString shown;
        for (const QString &text : {QStringLiteral("No point of this sweep can be estimated"),
                                    QStringLiteral("No point of this sweep\ncan be estimated"),
                                    QStringLiteral("Nothing to draw")}) {
            const QRectF box = textBox(m_message->font(), text, m_message->padding());
            if (box.width() <= area.width() - 8 && box.height() <= area.height() - 8) {
                shown = text;
                break;
            }
        }
        m_message->setText(shown);
        m_message->setVisible(m_noData && !shown.isEmpty());
    }
}

void SweepChart::restyle()
{
    const ChartStyle &st = chartStyle();
    applyAxisStyle(plot(), st, font(), 13);
    for (int i = 0; i < 4; ++i) {
        QCPGraph *g = m_lines[std::size_t(i)];
        const QColor colour = strategyColor(i, st.isDark());
        g->setPen(QPen(colour, 3 * st.lineScale));
        g->setScatterStyle(QCPScatterStyle(markers[std::size_t(i)], QPen(colour, 2 * st.lineScale),
                                           st.background, 9 * st.lineScale));
    }
    // The scenario's point: a large dot in its strategy's colour, ringed in the ink.
    m_dot->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                           QPen(st.ink, 2.5 * st.lineScale),
                                           strategyColor(m_stage, st.isDark()), 18 * st.lineScale));
    m_capacityLine->setPen(capacityPen(st));
    styleCapacityLabel(m_capacityLabel, st, font());
    styleMessage(m_message, st, font());
    styleLegend(plot(), st, font(), 13, QSize(30, 18));
    // Room right of the axis rect for the capacity label, as CompareChart.
    placeRightMargin();
    m_keyStride = m_keyStride == 0 ? 0 : -1; // new fonts: fit the ticks again
    m_valueTicksKey.clear();
}

} // namespace shardscope
