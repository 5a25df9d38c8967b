#include "schedule.h"

#include "enumtable.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>

namespace shardscope {

namespace {

/// Shortest round-trip text of a double ("0", "-1.5", "inf", "nan").
std::string numberText(double x)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
    return std::string(buffer, result.ptr);
}

bool knownSchedule(PipelineSchedule s)
{
    switch (s) {
    case PipelineSchedule::GPipe:
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::Interleaved1F1B:
    case PipelineSchedule::ZeroBubbleH1:
        return true;
    }
    return false;
}

std::string checkCost(const char *name, double cost)
{
    if (!std::isfinite(cost) || cost <= 0)
        return std::string(name) + " cost must be positive and finite (got " + numberText(cost) +
               ")";
    return {};
}

std::string rangeError(const char *name, int value, int low, int high)
{
    if (value < low)
        return std::string(name) + " must be at least " + std::to_string(low) + " (got " +
               std::to_string(value) + ")";
    if (value > high)
        return std::string(name) + " must be at most " + std::to_string(high) + " (got " +
               std::to_string(value) + ")";
    return {};
}

/// Appends an untimed operation to a stage's order.
void emit(std::vector<PipelineOp> &ops, OpKind kind, int microBatch, int chunk, int stage)
{
    ops.push_back({kind, microBatch, chunk, stage, 0.0, 0.0});
}

/// GPipe: all forwards in micro-batch order, then all backwards in reverse order
/// (the last micro-batch's backward first, as autograd over the whole mini-batch runs).
void gpipeOrder(std::vector<PipelineOp> &ops, int m, int stage)
{
    for (int mb = 0; mb < m; ++mb)
        emit(ops, OpKind::Forward, mb, 0, stage);
    for (int mb = m - 1; mb >= 0; --mb)
        emit(ops, OpKind::Backward, mb, 0, stage);
}

/// 1F1B (Megatron-LM forward_backward_pipelining_without_interleaving) on stage i:
/// w = min(p - i - 1, m) warm-up forwards, then m - w pairs (forward w + k, backward k),
/// then the w remaining backwards. Backwards run in micro-batch order 0 .. m-1; `backward`
/// is called for each with its micro-batch.
template <typename Backward>
void oneFOneBOrder(std::vector<PipelineOp> &ops, int p, int m, int i, Backward backward)
{
    const int warmup = std::min(p - i - 1, m);
    for (int k = 0; k < warmup; ++k)
        emit(ops, OpKind::Forward, k, 0, i);
    for (int k = 0; k < m - warmup; ++k) {
        emit(ops, OpKind::Forward, warmup + k, 0, i);
        backward(k);
    }
    for (int k = m - warmup; k < m; ++k)
        backward(k);
}

/// Interleaved 1F1B (Megatron-LM forward_backward_pipelining_with_interleaving, with
/// microbatch_group_size_per_vp_stage = p) on stage i. The k-th virtual micro-batch of
/// N = m v is micro-batch (k / (p v)) p + k % p of chunk (k % (p v)) / p going forward, and of
/// chunk v - 1 - (k % (p v)) / p going backward (get_model_chunk_id). Warm-up:
/// w = min(2 (p - i - 1) + (v - 1) p, N) forwards; then N - w pairs (forward w + k,
/// backward k); then the w remaining backwards.
void interleavedOrder(std::vector<PipelineOp> &ops, int p, int m, int v, int i)
{
    const int total = m * v;
    const int warmup = std::min(2 * (p - i - 1) + (v - 1) * p, total);
    const auto forward = [&ops, p, v, i](int k) {
        const int inGroup = k % (p * v);
        emit(ops, OpKind::Forward, (k / (p * v)) * p + k % p, inGroup / p, i);
    };
    const auto backward = [&ops, p, v, i](int k) {
        const int inGroup = k % (p * v);
        emit(ops, OpKind::Backward, (k / (p * v)) * p + k % p, v - 1 - inGroup / p, i);
    };
    for (int k = 0; k < warmup; ++k)
        forward(k);
    for (int k = 0; k < total - warmup; ++k) {
        forward(warmup + k);
        backward(k);
    }
    for (int k = total - warmup; k < total; ++k)
        backward(k);
}

/// ZB-H1 (Qi et al. 2023, section 2.1; zb-h1-quick-start: "delay W by rank") on stage i:
/// the 1F1B order with each backward split into B and W, where the W of micro-batch k - i
/// follows the B of micro-batch k (stage i holds back i weight gradients), and the i
/// deferred W run last, filling the cool-down bubble.
void zeroBubbleH1Order(std::vector<PipelineOp> &ops, int p, int m, int i)
{
    int nextWeight = 0;
    oneFOneBOrder(ops, p, m, i, [&](int k) {
        emit(ops, OpKind::BackwardInput, k, 0, i);
        if (k >= i)
            emit(ops, OpKind::BackwardWeight, nextWeight++, 0, i);
    });
    while (nextWeight < m)
        emit(ops, OpKind::BackwardWeight, nextWeight++, 0, i);
}

/// Fills a stage's operations, untimed, in the schedule's order.
void stageOrder(std::vector<PipelineOp> &ops, const ScheduleParams &params, int stage)
{
    const int p = params.stages;
    const int m = params.microBatches;
    const int v = params.chunks;
    switch (params.schedule) {
    case PipelineSchedule::GPipe:
        ops.reserve(std::size_t(2) * std::size_t(m));
        gpipeOrder(ops, m, stage);
        return;
    case PipelineSchedule::OneFOneB:
        ops.reserve(std::size_t(2) * std::size_t(m));
        oneFOneBOrder(ops, p, m, stage, [&](int k) { emit(ops, OpKind::Backward, k, 0, stage); });
        return;
    case PipelineSchedule::Interleaved1F1B:
        ops.reserve(std::size_t(2) * std::size_t(m) * std::size_t(v));
        interleavedOrder(ops, p, m, v, stage);
        return;
    case PipelineSchedule::ZeroBubbleH1:
        ops.reserve(std::size_t(3) * std::size_t(m));
        zeroBubbleH1Order(ops, p, m, stage);
        return;
    }
}

/// Adds one event to a step function kept as (time, value from then on), merging events at
/// the same time and dropping entries that do not change the value.
void stepTo(std::vector<std::pair<double, int>> &steps, double time, int value)
{
    if (!steps.empty() && steps.back().first == time)
        steps.back().second = value;
    else
        steps.emplace_back(time, value);
    if (steps.size() >= 2 && steps[steps.size() - 2].second == steps.back().second)
        steps.pop_back();
}

/// Step function and peak of the (micro-batch, chunk) sets a stage holds, each from the
/// start of its F to the end of its B (input-gradient B for split backwards); only the
/// sets of `chunk`, or of every chunk when `chunk` is negative.
void countSets(const StageTimeline &st, int chunk, std::vector<std::pair<double, int>> &steps,
               int &peak)
{
    // Each F and each B changes the count at most once: at most ops + 1 entries.
    steps.reserve(st.ops.size() + 1);
    steps.emplace_back(0.0, 0);
    int held = 0;
    for (const PipelineOp &op : st.ops) {
        if (chunk >= 0 && op.chunk != chunk)
            continue;
        if (op.kind == OpKind::Forward) {
            ++held;
            peak = std::max(peak, held);
            stepTo(steps, op.start, held);
        } else if (op.kind == OpKind::Backward || op.kind == OpKind::BackwardInput) {
            --held;
            stepTo(steps, op.end, held);
        }
    }
}

/// Fills inFlight / peakInFlight (every chunk) and, for split backwards,
/// pendingWeightGrads / peakPendingWeightGrads (B end to W end).
void countActivations(StageTimeline &st, bool splitBackward)
{
    countSets(st, -1, st.inFlight, st.peakInFlight);
    if (!splitBackward)
        return;
    st.pendingWeightGrads.reserve(st.ops.size() + 1);
    st.pendingWeightGrads.emplace_back(0.0, 0);
    int pending = 0;
    for (const PipelineOp &op : st.ops) {
        if (op.kind == OpKind::BackwardInput) {
            ++pending;
            st.peakPendingWeightGrads = std::max(st.peakPendingWeightGrads, pending);
            stepTo(st.pendingWeightGrads, op.end, pending);
        } else if (op.kind == OpKind::BackwardWeight) {
            --pending;
            stepTo(st.pendingWeightGrads, op.end, pending);
        }
    }
}

} // namespace

