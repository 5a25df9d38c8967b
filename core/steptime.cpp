#include "steptime.h"

#include "estimate.h"
#include "inputlimits.h"
#include "time/collectives.h"
#include "time/computetime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace shardscope {

namespace {

/// Parameters multiplying activations in the output head: V h (tied or not).
double headParameters(const Architecture &a)
{
    return double(a.vocab) * double(a.hidden);
}

/// Host DRAM bandwidth of one node, bytes/s, that a CPU optimizer step (ZeRO-Offload's
/// CPU-Adam, Ren et al. 2021) streams through: a DGX H100's two Xeon Platinum 8480C
/// sockets, 8 DDR5-4800 channels each, 2 x 8 x 4800e6 x 8 bytes (NVIDIA DGX H100 user
/// guide; Intel ARK 8480C). The node's GPUs share it.
constexpr double hostMemoryBytesPerSecondPerNode = 2.0 * 8 * 4800e6 * 8;

} // namespace

std::string validateThroughput(const Throughput &t)
{
    // One list of the limits; the message is built only for a field out of range, so the
    // common case costs sixteen comparisons and no string.
    struct Range
    {
        const char *name;
        std::int64_t value, lo, hi;
        const char *unit;
    };
    const Range ranges[] = {
        {"NIC bandwidth", t.nicBytesPerSecond, 125'000'000, maxLinkBytesPerSecond, "bytes/s"},
        {"host link bandwidth", t.hostLinkBytesPerSecond, 1'000'000'000, maxLinkBytesPerSecond,
         "bytes/s"},
        {"compute efficiency", t.computeEfficiencyPercent, 0, 100, "%"},
        {"NICs per node", t.nicsPerNode, 0, maxNicsPerNode, "NICs"},
        {"NVLink latency", t.nvlinkLatencyNanoseconds, 0, maxLatencyNanoseconds, "ns"},
        {"NIC latency", t.nicLatencyNanoseconds, 0, maxLatencyNanoseconds, "ns"},
        {"price", t.priceCentsPerGpuHour, 0, maxPriceCentsPerGpuHour, "cents per GPU-hour"},
        {"token budget", t.tokenBudget, 0, maxTokenBudget, "tokens"}};
    for (const Range &r : ranges)
        if (r.value < r.lo || r.value > r.hi)
            return std::string(r.name) + " must be from " + std::to_string(r.lo) + " to " +
                   std::to_string(r.hi) + " " + r.unit + " (got " + std::to_string(r.value) + ")";
    return {};
}

TokenFlops tokenFlops(const Model &m, std::int64_t sequenceLength)
{
    TokenFlops f;
    if (!m.architecture) {
        f.matmul = 2.0 * double(m.plainParameters);
        return f;
    }
    const Architecture &a = *m.architecture;
    if (!a.isMoe()) {
        // L identical layers: the integer product is what adding 2 x dense L times gives
        // (every partial sum is an integer below 2^53, so each double addition is exact).
        f.matmul = double(2 * activeLayerParameterCount(a, 0) * std::int64_t(a.layers));
    } else {
        for (int l = 0; l < a.layers; ++l)
            f.matmul += 2.0 * double(activeLayerParameterCount(a, l));
    }
    f.matmul += 2.0 * headParameters(a);
    f.attention = double(a.layers) * attentionPerToken(a, sequenceLength);
    return f;
}

