// Pipeline schedules: op order, timing, bubbles, in-flight activations (docs/pipeline.md).
// Reference rows, each with its source (GPipe, Huang et al. 2019; 1F1B and
// interleaved, Narayanan et al. 2021; ZB-H1, Qi et al. 2023).
#include "schedule.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::ScheduleParams)

namespace {

constexpr double eps = 1e-9;

ScheduleParams params(PipelineSchedule s, int p, int m, int v = 1)
{
    ScheduleParams r;
    r.schedule = s;
    r.stages = p;
    r.microBatches = m;
    r.chunks = v;
    return r;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= eps * std::max(1.0, std::abs(b));
}

/// Compact op text for failure messages and hand-derived comparisons: "F0[0,1]".
QString opText(const PipelineOp &op)
{
    QString s =
        QString::fromLatin1(opKindLabel(op.kind).data(), 1) + QString::number(op.microBatch);
    if (op.chunk > 0)
        s += QLatin1Char('c') + QString::number(op.chunk);
    return s + QStringLiteral("[%1,%2]").arg(op.start).arg(op.end);
}

QString stageText(const StageTimeline &st)
{
    QStringList parts;
    for (const PipelineOp &op : st.ops)
        parts << opText(op);
    return parts.join(QLatin1Char(' '));
}

/// Checks every invariant of a valid timeline; returns "" or what broke.
QString checkInvariants(const ScheduleParams &sp, const Timeline &t)
{
    const int p = sp.stages;
    const int m = sp.microBatches;
    const int v = sp.chunks;
    const bool split = sp.schedule == PipelineSchedule::ZeroBubbleH1;
    if (!t.valid())
        return QString::fromStdString(t.error);
    if (int(t.stages.size()) != p)
        return QStringLiteral("stage count");
    // (kind, stage, chunk, mb) -> op
    std::map<std::tuple<int, int, int, int>, PipelineOp> seen;
    double lastEnd = 0;
    double idle = 0;
    double busy = 0;
    for (int i = 0; i < p; ++i) {
        const StageTimeline &st = t.stages[size_t(i)];
        double clock = 0;
        double stageBusy = 0;
        for (const PipelineOp &op : st.ops) {
            if (op.stage != i)
                return QStringLiteral("op on stage %1 listed under stage %2").arg(op.stage).arg(i);
            if (op.start < clock - eps)
                return QStringLiteral("stage %1 overlaps at %2").arg(i).arg(opText(op));
            // Each kind's cost, in OpKind's order, split over the v chunks.
            constexpr double OpCosts::*costOf[] = {&OpCosts::forward, &OpCosts::backward,
                                                   &OpCosts::backwardInput,
                                                   &OpCosts::backwardWeight};
            const double cost = sp.costs.*costOf[int(op.kind)] / v;
            if (!near(op.end - op.start, cost))
                return QStringLiteral("wrong duration %1").arg(opText(op));
            if (split != (op.kind == OpKind::BackwardInput || op.kind == OpKind::BackwardWeight) &&
                op.kind != OpKind::Forward)
                return QStringLiteral("wrong backward kind %1").arg(opText(op));
            if (op.microBatch < 0 || op.microBatch >= m || op.chunk < 0 || op.chunk >= v)
                return QStringLiteral("out of range %1").arg(opText(op));
            const auto key = std::make_tuple(int(op.kind), i, op.chunk, op.microBatch);
            if (seen.count(key))
                return QStringLiteral("duplicate %1 on stage %2").arg(opText(op)).arg(i);
            seen[key] = op;
            clock = op.end;
            stageBusy += op.end - op.start;
        }
        if (!near(st.busy, stageBusy))
            return QStringLiteral("busy on stage %1").arg(i);
        lastEnd = std::max(lastEnd, clock);
        idle += t.makespan - stageBusy;
        busy += stageBusy;
        if (!near(st.bubbleFraction, (t.makespan - stageBusy) / t.makespan))
            return QStringLiteral("stage bubble on stage %1").arg(i);
    }
    if (!near(t.makespan, lastEnd))
        return QStringLiteral("makespan");
    if (!near(t.bubbleFraction, idle / (p * t.makespan)) || !near(t.bubbleOverIdeal, idle / busy))
        return QStringLiteral("overall bubble");
    const size_t perKind = size_t(p) * size_t(v) * size_t(m);
    const size_t kinds = split ? 3 : 2;
    if (seen.size() != perKind * kinds)
        return QStringLiteral("expected %1 ops, got %2").arg(perKind * kinds).arg(seen.size());
    const int back = int(split ? OpKind::BackwardInput : OpKind::Backward);
    const auto get = [&](int kind, int stage, int chunk, int mb) -> const PipelineOp * {
        const auto it = seen.find(std::make_tuple(kind, stage, chunk, mb));
        return it == seen.end() ? nullptr : &it->second;
    };
    const int fwd = int(OpKind::Forward);
    for (int c = 0; c < v; ++c) {
        for (int mb = 0; mb < m; ++mb) {
            for (int i = 0; i < p; ++i) {
                const PipelineOp *f = get(fwd, i, c, mb);
                const PipelineOp *b = get(back, i, c, mb);
                if (!f || !b)
                    return QStringLiteral("missing F or B of mb %1 chunk %2 stage %3")
                        .arg(mb)
                        .arg(c)
                        .arg(i);
                if (f->end > b->start + eps)
                    return QStringLiteral("B before F: %1 %2").arg(opText(*f), opText(*b));
                // Forwards in stage order, chunk c's stage 0 after chunk c-1's last stage.
                const PipelineOp *fNext = i + 1 < p
                                              ? get(fwd, i + 1, c, mb)
                                              : (c + 1 < v ? get(fwd, 0, c + 1, mb) : nullptr);
                if (fNext && f->end > fNext->start + eps)
                    return QStringLiteral("F order: %1 then %2").arg(opText(*f), opText(*fNext));
                // Backwards in reverse stage order (reverse chunk order across chunks).
                const PipelineOp *bNext = i > 0 ? get(back, i - 1, c, mb)
                                                : (c > 0 ? get(back, p - 1, c - 1, mb) : nullptr);
                if (bNext && b->end > bNext->start + eps)
                    return QStringLiteral("B order: %1 then %2").arg(opText(*b), opText(*bNext));
                if (split) {
                    const PipelineOp *w = get(int(OpKind::BackwardWeight), i, c, mb);
                    if (!w)
                        return QStringLiteral("missing W of mb %1 stage %2").arg(mb).arg(i);
                    if (b->end > w->start + eps)
                        return QStringLiteral("W before B: %1 %2").arg(opText(*b), opText(*w));
                }
            }
            const PipelineOp *lastF = get(fwd, p - 1, v - 1, mb);
            const PipelineOp *lastB = get(back, p - 1, v - 1, mb);
            if (lastF->end > lastB->start + eps)
                return QStringLiteral("last-stage B before its F, mb %1").arg(mb);
        }
    }
    // In-flight step functions.
    for (int i = 0; i < p; ++i) {
        const StageTimeline &st = t.stages[size_t(i)];
        // The closed form (Megatron-LM's warm-up for interleaved 1F1B) against the
        // simulated step function.
        const int bound = peakInFlightBound(sp.schedule, sp.stages, sp.microBatches, sp.chunks, i);
        if (st.peakInFlight != bound)
            return QStringLiteral("peak in flight on stage %1: %2, peakInFlightBound %3")
                .arg(i)
                .arg(st.peakInFlight)
                .arg(bound);
        const auto &steps = st.inFlight;
        if (steps.empty() || steps.front().first != 0.0 || steps.back().second != 0)
            return QStringLiteral("in-flight ends on stage %1").arg(i);
        int maxSeen = 0;
        for (size_t k = 0; k < steps.size(); ++k) {
            maxSeen = std::max(maxSeen, steps[k].second);
            if (steps[k].second < 0)
                return QStringLiteral("negative in-flight on stage %1").arg(i);
            if (k > 0 &&
                (steps[k].first <= steps[k - 1].first || steps[k].second == steps[k - 1].second))
                return QStringLiteral("in-flight not a clean step function on stage %1").arg(i);
        }
        if (maxSeen != st.peakInFlight)
            return QStringLiteral("in-flight max on stage %1").arg(i);
        if (split) {
            if (st.peakPendingWeightGrads != std::min(i + 1, m))
                return QStringLiteral("pending W peak on stage %1: %2")
                    .arg(i)
                    .arg(st.peakPendingWeightGrads);
            if (st.pendingWeightGrads.empty() || st.pendingWeightGrads.back().second != 0)
                return QStringLiteral("pending W ends on stage %1").arg(i);
        } else if (st.peakPendingWeightGrads != 0 || !st.pendingWeightGrads.empty()) {
            return QStringLiteral("pending W without a split backward");
        }
        // The chunks holding the embedding (stage 0, chunk 0) and the head (stage p - 1,
        // chunk v - 1): the closed forms the engine uses must match the simulation.
        const auto edgeCheck = [&](const std::vector<std::pair<double, int>> &steps, int peak,
                                   bool holds, int bound, const char *what) -> QString {
            if (!holds)
                return steps.empty() && peak == 0
                           ? QString()
                           : QStringLiteral("%1 sets on stage %2").arg(what).arg(i);
            if (peak != bound)
                return QStringLiteral("%1 in flight on stage %2: %3, closed form %4")
                    .arg(what)
                    .arg(i)
                    .arg(peak)
                    .arg(bound);
            int most = 0;
            for (const auto &step : steps)
                most = std::max(most, step.second);
            if (steps.empty() || steps.back().second != 0 || most != peak || peak > st.peakInFlight)
                return QStringLiteral("%1 step function on stage %2").arg(what).arg(i);
            return {};
        };
        QString edge =
            edgeCheck(st.embeddingInFlight, st.peakEmbeddingInFlight, i == 0,
                      embeddingInFlightBound(sp.schedule, sp.stages, sp.microBatches, sp.chunks),
                      "embedding");
        if (edge.isEmpty())
            edge = edgeCheck(st.headInFlight, st.peakHeadInFlight, i == p - 1,
                             headInFlightBound(sp.schedule, sp.stages, sp.microBatches, sp.chunks),
                             "head");
        if (!edge.isEmpty())
            return edge;
    }
    return {};
}

} // namespace

