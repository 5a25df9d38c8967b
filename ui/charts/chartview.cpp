#include "chartview.h"

#include "chartparts.h"
#include "plotwidget.h"

#include <QClipboard>
#include <QEvent>
#include <QGuiApplication>
#include <QScopedValueRollback>
#include <qcustomplot.h>

namespace shardscope {

namespace {

/// beginSlide() now, endSlide() when it goes out of scope.
template <typename Begin, typename End> class SlideScope
{
public:
    SlideScope(Begin begin, End end) : m_end(end) { begin(); }
    ~SlideScope() { m_end(); }
    SlideScope(const SlideScope &) = delete;
    SlideScope &operator=(const SlideScope &) = delete;

private:
    End m_end;
};

} // namespace

ChartView::ChartView(QSize minimumPlotSize, QWidget *parent) : QWidget(parent)
{
    auto *plot = new PlotWidget(this);
    fillWithPlot(this, plot, minimumPlotSize);
    adoptPlot(plot, Slide::Plot);
}

ChartView::ChartView(QWidget *parent) : QWidget(parent) {}

void ChartView::adoptPlot(QCustomPlot *plot, Slide slide)
{
    m_plot = plot;
    m_slide = slide;
    // Every layout, on screen or for an export, fits the text to the pixels it has.
    connect(m_plot, &QCustomPlot::afterLayout, this, &ChartView::runFitText);
    // A layout while hidden cannot fit: the Show event lays the plot out again.
    m_plot->installEventFilter(this);
}

bool ChartView::eventFilter(QObject *watched, QEvent *event)
{
    // Qt sends a widget's pending resize before it is visible (QWidget::show()), so a tab
    // shown with no redraw of its own (only restyled while hidden: F5 on another tab) was
    // last laid out, at its real size, when fitText() could not run. Lay it out again now,
    // before its first paint.
    if (watched == m_plot && event->type() == QEvent::Show && m_unfitted)
        m_plot->replot(QCustomPlot::rpQueuedRefresh);
    return QWidget::eventFilter(watched, event);
}

void ChartView::setChartStyle(const ChartStyle &style)
{
    m_style = style;
    restyle();
    if (m_plot)
        m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ChartView::runFitText()
{
    if (m_fitting)
        return;
    // A layout for the screen (an export's has a viewport of its own size) tells whether the
    // plot's on-screen text is fitted.
    if (m_plot->viewport() == m_plot->rect())
        m_unfitted = !m_plot->isVisible();
    const QScopedValueRollback<bool> guard(m_fitting, true);
    fitText();
}

bool ChartView::plotLaidOut() const
{
    if (!m_plot || !hasRealGeometry(m_plot))
        return false;
    const QRect area = m_plot->axisRect()->rect();
    return area.width() > 0 && area.height() > 0;
}

QFont ChartView::scaledFont(double points, bool bold) const
{
    return m_style.font(font(), points, bold);
}

QImage ChartView::renderSlide(const ExportOptions &options)
{
    const SlideScope scope([this] { beginSlide(); }, [this] { endSlide(); });
    return m_plot && m_slide == Slide::Plot ? renderPlot(m_plot, options)
                                            : renderWidget(this, options);
}

bool ChartView::exportSlide(const QString &fileName, const ExportOptions &options, QString *error)
{
    const SlideScope scope([this] { beginSlide(); }, [this] { endSlide(); });
    return m_plot && m_slide == Slide::Plot ? exportPlot(m_plot, fileName, options, error)
                                            : exportWidget(this, fileName, options, error);
}

QByteArray ChartView::slideSvg(const ExportOptions &options)
{
    const SlideScope scope([this] { beginSlide(); }, [this] { endSlide(); });
    return m_plot && m_slide == Slide::Plot ? plotSvg(m_plot, options) : widgetSvg(this, options);
}

void ChartView::copySlide(const ExportOptions &options)
{
    QGuiApplication::clipboard()->setImage(renderSlide(options));
}

} // namespace shardscope