namespace {

/// Checks that `s` can be timed: the peaks its dtypes need, the memory bandwidth and the
/// throughput settings. Sets t.peakFlopsPerSecond; false with t.error naming the missing
/// speed or the setting out of range.
bool checkSpeeds(const Scenario &s, StepTime &t)
{
    const Gpu &gpu = s.gpu;
    const Training &tr = s.training;
    // An FP8 recipe (Training::fp8) with wider activations runs the linear layers' matmuls
    // at its FP8 (or MXFP8) peak and the rest at the BF16 peak (linearPeak(),
    // core/time/computetime.h); peakFlopsPerSecond is the linear layers' peak.
    const bool fp8Linear = tr.activationBytes != 1 && tr.fp8 != Fp8Recipe::Off;
    const LinearPeak peak = linearPeak(gpu, tr);
    t.peakFlopsPerSecond = peak.flopsPerSecond;
    if (!(t.peakFlopsPerSecond > 0)) {
        t.error = "GPU " + gpu.id + " has no dense " + peak.dtype + " peak in the catalog (" +
                  peak.field + " is 0: unknown or unsupported)";
        return false;
    }
    if (fp8Linear && !(gpu.bf16FlopsPerSecond > 0)) {
        t.error = "GPU " + gpu.id +
                  " has no dense BF16 peak in the catalog (bf16_tflops is 0: unknown or "
                  "unsupported), which times the attention core beside the FP8 matmuls";
        return false;
    }
    if (!(gpu.memoryBytesPerSecond > 0)) {
        t.error = "GPU " + gpu.id + " has no memory bandwidth in the catalog (memory_gbps is 0)";
        return false;
    }
    // A speed set by hand (a scenario file, a test) outside the catalog's range, e.g.
    // 1e-300 FLOP/s, would give a step of 1e300 seconds: refused by name.
    const struct
    {
        const char *key;
        double scale;
        double value;
    } speeds[] = {{"bf16_tflops", 1e12, gpu.bf16FlopsPerSecond},
                  {"fp8_tflops", 1e12, gpu.fp8FlopsPerSecond},
                  {"mxfp8_tflops", 1e12, gpu.mxfp8FlopsPerSecond},
                  {"attention_tflops", 1e12, gpu.attentionFlopsPerSecond},
                  {"memory_gbps", 1e9, gpu.memoryBytesPerSecond},
                  {"nvlink_gbps", 1e9, gpu.nvlinkBytesPerSecond}};
    for (const auto &sp : speeds) {
        const double units = sp.value / sp.scale;
        if (units != 0 && !(units >= minGpuSpeedUnits && units <= maxGpuSpeedUnits)) {
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "GPU %.40s: %s must be 0 (unknown) or from %g to %g (got %g)",
                          gpu.id.c_str(), sp.key, minGpuSpeedUnits, maxGpuSpeedUnits, units);
            t.error = buf;
            return false;
        }
    }
    if (const std::string e = validateThroughput(s.throughput); !e.empty()) {
        t.error = e;
        return false;
    }
    if (!fp8Linear && tr.activationBytes > 2)
        t.notes.push_back("Activations wider than 16 bits are timed at the BF16 peak.");
    return true;
}

/// The cluster of `s`: NVLink / xGMI inside a node (no NVLink: the host link, PCIe, with
/// a note), NICs across (nicsPerNode 0: one per GPU).
Topology topologyOf(const Scenario &s, std::vector<std::string> &notes)
{
    const Throughput &th = s.throughput;
    Topology topo;
    topo.gpusPerNode = std::max<std::int64_t>(1, s.layout.gpusPerNode);
    topo.intraNodeBytesPerSecond = s.gpu.nvlinkBytesPerSecond;
    if (!(topo.intraNodeBytesPerSecond > 0)) {
        topo.intraNodeBytesPerSecond = double(th.hostLinkBytesPerSecond);
        notes.push_back("GPU " + s.gpu.id +
                        " has no NVLink in the catalog; collectives inside a node use the host "
                        "link (PCIe).");
    }
    topo.nicBytesPerSecond = double(th.nicBytesPerSecond);
    topo.nicsPerNode = th.nicsPerNode > 0 ? th.nicsPerNode : topo.gpusPerNode;
    topo.intraNodeLatencySeconds = double(th.nvlinkLatencyNanoseconds) * 1e-9;
    topo.nicLatencySeconds = double(th.nicLatencyNanoseconds) * 1e-9;
    return topo;
}

