#include "timelineview.h"

#include <QPaintEngine>
#include <QPainter>
#include <QPixmap>
#include <algorithm>
#include <array>
#include <cmath>
#include <qcustomplot.h>

namespace shardscope {

namespace {

constexpr double rowHalfHeight = 0.4; // a block spans stage +- this, in row units
const QString stageTitle = QStringLiteral("Pipeline stage (GPU)");
const QString shortStageTitle = QStringLiteral("Stage (GPU)");
const QString timeTitle =
    QStringLiteral("Time (1 = one forward pass of one micro-batch through one stage)");
constexpr int paletteSize = 7;

/// Okabe-Ito (2008) without black, ordered so neighbours contrast.
const std::array<QColor, paletteSize> &okabeIto()
{
    static const std::array<QColor, paletteSize> colors = {
        QColor(0x00, 0x72, 0xB2), // blue
        QColor(0xE6, 0x9F, 0x00), // orange
        QColor(0x00, 0x9E, 0x73), // bluish green
        QColor(0xD5, 0x5E, 0x00), // vermillion
        QColor(0x56, 0xB4, 0xE9), // sky blue
        QColor(0xCC, 0x79, 0xA7), // reddish purple
        QColor(0xF0, 0xE4, 0x42), // yellow
    };
    return colors;
}

int paletteIndex(int microBatch)
{
    return ((microBatch % paletteSize) + paletteSize) % paletteSize;
}

/// Diagonal stripes `width` px wide every `period` px on `background`: on screen a brush
/// texture (one tile, cheap to fill with), on a vector device (an SVG or PDF export) lines,
/// since QSvgGenerator draws no texture brush at all and a PDF would embed the tile.
struct Hatch
{
    QColor line, background;
    int period = 10;
    double width = 1;
    bool rising = false;
    QBrush brush; ///< the tile, made by make()

    static Hatch make(const QColor &line, const QColor &background, int period, double width,
                      bool rising)
    {
        Hatch h{line, background, period, width, rising, {}};
        QPixmap pix(period, period);
        pix.fill(background);
        QPainter p(&pix);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(line, width, Qt::SolidLine, Qt::FlatCap));
        for (int k = -1; k <= 1; ++k) {
            const double o = k * period;
            if (rising)
                p.drawLine(QPointF(o, period), QPointF(o + period, 0));
            else
                p.drawLine(QPointF(o, 0), QPointF(o + period, period));
        }
        p.end();
        h.brush = QBrush(pix);
        return h;
    }

    /// Fills `r` with the stripes: the tile on a raster device, else the background and
    /// the segments of the lines x + y = k period (rising) or x - y = k period inside `r`,
    /// cut at its edges by hand (QSvgGenerator ignores clipping).
    void fill(QPainter &painter, const QRectF &r) const
    {
        const QPaintEngine *engine = painter.paintEngine();
        if (!engine || engine->type() == QPaintEngine::Raster || r.isEmpty()) {
            painter.fillRect(r, brush);
            return;
        }
        painter.fillRect(r, background);
        painter.save();
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(line, width, Qt::SolidLine, Qt::FlatCap));
        const double lo = rising ? r.left() + r.top() : r.left() - r.bottom();
        const double hi = rising ? r.right() + r.bottom() : r.right() - r.top();
        for (double c = std::floor(lo / period) * period; c <= hi; c += period) {
            // The line's x range inside r: y = c - x (rising) or y = x - c within [top, bottom].
            const double x0 = std::max(r.left(), rising ? c - r.bottom() : c + r.top());
            const double x1 = std::min(r.right(), rising ? c - r.top() : c + r.bottom());
            if (x1 <= x0)
                continue;
            const auto y = [&](double x) { return rising ? c - x : x - c; };
            painter.drawLine(QPointF(x0, y(x0)), QPointF(x1, y(x1)));
        }
        painter.restore();
    }
};