namespace {

constexpr EnumTable<PipelineSchedule, 4> schedules{{
    {PipelineSchedule::GPipe, "gpipe", "GPipe"},
    {PipelineSchedule::OneFOneB, "1f1b", "1F1B"},
    {PipelineSchedule::Interleaved1F1B, "interleaved", "Interleaved 1F1B"},
    {PipelineSchedule::ZeroBubbleH1, "zb-h1", "ZB-H1"},
}};

/// OpKind's timeline labels (the id column): a zero-bubble schedule's split backward
/// shows B for its input half and W for its weight half.
constexpr EnumTable<OpKind, 4> opKinds{{
    {OpKind::Forward, "F"},
    {OpKind::Backward, "B"},
    {OpKind::BackwardInput, "B"},
    {OpKind::BackwardWeight, "W"},
}};

} // namespace

std::string_view pipelineScheduleId(PipelineSchedule s)
{
    return enumId(schedules, s);
}

std::string_view pipelineScheduleName(PipelineSchedule s)
{
    return enumName(schedules, s);
}

std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view id)
{
    return parseEnum(schedules, id);
}

std::string_view opKindLabel(OpKind k)
{
    return enumId(opKinds, k);
}

std::string validateSchedule(const ScheduleParams &params)
{
    if (!knownSchedule(params.schedule))
        return "unknown pipeline schedule (" + std::to_string(int(params.schedule)) + ")";
    if (auto e = rangeError("stages", params.stages, 1, maxPipelineStages); !e.empty())
        return e;
    if (auto e = rangeError("micro-batches", params.microBatches, 1, maxMicroBatches); !e.empty())
        return e;
    if (auto e = rangeError("chunks", params.chunks, 1, maxModelChunks); !e.empty())
        return e;
    const bool interleaved = params.schedule == PipelineSchedule::Interleaved1F1B;
    if (!interleaved && params.chunks != 1)
        return "only interleaved 1F1B splits a stage into chunks; " +
               std::string(pipelineScheduleId(params.schedule)) + " needs chunks = 1 (got " +
               std::to_string(params.chunks) + ")";
    if (interleaved && params.chunks < 2)
        return "interleaved 1F1B needs at least 2 chunks per stage (got " +
               std::to_string(params.chunks) + ")";
    if (interleaved && params.microBatches % params.stages != 0)
        return "interleaved 1F1B needs micro-batches (" + std::to_string(params.microBatches) +
               ") to be a multiple of stages (" + std::to_string(params.stages) + ")";
    const std::int64_t cells =
        std::int64_t(params.stages) * params.microBatches * std::int64_t(params.chunks);
    if (cells > maxScheduleCells)
        return "stages x micro-batches x chunks must be at most " +
               std::to_string(maxScheduleCells) + " (got " + std::to_string(cells) + ")";
    const OpCosts &c = params.costs;
    if (auto e = checkCost("forward", c.forward); !e.empty())
        return e;
    if (params.schedule == PipelineSchedule::ZeroBubbleH1) {
        if (auto e = checkCost("backward-input", c.backwardInput); !e.empty())
            return e;
        return checkCost("backward-weight", c.backwardWeight);
    }
    return checkCost("backward", c.backward);
}

