#pragma once

// Sets PyTorch's out-of-memory message (oommessage.h) against a scenario's prediction
// (estimate(), memoryreport.h): which part is over, and the smallest changes of layout
// that fit (planner.h). Pure: no I/O, no globals (docs/measurements.md "Explaining an
// OOM message").

#include "format.h"
#include "memoryreport.h"
#include "oommessage.h"
#include "planner.h"
#include "scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// What the explanation blames, in the order explainOom() tries them.
enum class OomCause
{
    /// One request larger than the whole card: no layout of memory can hold it.
    TensorLargerThanGpu,
    /// Reserved-but-unallocated memory would have held the request had it been one block
    /// (free + reserved-unallocated >= tried), and it is more than the scenario's
    /// fragmentation reserve (Overheads::fragmentationPercent of what PyTorch allocated).
    Fragmentation,
    Activations,         ///< the busiest GPU's largest predicted part is its activations
    OptimizerStates,     ///< ... its master weights and optimizer moments
    WeightsAndGradients, ///< ... its working weights and gradients
    Buffers,             ///< ... its buffers (CUDA context, buckets, gathered units)
    Unknown              ///< the scenario cannot be estimated (MemoryReport::error)
};

/// "tensor-larger-than-gpu", "fragmentation", "activations", "optimizer-states",
/// "weights-and-gradients", "buffers" or "unknown" (the JSON's `verdict.cause`).
std::string oomCauseId(OomCause c);

/// One layout the planner found that fits, with what it changes from the scenario.
struct OomSuggestion
{
    PlanCandidate candidate;
    /// The settings it changes, one "name old -> new" each ("recompute none -> selective",
    /// "tp 1 -> 8", "strategy ddp -> zero3"); the data-parallel degree and the
    /// micro-batch count follow from them and the kept global batch, and are not counted.
    std::vector<std::string> changes;
};

/// explainOom()'s answer.
struct OomExplanation
{
    std::string error; ///< non-empty when the scenario was refused; nothing else is set
    OomCause cause = OomCause::Unknown;
    /// One paragraph: the comparison of prediction and measurement, then the cause.
    std::string verdict;
    std::vector<std::string> advice;         ///< what to change for this cause, one sentence each
    std::int64_t predictedPeakBytes = 0;     ///< MemoryReport::peakBytes(), bytes per GPU
    std::int64_t predictedCapacityBytes = 0; ///< the scenario GPU's capacity, bytes
    ComponentBytes predicted;                ///< the busiest GPU's parts, bytes
    /// What the message says the process held: in use (newer wording), else PyTorch's
    /// reserved bytes plus the scenario's CUDA context (older wordings), bytes.
    std::optional<std::int64_t> measuredBytes;
    /// measuredBytes + the failed request: the least the step needed, bytes.
    std::optional<std::int64_t> measuredDemandBytes;
    /// The planner's headroom for the suggestions, percent of the card: 5, or, when the
    /// run needed r = measuredDemandBytes / predictedPeakBytes > 1 times the prediction,
    /// 100 - 95 / r (rounded up, at most 90): r x a layout's predicted peak within 95%.
    int headroomPercent = 5;
    std::vector<OomSuggestion> suggestions; ///< fewest changes first, then step time
    std::vector<std::string> notes;         ///< caveats, one sentence each
};

/// Explains message `m` against scenario `s` and its report `r` (r = estimate(s)):
/// 1. a request above the message's total capacity is TensorLargerThanGpu;
/// 2. Fragmentation when reserved-but-unallocated covers the shortfall (tried - free)
///    and exceeds s.overheads.fragmentationPercent of allocated-by-PyTorch: PyTorch had
///    the bytes, in pieces (the allocator releases every whole cached segment before it
///    raises: DeviceCachingAllocator::malloc, c10/cuda/CUDACachingAllocator.cpp), and the
///    advice is PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True;
/// 3. else the largest predicted part of the busiest GPU: activations, optimizer states
///    (master weights + moments), weights and gradients, or buffers, with its remedies.
/// The verdict compares the predicted peak with what the message measured. With
/// `suggestFits`, the planner (plan()) searches s's model at s's GPU count and global
/// batch with the headroom above, and the `keep` fitting layouts with the fewest changed
/// settings (then the shortest step), the scenario's own layout left out (it ran out of
/// memory), are the suggestions. Bytes in `unit` in the text.
OomExplanation explainOom(const OomMessage &m, const Scenario &s, const MemoryReport &r,
                          ByteUnit unit, bool suggestFits = true, std::size_t keep = 3);

/// The plain text `explain-oom` prints and the window's dialog shows: the message's six
/// numbers as PyTorch prints sizes (two decimals of GiB, MiB below 1 GiB; "-" when not
/// stated), its notes, "Verdict (cause): ...", what to change, the suggestions (bytes in
/// `unit`, step time when timed) and the explanation's notes, one item a line.
std::string oomExplanationText(const OomMessage &m, const OomExplanation &e, const Scenario &s,
                               ByteUnit unit);

/// The settings `c` changes from `s`, as OomSuggestion::changes words them.
std::vector<std::string> changedSettings(const Scenario &s, const PlanCandidate &c);

} // namespace shardscope