/// The W hatch of a micro-batch colour (cached per palette entry).
const Hatch &weightHatch(int microBatch)
{
    static std::array<Hatch, paletteSize> hatches;
    static std::array<bool, paletteSize> made{};
    const int i = paletteIndex(microBatch);
    if (!made[i]) {
        const QColor base = okabeIto()[i];
        hatches[i] = Hatch::make(base.darker(115), mixColors(base, Qt::white, 0.35), 9, 3.2, true);
        made[i] = true;
    }
    return hatches[i];
}

QColor textColorOn(const QColor &fill)
{
    const double luminance = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return luminance > 0.5 ? QColor(20, 20, 20) : Qt::white;
}

} // namespace

/// Draws every block of a Timeline in one pass (one QCustomPlot plottable). With `legendKind`
/// set it draws nothing and serves as a legend entry for that kind (or the bubble).
class TimelineBlocks : public QCPAbstractPlottable
{
public:
    enum class Legend
    {
        None,
        Forward,
        Backward,
        Weight,
        Bubble
    };

    TimelineBlocks(QCPAxis *key, QCPAxis *value, Legend legend = Legend::None)
        : QCPAbstractPlottable(key, value), m_legend(legend)
    {
        setSelectable(QCP::stNone);
        setAntialiased(false);
        setAntialiasedFill(false);
    }

    const Timeline *timeline = nullptr;
    double playhead = 0;
    bool drawable = false;
    QFont labelFont;
    QFont chunkFont;
    /// The colours that follow the ChartStyle (the blocks' own colours do not).
    struct Look
    {
        Hatch bubble;        ///< idle time: the hatch
        QColor bubbleBorder; ///< the bubble's legend swatch outline
        QColor outline;      ///< blocks that have not started
        QColor canvas;       ///< under the running block
    } look;

    double selectTest(const QPointF &, bool, QVariant * = nullptr) const override { return -1; }
    QCPRange getKeyRange(bool &found, QCP::SignDomain = QCP::sdBoth) const override
    {
        found = timeline && drawable && m_legend == Legend::None;
        return found ? QCPRange(0, timeline->makespan) : QCPRange();
    }
    QCPRange getValueRange(bool &found, QCP::SignDomain = QCP::sdBoth,
                           const QCPRange & = QCPRange()) const override
    {
        found = timeline && drawable && m_legend == Legend::None;
        return found ? QCPRange(-0.5, double(timeline->stages.size()) - 0.5) : QCPRange();
    }

    /// Full pixel rectangle of an operation.
    QRectF rectOf(const PipelineOp &op) const
    {
        const double x0 = keyAxis()->coordToPixel(op.start);
        const double x1 = keyAxis()->coordToPixel(op.end);
        const double y0 = valueAxis()->coordToPixel(op.stage - rowHalfHeight);
        const double y1 = valueAxis()->coordToPixel(op.stage + rowHalfHeight);
        return QRectF(QPointF(std::min(x0, x1), std::min(y0, y1)),
                      QPointF(std::max(x0, x1), std::max(y0, y1)));
    }

    /// The part of an operation filled at the playhead (empty before it starts).
    QRectF filledOf(const PipelineOp &op) const
    {
        if (!(op.start < playhead))
            return {};
        QRectF r = rectOf(op);
        if (op.end > playhead)
            r.setRight(keyAxis()->coordToPixel(playhead));
        return r;
    }

