#pragma once

#include "palette.h"

#include <QPalette>

class QWidget;

namespace shardscope {

/// A view that draws in a ChartStyle: every plot of the window (MemoryChart,
/// CompareChart, TimelineView, StageMemoryChart, LivePanel, BreakdownView) and the
/// panels that hold plots (TimelinePanel). One interface, so that a theme or presentation
/// mode reaches all of them through applyChartStyle().
class StyledView
{
public:
    virtual ~StyledView() = default;

    /// Draws from now on in `style`: canvas and ink colours, grid, every font at its point
    /// size x style.fontScale and every pen x style.lineScale; redraws (queued). A view
    /// that holds other StyledViews passes the style on to them.
    virtual void setChartStyle(const ChartStyle &style) = 0;

protected:
    StyledView() = default;
    StyledView(const StyledView &) = default;
    StyledView &operator=(const StyledView &) = default;
};

/// Applies `style` to `root` when it is a StyledView, else to every StyledView among its
/// descendants, outermost first: a StyledView inside another one is left to its owner,
/// which passes the style on (so each view is styled once). Hidden views are styled too.
/// Returns how many views it called setChartStyle() on; 0 for a null root.
int applyChartStyle(QWidget *root, const ChartStyle &style);

/// The palette of a panel around plots in `style`: window and input fields in the canvas
/// colour (fields a step towards the ink on a dark canvas), text in the ink, buttons a
/// step off the canvas, disabled text halfway between ink and canvas. Highlight and the
/// roles not named keep `base`'s colours.
QPalette chartPalette(const QPalette &base, const ChartStyle &style);

/// Gives `panel` chartPalette(panel's palette, style) and fills its background with it,
/// so a panel of plots shows the canvas colour edge to edge.
void applyPanelStyle(QWidget *panel, const ChartStyle &style);

} // namespace shardscope