/// `calls` collectives of `kind` over group `g` moving `bytes` per GPU, timed.
CollectiveTime timed(const Topology &topo, std::int64_t bytes, GroupShape g, Collective kind,
                     double calls)
{
    CollectiveTime c;
    c.bytes = bytes;
    c.crossesNodes = placement(topo, g).nodes > 1;
    c.seconds = collectiveSeconds(topo, g, kind, bytes, calls);
    return c;
}

/// The model-parallel collectives of one GPU of stage `g` into `u`, each by its ranks
/// and the stride between them in Megatron's rank order (tensor, context, data,
/// pipeline): tensor-parallel all-reduces, expert all-to-alls and pipeline sends on the
/// critical path; ring attention's sends behind the attention cores.
void modelParallelTimes(const Scenario &s, const GpuGroup &g, const Topology &topo,
                        const StageCompute &sc, StepTime &u)
{
    const Layout &l = s.layout;
    const std::int64_t tp = l.tensorParallel, cp = l.contextParallel, ep = l.expertParallel;
    const std::int64_t d = l.dataParallel(), m = s.training.microBatches;
    const bool fullRecompute = s.training.recompute == Recompute::Full;
    const int chunks =
        s.training.schedule == PipelineSchedule::Interleaved1F1B ? s.training.chunks : 1;
    const CommunicationBytes &c = g.communication;
    const int layersHere = std::max(1, g.layerCount);
    const double tpCalls = double(m) * layersHere * (fullRecompute ? 6 : 4);
    u.tensorParallel = timed(topo, c.tensorParallel, {tp, 1}, Collective::AllReduce, tpCalls);
    u.tensorParallel.exposedSeconds = u.tensorParallel.seconds;
    u.contextParallel = timed(topo, c.contextParallel, {cp, tp}, Collective::PointToPoint,
                              double(m) * layersHere * 3.0 * double(cp - 1));
    // Ring attention sends the next block's keys and values while attending to this
    // one: the attention cores of forward, backward and recomputation hide it.
    u.contextParallel.exposedSeconds =
        exposedBehind(u.contextParallel.seconds, double(m) * sc.attention);
    const std::optional<Architecture> &arch = s.model.architecture;
    const int moeHere = arch ? arch->moeLayersIn(g.firstLayer, g.layerCount) : 0;
    u.expertParallel = timed(topo, c.expertParallel, {ep, tp}, Collective::AllToAll,
                             double(m) * moeHere * (fullRecompute ? 6 : 4));
    u.expertParallel.exposedSeconds = u.expertParallel.seconds;
    // Neighbour stages are t c d ranks apart: 2 m v sends (activations forward,
    // gradients back).
    u.pipelineParallel = timed(topo, c.pipelineParallel, {2, tp * cp * d}, Collective::PointToPoint,
                               2.0 * double(m) * chunks);
    u.pipelineParallel.exposedSeconds = u.pipelineParallel.seconds;
}

