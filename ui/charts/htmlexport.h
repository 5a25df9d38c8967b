#pragma once

// A chart as one self-contained HTML page, for students to open in any browser: the title,
// the chart as inline SVG (the slide exportSlide() writes to a .svg file, so the window, the
// command line and the page draw the same picture), the numbers behind it as a table, and
// the command lines that reproduce it. No scripts, no links, no external resources.

#include "chartexport.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace shardscope {

class Session;
struct ChartEntry;

/// A table of numbers as text: a caption, column headers, and rows of cells.
struct NumbersText
{
    QString caption;         ///< one line above the table ("Per GPU, in GB")
    QStringList headers;     ///< column titles; byte columns name the unit
    QList<QStringList> rows; ///< each as many cells as headers
};

/// The numbers behind chart `chartId` (a chart registry id, chartregistry.h) of `session`,
/// in its unit with one decimal, as ReportTable::text() writes them:
/// - memory, stages, timeline: reportTable() of the report (one row per group of identical
///   GPUs: weights, gradients, master weights, optimizer states, activations, buffers,
///   total, share of capacity, host offload), plus the card's usable capacity;
/// - compare: one row per strategy (DDP, ZeRO-1, ZeRO-2, ZeRO-3) with the busiest GPU's
///   components, its total, the capacity, whether it fits, and the adjustments it took;
/// - sweep: one row per swept value, each strategy's peak per GPU ("–" where the engine
///   cannot estimate that layout), and the capacity;
/// - steptime: the step's parts in seconds, MFU and tokens per second.
/// An invalid report gives no rows and the report's error as the caption.
NumbersText chartNumbers(const QString &chartId, const Session &session);

/// What a page holds.
struct HtmlSlide
{
    QString title;   ///< the page's <title> and heading
    QString caption; ///< the settings line under the heading (scenarioCaption())
    QByteArray svg; ///< the chart's SVG document (ChartView::slideSvg()); its XML prolog is dropped
    NumbersText numbers;
    /// Command lines with what each does: ("Open this view in ShardScope", "shardscope ...").
    QList<QPair<QString, QString>> commands;
    QStringList notes; ///< what the command lines cannot state (CommandLine::notes)
};

/// The page as UTF-8: an HTML5 document that is also well-formed XML (every element
/// closed, every text HTML-escaped), holding exactly one <svg> element, with an inline
/// style sheet and no script, link or external reference.
QByteArray htmlDocument(const HtmlSlide &slide);

/// Builds `entry`'s chart off screen on `session` (makeOffscreenChart()) and writes the page
/// of it to `fileName` atomically: the slide at options.size with options' title and
/// caption, chartNumbers(), `commands` and `notes`. False plus a one-line `*error` when the
/// chart cannot be drawn or the file written.
bool exportHtml(const ChartEntry &entry, Session *session, const ExportOptions &options,
                const QList<QPair<QString, QString>> &commands, const QStringList &notes,
                const QString &fileName, QString *error);

} // namespace shardscope
