#pragma once

// The planner: which layouts of a model fit a GPU type at a GPU count (or range) and a
// global batch, ranked by step time (core/steptime.h). It enumerates a search space of
// parallel degrees, sharding, micro-batching, recomputation, schedules and offload,
// keeps what estimate() says fits (verdict() Kind::Fits), and times those. Its two
// pruning rules are exact (docs/steptime.md "Planner"); tests/core/test_planner.cpp
// checks the fit set equals a brute force over the same space.

#include "format.h"
#include "memoryreport.h"
#include "scenario.h"
#include "steptime.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace shardscope {

/// How plan() ranks the fitting layouts.
enum class PlanObjective
{
    Fastest,   ///< by step time (ties: fewer bytes, then fewer GPUs, then search order)
    FewestGpus ///< by GPU count, then as Fastest
};

/// What to search. Model, recipe, GPU, overheads, throughput and the training flags
/// that are not searched (FlashAttention, sequence parallel, activation bytes, loss
/// kernel, dropout, GPUs per node) come from `base`; base's layout degrees, strategy,
/// micro-batching, recomputation and schedule are replaced by the search.
struct PlanRequest
{
    Scenario base;
    std::int64_t minGpus = 8; ///< smallest world size searched
    std::int64_t maxGpus = 8; ///< largest world size searched (every count in between)
    /// Global batch, tokens per step; a multiple of base.training.sequenceLength. The
    /// sequences G = tokens / s split as m x b x d (d | G, b | G / d).
    std::int64_t globalBatchTokens = 4'194'304;
    /// t in powers of two up to this; above GPUs per node tensor parallelism crosses
    /// nodes, at the NIC's bandwidth (core/time/collectives.h).
    int maxTensorParallel = 8;
    int maxPipelineParallel = 0; ///< p: divisors of the layers up to this; 0: up to L
    /// Also p that do not divide the layers, with uneven stages (Layout::
    /// allowUnevenStages: the first L % p stages take one more layer). Llama 3 405B ran
    /// its 126 layers on 16 stages (Dubey et al. 2024, section 3.3.2): where p divides
    /// L + 2 the planner uses that paper's balanced stages (Layout::balancedStages), so
    /// interleaving is open to them too.
    bool unevenStages = true;
    int maxContextParallel = 1;         ///< c in powers of two up to this
    int maxExpertParallel = 0;          ///< e: divisors of the experts up to this; 0: all (MoE)
    std::int64_t maxMicroBatchSize = 8; ///< b in powers of two up to this
    std::vector<ZeroStage> strategies = {ZeroStage::Ddp, ZeroStage::Zero1, ZeroStage::Zero2,
                                         ZeroStage::Zero3};
    std::vector<Recompute> recomputes = {Recompute::None, Recompute::Selective, Recompute::Full};
    /// Schedules tried when p > 1 (one stage has no schedule: 1F1B only).
    std::vector<PipelineSchedule> schedules = {
        PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved1F1B,
        PipelineSchedule::ZeroBubbleH1, PipelineSchedule::GPipe};
    /// v tried for interleaved 1F1B: every v from 2 to maxChunks that divides the layers
    /// per stage (published layouts use 3, 5, 6 and 8: Korthikanti et al. 2022, NeMo,
    /// Llama 3), or exactly `interleavedChunks` when that is not empty.
    int maxChunks = 8;
    std::vector<int> interleavedChunks = {};
    bool offload = true; ///< also try CPU offload (optimizer from ZeRO-1, +params with ZeRO-3)
    /// When not empty, the offload modes tried (each where the strategy allows it).
    std::vector<Offload> offloads = {};
    /// When not empty, the only degrees tried (each still dividing the GPU count, the
    /// experts, ...); empty: searched within the max* bounds.
    std::vector<int> tensorParallelDegrees = {}, pipelineParallelDegrees = {},
                     contextParallelDegrees = {}, expertParallelDegrees = {};
    /// When not empty, the only micro-batch sizes tried (each dividing G / d).
    std::vector<int> microBatchSizes = {};
    /// Keep only layouts whose busiest GPU holds at most (100 - this)% of the card's usable
    /// bytes (Gpu::usableBytes(), the driver's total): room for what no estimate sees (allocator
    /// spikes, a longer batch, a framework update).
    int headroomPercent = 5;
    /// Also try HSDP for ZeRO-3: shard within a node (GPUs per node / t ranks).
    bool hsdp = true;
    /// Exact pruning (off: brute force, for the test). Skips a layout (every schedule,
    /// recomputation and micro-batch of one set of degrees, strategy, HSDP shard and
    /// offload) whose model states alone overflow the GPU, since activations and
    /// buffers only add bytes; and within one (layout, schedule, recomputation) every
    /// micro-batch size above one whose b-growing floor (model states, fixed buffers and
    /// one chunk set of activations) overflows, since that floor never falls as b grows.
    bool prune = true;
    PlanObjective objective = PlanObjective::Fastest; ///< the order of PlanResult::fitting
    /// Keep only the best `keep` fitting layouts (0: all). The rows kept are exactly the
    /// first `keep` of the full ranking. A fitting candidate that cannot enter them is
    /// counted (PlanResult::fittingCount) but not kept, and not timed when a lower bound
    /// on its step time (its busiest stage's compute, which every step time includes)
    /// already ranks it below the kept rows. With PlanObjective::Fastest, once `keep` rows
    /// are kept, a whole layout whose compute alone (the model's compute over its p stages,
    /// at its fastest micro-batch size and recomputation) is slower than the worst kept
    /// row is skipped without an estimate (PlanResult::candidatesSlower): its candidates
    /// are neither estimated nor counted as fitting.
    std::int64_t keep = 0;
    /// Refuse (PlanResult::overLimit) a search of more candidates than this, counted before
    /// any is estimated; 0: no limit. Bounds the time and memory of a hostile request.
    std::int64_t maxCandidates = 0;
    /// Checked (relaxed load) before each layout's candidates; once true the search stops
    /// and the result is marked cancelled. Not owned; nullptr: never cancelled.
    const std::atomic<bool> *cancel = nullptr;
    /// Called on the searching thread with (candidates done, candidates in the space)
    /// every 65,536 candidates or so, and once at the end; empty: not called.
    std::function<void(std::int64_t done, std::int64_t total)> progress;
    /// When nothing fits (and the search was not cancelled), also work out which single
    /// changes would fit (nothingFitsFixes(), core/planexplain.h) into PlanResult::fixes,
    /// trying the leaner of `recipes` for the recipe.
    bool explainNothingFits = false;
    std::vector<Recipe> recipes = {}; ///< recipes a fix may switch to (a catalog's)
};

