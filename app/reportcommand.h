#pragma once

#include "format.h"
#include "scenario.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QStringList>
#include <QTextStream>
#include <optional>

namespace shardscope {

/// The scenario flags shared by every subcommand and the GUI's command line
/// (README.md lists each): model (--model, --params, --hf-config FILE, or inline
/// --layers ...), recipe (--recipe, --bytes-per-param), layout (--gpus, --dp, --tp,
/// --pp, --cp, --ep, --strategy / --zero, --hsdp-shard, --offload), training (--mbs, --seq,
/// --microbatches / --grad-accum, --recompute, --flash-attention,
/// --sequence-parallel, --schedule, --chunks), overheads and --unit.
struct ScenarioOptions
{
    ScenarioOptions();
    QList<QCommandLineOption> all; ///< every option, for addTo()
    QCommandLineOption model, params, hfConfig, layers, hidden, ffn, heads, kvHeads, vocab, tied,
        plainMlp;
    QCommandLineOption recipe, bytesPerParam, gpus, dp, tp, pp, cp, ep, strategy, zero, hsdpShard,
        offload, unevenStages, gpusPerNode, mbs, seq, microbatches, gradAccum, recompute,
        flashAttention, sequenceParallel, fp32Logits, loss, schedule, chunks, cudaContextMib,
        fragmentation, gatheredUnits, hostRamGb, modelStatesOnly, gpu, unit;

    /// Registers the options on a parser.
    void addTo(QCommandLineParser &p) const;
    /// True when any scenario flag (not --unit) was given.
    bool anySet(const QCommandLineParser &p) const;
    /// The scenario the parsed flags describe, starting from `base` (the report's
    /// defaults: Llama 3 70B, 8 GPUs, DDP, H100, mixed-adam). --hf-config reads the
    /// model from a Hugging Face config.json (modelFromHfConfig). nullopt plus a
    /// one-line `*error` naming the bad flag.
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
