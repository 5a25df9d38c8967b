#include "livepanel.h"

#include "lazyrefresh.h"
#include "plotwidget.h"
#include "qtext.h"
#include "session.h"

#include <QDateTime>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double barWidth = 0.38;
constexpr double barOffset = 0.21; // predicted at centre - offset, measured at centre + offset
constexpr int compactAbove = 4;    // more GPUs than this get the short labels
constexpr int valueGap = 4;        // pixels between a bar and its value

QString exactBytes(qint64 bytes)
{
    return QLocale(QLocale::English).toString(bytes) + QStringLiteral(" bytes");
}

/// "+3.2 GB", "−29.4 GB" (U+2212), "0 GB".
QString signedBytes(qint64 bytes, ByteUnit unit)
{
    const QString magnitude = toQString(formatBytes(bytes < 0 ? -bytes : bytes, unit));
    if (magnitude.startsWith(u'0') && !magnitude.startsWith(QStringLiteral("0.")))
        return magnitude;
    return (bytes < 0 ? QStringLiteral("−") : QStringLiteral("+")) + magnitude;
}

/// "1 s", "500 ms", "2.5 s".
QString interval(int ms)
{
    if (ms >= 1000)
        return QStringLiteral("%1 s").arg(QString::number(ms / 1000.0, 'g', 4));
    return QStringLiteral("%1 ms").arg(ms);
}

/// "H100 80GB HBM3" from "NVIDIA H100 80GB HBM3".
QString shortGpuName(const QString &name)
{
    QString s = name;
    if (s.startsWith(QStringLiteral("NVIDIA ")))
        s.remove(0, 7);
    return s.isEmpty() ? QStringLiteral("GPU") : s;
}

} // namespace

LivePanel::LivePanel(Session *session, QWidget *parent)
    : ChartView(parent), m_session(session), m_client(new ProbeClient(this)),
      m_startButton(new QPushButton(tr("Start"), this)), m_statusLabel(new QLabel(this)),
      m_plot(new PlotWidget(this)), m_predictedBars(m_plot, barWidth, false)
{
    m_startButton->setToolTip(tr("Start or stop reading this machine's GPUs"));
    m_statusLabel->setTextFormat(Qt::PlainText);
    m_statusLabel->setWordWrap(false);
    // Long failure messages are elided, never allowed to widen the window.
    m_statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_statusLabel->setMinimumWidth(100);

    auto *top = new QHBoxLayout;
    top->addWidget(m_startButton);
    top->addSpacing(12);
    top->addWidget(m_statusLabel, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);
    setMinimumSize(480, 320);

    useCategoryAxis(m_plot->xAxis, tr("GPUs on this machine (GPU i taken as rank i)"), 0);
    m_usedBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_usedBars->setName(tr("Measured: used"));
    m_usedBars->setWidth(barWidth);
    m_usedBars->setStackingGap(0);
    m_usedBars->setSelectable(QCP::stNone);
    m_reservedBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_reservedBars->setName(tr("Measured: driver reserved"));
    m_reservedBars->setWidth(barWidth);
    m_reservedBars->setStackingGap(1); // a gap in the canvas colour sets the thin reserve apart
    m_reservedBars->setSelectable(QCP::stNone);
    m_reservedBars->moveAbove(m_usedBars);
    m_message = addPlotMessage(m_plot, 0.4);

    placeLegendAbove(m_plot, 4, 18);
    m_plot->axisRect()->setAutoMargins(QCP::msLeft | QCP::msTop | QCP::msBottom);
    adoptPlot(m_plot, Slide::Widget);
    applyStyle();

    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &LivePanel::showTooltip);
    connect(m_startButton, &QPushButton::clicked, this, &LivePanel::toggle);
    connect(m_client, &ProbeClient::sample, this, &LivePanel::showReading);
    connect(m_client, &ProbeClient::failed, this, &LivePanel::showFailure);
    connect(m_client, &ProbeClient::runningChanged, this, &LivePanel::onRunningChanged);
    // Session changes, readings and style changes all redraw through the one policy: at
    // once on screen, on the next show as a hidden tab.
    m_refresh = new LazyRefresh(this, m_session, [this] { rebuild(); });

    setStatus(tr("Press Start to read this machine's GPUs with shardscope-probe"), false);
    rebuild();
}