    /// Bumped by the view whenever what is drawn changes (timeline, drawable); the caches
    /// also follow the axis rectangle, both ranges and the device pixel ratio.
    quint64 version = 0;

protected:
    /// Each frame is two blits: the fully drawn timeline left of the playhead (a wipe: the
    /// running block shows up to the playhead) and the faint outlines right of it. Both
    /// images are drawn once per timeline, size and range (paintFilled, paintOutlines). An
    /// export (pmNoCaching) draws both directly instead, clipped at the playhead.
    void draw(QCPPainter *painter) override
    {
        if (m_legend != Legend::None || !timeline || !drawable)
            return;
        const QRect area = clipRect();
        if (area.isEmpty())
            return;
        const double px =
            std::round(keyAxis()->coordToPixel(std::min(playhead, timeline->makespan)));
        const int split = int(std::clamp(px - area.left(), 0.0, double(area.width())));
        if (painter->modes().testFlag(QCPPainter::pmNoCaching)) {
            // An export (QCustomPlot::toPainter()): drawn, not blitted, so a PDF or SVG holds
            // the blocks as vector shapes and text rather than two raster images.
            const QRect parts[2] = {
                QRect(area.left(), area.top(), split, area.height()),
                QRect(area.left() + split, area.top(), area.width() - split, area.height())};
            for (int k = 0; k < 2; ++k) {
                if (parts[k].isEmpty())
                    continue;
                painter->save();
                painter->setClipRect(parts[k], Qt::IntersectClip);
                if (k == 0)
                    paintFilled(*painter);
                else
                    paintOutlines(*painter);
                painter->restore();
            }
        } else {
            const double dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
            ensureCache(area, dpr);
            if (split > 0)
                painter->drawPixmap(QRectF(area.left(), area.top(), split, area.height()), m_filled,
                                    QRectF(0, 0, split * dpr, area.height() * dpr));
            if (split < area.width())
                painter->drawPixmap(
                    QRectF(area.left() + split, area.top(), area.width() - split, area.height()),
                    m_outlines,
                    QRectF(split * dpr, 0, (area.width() - split) * dpr, area.height() * dpr));
        }

        // The running blocks (one per stage at most) are drawn again over the wipe, so their
        // number sits centred in the part done rather than cut at the playhead.
        painter->setClipRect(area);
        const int chunks = chunksOf(*timeline);
        for (const StageTimeline &st : timeline->stages) {
            auto it = std::lower_bound(st.ops.begin(), st.ops.end(), playhead,
                                       [](const PipelineOp &op, double t) { return op.start < t; });
            if (it == st.ops.begin())
                continue;
            const PipelineOp &op = *(it - 1);
            if (op.end > playhead) {
                const QRectF r = filledOf(op);
                painter->setAntialiasing(false);
                painter->fillRect(r.adjusted(0, 0, 1, 0), look.canvas);
                paintBlock(*painter, op, r, chunks);
            }
        }
    }

    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override
    {
        painter->setAntialiasing(false);
        const QRectF left(rect.left(), rect.top(), rect.width() / 2, rect.height());
        const QRectF right(rect.center().x(), rect.top(), rect.width() / 2, rect.height());
        const auto swatch = [&](OpKind kind) {
            for (int k = 0; k < 2; ++k) {
                const QRectF r = k == 0 ? left : right;
                painter->fillRect(r, TimelineView::operationColor(kind, k));
                if (kind == OpKind::BackwardWeight)
                    weightHatch(k).fill(*painter, r);
                painter->setPen(QPen(
                    TimelineView::microBatchColor(k).darker(kind == OpKind::Forward ? 125 : 170),
                    1));
                painter->setBrush(Qt::NoBrush);
                painter->drawRect(r.adjusted(0, 0, -1, -1));
            }
        };
        switch (m_legend) {
        case Legend::Forward:
            swatch(OpKind::Forward);
            break;
        case Legend::Backward:
            swatch(OpKind::Backward);
            break;
        case Legend::Weight:
            swatch(OpKind::BackwardWeight);
            break;
        case Legend::Bubble:
            look.bubble.fill(*painter, rect);
            painter->setPen(QPen(look.bubbleBorder, 1));
            painter->drawRect(rect.adjusted(0, 0, -1, -1));
            break;
        case Legend::None:
            break;
        }
    }

private:
    void ensureCache(const QRect &area, double dpr)
    {
        if (!m_filled.isNull() && m_cacheVersion == version && m_cacheArea == area &&
            m_cacheDpr == dpr && m_cacheKeys == keyAxis()->range() &&
            m_cacheValues == valueAxis()->range())
            return;
        m_cacheVersion = version;
        m_cacheArea = area;
        m_cacheDpr = dpr;
        m_cacheKeys = keyAxis()->range();
        m_cacheValues = valueAxis()->range();
        for (QPixmap *pix : {&m_filled, &m_outlines}) {
            *pix = QPixmap(
                QSize(int(std::ceil(area.width() * dpr)), int(std::ceil(area.height() * dpr))));
            pix->setDevicePixelRatio(dpr);
            pix->fill(Qt::transparent);
            QPainter p(pix);
            p.translate(-area.topLeft());
            if (pix == &m_filled)
                paintFilled(p);
            else
                paintOutlines(p);
        }
    }

