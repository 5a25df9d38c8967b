#pragma once

// Why a plan ranks what it ranks, and what would fit when nothing does: the planner's
// answers explained for people (docs/performance.md "Planner").

#include "format.h"
#include "planner.h"
#include "recipe.h"

#include <string>
#include <vector>

namespace shardscope {

/// The settings where two layouts differ, each as "name a vs b" in the order of the
/// plan's table (GPUs, d, t, p, c, e, strategy, HSDP shard, b, m, recomputation,
/// schedule, offload), e.g. {"offload none vs optimizer", "b 1 vs 2"}. Empty when the
/// two are the same layout.
std::vector<std::string> layoutDifferences(const PlanCandidate &a, const PlanCandidate &b);

/// One line on why the best layout `first` ranks above the runner-up `second`: the
/// settings they differ in and the parts of the step (stepBreakdown()) that differ most,
/// largest first, signed as the runner-up's extra seconds, e.g. "Why #1 beats #2 by
/// 0.071 s a step (0.3%): #2 has offload optimizer, not none: CPU optimizer step
/// +0.052 s, offload traffic +0.021 s." Parts under 1 ms and under 0.1% of the step are
/// left out. When either step is untimed: which one and why. Bytes are not compared:
/// both fit, and the plan ranks by time.
std::string whyFirstText(const PlanCandidate &first, const PlanCandidate &second);

/// The changes, each made alone to request `q`, under which some layout fits, tried in
/// this order and each kept when it fits:
///  1. more GPUs: the first of the GPU slider's counts (gpuSliderCounts(), 1 ... 16,384)
///     above q.maxGpus at which a layout fits;
///  2. no headroom (when q.headroomPercent > 0);
///  3. each restricted setting searched in full: strategy, recomputation, schedule,
///     offload (also when q.offload is off), t, p, c, e and the micro-batch sizes;
///  4. a leaner recipe: of `recipes`, those with fewer bytes per parameter than the
///     base's, the closest to it first, the first that fits.
/// Each fix carries the fastest layout it finds (PlanRequest::keep 1). A fix costs one
/// plan() each (more GPUs: one per count tried), bounded by q.maxCandidates; a count
/// whose space is over it is skipped. Empty when the request is refused or none fits.
std::vector<PlanFix> nothingFitsFixes(const PlanRequest &q, const std::vector<Recipe> &recipes);

/// Lines explaining an empty plan: "Nothing fits. Each of these changes alone would:"
/// then one line per fix, "  <change> (<flags>): <fastest layout>, <peak> GB,
/// <step> s/step", the peak in `unit` (GB = 1e9 bytes or GiB = 2^30) to one decimal; or
/// "Nothing fits, and no single change tried (more GPUs up to 16,384, no headroom, a full
/// search of each restricted setting, a leaner recipe) makes it fit." when `fixes` is
/// empty. Lines end in '\n'.
std::string nothingFitsText(const std::vector<PlanFix> &fixes, ByteUnit unit);

/// The layout of a plan row in one phrase, e.g. "zero3, t 8 p 1 d 2, b 1, m 16,
/// recompute selective" (schedule, chunks and offload named when they apply).
std::string candidateText(const PlanCandidate &c);

} // namespace shardscope
