#pragma once

#include "inputlimits.h"

// Pipeline-parallel schedules: which operation each stage runs, in which order, and when.
// Rules and sources: docs/pipeline.md.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

/// A pipeline schedule.
///   GPipe            fill-drain: all forwards, then all backwards (Huang et al. 2019).
///   OneFOneB         1F1B / PipeDream-Flush: warm-up forwards, then one forward one backward
///                    (Narayanan et al. 2021; Megatron-LM
///                    forward_backward_pipelining_without_interleaving).
///   Interleaved1F1B  1F1B over v model chunks per stage (Narayanan et al. 2021, section 2.2;
///                    Megatron-LM forward_backward_pipelining_with_interleaving).
///   ZeroBubbleH1     ZB-H1: 1F1B with the backward split into B and W, W deferred into the
///                    cool-down bubble (Qi et al. 2023, arXiv:2401.10241, section 2.1).
enum class PipelineSchedule
{
    GPipe,
    OneFOneB,
    Interleaved1F1B,
    ZeroBubbleH1
};

/// Stable id for files and the command line: "gpipe", "1f1b", "interleaved", "zb-h1".
/// An out-of-range value gives "".
std::string_view pipelineScheduleId(PipelineSchedule s);
/// Display name: "GPipe", "1F1B", "Interleaved 1F1B", "ZB-H1". Out of range gives "".
std::string_view pipelineScheduleName(PipelineSchedule s);
/// The schedule with this id (exact, lower case, as pipelineScheduleId() writes it);
/// nullopt for anything else.
std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view id);

/// One kind of pipeline operation.
///   Forward         F: the forward pass of one micro-batch (one chunk) on one stage.
///   Backward        B: the full backward (input and weight gradients), GPipe and 1F1B.
///   BackwardInput   B of the zero-bubble schedules: the input gradient only; it is what
///                   the previous stage waits for.
///   BackwardWeight  W of the zero-bubble schedules: the weight gradient, which nothing
///                   downstream waits for.
enum class OpKind
{
    Forward,
    Backward,
    BackwardInput,
    BackwardWeight
};

/// Letter drawn on a timeline block: "F", "B", "B", "W" (B for both the full backward and
/// the zero-bubble input-gradient pass, as the papers draw them).
std::string_view opKindLabel(OpKind k);

/// Duration of each operation for one micro-batch on one stage (all of the stage's layers),
/// in arbitrary time units; only ratios matter. With v model chunks (interleaved), one
/// chunk's operation takes cost / v. Defaults: F = 1, full backward = 2 (twice the forward,
/// Narayanan et al. 2021), and for ZB-H1 B = W = 1 so that B + W = the full backward.
struct OpCosts
{
    double forward = 1;        ///< F
    double backward = 2;       ///< full backward B (GPipe, 1F1B, interleaved)
    double backwardInput = 1;  ///< input-gradient B (ZB-H1)
    double backwardWeight = 1; ///< weight-gradient W (ZB-H1)

    /// Field by field (exact: the costs are set, never computed).
    bool operator==(const OpCosts &) const = default;
};

// The generator's bounds (maxPipelineStages, maxMicroBatches, maxModelChunks,
// maxScheduleCells) are in inputlimits.h.

/// What to schedule: p stages, m micro-batches per training step, v model chunks per
/// stage (interleaved only; 1 otherwise), and the operation costs.
struct ScheduleParams
{
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int stages = 4;       ///< p, pipeline-parallel degree
    int microBatches = 8; ///< m, micro-batches per step
    int chunks = 1;       ///< v, model chunks per stage; > 1 only (and >= 2) for interleaved
    OpCosts costs;

    /// Field by field: two equal parameter sets schedule the same timeline.
    bool operator==(const ScheduleParams &) const = default;
};

/// One operation placed on the timeline.
struct PipelineOp
{
    OpKind kind = OpKind::Forward;
    int microBatch = 0; ///< 0 .. m-1
    int chunk = 0;      ///< model chunk 0 .. v-1 (always 0 unless interleaved)
    int stage = 0;      ///< 0 .. p-1; stage 0 holds the first layers
    double start = 0;   ///< time units from the start of the step
    double end = 0;     ///< start + the operation's cost
};

/// One stage's (one GPU's) share of the timeline.
struct StageTimeline
{
    std::vector<PipelineOp> ops; ///< in execution order; never overlapping
    double busy = 0;             ///< sum of the operations' durations, time units
    double bubbleFraction = 0;   ///< idle share of the makespan: (makespan - busy) / makespan
    /// Most (micro-batch, chunk) activation sets held at once. A set is held from the start
    /// of its F until the end of its B (the input-gradient B for ZB-H1). With v chunks each
    /// set covers 1/v of the stage's layers, so peakInFlight / v micro-batches' worth.
    int peakInFlight = 0;
    /// Step function of the sets held: (time, count from that time until the next entry).
    /// The first entry is at time 0, the last is (end of the last B, 0); only changes are
    /// listed. A B that ends when the next F starts is one entry (the release comes first).
    std::vector<std::pair<double, int>> inFlight;
    /// ZB-H1 only (0 otherwise): most micro-batches whose B has ended but whose W has not;
    /// each still holds the inputs the weight gradient needs, a smaller set than F's.
    int peakPendingWeightGrads = 0;
    /// ZB-H1 only (empty otherwise): step function of those, as inFlight.
    std::vector<std::pair<double, int>> pendingWeightGrads;
    /// First stage only (0 / empty elsewhere): most sets of chunk 0, which holds the
    /// token embedding, held at once, and their step function as inFlight. Each set keeps
    /// one micro-batch's embedding-side tensors.
    int peakEmbeddingInFlight = 0;
    std::vector<std::pair<double, int>> embeddingInFlight;
    /// Last stage only (0 / empty elsewhere): the same for chunk v - 1, which holds the
    /// output head, so each set keeps one micro-batch's logits.
    int peakHeadInFlight = 0;
    std::vector<std::pair<double, int>> headInFlight;
};