/// The data-parallel collectives of one GPU of stage `g` into u.dataParallel: ranks
/// sharing parameters are t apart; the ZeRO group spans the shard group, plain DDP
/// d x c (HSDP: timed on the shard group, its replicas' all-reduce being small).
/// Exposure: ZeRO-3 behind all compute; DDP / ZeRO-1 behind the last micro-batch's
/// backward, ZeRO-2 behind every backward, the last bucket always exposed.
void dataParallelTime(const Scenario &s, const GpuGroup &g, const Topology &topo, StepTime &u)
{
    const Layout &l = s.layout;
    const std::int64_t tp = l.tensorParallel, cp = l.contextParallel, d = l.dataParallel();
    const std::int64_t m = s.training.microBatches;
    const std::int64_t dpRanks =
        l.zeroStage == ZeroStage::Ddp || l.hsdpShardSize == 0 ? d * cp : l.hsdpShardSize;
    double dpCalls = 0, bucketBytes = 0;
    Collective dpKind = Collective::AllGatherOrReduceScatter;
    const double gradBytes = double(g.parametersPerGpu) * double(s.recipe.gradientBytes);
    switch (l.zeroStage) {
    case ZeroStage::Ddp:
    case ZeroStage::Zero1:
    case ZeroStage::Zero2: {
        bucketBytes = l.zeroStage == ZeroStage::Ddp
                          ? double(s.overheads.ddpBucketBytes)
                          : double(s.overheads.zeroBucketElements) * double(s.recipe.gradientBytes);
        const double buckets = bucketBytes > 0 ? std::ceil(gradBytes / bucketBytes) : 1.0;
        if (l.zeroStage == ZeroStage::Ddp) {
            dpKind = Collective::AllReduce;
            dpCalls = buckets;
        } else {
            // A reduce-scatter per bucket (every micro-batch under ZeRO-2) and the
            // updated weights' all-gather.
            dpCalls = buckets * (l.zeroStage == ZeroStage::Zero2 ? double(m) + 1.0 : 2.0);
        }
        break;
    }
    case ZeroStage::Zero3:
        dpCalls = double(m) * 3.0 * std::max(1, g.layerCount);
        break;
    }
    u.dataParallel = timed(topo, g.communication.dataParallel, {dpRanks, tp}, dpKind, dpCalls);
    if (l.zeroStage == ZeroStage::Zero3) {
        // Prefetched gathers and reduce-scatters run behind compute.
        u.dataParallel.exposedSeconds = exposedBehind(u.dataParallel.seconds, u.computeSeconds);
        return;
    }
    const double backwardOne = u.backwardSeconds / double(m);
    const double window = l.zeroStage == ZeroStage::Zero2 ? u.backwardSeconds : backwardOne;
    const double lastBucket =
        gradBytes > 0 ? u.dataParallel.seconds * std::min(1.0, bucketBytes / gradBytes) : 0.0;
    const double behind = std::min(u.dataParallel.seconds, std::max(0.0, window - lastBucket));
    u.dataParallel.exposedSeconds = exposedBehind(u.dataParallel.seconds, behind);
}

/// The optimizer step of one GPU of stage `g` into `u`: each GPU updates its shard (under
/// LoRA only the adapters, the report's trainable share), reading gradients, reading and
/// writing master weights and moments, writing the working weights, at `memory` bytes/s;
/// with CPU offload the host-link traffic and the CPU's own step instead.
void optimizerTime(const Scenario &s, const MemoryReport &r, const GpuGroup &g, double memory,
                   StepTime &u)
{
    const Layout &l = s.layout;
    const std::int64_t shard =
        l.zeroStage == ZeroStage::Ddp ? l.dataParallel() * l.contextParallel : l.shardGroup();
    const std::int64_t R = std::max<std::int64_t>(1, shard);
    double updated = l.zeroStage == ZeroStage::Ddp ? double(g.parametersPerGpu)
                                                   : double(g.parametersPerGpu) / double(R);
    if (s.fineTuning.enabled() && r.parameters > 0)
        updated *= double(r.trainableParameters) / double(r.parameters);
    const Recipe &rc = s.recipe;
    const double perParameter = double(rc.gradientBytes + 2 * rc.masterWeightBytes +
                                       2 * rc.optimizerBytes + rc.weightBytes);
    if (l.offload == Offload::None) {
        u.optimizerSeconds = updated * perParameter / memory;
        return;
    }
    double moved = updated * double(rc.gradientBytes + rc.weightBytes);
    if (l.offload == Offload::OptimizerAndParams)
        moved += 2.0 * double(s.training.microBatches) * updated * double(rc.weightBytes);
    u.offloadSeconds = moved / double(s.throughput.hostLinkBytesPerSecond);
    // The CPU's own Adam step streams the same bytes per parameter as the GPU's through
    // host DRAM, whose bandwidth the node's GPUs share.
    const std::int64_t perNode = std::max<std::int64_t>(1, l.gpusPerNode);
    u.cpuOptimizerSeconds =
        updated * perParameter /
        (hostMemoryBytesPerSecondPerNode / double(std::min<std::int64_t>(perNode, l.gpus)));
}

} // namespace