Timeline schedule(const ScheduleParams &params)
{
    Timeline timeline;
    timeline.error = validateSchedule(params);
    if (!timeline.valid())
        return timeline;

    const int p = params.stages;
    const int m = params.microBatches;
    const int v = params.chunks;
    const bool split = params.schedule == PipelineSchedule::ZeroBubbleH1;

    // Each stage's order, untimed.
    timeline.stages.resize(std::size_t(p));
    for (int s = 0; s < p; ++s)
        stageOrder(timeline.stages[std::size_t(s)].ops, params, s);

    // End times of every (stage, chunk, micro-batch)'s F, B and W; -1 until it has run.
    const std::size_t cells = std::size_t(p) * std::size_t(v) * std::size_t(m);
    std::vector<double> endF(cells, -1.0), endB(cells, -1.0), endW(cells, -1.0);
    const auto at = [v, m](int stage, int chunk, int mb) {
        return (std::size_t(stage) * std::size_t(v) + std::size_t(chunk)) * std::size_t(m) +
               std::size_t(mb);
    };
    // When the operation's dependency ended: 0 when it has none, -1 while it has not run.
    const auto dependencyEnd = [&](const PipelineOp &op) {
        const int s = op.stage;
        const int c = op.chunk;
        const int mb = op.microBatch;
        switch (op.kind) {
        case OpKind::Forward:
            if (s > 0)
                return endF[at(s - 1, c, mb)];
            return c > 0 ? endF[at(p - 1, c - 1, mb)] : 0.0;
        case OpKind::Backward:
        case OpKind::BackwardInput:
            if (s < p - 1)
                return endB[at(s + 1, c, mb)];
            return c < v - 1 ? endB[at(0, c + 1, mb)] : endF[at(p - 1, v - 1, mb)];
        case OpKind::BackwardWeight:
            return endB[at(s, c, mb)];
        }
        return -1.0;
    };
    const OpCosts &costs = params.costs;
    const auto duration = [&costs, v](OpKind k) {
        switch (k) {
        case OpKind::Forward:
            return costs.forward / v;
        case OpKind::Backward:
            return costs.backward / v;
        case OpKind::BackwardInput:
            return costs.backwardInput / v;
        case OpKind::BackwardWeight:
            return costs.backwardWeight / v;
        }
        return 0.0;
    };

    // Event-driven simulation: run a stage as far as its dependencies allow; whenever it
    // advances, the stages that may wait on it (its neighbours, and stages 0 and p-1 across
    // a chunk boundary) are tried again. Each operation is placed exactly once.
    std::vector<std::size_t> next(std::size_t(p), 0);
    std::vector<double> clock(std::size_t(p), 0.0);
    std::vector<char> queued(std::size_t(p), 1);
    std::vector<int> work;
    work.reserve(std::size_t(p) + 4);
    for (int s = p - 1; s >= 0; --s)
        work.push_back(s);
    while (!work.empty()) {
        const int s = work.back();
        work.pop_back();
        queued[std::size_t(s)] = 0;
        std::vector<PipelineOp> &ops = timeline.stages[std::size_t(s)].ops;
        std::size_t &i = next[std::size_t(s)];
        bool advanced = false;
        while (i < ops.size()) {
            PipelineOp &op = ops[i];
            const double ready = dependencyEnd(op);
            if (ready < 0)
                break;
            op.start = std::max(clock[std::size_t(s)], ready);
            op.end = op.start + duration(op.kind);
            clock[std::size_t(s)] = op.end;
            std::vector<double> &ends = op.kind == OpKind::Forward          ? endF
                                        : op.kind == OpKind::BackwardWeight ? endW
                                                                            : endB;
            ends[at(s, op.chunk, op.microBatch)] = op.end;
            advanced = true;
            ++i;
        }
        if (!advanced)
            continue;
        for (int t : {s - 1, s + 1, 0, p - 1}) {
            if (t >= 0 && t < p && !queued[std::size_t(t)] &&
                next[std::size_t(t)] < timeline.stages[std::size_t(t)].ops.size()) {
                queued[std::size_t(t)] = 1;
                work.push_back(t);
            }
        }
    }
    for (int s = 0; s < p; ++s) {
        if (next[std::size_t(s)] != timeline.stages[std::size_t(s)].ops.size()) {
            // Unreachable for the published orders; kept so a broken rule cannot hang or lie.
            Timeline failed;
            failed.error = "internal error: the " +
                           std::string(pipelineScheduleId(params.schedule)) +
                           " order deadlocks on stage " + std::to_string(s);
            return failed;
        }
    }

    // Totals.
    for (const StageTimeline &st : timeline.stages)
        timeline.makespan = std::max(timeline.makespan, st.ops.back().end);
    double idle = 0;
    double busy = 0;
    for (int stage = 0; stage < int(timeline.stages.size()); ++stage) {
        StageTimeline &st = timeline.stages[std::size_t(stage)];
        for (const PipelineOp &op : st.ops)
            st.busy += op.end - op.start;
        st.bubbleFraction = (timeline.makespan - st.busy) / timeline.makespan;
        idle += timeline.makespan - st.busy;
        busy += st.busy;
        countActivations(st, split);
        if (stage == 0)
            countSets(st, 0, st.embeddingInFlight, st.peakEmbeddingInFlight);
        if (stage == p - 1)
            countSets(st, v - 1, st.headInFlight, st.peakHeadInFlight);
    }
    timeline.bubbleFraction = idle / (double(p) * timeline.makespan);
    timeline.bubbleOverIdeal = idle / busy;
    return timeline;
}

} // namespace shardscope