class TestSchedule : public QObject
{
    Q_OBJECT
private slots:
    void ids();
    void referenceCases_data();
    void referenceCases();
    void bubbleOverIdeal();
    void makespanGPipeOneFOneB();
    void handDerivedOneFOneB();
    void handDerivedGPipe();
    void interleavedDividesBubbleByChunks();
    void interleavedOrderFollowsMegatron();
    void zeroBubbleH1Bubble();
    void handDerivedZeroBubbleH1();
    void zeroBubbleH1SameInFlightEverywhere();
    void invariants_data();
    void invariants();
    void singleStage();
    void unusedCostsAreNotChecked();
    void invalidParams_data();
    void invalidParams();
    void largestSizesFinish();
};

void TestSchedule::ids()
{
    for (PipelineSchedule s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
                               PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
        QCOMPARE(parsePipelineSchedule(pipelineScheduleId(s)), std::optional(s));
    QCOMPARE(pipelineScheduleId(PipelineSchedule::GPipe), std::string_view("gpipe"));
    QCOMPARE(pipelineScheduleId(PipelineSchedule::OneFOneB), std::string_view("1f1b"));
    QCOMPARE(pipelineScheduleId(PipelineSchedule::Interleaved1F1B),
             std::string_view("interleaved"));
    QCOMPARE(pipelineScheduleId(PipelineSchedule::ZeroBubbleH1), std::string_view("zb-h1"));
    QCOMPARE(pipelineScheduleName(PipelineSchedule::Interleaved1F1B),
             std::string_view("Interleaved 1F1B"));
    QVERIFY(!parsePipelineSchedule("GPipe"));
    QVERIFY(!parsePipelineSchedule(""));
    QVERIFY(!parsePipelineSchedule("zb-h2"));
    QCOMPARE(pipelineScheduleId(PipelineSchedule(9)), std::string_view());
    QCOMPARE(opKindLabel(OpKind::Forward), std::string_view("F"));
    QCOMPARE(opKindLabel(OpKind::Backward), std::string_view("B"));
    QCOMPARE(opKindLabel(OpKind::BackwardInput), std::string_view("B"));
    QCOMPARE(opKindLabel(OpKind::BackwardWeight), std::string_view("W"));
}

void TestSchedule::referenceCases_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("expected");
    // schedule,stages,microbatches,bubble_fraction,source (pipeline.csv)
    QTest::newRow("gpipe 4 4 (seed 002, 42.9%)") << "gpipe" << 4 << 4 << 0.428571;
    QTest::newRow("gpipe 4 32 (seed 002, 8.6%)") << "gpipe" << 4 << 32 << 0.085714;
    QTest::newRow("1f1b 4 4 (Narayanan et al. 2021)") << "1f1b" << 4 << 4 << 0.428571;
    QTest::newRow("1f1b 4 32") << "1f1b" << 4 << 32 << 0.085714;
}

