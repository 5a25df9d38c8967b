#include "oomexplain.h"

#include "activations.h"
#include "enumtable.h"
#include "layout.h"
#include "schedule.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace shardscope {

namespace {

std::string bytesText(std::int64_t b, ByteUnit u)
{
    return formatBytes(b, u);
}

std::string percentText(double share)
{
    return std::to_string(std::int64_t(std::lround(100 * share))) + "%";
}

template <typename T>
void change(std::vector<std::string> &out, const char *name, const T &from, const T &to)
{
    if (from != to)
        out.push_back(std::string(name) + " " + from + " -> " + to);
}

/// The remedies for the busiest GPU's largest part, given the scenario's settings.
std::vector<std::string> adviceFor(OomCause cause, const Scenario &s)
{
    std::vector<std::string> a;
    const Layout &l = s.layout;
    const Training &t = s.training;
    switch (cause) {
    case OomCause::TensorLargerThanGpu:
        a.push_back("Make the one tensor smaller: a smaller micro-batch or sequence, or split "
                    "it over GPUs (tensor, sequence or context parallelism); no allocator "
                    "setting can place it.");
        break;
    case OomCause::Fragmentation:
        a.push_back("Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow in "
                    "place instead of new ones being cut, so freed pieces are reused (the "
                    "advice PyTorch's own message gives).");
        a.push_back("If it still fails, the run is at the edge of the card: take one of the "
                    "layouts below, which fit with headroom.");
        break;
    case OomCause::Activations:
        if (t.recompute == Recompute::None)
            a.push_back("Turn activation recomputation on: selective (the attention core) "
                        "first, then full (--recompute selective, --recompute full).");
        else if (t.recompute == Recompute::Selective)
            a.push_back("Recompute whole layers (--recompute full).");
        if (t.microBatchSize > 1)
            a.push_back("Halve the micro-batch size (--mbs " +
                        std::to_string(t.microBatchSize / 2) +
                        ") and double the micro-batches, which keeps the global batch.");
        a.push_back("Shorten the sequence, or split it over GPUs (sequence parallelism with "
                    "tensor parallelism, or context parallelism); ZeRO does not split "
                    "activations.");
        break;
    case OomCause::OptimizerStates:
        if (l.zeroStage == ZeroStage::Ddp)
            a.push_back("Shard the master weights and optimizer states over the data ranks: "
                        "ZeRO-1 or above (--strategy zero1; FSDP's SHARD_GRAD_OP or "
                        "FULL_SHARD).");
        else if (l.offload == Offload::None)
            a.push_back("Offload the optimizer to CPU RAM (--offload optimizer), or shard over "
                        "more data ranks (more GPUs).");
        else
            a.push_back("Shard over more data ranks (more GPUs), or split the layers (tensor or "
                        "pipeline parallelism).");
        break;
    case OomCause::WeightsAndGradients:
        if (l.zeroStage < ZeroStage::Zero2)
            a.push_back("Shard the gradients (ZeRO-2) and the weights (ZeRO-3 / FSDP "
                        "FULL_SHARD) over the data ranks.");
        else if (l.zeroStage == ZeroStage::Zero2)
            a.push_back("Shard the weights too: ZeRO-3 / FSDP FULL_SHARD (--strategy zero3).");
        else
            a.push_back("Split the layers (tensor or pipeline parallelism), or offload the "
                        "parameters (--offload optimizer+params).");
        break;
    case OomCause::Buffers:
        a.push_back("Shrink the buffers: a smaller gradient bucket (DDP bucket_cap_mb, "
                    "DeepSpeed reduce_bucket_size) or fewer ZeRO-3 units gathered at once (no "
                    "prefetch).");
        break;
    case OomCause::Unknown:
        break;
    }
    return a;
}

/// A size as PyTorch prints it (two decimals of GiB, of MiB below 1 GiB); "-" when empty.
std::string messageSize(const std::optional<std::int64_t> &b)
{
    if (!b)
        return "-";
    const bool gib = *b >= (std::int64_t(1) << 30);
    char text[48];
    std::snprintf(text, sizeof text, "%.2f %s",
                  double(*b) / double(std::int64_t(1) << (gib ? 30 : 20)), gib ? "GiB" : "MiB");
    return text;
}

/// `text` padded with spaces to `width` on the left (right-aligned) or right.
std::string padded(const std::string &text, std::size_t width, bool right)
{
    if (text.size() >= width)
        return text;
    const std::string pad(width - text.size(), ' ');
    return right ? pad + text : text + pad;
}

} // namespace