StepTime stepTime(const Scenario &s, const MemoryReport &r)
{
    StepTime t;
    if (!r.valid()) {
        t.error = "the memory report is invalid: " + r.error;
        return t;
    }
    if (!checkSpeeds(s, t))
        return t;
    const Layout &l = s.layout;
    const Training &tr = s.training;
    // Tokens per step, b m d s, must be a 64-bit count (each factor is in range on its
    // own; their product at the table's extremes is not).
    std::int64_t batch = 0, tokens = 0;
    if (__builtin_mul_overflow(tr.microBatches, tr.microBatchSize, &batch) ||
        __builtin_mul_overflow(batch, l.dataParallel(), &batch) ||
        __builtin_mul_overflow(batch, tr.sequenceLength, &tokens)) {
        t.error = "the global batch is too large to time: b x m x d x s is over 9.2e18 "
                  "tokens per step";
        return t;
    }
    const ComputeRates rates = computeRates(s.gpu, tr, s.throughput, t.notes);
    t.matmulEfficiency = rates.matmulEfficiency;
    t.achievedFlopsPerSecond = rates.matmulFlopsPerSecond;
    const Topology topo = topologyOf(s, t.notes);
    const std::int64_t pp = l.pipelineParallel, m = tr.microBatches;
    const bool hasArch = s.model.architecture.has_value();

    // Each stage: its compute and exposed model-parallel traffic (busy, the pipeline's
    // critical path), then what runs after the pipeline drains.
    double slowestBusy = 0, slowestWeightGradient = 0, slowestAfter = -1, hardwarePerStep = 0;
    bool haveBusy = false;
    StepTime best = t, bestAfter = t;
    for (const GpuGroup &g : r.groups) {
        StepTime u = t;
        const StageCompute sc =
            stageCompute(s, rates, g.firstLayer, g.layerCount, g.holdsOutputHead && hasArch);
        u.forwardSeconds = double(m) * sc.forward;
        u.backwardSeconds = double(m) * sc.backward;
        u.recomputeSeconds = double(m) * sc.recompute;
        u.attentionMemorySeconds = double(m) * sc.attentionMemory;
        u.dequantizeSeconds = double(m) * sc.dequantize;
        u.computeSeconds = u.forwardSeconds + u.backwardSeconds + u.recomputeSeconds;
        hardwarePerStep += double(g.gpuCount) * double(m) * sc.hardwareFlops;
        modelParallelTimes(s, g, topo, sc, u);
        dataParallelTime(s, g, topo, u);
        optimizerTime(s, r, g, rates.memoryBytesPerSecond, u);
        const double busy = u.computeSeconds + u.tensorParallel.exposedSeconds +
                            u.contextParallel.exposedSeconds + u.expertParallel.exposedSeconds +
                            u.pipelineParallel.exposedSeconds;
        const double after = u.dataParallel.exposedSeconds + u.optimizerSeconds + u.offloadSeconds +
                             u.cpuOptimizerSeconds;
        if (after > slowestAfter)
            slowestAfter = after, bestAfter = u;
        if (!haveBusy || busy > slowestBusy) {
            haveBusy = true;
            slowestBusy = busy;
            slowestWeightGradient = double(m) * sc.weightGradient;
            best = std::move(u);
        }
    }
    t = std::move(best);
    // What runs after the pipeline drains: the stage that takes longest there.
    t.dataParallel = bestAfter.dataParallel;
    t.optimizerSeconds = bestAfter.optimizerSeconds;
    t.offloadSeconds = bestAfter.offloadSeconds;
    t.cpuOptimizerSeconds = bestAfter.cpuOptimizerSeconds;
    // The bubble from the stage's own times: (p - 1) / m of (F + B + W) per micro-batch
    // for GPipe and 1F1B (/ v interleaved, bubbleClosedForm()); ZB-H1 fills it with
    // weight-gradient work, leaving (p - 1) (F + B - W) (Qi et al. 2023, section 3):
    // with F = B = W that is the closed form's (p - 1) / (3 m) of the busy time.
    if (pp > 1 && tr.schedule == PipelineSchedule::ZeroBubbleH1)
        t.bubbleSeconds =
            double(pp - 1) / double(m) * std::max(0.0, slowestBusy - 2 * slowestWeightGradient);
    else if (pp > 1)
        t.bubbleSeconds =
            std::max(0.0, bubbleClosedForm(scheduleParams(s)).overIdeal()) * slowestBusy;
    t.stepSeconds = stepBreakdown(t).total();
    if (l.offload != Offload::None)
        t.notes.push_back("The CPU optimizer step is timed at 614.4 GB/s of host DRAM per node "
                          "(two 8-channel DDR5-4800 sockets, as in a DGX H100), shared by the "
                          "node's GPUs, not overlapped with the GPU step.");

    t.tokensPerStep = tokens;
    const TokenFlops f = tokenFlops(s.model, tr.sequenceLength);
    t.modelFlopsPerStep = f.modelPerToken() * double(t.tokensPerStep);
    t.hardwareFlopsPerStep = hardwarePerStep;
    if (!(t.stepSeconds > 0)) {
        t.error = "the step takes no time (nothing to compute)";
        return t;
    }
    t.tokensPerSecond = double(t.tokensPerStep) / t.stepSeconds;
    const double capacity = t.stepSeconds * double(l.gpus) * t.peakFlopsPerSecond;
    t.mfu = t.modelFlopsPerStep / capacity;
    t.hfu = t.hardwareFlopsPerStep / capacity;
    t.trainSeconds = double(s.throughput.tokenBudget) / t.tokensPerSecond;
    t.gpuHours = t.trainSeconds * double(l.gpus) / 3600.0;
    t.costDollars = t.gpuHours * double(s.throughput.priceCentsPerGpuHour) / 100.0;
    return t;
}

