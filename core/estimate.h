#pragma once

#include "inputlimits.h"
#include "memoryreport.h"
#include "scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// The engine's input bounds (maxGpus, maxParameters, ...) are in inputlimits.h.

/// Checks a scenario; empty when it can be estimated, else a one-line reason
/// naming the bad input, for example "gpus must be at least 1 (got 0)" or
/// "gpus (100) is not divisible by t x p x c (8 x 4 x 1 = 32)". Impossible
/// layouts are refused, never rounded.
std::string validate(const Scenario &s);

/// What the estimate needs of a model that depends on the model alone, worked out once
/// by prepare(): the architecture check, the exact total and active parameter counts,
/// each kind of block's parameters (before the t and e splits) and the MoE note's
/// model part. A planner or a layout slider that keeps the model reuses one across
/// scenarios; estimate(prepared, s) then skips that work. Read-only once prepared:
/// the fields are filled by prepare() and read by the engine.
struct PreparedModel
{
    /// Parameters of one kind of block (blockParametersPerRank in core/estimate/stageplan.h):
    /// `split` elements are split t ways, `replicated` ones are whole on every tensor
    /// rank (norms, row-parallel output biases, MLA latent norms, the MoE router);
    /// for a MoE block each of the `experts` routed experts has `expertSplit` elements
    /// split t ways and `expertReplicated` whole (its down-projection bias).
    struct Block
    {
        std::int64_t split = 0;
        std::int64_t replicated = 0;
        std::int64_t expertSplit = 0;
        std::int64_t expertReplicated = 0;
    };

    std::optional<Architecture> architecture; ///< the model's shape; nullopt: a plain count
    /// validate()'s reason for the model alone ("model: ..." for a bad architecture, or
    /// a parameter count out of 1 .. 1e14), which it reports before any other input;
    /// empty when the model can be estimated.
    std::string error;
    std::int64_t parameters = 0;       ///< Model::parameters() (0 with an architecture error)
    std::int64_t activeParameters = 0; ///< Model::activeParameters() (likewise)
    Block dense;                       ///< the dense blocks (layer 0, or the first denseLayers)
    Block moe;                         ///< the MoE blocks (layer denseLayers on); MoE only
    std::int64_t keyValueWidth = 0;    ///< keyWidth() + valueWidth(), elements per token
    /// MoE only: the note's start, "Mixture of experts: 37.6B of 671.0B parameters active
    /// per token; each GPU holds " (formatParameters of the counts).
    std::string moeNotePrefix;
    /// prepare()'s serial number, different for every call (0 in a default-constructed
    /// one). The engine keeps, per thread, the activation figures of the last estimate
    /// under it and reuses them while the activation settings stay the same, so a
    /// PreparedModel is not to be edited after prepare() (copies share the serial and the
    /// contents, which is safe).
    std::uint64_t serial = 0;
};

/// Prepares `model` for estimate(prepared, s). Never fails: an invalid model gives a
/// PreparedModel whose `error` is the reason validate() would give for it.
PreparedModel prepare(const Model &model);

/// validate(s) with `prepared` standing for s.model (which is not read): the same
/// reason for a scenario whose model is the prepared one. Allocates nothing when valid.
std::string validate(const PreparedModel &prepared, const Scenario &s);

/// Elements of an n-element tensor one rank of a d-way shard holds: ceil(n / d).
/// Flat shards are padded to a multiple of d (PyTorch FSDP FlatParameter,
/// DeepSpeed ZeRO partitions), so the last rank holds as much as the others.
std::int64_t shardElements(std::int64_t n, std::int64_t d);

/// Transformer layers on pipeline stage `stage` of p: L / p each, and with
/// uneven stages allowed the first L % p stages take one more. With `balanced`
/// (Layout::balancedStages; p >= 2 and p | L + 2) the first and last stage hold
/// (L + 2) / p - 1 and the others (L + 2) / p.
int stageLayerCount(int layers, int stages, int stage, bool balanced = false);

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

/// estimate(s) with `prepared` standing for s.model (which is not read): for a scenario
/// whose model was prepared, the same report, field for field
/// (tests/core/test_equivalence.cpp checks 100,000 scenarios).
MemoryReport estimate(const PreparedModel &prepared, const Scenario &s);

/// The same into `out`, which is overwritten completely and whose storage (groups,
/// labels, notes) is reused: once `out` has held a report at least as large, a valid
/// estimate allocates nothing. The fast path for a planner or a slider that estimates
/// many scenarios of one model (tests/bench BM_Estimate measures it).
void estimate(const PreparedModel &prepared, const Scenario &s, MemoryReport &out);

/// estimate(prepared, s, out) without the engine's compiled-in fast path for plain
/// scenarios (a dense model with data, tensor and pipeline parallelism and none of the
/// optional features): every scenario takes the general code. The same report, field
/// for field; tests/core/test_equivalence.cpp checks that the two paths agree.
void estimateGeneral(const PreparedModel &prepared, const Scenario &s, MemoryReport &out);

} // namespace shardscope