std::string oomExplanationText(const OomMessage &m, const OomExplanation &e, const Scenario &s,
                               ByteUnit unit)
{
    std::string out = "PyTorch out-of-memory message (" + oomWordingId(m.wording) + " wording" +
                      (m.device >= 0 ? ", GPU " + std::to_string(m.device) : "") + "):\n";
    const std::pair<const char *, const std::optional<std::int64_t> *> rows[] = {
        {"tried to allocate", &m.triedToAllocateBytes},
        {"total capacity", &m.totalCapacityBytes},
        {"free", &m.freeBytes},
        {"in use", &m.inUseBytes},
        {"allocated by PyTorch", &m.allocatedByPytorchBytes},
        {"reserved, unallocated", &m.reservedUnallocatedBytes}};
    for (const auto &[name, value] : rows)
        out += "  " + padded(name, 22, false) + " " + padded(messageSize(*value), 10, true) + "\n";
    for (const OomProcess &p : m.otherProcesses)
        out += "  " + padded("process " + std::to_string(p.pid), 22, false) + " " +
               padded(messageSize(p.bytes), 10, true) + "\n";
    for (const std::string &n : m.notes)
        out += "  note: " + n + "\n";
    out += "\nVerdict (" + oomCauseId(e.cause) + "): " + e.verdict + "\n";
    if (!e.advice.empty()) {
        out += "What to change:\n";
        for (const std::string &a : e.advice)
            out += "  - " + a + "\n";
    }
    if (!e.suggestions.empty()) {
        out += "Fewest changes that fit (" + std::to_string(s.layout.gpus) +
               " GPUs, the same global batch, " + std::to_string(e.headroomPercent) +
               "% headroom):\n";
        int i = 0;
        for (const OomSuggestion &g : e.suggestions) {
            std::string changes;
            for (const std::string &c : g.changes)
                changes += (changes.empty() ? "" : ", ") + c;
            out += "  " + std::to_string(++i) + ". " + (changes.empty() ? "no change" : changes) +
                   ": " + formatBytes(g.candidate.peakBytes, unit) + " per GPU";
            if (g.candidate.time.valid()) {
                char step[32];
                std::snprintf(step, sizeof step, ", %.2f s/step", g.candidate.time.stepSeconds);
                out += step;
            }
            out += "\n";
        }
    }
    if (!e.notes.empty()) {
        out += "Notes:\n";
        for (const std::string &n : e.notes)
            out += "  - " + n + "\n";
    }
    return out;
}

std::string oomCauseId(OomCause c)
{
    static constexpr EnumTable<OomCause, 6> oomCauses{{
        {OomCause::TensorLargerThanGpu, "tensor-larger-than-gpu"},
        {OomCause::Fragmentation, "fragmentation"},
        {OomCause::Activations, "activations"},
        {OomCause::OptimizerStates, "optimizer-states"},
        {OomCause::WeightsAndGradients, "weights-and-gradients"},
        {OomCause::Buffers, "buffers"},
    }};
    return std::string(enumId(oomCauses, c, "unknown"));
}