    /// Every block filled and labelled over the bubble hatch: the timeline at its end.
    void paintFilled(QPainter &painter) const
    {
        // The bubble: whole rows; the blocks cover the busy time.
        for (int i = 0; i < int(timeline->stages.size()); ++i) {
            PipelineOp row;
            row.stage = i;
            row.start = 0;
            row.end = timeline->makespan;
            look.bubble.fill(painter, rectOf(row));
        }
        const int chunks = chunksOf(*timeline);
        for (const StageTimeline &st : timeline->stages)
            for (const PipelineOp &op : st.ops)
                paintBlock(painter, op, rectOf(op), chunks);
    }

    /// One block (or the part of it in `r`): fill, W hatch, border, and the micro-batch
    /// number (1-based) when it fits.
    void paintBlock(QPainter &painter, const PipelineOp &op, const QRectF &r, int chunks) const
    {
        const QFontMetricsF fm(labelFont);
        const double digitWidth = fm.horizontalAdvance(QLatin1Char('0'));
        const QFontMetricsF cfm(chunkFont);
        const double smallDigitWidth = cfm.horizontalAdvance(QLatin1Char('0'));
        const QColor fill = TimelineView::operationColor(op.kind, op.microBatch);
        painter.fillRect(r, fill);
        if (op.kind == OpKind::BackwardWeight)
            weightHatch(op.microBatch).fill(painter, r);
        const QColor base = TimelineView::microBatchColor(op.microBatch);
        painter.setPen(QPen(base.darker(op.kind == OpKind::Forward ? 125 : 170), 1));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(r.adjusted(0, 0, -1, -1));

        const int number = op.microBatch + 1;
        const int digits = number < 10 ? 1 : number < 100 ? 2 : number < 1000 ? 3 : 5;
        // The label font, or the chunk font when that is what fits.
        const bool big = r.width() >= digits * digitWidth + 4;
        const QFont &font = big ? labelFont : chunkFont;
        const double textWidth = digits * (big ? digitWidth : smallDigitWidth);
        if (r.width() < textWidth + 4 || r.height() < fm.height())
            return;
        painter.setPen(op.kind == OpKind::BackwardWeight ? QColor(20, 20, 20) : textColorOn(fill));
        const QString text = QString::number(number);
        const bool showChunk = big && chunks > 1 && r.height() >= fm.height() + cfm.height() &&
                               r.width() >= cfm.horizontalAdvance(QStringLiteral("c00")) + 6;
        if (op.kind == OpKind::BackwardWeight) {
            // A light plate under the number keeps it legible over the hatch.
            const double plateH = fm.height() + (showChunk ? cfm.height() : 0);
            const QRectF plate(r.center().x() - textWidth / 2 - 3, r.center().y() - plateH / 2,
                               textWidth + 6, plateH);
            painter.fillRect(plate, QColor(255, 255, 255, 215));
        }
        if (showChunk) {
            const QRectF top(r.left(), r.center().y() - fm.height() + 2, r.width(), fm.height());
            const QRectF bottom(r.left(), r.center().y(), r.width(), cfm.height());
            painter.setFont(labelFont);
            painter.drawText(top, Qt::AlignCenter, text);
            painter.setFont(chunkFont);
            painter.drawText(bottom, Qt::AlignCenter, QStringLiteral("c%1").arg(op.chunk + 1));
        } else {
            painter.setFont(font);
            painter.drawText(r, Qt::AlignCenter, text);
        }
    }

    /// Faint outlines of every block: what has not run yet.
    void paintOutlines(QPainter &painter) const
    {
        painter.setPen(QPen(look.outline, 1));
        painter.setBrush(Qt::NoBrush);
        for (const StageTimeline &st : timeline->stages)
            for (const PipelineOp &op : st.ops)
                painter.drawRect(rectOf(op).adjusted(0, 0, -1, -1));
    }

