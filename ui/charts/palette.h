#pragma once

#include "memoryreport.h"

#include <QColor>
#include <QFont>
#include <QPalette>

class QCustomPlot;

namespace shardscope {

/// Colours of the memory components, from the Okabe-Ito colour-blind-safe palette
/// (Okabe and Ito 2008, "Color Universal Design"). Chart and legend share them.
QColor componentColor(Component c);
/// Hatch colour for the part of a bar above the capacity line (Okabe-Ito vermillion).
QColor overflowColor();
/// A measured run's line (a snapshot's peak on the memory chart, its trace on the stage
/// chart): Okabe-Ito vermillion, apart from the capacity line's ink and from viridis'
/// stage ramp; on a dark canvas (`dark`) a lighter tint of it (#E68E4D, 6:1 on #121418).
QColor measuredColor(bool dark);
/// Verdict banner backgrounds: a green that reads on projectors, and a red.
QColor fitsColor();
QColor overflowsColor();
/// `a` x share + `b` x (1 - share), channel by channel in sRGB (share in 0..1): tints
/// and blends of the palette, e.g. mixColors(c, Qt::white, 0.4) is a light tint of c.
QColor mixColors(const QColor &a, const QColor &b, double share);

/// The window's dark theme: near-black canvas (#1E2025), light text (#EEEEEE), sky-blue
/// highlight (Okabe-Ito #56B4E9). The light theme is the style's standard palette.
QPalette darkWindowPalette();

/// How charts look: colours of the canvas and ink, and how much larger type and
/// lines are drawn (presentation mode: readable from the back of a room).
struct ChartStyle
{
    QColor background = Qt::white;   ///< plot canvas
    QColor ink = QColor(25, 25, 25); ///< text, axes, capacity line
    QColor grid = QColor(225, 225, 225);
    QColor barOutline = Qt::white; ///< gap between stacked parts
    /// Messages drawn on the canvas ("Cannot draw this layout"): overflowsColor() on
    /// light, a light red on dark (8:1 on the dark canvas, WCAG 2.1 AA for text).
    QColor alert = QColor(0xB3, 0x26, 0x1E);
    double fontScale = 1.0; ///< multiplies every point size
    double lineScale = 1.0; ///< multiplies every pen width

    /// The default light look.
    static ChartStyle light();
    /// A dark look: near-black canvas, light ink (same component colours).
    static ChartStyle dark();
    /// Presentation mode: high contrast, type 1.5x and lines 1.6x, light or dark.
    static ChartStyle presentation(bool darkTheme);

    /// `base` at `points` x fontScale, bold or not.
    QFont font(const QFont &base, double points, bool bold = false) const;
    /// True when the canvas is dark (HSL lightness under 50 %): colours that were chosen
    /// for white paper (black, the darkest end of a ramp) switch to their dark variants.
    bool isDark() const { return background.lightness() < 128; }
};

/// Applies a style to a plot's canvas and both bottom/left axes: background, ink
/// for labels, axis and tick pens scaled by lineScale, grid colour, and fonts
/// (`tickPoints` pt tick labels, 14 pt bold axis titles, scaled by fontScale). Shared
/// by every QCustomPlot chart so they all change look together.
void applyAxisStyle(QCustomPlot *plot, const ChartStyle &style, const QFont &base,
                    double tickPoints = 12);

/// Moves the plot's legend into a row of its own above the axis rect, so it never
/// covers the data: borderless, filled column by column, at most `wrap` entries per row
/// and fewer when they would not fit the plot's width (fitLegendColumns() before every
/// replot), `columnSpacing` pixels apart, `verticalMargin` pixels above and below. Font
/// and icon size stay the caller's. Before every replot QCustomPlot's plain entries are
/// swapped for ones that remember their size (useMeasuredLegendEntries(), chartparts.h).
void placeLegendAbove(QCustomPlot *plot, int wrap, int columnSpacing, int verticalMargin = 4);

/// How many columns as wide as the legend's widest entry fit the plot's width (viewport
/// less the legend's margins, entries `columnSpacing` apart), 0 or more; -1 when the
/// legend is empty.
int legendColumnsThatFit(QCustomPlot *plot);

/// Sets the legend's columns to as many of its widest entry as fit the plot's width
/// (legendColumnsThatFit()), between 1 and `most`, and re-flows the entries.
void fitLegendColumns(QCustomPlot *plot, int most);

} // namespace shardscope