void TestSchedule::referenceCases()
{
    QFETCH(QString, id);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, expected);
    const auto s = parsePipelineSchedule(id.toStdString());
    QVERIFY(s);
    const Timeline t = schedule(params(*s, p, m));
    QVERIFY2(t.valid(), t.error.c_str());
    QVERIFY2(std::abs(t.bubbleFraction - expected) < 5e-7,
             qPrintable(QString::number(t.bubbleFraction)));
    QVERIFY(near(t.bubbleFraction, double(p - 1) / (m + p - 1)));
    // Every stage idles the same (p - 1)(F + B), so each stage's share equals the total's.
    for (const StageTimeline &st : t.stages)
        QVERIFY(near(st.bubbleFraction, t.bubbleFraction));
}

void TestSchedule::bubbleOverIdeal()
{
    // Narayanan et al. 2021 section 2.2.1, Ultra-Scale Playbook: (p - 1) / m, 9.4% for p 4, m 32.
    for (PipelineSchedule s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
        const Timeline t = schedule(params(s, 4, 32));
        QVERIFY(near(t.bubbleOverIdeal, 0.09375));
        QCOMPARE(QString::number(t.bubbleOverIdeal * 100, 'f', 1), QStringLiteral("9.4"));
        QVERIFY(near(schedule(params(s, 4, 4)).bubbleOverIdeal, 0.75));
        QVERIFY(near(schedule(params(s, 8, 64)).bubbleOverIdeal, 7.0 / 64));
    }
}