    static int chunksOf(const Timeline &t)
    {
        int v = 1;
        if (t.stages.empty())
            return v;
        for (const PipelineOp &op : t.stages.front().ops)
            v = std::max(v, op.chunk + 1);
        return v;
    }

    Legend m_legend;
    QPixmap m_filled, m_outlines;
    quint64 m_cacheVersion = 0;
    QRect m_cacheArea;
    double m_cacheDpr = 0;
    QCPRange m_cacheKeys, m_cacheValues;
};

TimelineView::TimelineView(QWidget *parent) : ChartView(QSize(480, 240), parent)
{
    for (auto *axis : {plot()->xAxis, plot()->yAxis})
        axis->grid()->setVisible(false);
    plot()->xAxis->setLabel(timeTitle);
    useCategoryAxis(plot()->yAxis, stageTitle, 0);
    plot()->yAxis->setRangeReversed(true);

    m_blocks = new TimelineBlocks(plot()->xAxis, plot()->yAxis);
    m_blocks->timeline = &m_timeline;
    m_blocks->removeFromLegend();

    const std::pair<TimelineBlocks::Legend, const char *> entries[] = {
        // Each micro-batch has its colour (the number on its blocks); the shade says
        // which pass: light forward, dark backward.
        {TimelineBlocks::Legend::Forward, "F  forward (light)"},
        {TimelineBlocks::Legend::Backward, "B  backward (dark)"},
        {TimelineBlocks::Legend::Weight, "W  weight gradient"},
        {TimelineBlocks::Legend::Bubble, "Bubble (idle)"}};
    for (const auto &[kind, name] : entries) {
        auto *entry = new TimelineBlocks(plot()->xAxis, plot()->yAxis, kind);
        entry->setName(QString::fromUtf8(name));
        m_legendEntries.push_back(entry);
    }

    m_playheadLine = new QCPItemStraightLine(plot());
    m_playheadLine->setSelectable(false);

    // What the playhead changes lives on its own buffered layer: a frame redraws only that
    // layer (QCPLayer::replot), not the axes and legend.
    m_live = addLiveLayer(plot());
    m_blocks->setLayer(m_live);
    m_playheadLine->setLayer(m_live);
    m_message = addPlotMessage(plot());

    // Legend in a row above the axis rect, so it never covers a block; fixed left and
    // right margins, shared with StageMemoryChart.
    placeLegendAbove(plot(), 8, 24, 2);
    alignTimeAxis(plot());
    plot()->setNoAntialiasingOnDrag(true);
    setChartStyle(chartStyle());

    // The margins are fixed: stage labels and titles are chosen once the axis rect is laid
    // out, on screen or for an export.
    plot()->setMouseTracking(true);
    connect(plot(), &QCustomPlot::mousePress, this, &TimelineView::handleMouse);
    connect(plot(), &QCustomPlot::mouseMove, this, [this](QMouseEvent *event) {
        if (event->buttons() & Qt::LeftButton)
            handleMouse(event);
        else
            showTooltip(event);
    });

    setTimeline(Timeline{});
}

void TimelineView::applyStageTicks(int stride, bool numbers)
{
    m_stageStride = stride;
    m_stageNumbers = numbers;
    auto ticker = plot()->yAxis->ticker().staticCast<QCPAxisTickerText>();
    ticker->clear();
    const int p = int(m_timeline.stages.size());
    for (int i = 0; i < p; i += stride)
        ticker->addTick(i, numbers ? QString::number(i) : QStringLiteral("Stage %1").arg(i));
}

