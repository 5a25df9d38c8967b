#pragma once

#include "inputlimits.h"
#include "memoryreport.h"
#include "scenario.h"

#include <string>
#include <vector>

namespace shardscope {

// The engine's input bounds (maxGpus, maxParameters, ...) are in inputlimits.h.

/// Checks a scenario; empty when it can be estimated, else a one-line reason
/// naming the bad input, for example "gpus must be at least 1 (got 0)" or
/// "gpus (100) is not divisible by t x p x c (8 x 4 x 1 = 32)". Impossible
/// layouts are refused, never rounded.
std::string validate(const Scenario &s);

/// Elements of an n-element tensor one rank of a d-way shard holds: ceil(n / d).
/// Flat shards are padded to a multiple of d (PyTorch FSDP FlatParameter,
/// DeepSpeed ZeRO partitions), so the last rank holds as much as the others.
std::int64_t shardElements(std::int64_t n, std::int64_t d);

/// Transformer layers on pipeline stage `stage` of p: L / p each, and with
/// uneven stages allowed the first L % p stages take one more.
int stageLayerCount(int layers, int stages, int stage);

/// The pipeline schedule a scenario runs: its schedule, p stages, m micro-batches
/// (at most 2^30) and v chunks (the scenario's for interleaved 1F1B, else 1). The
/// estimate, the report's timeline and the window's timeline all schedule this.
ScheduleParams scheduleParams(const Scenario &s);

/// One step of a stage's memory over a training step: from `time` (forward-pass units)
/// until the next step's time, each GPU of the stage holds `bytes`.
struct MemoryStep
{
    double time = 0;
    std::int64_t bytes = 0;
};

/// A stage's memory per GPU over the step (the timeline's memory chart): the report's
/// total with the layer, embedding and logits activations replaced by the sets the
/// schedule holds at each moment, k x chunkActivationBytes + k_e x
/// embeddingBytesPerMicroBatch + k_o x outputBytesPerMicroBatch (GpuGroup documents
/// the terms). One step at every time any of the three counts changes, plus one at
/// `makespan`; the largest equals group.totalBytes() when the report and the timeline
/// come from the same scenario (tests/core/test_schedule.cpp checks it).
std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &group, const StageTimeline &stage,
                                            double makespan);

/// A stage's memory per GPU with `inFlight` chunk sets, `embeddingInFlight` embedding
/// sets and `headInFlight` logits sets held, bytes: the report's total with its
/// activations replaced by those sets (the formula stageMemoryOverTime() steps through).
std::int64_t stageBytesHolding(const GpuGroup &group, int inFlight, int embeddingInFlight,
                               int headInFlight);

/// The value of a step function (StageTimeline::inFlight and kin) at `time`: the last
/// entry at or before it; 0 before the first entry and for an empty function.
int stepValueAt(const std::vector<std::pair<double, int>> &steps, double time);

/// The same from the three step functions alone (StageTimeline::inFlight,
/// embeddingInFlight, headInFlight), for a caller that keeps only those.
using InFlightSteps = std::vector<std::pair<double, int>>;
std::vector<MemoryStep> stageMemoryOverTime(const GpuGroup &group, const InFlightSteps &inFlight,
                                            const InFlightSteps &embeddingInFlight,
                                            const InFlightSteps &headInFlight, double makespan);

/// Per-GPU memory for the scenario, one group per pipeline stage.
///
/// Model states (docs/architecture.md "Model states"; Rajbhandari et al. 2020, section 5): the
/// stage's parameters per tensor-parallel rank, Psi, are sharded over the ZeRO group D
/// (Layout::shardGroup) with shard(Psi) = ceil(Psi / D):
///   DDP     Psi (w + g + m + o)
///   ZeRO-1  Psi (w + g) + shard(Psi) (m + o)
///   ZeRO-2  Psi w + shard(Psi) (g + m + o)
///   ZeRO-3  shard(Psi) (w + g + m + o)
/// (Rajbhandari et al. 2020, section 5 and Figure 1.) Offload moves master
/// weights, optimizer states and, from ZeRO-2, gradient shards to host RAM
/// (and, with params, ZeRO-3 weight shards). Activations follow activations.h
/// times the schedule's peak in-flight micro-batches per stage
/// (peakInFlightBound). Buffers are the Overheads settings. Communication per
/// step: ring collectives, every term written out in docs/architecture.md
/// "Communication per GPU per step".
/// An invalid scenario yields a report whose `error` says why, and no groups.
MemoryReport estimate(const Scenario &s);

} // namespace shardscope
