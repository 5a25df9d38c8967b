#pragma once

#include "chartexport.h"
#include "chartstyle.h"

#include <QImage>
#include <QWidget>

class QCustomPlot;

namespace shardscope {

/// The one base of every chart of the window and of `shardscope export --chart`: it owns
/// the plot, the style, the text-fitting pass after each layout, and the slide (export to
/// PNG, SVG or PDF, copy to the clipboard), so that a chart only builds its plottables,
/// styles them and fits its text.
///
/// Two kinds: a plot chart (MemoryChart, CompareChart, ...) owns a QCustomPlot filling
/// the widget, made by the base, and its slide is that plot (renderPlot(), chartexport.h);
/// a panel chart (TimelinePanel) holds other widgets and its slide is the whole widget
/// (renderWidget()), drawn between beginSlide() and endSlide() so that it can hide its
/// live controls. A slide is the same picture from the window's File > Export chart, Copy
/// chart and the command line (ui/charts/chartregistry.h).
class ChartView : public QWidget, public StyledView
{
    Q_OBJECT
public:
    /// The plot this chart draws in; null for a panel chart.
    QCustomPlot *plot() const { return m_plot; }

    /// Draws from now on in `style`: stores it, calls restyle() and queues a replot of
    /// plot() (StyledView's one entry point; a theme reaches every chart through it).
    void setChartStyle(const ChartStyle &style) final;
    /// The current look.
    const ChartStyle &chartStyle() const { return m_style; }

    /// The slide: exactly options.size pixels with the title above and the caption below
    /// (chartexport.h), the chart laid out at exportLayoutSize(options.size).
    QImage renderSlide(const ExportOptions &options);
    /// Writes the slide to `fileName` in the format its suffix names (.png, .svg, .pdf),
    /// atomically. False plus a one-line `*error` when the file cannot be written.
    bool exportSlide(const QString &fileName, const ExportOptions &options, QString *error);
    /// The slide as an SVG document in memory, the picture exportSlide() writes to a .svg
    /// file; empty when it cannot be drawn.
    QByteArray slideSvg(const ExportOptions &options);
    /// Puts renderSlide(options) on the clipboard as an image.
    void copySlide(const ExportOptions &options);

protected:
    /// A plot chart: makes the QCustomPlot, fills the widget with it (at least
    /// `minimumPlotSize` logical pixels) and runs fitText() after each of its layouts.
    ChartView(QSize minimumPlotSize, QWidget *parent);
    /// A panel chart: no plot of its own; its slide is the whole widget.
    explicit ChartView(QWidget *parent);

    /// What a panel chart's slide shows.
    enum class Slide
    {
        Plot,  ///< its plot alone (the Plan tab's ranking)
        Widget ///< the whole panel (the Live tab's plot beside its status)
    };
    /// For a panel chart that made its own `plot` (a child widget): plot() returns it,
    /// fitText() runs after each of its layouts, and `slide` says what a slide shows.
    void adoptPlot(QCustomPlot *plot, Slide slide);

    /// Applies chartStyle() to the chart's plottables, fonts and pens (and passes it on to
    /// the charts it holds). Called by setChartStyle(); a plot chart's replot follows.
    virtual void restyle() = 0;
    /// Fits the text to the pixels after each layout of plot() (value ticks, labels, axis
    /// titles, totals), on screen and in exports. Never called from inside itself: a
    /// relayoutPlot() here does not call it again. Does nothing by default.
    virtual void fitText() {}
    /// A panel chart hides what a slide should not show (live controls) ...
    virtual void beginSlide() {}
    /// ... and shows it again after the slide is drawn.
    virtual void endSlide() {}

    /// True when plot() has been laid out with real pixels (hasRealGeometry(), chartparts.h)
    /// and its axis rect is not empty: what most fitText() passes need first.
    bool plotLaidOut() const;
    /// The widget font at `points` x the style's font scale (bold when asked).
    QFont scaledFont(double points, bool bold = false) const;
    /// Watches plot() for its Show event: a plot laid out while it was not on screen (a
    /// hidden tab restyled by presentation mode or a theme, then shown) is laid out again
    /// there, so fitText() runs on the pixels it is shown at. Returns false (the event goes on).
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    /// fitText() behind the re-entrance guard.
    void runFitText();

    QCustomPlot *m_plot = nullptr;
    Slide m_slide = Slide::Widget;
    ChartStyle m_style;
    bool m_fitting = false; ///< inside fitText()
    /// The plot's last layout for the screen ran while it was not shown: fitText() could
    /// not fit it (plotLaidOut() is false there), so the Show event lays it out again.
    bool m_unfitted = false;
};

} // namespace shardscope