void TimelineView::fitText()
{
    QCPAxis *y = plot()->yAxis;
    const QRect area = plot()->axisRect()->rect();
    const int p = int(m_timeline.stages.size());
    bool changed = false;
    if (p > 0 && area.height() > 0) {
        // Every stride-th row labelled, rows far enough apart for the labels' height: 1, 2,
        // 4, 5, 10, 20, 25, 50, ... rows.
        const QFontMetrics ticks(y->tickLabelFont());
        const double row = double(area.height()) / p;
        static constexpr std::array strides = {1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500};
        std::size_t k = 0;
        while (strides[k] * row < ticks.height() + 2 && strides[k] < p && k + 1 < strides.size())
            ++k;
        const int stride = strides[k];
        // The labels and the title in the fixed left margin: "Stage 12" under "Pipeline
        // stage (GPU)" or "Stage (GPU)", else numbers under one of them, else no title.
        const QFontMetrics titleMetrics(y->labelFont());
        const auto widest = [&](bool numbers) {
            int w = 0;
            for (int i = 0; i < p; i += stride)
                w = std::max(w, ticks
                                    .boundingRect(numbers ? QString::number(i)
                                                          : QStringLiteral("Stage %1").arg(i))
                                    .width());
            return w;
        };
        const int ticksWidth = std::max(0, y->tickLengthOut()) + y->tickLabelPadding() + 2;
        const int room = area.left() - plot()->viewport().left();
        const QString none;
        const std::pair<bool, const QString *> choices[] = {
            {false, &stageTitle}, {false, &shortStageTitle},
            {true, &stageTitle},  {true, &shortStageTitle},
            {false, &none},       {true, &none}};
        QString title;
        bool numbers = true; // when nothing fits, the shortest
        for (const auto &[n, candidate] : choices) {
            const int titleWidth =
                candidate->isEmpty() ? 0 : y->labelPadding() + titleMetrics.height();
            if (titleMetrics.horizontalAdvance(*candidate) <= area.height() &&
                ticksWidth + widest(n) + titleWidth <= room) {
                numbers = n;
                title = *candidate;
                break;
            }
        }
        if (stride != m_stageStride || numbers != m_stageNumbers) {
            applyStageTicks(stride, numbers);
            changed = true;
        }
        if (title != y->label())
            y->setLabel(title);
    } else if (y->label() != stageTitle) {
        y->setLabel(stageTitle);
    }
    const QStringList timeTitles =
        m_secondsPerUnit > 0 ? QStringList{QStringLiteral("Time (s)"), QStringLiteral("s")}
                             : QStringList{timeTitle, QStringLiteral("Time (forward passes)"),
                                           QStringLiteral("Time")};
    // Unlabelled, the axis keeps its line and ticks; the chart under it names the time.
    QCPAxis *x = plot()->xAxis;
    if (x->tickLabels() != m_timeAxisLabelled) {
        x->setTickLabels(m_timeAxisLabelled);
        changed = true;
    }
    if (!m_timeAxisLabelled && !x->label().isEmpty()) {
        x->setLabel(QString());
        changed = true;
    }
    if ((m_timeAxisLabelled && fitAxisTitle(x, timeTitles)) || changed)
        relayoutPlot(plot());
    if (clearAxisCorner(plot()))
        relayoutPlot(plot());
}

