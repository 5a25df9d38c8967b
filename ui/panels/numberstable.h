#pragma once

#include "chartstyle.h"
#include "palette.h"
#include "reporttable.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

namespace shardscope {

/// The per-GPU numbers under the memory bars: one row per group of identical GPUs
/// (reportTable(), io/reporttable.h), with Copy as CSV (exact bytes, for spreadsheets)
/// and Copy as Markdown (display unit, for slides and notes) to the clipboard.
class NumbersTable : public QWidget, public StyledView
{
    Q_OBJECT
public:
    explicit NumbersTable(QWidget *parent = nullptr);

    /// Shows the table of report `r` of scenario `s` in `unit` (an invalid report: none).
    void setReport(const Scenario &s, const MemoryReport &r, ByteUnit unit);
    /// Fonts at the style's scale and the panel in its colours.
    void setChartStyle(const ChartStyle &style) override;

    /// What is shown (for tests and File > Export data).
    const ReportTable &table() const { return m_table; }
    QTableWidget *tableWidget() const { return m_view; }
    /// Puts toCsv(table()) / toMarkdown(table()) on the clipboard.
    void copyCsv() const;
    void copyMarkdown() const;

private:
    ReportTable m_table;
    QTableWidget *m_view;
    QPushButton *m_copyCsv;
    QPushButton *m_copyMarkdown;
    ChartStyle m_style;
};

} // namespace shardscope