namespace shardscope {

int peakInFlightBound(PipelineSchedule s, int stages, int microBatches, int chunks, int stage)
{
    const int p = stages, m = microBatches, v = chunks, i = stage;
    switch (s) {
    case PipelineSchedule::GPipe:
        return m;
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::ZeroBubbleH1:
        return std::min(p - i, m);
    case PipelineSchedule::Interleaved1F1B:
        return std::min(2 * (p - i - 1) + (v - 1) * p + 1, m * v);
    }
    return m;
}

int embeddingInFlightBound(PipelineSchedule s, int stages, int microBatches, int /*chunks*/)
{
    const int p = stages, m = microBatches;
    switch (s) {
    case PipelineSchedule::GPipe:
        return m;
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::ZeroBubbleH1:
        return std::min(p, m);
    case PipelineSchedule::Interleaved1F1B:
        return std::min(2 * p, m);
    }
    return m;
}

int headInFlightBound(PipelineSchedule s, int /*stages*/, int microBatches, int /*chunks*/)
{
    return s == PipelineSchedule::GPipe ? microBatches : std::min(1, microBatches);
}

BubbleClosedForm bubbleClosedForm(const ScheduleParams &params)
{
    const long long p = params.stages, m = params.microBatches, v = params.chunks;
    BubbleClosedForm f;
    f.idle = p - 1;
    switch (params.schedule) {
    case PipelineSchedule::GPipe:
    case PipelineSchedule::OneFOneB:
        f.shareDenominator = m + p - 1;
        f.overIdealDenominator = m;
        f.shareFormula = "(p − 1)/(m + p − 1)";
        f.overIdealFormula = "(p − 1)/m";
        f.source = "Megatron-LM's definition, Narayanan et al. 2021";
        break;
    case PipelineSchedule::Interleaved1F1B:
        f.shareDenominator = v * m + p - 1;
        f.overIdealDenominator = v * m;
        f.shareFormula = "(p − 1)/(v·m + p − 1)";
        f.overIdealFormula = "(p − 1)/(v·m)";
        f.source = "the 1F1B bubble / v, Narayanan et al. 2021";
        break;
    case PipelineSchedule::ZeroBubbleH1:
        f.shareDenominator = 3 * m + p - 1;
        f.overIdealDenominator = 3 * m;
        f.shareFormula = "(p − 1)/(3m + p − 1)";
        f.overIdealFormula = "(p − 1)/(3m)";
        f.source = "Qi et al. 2023, with F = B = W and m ≥ p";
        break;
    }
    return f;
}

} // namespace shardscope