std::vector<std::string> changedSettings(const Scenario &s, const PlanCandidate &c)
{
    std::vector<std::string> out;
    const Layout &a = s.layout, &b = c.layout;
    const Training &x = s.training, &y = c.training;
    auto n = [](std::int64_t v) { return std::to_string(v); };
    auto str = [](std::string_view v) { return std::string(v); };
    change(out, "tp", n(a.tensorParallel), n(b.tensorParallel));
    change(out, "pp", n(a.pipelineParallel), n(b.pipelineParallel));
    change(out, "cp", n(a.contextParallel), n(b.contextParallel));
    change(out, "ep", n(a.expertParallel), n(b.expertParallel));
    change(out, "strategy", str(zeroStageId(a.zeroStage)), str(zeroStageId(b.zeroStage)));
    change(out, "hsdp shard", n(a.hsdpShardSize), n(b.hsdpShardSize));
    change(out, "offload", str(offloadId(a.offload)), str(offloadId(b.offload)));
    change(out, "micro-batch", n(x.microBatchSize), n(y.microBatchSize));
    change(out, "recompute", str(recomputeId(x.recompute)), str(recomputeId(y.recompute)));
    if (a.pipelineParallel > 1 || b.pipelineParallel > 1) {
        change(out, "schedule", str(pipelineScheduleId(x.schedule)),
               str(pipelineScheduleId(y.schedule)));
        if (x.schedule == PipelineSchedule::Interleaved1F1B ||
            y.schedule == PipelineSchedule::Interleaved1F1B)
            change(out, "chunks", n(x.chunks), n(y.chunks));
    }
    return out;
}

