#pragma once

// The strategy comparison (the window's Compare tab and `export --chart compare`): one
// scenario under DDP, ZeRO-1, ZeRO-2 and ZeRO-3, each adjusted only where the strategy
// cannot run the scenario's other settings, and told which adjustment it took.

#include "memoryreport.h"
#include "scenario.h"

#include <array>
#include <string>
#include <vector>

namespace shardscope {

/// One column of the comparison.
struct StrategyVariant
{
    Scenario scenario;   ///< the input with layout.zeroStage set, and adjusted (below)
    MemoryReport report; ///< estimate(scenario)
    /// What was changed so the strategy can run, in words for the chart: "no offload"
    /// (DDP has no ZeRO-Offload), "no HSDP" (DDP has no shard group), "optimizer offload"
    /// (only ZeRO-3 can offload parameters). Empty when nothing was.
    std::vector<std::string> adjustments;
};

/// The scenario under DDP, ZeRO-1, ZeRO-2 and ZeRO-3, in that order. Offload and HSDP
/// follow validate()'s rules: DDP drops both, and ZeRO-1/2 offload only the optimizer
/// when the scenario offloads parameters too (DeepSpeed ZeRO-Offload; offload_param
/// needs stage 3). Everything else is the scenario's own.
std::array<StrategyVariant, 4> compareStrategies(const Scenario &s);

} // namespace shardscope