void TestSchedule::makespanGPipeOneFOneB()
{
    // (m + p - 1)(F + B), for any m, including m < p.
    for (PipelineSchedule s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
        for (int p : {1, 2, 3, 4, 7, 16}) {
            for (int m : {1, 2, 3, 4, 5, 8, 33}) {
                for (auto [f, b] :
                     {std::pair(1.0, 2.0), std::pair(1.0, 1.0), std::pair(0.3, 2.5)}) {
                    ScheduleParams sp = params(s, p, m);
                    sp.costs.forward = f;
                    sp.costs.backward = b;
                    const Timeline t = schedule(sp);
                    QVERIFY2(
                        near(t.makespan, (m + p - 1) * (f + b)),
                        qPrintable(QStringLiteral("p %1 m %2: %3").arg(p).arg(m).arg(t.makespan)));
                }
            }
        }
    }
    QVERIFY(near(schedule(params(PipelineSchedule::GPipe, 4, 4)).makespan, 21));
    QVERIFY(near(schedule(params(PipelineSchedule::OneFOneB, 4, 32)).makespan, 105));
}

void TestSchedule::handDerivedOneFOneB()
{
    // p 2, m 2, F 1, B 2. Stage 0 warms up with 1 forward (p - i - 1).
    // Stage 1: F0 1-2, B0 2-4, F1 waits for stage 0's F1 (ends 2) -> 4-5, B1 5-7.
    // Stage 0: F0 0-1, F1 1-2, B0 waits for stage 1's B0 (4) -> 4-6, B1 waits for 7 -> 7-9.
    const Timeline t = schedule(params(PipelineSchedule::OneFOneB, 2, 2));
    QCOMPARE(stageText(t.stages[0]), QStringLiteral("F0[0,1] F1[1,2] B0[4,6] B1[7,9]"));
    QCOMPARE(stageText(t.stages[1]), QStringLiteral("F0[1,2] B0[2,4] F1[4,5] B1[5,7]"));
    QCOMPARE(t.makespan, 9.0);
    // Stage 0 holds 1 from 0, 2 from 1, 1 from 6, none from 9.
    using Steps = std::vector<std::pair<double, int>>;
    QCOMPARE(t.stages[0].inFlight, (Steps{{0, 1}, {1, 2}, {6, 1}, {9, 0}}));
    // Stage 1 frees B0's set at 4 as F1 takes one: one entry, no change, so no step there.
    QCOMPARE(t.stages[1].inFlight, (Steps{{0, 0}, {1, 1}, {7, 0}}));
    QCOMPARE(t.stages[0].peakInFlight, 2);
    QCOMPARE(t.stages[1].peakInFlight, 1);
    QCOMPARE(t.stages[0].busy, 6.0);
    QVERIFY(near(t.stages[0].bubbleFraction, 3.0 / 9));
}

void TestSchedule::handDerivedGPipe()
{
    // p 2, m 2: forwards in order, backwards last micro-batch first.
    const Timeline t = schedule(params(PipelineSchedule::GPipe, 2, 2));
    QCOMPARE(stageText(t.stages[1]), QStringLiteral("F0[1,2] F1[2,3] B1[3,5] B0[5,7]"));
    QCOMPARE(stageText(t.stages[0]), QStringLiteral("F0[0,1] F1[1,2] B1[5,7] B0[7,9]"));
    QCOMPARE(t.stages[0].peakInFlight, 2);
    QCOMPARE(t.stages[1].peakInFlight, 2);
}