QColor LivePanel::measuredColor(const ChartStyle &style)
{
    // Okabe-Ito black, the one colour the predicted components do not use; on a dark
    // canvas the ink takes its place.
    return style.isDark() ? style.ink : QColor(0x00, 0x00, 0x00);
}

void LivePanel::restyle()
{
    const ChartStyle &style = chartStyle();
    applyPanelStyle(this, style);
    applyStyle();
    setStatus(m_status, m_statusIsError); // its colour and font
    m_refresh->request();                 // the per-GPU lines and labels
}

void LivePanel::applyStyle()
{
    const ChartStyle &st = chartStyle();
    const QFont controlFont = st.font(font(), 14);
    m_startButton->setFont(controlFont);
    m_startButton->setMinimumWidth(int(120 * st.fontScale));
    m_statusLabel->setFont(controlFont);
    applyAxisStyle(m_plot, st, font(), 13);
    m_predictedBars.applyStyle(st, font(), true);
    const QColor measured = measuredColor(st);
    m_usedBars->setPen(QPen(measured, 1 * st.lineScale));
    m_usedBars->setBrush(measured);
    m_reservedBars->setPen(QPen(measured, 2 * st.lineScale));
    m_reservedBars->setBrush(QBrush(measured, Qt::BDiagPattern));
    styleMessage(m_message, st, font());
    styleLegend(m_plot, st, font(), 13, QSize(24, 18));
}

void LivePanel::toggle()
{
    if (m_client->isRunning())
        m_client->stop();
    else
        m_client->start();
}

void LivePanel::onRunningChanged(bool running)
{
    m_startButton->setText(running ? tr("Stop") : tr("Start"));
    if (running) {
        setStatus(tr("Starting %1…").arg(m_client->programDisplayName()), false);
    } else if (m_sample) {
        const QString when = QDateTime::fromMSecsSinceEpoch(m_sample->timestampMs)
                                 .toString(QStringLiteral("HH:mm:ss"));
        setStatus(tr("Stopped; showing the reading of %1").arg(when), false);
    } else {
        setStatus(tr("Stopped"), false);
    }
}

void LivePanel::showReading(const ProbeSample &sample)
{
    m_sample = sample;
    const int n = int(sample.gpus.size());
    if (n == 0)
        setStatus(tr("%1 reports no GPU").arg(m_client->programDisplayName()), true);
    else
        setStatus(tr("Reading %1 %2 every %3 from %4")
                      .arg(n)
                      .arg(n == 1 ? tr("GPU") : tr("GPUs"))
                      .arg(interval(m_client->intervalMs()), m_client->programDisplayName()),
                  false);
    m_refresh->request();
}

void LivePanel::showFailure(const QString &reason)
{
    m_sample.reset();
    setStatus(reason, true);
    m_refresh->request();
}

void LivePanel::setStatus(const QString &text, bool error)
{
    m_status = text;
    m_statusIsError = error;
    QPalette pal = m_statusLabel->palette();
    pal.setColor(QPalette::WindowText,
                 error ? chartStyle().alert : palette().color(QPalette::WindowText));
    m_statusLabel->setPalette(pal);
    QFont f = m_statusLabel->font();
    f.setBold(error);
    m_statusLabel->setFont(f);
    m_statusLabel->setToolTip(text);
    updateStatusLabel();
}

void LivePanel::updateStatusLabel()
{
    const int width = std::max(50, m_statusLabel->width());
    m_statusLabel->setText(
        m_statusLabel->fontMetrics().elidedText(m_status, Qt::ElideRight, width));
}

void LivePanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    updateStatusLabel();
}

