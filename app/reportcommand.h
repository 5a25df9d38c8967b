#pragma once

#include "format.h"
#include "memoryreport.h"
#include "scenario.h"
#include "scenariofile.h"
#include "sweep.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>
#include <QTextStream>
#include <optional>
#include <string>

namespace shardscope {

/// The scenario flags shared by every subcommand and the GUI's command line.
/// Every scalar setting's flag comes from the settings table (core/settings.h):
/// its name, range, unit and help line are the table's, so the command line,
/// scenario files and the window cannot disagree. Beside the table: --scenario
/// FILE (the starting point; flags given with it override it), the model
/// (--model, --params, --hf-config FILE, or inline --layers ...), the recipe
/// (--recipe, --bytes-per-param), --gpu, --dp (sets the world size from d x t x p
/// x c), the aliases --zero and --grad-accum, --launch-config FILE (a DeepSpeed JSON,
/// Accelerate YAML, torchtitan TOML or Megatron-LM arguments: io/launchconfigread.h), and
/// --unit.
struct ScenarioOptions
{
    ScenarioOptions();
    QList<QCommandLineOption> all; ///< every option, for addTo()
    QCommandLineOption scenarioFile, model, params, hfConfig, layers, hidden, ffn, heads, kvHeads,
        vocab, tied, plainMlp;
    /// Optional inline-architecture shape: head size, mixture of experts, q/k norms.
    QCommandLineOption headDim, experts, expertsPerToken, expertFfn, sharedExperts, qkNorm;
    QCommandLineOption recipe, bytesPerParam, gpu, dp, zero, gradAccum, unit;
    /// A launch config whose layout and batch apply over --scenario (or the defaults);
    /// the other flags win over it.
    QCommandLineOption launchConfig;
    /// One option per settings-table entry, in settings() order.
    QList<QCommandLineOption> table;

    /// Registers the options on a parser.
    void addTo(QCommandLineParser &p) const;
    /// True when any scenario flag (not --unit, not --scenario) was given.
    bool anySet(const QCommandLineParser &p) const;
    /// The scenario and unit the parsed flags describe: the --scenario file if
    /// given, else defaultScenario() (core/defaults.h: Llama 3 70B, 64 GPUs,
    /// DDP, H100, mixed-adam), with every given flag applied over it. --hf-config
    /// reads the model from a Hugging Face config.json (modelFromHfConfig).
    /// --launch-config applies the file's settings after the model, recipe and GPU flags and
    /// before the settings flags, which win (applyLaunchConfig()); what the file could not
    /// say or set goes to `*notes` (when not null), one sentence each. The
    /// result passes validate() (with `validateResult` false that check is left to
    /// estimate(), as for a scenario file's patch). nullopt plus a one-line `*error`
    /// naming the bad flag or file ("--launch-config: run.yaml: line 3: ...").
    std::optional<ScenarioDocument> document(const QCommandLineParser &p, QString *error,
                                             bool validateResult = true,
                                             QStringList *notes = nullptr) const;
    /// document()'s scenario alone.
    std::optional<Scenario> scenario(const QCommandLineParser &p, QString *error,
                                     QStringList *notes = nullptr) const;
    /// The display unit from --unit; nullopt plus `*error` when it is not gb or gib.
    std::optional<ByteUnit> byteUnit(const QCommandLineParser &p, QString *error) const;
};

/// Reads option `o` of a parsed command line as a whole number from `min` to `max`
/// (inclusive): true with `*value` set, or false with `*error` = "--NAME must be a whole
/// number from MIN to MAX (got 'TEXT')", NAME being the option's first name. An option
/// that was not given reads as '' and fails. Every subcommand's integer flags use it, so
/// they word the error alike.
bool wholeNumberOption(const QCommandLineParser &p, const QCommandLineOption &o, std::int64_t min,
                       std::int64_t max, std::int64_t *value, QString *error);

/// The README's flag rows for the settings table, as Markdown: "| `--tp t` | help
/// ... | default |", one per setting in settings() order. The README holds this
/// text; a test checks it is current.
QString settingsMarkdownRows();

/// Writes "shardscope NAME: message" on `err` as exactly one line (control characters
/// in the message, which may echo a file name or an argument, are escaped as \n,
/// \t, \x1b, ...) and returns `code`.
int subcommandError(QTextStream &err, const QString &name, const QString &message, int code = 2);

/// Writes each of `notes` on `err` as one line "note: ..." (through terminalText()): what a
/// launch config could not say, after a subcommand's output.
void printNotes(QTextStream &err, const QStringList &notes);

/// An option that takes a value: `--name VALUE` with `help` for --help, `valueName` shown
/// as VALUE, and `defaultValue` when it is not given (QCommandLineOption's four fields).
QCommandLineOption valueOption(const char *name, const QString &help, const char *valueName,
                               const QString &defaultValue = {});

/// The --sweep option of the window and of `shardscope export`: what `swept` ("the Sweep
/// tab", "the sweep chart") varies, an id of sweepAxisId() (core/sweep.h), default gpus.
QCommandLineOption sweepAxisOption(const QString &swept);

/// Reads --sweep (`o`, from sweepAxisOption()) of a parsed command line: the axis, or
/// nullopt with `*error` = "--sweep must be gpus, seq, mbs or time (got 'TEXT')".
std::optional<SweepAxis> sweepAxisValue(const QCommandLineParser &p, const QCommandLineOption &o,
                                        QString *error);

/// Sets up a subcommand's parser: its --help `description`, -h/--help, the subcommand
/// `name` as the first positional argument, and every scenario flag of `options`.
/// The subcommand adds its own options after it, then calls startSubcommand().
void describeSubcommand(QCommandLineParser &p, const QString &name, const QString &description,
                        const ScenarioOptions &options);

/// The shared start of every subcommand: parses `args` into `p`, prints --help on
/// `out`, and refuses a parse error or a stray argument with subcommandError().
/// Returns the exit code when the command is finished (0 after --help, 2 on an
/// error), or nullopt when it should go on. `positionals` counts the subcommand's name
/// and the arguments it takes (`measured FILE`: 2); more are refused.
std::optional<int> startSubcommand(QCommandLineParser &p, const QStringList &args,
                                   const QString &name, QTextStream &out, QTextStream &err,
                                   int positionals = 1);

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