void TestSchedule::interleavedDividesBubbleByChunks()
{
    // Narayanan et al. 2021 section 2.2.2: bubble time (p - 1)(F + B) / v with each chunk's
    // ops taking 1/v of the stage's F and B; makespan = m (F + B) + that.
    for (int p : {1, 2, 3, 4, 8}) {
        for (int k : {1, 2, 3, 5}) {
            for (int v : {2, 3, 4}) {
                for (auto [f, b] :
                     {std::pair(1.0, 2.0), std::pair(0.5, 3.0), std::pair(2.0, 1.0)}) {
                    const int m = k * p;
                    ScheduleParams sp = params(PipelineSchedule::Interleaved1F1B, p, m, v);
                    sp.costs.forward = f;
                    sp.costs.backward = b;
                    const Timeline t = schedule(sp);
                    QVERIFY2(near(t.makespan, m * (f + b) + (p - 1) * (f + b) / v),
                             qPrintable(QStringLiteral("p %1 m %2 v %3: %4")
                                            .arg(p)
                                            .arg(m)
                                            .arg(v)
                                            .arg(t.makespan)));
                    QVERIFY(near(t.bubbleOverIdeal, double(p - 1) / (m * v)));
                }
            }
        }
    }
    // p 4, v 2: 4.5 time units of bubble instead of 9.
    QCOMPARE(schedule(params(PipelineSchedule::Interleaved1F1B, 4, 4, 2)).makespan, 16.5);
    const Timeline t = schedule(params(PipelineSchedule::Interleaved1F1B, 4, 32, 2));
    QCOMPARE(t.makespan, 100.5);
    QVERIFY(near(t.bubbleFraction, 4.5 / 100.5));
    QVERIFY(near(t.bubbleOverIdeal, 3.0 / 64));
}

void TestSchedule::interleavedOrderFollowsMegatron()
{
    // p 2, m 2, v 2. Stage 0: warm-up min(2 (2 - 0 - 1) + (2 - 1) 2, 4) = 4, all forwards:
    // chunk 0 for micro-batches 0, 1, then chunk 1; backwards chunk 1 first.
    const Timeline t = schedule(params(PipelineSchedule::Interleaved1F1B, 2, 2, 2));
    QStringList order0;
    for (const PipelineOp &op : t.stages[0].ops)
        order0 << opText(op).section(QLatin1Char('['), 0, 0);
    QCOMPARE(order0.join(QLatin1Char(' ')), QStringLiteral("F0 F1 F0c1 F1c1 B0c1 B1c1 B0 B1"));
    // Stage 1: warm-up 2, then F0c1 B0c1 F1c1 B1c1 pairs, then the chunk 0 backwards.
    QStringList order1;
    for (const PipelineOp &op : t.stages[1].ops)
        order1 << opText(op).section(QLatin1Char('['), 0, 0);
    QCOMPARE(order1.join(QLatin1Char(' ')), QStringLiteral("F0 F1 F0c1 B0c1 F1c1 B1c1 B0 B1"));
    QCOMPARE(t.stages[0].peakInFlight, 4);
    QCOMPARE(t.stages[1].peakInFlight, 3);
    // p 4, m 8, v 2: warm-up 10, 8, 6, 4, so peaks 11, 9, 7, 5 sets of half a stage each.
    const Timeline u = schedule(params(PipelineSchedule::Interleaved1F1B, 4, 8, 2));
    QCOMPARE(u.stages[0].peakInFlight, 11);
    QCOMPARE(u.stages[1].peakInFlight, 9);
    QCOMPARE(u.stages[2].peakInFlight, 7);
    QCOMPARE(u.stages[3].peakInFlight, 5);
}

