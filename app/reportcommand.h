#pragma once

#include "format.h"
#include "scenario.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>
#include <QTextStream>
#include <optional>

namespace shardscope {

/// The scenario flags shared by every subcommand and the GUI's command line:
/// --model ID | --params N, --gpus N, --strategy S, --gpu ID, --recipe ID, --unit U.
struct ScenarioOptions
{
    ScenarioOptions();
    QCommandLineOption model, params, gpus, strategy, gpu, recipe, unit;

    /// Registers the options on a parser.
    void addTo(QCommandLineParser &p) const;
    /// The scenario the parsed flags describe (defaults: llama3-70b, 8 GPUs, ddp,
    /// h100-sxm-80gb, mixed-adam). nullopt plus a one-line `*error` naming the bad flag.
    std::optional<Scenario> scenario(const QCommandLineParser &p, QString *error) const;
    /// The display unit from --unit; nullopt plus `*error` when it is not gb or gib.
    std::optional<ByteUnit> byteUnit(const QCommandLineParser &p, QString *error) const;
};

/// Parses a parameter count: "70e9", "7.5e9", "70B", "1.5T", "300M", "70000000000".
/// Returns nullopt for anything not a positive finite count below 1e14.
std::optional<std::int64_t> parseParameterCount(const QString &text);

/// `shardscope report ...`: prints the per-GPU memory report as text or JSON
/// (`--json`) to `out`. Returns the process exit code: 0 on success, 2 on bad
/// arguments (one line on `err` naming the argument), 0 also when the layout
/// overflows (overflow is an answer, not an error). `args` starts with the
/// program name, then "report".
int runReportCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace shardscope
