#include "palette.h"

#include "chartparts.h"

#include <algorithm>
#include <qcustomplot.h>

namespace shardscope {

QPalette darkWindowPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x1E, 0x20, 0x25));
    p.setColor(QPalette::WindowText, QColor(0xEE, 0xEE, 0xEE));
    p.setColor(QPalette::Base, QColor(0x12, 0x14, 0x18));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x29, 0x30));
    p.setColor(QPalette::Text, QColor(0xEE, 0xEE, 0xEE));
    p.setColor(QPalette::Button, QColor(0x2B, 0x2E, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xEE, 0xEE, 0xEE));
    p.setColor(QPalette::Highlight, QColor(0x56, 0xB4, 0xE9));
    p.setColor(QPalette::HighlightedText, Qt::black);
    p.setColor(QPalette::ToolTipBase, QColor(0x26, 0x29, 0x30));
    p.setColor(QPalette::ToolTipText, QColor(0xEE, 0xEE, 0xEE));
    return p;
}

QColor componentColor(Component c)
{
    switch (c) {
    case Component::Weights:
        return QColor(0x00, 0x72, 0xB2); // blue
    case Component::Gradients:
        return QColor(0xE6, 0x9F, 0x00); // orange
    case Component::MasterWeights:
        return QColor(0x00, 0x9E, 0x73); // bluish green
    case Component::OptimizerStates:
        return QColor(0xCC, 0x79, 0xA7); // reddish purple
    case Component::Activations:
        return QColor(0x56, 0xB4, 0xE9); // sky blue
    case Component::Buffers:
        return QColor(0x99, 0x99, 0x99); // grey
    }
    return Qt::gray;
}

QColor overflowColor()
{
    return QColor(0xD5, 0x5E, 0x00);
}

QColor measuredColor(bool dark)
{
    return dark ? mixColors(overflowColor(), Qt::white, 0.7) : overflowColor();
}

QColor fitsColor()
{
    return QColor(0x1B, 0x7F, 0x3B);
}

QColor overflowsColor()
{
    return QColor(0xB3, 0x26, 0x1E);
}

QColor mixColors(const QColor &a, const QColor &b, double share)
{
    const auto channel = [share](float x, float y) { return float(x * share + y * (1 - share)); };
    return QColor::fromRgbF(channel(a.redF(), b.redF()), channel(a.greenF(), b.greenF()),
                            channel(a.blueF(), b.blueF()));
}

ChartStyle ChartStyle::light()
{
    return ChartStyle{};
}

ChartStyle ChartStyle::dark()
{
    ChartStyle s;
    s.background = QColor(0x12, 0x14, 0x18);
    s.ink = QColor(0xEE, 0xEE, 0xEE);
    s.grid = QColor(0x3A, 0x3D, 0x44);
    s.barOutline = s.background;
    s.alert = QColor(0xFF, 0x8A, 0x80);
    return s;
}

ChartStyle ChartStyle::presentation(bool darkTheme)
{
    ChartStyle s = darkTheme ? dark() : light();
    if (!darkTheme) {
        s.ink = Qt::black;
        s.grid = QColor(200, 200, 200);
    }
    s.fontScale = 1.5;
    s.lineScale = 1.6;
    return s;
}

QFont ChartStyle::font(const QFont &base, double points, bool bold) const
{
    QFont f = base;
    f.setPointSizeF(points * fontScale);
    f.setBold(bold);
    return f;
}

void applyAxisStyle(QCustomPlot *plot, const ChartStyle &st, const QFont &base, double tickPoints)
{
    const double lw = st.lineScale;
    plot->setBackground(st.background);
    plot->axisRect()->setBackground(st.background);
    for (auto *axis : {plot->xAxis, plot->yAxis}) {
        axis->setTickLabelFont(st.font(base, tickPoints));
        axis->setLabelFont(st.font(base, 14, true));
        axis->setTickLabelColor(st.ink);
        axis->setLabelColor(st.ink);
        axis->setBasePen(QPen(st.ink, 1.5 * lw));
        axis->setTickPen(QPen(st.ink, 1.5 * lw));
        axis->setSubTickPen(QPen(st.ink, 1 * lw));
        axis->grid()->setPen(QPen(st.grid, 1 * lw));
    }
}

int legendColumnsThatFit(QCustomPlot *plot)
{
    QCPLegend *legend = plot->legend;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem *item = legend->item(i))
            widest = std::max(widest, item->minimumOuterSizeHint().width());
    const int spacing = legend->columnSpacing();
    const int room =
        plot->viewport().width() - legend->margins().left() - legend->margins().right();
    return widest > 0 ? (room + spacing) / (widest + spacing) : -1;
}

void fitLegendColumns(QCustomPlot *plot, int most)
{
    QCPLegend *legend = plot->legend;
    const int fit = legendColumnsThatFit(plot);
    const int columns = fit >= 0 ? std::clamp(fit, 1, std::max(1, most)) : most;
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-flow the items
    }
}

void placeLegendAbove(QCustomPlot *plot, int wrap, int columnSpacing, int verticalMargin)
{
    QCPLegend *legend = plot->legend;
    legend->setVisible(true);
    legend->setBorderPen(Qt::NoPen);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(wrap);
    legend->setColumnSpacing(columnSpacing);
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(8, verticalMargin, 8, verticalMargin));
    // Before each replot (the layout follows it): entries that remember their size in
    // place of QCustomPlot's plain ones (swapped before the layout places them, never
    // between the layout and the drawing), and as many columns as fit, at most `wrap`.
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot, wrap] {
        useMeasuredLegendEntries(plot);
        fitLegendColumns(plot, wrap);
    });
}

} // namespace shardscope