/// A whole training step's pipeline timeline (output of schedule()).
struct Timeline
{
    std::string error;                 ///< non-empty when the parameters were invalid; then
                                       ///< nothing else is set
    std::vector<StageTimeline> stages; ///< p entries, stage 0 first
    double makespan = 0;               ///< end of the last operation, time units
    /// Idle share of all stage-time: sum of idle / (p x makespan). GPipe and 1F1B:
    /// (p - 1) / (m + p - 1) (Huang et al. 2019; 42.9% for p = m = 4).
    double bubbleFraction = 0;
    /// Idle over busy time: sum of idle / sum of busy. GPipe and 1F1B: (p - 1) / m
    /// (Narayanan et al. 2021, section 2.2.1; 9.4% for p = 4, m = 32).
    double bubbleOverIdeal = 0;

    bool valid() const { return error.empty(); }
};

/// A schedule's bubble in closed form (docs/pipeline.md), for uniform stages and the
/// default costs: idle share of p x makespan = idle / shareDenominator, idle over
/// busy = idle / overIdealDenominator, with idle = p - 1 and
///   GPipe, 1F1B:     m + p - 1 and m        (Huang et al. 2019; Narayanan et al. 2021)
///   interleaved:     v m + p - 1 and v m    (the 1F1B bubble / v, Narayanan et al. 2021)
///   ZB-H1:           3 m + p - 1 and 3 m    (Qi et al. 2023, F = B = W, m >= p)
/// The simulated Timeline agrees when its assumptions hold; the window says which.
struct BubbleClosedForm
{
    long long idle = 0;                 ///< p - 1, in forward-pass units per stage
    long long shareDenominator = 0;     ///< makespan in forward-pass units
    long long overIdealDenominator = 0; ///< busy time per stage in forward-pass units
    std::string_view shareFormula;      ///< "(p − 1)/(m + p − 1)" (UTF-8, for display)
    std::string_view overIdealFormula;  ///< "(p − 1)/m"
    std::string_view source;            ///< the paper the form is from
    /// idle / shareDenominator, or -1 when undefined.
    double share() const { return shareDenominator > 0 ? double(idle) / shareDenominator : -1; }
    /// idle / overIdealDenominator, or -1 when undefined.
    double overIdeal() const
    {
        return overIdealDenominator > 0 ? double(idle) / overIdealDenominator : -1;
    }
};

/// The closed form of `params`' schedule (p, m, v as given; costs are not read).
BubbleClosedForm bubbleClosedForm(const ScheduleParams &params);

/// Checks the parameters; empty when they can be scheduled, else a one-line reason, such as
/// "stages must be at least 1 (got 0)" or
/// "interleaved 1F1B needs micro-batches (6) to be a multiple of stages (4)".
/// Limits: 1 <= p <= 1024, 1 <= m <= 65536, 1 <= v <= 64, v = 1 except for interleaved,
/// which needs v >= 2 and m a multiple of p (Megatron-LM), p m v <= 1048576, and the costs
/// the schedule uses positive and finite.
std::string validateSchedule(const ScheduleParams &params);

/// Generates every stage's operation order by the schedule's published rule (docs/pipeline.md)
/// and times it by simulation: an operation starts when the previous one on its stage and
/// the one it depends on have both ended (communication takes no time).
///   F(mb, c, i)   after F(mb, c, i-1); on stage 0, after F(mb, c-1, p-1)
///   B(mb, c, i)   after B(mb, c, i+1); on stage p-1, after B(mb, c+1, 0), and for the last
///                 chunk after F(mb, v-1, p-1)
///   W(mb, i)      after B(mb, i) on the same stage
/// Never throws on bad input: invalid parameters give a timeline whose `error` says why
/// (validateSchedule()'s text), and no stages.
/// Cost: linear in the number of operations (p m v x 2 or 3).
Timeline schedule(const ScheduleParams &params);

} // namespace shardscope

namespace shardscope {

/// Peak number of micro-batch chunks whose activations stage `stage` (0-based) holds
/// at once, in closed form: GPipe m; 1F1B and ZB-H1 min(p - i, m); interleaved 1F1B
/// min(2 (p - i - 1) + (v - 1) p + 1, m v) (Megatron-LM's warm-up count plus one).
/// Equals schedule(params).stages[stage].peakInFlight for valid params
/// (tests/core/test_schedule.cpp); the memory engine uses it to avoid simulating.
int peakInFlightBound(PipelineSchedule s, int stages, int microBatches, int chunks, int stage);

/// Peak number of micro-batches whose embedding output the first stage holds at once
/// (the sets of its chunk 0), in closed form: GPipe m; 1F1B and ZB-H1 min(p, m);
/// interleaved 1F1B min(2 p, m) (chunk 0 takes one group of p micro-batches in the
/// warm-up and most of the next before its first backward). Equals
/// schedule(params).stages[0].peakEmbeddingInFlight for valid params.
int embeddingInFlightBound(PipelineSchedule s, int stages, int microBatches, int chunks);

/// Peak number of micro-batches whose logits the last stage holds at once (the sets of
/// its chunk v - 1, which holds the output head): GPipe m (every forward runs before
/// any backward); 1F1B, ZB-H1 and interleaved 1F1B 1 (the last virtual stage runs each
/// micro-batch's backward right after its forward). Equals
/// schedule(params).stages[p - 1].peakHeadInFlight for valid params.
int headInFlightBound(PipelineSchedule s, int stages, int microBatches, int chunks);

} // namespace shardscope
