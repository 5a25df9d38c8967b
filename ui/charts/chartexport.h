#pragma once

#include "scenario.h"

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <optional>

class QCustomPlot;
class QWidget;

namespace shardscope {

// Exporting charts for slides (the machinery behind ChartView's slides, chartview.h): PNG (any
// size, e.g. 1920x1080 or 3840x2160), SVG and PDF, or the clipboard, each with a title above and a
// one-line caption of the settings below.
//
// A chart is laid out as it would be on a screen of exportLayoutSize(size) (720
// logical pixels high for a 1080p or 4K slide) and then magnified to the requested
// size, so an export looks like the window does, with type large enough for a
// projector: MemoryChart's 12 pt tick labels become 24 px at 1920x1080 and 48 px at
// 3840x2160. SVG uses the requested size as its viewBox; a PDF page is the layout
// size at 96 dpi (1280x720 px = 960x540 pt, a 16:9 slide) and stays vector.

/// Export file formats.
enum class ExportFormat
{
    Png,
    Svg,
    Pdf
};

/// The format a file name asks for by its suffix (.png, .svg, .pdf; any case);
/// nullopt for anything else.
std::optional<ExportFormat> exportFormatFor(const QString &fileName);

/// What surrounds the chart in an export.
struct ExportOptions
{
    QSize size{1920, 1080}; ///< output pixels (PNG, clipboard), SVG viewBox, PDF aspect
    QString title;          ///< one line above the chart; none when empty
    QString caption;        ///< one line below it, normally scenarioCaption(); none when empty
};

/// Smallest and largest export sizes accepted. Below 480 pixels wide the memory chart's
/// seven legend rows take one column and overlap the bars (an export at 320x320, checked
/// by eye); 480x320 keeps two columns and every label legible.
inline constexpr int minExportWidth = 480;
inline constexpr int minExportHeight = 320;
inline constexpr int maxExportSide = 8192;

/// How much the layout is magnified: size.height() / 720, at least 1.
double exportScale(QSize size);
/// The logical size the chart is laid out at: size / exportScale(size), rounded.
QSize exportLayoutSize(QSize size);

/// One line naming the settings behind a chart: model and parameters, GPUs and
/// card, layout, strategy (and offload), recipe, and the batch shape and
/// recomputation (or "model states only"), joined by " · ", e.g.
/// "70B params (plain count) · 64 × H100 80 GB · d 64 · ZeRO-3 / FSDP ·
/// Mixed-precision AdamW, 16 B/param · model states only" or "Llama 3 70B (70.6B
/// params) · 64 × H100 80 GB · t 8, p 4, d 2 · ZeRO-1 · ... · b 1, s 4096, m 16,
/// 1F1B, selective recompute".
QString scenarioCaption(const Scenario &s);

/// Renders a QCustomPlot at exactly options.size pixels: deselects everything, adds
/// the title and caption as layout rows, draws, and removes them again.
QImage renderPlot(QCustomPlot *plot, const ExportOptions &options);
/// Renders any widget (e.g. the timeline panel) at its current size, scaled to fit
/// between the title and caption bands, into exactly options.size pixels.
QImage renderWidget(QWidget *widget, const ExportOptions &options);

/// Writes a QCustomPlot to `fileName` in the format its suffix names. Files are
/// replaced atomically (QSaveFile). False plus a one-line `*error` on failure.
bool exportPlot(QCustomPlot *plot, const QString &fileName, const ExportOptions &options,
                QString *error);
/// Writes any widget to `fileName` in the format its suffix names (as exportPlot).
bool exportWidget(QWidget *widget, const QString &fileName, const ExportOptions &options,
                  QString *error);

/// The SVG document exportPlot() writes to a .svg file, in memory (for a page that holds the
/// chart inline, htmlexport.h); empty when it cannot be drawn.
QByteArray plotSvg(QCustomPlot *plot, const ExportOptions &options);
/// The SVG document exportWidget() writes to a .svg file, in memory; empty on failure.
QByteArray widgetSvg(QWidget *widget, const ExportOptions &options);

} // namespace shardscope