/// One layout that fits, with its memory and its time.
struct PlanCandidate
{
    Layout layout;
    Training training;
    std::int64_t peakBytes = 0; ///< MemoryReport::peakBytes(), bytes per GPU
    StepTime time;              ///< stepTime() of the scenario
};

/// A change to a plan request under which some layout fits (nothingFitsFixes()).
struct PlanFix
{
    std::string change; ///< for people, e.g. "16 GPUs", "full recomputation"
    std::string flags;  ///< the `shardscope plan` flags that make it, e.g. "--gpus 16"
    PlanCandidate best; ///< the fastest layout that fits under it
};

/// What plan() found.
struct PlanResult
{
    std::string error;                    ///< non-empty when the request was refused
    std::int64_t candidatesEvaluated = 0; ///< estimate() calls made on candidates
    std::int64_t candidatesPruned = 0;    ///< candidates skipped by the exact bounds
    /// Candidates skipped unestimated by the step-time bound (PlanRequest::keep): slower
    /// than every kept row whether they fit or not. 0 when keep is 0.
    std::int64_t candidatesSlower = 0;
    std::vector<PlanCandidate> fitting; ///< fitting layouts kept, best first (objective)
    /// Fitting layouts found among the estimated, kept or not (exact when nothing was
    /// skipped as slower: candidatesSlower 0).
    std::int64_t fittingCount = 0;
    std::int64_t candidates = 0; ///< the search space's size (evaluated + pruned + slower)
    bool overLimit = false;      ///< refused: the space has more than request.maxCandidates
    bool cancelled = false;      ///< stopped by request.cancel; the counts are those done so far
    /// With PlanRequest::explainNothingFits and no layout fitting: the single changes that
    /// would fit (nothingFitsFixes()); else empty.
    std::vector<PlanFix> fixes;

    bool valid() const { return error.empty(); }
};

/// The scenario a candidate describes: `base` with its layout and training replaced.
Scenario candidateScenario(const Scenario &base, const Layout &layout, const Training &training);