void TimelineView::setSecondsPerUnit(double seconds)
{
    if (setTimeAxisSeconds(plot()->xAxis, seconds, &m_secondsPerUnit, timeTitle))
        plot()->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setTimeAxisLabelled(bool labelled)
{
    if (labelled == m_timeAxisLabelled)
        return;
    m_timeAxisLabelled = labelled;
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::restyle()
{
    const ChartStyle &st = chartStyle();
    applyAxisStyle(plot(), st, font(), 13);
    m_blocks->labelFont = st.font(font(), 12, true);
    m_blocks->chunkFont = st.font(font(), 10, true);
    const auto [lines, fill] = bubbleColors(st);
    TimelineBlocks::Look look;
    look.bubble = Hatch::make(lines, fill, 10, 1.6, false);
    look.bubbleBorder = st.isDark() ? lines : QColor(0xBB, 0xBB, 0xBB);
    look.outline = st.isDark() ? mixColors(st.ink, st.background, 0.45) : QColor(0, 0, 0, 55);
    look.canvas = st.background;
    m_blocks->look = look;
    for (QCPAbstractPlottable *entry : m_legendEntries)
        static_cast<TimelineBlocks *>(entry)->look = look;
    ++m_blocks->version; // the cached images hold the old colours
    m_playheadLine->setPen(playheadPen(st));
    styleMessage(m_message, st, font());
    styleLegend(plot(), st, font(), 13, QSize(40, 20));
    // Legend row and time axis grow with the type; the rows keep 130 px (240 px at 1x).
    setMinimumHeight(int(110 * st.fontScale) + 130);
}

TimelineView::~TimelineView() = default;

void TimelineView::setTimeline(const Timeline &t)
{
    const bool atEnd = m_timeline.makespan <= 0 || m_playhead >= m_timeline.makespan;
    m_timeline = t;
    const int ops = blockCount();
    m_drawable = t.valid() && !t.stages.empty() && ops <= maxDrawnOperations;
    m_blocks->drawable = m_drawable;
    ++m_blocks->version;

    if (!t.valid())
        m_message->setText(QStringLiteral("Cannot schedule:\n") + QString::fromStdString(t.error));
    else if (t.stages.empty())
        m_message->setText(QStringLiteral("No timeline"));
    else
        m_message->setText(QStringLiteral("%1 operations: too many to draw (at most %2)")
                               .arg(ops)
                               .arg(maxDrawnOperations));
    m_message->setVisible(!m_drawable);

    const int p = int(t.stages.size());
    bool hasWeight = false, split = false;
    for (const StageTimeline &st : t.stages)
        for (const PipelineOp &op : st.ops) {
            hasWeight = hasWeight || op.kind == OpKind::BackwardWeight;
            split = split || op.kind == OpKind::BackwardInput;
        }
    m_legendEntries[1]->setName(split ? QStringLiteral("B  input gradient (dark)")
                                      : QStringLiteral("B  backward (dark)"));
    if (hasWeight)
        addToLegend(m_legendEntries[2]);
    else
        m_legendEntries[2]->removeFromLegend();
    for (int k : {0, 1, 3})
        if (!plot()->legend->hasItemWithPlottable(m_legendEntries[k]))
            addToLegend(m_legendEntries[k]);
    // Keep the legend order F, B, W, bubble.
    if (hasWeight && plot()->legend->hasItemWithPlottable(m_legendEntries[3])) {
        m_legendEntries[3]->removeFromLegend();
        addToLegend(m_legendEntries[3]);
    }

    // Until the layout measures the rows (fitText()): at most 16 labels.
    applyStageTicks(p <= 16 ? 1 : (p + 15) / 16, false);
    plot()->yAxis->setRange(-0.5, std::max(1, p) - 0.5);
    const double span = m_drawable ? t.makespan : 1;
    // 1 % to spare on the right, so the playhead at the end of the step stays visible.
    plot()->xAxis->setRange(0, span * 1.01);

    m_playhead = atEnd ? t.makespan : std::clamp(m_playhead, 0.0, std::max(0.0, t.makespan));
    m_blocks->playhead = m_playhead;
    m_playheadLine->setVisible(m_drawable);
    placeVerticalLine(m_playheadLine, m_playhead);
    plot()->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::setPlayhead(double time)
{
    if (!std::isfinite(time))
        time = 0;
    m_playhead = std::clamp(time, 0.0, std::max(0.0, m_timeline.makespan));
    m_blocks->playhead = m_playhead;
    placeVerticalLine(m_playheadLine, m_playhead);
    m_live->replot();
}

int TimelineView::blockCount() const
{
    std::size_t n = 0;
    for (const StageTimeline &st : m_timeline.stages)
        n += st.ops.size();
    return int(std::min<std::size_t>(n, std::size_t(INT32_MAX)));
}

int TimelineView::blockCount(int stage) const
{
    return stage >= 0 && stage < int(m_timeline.stages.size())
               ? int(m_timeline.stages[stage].ops.size())
               : 0;
}

int TimelineView::startedBlockCount() const
{
    int n = 0;
    for (const StageTimeline &st : m_timeline.stages)
        for (const PipelineOp &op : st.ops)
            n += op.start < m_playhead ? 1 : 0;
    return n;
}

QRectF TimelineView::blockRect(int stage, int index) const
{
    if (index < 0 || index >= blockCount(stage))
        return {};
    return m_blocks->rectOf(m_timeline.stages[stage].ops[index]);
}

QRectF TimelineView::filledRect(int stage, int index) const
{
    if (index < 0 || index >= blockCount(stage))
        return {};
    return m_blocks->filledOf(m_timeline.stages[stage].ops[index]);
}

QColor TimelineView::blockColor(int stage, int index) const
{
    if (index < 0 || index >= blockCount(stage))
        return {};
    const PipelineOp &op = m_timeline.stages[stage].ops[index];
    return operationColor(op.kind, op.microBatch);
}

QString TimelineView::blockLabel(int stage, int index) const
{
    if (index < 0 || index >= blockCount(stage))
        return {};
    const PipelineOp &op = m_timeline.stages[stage].ops[index];
    bool chunked = false;
    for (const PipelineOp &o : m_timeline.stages[stage].ops)
        chunked = chunked || o.chunk > 0;
    return chunked ? QStringLiteral("%1 c%2").arg(op.microBatch + 1).arg(op.chunk + 1)
                   : QString::number(op.microBatch + 1);
}

QString TimelineView::tooltipAt(const QPointF &pos) const
{
    if (!m_drawable || !plot()->axisRect()->rect().contains(pos.toPoint()))
        return {};
    const double row = plot()->yAxis->pixelToCoord(pos.y());
    const int stage = int(std::lround(row));
    if (stage < 0 || stage >= int(m_timeline.stages.size()) ||
        std::abs(row - stage) > rowHalfHeight)
        return {};
    const double time = plot()->xAxis->pixelToCoord(pos.x());
    const auto &ops = m_timeline.stages[stage].ops;
    auto it = std::upper_bound(ops.begin(), ops.end(), time,
                               [](double t, const PipelineOp &op) { return t < op.start; });
    if (it == ops.begin())
        return {};
    const PipelineOp &op = *(it - 1);
    if (time > op.end)
        return QStringLiteral("Stage %1 idle (bubble)").arg(stage);
    const char *kinds[] = {"forward", "backward", "input-gradient backward", "weight gradient"};
    QString text = QStringLiteral("Stage %1: %2 %3 of micro-batch %4")
                       .arg(stage)
                       .arg(QString::fromUtf8(opKindLabel(op.kind).data(),
                                              qsizetype(opKindLabel(op.kind).size())))
                       .arg(QString::fromUtf8(kinds[int(op.kind)]))
                       .arg(op.microBatch + 1);
    if (blockLabel(stage, int(it - ops.begin()) - 1).contains(QLatin1Char('c')))
        text += QStringLiteral(", chunk %1").arg(op.chunk + 1);
    text += QStringLiteral("\ntime %1 to %2").arg(op.start, 0, 'g', 6).arg(op.end, 0, 'g', 6);
    return text;
}

QColor TimelineView::microBatchColor(int microBatch)
{
    return okabeIto()[paletteIndex(microBatch)];
}

QColor TimelineView::operationColor(OpKind kind, int microBatch)
{
    const QColor base = microBatchColor(microBatch);
    switch (kind) {
    case OpKind::Forward:
        return mixColors(base, Qt::white, 0.42);
    case OpKind::Backward:
    case OpKind::BackwardInput:
        return base;
    case OpKind::BackwardWeight:
        return mixColors(base, Qt::white, 0.35);
    }
    return base;
}

QColor TimelineView::bubbleColor()
{
    return QColor(0xBD, 0xBD, 0xBD);
}

std::pair<QColor, QColor> TimelineView::bubbleColors(const ChartStyle &style)
{
    if (!style.isDark())
        return {bubbleColor(), QColor(0xF3, 0xF3, 0xF3)};
    return {mixColors(style.ink, style.background, 0.30),
            mixColors(style.ink, style.background, 0.07)};
}

void TimelineView::handleMouse(QMouseEvent *event)
{
    if (!m_drawable || !(event->buttons() & Qt::LeftButton))
        return;
    if (!plot()->axisRect()->rect().contains(event->pos()))
        return;
    emit seekRequested(plot()->xAxis->pixelToCoord(event->position().x()));
}

void TimelineView::showTooltip(QMouseEvent *event)
{
    showPlotTooltip(plot(), event, tooltipAt(event->position()));
}

} // namespace shardscope
