#pragma once

// The starting point of every front end, and the layout rules the window's controls
// and the commands share. The window (ui/shell/session), `shardscope report`, `plan`,
// `export`, scenario files and lessons (io/scenariofile defaultScenario()) all start
// from defaultScenario(); the GPU slider (ui/panels/headlinecontrols) and whatFits()
// (core/planner) step through gpuSliderCounts(); the Advanced panel and the pipeline
// tab change t, p and c through setDegreesKeepingData().

#include "scenario.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace shardscope {

/// Catalog id of the model every front end starts on (resources/data/models.json).
inline constexpr std::string_view defaultModelId = "llama3-70b";
/// Catalog id of the starting recipe: mixed-precision AdamW, 16 bytes per parameter
/// (resources/data/recipes.json).
inline constexpr std::string_view defaultRecipeId = "mixed-adam";
/// Catalog id of the starting GPU (resources/data/gpus.json).
inline constexpr std::string_view defaultGpuId = "h100-sxm-80gb";
/// World size every front end starts on: 64 GPUs, where DDP overflows Llama 3 70B's
/// 1,120 GB of model states on an 80 GB card and ZeRO-3 holds 17.5 GB of them.
inline constexpr std::int64_t defaultGpuCount = 64;

/// The scenario every front end starts from: `model`, `recipe` and `gpu` (the caller
/// looks up defaultModelId, defaultRecipeId and defaultGpuId in its catalog, since
/// core/ reads no files) on defaultGpuCount GPUs under DDP, with the Layout, Training,
/// Overheads and Throughput defaults of core/scenario.h otherwise.
Scenario defaultScenario(Model model, Recipe recipe, Gpu gpu);

/// The GPU slider's counts: k x `multiple` for k in 1, 2, 3, 4, 6, 8, 12, 16, ...
/// (each power of two from 2, and three quarters of it from 4 on), up to
/// maxGpuSliderCount (core/inputlimits.h). `multiple` is t x p x c (below 1 taken as
/// 1), so every count divides into whole data-parallel replicas. Empty when `multiple`
/// passes maxGpuSliderCount; the window clamps it to that first.
std::vector<std::int64_t> gpuSliderCounts(std::int64_t multiple = 1);

/// The index in `counts` (non-empty) of the count nearest `gpus`, the first on a tie.
std::size_t nearestGpuSliderIndex(const std::vector<std::int64_t> &counts, std::int64_t gpus);

/// Sets the tensor, pipeline and context degrees of `l` while keeping its
/// data-parallel degree d (at least 1): the world size becomes d x t x p x c, clamped
/// to [1, maxGpus] (core/inputlimits.h). What the window's t, p and c controls do.
void setDegreesKeepingData(Layout &l, int tensorParallel, int pipelineParallel,
                           int contextParallel);

/// Model chunks after the schedule is switched to `schedule`: for interleaved 1F1B,
/// `previousChunks` when it interleaves (>= 2), else defaultChunks() (core/settings.h);
/// for any other schedule defaultChunks(), which is 1.
int chunksForSchedule(PipelineSchedule schedule, int previousChunks);

} // namespace shardscope
