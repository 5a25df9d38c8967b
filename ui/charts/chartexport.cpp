#include "chartexport.h"

#include "chartparts.h"
#include "format.h"
#include "qtext.h"
#include "scenariofile.h"

#include <QBuffer>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>
#include <functional>
#include <qcustomplot.h>
#include <utility>
#include <vector>

namespace shardscope {

namespace {

/// Logical height a slide is laid out at: a 1280x720 screen, magnified.
constexpr double layoutHeight = 720;

/// Draws the content into a painter whose coordinates are `logical` pixels.
using PaintFn = std::function<void(QCPPainter &painter, QSize logical)>;

QImage rasterize(const PaintFn &paint, QSize size, const QColor &background)
{
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(background);
    const QSize logical = exportLayoutSize(size);
    QCPPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(size.width() / double(logical.width()), size.height() / double(logical.height()));
    paint(painter, logical);
    painter.end();
    return image;
}

/// The SVG document of `paint` at o.size (the viewBox), drawn into memory; empty when the
/// painter cannot start or finish.
QByteArray svgBytes(const PaintFn &paint, const ExportOptions &o)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(o.size);
    svg.setViewBox(QRect(QPoint(0, 0), o.size));
    svg.setResolution(96); // as the screen and QImage: point sizes map to the same pixels
    svg.setTitle(o.title);
    svg.setDescription(o.caption);
    const QSize logical = exportLayoutSize(o.size);
    QCPPainter painter;
    if (!painter.begin(&svg))
        return {};
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(o.size.width() / double(logical.width()),
                  o.size.height() / double(logical.height()));
    paint(painter, logical);
    if (!painter.end())
        return {};
    return buffer.data();
}

// Drawn into memory first: QSvgGenerator writes through a QTextStream and reports
// success however its device fails, so on a full disk the export said "Unknown error"
// (review finding F13). The bytes then go out with writeAllBytes(), which records the reason.
bool writeSvg(const PaintFn &paint, QSaveFile &file, const ExportOptions &o)
{
    const QByteArray bytes = svgBytes(paint, o);
    return !bytes.isEmpty() && writeAllBytes(file, bytes);
}

bool writePdf(const PaintFn &paint, QSaveFile &file, const ExportOptions &o)
{
    const QSize logical = exportLayoutSize(o.size);
    QPdfWriter pdf(&file);
    pdf.setCreator(QStringLiteral("ShardScope"));
    pdf.setTitle(o.title);
    pdf.setResolution(96);
    // The layout size at 96 dpi, in points: 1280x720 px is a 960x540 pt (16:9) slide.
    pdf.setPageSize(
        QPageSize(QSizeF(logical) * 0.75, QPageSize::Point, QString(), QPageSize::ExactMatch));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    QCPPainter painter;
    if (!painter.begin(&pdf))
        return false;
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.scale(pdf.width() / double(logical.width()), pdf.height() / double(logical.height()));
    paint(painter, logical);
    return painter.end();
}

bool writeFile(const PaintFn &paint, const QString &fileName, const ExportOptions &o,
               const QColor &background, QString *error)
{
    const auto format = exportFormatFor(fileName);
    if (!format) {
        *error = QStringLiteral("%1: the file name must end in .png, .svg or .pdf")
                     .arg(QFileInfo(fileName).fileName());
        return false;
    }
    if (o.size.width() < minExportWidth || o.size.height() < minExportHeight ||
        o.size.width() > maxExportSide || o.size.height() > maxExportSide) {
        *error = QStringLiteral("export size %1x%2 is outside %3x%4 to %5x%5 pixels")
                     .arg(o.size.width())
                     .arg(o.size.height())
                     .arg(minExportWidth)
                     .arg(minExportHeight)
                     .arg(maxExportSide);
        return false;
    }
    return writeFileAtomically(
        fileName,
        [&](QSaveFile &file) {
            switch (*format) {
            case ExportFormat::Png:
                return rasterize(paint, o.size, background).save(&file, "PNG");
            case ExportFormat::Svg:
                return writeSvg(paint, file, o);
            case ExportFormat::Pdf:
                return writePdf(paint, file, o);
            }
            return false;
        },
        error);
}

QFont withPointSize(QFont f, double points, bool bold)
{
    f.setPointSizeF(points);
    f.setBold(bold);
    return f;
}

/// Shrinks `font` (to at most 25 % smaller) until `text` fits `width` logical
/// pixels, then elides what still does not fit. Metrics at 96 dpi, as rendered.
QString fitLine(const QString &text, QFont *font, double width)
{
    static const QImage ruler(1, 1, QImage::Format_ARGB32_Premultiplied);
    const double original = font->pointSizeF();
    while (QFontMetricsF(*font, &ruler).horizontalAdvance(text) > width &&
           font->pointSizeF() > original * 0.75)
        font->setPointSizeF(font->pointSizeF() - 0.25);
    return QFontMetricsF(*font, &ruler).elidedText(text, Qt::ElideRight, width);
}

/// Adds the title and caption rows to a plot's layout for one export; removes
/// them (and restores the on-screen layout) when destroyed.
class PlotDecorations
{
public:
    PlotDecorations(QCustomPlot *plot, const ExportOptions &o) : m_plot(plot)
    {
        plot->deselectAll();
        const double width = exportLayoutSize(o.size).width() - 40;
        QCPLayoutGrid *grid = plot->plotLayout();
        if (!o.title.isEmpty()) {
            QFont f = withPointSize(plot->xAxis->labelFont(),
                                    plot->xAxis->labelFont().pointSizeF() * 1.45, true);
            const QString text = fitLine(o.title, &f, width);
            m_title = new QCPTextElement(plot, text, f);
            m_title->setTextColor(plot->xAxis->labelColor());
            m_title->setMargins(QMargins(20, 14, 20, 4));
            grid->insertRow(0);
            grid->addElement(0, 0, m_title);
            grid->setRowStretchFactor(0, 0.001);
        }
        if (!o.caption.isEmpty()) {
            QFont f = withPointSize(plot->xAxis->tickLabelFont(),
                                    plot->xAxis->tickLabelFont().pointSizeF(), false);
            const QString text = fitLine(o.caption, &f, width);
            m_caption = new QCPTextElement(plot, text, f);
            m_caption->setTextColor(plot->xAxis->tickLabelColor());
            m_caption->setMargins(QMargins(20, 6, 20, 10));
            const int row = grid->rowCount();
            grid->insertRow(row);
            grid->addElement(row, 0, m_caption);
            grid->setRowStretchFactor(row, 0.001);
        }
    }
    ~PlotDecorations()
    {
        QCPLayoutGrid *grid = m_plot->plotLayout();
        if (m_title)
            grid->remove(m_title);
        if (m_caption)
            grid->remove(m_caption);
        grid->simplify();
        m_plot->replot(); // lay the plot out for its on-screen size again
    }
    PlotDecorations(const PlotDecorations &) = delete;
    PlotDecorations &operator=(const PlotDecorations &) = delete;

private:
    QCustomPlot *m_plot;
    QCPTextElement *m_title = nullptr;
    QCPTextElement *m_caption = nullptr;
};

PaintFn plotPainter(QCustomPlot *plot)
{
    return [plot](QCPPainter &painter, QSize logical) {
        plot->toPainter(&painter, logical.width(), logical.height());
    };
}

PaintFn widgetPainter(QWidget *widget, const ExportOptions &o)
{
    return [widget, o](QCPPainter &painter, QSize logical) {
        const QColor background = widget->palette().color(QPalette::Window);
        const QColor ink = widget->palette().color(QPalette::WindowText);
        painter.fillRect(QRect(QPoint(0, 0), logical), background);
        const double width = logical.width() - 40;
        double top = 0, bottom = logical.height();
        static const QImage ruler(1, 1, QImage::Format_ARGB32_Premultiplied);
        // Sets the painter up for one line of `line` at `points` in the ink and returns it
        // fitted to the width, with its height in `*h`.
        const auto fitted = [&](const QString &line, int points, bool bold, double *h) {
            QFont f = withPointSize(widget->font(), points, bold);
            const QString text = fitLine(line, &f, width);
            *h = QFontMetricsF(f, &ruler).height();
            painter.setFont(f);
            painter.setPen(ink);
            return text;
        };
        if (!o.title.isEmpty()) {
            double h = 0;
            const QString text = fitted(o.title, 20, true, &h);
            painter.drawText(QRectF(20, 14, width, h), Qt::AlignCenter, text);
            top = 14 + h + 8;
        }
        if (!o.caption.isEmpty()) {
            double h = 0;
            const QString text = fitted(o.caption, 12, false, &h);
            bottom = logical.height() - 10 - h;
            painter.drawText(QRectF(20, bottom, width, h), Qt::AlignCenter, text);
            bottom -= 6;
        }
        const QSize source = widget->size();
        if (source.isEmpty() || bottom <= top)
            return;
        const double scale =
            std::min(logical.width() / double(source.width()), (bottom - top) / source.height());
        painter.save();
        painter.translate((logical.width() - source.width() * scale) / 2,
                          top + ((bottom - top) - source.height() * scale) / 2);
        painter.scale(scale, scale);
        // A QCustomPlot paints its cached pixmaps when rendered as a widget, so a PDF or
        // SVG would hold a raster image of it: the plots are left out of the widget's
        // render and drawn by QCustomPlot::toPainter() in vector form at their places.
        QRegion region(widget->rect());
        std::vector<std::pair<QCustomPlot *, QPoint>> plots;
        for (QCustomPlot *plot : widget->findChildren<QCustomPlot *>()) {
            if (!plot->isVisibleTo(widget) || plot->size().isEmpty())
                continue;
            const QPoint at = plot->mapTo(widget, QPoint(0, 0));
            region -= QRect(at, plot->size());
            plots.push_back({plot, at});
        }
        widget->render(&painter, QPoint(), region,
                       QWidget::DrawWindowBackground | QWidget::DrawChildren);
        for (const auto &[plot, at] : plots) {
            painter.save();
            painter.translate(at);
            painter.setClipRect(QRect(QPoint(0, 0), plot->size()));
            plot->toPainter(&painter, plot->width(), plot->height());
            painter.restore();
        }
        painter.restore();
    };
}

} // namespace