void TestSchedule::zeroBubbleH1Bubble()
{
    // Qi et al. 2023, section 2.1 and Figure 3: a third of 1F1B's bubble when
    // T_F = T_B = T_W, bubble rate (p - 1) / 3m (zero-bubble README). In time units:
    // (p - 1)(T_F + T_B - T_W) against 1F1B's (p - 1)(T_F + T_B + T_W).
    for (int p : {1, 2, 3, 4, 8}) {
        for (int m : {p, p + 1, 2 * p + 3, 4 * p}) {
            const Timeline zb = schedule(params(PipelineSchedule::ZeroBubbleH1, p, m));
            const Timeline ofob = schedule(params(PipelineSchedule::OneFOneB, p, m));
            QVERIFY(near(zb.makespan, 3.0 * m + (p - 1)));
            QVERIFY(near(zb.bubbleOverIdeal, double(p - 1) / (3.0 * m)));
            QVERIFY(near(zb.makespan - 3.0 * m, (ofob.makespan - 3.0 * m) / 3));
        }
    }
    const Timeline t4 = schedule(params(PipelineSchedule::ZeroBubbleH1, 4, 4));
    QCOMPARE(t4.makespan, 15.0);
    QVERIFY(near(t4.bubbleFraction, 0.2));
    const Timeline t32 = schedule(params(PipelineSchedule::ZeroBubbleH1, 4, 32));
    QCOMPARE(t32.makespan, 99.0);
    QVERIFY(near(t32.bubbleFraction, 3.0 / 99));
    // Other costs with T_W <= min(T_F, T_B), the paper's setting.
    for (auto [f, b, w] : {std::tuple(1.0, 1.0, 0.5), std::tuple(2.0, 1.0, 1.0),
                           std::tuple(1.0, 2.0, 0.25), std::tuple(0.5, 0.7, 0.5)}) {
        for (int p : {2, 4, 8}) {
            const int m = 3 * p;
            ScheduleParams sp = params(PipelineSchedule::ZeroBubbleH1, p, m);
            sp.costs = {f, 2.0, b, w};
            const Timeline t = schedule(sp);
            QVERIFY2(near(t.makespan, m * (f + b + w) + (p - 1) * (f + b - w)),
                     qPrintable(QStringLiteral("F %1 B %2 W %3 p %4: %5")
                                    .arg(f)
                                    .arg(b)
                                    .arg(w)
                                    .arg(p)
                                    .arg(t.makespan)));
        }
    }
    // A W longer than F or B cannot fill more than the fixed order leaves: (p - 1) max(F, B).
    ScheduleParams heavyW = params(PipelineSchedule::ZeroBubbleH1, 4, 8);
    heavyW.costs = {1.0, 2.0, 1.0, 2.0};
    QVERIFY(near(schedule(heavyW).makespan, 8 * 4.0 + 3 * 1.0));
}

void TestSchedule::handDerivedZeroBubbleH1()
{
    // p 2, m 2, F = B = W = 1. Stage 1 delays its W by 1 (its rank): F0 B0 F1 B1 W0 W1.
    // Stage 0 does not delay: F0 F1 B0 W0 B1 W1. Makespan 3m + (p - 1) = 7.
    const Timeline t = schedule(params(PipelineSchedule::ZeroBubbleH1, 2, 2));
    QCOMPARE(stageText(t.stages[0]),
             QStringLiteral("F0[0,1] F1[1,2] B0[3,4] W0[4,5] B1[5,6] W1[6,7]"));
    QCOMPARE(stageText(t.stages[1]),
             QStringLiteral("F0[1,2] B0[2,3] F1[3,4] B1[4,5] W0[5,6] W1[6,7]"));
    QCOMPARE(t.makespan, 7.0);
    QCOMPARE(t.stages[0].ops[2].kind, OpKind::BackwardInput);
    QCOMPARE(t.stages[0].ops[3].kind, OpKind::BackwardWeight);
    // Activations are released when B ends; W's inputs are counted apart.
    using Steps = std::vector<std::pair<double, int>>;
    // Stage 1's B0 ends at 3 as F1 starts: the set is handed over, no step.
    QCOMPARE(t.stages[1].inFlight, (Steps{{0, 0}, {1, 1}, {5, 0}}));
    QCOMPARE(t.stages[1].pendingWeightGrads, (Steps{{0, 0}, {3, 1}, {5, 2}, {6, 1}, {7, 0}}));
    QCOMPARE(t.stages[1].peakPendingWeightGrads, 2);
    QCOMPARE(t.stages[0].pendingWeightGrads, (Steps{{0, 0}, {4, 1}, {5, 0}, {6, 1}, {7, 0}}));
    QCOMPARE(t.stages[0].peakPendingWeightGrads, 1);
    // Peak activations as 1F1B: p - i.
    QCOMPARE(t.stages[0].peakInFlight, 2);
    QCOMPARE(t.stages[1].peakInFlight, 1);
}