void LivePanel::rebuild()
{
    m_unit = m_session->unit();
    const double scale = unitBytes(m_unit);
    const MemoryReport &r = m_session->report();
    m_pairs.clear();
    const int n =
        m_sample ? int(m_sample->gpus.size())
                 : (r.valid() ? int(std::min<std::int64_t>(r.gpuCount(), gpusWithoutReading)) : 0);
    for (int i = 0; i < n; ++i) {
        Pair p;
        p.rank = i;
        if (r.valid()) {
            for (const GpuGroup &g : r.groups) {
                if (g.firstRank <= i && i < g.firstRank + g.gpuCount) {
                    p.predicted = g.bytes;
                    break;
                }
            }
        }
        if (m_sample)
            p.measured = m_sample->gpus[std::size_t(i)];
        m_pairs.push_back(std::move(p));
    }

    QVector<double> predictedKeys(n), measuredKeys(n);
    for (int i = 0; i < n; ++i) {
        predictedKeys[i] = m_sample ? i + 1 - barOffset : i + 1; // alone without a reading
        measuredKeys[i] = i + 1 + barOffset;
    }
    std::vector<ComponentBytes> predicted;
    for (const Pair &p : m_pairs)
        predicted.push_back(p.predicted.value_or(ComponentBytes{}));
    m_predictedBars.setBars(predictedKeys, predicted, scale);
    QVector<double> used(n), reserved(n);
    bool anyMeasured = false, anyReserved = false;
    for (int i = 0; i < n; ++i) {
        const auto &m = m_pairs[std::size_t(i)].measured;
        used[i] = m ? double(m->usedBytes) / scale : 0.0;
        reserved[i] = m && m->reservedBytes ? double(*m->reservedBytes) / scale : 0.0;
        anyMeasured = anyMeasured || m.has_value();
        anyReserved = anyReserved || reserved[i] > 0;
    }
    // Without a reading there are no measured bars (not even empty ones on the axis).
    const QVector<double> noKeys;
    m_usedBars->setData(anyMeasured ? measuredKeys : noKeys, anyMeasured ? used : noKeys, true);
    m_reservedBars->setData(anyMeasured ? measuredKeys : noKeys, anyMeasured ? reserved : noKeys,
                            true);
    showInLegend(m_usedBars, anyMeasured);
    showInLegend(m_reservedBars, anyReserved);

    // Capacity: each GPU's driver total across its pair (runs of equal totals drawn as
    // one line); before any reading, the scenario's datasheet figure across all pairs
    // (the driver's total is what a reading brings).
    struct Segment
    {
        double from, to, value;
    };
    std::vector<Segment> segments;
    for (int i = 0; i < n; ++i) {
        const double cap = m_sample ? double(m_pairs[std::size_t(i)].measured->totalBytes) / scale
                                    : double(m_session->scenario().gpu.capacityBytes) / scale;
        if (!segments.empty() && segments.back().value == cap)
            segments.back().to = i + 1.5;
        else
            segments.push_back({i + 0.5, i + 1.5, cap});
    }
    const int lineCount = int(segments.size());
    while (int(m_capacityLines.size()) < lineCount)
        m_capacityLines.push_back(new QCPItemLine(m_plot));
    double top = 0;
    for (int i = 0; i < int(m_capacityLines.size()); ++i) {
        QCPItemLine *line = m_capacityLines[std::size_t(i)];
        line->setPen(capacityPen(chartStyle()));
        line->setVisible(i < lineCount);
        if (i >= lineCount)
            continue;
        const Segment &seg = segments[std::size_t(i)];
        line->start->setCoords(seg.from, seg.value);
        line->end->setCoords(seg.to, seg.value);
        top = std::max(top, seg.value);
    }
    m_capacityShown = lineCount > 0;
    m_predictedBars.setCapacityVisible(m_capacityShown);
    if (m_sample && n > 0) {
        const ProbeGpu &last = *m_pairs.back().measured;
        m_predictedBars.setCapacity(
            double(last.totalBytes) / scale,
            tr("%1\n%2\ndriver total")
                .arg(shortGpuName(last.name), toQString(formatBytes(last.totalBytes, m_unit))));
    } else if (n > 0) {
        const Gpu &gpu = m_session->scenario().gpu;
        m_predictedBars.setCapacity(
            double(gpu.capacityBytes) / scale,
            tr("%1\n%2\ndatasheet")
                .arg(toQString(gpu.shortName), toQString(formatBytes(gpu.capacityBytes, m_unit))));
    }

    // Room right of the axis rect for the capacity label, however long the GPU's name.
    const QCPItemText *capacityLabel = m_predictedBars.label();
    const QFontMetrics capMetrics(capacityLabel->font());
    int capWidth = 0;
    for (const QString &l : capacityLabel->text().split(u'\n'))
        capWidth = std::max(capWidth, capMetrics.horizontalAdvance(l));
    m_plot->axisRect()->setMargins(QMargins(0, 0, capWidth + 30, 0));

    // Value labels above every bar (two per pair); fitText() picks their words and
    // size for the pixels and places them.
    while (int(m_valueTexts.size()) < 2 * n) {
        auto *t = addBarValue(m_plot, valueGap);
        t->setTextAlignment(Qt::AlignHCenter);
        m_valueTexts.push_back(t);
    }
    m_valueKeys.clear();
    m_valueTops.clear();
    m_valueWanted.assign(m_valueTexts.size(), false);
    for (int k = 0; k < 2 * n; ++k) {
        const Pair &p = m_pairs[std::size_t(k / 2)];
        const bool predictedText = k % 2 == 0;
        m_valueWanted[std::size_t(k)] = predictedText || p.measured.has_value();
        const double h = predictedText ? (p.predicted ? double(p.predicted->total()) / scale : 0.0)
                                       : used[k / 2] + reserved[k / 2];
        m_valueKeys << (predictedText ? predictedKeys[k / 2] : measuredKeys[k / 2]);
        m_valueTops << h;
        if (m_valueWanted[std::size_t(k)])
            top = std::max(top, h);
    }
    applyValueTexts();
    m_anyDifference = std::any_of(m_pairs.begin(), m_pairs.end(),
                                  [](const Pair &p) { return p.measured && p.predicted; });
    applyTickLabels();
    m_top = top;

    m_plot->xAxis->setRange(0.4, std::max(1, n) + 0.6);
    setMemoryAxis(m_plot->yAxis, top, 1.0, m_headroom, m_unit);

    m_message->setVisible(!r.valid());
    m_message->setText(tr("No prediction for this layout:\n%1").arg(toQString(r.error)));

    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

namespace {

/// "1,195 GB" without its unit, "1,195": the value axis' title names the unit.
QString bareNumber(const QString &value)
{
    const qsizetype space = value.lastIndexOf(u' ');
    return space > 0 ? value.left(space) : value;
}

} // namespace

QString LivePanel::valueText(int k, int level) const
{
    const Pair &p = m_pairs[std::size_t(k / 2)];
    if (k % 2 == 0) {
        if (!p.predicted)
            return tr("Not in the\nscenario");
        const QString value = toQString(formatBytes(p.predicted->total(), m_unit));
        return level == 0 ? tr("Predicted\n%1").arg(value) : level == 1 ? value : bareNumber(value);
    }
    const QString value = toQString(formatBytes(p.measured->usedBytes, m_unit));
    if (level > 0)
        return level == 1 ? value : bareNumber(value);
    QString text = tr("Measured\n%1").arg(value);
    // The reserve is a thin segment; with room, say its size too.
    if (p.measured->reservedBytes && *p.measured->reservedBytes > 0)
        text += (chartStyle().fontScale > 1.2 ? tr("\n+ %1\nreserved") : tr("\n+ %1 reserved"))
                    .arg(toQString(formatBytes(*p.measured->reservedBytes, m_unit)));
    return text;
}

QString LivePanel::tickText(int i, int level) const
{
    if (level == 0)
        return pairLabel(i);
    QString label = QString::number(m_pairs[std::size_t(i)].rank);
    if (const auto diff = differenceBytes(i); diff && level == 1)
        label += QStringLiteral("\n") + signedBytes(*diff, m_unit);
    return label;
}

QStringList LivePanel::xTitles() const
{
    const bool compact = pairCount() > compactAbove;
    QStringList titles;
    if (m_tickLevel == 0)
        titles << (compact && m_anyDifference
                       ? tr("GPUs on this machine (GPU i taken as rank i); under each: "
                            "measured − predicted")
                       : tr("GPUs on this machine (GPU i taken as rank i)"));
    else
        titles << (m_tickLevel == 1 && m_anyDifference
                       ? tr("GPU i as rank i; under each: measured − predicted")
                       : tr("GPU i as rank i"));
    titles << tr("GPU i as rank i") << tr("GPU");
    return titles;
}

void LivePanel::applyValueTexts()
{
    for (int k = 0; k < int(m_valueTexts.size()); ++k) {
        QCPItemText *t = m_valueTexts[std::size_t(k)];
        const bool wanted = k < int(m_valueWanted.size()) && m_valueWanted[std::size_t(k)];
        t->setVisible(wanted);
        if (!wanted)
            continue;
        t->setFont(valueFont(m_valueLevel, m_valuePoints));
        t->setColor(k % 2 == 0 ? chartStyle().ink : measuredColor(chartStyle()));
        t->setText(valueText(k, m_valueLevel));
        t->position->setCoords(m_valueKeys[k], m_valueTops[k]);
    }
}

QFont LivePanel::valueFont(int level, double points) const
{
    QFont f = chartStyle().font(font(), level == 0 ? 12.5 : 11, true);
    if (points > 0)
        f.setPointSizeF(points);
    return f;
}

QFont LivePanel::tickFont(double points) const
{
    QFont f = chartStyle().font(font(), pairCount() > compactAbove ? 12 : 14);
    if (points > 0)
        f.setPointSizeF(points);
    return f;
}

void LivePanel::applyTickLabels()
{
    auto ticker = m_plot->xAxis->ticker().staticCast<QCPAxisTickerText>();
    QVector<double> centres;
    QVector<QString> labels;
    for (int i = 0; i < pairCount(); ++i) {
        centres << i + 1;
        labels << (i % m_tickStride == 0 ? tickText(i, m_tickLevel) : QString());
    }
    ticker->setTicks(centres, labels);
    m_plot->xAxis->setTickLabelFont(tickFont(m_tickPoints));
    const QStringList titles = xTitles();
    if (!titles.contains(m_plot->xAxis->label()))
        m_plot->xAxis->setLabel(titles.front());
}

void LivePanel::fitText()
{
    QRect area = m_plot->axisRect()->rect();
    if (!plotLaidOut())
        return;
    const int wrap = m_plot->legend->wrap();
    fitLegendColumns(m_plot, 4); // also for exports, which emit no beforeReplot
    if (fitValueTicks(m_plot->yAxis) || m_plot->legend->wrap() != wrap) {
        relayoutPlot(m_plot);
        area = m_plot->axisRect()->rect();
    }
    const int n = pairCount();
    bool changed = false;

    // Tick labels: the longest words that fit a pair's width; then smaller type (down to
    // 8 pt); then every k-th label.
    const double perPair = area.width() / std::max(1e-9, m_plot->xAxis->range().size());
    {
        QFont f = tickFont(0);
        auto widest = [&](int level, const QFont &font) {
            QVector<QString> texts;
            for (int i = 0; i < n; ++i)
                texts << tickText(i, level);
            return widestText(font, texts) + 8;
        };
        int level = 0;
        while (level < 2 && widest(level, f) > perPair)
            ++level;
        double points = 0;
        while (widest(level, f) > perPair && f.pointSizeF() > 8) {
            f.setPointSizeF(f.pointSizeF() - 0.5);
            points = f.pointSizeF();
        }
        const int stride = std::max(1, int(std::ceil(widest(level, f) / perPair)));
        if (level != m_tickLevel || stride != m_tickStride || points != m_tickPoints) {
            m_tickLevel = level;
            m_tickStride = stride;
            m_tickPoints = points;
            applyTickLabels();
            changed = true;
        }
    }
    // Value texts: the words that fit a bar's share of the pair, then smaller type.
    {
        const double perBar = perPair * (m_sample ? 2 * barOffset : 1.0) - 4;
        auto widest = [&](int level, const QFont &font) {
            QVector<QString> texts;
            for (int k = 0; k < 2 * n; ++k)
                if (m_valueWanted[std::size_t(k)])
                    texts << valueText(k, level);
            return widestText(font, texts);
        };
        // Words, then the value alone, then the bare number (the axis title names the
        // unit); smaller type last, and never under 8 pt times the style's scale (12 pt
        // in presentation type: legible from a classroom's back row). A text still too
        // wide is hidden by placeBarValues() where it would touch a neighbour's.
        int level = 0;
        while (level < 2 && widest(level, valueFont(level, 0)) > perBar)
            ++level;
        QFont f = valueFont(level, 0);
        double points = 0;
        const double least = 8 * std::max(1.0, chartStyle().fontScale);
        while (widest(level, f) > perBar && f.pointSizeF() > least) {
            f.setPointSizeF(f.pointSizeF() - 0.5);
            points = f.pointSizeF();
        }
        if (level != m_valueLevel || points != m_valuePoints) {
            m_valueLevel = level;
            m_valuePoints = points;
            applyValueTexts();
            changed = true;
        }
    }
    // Every wanted text shown again before placeBarValues() hides any.
    for (int k = 0; k < 2 * n; ++k)
        m_valueTexts[std::size_t(k)]->setVisible(m_valueWanted[std::size_t(k)]);
    // Headroom above the tallest bar for its value text and the line's pen.
    double need = 0;
    for (int k = 0; k < 2 * n; ++k)
        if (m_valueWanted[std::size_t(k)]) {
            const QCPItemText *t = m_valueTexts[std::size_t(k)];
            need = std::max(need, textBox(t->font(), t->text(), t->padding()).height());
        }
    need += capacityPen(chartStyle()).widthF() + valueGap + 4;
    const double headroom = headroomFor(need, area.height(), 1.22);
    if (std::abs(headroom - m_headroom) > 1e-3) {
        m_headroom = headroom;
        setMemoryAxis(m_plot->yAxis, m_top, 1.0, m_headroom, m_unit);
        fitValueTicks(m_plot->yAxis);
        changed = true;
    }
    if (changed)
        relayoutPlot(m_plot);
    // Axis titles no longer than their sides: "GB per GPU" on a short plot.
    const bool y = fitAxisTitle(m_plot->yAxis, memoryAxisTitles(m_unit));
    if (fitAxisTitle(m_plot->xAxis, xTitles()) || y)
        relayoutPlot(m_plot);
    if (clearAxisCorner(m_plot))
        relayoutPlot(m_plot);

    // The capacity label beside its line, inside the axis rect's height; none where its
    // three lines are taller than the plot (the tooltip names the total).
    {
        QCPItemText *label = m_predictedBars.label();
        const QRect a = m_plot->axisRect()->rect();
        const QString text = label->text();
        const bool fits = textBox(label->font(), text, label->padding()).height() <= a.height();
        label->setVisible(m_capacityShown && fits);
        if (label->visible())
            fitCapacityLabel(m_plot, label, m_capacityLines.front()->start->value(), text);
    }
    // Values: tallest first, none over another, under a line or out of the axis rect.
    std::vector<QCPItemText *> items;
    QVector<double> keys, tops;
    for (int k = 0; k < 2 * n; ++k)
        if (m_valueWanted[std::size_t(k)]) {
            items.push_back(m_valueTexts[std::size_t(k)]);
            keys << m_valueKeys[k];
            tops << m_valueTops[k];
        }
    // Each text on a plate of the canvas: a capacity line behind it breaks, never crosses.
    QColor plate = chartStyle().background;
    plate.setAlpha(220);
    const double line = m_capacityShown ? m_capacityLines.front()->start->value()
                                        : std::numeric_limits<double>::quiet_NaN();
    placeBarValues(m_plot, items, keys, tops, barWidth, line, capacityPen(chartStyle()).widthF(),
                   valueGap, plate);
}

QVector<const QCPItemText *> LivePanel::valueItems() const
{
    return QVector<const QCPItemText *>(m_valueTexts.begin(), m_valueTexts.end());
}

QString LivePanel::pairLabel(int i) const
{
    if (i < 0 || i >= pairCount())
        return {};
    const Pair &p = m_pairs[std::size_t(i)];
    QString label = p.measured ? tr("GPU %1 · rank %2").arg(p.measured->index).arg(p.rank)
                               : tr("Rank %1").arg(p.rank);
    if (const auto diff = differenceBytes(i)) {
        if (pairCount() > compactAbove) // the axis title names the difference
            label += QStringLiteral("\n") + signedBytes(*diff, m_unit);
        else if (chartStyle().fontScale > 1.2) // large type: the figure on a line of its own
            label += tr("\nmeasured − predicted:\n%1").arg(signedBytes(*diff, m_unit));
        else
            label += QStringLiteral("\n") + differenceText(i);
    }
    return label;
}

double LivePanel::predictedHeight(int i, Component c) const
{
    return i >= 0 && i < pairCount() ? m_predictedBars.height(i, c) : 0;
}

double LivePanel::predictedTop(int i) const
{
    return i >= 0 && i < pairCount() ? m_predictedBars.top(i) : 0;
}

double LivePanel::measuredUsedHeight(int i) const
{
    if (i < 0 || i >= pairCount())
        return 0;
    const auto data = m_usedBars->data();
    return i < data->size() ? data->at(i)->value : 0;
}

double LivePanel::measuredReservedHeight(int i) const
{
    if (i < 0 || i >= pairCount())
        return 0;
    const auto data = m_reservedBars->data();
    return i < data->size() ? data->at(i)->value : 0;
}

double LivePanel::capacityValue(int i) const
{
    if (i < 0 || i >= pairCount() || !m_pairs[std::size_t(i)].measured)
        return 0;
    return double(m_pairs[std::size_t(i)].measured->totalBytes) / unitBytes(m_unit);
}

std::optional<qint64> LivePanel::differenceBytes(int i) const
{
    if (i < 0 || i >= pairCount())
        return std::nullopt;
    const Pair &p = m_pairs[std::size_t(i)];
    if (!p.measured || !p.predicted)
        return std::nullopt;
    return p.measured->usedBytes - qint64(p.predicted->total());
}

QString LivePanel::differenceText(int i) const
{
    const auto diff = differenceBytes(i);
    return diff ? tr("measured − predicted: %1").arg(signedBytes(*diff, m_unit)) : QString();
}

QString LivePanel::tooltipText(int i) const
{
    if (i < 0 || i >= pairCount())
        return {};
    const Pair &p = m_pairs[std::size_t(i)];
    const auto row = [](const QString &name, const QString &value, const QString &exact) {
        return QStringLiteral("<tr><td>%1</td><td align=right>&nbsp;%2</td>"
                              "<td align=right>&nbsp;%3</td></tr>")
            .arg(name, value, exact);
    };
    QString text;
    if (p.measured) {
        const ProbeGpu &g = *p.measured;
        text +=
            tr("<b>GPU %1</b> (rank %2): %3<br>%4, PCI %5")
                .arg(g.index)
                .arg(p.rank)
                .arg(g.name.toHtmlEscaped(), g.uuid.toHtmlEscaped(), g.pciBusId.toHtmlEscaped());
        text += QStringLiteral("<table>");
        text +=
            row(tr("Used"), toQString(formatBytes(g.usedBytes, m_unit)), exactBytes(g.usedBytes));
        if (g.reservedBytes)
            text += row(tr("Driver reserved"), toQString(formatBytes(*g.reservedBytes, m_unit)),
                        exactBytes(*g.reservedBytes));
        text +=
            row(tr("Free"), toQString(formatBytes(g.freeBytes, m_unit)), exactBytes(g.freeBytes));
        text += row(tr("Total"), toQString(formatBytes(g.totalBytes, m_unit)),
                    exactBytes(g.totalBytes));
        text += QStringLiteral("</table>");
        for (const ProbeProcess &proc : g.processes)
            text += tr("pid %1: %2<br>")
                        .arg(proc.pid)
                        .arg(proc.usedBytes ? toQString(formatBytes(*proc.usedBytes, m_unit))
                                            : tr("not measurable"));
        if (!g.processesError.isEmpty())
            text += g.processesError.toHtmlEscaped() + QStringLiteral("<br>");
    } else {
        text += tr("<b>Rank %1</b>: no reading<br>").arg(p.rank);
    }
    if (p.predicted) {
        text += tr("<b>Predicted</b><table>");
        for (int c = componentCount - 1; c >= 0; --c) {
            const std::int64_t v = componentValue(*p.predicted, Component(c));
            text += row(QStringLiteral("<span style='color:%1'>■</span> %2")
                            .arg(componentColor(Component(c)).name(),
                                 toQString(componentName(Component(c)))),
                        toQString(formatBytes(v, m_unit)), exactBytes(v));
        }
        text += row(tr("<b>Total</b>"), toQString(formatBytes(p.predicted->total(), m_unit)),
                    exactBytes(p.predicted->total()));
        text += QStringLiteral("</table>");
    }
    if (const auto diff = differenceBytes(i))
        text += differenceText(i);
    return text;
}

int LivePanel::pairAt(const QPoint &pos) const
{
    return categoryAt(m_plot, pos, pairCount(), barOffset + barWidth / 2);
}

void LivePanel::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(m_plot, event, tooltipText(pairAt(event->pos())));
}

} // namespace shardscope
