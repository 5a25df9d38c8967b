#include "planner.h"

#include "defaults.h"
#include "estimate.h"
#include "inputlimits.h"
#include "planexplain.h"
#include "time/computetime.h"
#include "verdict.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <tuple>

namespace shardscope {

namespace {

/// Powers of two 1, 2, 4, ... up to `limit`.
std::vector<int> powersOfTwo(std::int64_t limit)
{
    std::vector<int> out;
    for (std::int64_t v = 1; v <= limit; v *= 2)
        out.push_back(int(v));
    return out;
}

/// Divisors of n up to `limit`, ascending.
std::vector<int> divisors(std::int64_t n, std::int64_t limit)
{
    std::vector<int> out;
    for (std::int64_t v = 1; v <= n && v <= limit; ++v)
        if (n % v == 0)
            out.push_back(int(v));
    return out;
}

bool fasterThan(const PlanCandidate &a, const PlanCandidate &b)
{
    const bool ta = a.time.valid(), tb = b.time.valid();
    if (ta != tb)
        return ta;
    if (ta && a.time.stepSeconds != b.time.stepSeconds)
        return a.time.stepSeconds < b.time.stepSeconds;
    return std::tie(a.peakBytes, a.layout.gpus) < std::tie(b.peakBytes, b.layout.gpus);
}

/// The schedules (and interleaving degrees v) tried for p stages: interleaving at every v
/// from 2 to q.maxChunks that divides the stages' layers (balanced stages: L + 2 layer
/// slots), or exactly q.interleavedChunks when given.
std::vector<std::pair<PipelineSchedule, int>> schedulesFor(const PlanRequest &q,
                                                           const Architecture &a, int p)
{
    std::vector<std::pair<PipelineSchedule, int>> out;
    const int perStage = a.layers % p == 0                       ? a.layers / p
                         : (std::int64_t(a.layers) + 2) % p == 0 ? (a.layers + 2) / p
                                                                 : 0;
    for (PipelineSchedule s : q.schedules) {
        if (s != PipelineSchedule::Interleaved1F1B) {
            out.push_back({s, 1});
        } else if (!q.interleavedChunks.empty()) {
            for (int v : q.interleavedChunks)
                out.push_back({s, v});
        } else {
            for (int v = 2; v <= q.maxChunks && v <= perStage; ++v)
                if (perStage % v == 0)
                    out.push_back({s, v});
        }
    }
    return out;
}

/// The offload modes tried under strategy `z`: q.offloads when given (each where `z`
/// allows it), else none, plus optimizer (ZeRO >= 1) and optimizer + parameters (ZeRO-3)
/// when q.offload. Returns how many of `out` are set.
int offloadsFor(const PlanRequest &q, ZeroStage z, Offload out[3])
{
    auto allowed = [&](Offload o) {
        return q.offloads.empty()
                   ? o == Offload::None || q.offload
                   : std::find(q.offloads.begin(), q.offloads.end(), o) != q.offloads.end();
    };
    int count = 0;
    if (allowed(Offload::None))
        out[count++] = Offload::None;
    if (allowed(Offload::Optimizer) && z != ZeroStage::Ddp)
        out[count++] = Offload::Optimizer;
    if (allowed(Offload::OptimizerAndParams) && z == ZeroStage::Zero3)
        out[count++] = Offload::OptimizerAndParams;
    return count;
}

/// The searched sets of a request, worked out once per search, and its degrees: every
/// (t, c, p, d) with n = t c p d GPUs in the request's range, d dividing the global
/// batch's sequences, in the order the search visits them (n, then t, c and p in their
/// lists' order), each with its count of candidates.
struct Space
{
    struct Degrees
    {
        std::int64_t gpus = 0, d = 0;
        int ti = 0, ci = 0, pi = 0;
    };
    std::int64_t sequences = 0, perNode = 1;
    std::vector<int> ts, cs, ps, es, bs;
    std::vector<std::vector<std::pair<PipelineSchedule, int>>> schedules; ///< by index in ps
    std::vector<Degrees> degrees;
    std::int64_t total = 0; ///< candidates in the space (when not overLimit)
    bool overLimit = false; ///< more than the request's maxCandidates; degrees incomplete
};

/// The HSDP shard sizes tried under strategy `z` at t, d, c (0: plain sharding, then
/// the node's GPUs / t when it is a proper divisor of d c); returns how many are set.
int shardsFor(const PlanRequest &q, const Space &sp, ZeroStage z, int t, std::int64_t d, int c,
              std::int64_t out[2])
{
    out[0] = 0;
    out[1] = 0;
    int count = 1;
    const std::int64_t inNode = sp.perNode / t;
    if (q.hsdp && z == ZeroStage::Zero3 && inNode > 1 && inNode < d * c && (d * c) % inNode == 0)
        out[count++] = inNode;
    return count;
}

/// Micro-batch sizes of `sp` that divide the G / d sequences each data-parallel rank runs.
int microBatchSizesFor(const Space &sp, std::int64_t d, int *out)
{
    int count = 0;
    for (int b : sp.bs)
        if ((sp.sequences / d) % b == 0)
            out[count++] = b;
    return count;
}

/// The request's space (PlanRequest); stops counting, overLimit, past q.maxCandidates.
Space searchSpace(const PlanRequest &q)
{
    Space sp;
    const Scenario &base = q.base;
    const Architecture &a = *base.model.architecture;
    sp.sequences = q.globalBatchTokens / base.training.sequenceLength;
    sp.perNode = std::max<std::int64_t>(1, base.layout.gpusPerNode);
    const int maxP =
        std::min<std::int64_t>(q.maxPipelineParallel > 0 ? q.maxPipelineParallel : a.layers,
                               std::min<std::int64_t>(a.layers, maxPipelineStages));
    const int maxE = a.isMoe() ? (q.maxExpertParallel > 0 ? q.maxExpertParallel : a.experts) : 1;
    sp.bs = q.microBatchSizes.empty() ? powersOfTwo(q.maxMicroBatchSize) : q.microBatchSizes;
    sp.ts = q.tensorParallelDegrees.empty() ? powersOfTwo(q.maxTensorParallel)
                                            : q.tensorParallelDegrees;
    sp.cs = q.contextParallelDegrees.empty() ? powersOfTwo(q.maxContextParallel)
                                             : q.contextParallelDegrees;
    sp.es = a.isMoe() ? divisors(a.experts, maxE) : std::vector<int>{1};
    if (!q.expertParallelDegrees.empty())
        sp.es = q.expertParallelDegrees;
    if (!q.pipelineParallelDegrees.empty()) {
        for (int p : q.pipelineParallelDegrees)
            if (p <= a.layers && (a.layers % p == 0 || q.unevenStages))
                sp.ps.push_back(p);
    } else {
        for (int p = 1; p <= maxP; ++p)
            if (a.layers % p == 0 || q.unevenStages)
                sp.ps.push_back(p);
    }
    for (int p : sp.ps)
        sp.schedules.push_back(
            p == 1 ? std::vector<std::pair<PipelineSchedule, int>>{{PipelineSchedule::OneFOneB, 1}}
                   : schedulesFor(q, a, p));

    std::vector<int> mbs(sp.bs.size());
    for (int ti = 0; ti < int(sp.ts.size()); ++ti)
        for (int ci = 0; ci < int(sp.cs.size()); ++ci)
            for (int pi = 0; pi < int(sp.ps.size()); ++pi) {
                const int t = sp.ts[std::size_t(ti)], c = sp.cs[std::size_t(ci)],
                          p = sp.ps[std::size_t(pi)];
                const std::int64_t tcp = std::int64_t(t) * c * p;
                if (tcp > q.maxGpus)
                    continue;
                const std::int64_t lo = std::max<std::int64_t>(1, (q.minGpus + tcp - 1) / tcp);
                const std::int64_t hi = std::min(q.maxGpus / tcp, sp.sequences);
                for (std::int64_t d = lo; d <= hi; ++d) {
                    if (sp.sequences % d != 0)
                        continue;
                    const std::int64_t perLayout =
                        std::int64_t(sp.schedules[std::size_t(pi)].size()) *
                        microBatchSizesFor(sp, d, mbs.data()) * std::int64_t(q.recomputes.size());
                    std::int64_t count = 0;
                    for (int e : sp.es) {
                        if ((d * c) % e != 0)
                            continue;
                        for (ZeroStage z : q.strategies) {
                            std::int64_t shards[2];
                            Offload offloads[3];
                            count += std::int64_t(shardsFor(q, sp, z, t, d, c, shards)) *
                                     offloadsFor(q, z, offloads) * perLayout;
                        }
                    }
                    if (count == 0)
                        continue;
                    sp.total += count;
                    if (q.maxCandidates > 0 && sp.total > q.maxCandidates) {
                        sp.overLimit = true;
                        sp.degrees.clear();
                        return sp;
                    }
                    sp.degrees.push_back({tcp * d, d, ti, ci, pi});
                }
            }
    std::sort(sp.degrees.begin(), sp.degrees.end(),
              [](const Space::Degrees &x, const Space::Degrees &y) {
                  return std::tie(x.gpus, x.ti, x.ci, x.pi) < std::tie(y.gpus, y.ti, y.ci, y.pi);
              });
    return sp;
}

/// Calls `visit(layout, training)` for every candidate of one set of degrees of `sp`.
/// Before a layout's candidates (every schedule, recomputation and micro-batch size of
/// one set of degrees, expert degree, strategy, HSDP shard and offload) it calls
/// `layoutOk(layout, training)`; when that returns false the layout's candidates are
/// skipped and `skipped(count)` is called. Within one (layout, schedule, recomputation)
/// the micro-batch sizes run from the smallest up, and when `visit` returns false the
/// larger ones are skipped (and counted with `skipped`). Returns false when `stop()`
/// (asked before each layout) says so.
template <typename LayoutOk, typename Visit, typename Skipped, typename Stop>
bool enumerate(const PlanRequest &q, const Space &sp, const Space::Degrees &g, LayoutOk layoutOk,
               Visit visit, Skipped skipped, Stop stop)
{
    thread_local std::vector<int> microBatchSizes; // scratch: no allocation once grown
    microBatchSizes.resize(sp.bs.size());
    const Scenario &base = q.base;
    const Architecture &a = *base.model.architecture;
    const int t = sp.ts[std::size_t(g.ti)], c = sp.cs[std::size_t(g.ci)],
              p = sp.ps[std::size_t(g.pi)];
    const std::int64_t n = g.gpus, d = g.d;
    const std::size_t mbsCount = std::size_t(microBatchSizesFor(sp, d, microBatchSizes.data()));
    const auto &scheds = sp.schedules[std::size_t(g.pi)];
    const std::int64_t perLayout =
        std::int64_t(scheds.size()) * std::int64_t(mbsCount) * std::int64_t(q.recomputes.size());
    if (perLayout == 0)
        return true;
    for (int e : sp.es) {
        if ((d * c) % e != 0)
            continue;
        for (ZeroStage z : q.strategies) {
            std::int64_t shards[2];
            const int shardCount = shardsFor(q, sp, z, t, d, c, shards);
            Offload offloads[3] = {Offload::None, Offload::None, Offload::None};
            const int offloadCount = offloadsFor(q, z, offloads);
            for (int si = 0; si < shardCount; ++si) {
                for (int oi = 0; oi < offloadCount; ++oi) {
                    if (stop())
                        return false;
                    Layout l = base.layout;
                    l.gpus = n;
                    l.tensorParallel = t;
                    l.pipelineParallel = p;
                    l.contextParallel = c;
                    l.expertParallel = e;
                    l.zeroStage = z;
                    l.hsdpShardSize = shards[si];
                    l.offload = offloads[oi];
                    l.allowUnevenStages = a.layers % p != 0;
                    // Where p divides L + 2, Llama 3's balanced stages (the end
                    // stages one layer short) rather than the first L % p long.
                    l.balancedStages = a.layers % p != 0 && (std::int64_t(a.layers) + 2) % p == 0;
                    Training tr = base.training;
                    tr.schedule = scheds.front().first;
                    tr.chunks = scheds.front().second;
                    tr.microBatchSize = microBatchSizes[0];
                    tr.microBatches = sp.sequences / d / tr.microBatchSize;
                    tr.recompute = q.recomputes.front();
                    if (!layoutOk(l, tr)) {
                        skipped(perLayout);
                        continue;
                    }
                    for (const auto &[schedule, v] : scheds) {
                        tr.schedule = schedule;
                        tr.chunks = v;
                        for (Recompute rc : q.recomputes) {
                            tr.recompute = rc;
                            for (std::size_t i = 0; i < mbsCount; ++i) {
                                tr.microBatchSize = microBatchSizes[i];
                                tr.microBatches = sp.sequences / d / tr.microBatchSize;
                                if (!visit(l, tr)) {
                                    skipped(std::int64_t(mbsCount - i - 1));
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return true;
}

/// A lower bound on the busiest GPU's bytes that never falls as the micro-batch size b
/// grows (m = G / (b d) shrinking with it): over the stages, the model states, the CUDA
/// context, the communication buckets and the gathered ZeRO-3 units (none of which
/// depend on b or m) plus one chunk set of layer activations (every stage holds at
/// least one while it computes: peakInFlight >= 1, and each term of a layer's
/// activations is linear in b, docs/activations.md). Fragmentation, the working set,
/// the embedding and logits are left out; they only add bytes.
std::int64_t growingFloorBytes(const MemoryReport &r)
{
    std::int64_t out = 0;
    for (const GpuGroup &g : r.groups)
        out = std::max(out, g.bytes.modelStates() + g.buffers.cudaContext +
                                g.buffers.communicationBuckets + g.buffers.gatheredUnits +
                                g.chunkActivationBytes);
    return out;
}

std::string checkRequest(const PlanRequest &q)
{
    if (!q.base.model.architecture)
        return "the planner needs a model architecture (a plain parameter count has no layers "
               "to split)";
    if (q.minGpus < 1 || q.maxGpus > maxGpus || q.minGpus > q.maxGpus)
        return "GPU range must be within 1 to " + std::to_string(maxGpus) + " (got " +
               std::to_string(q.minGpus) + "-" + std::to_string(q.maxGpus) + ")";
    const std::int64_t s = q.base.training.sequenceLength;
    if (s < 1 || q.globalBatchTokens < s || q.globalBatchTokens % s != 0)
        return "global batch (" + std::to_string(q.globalBatchTokens) +
               " tokens) must be a positive multiple of the sequence length (" + std::to_string(s) +
               ")";
    if (q.maxMicroBatchSize < 1 || q.maxMicroBatchSize > maxMicroBatchSize)
        return "largest micro-batch size must be from 1 to " + std::to_string(maxMicroBatchSize);
    if (q.headroomPercent < 0 || q.headroomPercent > 90)
        return "headroom must be from 0 to 90 percent (got " + std::to_string(q.headroomPercent) +
               ")";
    for (const std::vector<int> *v :
         {&q.tensorParallelDegrees, &q.pipelineParallelDegrees, &q.contextParallelDegrees,
          &q.expertParallelDegrees, &q.microBatchSizes, &q.interleavedChunks})
        for (int x : *v)
            if (x < 1 || x > maxParallelDegree)
                return "a searched degree or size must be from 1 to " +
                       std::to_string(maxParallelDegree) + " (got " + std::to_string(x) + ")";
    if (q.maxTensorParallel < 1 || q.maxContextParallel < 1 ||
        q.maxTensorParallel > maxParallelDegree || q.maxContextParallel > maxParallelDegree)
        return "search bounds on t and c must be from 1 to " + std::to_string(maxParallelDegree);
    return {};
}

} // namespace

Scenario candidateScenario(const Scenario &base, const Layout &layout, const Training &training)
{
    Scenario s = base;
    s.layout = layout;
    s.training = training;
    return s;
}

namespace {

/// A fitting candidate and its place in the search order (the last tie-break).
struct Ranked
{
    PlanCandidate candidate;
    std::int64_t order = 0;
};

/// True when `a` ranks before `b` under objective `o` (a total order: the search order
/// breaks every tie, as the stable sort of the whole list did).
bool ranksBefore(PlanObjective o, const Ranked &a, const Ranked &b)
{
    const PlanCandidate &x = a.candidate, &y = b.candidate;
    if (o == PlanObjective::FewestGpus && x.layout.gpus != y.layout.gpus)
        return x.layout.gpus < y.layout.gpus;
    if (fasterThan(x, y))
        return true;
    if (fasterThan(y, x))
        return false;
    return a.order < b.order;
}

/// A lower bound on stepTime(s, r).stepSeconds: the compute of r's first and last stage
/// (m forwards, backwards and recomputations), as stepTime() works it out. The step is
/// its busiest stage's compute plus non-negative exposed traffic, bubble and optimizer
/// terms, and the busiest stage is busy at least as long as any other's compute, so no
/// step is shorter (docs/steptime.md "Planner").
double stepLowerBound(const Scenario &s, const MemoryReport &r, const ComputeRates &rates)
{
    const bool hasArch = s.model.architecture.has_value();
    const double m = double(s.training.microBatches);
    double out = 0;
    for (const GpuGroup *g : {&r.groups.front(), &r.groups.back()}) {
        const StageCompute sc =
            stageCompute(s, rates, g->firstLayer, g->layerCount, g->holdsOutputHead && hasArch);
        out = std::max(out, m * sc.forward + m * sc.backward + m * sc.recompute);
    }
    return out;
}

/// A lower bound on the step time of every candidate of one layout, whatever its
/// schedule: over the micro-batch sizes `bs` (m = `sequences` / b) and the request's
/// recomputations, the least of the whole model's compute (every layer, the head) divided
/// by the p stages. The stages' layers partition the model and each stage's compute sums
/// over its layers (stageCompute()), so the busiest stage computes at least the average,
/// and every step includes its busiest stage's compute (stepLowerBound()). `work` is the
/// layout's scenario; its training is restored.
double layoutLowerBound(Scenario &work, const PlanRequest &q, const ComputeRates &rates,
                        const int *bs, std::size_t count, std::int64_t sequences)
{
    const Training saved = work.training;
    const int layers = work.model.architecture ? work.model.architecture->layers : 0;
    const double p = double(work.layout.pipelineParallel);
    double out = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < count; ++i) {
        work.training.microBatchSize = bs[i];
        work.training.microBatches = sequences / bs[i];
        const double m = double(work.training.microBatches);
        for (Recompute rc : q.recomputes) {
            work.training.recompute = rc;
            const StageCompute sc = stageCompute(work, rates, 0, layers, true);
            out = std::min(out, m * (sc.forward + sc.backward + sc.recompute) / p);
        }
    }
    work.training = saved;
    return out;
}

} // namespace

PlanResult plan(const PlanRequest &q)
{
    PlanResult out;
    out.error = checkRequest(q);
    if (!out.error.empty())
        return out;
    const Space sp = searchSpace(q);
    if (sp.overLimit) {
        out.overLimit = true;
        out.error = "the search has more than " + std::to_string(q.maxCandidates) +
                    " candidates: narrow the GPU range or the searched degrees, or raise the "
                    "limit";
        return out;
    }
    out.candidates = sp.total;
    const PreparedModel prepared = prepare(q.base.model);
    Scenario work = q.base; // mutated in place: one copy of the model for the whole search
    work.modelStatesOnly = false;
    MemoryReport r; // reused: its storage is kept from one estimate to the next
    std::vector<std::string> rateNotes;
    const ComputeRates rates = computeRates(work.gpu, work.training, work.throughput, rateNotes);
    // The bytes a fitting layout may hold: the card less the requested headroom.
    auto limitOf = [&q](const MemoryReport &m) {
        return m.capacityBytes - m.capacityBytes / 100 * q.headroomPercent;
    };
    // Kept rows: all of them (keep 0), else a heap of the best `keep` whose front is the
    // worst kept.
    const std::size_t keep = q.keep > 0 ? std::size_t(q.keep) : 0;
    std::vector<Ranked> kept;
    // The most GPUs first when ranking by step time, so the kept rows are fast early and
    // the step-time bounds skip most timings and most layouts; each row keeps its place
    // in the search order (degrees by GPU count, then the order within them) for the ties.
    const bool fastestFirst = keep > 0 && q.objective == PlanObjective::Fastest;
    const Space::Degrees *degrees = nullptr; // the degrees being enumerated
    std::vector<int> sizes(sp.bs.size());    // their micro-batch sizes
    bool slower = false; // the layout just refused was skipped by the step-time bound
    auto layoutOk = [&](const Layout &l, const Training &tr) {
        slower = false;
        if (!q.prune)
            return true;
        // Model states only: no activations, no buffers. Every candidate of the layout
        // (any schedule, b, m, recomputation) has these same model states on every stage
        // plus non-negative activations and buffers, so when they alone overflow the GPU
        // no candidate of the layout fits.
        work.layout = l;
        work.training = tr;
        work.modelStatesOnly = true;
        estimate(prepared, work, r);
        work.modelStatesOnly = false;
        if (r.valid() && r.peakBytes() > limitOf(r))
            return false;
        // Every kept row is faster than anything this layout can run: skip it unestimated.
        if (fastestFirst && kept.size() == keep && kept.front().candidate.time.valid()) {
            const std::size_t count = std::size_t(microBatchSizesFor(sp, degrees->d, sizes.data()));
            const double bound =
                layoutLowerBound(work, q, rates, sizes.data(), count, sp.sequences / degrees->d);
            if (bound * (1 - 1e-9) > kept.front().candidate.time.stepSeconds) {
                slower = true;
                return false;
            }
        }
        return true;
    };
    auto worse = [&q](const Ranked &a, const Ranked &b) { return ranksBefore(q.objective, a, b); };
    Ranked next;
    std::int64_t degreeOrder = 0, fittingInDegree = 0; // a row's place in the search order
    auto visit = [&](const Layout &l, const Training &tr) {
        work.layout = l;
        work.training = tr;
        ++out.candidatesEvaluated;
        estimate(prepared, work, r);
        if (!r.valid())
            return true;
        if (verdict(work, r).kind == Verdict::Kind::Fits && r.peakBytes() <= limitOf(r)) {
            ++out.fittingCount;
            const std::int64_t order = degreeOrder + fittingInDegree++;
            if (keep > 0 && kept.size() == keep) {
                // Full: time only a candidate that may rank before the worst kept row.
                const PlanCandidate &w = kept.front().candidate;
                if (q.objective == PlanObjective::FewestGpus && l.gpus != w.layout.gpus) {
                    if (l.gpus > w.layout.gpus)
                        return true;
                } else if (w.time.valid() &&
                           stepLowerBound(work, r, rates) * (1 - 1e-9) > w.time.stepSeconds) {
                    return true;
                }
            }
            next.candidate.layout = l;
            next.candidate.training = tr;
            next.candidate.peakBytes = r.peakBytes();
            next.candidate.time = stepTime(work, r);
            next.order = order;
            if (keep == 0 || kept.size() < keep) {
                kept.push_back(std::move(next));
                if (keep > 0)
                    std::push_heap(kept.begin(), kept.end(), worse);
            } else if (ranksBefore(q.objective, next, kept.front())) {
                std::pop_heap(kept.begin(), kept.end(), worse);
                kept.back() = std::move(next);
                std::push_heap(kept.begin(), kept.end(), worse);
            }
            return true;
        }
        // A larger b of the same (layout, schedule, recomputation) has a floor at least
        // this one's: when this floor overflows, none of them fits.
        return !(q.prune && growingFloorBytes(r) > limitOf(r));
    };
    auto skipped = [&](std::int64_t count) {
        (slower ? out.candidatesSlower : out.candidatesPruned) += count;
        slower = false;
    };
    constexpr std::int64_t progressEvery = 65536;
    std::int64_t nextProgress = progressEvery;
    auto stop = [&] {
        if (q.progress) {
            const std::int64_t done =
                out.candidatesEvaluated + out.candidatesPruned + out.candidatesSlower;
            if (done >= nextProgress) {
                q.progress(done, sp.total);
                nextProgress = (done / progressEvery + 1) * progressEvery;
            }
        }
        return q.cancel != nullptr && q.cancel->load(std::memory_order_relaxed);
    };
    for (std::size_t k = 0; k < sp.degrees.size(); ++k) {
        const std::size_t gi = fastestFirst ? sp.degrees.size() - 1 - k : k;
        degrees = &sp.degrees[gi];
        degreeOrder = std::int64_t(gi) << 31;
        fittingInDegree = 0;
        if (!enumerate(q, sp, sp.degrees[gi], layoutOk, visit, skipped, stop)) {
            out.cancelled = true;
            out.error = "the search was cancelled after " +
                        std::to_string(out.candidatesEvaluated + out.candidatesPruned +
                                       out.candidatesSlower) +
                        " of " + std::to_string(sp.total) + " candidates";
            break;
        }
    }
    if (q.progress && !out.cancelled)
        q.progress(out.candidatesEvaluated + out.candidatesPruned + out.candidatesSlower, sp.total);
    std::sort(kept.begin(), kept.end(), worse);
    out.fitting.reserve(kept.size());
    for (Ranked &k : kept)
        out.fitting.push_back(std::move(k.candidate));
    if (q.explainNothingFits && !out.cancelled && out.fittingCount == 0)
        out.fixes = nothingFitsFixes(q, q.recipes);
    return out;
}

std::vector<FewestGpus> fewestGpus(const PlanRequest &request)
{
    std::vector<FewestGpus> out;
    for (ZeroStage z : request.strategies)
        out.push_back({z, 0, {}});
    if (!checkRequest(request).empty())
        return out;
    PlanRequest q = request;
    std::size_t found = 0;
    for (std::int64_t n = request.minGpus; n <= request.maxGpus && found < out.size(); ++n) {
        q.minGpus = q.maxGpus = n;
        const PlanResult r = plan(q);
        for (FewestGpus &f : out) {
            if (f.gpus != 0)
                continue;
            for (const PlanCandidate &c : r.fitting) // fastest first
                if (c.layout.zeroStage == f.strategy) {
                    f.gpus = n;
                    f.fastest = c;
                    ++found;
                    break;
                }
        }
    }
    return out;
}

namespace {

bool fits(const Scenario &s)
{
    return verdict(s, estimate(s)).kind == Verdict::Kind::Fits;
}

/// The largest k in [1, hi] with ok(k), for ok true up to some k and false after;
/// 0 when ok(1) is false.
template <typename Ok> std::int64_t largestTrue(std::int64_t hi, Ok ok)
{
    if (hi < 1 || !ok(1))
        return 0;
    std::int64_t lo = 1; // ok(lo)
    while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (ok(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

} // namespace

std::int64_t largestMicroBatch(const Scenario &s)
{
    Scenario w = s;
    return largestTrue(maxMicroBatchSize, [&w](std::int64_t b) {
        w.training.microBatchSize = b;
        return fits(w);
    });
}

std::int64_t longestSequence(const Scenario &s)
{
    Scenario w = s;
    std::int64_t step = std::max(1, s.layout.contextParallel);
    if (s.training.sequenceParallel && s.layout.tensorParallel > 1)
        step *= s.layout.tensorParallel;
    return step * largestTrue(maxSequenceLength / step, [&w, step](std::int64_t k) {
               w.training.sequenceLength = k * step;
               return fits(w);
           });
}

} // namespace shardscope

namespace shardscope {

namespace {

/// "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3": the short names of the "What fits?" line, the
/// display name without its " / FSDP".
std::string strategyShortName(ZeroStage z)
{
    const std::string_view name = zeroStageName(z);
    return std::string(name.substr(0, name.find(" /")));
}

/// `v` with `decimals` decimals, e.g. 12.1.
std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace

WhatFits whatFits(const Scenario &s)
{
    WhatFits out;
    out.gpus = s.layout.gpus;
    const PreparedModel prepared = prepare(s.model);
    if (std::string e = validate(prepared, s); !e.empty()) {
        out.error = std::move(e);
        return out;
    }
    Scenario w = s;
    w.modelStatesOnly = false;
    MemoryReport r;
    auto fitsNow = [&] {
        ++out.evaluated;
        estimate(prepared, w, r);
        return r.valid() && verdict(w, r).kind == Verdict::Kind::Fits;
    };

    // Fewest GPUs: the slider's counts 1, 2, 3, 4, 6, 8, 12, ... times t p c, bottom up.
    const std::vector<std::int64_t> counts = gpuSliderCounts(s.layout.modelParallel());
    for (WhatFits::Fewest &f : out.fewest) {
        w.layout = s.layout;
        w.layout.zeroStage = f.strategy;
        for (std::int64_t n : counts) {
            w.layout.gpus = n;
            if (fitsNow()) {
                f.gpus = n;
                break;
            }
        }
    }

    // Fastest at the scenario's count: strategy x recomputation x b, degrees kept, the
    // per-rank batch b x m kept.
    w.layout = s.layout;
    const std::int64_t perRank = s.training.microBatchSize * s.training.microBatches;
    for (ZeroStage z : {ZeroStage::Ddp, ZeroStage::Zero1, ZeroStage::Zero2, ZeroStage::Zero3}) {
        w.layout.zeroStage = z;
        for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full}) {
            w.training.recompute = rc;
            for (std::int64_t b = 1; b <= perRank && b <= maxMicroBatchSize; b *= 2) {
                if (perRank % b != 0)
                    continue;
                w.training.microBatchSize = b;
                w.training.microBatches = perRank / b;
                if (!fitsNow())
                    continue;
                PlanCandidate c;
                c.layout = w.layout;
                c.training = w.training;
                c.peakBytes = r.peakBytes();
                c.time = stepTime(w, r);
                if (!out.fastestFound || fasterThan(c, out.fastest)) {
                    out.fastest = std::move(c);
                    out.fastestFound = true;
                }
            }
        }
    }
    return out;
}

std::string whatFitsText(const WhatFits &w, ByteUnit unit)
{
    if (!w.valid())
        return "What fits: cannot search: " + w.error;
    std::string out = "Fits from: ";
    bool first = true, unitShown = false; // "GPUs" after the first count only
    for (const WhatFits::Fewest &f : w.fewest) {
        if (!first)
            out += " \u00b7 ";
        out += strategyShortName(f.strategy);
        if (f.gpus == 0) {
            out += " never";
        } else {
            // Appended piece by piece: GCC 12's -O3 -Wrestrict misfires on a chain of +.
            out += ' ';
            out += std::to_string(f.gpus);
            if (!unitShown)
                out += f.gpus == 1 ? " GPU" : " GPUs";
            unitShown = true;
        }
        first = false;
    }
    out += " \u00b7 ";
    if (!w.fastestFound)
        return out + "nothing fits at " + std::to_string(w.gpus);
    const PlanCandidate &c = w.fastest;
    out += "fastest at " + std::to_string(w.gpus) + ": " + strategyShortName(c.layout.zeroStage) +
           ", " + std::string(recomputeId(c.training.recompute)) + ", b " +
           std::to_string(c.training.microBatchSize) + ", ";
    if (c.time.valid())
        out += fixed(c.time.stepSeconds, c.time.stepSeconds < 10 ? 2 : 1) + " s/step, " +
               fixed(100 * c.time.mfu, 0) + "% MFU, ";
    return out + formatBytes(c.peakBytes, unit);
}

} // namespace shardscope
