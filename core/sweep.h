#pragma once

// The strategy sweep (the window's Sweep tab and `export --chart sweep`): the comparison of
// core/compare.h repeated along one setting, so that a chart can draw each strategy's peak
// memory per GPU as a line against the GPU count, the sequence length or the micro-batch
// size. Each point is the engine's own estimate of the scenario with only that setting
// changed; a point the engine refuses (a GPU count that t x p x c does not divide, a
// sequence length that c does not divide, ...) has no value, so the chart leaves a gap.

#include "compare.h"
#include "scenario.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {

/// The setting a sweep varies.
enum class SweepAxis
{
    Gpus = 0,           ///< the world size, layout.gpus (t, p and c kept, so d follows)
    SequenceLength = 1, ///< training.sequenceLength, tokens per sequence
    MicroBatchSize = 2, ///< training.microBatchSize, sequences per micro-batch
    /// The GPU count again, at a fixed global batch (strong scaling: m follows d), and
    /// each strategy's step time (core/steptime.h stepTime()) is what is drawn, not its
    /// memory: how the step shortens with more GPUs and where communication stops it.
    StepTimeGpus = 3
};

/// True for the sweeps that draw step time (SweepAxis::StepTimeGpus), false for memory.
constexpr bool sweepsStepTime(SweepAxis axis)
{
    return axis == SweepAxis::StepTimeGpus;
}

/// Command-line id of `axis`: "gpus", "seq", "mbs" or "time" (step time against GPUs).
std::string_view sweepAxisId(SweepAxis axis);
/// The axis' title in words: "GPUs", "Sequence length (tokens)", "Micro-batch size",
/// "Step time against GPUs".
std::string_view sweepAxisTitle(SweepAxis axis);
/// The axis named `id` ("gpus", "seq", "mbs" or "time"; also "sequence", "micro-batch"
/// and "step-time");
/// std::nullopt for anything else.
std::optional<SweepAxis> parseSweepAxis(std::string_view id);

/// The values a sweep steps through, powers of two (a log2 axis spaces them evenly): GPUs
/// 1 to 16,384 (maxGpuSliderCount, core/inputlimits.h), sequence lengths 512 to 131,072
/// tokens, micro-batch sizes 1 to 64.
std::vector<std::int64_t> sweepValues(SweepAxis axis);

/// The scenario's own value of the swept setting: its GPUs, sequence length or micro-batch
/// size.
std::int64_t sweepValueOf(const Scenario &s, SweepAxis axis);

/// `s` with only the swept setting set to `value`; for StepTimeGpus also m, so that the
/// global batch m x b x d x s stays (m = 0, refused by the engine, where d does not
/// divide it).
Scenario withSweepValue(Scenario s, SweepAxis axis, std::int64_t value);

/// Each strategy's peak memory per GPU along one setting.
struct StrategySweep
{
    SweepAxis axis = SweepAxis::Gpus;
    std::vector<std::int64_t> values; ///< the x values, sweepValues(axis)
    /// peakBytes[k][i]: strategy k's (0 = DDP .. 3 = ZeRO-3, as compareStrategies())
    /// MemoryReport::peakBytes() at values[i], bytes per GPU (the busiest GPU); nullopt where
    /// the engine cannot estimate that layout.
    std::array<std::vector<std::optional<std::int64_t>>, 4> peakBytes;
    /// stepSeconds[k][i]: strategy k's stepTime().stepSeconds at values[i], seconds, for
    /// a step-time sweep (sweepsStepTime(axis); empty otherwise); nullopt where the layout
    /// cannot be estimated or timed. Memory that overflows the card is still timed: the
    /// line says how fast the layout would be, the memory sweep whether it fits.
    std::array<std::vector<std::optional<double>>, 4> stepSeconds;
    /// The card's capacity, bytes per GPU: Gpu::usableBytes(), what fit verdicts use.
    std::int64_t capacityBytes = 0;
};

/// compareStrategies(withSweepValue(s, axis, x)) for every x of sweepValues(axis): the four
/// strategies' peaks, with the same adjustments the comparison makes (DDP drops offload and
/// HSDP, ZeRO-1/2 offload the optimizer only), and for a step-time sweep their step times.
/// About 60 estimates for the GPU axis.
StrategySweep sweepStrategies(const Scenario &s, SweepAxis axis);

/// The step time a step-time sweep draws for scenario `s` and its report `r`, seconds:
/// stepTime(s, r).stepSeconds when `r` is valid and the time is finite and positive, else
/// nullopt (a gap in the line, or no dot for the scenario's own point).
std::optional<double> sweptStepSeconds(const Scenario &s, const MemoryReport &r);

} // namespace shardscope