namespace {

/// What the message measured, into e.measuredBytes and e.measuredDemandBytes (in use, or
/// reserved plus the CUDA context, plus the failed request), with a note when the
/// message's card is not the scenario's (more than 10% apart).
void readMeasured(OomExplanation &e, const OomMessage &m, const Scenario &s, ByteUnit unit)
{
    auto text = [unit](std::int64_t b) { return bytesText(b, unit); };
    if (m.inUseBytes) {
        e.measuredBytes = m.inUseBytes;
    } else if (m.reservedBytes) {
        e.measuredBytes = *m.reservedBytes + s.overheads.cudaContextBytes;
        e.notes.push_back("The message states no in-use figure: measured is PyTorch's reserved " +
                          text(*m.reservedBytes) + " plus the scenario's CUDA context (" +
                          text(s.overheads.cudaContextBytes) + ").");
    }
    if (e.measuredBytes)
        e.measuredDemandBytes = *e.measuredBytes + m.triedToAllocateBytes.value_or(0);
    if (m.totalCapacityBytes) {
        const std::int64_t card = s.gpu.usableBytes();
        const double off = std::abs(double(*m.totalCapacityBytes) - double(card)) / double(card);
        if (card > 0 && off > 0.1)
            e.notes.push_back("The message's card has " + text(*m.totalCapacityBytes) +
                              " in total, the scenario's " + s.gpu.name + " " + text(card) +
                              ": is the scenario's GPU the one that ran?");
    }
}

/// The verdict's first sentence: the predicted peak against the card and what the
/// message measured.
std::string comparisonText(const OomExplanation &e, const OomMessage &m, const Scenario &s,
                           ByteUnit unit)
{
    auto text = [unit](std::int64_t b) { return bytesText(b, unit); };
    std::string v = "Predicted peak " + text(e.predictedPeakBytes) + " per GPU against " +
                    text(e.predictedCapacityBytes) + " (" + s.gpu.name + ")";
    if (e.measuredDemandBytes) {
        v += "; the message measured " + text(*e.measuredBytes) +
             (m.inUseBytes ? " in use" : " held") + " plus a failed request of " +
             text(m.triedToAllocateBytes.value_or(0)) + ": at least " +
             text(*e.measuredDemandBytes) + " needed";
        if (m.totalCapacityBytes)
            v += " on a card of " + text(*m.totalCapacityBytes);
    }
    return v + ". ";
}

/// Cause 3, no single tensor or fragmentation to blame: the largest predicted part of
/// the busiest GPU (e.cause), as a sentence, and whether the prediction overflows too.
std::string largestPartText(OomExplanation &e, ByteUnit unit)
{
    auto text = [unit](std::int64_t b) { return bytesText(b, unit); };
    const ComponentBytes &p = e.predicted;
    const std::pair<OomCause, std::int64_t> parts[] = {
        {OomCause::Activations, p.activations},
        {OomCause::OptimizerStates, p.masterWeights + p.optimizerStates},
        {OomCause::WeightsAndGradients, p.weights + p.gradients},
        {OomCause::Buffers, p.buffers}};
    const auto *largest =
        std::max_element(std::begin(parts), std::end(parts),
                         [](const auto &a, const auto &b) { return a.second < b.second; });
    e.cause = largest->first;
    const char *name = e.cause == OomCause::Activations           ? "activations"
                       : e.cause == OomCause::OptimizerStates     ? "optimizer states (master "
                                                                    "weights and moments)"
                       : e.cause == OomCause::WeightsAndGradients ? "weights and gradients"
                                                                  : "buffers";
    const double share =
        e.predictedPeakBytes > 0 ? double(largest->second) / double(e.predictedPeakBytes) : 0;
    std::string v = "The largest part of the busiest GPU is its " + std::string(name) + ": " +
                    text(largest->second) + " of the " + text(e.predictedPeakBytes) +
                    " predicted (" + percentText(share) + ").";
    if (e.predictedPeakBytes > e.predictedCapacityBytes) {
        v += " The prediction overflows too, by " +
             text(e.predictedPeakBytes - e.predictedCapacityBytes) + ".";
    } else if (e.measuredDemandBytes && *e.measuredDemandBytes > e.predictedPeakBytes) {
        v += " The prediction fits, so the run held " +
             text(*e.measuredDemandBytes - e.predictedPeakBytes) +
             " more than predicted: check that the scenario is the run's (micro-batch, "
             "sequence, recomputation, strategy).";
    }
    return v;
}

/// The cause (e.cause) and the sentence naming it, in order: one request larger than
/// the card; fragmentation (reserved-unallocated bytes that would have held the request,
/// above the scenario's fragmentation reserve); else the largest predicted part.
std::string causeText(OomExplanation &e, const OomMessage &m, const Scenario &s, ByteUnit unit)
{
    auto text = [unit](std::int64_t b) { return bytesText(b, unit); };
    const std::int64_t tried = m.triedToAllocateBytes.value_or(0);
    const std::int64_t allocated = m.allocatedByPytorchBytes.value_or(0);
    const std::int64_t slack = m.reservedUnallocatedBytes.value_or(0);
    const std::int64_t shortfall = std::max<std::int64_t>(0, tried - m.freeBytes.value_or(0));
    if (m.triedToAllocateBytes && m.totalCapacityBytes && tried > *m.totalCapacityBytes) {
        e.cause = OomCause::TensorLargerThanGpu;
        return "One request of " + text(tried) + " is larger than the whole card.";
    }
    if (m.reservedUnallocatedBytes && m.triedToAllocateBytes && slack >= shortfall &&
        slack * 100 > std::int64_t(s.overheads.fragmentationPercent) * allocated) {
        e.cause = OomCause::Fragmentation;
        return "Fragmentation: PyTorch held " + text(slack) +
               " reserved but unallocated, enough for the request with the " +
               text(m.freeBytes.value_or(0)) + " free, and more than the scenario's " +
               std::to_string(s.overheads.fragmentationPercent) +
               "% fragmentation reserve of the " + text(allocated) +
               " allocated. PyTorch gives whole free segments back before it fails, so these "
               "bytes sit in segments partly in use.";
    }
    const std::string v = largestPartText(e, unit);
    if (m.reservedUnallocatedBytes && slack >= shortfall && m.triedToAllocateBytes)
        e.notes.push_back(
            "Reserved but unallocated (" + text(slack) + ")" +
            (m.freeBytes.value_or(0) > 0 ? ", with the " + text(*m.freeBytes) + " free," : "") +
            " would have held this request, so " +
            (m.wording == OomWording::Newer
                 ? std::string("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
                 : std::string("an allocator setting (this PyTorch's message advises "
                               "max_split_size_mb; expandable_segments came later)")) +
            " may let this step through, but it is within the scenario's fragmentation "
            "reserve: the lasting fix is to need less.");
    return v;
}

/// e.headroomPercent: 5%, or, when the run needed r = demand / prediction times what
/// the scenario predicts, what keeps r x a layout's predicted peak within 95% of the
/// card: 100 - 95 / r percent (at most 90, the planner's bound), with a note.
void headroomFromRun(OomExplanation &e)
{
    if (!e.measuredDemandBytes || *e.measuredDemandBytes <= e.predictedPeakBytes ||
        e.predictedPeakBytes <= 0)
        return;
    const double ratio = double(*e.measuredDemandBytes) / double(e.predictedPeakBytes);
    const int pct = int(std::ceil(100.0 - 95.0 / ratio - 1e-9));
    e.headroomPercent = std::clamp(pct, 5, 90);
    char factor[32];
    std::snprintf(factor, sizeof factor, "%.2f", ratio);
    e.notes.push_back("The run needed " + std::string(factor) +
                      " times the predicted peak, so the layouts below keep " +
                      std::to_string(e.headroomPercent) + "% of the card free (" + factor +
                      " x each one's predicted peak within 95% of the card).");
}

/// e.suggestions: the layouts of s's GPU count and global batch that fit with
/// e.headroomPercent (plan()), fewest changed settings first, at most `keep`; the
/// scenario's own layout is never one.
void suggestLayouts(OomExplanation &e, const Scenario &s, std::size_t keep)
{
    PlanRequest q;
    q.base = s;
    q.minGpus = q.maxGpus = s.layout.gpus;
    q.globalBatchTokens =
        s.training.globalBatch(s.layout.dataParallel()) * s.training.sequenceLength;
    q.maxTensorParallel = int(std::min<std::int64_t>(s.layout.gpusPerNode, 65536));
    q.maxMicroBatchSize = std::max<std::int64_t>(q.maxMicroBatchSize, s.training.microBatchSize);
    q.headroomPercent = e.headroomPercent;
    q.maxCandidates = 2'000'000;
    const PlanResult plan = shardscope::plan(q);
    if (!plan.valid()) {
        e.notes.push_back("No layouts were searched: " + plan.error);
        return;
    }
    std::vector<OomSuggestion> all;
    all.reserve(plan.fitting.size());
    for (const PlanCandidate &c : plan.fitting) {
        OomSuggestion g{c, changedSettings(s, c)};
        if (g.changes.empty()) { // the layout that ran out of memory is no answer
            e.notes.push_back("The scenario's own layout fits by the prediction with " +
                              std::to_string(e.headroomPercent) +
                              "% headroom, but the run failed with it: it is not suggested, "
                              "and the scenario may not be the run's.");
            continue;
        }
        all.push_back(std::move(g));
    }
    // Fewest changes first, then the planner's order (step time, bytes, GPUs).
    std::stable_sort(all.begin(), all.end(), [](const OomSuggestion &a, const OomSuggestion &b) {
        return a.changes.size() < b.changes.size();
    });
    if (all.size() > keep)
        all.resize(keep);
    e.suggestions = std::move(all);
    if (e.suggestions.empty())
        e.notes.push_back("No layout of " + std::to_string(s.layout.gpus) +
                          " GPUs fits this model and global batch: more GPUs are needed "
                          "(shardscope plan --gpus A-B).");
}

} // namespace

OomExplanation explainOom(const OomMessage &m, const Scenario &s, const MemoryReport &r,
                          ByteUnit unit, bool suggestFits, std::size_t keep)
{
    OomExplanation e;
    if (!r.valid()) {
        e.error = r.error;
        return e;
    }
    const GpuGroup *busiest = r.peakGroup();
    if (busiest)
        e.predicted = busiest->bytes;
    e.predictedPeakBytes = r.peakBytes();
    e.predictedCapacityBytes = r.capacityBytes;
    readMeasured(e, m, s, unit);
    std::string v = comparisonText(e, m, s, unit);
    v += causeText(e, m, s, unit);
    std::int64_t others = 0;
    for (const OomProcess &o : m.otherProcesses)
        others += o.bytes;
    if (others > 0)
        e.notes.push_back(std::to_string(m.otherProcesses.size()) +
                          " other process(es) on the GPU hold " + bytesText(others, unit) +
                          ", which no estimate of this run counts.");
    if (e.cause == OomCause::Fragmentation && m.wording != OomWording::Newer)
        e.notes.push_back("This message's wording predates expandable_segments; that PyTorch's "
                          "own advice was PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N.");
    e.verdict = v;
    e.advice = adviceFor(e.cause, s);
    headroomFromRun(e);
    if (suggestFits)
        suggestLayouts(e, s, keep);
    return e;
}

} // namespace shardscope
