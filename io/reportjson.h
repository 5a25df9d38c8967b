#pragma once

#include "memoryreport.h"
#include "scenario.h"

#include <QJsonObject>

namespace shardscope {

/// The machine-readable report printed by `shardscope report --json`.
///
/// Keys: "parameters", "capacity_bytes", "fits", "headroom_bytes", "peak_bytes",
/// "model", "recipe", "gpu", "layout", and "groups": a list of
/// { "label", "first_rank", "gpus", "bytes": { "weights", "gradients",
/// "master_weights", "optimizer_states", "activations", "buffers" }, "total_bytes" }.
/// Every size is an integer count of bytes. An invalid report has only "error".
QJsonObject reportToJson(const Scenario &s, const MemoryReport &r);

} // namespace shardscope
