#pragma once

#include "format.h"
#include "memoryreport.h"
#include "scenario.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace shardscope {

/// The per-GPU numbers of a report as a table: one row per group of identical GPUs (one
/// pipeline stage), the columns below. The window's numbers table, Copy as CSV or
/// Markdown, and File > Export data all read it, so they never disagree with the bars.
struct ReportTable
{
    /// Column order: GPUs (ranks), GPU count, stage, weights, gradients, master weights,
    /// optimizer states, activations, buffers, total, share of capacity, host offload.
    static constexpr int columnCount = 12;
    QStringList headers; ///< column titles; byte columns name the unit, "(GB)" or "(bytes)"
    /// Row r, column c: exact bytes for the byte columns, the GPU count, the stage; the
    /// share of capacity in per mille of the capacity (totals / capacity x 1000, rounded).
    std::vector<std::vector<std::int64_t>> values;
    std::vector<QString> rankLabels; ///< column 0 per row: "GPU 0–7", "GPU 8"
    std::int64_t capacityBytes = 0;  ///< the card's capacity, bytes
    ByteUnit unit = ByteUnit::GB;    ///< what text() shows the byte columns in

    /// Cell text for the window and Markdown: bytes in `unit` with one decimal
    /// ("17.5"), the share as a percentage ("21.9%"), counts with thousands separators.
    QString text(std::size_t row, int column) const;
    /// True for the six component columns, the total and the host offload (bytes).
    static bool isByteColumn(int column);
};

/// The table of `r` (= estimate(s)); empty (no rows) for an invalid report.
ReportTable reportTable(const Scenario &s, const MemoryReport &r, ByteUnit unit);

/// RFC 4180 CSV with a header row: byte columns as exact integers in bytes (headers say
/// "(bytes)"), the share of capacity as a decimal fraction, for spreadsheets and scripts.
QString toCsv(const ReportTable &t);
/// A GitHub-flavoured Markdown table in the table's display unit, for slides and notes.
QString toMarkdown(const ReportTable &t);

} // namespace shardscope
