#pragma once

#include "chartstyle.h"
#include "format.h"
#include "memoryreport.h"
#include "scenario.h"

#include <QWidget>

class QChart;
class QChartView;
class QLabel;
class QPieSeries;

namespace shardscope {

/// One GPU group in detail: a donut of its components (Qt Charts, same colours as the
/// memory chart) and the bytes it sends per training step by collective, in a ChartStyle
/// (the donut on the canvas, slices parted by barOutline, text in the ink, type x
/// fontScale). Draws a report; computes nothing.
class BreakdownView : public QWidget, public StyledView
{
    Q_OBJECT
public:
    explicit BreakdownView(QWidget *parent = nullptr);

    /// Shows group `groupIndex` of the report (the peak group when out of range).
    void setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit, int groupIndex);

    /// Changes the look (light, dark, presentation) and redraws.
    void setChartStyle(const ChartStyle &style) override;
    /// The current look.
    const ChartStyle &chartStyle() const { return m_style; }
    /// Scales the text only (MainWindow's presentation mode used 1.4); setChartStyle()
    /// sets the scale with the rest of the look.
    void setFontScale(double scale);

    /// The donut's chart, for tests and export.
    QChart *chart() const;
    /// The heading label.
    QLabel *titleLabel() const { return m_title; }

    /// The donut's series (one slice per non-zero component), for tests.
    QPieSeries *series() const { return m_series; }
    /// The heading, e.g. "Stage 0 · GPUs 0–15: 50.5 GB".
    QString title() const;
    /// The communication table as plain text, for tests.
    QString communicationText() const;

private:
    /// Slice borders in the current style.
    void styleSlices();

    QPieSeries *m_series;
    QChartView *m_view;
    QLabel *m_title;
    QLabel *m_comm;
    ChartStyle m_style;
};

} // namespace shardscope
