#include "breakdownview.h"

#include "chartparts.h"
#include "qtext.h"

#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QPieSeries>
#include <QPieSlice>
#include <QVBoxLayout>

namespace shardscope {

BreakdownView::BreakdownView(QWidget *parent)
    : QWidget(parent), m_series(new QPieSeries), m_view(new QChartView), m_title(new QLabel),
      m_comm(new QLabel)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title->setWordWrap(true);
    m_series->setHoleSize(0.5);
    m_series->setPieSize(0.9);
    auto *chart = new QChart;
    chart->addSeries(m_series);
    chart->setAnimationOptions(QChart::NoAnimation); // grabs must show the slices
    chart->legend()->setVisible(false);              // the table below is the legend
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(0, 0, 0, 0));
    // QChartView starts with a chart of its own and setChart() releases, not deletes,
    // the previous one: delete it, or every view leaks a whole QChart.
    QChart *initial = m_view->chart();
    m_view->setChart(chart);
    delete initial;
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(260, 240);
    m_view->setFrameShape(QFrame::NoFrame);
    m_comm->setWordWrap(true);
    m_comm->setTextFormat(Qt::RichText);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_comm);
    // Until setChartStyle(), the donut is drawn on the window's own background.
    chart->setBackgroundVisible(false);
    setFontScale(m_style.fontScale);
}

QChart *BreakdownView::chart() const
{
    return m_view->chart();
}

void BreakdownView::setChartStyle(const ChartStyle &style)
{
    m_style = style;
    const ChartStyle &st = m_style;
    applyPanelStyle(this, st);
    QChart *c = chart();
    c->setBackgroundVisible(true);
    c->setBackgroundBrush(st.background);
    c->setBackgroundPen(Qt::NoPen);
    c->setPlotAreaBackgroundVisible(false);
    c->setTitleBrush(st.ink);
    c->legend()->setLabelColor(st.ink);
    c->legend()->setBrush(st.background);
    m_view->setBackgroundBrush(st.background);
    styleSlices();
    setFontScale(st.fontScale);
}

void BreakdownView::styleSlices()
{
    for (QPieSlice *slice : m_series->slices()) {
        slice->setBorderColor(m_style.barOutline);
        slice->setBorderWidth(1.5 * m_style.lineScale);
        slice->setLabelColor(m_style.ink);
        slice->setLabelFont(m_style.font(font(), 12));
    }
}

void BreakdownView::setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit,
                              int groupIndex)
{
    m_series->clear();
    if (!r.valid() || r.groups.empty()) {
        m_title->setText(QStringLiteral("No valid layout"));
        m_comm->clear();
        return;
    }
    const GpuGroup &g = groupIndex >= 0 && groupIndex < int(r.groups.size())
                            ? r.groups[std::size_t(groupIndex)]
                            : *r.peakGroup();
    const QString where = s.layout.pipelineParallel > 1
                              ? QStringLiteral("Stage %1 · ").arg(g.pipelineStage)
                              : QString();
    m_title->setText(QStringLiteral("%1GPU %2%3: %4 each")
                         .arg(where)
                         .arg(g.firstRank)
                         .arg(g.gpuCount > 1
                                  ? QStringLiteral("–%1").arg(g.firstRank + g.gpuCount - 1)
                                  : QString())
                         .arg(toQString(formatBytes(g.totalBytes(), unit))));
    const double total = double(std::max<std::int64_t>(1, g.totalBytes()));
    QString parts = QStringLiteral("<table>");
    for (int c = componentCount - 1; c >= 0; --c) {
        const std::int64_t v = componentValue(g.bytes, Component(c));
        if (v <= 0)
            continue;
        auto *slice = m_series->append(toQString(componentName(Component(c))), double(v));
        slice->setColor(componentColor(Component(c)));
        slice->setLabelVisible(false);
        parts += QStringLiteral("<tr><td><span style='color:%1'>■</span> %2</td>"
                                "<td align=right>&nbsp;&nbsp;%3</td>"
                                "<td align=right>&nbsp;&nbsp;%4%</td></tr>")
                     .arg(componentColor(Component(c)).name(),
                          toQString(componentName(Component(c))), toQString(formatBytes(v, unit)))
                     .arg(double(v) / total * 100, 0, 'f', 0);
    }
    parts += QStringLiteral("</table><br>");
    styleSlices();
    const CommunicationBytes &cm = g.communication;
    // Nothing sent reads "none", not "0 GB" (one GPU, or d = 1: no data-parallel traffic).
    auto row = [unit](const QString &name, std::int64_t bytes) {
        return QStringLiteral("<tr><td>%1</td><td align=right>&nbsp;&nbsp;%2</td></tr>")
            .arg(name, bytes > 0 ? toQString(formatBytes(bytes, unit)) : QStringLiteral("none"));
    };
    const char *dpName = s.layout.zeroStage == ZeroStage::Zero3
                             ? "Data parallel (gathers + reduce-scatter)"
                             : "Data parallel (gradient reduction)";
    QString html = parts + QStringLiteral("<b>Sent per GPU per step</b><table>");
    html += row(QString::fromLatin1(dpName), cm.dataParallel);
    if (s.layout.tensorParallel > 1)
        html += row(QStringLiteral("Tensor parallel (all-reduces)"), cm.tensorParallel);
    if (s.layout.pipelineParallel > 1)
        html += row(QStringLiteral("Pipeline (activations to neighbours)"), cm.pipelineParallel);
    if (s.layout.contextParallel > 1)
        html += row(QStringLiteral("Context parallel (keys/values)"), cm.contextParallel);
    if (cm.expertParallel > 0)
        html += row(QStringLiteral("Expert parallel (all-to-all)"), cm.expertParallel);
    html += row(QStringLiteral("<b>Total</b>"), cm.total()) + QStringLiteral("</table>");
    if (g.hostBytes > 0)
        html += QStringLiteral("<br>Offloaded to host: %1 per GPU, %2 per node")
                    .arg(toQString(formatBytes(g.hostBytes, unit)),
                         toQString(formatBytes(r.hostBytesPerNode, unit)));
    m_comm->setText(html);
}

void BreakdownView::setFontScale(double scale)
{
    m_style.fontScale = scale;
    m_title->setFont(m_style.font(font(), 14, true));
    m_comm->setFont(m_style.font(font(), 12));
    chart()->legend()->setFont(m_style.font(font(), 12));
}

QString BreakdownView::title() const
{
    return m_title->text();
}

QString BreakdownView::communicationText() const
{
    return plainTextOf(m_comm->text());
}

} // namespace shardscope
