#pragma once

#include "planner.h"

#include <QJsonObject>
#include <QStringList>
#include <QTextStream>

namespace shardscope {

/// `shardscope plan ...`: searches the layouts of a model on a GPU type and a GPU count
/// or range (`--gpus 64`, `--gpus 8-64`) for a global batch (`--global-batch-tokens`),
/// keeps those that fit and prints them ranked (core/planner.h): a table of the top N
/// (`--top`, 0 for all) or, with `--json`, { "candidates_evaluated",
/// "candidates_pruned", "fitting", "layouts": [{ "gpus", "dp", "tp", "pp", "cp", "ep",
/// "strategy", "hsdp_shard", "micro_batch_size", "microbatches", "recompute",
/// "schedule", "chunks", "offload", "peak_bytes", "step_seconds", "mfu", "hfu",
/// "tokens_per_second" }] }. `--objective fastest` (default) sorts by step time,
/// `fewest-gpus` by GPU count then step time. Takes the model, recipe, GPU and
/// settings-table flags of `report` (ScenarioOptions); the searched settings (degrees,
/// strategy, micro-batching, recomputation, schedule, offload) are replaced by the
/// search, bounded by --max-tp, --max-pp, --max-cp, --max-ep and --max-mbs.
/// `--export-config FORMAT` (deepspeed, accelerate, torchtitan, megatron) writes, in
/// place of the list, the launch config (io/launchconfig.h) of the first ranked layout,
/// or of `--row N` (1-based, as the table numbers them), to `--out FILE` through
/// writeBytesAtomically() or to `out`; its notes go to `err`. Returns 0 (also when
/// nothing fits and nothing is exported), 2 with one line on `err` for bad arguments, a
/// row past the fitting layouts, no fitting layout to export or a layout the format
/// cannot express, 1 when FILE cannot be written.
int runPlanCommand(const QStringList &args, QTextStream &out, QTextStream &err);

/// One ranked layout as `plan --json` lists it: { "gpus", "dp", "tp", "pp", "cp", "ep",
/// "strategy", "hsdp_shard", "micro_batch_size", "microbatches", "recompute", "schedule",
/// "chunks", "offload", "peak_bytes", "stage_split" } and "step_seconds", "mfu", "hfu",
/// "tokens_per_second" when the step is timed, else "step_error". Shared with
/// `explain-oom`'s suggestions.
QJsonObject planCandidateJson(const PlanCandidate &c);

} // namespace shardscope
