#pragma once

// "Copy as command line": the `shardscope` command that reproduces a scenario and the
// window's view, for students who want to open the same picture themselves. The flags
// are the ones app/reportcommand.h's ScenarioOptions parses: the model, recipe and GPU by
// catalog id (or inline), then one `--flag value` per settings-table row (core/settings.h)
// whose value differs from defaultScenario(), so the line stays as short as the change.

#include "catalog.h"
#include "format.h"
#include "scenario.h"

#include <QString>
#include <QStringList>

namespace shardscope {

/// Arguments that reproduce a scenario, and what they cannot say.
struct CommandLine
{
    /// The words, program first ("shardscope", "report", "--model", "llama3-70b", ...),
    /// unquoted: QProcess or a parser takes them as they are; text() quotes them.
    QStringList words;
    /// What the flags cannot state exactly, one sentence each ("The GPU 'My card' is not in
    /// the catalog; the command line uses h100-sxm-80gb."). Empty when the line reproduces
    /// the scenario exactly.
    QStringList notes;

    /// The words joined by spaces, each through shellQuoted() (io/launchconfig.h: as it is
    /// when only letters, digits and _ @ % + = : , . / - are in it, else in single quotes,
    /// or bash's $'...' for control characters): a line bash runs as the same words.
    QString text() const;
};

/// The scenario flags (no program name) that give `s` and `unit` when ScenarioOptions
/// parses them over defaultScenario() (io/scenariofile.h): always --model (or --params, or
/// the inline --layers --hidden --ffn --heads --vocab ... of a shape not in the built-in
/// catalog (Catalog::builtIn(), the one the parser reads), such
/// as the size slider's), --recipe (or --bytes-per-param), --gpu, --gpus and --strategy;
/// then every other settings-table row whose value differs from the default, in table
/// order, as `--flag settingText()` (a switch as the bare flag); --chunks also when the
/// schedule alone would reset it (applySettings()); --unit gib for GiB. Whatever the flags
/// cannot say (a GPU outside the catalog, a shape with MLA or biases, a byte count that is
/// not a whole number of the flag's unit) goes to `*notes`, one sentence each, with the
/// nearest thing the flags can say in the line. A model's display name is not carried:
/// an inline shape reads back as "Inline 70B architecture".
QStringList scenarioArguments(const Scenario &s, ByteUnit unit, QStringList *notes);

/// What the window shows besides the scenario, for windowCommandLine().
struct WindowView
{
    QString view;              ///< the --view tab id: "memory", "compare", ...; "" for none
    bool presentation = false; ///< --present
    QString sweepAxis;         ///< --sweep id ("seq", "mbs") when not "gpus"; "" for none
};

/// `shardscope <scenarioArguments()> [--view V] [--present] [--sweep A]`: opens the window
/// on the same scenario, unit, tab and mode.
CommandLine windowCommandLine(const Scenario &s, ByteUnit unit, const WindowView &view);

/// `shardscope report <scenarioArguments()>`: prints the same report as text.
CommandLine reportCommandLine(const Scenario &s, ByteUnit unit);

/// `shardscope export --chart CHART [--sweep A] --format FORMAT --out FILE
/// <scenarioArguments()>`: writes the same chart again; `format` is "png", "svg", "pdf" or
/// "html", `sweepAxis` as in WindowView.
CommandLine exportCommandLine(const Scenario &s, ByteUnit unit, const QString &chart,
                              const QString &sweepAxis, const QString &format, const QString &file);

} // namespace shardscope
