#pragma once

#include <QResizeEvent>
#include <qcustomplot.h>

namespace shardscope {

/// The QCustomPlot every chart draws in: the same widget, except that it ignores a resize to
/// an empty size. QCustomPlot::resizeEvent() replots at once, and at 0 x h or w x 0 its paint
/// buffers are null pixmaps, so Qt warns "QPainter::begin: Paint device returned engine ==
/// 0" for each layer (a tab's plot is laid out at zero height before the tab is shown, as
/// when a lesson starts at 1280 x 720). The next non-empty resize sets the viewport and
/// replots as before.
class PlotWidget : public QCustomPlot
{
public:
    using QCustomPlot::QCustomPlot;

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        if (event->size().isEmpty()) {
            QWidget::resizeEvent(event); // NOLINT(bugprone-parent-virtual-call): skip the replot
            return;
        }
        QCustomPlot::resizeEvent(event);
    }
};

} // namespace shardscope
