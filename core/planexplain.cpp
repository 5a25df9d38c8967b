#include "planexplain.h"

#include "activations.h"
#include "defaults.h"
#include "layout.h"
#include "schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace shardscope {

namespace {

/// `x` seconds with three decimals and a sign, e.g. "+0.052 s".
std::string signedSeconds(double x)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%+.3f s", x);
    return buf;
}

std::string fixed(double x, int decimals)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
    return buf;
}

/// The schedule of a row as the plan table writes it: "-" on one stage, "interleaved
/// v6" with its chunks.
std::string scheduleText(const PlanCandidate &c)
{
    if (c.layout.pipelineParallel == 1)
        return "-";
    std::string s(pipelineScheduleId(c.training.schedule));
    if (c.training.schedule == PipelineSchedule::Interleaved1F1B)
        s += " v" + std::to_string(c.training.chunks);
    return s;
}

} // namespace

std::vector<std::string> layoutDifferences(const PlanCandidate &a, const PlanCandidate &b)
{
    std::vector<std::string> out;
    const Layout &x = a.layout, &y = b.layout;
    auto number = [&out](const char *name, std::int64_t u, std::int64_t v) {
        if (u != v)
            out.push_back(std::string(name) + " " + std::to_string(u) + " vs " + std::to_string(v));
    };
    auto text = [&out](const char *name, std::string_view u, std::string_view v) {
        if (u != v)
            out.push_back(std::string(name) + " " + std::string(u) + " vs " + std::string(v));
    };
    number("GPUs", x.gpus, y.gpus);
    number("d", x.dataParallel(), y.dataParallel());
    number("t", x.tensorParallel, y.tensorParallel);
    number("p", x.pipelineParallel, y.pipelineParallel);
    number("c", x.contextParallel, y.contextParallel);
    number("e", x.expertParallel, y.expertParallel);
    text("strategy", zeroStageId(x.zeroStage), zeroStageId(y.zeroStage));
    number("HSDP shard", x.hsdpShardSize, y.hsdpShardSize);
    number("b", a.training.microBatchSize, b.training.microBatchSize);
    number("m", a.training.microBatches, b.training.microBatches);
    text("recompute", recomputeId(a.training.recompute), recomputeId(b.training.recompute));
    text("schedule", scheduleText(a), scheduleText(b));
    text("offload", offloadId(x.offload), offloadId(y.offload));
    return out;
}

std::string whyFirstText(const PlanCandidate &first, const PlanCandidate &second)
{
    if (!first.time.valid() || !second.time.valid())
        return std::string("Why #1 beats #2: ") +
               (first.time.valid() ? "#2's step cannot be timed (" + second.time.error + ")"
                                   : "neither step can be timed (" + first.time.error + ")") +
               ".";
    const StepBreakdown p = stepBreakdown(first.time), q = stepBreakdown(second.time);
    struct Part
    {
        const char *name;
        double delta;
    };
    Part parts[] = {{"forward", q.forward - p.forward},
                    {"backward", q.backward - p.backward},
                    {"recompute", q.recompute - p.recompute},
                    {"bubble", q.bubble - p.bubble},
                    {"optimizer step", q.optimizer - p.optimizer},
                    {"offload traffic", q.offload - p.offload},
                    {"CPU optimizer step", q.cpuOptimizer - p.cpuOptimizer},
                    {"tensor-parallel traffic", q.tensorParallel - p.tensorParallel},
                    {"context-parallel traffic", q.contextParallel - p.contextParallel},
                    {"expert-parallel traffic", q.expertParallel - p.expertParallel},
                    {"pipeline traffic", q.pipelineParallel - p.pipelineParallel},
                    {"data-parallel traffic", q.dataParallel - p.dataParallel}};
    std::stable_sort(std::begin(parts), std::end(parts), [](const Part &u, const Part &v) {
        return std::fabs(u.delta) > std::fabs(v.delta);
    });
    const double gap = second.time.stepSeconds - first.time.stepSeconds;
    std::string out = "Why #1 beats #2 by " + fixed(gap, 3) + " s a step (" +
                      fixed(100 * gap / second.time.stepSeconds, 1) + "%)";
    const std::vector<std::string> differs = layoutDifferences(first, second);
    if (!differs.empty()) {
        out += ": #1 against #2 has ";
        for (std::size_t i = 0; i < differs.size(); ++i)
            out += (i ? ", " : "") + differs[i];
    }
    std::string shown;
    int count = 0;
    const double floor = std::max(1e-3, 1e-3 * second.time.stepSeconds);
    for (const Part &part : parts) {
        if (count == 3 || std::fabs(part.delta) < floor)
            break;
        shown += std::string(count++ ? ", " : "") + part.name + " " + signedSeconds(part.delta);
    }
    if (!shown.empty())
        out += "; #2's step: " + shown;
    return out + ".";
}

std::string candidateText(const PlanCandidate &c)
{
    const Layout &l = c.layout;
    std::string out = std::string(zeroStageId(l.zeroStage));
    if (l.hsdpShardSize > 0)
        out += " (HSDP shard " + std::to_string(l.hsdpShardSize) + ")";
    out += ", t " + std::to_string(l.tensorParallel) + " p " + std::to_string(l.pipelineParallel);
    if (l.contextParallel > 1)
        out += " c " + std::to_string(l.contextParallel);
    if (l.expertParallel > 1)
        out += " e " + std::to_string(l.expertParallel);
    out += " d " + std::to_string(l.dataParallel());
    out += ", b " + std::to_string(c.training.microBatchSize) + ", m " +
           std::to_string(c.training.microBatches) + ", recompute " +
           std::string(recomputeId(c.training.recompute));
    if (l.pipelineParallel > 1)
        out += ", " + scheduleText(c);
    if (l.offload != Offload::None)
        out += ", offload " + std::string(offloadId(l.offload));
    return out;
}