std::optional<ExportFormat> exportFormatFor(const QString &fileName)
{
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return ExportFormat::Png;
    if (suffix == QLatin1String("svg"))
        return ExportFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return ExportFormat::Pdf;
    return std::nullopt;
}

double exportScale(QSize size)
{
    return std::max(1.0, size.height() / layoutHeight);
}

QSize exportLayoutSize(QSize size)
{
    const double s = exportScale(size);
    return QSize(std::max(1, int(std::lround(size.width() / s))),
                 std::max(1, int(std::lround(size.height() / s))));
}

QString scenarioCaption(const Scenario &s)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    QStringList parts;
    const QString params = QString::fromStdString(formatParameters(s.model.parameters()));
    if (s.model.architecture)
        parts << QStringLiteral("%1 (%2 params)")
                     .arg(QString::fromStdString(s.model.displayName.empty() ? s.model.id
                                                                             : s.model.displayName),
                          params);
    else // a plain count has no name beyond its size
        parts << QStringLiteral("%1 params (plain count)").arg(params);
    parts << QStringLiteral("%1 × %2").arg(l.gpus).arg(cardName(s.gpu));
    QStringList layout;
    if (l.tensorParallel > 1)
        layout << QStringLiteral("t %1").arg(l.tensorParallel);
    if (l.pipelineParallel > 1)
        layout << QStringLiteral("p %1").arg(l.pipelineParallel);
    if (l.contextParallel > 1)
        layout << QStringLiteral("c %1").arg(l.contextParallel);
    layout << QStringLiteral("d %1").arg(l.dataParallel());
    if (l.hsdpShardSize > 0)
        layout << QStringLiteral("HSDP shard %1").arg(l.hsdpShardSize);
    parts << layout.join(QStringLiteral(", "));
    QString strategy = toQString(zeroStageName(l.zeroStage));
    if (l.offload != Offload::None)
        strategy += QStringLiteral(" + %1 offload").arg(toQString(offloadId(l.offload)));
    parts << strategy;
    const QString recipe = QString::fromStdString(s.recipe.displayName);
    parts << (recipe.contains(QLatin1String("B/param"))
                  ? recipe
                  : QStringLiteral("%1, %2 B/param")
                        .arg(recipe)
                        .arg(s.recipe.totalBytesPerParameter()));
    if (s.modelStatesOnly) {
        parts << QStringLiteral("model states only");
    } else {
        QStringList training;
        training << QStringLiteral("b %1").arg(t.microBatchSize)
                 << QStringLiteral("s %1").arg(t.sequenceLength)
                 << QStringLiteral("m %1").arg(t.microBatches);
        if (l.pipelineParallel > 1)
            training << toQString(pipelineScheduleName(t.schedule));
        training << QStringLiteral("%1 recompute").arg(toQString(recomputeId(t.recompute)));
        if (!t.flashAttention)
            training << QStringLiteral("no flash");
        parts << training.join(QStringLiteral(", "));
    }
    return parts.join(QStringLiteral(" · "));
}

QImage renderPlot(QCustomPlot *plot, const ExportOptions &options)
{
    const PlotDecorations decorations(plot, options);
    return rasterize(plotPainter(plot), options.size, Qt::white);
}

QImage renderWidget(QWidget *widget, const ExportOptions &options)
{
    return rasterize(widgetPainter(widget, options), options.size,
                     widget->palette().color(QPalette::Window));
}

bool exportPlot(QCustomPlot *plot, const QString &fileName, const ExportOptions &options,
                QString *error)
{
    const PlotDecorations decorations(plot, options);
    return writeFile(plotPainter(plot), fileName, options, Qt::white, error);
}

bool exportWidget(QWidget *widget, const QString &fileName, const ExportOptions &options,
                  QString *error)
{
    return writeFile(widgetPainter(widget, options), fileName, options,
                     widget->palette().color(QPalette::Window), error);
}

QByteArray plotSvg(QCustomPlot *plot, const ExportOptions &options)
{
    const PlotDecorations decorations(plot, options);
    return svgBytes(plotPainter(plot), options);
}

QByteArray widgetSvg(QWidget *widget, const ExportOptions &options)
{
    return svgBytes(widgetPainter(widget, options), options);
}

} // namespace shardscope
