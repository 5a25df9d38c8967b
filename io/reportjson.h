#pragma once

#include "memoryreport.h"
#include "scenario.h"
#include "steptime.h"

#include <QJsonObject>

namespace shardscope {

/// The machine-readable report printed by `shardscope report --json`.
///
/// Keys: "parameters", "capacity_bytes" (the usable bytes "fits" and "headroom_bytes" are
/// measured against, Gpu::usableBytes()), "datasheet_bytes" (the card's datasheet figure,
/// GB = 1e9), "fits", "headroom_bytes", "peak_bytes", "model", "recipe", "gpu", "layout",
/// "training", "overheads", "modelled", "host_bytes_per_node", "communication_bytes_per_step" (by
/// collective, for the busiest stage), "notes", "step_seconds", "mfu", "hfu", "tokens_per_second",
/// "step_breakdown" (stepBreakdownToJson), "matmul_efficiency" (stepTime(),
/// core/steptime.h; null, with a note saying why, when the GPU's speeds are unknown),
/// "inputs" (every settings-table entry by its scenario-file key, settingsToJson() in
/// io/scenariofile.h), "timeline" (only with `withTimeline` and p > 1: it
/// simulates the schedule, O(p x m x v) time and memory), and "groups": one per
/// pipeline stage, { "label", "pipeline_stage", "first_rank", "gpus", "bytes": {
/// "weights", "gradients", "master_weights", "optimizer_states", "activations",
/// "buffers" }, "total_bytes", breakdowns, "host_bytes",
/// "communication_bytes_per_step" }. Every size is an integer count of bytes.
/// An invalid report has only "error". README.md documents the schema.
QJsonObject reportToJson(const Scenario &s, const MemoryReport &r, bool withTimeline = false);

/// A step explained (core/steptime.h StepBreakdown), seconds: "forward", "backward",
/// "recompute", "bubble", "optimizer", "offload", "cpu_optimizer" and
/// "exposed_communication" { "tensor_parallel", "context_parallel", "expert_parallel",
/// "pipeline_parallel", "data_parallel", "total" }; the parts sum to "step_seconds".
QJsonObject stepBreakdownToJson(const StepBreakdown &b);

/// The pipeline timeline of the scenario's schedule (core::schedule): "schedule",
/// "stages", "microbatches", "chunks", "makespan" (time units of one forward),
/// "bubble_fraction" (share of total time), "bubble_over_ideal", and "per_stage"
/// [{ "stage", "busy", "bubble_fraction", "peak_in_flight" }]; or { "error" }.
QJsonObject timelineToJson(const Scenario &s);

} // namespace shardscope