StepBreakdown stepBreakdown(const StepTime &t)
{
    StepBreakdown b;
    b.forward = t.forwardSeconds;
    b.backward = t.backwardSeconds;
    b.recompute = t.recomputeSeconds;
    b.bubble = t.bubbleSeconds;
    b.optimizer = t.optimizerSeconds;
    b.offload = t.offloadSeconds;
    b.cpuOptimizer = t.cpuOptimizerSeconds;
    b.tensorParallel = t.tensorParallel.exposedSeconds;
    b.contextParallel = t.contextParallel.exposedSeconds;
    b.expertParallel = t.expertParallel.exposedSeconds;
    b.pipelineParallel = t.pipelineParallel.exposedSeconds;
    b.dataParallel = t.dataParallel.exposedSeconds;
    return b;
}

namespace {

/// x scaled by 1e3 steps, one decimal: "2.4M", "325.8M" (`billion`: "G" or "B").
std::string scaledCount(double x, const char *billion)
{
    const char *suffix = "";
    double v = x;
    if (x >= 1e12) {
        v = x / 1e12;
        suffix = "T";
    } else if (x >= 1e9) {
        v = x / 1e9;
        suffix = billion;
    } else if (x >= 1e6) {
        v = x / 1e6;
        suffix = "M";
    } else if (x >= 1e3) {
        v = x / 1e3;
        suffix = "k";
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f%s", v, suffix);
    return buf;
}

/// Seconds as minutes, hours, days or years (365.25 days), one decimal.
std::string duration(double seconds)
{
    const double hour = 3600, day = 24 * hour, year = 365.25 * day;
    double v = seconds / 60;
    const char *unit = "minutes";
    if (seconds >= 2 * year) {
        v = seconds / year;
        unit = "years";
    } else if (seconds >= 2 * day) {
        v = seconds / day;
        unit = "days";
    } else if (seconds >= hour) {
        v = seconds / hour;
        unit = "hours";
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, unit);
    return buf;
}

} // namespace

std::string stepBreakdownText(const StepTime &t)
{
    if (!t.valid() || !(t.stepSeconds > 0))
        return {};
    const StepBreakdown b = stepBreakdown(t);
    auto seconds = [](double x) {
        char buf[32];
        std::snprintf(buf, sizeof buf, x < 10 ? "%.2f s" : "%.1f s", x);
        return std::string(buf);
    };
    const struct
    {
        const char *name;
        double value;
    } comm[] = {{"data parallel", b.dataParallel},
                {"tensor parallel", b.tensorParallel},
                {"pipeline parallel", b.pipelineParallel},
                {"context parallel", b.contextParallel},
                {"expert parallel", b.expertParallel}};
    std::vector<std::pair<double, std::string>> parts = {
        {b.forward, "forward"},
        {b.backward, "backward"},
        {b.recompute, "recompute"},
        {b.bubble, "pipeline bubble"},
        {b.optimizer, "optimizer"},
        {b.offload, "offload traffic"},
        {b.cpuOptimizer, "CPU optimizer"},
        {b.exposedCommunication(), "exposed communication"}};
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto &x, const auto &y) { return x.first > y.first; });
    std::string out = "Where the step goes: ";
    bool first = true;
    for (const auto &[value, name] : parts) {
        if (value < 0.005 * t.stepSeconds)
            continue;
        if (!first)
            out += ", ";
        first = false;
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", 100 * value / t.stepSeconds);
        out += name + " " + seconds(value) + " (" + pct;
        if (name == "exposed communication") {
            bool firstComm = true;
            for (const auto &c : comm) {
                if (c.value < 0.005 * t.stepSeconds)
                    continue;
                out += firstComm ? ": " : ", ";
                firstComm = false;
                out += std::string(c.name) + " " + seconds(c.value);
            }
        }
        out += ")";
    }
    return out;
}