/// Searches the request's space; fitting layouts sorted by step time (ties: fewer
/// bytes, then fewer GPUs, then the order searched), or with PlanObjective::FewestGpus
/// by GPU count first. Candidates whose step cannot be timed (a GPU speed is
/// unknown) still fit and sort last with their StepTime::error. Refuses (error) a
/// model without an architecture, a global batch not a multiple of the sequence length,
/// a GPU range outside 1..maxGpus, or (overLimit) more candidates than maxCandidates;
/// a cancelled search has an error too ("cancelled ..."), and what it found so far.
PlanResult plan(const PlanRequest &request);

/// The fewest GPUs in [minGpus, maxGpus] at which some layout of `strategy` fits
/// (searching the request's space at each count in turn); 0 when none does.
struct FewestGpus
{
    ZeroStage strategy = ZeroStage::Ddp;
    std::int64_t gpus = 0; ///< 0: no count in the range fits
    PlanCandidate fastest; ///< the fastest fitting layout at that count
};
/// fewestGpus() for each strategy of the request, in its order.
std::vector<FewestGpus> fewestGpus(const PlanRequest &request);

/// The largest micro-batch size b (m kept) at which `s` fits, up to maxMicroBatchSize;
/// 0 when b = 1 does not. Memory grows with b (every activation term is linear in b),
/// so a binary search is exact.
std::int64_t largestMicroBatch(const Scenario &s);

/// The longest sequence length at which `s` fits, among multiples of c (c x t with
/// sequence parallel and t > 1), up to maxSequenceLength; 0 when none does. Memory
/// grows with s, so a binary search is exact.
std::int64_t longestSequence(const Scenario &s);

/// The "What fits?" line of a scenario: for its model, recipe, GPU and every other
/// setting (t, p, c, e, micro-batching, recomputation, offload, HSDP shard kept), the
/// fewest GPUs at which each strategy fits with the data-parallel degree searched, and
/// the fastest fitting layout at its own GPU count.
struct WhatFits
{
    /// The fewest GPUs of one strategy: the first of the GPU slider's counts (1, 2, 3,
    /// 4, 6, 8, 12, 16, ... x t p c, up to maxGpuSliderCount) at which it fits; 0 when
    /// none does ("never").
    struct Fewest
    {
        ZeroStage strategy = ZeroStage::Ddp;
        std::int64_t gpus = 0;
    };
    std::string error; ///< non-empty when the scenario itself is refused (validate())
    Fewest fewest[4] = {{ZeroStage::Ddp, 0},
                        {ZeroStage::Zero1, 0},
                        {ZeroStage::Zero2, 0},
                        {ZeroStage::Zero3, 0}}; ///< DDP, ZeRO-1, ZeRO-2, ZeRO-3
    std::int64_t gpus = 0;      ///< the scenario's GPU count, where `fastest` is searched
    bool fastestFound = false;  ///< some strategy x recompute x micro-batch fits at `gpus`
    PlanCandidate fastest;      ///< the fastest of those (fewer bytes on ties)
    std::int64_t evaluated = 0; ///< estimate() calls made

    bool valid() const { return error.empty(); }
};

/// whatFits() of `s`. Fewest GPUs: a linear scan up the slider's counts n = k x t p c
/// (d = k), the first fitting count per strategy (exact by construction: every count
/// below it was estimated and did not fit). Fastest at s.layout.gpus: every strategy x
/// {none, selective, full} recomputation x micro-batch size b (powers of two dividing
/// the scenario's b x m, m = b x m / b, so the global batch is kept), keeping the
/// degrees; ranked by stepTime(), untimable ones last. Takes tens of microseconds for
/// Llama 3 70B (tests/bench BM_WhatFits).
WhatFits whatFits(const Scenario &s);

/// One line, e.g. "Fits from: DDP never · ZeRO-1 256 GPUs · ZeRO-2 128 · ZeRO-3 24 ·
/// fastest at 64: ZeRO-3, selective, b 2, 12.1 s/step, 41% MFU, 71.2 GB". Bytes in
/// `unit`; a fastest layout whose step cannot be timed shows its bytes only, and
/// "nothing fits at N" when none fits. The error when `w` is invalid.
std::string whatFitsText(const WhatFits &w, ByteUnit unit);

} // namespace shardscope