std::vector<PlanFix> nothingFitsFixes(const PlanRequest &request,
                                      const std::vector<Recipe> &recipes)
{
    std::vector<PlanFix> out;
    PlanRequest base = request;
    base.keep = 1;
    base.explainNothingFits = false;
    base.progress = nullptr;
    base.objective = PlanObjective::Fastest;
    // Plans `q`; when a layout fits, keeps the fix. True when it fit.
    auto attempt = [&out](const PlanRequest &q, std::string change, std::string flags) {
        if (q.cancel != nullptr && q.cancel->load(std::memory_order_relaxed))
            return false;
        const PlanResult r = plan(q);
        if (!r.valid() || r.fitting.empty())
            return false;
        out.push_back({std::move(change), std::move(flags), r.fitting.front()});
        return true;
    };

    // 1. More GPUs: the first slider count above the range that fits.
    for (std::int64_t n : gpuSliderCounts()) {
        if (n <= request.maxGpus)
            continue;
        PlanRequest q = base;
        q.minGpus = q.maxGpus = n;
        if (attempt(q, std::to_string(n) + " GPUs", "--gpus " + std::to_string(n)))
            break;
    }
    // 2. No headroom.
    if (request.headroomPercent > 0) {
        PlanRequest q = base;
        q.headroomPercent = 0;
        attempt(q, "no headroom", "--headroom-percent 0");
    }
    // 3. Each restricted setting searched in full.
    const PlanRequest full; // the default search space
    auto relax = [&](bool restricted, const char *change, const char *flag,
                     const std::function<void(PlanRequest &)> &widen) {
        if (!restricted)
            return;
        PlanRequest q = base;
        widen(q);
        attempt(q, change, std::string("without ") + flag);
    };
    relax(request.strategies.size() < full.strategies.size(), "every strategy", "--strategy",
          [&](PlanRequest &q) { q.strategies = full.strategies; });
    relax(request.recomputes.size() < full.recomputes.size(), "every recomputation", "--recompute",
          [&](PlanRequest &q) { q.recomputes = full.recomputes; });
    relax(request.schedules.size() < full.schedules.size() || !request.interleavedChunks.empty(),
          "every schedule", "--schedule/--chunks", [&](PlanRequest &q) {
              q.schedules = full.schedules;
              q.interleavedChunks.clear();
          });
    relax(!request.offload || !request.offloads.empty(), "CPU offload", "--offload",
          [](PlanRequest &q) {
              q.offload = true;
              q.offloads.clear();
          });
    relax(!request.tensorParallelDegrees.empty(), "every tensor-parallel degree", "--tp",
          [](PlanRequest &q) { q.tensorParallelDegrees.clear(); });
    relax(!request.pipelineParallelDegrees.empty(), "every pipeline-parallel degree", "--pp",
          [](PlanRequest &q) { q.pipelineParallelDegrees.clear(); });
    relax(!request.contextParallelDegrees.empty(), "every context-parallel degree", "--cp",
          [](PlanRequest &q) { q.contextParallelDegrees.clear(); });
    relax(!request.expertParallelDegrees.empty(), "every expert-parallel degree", "--ep",
          [](PlanRequest &q) { q.expertParallelDegrees.clear(); });
    relax(!request.microBatchSizes.empty(), "every micro-batch size", "--mbs",
          [](PlanRequest &q) { q.microBatchSizes.clear(); });
    // 4. A leaner recipe: fewer bytes per parameter, the closest first.
    const std::int64_t now = request.base.recipe.totalBytesPerParameter();
    std::vector<const Recipe *> leaner;
    for (const Recipe &r : recipes)
        if (r.totalBytesPerParameter() < now && validateRecipe(r).empty())
            leaner.push_back(&r);
    std::stable_sort(leaner.begin(), leaner.end(), [](const Recipe *a, const Recipe *b) {
        return a->totalBytesPerParameter() > b->totalBytesPerParameter();
    });
    for (const Recipe *r : leaner) {
        PlanRequest q = base;
        q.base.recipe = *r;
        const std::string name = r->displayName.empty() ? r->id : r->displayName;
        if (attempt(q, "recipe " + name, "--recipe " + r->id))
            break;
    }
    return out;
}

std::string nothingFitsText(const std::vector<PlanFix> &fixes, ByteUnit unit)
{
    if (fixes.empty())
        return "Nothing fits, and no single change tried (more GPUs up to 16,384, no headroom, "
               "a full search of each restricted setting, a leaner recipe) makes it fit.\n";
    std::string out = "Nothing fits. Each of these changes alone would:\n";
    for (const PlanFix &f : fixes) {
        out += "  " + f.change + " (" + f.flags + "): " + candidateText(f.best) + ", " +
               fixed(double(f.best.peakBytes) / unitBytes(unit), 1) + " " + unitName(unit);
        if (f.best.time.valid())
            out += ", " + fixed(f.best.time.stepSeconds, 3) + " s/step";
        out += "\n";
    }
    return out;
}

} // namespace shardscope
