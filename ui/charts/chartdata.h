#pragma once

// What the charts draw, as plain values computed from the Session's derived values: no
// widgets, no Qt, so each is tested with hand-calculated figures (tests/ui/test_chartdata).
// A chart turns these into plottables; it never estimates anything itself.

#include "compare.h"
#include "memoryreport.h"
#include "scenario.h"

#include <array>
#include <cstdint>
#include <string>

namespace shardscope {

/// One strategy's bar of the comparison (CompareChart).
struct CompareBar
{
    ZeroStage stage = ZeroStage::Ddp; ///< the strategy
    /// The axis label: the strategy's name, and on a second line what the engine had to
    /// adjust and which pipeline stage the bar shows, e.g. "ZeRO-3 / FSDP\nstage 0" or
    /// "DDP\nno offload".
    std::string label;
    bool valid = false;         ///< false when the engine cannot estimate the variant
    ComponentBytes bytes;       ///< the busiest GPU's components, bytes; zero when invalid
    std::int64_t peakBytes = 0; ///< MemoryReport::peakBytes(), bytes; 0 when invalid
};

/// The comparison as the chart draws it: four bars, DDP .. ZeRO-3, against a capacity.
struct CompareBars
{
    std::array<CompareBar, 4> bars;
    /// The capacity line, bytes per GPU: the scenario's own strategy's report's capacity,
    /// or the card's when that report is invalid.
    std::int64_t capacityBytes = 0;
    int current = 0; ///< the scenario's own strategy, 0 (DDP) .. 3 (ZeRO-3)
};

/// The bars of `variants` (compareStrategies(s), core/compare.h, as Session::comparison()
/// serves it) for scenario `s`.
CompareBars compareBars(const Scenario &s, const std::array<StrategyVariant, 4> &variants);

} // namespace shardscope