void TestSchedule::zeroBubbleH1SameInFlightEverywhere()
{
    // Qi et al. 2023, section 2.1: delaying W by the stage's rank keeps the same number of
    // micro-batches in flight (F start to W end) on every stage: min(p, m). Activations proper
    // (F start to B end) peak as 1F1B's p - i.
    for (int p : {1, 2, 4, 8}) {
        for (int m : {1, 2, p, 2 * p + 1, 5 * p}) {
            const Timeline t = schedule(params(PipelineSchedule::ZeroBubbleH1, p, m));
            for (int i = 0; i < p; ++i) {
                int held = 0;
                int peak = 0;
                for (const PipelineOp &op : t.stages[size_t(i)].ops) {
                    if (op.kind == OpKind::Forward)
                        peak = std::max(peak, ++held);
                    else if (op.kind == OpKind::BackwardWeight)
                        --held;
                }
                QCOMPARE(peak, std::min(p, m));
                QCOMPARE(t.stages[size_t(i)].peakInFlight, std::min(p - i, m));
            }
        }
    }
}

void TestSchedule::invariants_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    const int kinds[] = {int(PipelineSchedule::GPipe), int(PipelineSchedule::OneFOneB),
                         int(PipelineSchedule::ZeroBubbleH1)};
    for (int s : kinds) {
        for (int p : {1, 2, 3, 4, 5, 8, 16}) {
            for (int m : {1, 2, 3, 4, 7, 8, 16, 33}) {
                const QByteArray name = QByteArray(pipelineScheduleId(PipelineSchedule(s)).data()) +
                                        " p" + QByteArray::number(p) + " m" + QByteArray::number(m);
                QTest::newRow(name.constData()) << s << p << m << 1;
            }
        }
    }
    for (int p : {1, 2, 3, 4, 8}) {
        for (int k : {1, 2, 3, 4}) {
            for (int v : {2, 3, 4, 8}) {
                const QByteArray name = "interleaved p" + QByteArray::number(p) + " m" +
                                        QByteArray::number(k * p) + " v" + QByteArray::number(v);
                QTest::newRow(name.constData())
                    << int(PipelineSchedule::Interleaved1F1B) << p << k * p << v;
            }
        }
    }
}

void TestSchedule::invariants()
{
    QFETCH(int, schedule);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    for (auto costs : {OpCosts{}, OpCosts{1.0, 3.0, 1.5, 0.5}, OpCosts{0.7, 0.9, 0.2, 0.7}}) {
        ScheduleParams sp = params(PipelineSchedule(schedule), p, m, v);
        sp.costs = costs;
        const Timeline t = ::shardscope::schedule(sp);
        const QString broken = checkInvariants(sp, t);
        QVERIFY2(broken.isEmpty(), qPrintable(broken));
        QVERIFY(t.bubbleFraction >= 0 && t.bubbleFraction < 1);
        QVERIFY(t.bubbleOverIdeal >= 0);
    }
}

void TestSchedule::singleStage()
{
    // One stage: no bubble at all, whatever the schedule.
    for (PipelineSchedule s :
         {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::ZeroBubbleH1}) {
        const Timeline t = schedule(params(s, 1, 5));
        QVERIFY(t.valid());
        QCOMPARE(t.makespan, 15.0);
        QCOMPARE(t.bubbleFraction, 0.0);
        QCOMPARE(t.bubbleOverIdeal, 0.0);
    }
    QCOMPARE(schedule(params(PipelineSchedule::Interleaved1F1B, 1, 3, 2)).bubbleFraction, 0.0);
}

void TestSchedule::unusedCostsAreNotChecked()
{
    ScheduleParams sp = params(PipelineSchedule::OneFOneB, 4, 8);
    sp.costs.backwardInput = 0;
    sp.costs.backwardWeight = -1;
    QVERIFY(schedule(sp).valid());
    sp = params(PipelineSchedule::ZeroBubbleH1, 4, 8);
    sp.costs.backward = 0;
    QVERIFY(schedule(sp).valid());
    // ZB-H1 checks its own two.
    sp.costs.backwardWeight = 0;
    QCOMPARE(schedule(sp).error, std::string("backward-weight cost must be positive and finite "
                                             "(got 0)"));
    sp.costs.backwardInput = -2;
    QCOMPARE(validateSchedule(sp),
             std::string("backward-input cost must be positive and finite (got -2)"));
}

