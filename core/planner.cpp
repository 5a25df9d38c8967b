#include "planner.h"

#include "estimate.h"
#include "inputlimits.h"
#include "verdict.h"

#include <algorithm>
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

/// Calls `visit(n, layout, training)` for every candidate of the request's space at
/// world size n, with `group(n, layout, training)` first for every (layout, schedule,
/// chunks) group of candidates sharing their model states; when it returns false the
/// group's `count` candidates are skipped and `skipped(count)` is called.
template <typename Group, typename Visit, typename Skipped>
void enumerate(const PlanRequest &q, std::int64_t n, Group group, Visit visit, Skipped skipped)
{
    const Scenario &base = q.base;
    const Architecture &a = *base.model.architecture;
    const std::int64_t seq = base.training.sequenceLength;
    const std::int64_t sequences = q.globalBatchTokens / seq;
    const std::int64_t perNode = std::max<std::int64_t>(1, base.layout.gpusPerNode);
    const int maxP = q.maxPipelineParallel > 0 ? q.maxPipelineParallel : a.layers;
    const int maxE = a.isMoe() ? (q.maxExpertParallel > 0 ? q.maxExpertParallel : a.experts) : 1;
    const std::vector<int> bs = powersOfTwo(q.maxMicroBatchSize);

    for (int t : powersOfTwo(std::min<std::int64_t>(q.maxTensorParallel, perNode))) {
        if (n % t != 0)
            continue;
        for (int c : powersOfTwo(q.maxContextParallel)) {
            if ((n / t) % c != 0)
                continue;
            for (int p : divisors(a.layers, std::min<std::int64_t>(maxP, maxPipelineStages))) {
                if ((n / t / c) % p != 0)
                    continue;
                const std::int64_t d = n / (std::int64_t(t) * c * p);
                if (sequences % d != 0)
                    continue;
                const std::vector<int> es =
                    a.isMoe() ? divisors(a.experts, maxE) : std::vector<int>{1};
                for (int e : es) {
                    if ((d * c) % e != 0)
                        continue;
                    for (ZeroStage z : q.strategies) {
                        std::vector<std::int64_t> shards = {0};
                        const std::int64_t inNode = perNode / t;
                        if (q.hsdp && z == ZeroStage::Zero3 && inNode > 1 && inNode < d * c &&
                            (d * c) % inNode == 0)
                            shards.push_back(inNode);
                        std::vector<Offload> offloads = {Offload::None};
                        if (q.offload && z != ZeroStage::Ddp)
                            offloads.push_back(Offload::Optimizer);
                        if (q.offload && z == ZeroStage::Zero3)
                            offloads.push_back(Offload::OptimizerAndParams);
                        for (std::int64_t shard : shards) {
                            for (Offload o : offloads) {
                                Layout l = base.layout;
                                l.gpus = n;
                                l.tensorParallel = t;
                                l.pipelineParallel = p;
                                l.contextParallel = c;
                                l.expertParallel = e;
                                l.zeroStage = z;
                                l.hsdpShardSize = shard;
                                l.offload = o;
                                l.allowUnevenStages = false;
                                std::vector<std::pair<PipelineSchedule, int>> scheds;
                                if (p == 1)
                                    scheds.push_back({PipelineSchedule::OneFOneB, 1});
                                else
                                    for (PipelineSchedule s : q.schedules) {
                                        if (s == PipelineSchedule::Interleaved1F1B) {
                                            for (int v : q.interleavedChunks)
                                                scheds.push_back({s, v});
                                        } else {
                                            scheds.push_back({s, 1});
                                        }
                                    }
                                for (const auto &[schedule, v] : scheds) {
                                    Training tr = base.training;
                                    tr.schedule = schedule;
                                    tr.chunks = v;
                                    std::int64_t count = 0, firstM = 0;
                                    for (int b : bs)
                                        if ((sequences / d) % b == 0) {
                                            if (firstM == 0) {
                                                firstM = sequences / d / b;
                                                tr.microBatchSize = b;
                                                tr.microBatches = firstM;
                                            }
                                            count += std::int64_t(q.recomputes.size());
                                        }
                                    if (count == 0)
                                        continue;
                                    if (!group(n, l, tr)) {
                                        skipped(count);
                                        continue;
                                    }
                                    for (int b : bs) {
                                        if ((sequences / d) % b != 0)
                                            continue;
                                        tr.microBatchSize = b;
                                        tr.microBatches = sequences / d / b;
                                        for (Recompute rc : q.recomputes) {
                                            tr.recompute = rc;
                                            visit(n, l, tr);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
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

PlanResult plan(const PlanRequest &q)
{
    PlanResult out;
    out.error = checkRequest(q);
    if (!out.error.empty())
        return out;
    Scenario work = q.base; // mutated in place: one copy of the model for the whole search
    work.modelStatesOnly = false;
    auto group = [&](std::int64_t, const Layout &l, const Training &tr) {
        if (!q.prune)
            return true;
        // Model states only: no activations, no buffers. Every candidate of the group has
        // these same model states plus non-negative activations and buffers, so when they
        // alone overflow the GPU no candidate of the group fits.
        work.layout = l;
        work.training = tr;
        work.modelStatesOnly = true;
        const MemoryReport r = estimate(work);
        work.modelStatesOnly = false;
        return !(r.valid() && r.peakBytes() > r.capacityBytes);
    };
    auto visit = [&](std::int64_t, const Layout &l, const Training &tr) {
        work.layout = l;
        work.training = tr;
        ++out.candidatesEvaluated;
        const MemoryReport r = estimate(work);
        if (verdict(work, r).kind != Verdict::Kind::Fits)
            return;
        PlanCandidate c;
        c.layout = l;
        c.training = tr;
        c.peakBytes = r.peakBytes();
        c.time = stepTime(work, r);
        out.fitting.push_back(std::move(c));
    };
    auto skipped = [&](std::int64_t count) { out.candidatesPruned += count; };
    for (std::int64_t n = q.minGpus; n <= q.maxGpus; ++n)
        enumerate(q, n, group, visit, skipped);
    std::stable_sort(out.fitting.begin(), out.fitting.end(), fasterThan);
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
