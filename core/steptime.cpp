#include "steptime.h"

#include "estimate.h"
#include "inputlimits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace shardscope {

namespace {

/// Forward attention FLOPs per token of one layer: 2 s (a d_qk) + 2 s (a d_v).
double attentionPerToken(const Architecture &a, std::int64_t s)
{
    const double dv = double(a.usesLatentAttention() ? a.vHeadDim : a.effectiveHeadDim());
    return 2.0 * double(s) * (double(a.queryWidth()) + double(a.heads) * dv);
}

/// Forward QK^T FLOPs per token of one layer: what FlashAttention's backward recomputes.
double scoresPerToken(const Architecture &a, std::int64_t s)
{
    return 2.0 * double(s) * double(a.queryWidth());
}

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

/// A link: bandwidth (bytes/s, one direction) and latency per ring step (seconds).
struct Link
{
    double bytesPerSecond = 0;
    double latencySeconds = 0;
    bool crossesNodes = false;
};

} // namespace

std::string validateThroughput(const Throughput &t)
{
    // One list of the limits; the message is built only for a field out of range, so the
    // common case costs fourteen comparisons and no string.
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
        {"compute efficiency", t.computeEfficiencyPercent, 1, 100, "%"},
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

StepTime stepTime(const Scenario &s, const MemoryReport &r)
{
    StepTime t;
    if (!r.valid()) {
        t.error = "the memory report is invalid: " + r.error;
        return t;
    }
    const Gpu &gpu = s.gpu;
    const Layout &l = s.layout;
    const Training &tr = s.training;
    const Throughput &th = s.throughput;
    const bool fp8 = tr.activationBytes == 1;
    // An FP8 recipe (Training::fp8) with wider activations runs the linear layers' matmuls
    // at the FP8 peak and the rest (the attention core and the output head, which neither
    // Transformer Engine's default recipes, fp8_dpa off, nor torchtitan's filter_fqns
    // ["output"] put in FP8) at the BF16 peak. peakFlopsPerSecond is then the FP8 peak.
    const bool fp8Linear = !fp8 && tr.fp8 != Fp8Recipe::Off;
    t.peakFlopsPerSecond = fp8 || fp8Linear ? gpu.fp8FlopsPerSecond : gpu.bf16FlopsPerSecond;
    if (!(t.peakFlopsPerSecond > 0)) {
        t.error = "GPU " + gpu.id + " has no dense " + (fp8 || fp8Linear ? "FP8" : "BF16") +
                  " peak in the catalog (" + (fp8 || fp8Linear ? "fp8_tflops" : "bf16_tflops") +
                  " is 0: unknown or unsupported)";
        return t;
    }
    if (fp8Linear && !(gpu.bf16FlopsPerSecond > 0)) {
        t.error = "GPU " + gpu.id +
                  " has no dense BF16 peak in the catalog (bf16_tflops is 0: unknown or "
                  "unsupported), which times the attention core beside the FP8 matmuls";
        return t;
    }
    if (!(gpu.memoryBytesPerSecond > 0)) {
        t.error = "GPU " + gpu.id + " has no memory bandwidth in the catalog (memory_gbps is 0)";
        return t;
    }
    if (const std::string e = validateThroughput(th); !e.empty()) {
        t.error = e;
        return t;
    }
    if (!fp8 && !fp8Linear && tr.activationBytes != 2)
        t.notes.push_back("Activations wider than 16 bits are timed at the BF16 peak.");
    t.achievedFlopsPerSecond = t.peakFlopsPerSecond * th.computeEfficiencyPercent / 100.0;

    // Links: NVLink / xGMI inside a node, the NIC across; no NVLink falls back to PCIe.
    const double nicLatency = double(th.nicLatencyNanoseconds) * 1e-9;
    const double nvLatency = double(th.nvlinkLatencyNanoseconds) * 1e-9;
    double intraBandwidth = gpu.nvlinkBytesPerSecond;
    if (!(intraBandwidth > 0)) {
        intraBandwidth = double(th.hostLinkBytesPerSecond);
        t.notes.push_back("GPU " + gpu.id +
                          " has no NVLink in the catalog; collectives inside a node use the host "
                          "link (PCIe).");
    }
    const std::int64_t perNode = std::max<std::int64_t>(1, l.gpusPerNode);
    // A group whose members span `span` consecutive ranks fits a node when span <= perNode.
    auto link = [&](std::int64_t span) {
        const bool across = span > perNode;
        return Link{across ? double(th.nicBytesPerSecond) : intraBandwidth,
                    across ? nicLatency : nvLatency, across};
    };
    auto timed = [](std::int64_t bytes, const Link &k, double ringSteps) {
        CollectiveTime c;
        c.bytes = bytes;
        c.crossesNodes = k.crossesNodes;
        if (bytes > 0)
            c.seconds = double(bytes) / k.bytesPerSecond + ringSteps * k.latencySeconds;
        return c;
    };

    const std::int64_t tp = l.tensorParallel, pp = l.pipelineParallel, cp = l.contextParallel;
    const std::int64_t ep = l.expertParallel, d = l.dataParallel();
    const std::int64_t m = tr.microBatches, b = tr.microBatchSize, seq = tr.sequenceLength;
    const double tokensLocal = double(b) * double(seq) / double(cp); // per GPU per micro-batch
    const std::optional<Architecture> &arch = s.model.architecture;
    const bool fullRecompute = tr.recompute == Recompute::Full;
    const int chunks = tr.schedule == PipelineSchedule::Interleaved1F1B ? tr.chunks : 1;

    // Bubble over busy time (docs/pipeline.md), 0 with one stage.
    const ScheduleParams sp = scheduleParams(s);
    const double overIdeal = pp > 1 ? std::max(0.0, bubbleClosedForm(sp).overIdeal()) : 0.0;

    double slowestBusy = 0;
    double exposedAfter = 0; // data-parallel sync, optimizer and offload after the pipeline
    double hardwarePerStep = 0;
    const GpuGroup *slowest = nullptr;
    StepTime best = t;
    for (const GpuGroup &g : r.groups) {
        StepTime u = t;
        // Forward FLOPs per GPU per micro-batch on this stage.
        double matmul = 0, attention = 0, scores = 0, scoreElements = 0;
        if (arch) {
            const Architecture &a = *arch;
            if (!a.isMoe()) {
                // The stage's identical layers at once (exact, as in tokenFlops()).
                matmul = double(2 * activeLayerParameterCount(a, 0) * std::int64_t(g.layerCount));
            } else {
                for (int i = g.firstLayer; i < g.firstLayer + g.layerCount; ++i)
                    matmul += 2.0 * double(activeLayerParameterCount(a, i));
            }
            if (g.holdsOutputHead)
                matmul += 2.0 * headParameters(a);
            attention = g.layerCount * attentionPerToken(a, seq);
            scores = g.layerCount * scoresPerToken(a, seq);
            // Without flash, every layer's a x (s/c) x s score matrix per sequence.
            scoreElements = double(g.layerCount) * double(a.heads) * double(seq) / double(cp) *
                            double(seq) * double(b) / double(tp);
        } else {
            matmul = 2.0 * double(s.model.plainParameters) / double(pp);
        }
        const double fwdFlops = tokensLocal * (matmul + attention) / double(tp);
        const double flashExtra = tr.flashAttention ? tokensLocal * scores / double(tp) : 0.0;
        double recomputeFlops = 0;
        if (tr.recompute == Recompute::Full)
            recomputeFlops =
                tokensLocal *
                (matmul - (g.holdsOutputHead && arch ? 2.0 * headParameters(*arch) : 0.0) +
                 attention) /
                double(tp);
        else if (tr.recompute == Recompute::Selective)
            recomputeFlops = tokensLocal * attention / double(tp);
        const double rate = u.achievedFlopsPerSecond;
        // The attention core's rate: the BF16 one beside FP8 linear layers, else `rate`.
        const double attentionRate =
            fp8Linear ? gpu.bf16FlopsPerSecond * th.computeEfficiencyPercent / 100.0 : rate;
        if (fp8Linear) {
            // Per GPU per micro-batch: the blocks' linear matmuls at `rate`, the head and
            // the attention core (with flash's recomputed scores) at attentionRate.
            const double head = g.holdsOutputHead && arch ? 2.0 * headParameters(*arch) : 0.0;
            const double linearFwd = tokensLocal * (matmul - head) / double(tp);
            const double otherFwd = tokensLocal * (head + attention) / double(tp);
            u.forwardSeconds = double(m) * (linearFwd / rate + otherFwd / attentionRate);
            u.backwardSeconds =
                double(m) * (2 * linearFwd / rate + (2 * otherFwd + flashExtra) / attentionRate);
            const double attentionFwd = tokensLocal * attention / double(tp);
            if (tr.recompute == Recompute::Full)
                u.recomputeSeconds = double(m) * (linearFwd / rate + attentionFwd / attentionRate);
            else if (tr.recompute == Recompute::Selective)
                u.recomputeSeconds = double(m) * attentionFwd / attentionRate;
        } else {
            u.forwardSeconds = double(m) * fwdFlops / rate;
            u.backwardSeconds = double(m) * (2 * fwdFlops + flashExtra) / rate;
            u.recomputeSeconds = double(m) * recomputeFlops / rate;
        }
        if (!tr.flashAttention) {
            // Forward writes scores, softmax reads and writes them, AV reads them: 4
            // passes; the backward twice that; a recomputed forward 4 more.
            const double passes = 12.0 + (tr.recompute == Recompute::None ? 0.0 : 4.0);
            u.attentionMemorySeconds = double(m) * passes * scoreElements *
                                       double(tr.activationBytes) / gpu.memoryBytesPerSecond;
        }
        u.computeSeconds =
            u.forwardSeconds + u.backwardSeconds + u.recomputeSeconds + u.attentionMemorySeconds;
        hardwarePerStep +=
            double(g.gpuCount) * double(m) * (3 * fwdFlops + flashExtra + recomputeFlops);

        // Collectives (ring steps for the latency term; docs/steptime.md).
        const CommunicationBytes &c = g.communication;
        const int layersHere = std::max(1, g.layerCount);
        const double tpCalls = double(m) * layersHere * (fullRecompute ? 6 : 4);
        u.tensorParallel = timed(c.tensorParallel, link(tp), tpCalls * 2.0 * double(tp - 1));
        u.tensorParallel.exposedSeconds = u.tensorParallel.seconds;
        u.contextParallel =
            timed(c.contextParallel, link(tp * cp), double(m) * layersHere * 3.0 * double(cp - 1));
        // Ring attention sends the next block's keys and values while attending to this one.
        const double attentionSeconds = double(m) * tokensLocal * attention *
                                        (3.0 + (fullRecompute ? 1.0 : 0.0)) / double(tp) /
                                        attentionRate;
        u.contextParallel.exposedSeconds =
            std::max(0.0, u.contextParallel.seconds - attentionSeconds);
        const int moeHere = arch ? arch->moeLayersIn(g.firstLayer, g.layerCount) : 0;
        u.expertParallel = timed(c.expertParallel, link(tp * ep),
                                 double(m) * moeHere * (fullRecompute ? 6 : 4) * double(ep - 1));
        u.expertParallel.exposedSeconds = u.expertParallel.seconds;
        // Neighbour stages are t c d ranks apart; both in one node when 2 t c d <= perNode.
        u.pipelineParallel =
            timed(c.pipelineParallel, link(2 * tp * cp * d), 2.0 * double(m) * chunks);
        u.pipelineParallel.exposedSeconds = u.pipelineParallel.seconds;

        // Data parallel: ranks sharing parameters are t apart; the ZeRO group spans
        // t x shard group ranks, plain DDP t x d x c.
        const std::int64_t shard = l.zeroStage == ZeroStage::Ddp ? d * cp : l.shardGroup();
        const std::int64_t R = std::max<std::int64_t>(1, shard);
        double dpSteps = 0, bucketBytes = 0;
        const double gradBytes = double(g.parametersPerGpu) * double(s.recipe.gradientBytes);
        switch (l.zeroStage) {
        case ZeroStage::Ddp:
        case ZeroStage::Zero1:
        case ZeroStage::Zero2: {
            bucketBytes = l.zeroStage == ZeroStage::Ddp ? double(s.overheads.ddpBucketBytes)
                                                        : double(s.overheads.zeroBucketElements) *
                                                              double(s.recipe.gradientBytes);
            const double buckets = bucketBytes > 0 ? std::ceil(gradBytes / bucketBytes) : 1.0;
            const double perBucket = l.zeroStage == ZeroStage::Ddp ? 2.0 : 1.0;
            dpSteps = buckets * perBucket * double(R - 1) *
                      (l.zeroStage == ZeroStage::Zero2 ? double(m) + 1.0 : 1.0);
            break;
        }
        case ZeroStage::Zero3:
            dpSteps = double(m) * 3.0 * layersHere * double(R - 1);
            break;
        }
        u.dataParallel = timed(
            c.dataParallel,
            link(tp * (l.zeroStage == ZeroStage::Ddp || l.hsdpShardSize == 0 ? d * cp
                                                                             : l.hsdpShardSize)),
            dpSteps);
        const double backwardOne = u.backwardSeconds / double(m);
        if (l.zeroStage == ZeroStage::Zero3) {
            // Prefetched gathers and reduce-scatters run behind compute.
            u.dataParallel.exposedSeconds =
                std::max(0.0, u.dataParallel.seconds - u.computeSeconds);
        } else {
            // Gradient buckets reduce during the backward (the last micro-batch's, or every
            // micro-batch's for ZeRO-2); the last bucket's reduction is always exposed.
            const double window = l.zeroStage == ZeroStage::Zero2 ? u.backwardSeconds : backwardOne;
            const double lastBucket =
                gradBytes > 0 ? u.dataParallel.seconds * std::min(1.0, bucketBytes / gradBytes)
                              : 0.0;
            u.dataParallel.exposedSeconds = std::min(
                u.dataParallel.seconds, std::max(u.dataParallel.seconds - window, lastBucket));
        }

        // Optimizer: each GPU updates its shard, reading gradients, reading and writing
        // master weights and moments, writing the working weights.
        const double updated = l.zeroStage == ZeroStage::Ddp
                                   ? double(g.parametersPerGpu)
                                   : double(g.parametersPerGpu) / double(R);
        const Recipe &rc = s.recipe;
        if (l.offload == Offload::None) {
            u.optimizerSeconds = updated *
                                 double(rc.gradientBytes + 2 * rc.masterWeightBytes +
                                        2 * rc.optimizerBytes + rc.weightBytes) /
                                 gpu.memoryBytesPerSecond;
        } else {
            double moved = updated * double(rc.gradientBytes + rc.weightBytes);
            if (l.offload == Offload::OptimizerAndParams)
                moved += 2.0 * double(m) * updated * double(rc.weightBytes);
            u.offloadSeconds = moved / double(th.hostLinkBytesPerSecond);
            // The CPU's own Adam step streams the same bytes per parameter as the GPU's
            // through host DRAM, whose bandwidth the node's GPUs share.
            u.cpuOptimizerSeconds =
                updated *
                double(rc.gradientBytes + 2 * rc.masterWeightBytes + 2 * rc.optimizerBytes +
                       rc.weightBytes) /
                (hostMemoryBytesPerSecondPerNode / double(std::min<std::int64_t>(perNode, l.gpus)));
        }

        const double busy = u.computeSeconds + u.tensorParallel.exposedSeconds +
                            u.contextParallel.exposedSeconds + u.expertParallel.exposedSeconds +
                            u.pipelineParallel.exposedSeconds;
        const double after = u.dataParallel.exposedSeconds + u.optimizerSeconds + u.offloadSeconds +
                             u.cpuOptimizerSeconds;
        if (!slowest || busy > slowestBusy) {
            slowest = &g;
            slowestBusy = busy;
            best = std::move(u);
        }
        exposedAfter = std::max(exposedAfter, after);
    }
    t = std::move(best);
    t.bubbleSeconds = overIdeal * slowestBusy;
    t.stepSeconds = slowestBusy + t.bubbleSeconds + exposedAfter;
    if (l.offload != Offload::None)
        t.notes.push_back("The CPU optimizer step is timed at 614.4 GB/s of host DRAM per node "
                          "(two 8-channel DDR5-4800 sockets, as in a DGX H100), shared by the "
                          "node's GPUs, not overlapped with the GPU step.");

    t.tokensPerStep = tr.globalBatch(d) * seq;
    const TokenFlops f = tokenFlops(s.model, seq);
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
    t.trainSeconds = double(th.tokenBudget) / t.tokensPerSecond;
    t.gpuHours = t.trainSeconds * double(l.gpus) / 3600.0;
    t.costDollars = t.gpuHours * double(th.priceCentsPerGpuHour) / 100.0;
    return t;
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
    char buf[160];
    std::snprintf(buf, sizeof buf, "Step: %.*f s, %.1f%% MFU, %s tokens/s on %lld GPUs",
                  t.stepSeconds < 10 ? 2 : 1, t.stepSeconds, 100 * t.mfu,
                  scaledCount(t.tokensPerSecond, "G").c_str(), static_cast<long long>(gpus));
    std::string out = buf;
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