void TestSchedule::invalidParams_data()
{
    QTest::addColumn<ScheduleParams>("params");
    QTest::addColumn<QString>("message");
    const int g = int(PipelineSchedule::GPipe);
    const int o = int(PipelineSchedule::OneFOneB);
    const int i = int(PipelineSchedule::Interleaved1F1B);
    const int z = int(PipelineSchedule::ZeroBubbleH1);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Schedule, p, m, v and the forward and backward costs.
    auto costed = [](int schedule, int p, int m, int v, double forward, double backward) {
        ScheduleParams sp = params(PipelineSchedule(schedule), p, m, v);
        sp.costs.forward = forward;
        sp.costs.backward = backward;
        return sp;
    };
    QTest::newRow("no stages") << costed(o, 0, 8, 1, 1.0, 2.0)
                               << "stages must be at least 1 (got 0)";
    QTest::newRow("negative stages")
        << costed(o, -3, 8, 1, 1.0, 2.0) << "stages must be at least 1 (got -3)";
    QTest::newRow("too many stages")
        << costed(o, 1025, 8, 1, 1.0, 2.0) << "stages must be at most 1024 (got 1025)";
    QTest::newRow("no micro-batches")
        << costed(g, 4, 0, 1, 1.0, 2.0) << "micro-batches must be at least 1 (got 0)";
    QTest::newRow("too many micro-batches")
        << costed(g, 4, 65537, 1, 1.0, 2.0) << "micro-batches must be at most 65536 (got 65537)";
    QTest::newRow("no chunks") << costed(i, 4, 8, 0, 1.0, 2.0)
                               << "chunks must be at least 1 (got 0)";
    QTest::newRow("too many chunks")
        << costed(i, 4, 8, 65, 1.0, 2.0) << "chunks must be at most 64 (got 65)";
    QTest::newRow("chunks without interleaving")
        << costed(o, 4, 8, 2, 1.0, 2.0)
        << "only interleaved 1F1B splits a stage into chunks; 1f1b needs chunks = 1 (got 2)";
    QTest::newRow("zb chunks") << costed(z, 4, 8, 3, 1.0, 2.0)
                               << "only interleaved 1F1B splits a stage into chunks; zb-h1 needs "
                                  "chunks = 1 (got 3)";
    QTest::newRow("interleaved one chunk")
        << costed(i, 4, 8, 1, 1.0, 2.0)
        << "interleaved 1F1B needs at least 2 chunks per stage (got 1)";
    QTest::newRow("interleaved 6 over 4")
        << costed(i, 4, 6, 2, 1.0, 2.0)
        << "interleaved 1F1B needs micro-batches (6) to be a multiple of stages (4)";
    QTest::newRow("too large") << costed(o, 1024, 2048, 1, 1.0, 2.0)
                               << "stages x micro-batches x chunks must be at most 1048576 (got "
                                  "2097152)";
    QTest::newRow("zero forward") << costed(o, 4, 8, 1, 0.0, 2.0)
                                  << "forward cost must be positive and finite (got 0)";
    QTest::newRow("negative backward")
        << costed(g, 4, 8, 1, 1.0, -1.5) << "backward cost must be positive and finite (got -1.5)";
    QTest::newRow("infinite forward")
        << costed(o, 4, 8, 1, inf, 2.0) << "forward cost must be positive and finite (got inf)";
    QTest::newRow("nan backward") << costed(i, 4, 8, 2, 1.0, nan)
                                  << "backward cost must be positive and finite (got nan)";
    QTest::newRow("unknown schedule")
        << costed(7, 4, 8, 1, 1.0, 2.0) << "unknown pipeline schedule (7)";
}

void TestSchedule::invalidParams()
{
    QFETCH(ScheduleParams, params);
    QFETCH(QString, message);
    QCOMPARE(QString::fromStdString(validateSchedule(params)), message);
    const Timeline t = ::shardscope::schedule(params);
    QVERIFY(!t.valid());
    QCOMPARE(QString::fromStdString(t.error), message);
    QVERIFY(t.stages.empty());
    QCOMPARE(t.makespan, 0.0);
}

void TestSchedule::largestSizesFinish()
{
    // Speed is measured in tests/bench (BM_Schedule); here only that the limits are usable.
    QVERIFY(schedule(params(PipelineSchedule::OneFOneB, 1, 65536)).valid());
    QVERIFY(schedule(params(PipelineSchedule::ZeroBubbleH1, 1024, 1024)).valid());
    QVERIFY(schedule(params(PipelineSchedule::Interleaved1F1B, 64, 256, 64)).valid());
}

QTEST_APPLESS_MAIN(TestSchedule)
#include "test_schedule.moc"
