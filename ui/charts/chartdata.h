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
#include <vector>

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

/// One bar of the memory chart (MemoryChart): one GPU, or one group of identical GPUs.
struct MemoryBar
{
    std::int64_t firstRank = 0; ///< the first global rank it shows
    std::int64_t gpuCount = 1;  ///< how many identical GPUs it stands for
    int group = 0;              ///< its group, an index into MemoryReport::groups
    int stage = 0;              ///< the group's pipeline stage
    ComponentBytes bytes;       ///< one of its GPUs' components, bytes
};

/// One bar per group of identical GPUs of `r`, in rank order; none when `r` is invalid.
std::vector<MemoryBar> memoryGroupBars(const MemoryReport &r);

/// The same GPUs one bar each: every group bar of `groups` (memoryGroupBars()) repeated
/// gpuCount times with its own rank. The chart asks for it only up to its most bars.
std::vector<MemoryBar> memoryGpuBars(const std::vector<MemoryBar> &groups);

/// Bar `b`'s tick label at length `level`, `staged` when the report has pipeline stages.
/// A per-GPU bar (gpuCount 1 from memoryGpuBars(), `perGpu`) says "GPU 17", then
/// "\nstage 1" when staged, at every level. A group bar at level 0 says "GPU 0–7\n× 8"
/// (or "GPU 3" for one GPU), after "Stage 1\n" when staged; level 1 one line, "GPU 0–7"
/// or "Stage 1"; level 2 a number, "0–7" or "1".
std::string memoryBarLabel(const MemoryBar &b, bool staged, bool perGpu, int level);

/// The GPU axis' title in full: "GPUs (global rank)"; for group bars of stages at a
/// shortened `level` (> 0), whose labels are stage numbers alone, "Pipeline stage (16
/// GPUs each)" when every group has the same count, else "Pipeline stage".
std::string memoryAxisTitle(const std::vector<MemoryBar> &groups, bool staged, bool perGpu,
                            int level);

/// Whether the tick labels of memoryBarLabel() at `level` say all the axis title would:
/// per-GPU bars ("GPU 17"), group bars at level 0 ("GPU 0–7\n× 8", after their stage),
/// and unstaged group bars at level 1 ("GPU 0–7"); not stage numbers or bare ranks, nor
/// "Stage 1" alone (its title counts the stage's GPUs). A short chart drops the title
/// where this holds.
bool memoryTicksNameTheirGpus(bool staged, bool perGpu, int level);

} // namespace shardscope
