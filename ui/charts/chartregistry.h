#pragma once

#include "chartview.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <vector>

namespace shardscope {

class Session;

/// One chart the window and `shardscope export --chart` both draw.
struct ChartEntry
{
    QString id;   ///< the --chart value, e.g. "memory"; lowercase, unique
    QString name; ///< display name: the window's tab, the export's default title stem
    /// Builds the chart on `session` (not owned; outlives the chart) under `parent`.
    std::function<ChartView *(Session *session, QWidget *parent)> make;
    /// Draws `session`'s current values into a chart make() built; empty for a chart that
    /// follows the Session by itself (the timeline panel redraws through LazyRefresh).
    std::function<void(ChartView &chart, const Session &session)> draw;
    /// The title of a slide when none is given on the command line, e.g. the verdict.
    std::function<QString(const Session &session)> slideTitle;
};

/// Every chart, in the order the command line's help lists them: memory (MemoryChart),
/// compare (CompareChart), timeline (TimelinePanel), stages (StageMemoryChart), steptime
/// (StepTimeBar), sweep (SweepChart, along Session::sweepAxis()).
const std::vector<ChartEntry> &chartRegistry();

/// The entry with this id (any case); null when there is none.
const ChartEntry *findChart(const QString &id);

/// The registry's ids in order: "memory", "compare", ...
QStringList chartIds();

/// The ids as prose for help and error text: "memory, compare, ..., steptime or sweep".
QString chartIdList();

/// Builds `entry`'s chart on `session` as the command line exports it: sized to
/// `logicalSize` (exportLayoutSize(), chartexport.h), drawn, laid out and polished off
/// screen (never shown on one), so that its slide is the window's picture of the same
/// Session. Needs a QApplication.
std::unique_ptr<ChartView> makeOffscreenChart(const ChartEntry &entry, Session *session,
                                              QSize logicalSize);

} // namespace shardscope
