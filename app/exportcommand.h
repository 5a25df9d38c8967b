#pragma once

#include <QStringList>
#include <QTextStream>

namespace shardscope {

/// `shardscope export ...`: renders a chart to a slide-ready file without a window.
///
///   shardscope export --scenario FILE --chart memory|compare|timeline|stages|steptime
///                     --out slide.png|.svg|.pdf [--size 1920x1080] [--title TEXT]
///                     [--caption TEXT] [--unit gb|gib]
///
/// The scenario comes from a scenario file (io/scenariofile.h) or, instead, from the
/// scenario flags every subcommand shares (ScenarioOptions: --model, --gpus,
/// --strategy, ...). The chart is the registry's (ui/charts/chartregistry.h): the same view
/// the window draws, its slide the same picture as the window's File > Export chart
/// (the timeline without its live controls). The title defaults to the entry's
/// slideTitle() (the verdict for memory, a line naming the comparison or the pipeline);
/// the caption to scenarioCaption(). Needs a QApplication (main.cpp makes one on the
/// offscreen platform when there is no display).
///
/// Returns the exit code: 0 on success (one line on `out` naming the file), 2 on a
/// bad argument (one line on `err` naming it; an unknown --chart lists the registry's
/// ids), 1 when the file cannot be written. `args` starts with the program name, then
/// "export".
int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace shardscope