double secondsPerTimelineUnit(const StepTime &t, std::int64_t microBatches)
{
    if (!t.valid() || microBatches < 1)
        return 0;
    const double busy = t.computeSeconds + t.tensorParallel.exposedSeconds +
                        t.contextParallel.exposedSeconds + t.expertParallel.exposedSeconds +
                        t.pipelineParallel.exposedSeconds;
    return busy / (3.0 * double(microBatches));
}

std::string stepTimeText(const StepTime &t, std::int64_t gpus, std::int64_t tokenBudget)
{
    if (!t.valid())
        return "Step: not timed: " + t.error;
    // Sized by a first pass, so no step time, however long, cuts the line. A step under
    // 0.1 s in milliseconds, so a small model's reads "4.52 ms", not "0.00 s".
    const bool ms = t.stepSeconds < 0.1;
    const double shown = ms ? 1000 * t.stepSeconds : t.stepSeconds;
    const int digits = shown < 10 ? 2 : 1;
    const std::string rate = scaledCount(t.tokensPerSecond, "G");
    const char *format = "Step: %.*f %s, %.1f%% MFU, %s tokens/s on %lld GPU%s";
    const char *unit = ms ? "ms" : "s";
    const char *plural = gpus == 1 ? "" : "s"; // "on 1 GPU", "on 64 GPUs"
    const int length = std::snprintf(nullptr, 0, format, digits, shown, unit, 100 * t.mfu,
                                     rate.c_str(), static_cast<long long>(gpus), plural);
    std::string out(std::size_t(std::max(length, 0)) + 1, '\0');
    std::snprintf(out.data(), out.size(), format, digits, shown, unit, 100 * t.mfu, rate.c_str(),
                  static_cast<long long>(gpus), plural);
    out.resize(std::size_t(std::max(length, 0)));
    if (tokenBudget > 0 && std::isfinite(t.trainSeconds)) {
        out += "; ";
        out += scaledCount(double(tokenBudget), "B");
        out += " tokens in ";
        out += duration(t.trainSeconds);
        out += ", ";
        out += scaledCount(t.gpuHours, "B");
        out += " GPU-hours";
        if (t.costDollars > 0) {
            out += " ($";
            out += scaledCount(t.costDollars, "B");
            out += ")";
        }
    }
    return out;
}

} // namespace shardscope
