#pragma once

#include "format.h"
#include "memoryreport.h"
#include "scenario.h"

#include <QWidget>

class QChartView;
class QLabel;
class QPieSeries;

namespace shardscope {

/// One GPU group in detail: a donut of its components (Qt Charts, same colours
/// as the memory chart) and the bytes it sends per training step by collective.
/// Draws a report; computes nothing.
class BreakdownView : public QWidget
{
    Q_OBJECT
public:
    explicit BreakdownView(QWidget *parent = nullptr);

    /// Shows group `groupIndex` of the report (the peak group when out of range).
    void setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit, int groupIndex);

    /// Scales the text (presentation mode: 1.4).
    void setFontScale(double scale);

    /// The donut's series (one slice per non-zero component), for tests.
    QPieSeries *series() const { return m_series; }
    /// The heading, e.g. "Stage 0 · GPUs 0–15: 50.5 GB".
    QString title() const;
    /// The communication table as plain text, for tests.
    QString communicationText() const;

private:
    QPieSeries *m_series;
    QChartView *m_view;
    QLabel *m_title;
    QLabel *m_comm;
};

} // namespace shardscope
