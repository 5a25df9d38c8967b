// The strategy sweep (core/sweep.h): each strategy's peak memory per GPU along the GPU
// count, the sequence length and the micro-batch size, checked against the ZeRO paper's
// accounting worked by hand (Rajbhandari et al. 2020, section 3.1 and Figure 1: mixed-
// precision Adam holds 2 + 2 + 12 = 16 bytes per parameter; ZeRO-1 shards the 12, ZeRO-2
// the 12 and the 2 of gradients, ZeRO-3 all 16), and the engine's refusals left as gaps.
#include "estimate.h"
#include "inputlimits.h"
#include "steptime.h"
#include "sweep.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

using test::llama3_70b;
using test::onH100s;
using test::plainModelStates;

namespace {

/// The index of `x` in `sweep.values`, or -1.
int indexOf(const StrategySweep &sweep, std::int64_t x)
{
    for (std::size_t i = 0; i < sweep.values.size(); ++i)
        if (sweep.values[i] == x)
            return int(i);
    return -1;
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT
private slots:
    void valuesArePowersOfTwo();
    void axisIds();
    void onlyTheSweptSettingChanges();
    void ddpIsFlatAndZeroFallsAsOneOverN();
    void zero3ModelStatesOfLlama70b();
    void activationsGrowWithSequenceAndMicroBatch();
    void impossibleLayoutsAreGaps();
    void stepTimeKeepsTheGlobalBatch();
};

void TestSweep::valuesArePowersOfTwo()
{
    const auto gpus = sweepValues(SweepAxis::Gpus);
    QCOMPARE(gpus.size(), std::size_t(15)); // 2^0 .. 2^14
    QCOMPARE(gpus.front(), std::int64_t(1));
    QCOMPARE(gpus.back(), std::int64_t(maxGpuSliderCount)); // 16,384
    const auto seq = sweepValues(SweepAxis::SequenceLength);
    QCOMPARE(seq.size(), std::size_t(9)); // 2^9 .. 2^17
    QCOMPARE(seq.front(), std::int64_t(512));
    QCOMPARE(seq.back(), std::int64_t(131'072));
    const auto mbs = sweepValues(SweepAxis::MicroBatchSize);
    QCOMPARE(mbs.size(), std::size_t(7)); // 2^0 .. 2^6
    QCOMPARE(mbs.back(), std::int64_t(64));
    for (const auto *values : {&gpus, &seq, &mbs})
        for (std::size_t i = 1; i < values->size(); ++i)
            QCOMPARE((*values)[i], 2 * (*values)[i - 1]);
}

void TestSweep::axisIds()
{
    for (const SweepAxis a : {SweepAxis::Gpus, SweepAxis::SequenceLength, SweepAxis::MicroBatchSize,
                              SweepAxis::StepTimeGpus})
        QCOMPARE(parseSweepAxis(sweepAxisId(a)), std::optional<SweepAxis>(a));
    QCOMPARE(sweepAxisId(SweepAxis::SequenceLength), std::string_view("seq"));
    QCOMPARE(parseSweepAxis("mbs"), std::optional<SweepAxis>(SweepAxis::MicroBatchSize));
    QVERIFY(!parseSweepAxis(""));
    QVERIFY(!parseSweepAxis("GPUS")); // ids are lowercase, as every enum's
    QVERIFY(!parseSweepAxis("tokens"));
    QCOMPARE(sweepAxisTitle(SweepAxis::Gpus), std::string_view("GPUs"));
    QCOMPARE(parseSweepAxis("time"), std::optional<SweepAxis>(SweepAxis::StepTimeGpus));
    QVERIFY(sweepsStepTime(SweepAxis::StepTimeGpus) && !sweepsStepTime(SweepAxis::Gpus));
}

void TestSweep::onlyTheSweptSettingChanges()
{
    const Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Zero2, 8, 2);
    const Scenario g = withSweepValue(s, SweepAxis::Gpus, 256);
    QCOMPARE(g.layout.gpus, std::int64_t(256));
    QCOMPARE(g.layout.tensorParallel, 8); // t and p kept: d goes from 4 to 16
    QCOMPARE(g.layout.pipelineParallel, 2);
    QCOMPARE(g.training.sequenceLength, s.training.sequenceLength);
    const Scenario q = withSweepValue(s, SweepAxis::SequenceLength, 8192);
    QCOMPARE(q.training.sequenceLength, std::int64_t(8192));
    QCOMPARE(q.layout.gpus, std::int64_t(64));
    const Scenario b = withSweepValue(s, SweepAxis::MicroBatchSize, 4);
    QCOMPARE(b.training.microBatchSize, std::int64_t(4));
    QCOMPARE(sweepValueOf(b, SweepAxis::MicroBatchSize), std::int64_t(4));
    QCOMPARE(sweepValueOf(s, SweepAxis::Gpus), std::int64_t(64));
    QCOMPARE(sweepValueOf(s, SweepAxis::SequenceLength), s.training.sequenceLength);
}

void TestSweep::ddpIsFlatAndZeroFallsAsOneOverN()
{
    // 70e9 parameters, model states only (the ZeRO paper's Figure 1), Psi = 7e10:
    //   DDP:    16 Psi = 1,120 GB on every GPU count;
    //   ZeRO-1: (2 + 2) Psi + 12 Psi / N;  N = 64: 280 GB + 13.125 GB = 293.125 GB;
    //   ZeRO-2: 2 Psi + 14 Psi / N;        N = 64: 140 GB + 15.3125 GB = 155.3125 GB;
    //   ZeRO-3: 16 Psi / N;                N = 64: 17.5 GB; N = 16,384: 16 x ceil(7e10 /
    //           16,384) = 16 x 4,272,461 = 68,359,376 bytes (flat shards are padded up).
    const StrategySweep sweep =
        sweepStrategies(plainModelStates(70'000'000'000, 64), SweepAxis::Gpus);
    QCOMPARE(sweep.axis, SweepAxis::Gpus);
    // A card with no driver figure: its usable bytes are the datasheet's 80e9.
    QCOMPARE(sweep.capacityBytes, std::int64_t(80'000'000'000));
    for (std::size_t i = 0; i < sweep.values.size(); ++i)
        QCOMPARE(sweep.peakBytes[0][i], std::optional<std::int64_t>(1'120'000'000'000));
    const int n64 = indexOf(sweep, 64), nMax = indexOf(sweep, 16'384), n1 = indexOf(sweep, 1);
    QCOMPARE(sweep.peakBytes[1][std::size_t(n64)], std::optional<std::int64_t>(293'125'000'000));
    QCOMPARE(sweep.peakBytes[2][std::size_t(n64)], std::optional<std::int64_t>(155'312'500'000));
    QCOMPARE(sweep.peakBytes[3][std::size_t(n64)], std::optional<std::int64_t>(17'500'000'000));
    QCOMPARE(sweep.peakBytes[3][std::size_t(nMax)], std::optional<std::int64_t>(68'359'376));
    // On one GPU nothing is sharded: every strategy holds all 16 bytes per parameter.
    for (std::size_t k = 0; k < 4; ++k)
        QCOMPARE(sweep.peakBytes[k][std::size_t(n1)],
                 std::optional<std::int64_t>(1'120'000'000'000));
    // Each ZeRO stage never grows with N, and ZeRO-3 halves with each doubling.
    for (std::size_t k = 1; k < 4; ++k)
        for (std::size_t i = 1; i < sweep.values.size(); ++i)
            QVERIFY(*sweep.peakBytes[k][i] <= *sweep.peakBytes[k][i - 1]);
}

void TestSweep::zero3ModelStatesOfLlama70b()
{
    // Llama 3 70B (70,553,706,496 parameters), everything counted, t = p = 1: ZeRO-3's
    // model states are 16 Psi / N; on 64 GPUs Psi / 64 = 1,102,401,664, 16 x that =
    // 17,638,426,624 bytes; on 1,024 GPUs Psi / 1,024 = 68,900,104, 16 x that =
    // 1,102,401,664 bytes. The rest (activations, which d does not change, and buffers) is
    // the report's own, and the sweep's point is the report's peak.
    const Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Ddp);
    const StrategySweep sweep = sweepStrategies(s, SweepAxis::Gpus);
    std::int64_t activations = -1;
    for (const auto &[n, states] : {std::pair<std::int64_t, std::int64_t>{64, 17'638'426'624},
                                    std::pair<std::int64_t, std::int64_t>{1024, 1'102'401'664}}) {
        Scenario at = withSweepValue(s, SweepAxis::Gpus, n);
        at.layout.zeroStage = ZeroStage::Zero3;
        const MemoryReport r = estimate(at);
        QVERIFY2(r.valid(), r.error.c_str());
        const ComponentBytes &b = r.peakGroup()->bytes;
        QCOMPARE(b.modelStates(), states);
        QCOMPARE(b.weights, states / 8); // 2 of the 16 bytes
        QCOMPARE(r.peakBytes(), b.modelStates() + b.activations + b.buffers);
        if (activations >= 0)
            QCOMPARE(b.activations, activations); // the non-sharded part stays
        activations = b.activations;
        QCOMPARE(sweep.peakBytes[3][std::size_t(indexOf(sweep, n))],
                 std::optional<std::int64_t>(r.peakBytes()));
    }
    // DDP's model states are 16 Psi = 1,128,859,303,936 bytes at every GPU count.
    Scenario ddp = withSweepValue(s, SweepAxis::Gpus, 1024);
    QCOMPARE(estimate(ddp).peakGroup()->bytes.modelStates(), std::int64_t(1'128'859'303'936));
}

void TestSweep::activationsGrowWithSequenceAndMicroBatch()
{
    // Longer sequences and larger micro-batches hold more activations under every strategy;
    // model states do not change, so each line rises.
    const Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Zero3);
    for (const SweepAxis axis : {SweepAxis::SequenceLength, SweepAxis::MicroBatchSize}) {
        const StrategySweep sweep = sweepStrategies(s, axis);
        for (std::size_t k = 0; k < 4; ++k)
            for (std::size_t i = 1; i < sweep.values.size(); ++i) {
                QVERIFY(sweep.peakBytes[k][i] && sweep.peakBytes[k][i - 1]);
                QVERIFY(*sweep.peakBytes[k][i] > *sweep.peakBytes[k][i - 1]);
            }
        // The scenario's own value is on the ladder: its point is the estimate itself.
        Scenario own = s;
        own.layout.zeroStage = ZeroStage::Zero3;
        const int i = indexOf(sweep, sweepValueOf(s, axis));
        QVERIFY(i >= 0);
        QCOMPARE(sweep.peakBytes[3][std::size_t(i)],
                 std::optional<std::int64_t>(estimate(own).peakBytes()));
    }
}

void TestSweep::impossibleLayoutsAreGaps()
{
    // t 8 x p 2 = 16 GPUs per replica: 1 to 8 GPUs cannot hold one (validate(): the world
    // size must divide by t x p x c), so no strategy has a point there; from 16 on all do.
    const Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Zero1, 8, 2);
    const StrategySweep sweep = sweepStrategies(s, SweepAxis::Gpus);
    for (std::size_t k = 0; k < 4; ++k)
        for (std::size_t i = 0; i < sweep.values.size(); ++i) {
            QCOMPARE(bool(sweep.peakBytes[k][i]), sweep.values[i] >= 16);
            if (sweep.peakBytes[k][i])
                QVERIFY(*sweep.peakBytes[k][i] > 0);
        }
    // Context parallel 3: no power-of-two sequence divides into 3 chunks, so the whole
    // sequence sweep is a gap, never a line at 0.
    Scenario c = onH100s(llama3_70b(), 48, ZeroStage::Zero3);
    c.layout.contextParallel = 3;
    QVERIFY(estimate(withSweepValue(c, SweepAxis::SequenceLength, 4096)).valid() == false);
    const StrategySweep seq = sweepStrategies(c, SweepAxis::SequenceLength);
    for (const auto &series : seq.peakBytes)
        for (const auto &point : series)
            QVERIFY(!point);
}

QTEST_APPLESS_MAIN(TestSweep)
void TestSweep::stepTimeKeepsTheGlobalBatch()
{
    // Strong scaling: Llama 3 70B on 64 H100s, t 8 p 1 (d 8), b 1, m 8: the global batch is
    // m x d = 64 sequences. At 16 GPUs d = 2 and m = 32; at 1,024 GPUs d = 128 does not
    // divide 64, so m = 0 and the point is a gap. A memory sweep leaves m alone.
    Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Zero1, 8, 1);
    // The H100 SXM's datasheet speeds (NVIDIA H100 datasheet: 989.4 TFLOP/s dense BF16,
    // 3.35 TB/s HBM3, NVLink 900 GB/s both ways).
    s.gpu.bf16FlopsPerSecond = 989.4e12;
    s.gpu.memoryBytesPerSecond = 3.35e12;
    s.gpu.nvlinkBytesPerSecond = 450e9;
    QCOMPARE(s.training.microBatches, std::int64_t(8));
    const Scenario g = withSweepValue(s, SweepAxis::StepTimeGpus, 16);
    QCOMPARE(g.layout.gpus, std::int64_t(16));
    QCOMPARE(g.training.microBatches, std::int64_t(32));
    QCOMPARE(g.training.globalBatch(g.layout.dataParallel()), std::int64_t(64));
    QCOMPARE(withSweepValue(s, SweepAxis::StepTimeGpus, 1024).training.microBatches,
             std::int64_t(0));
    QCOMPARE(withSweepValue(s, SweepAxis::Gpus, 16).training.microBatches, std::int64_t(8));

    const StrategySweep sweep = sweepStrategies(s, SweepAxis::StepTimeGpus);
    const StrategySweep memory = sweepStrategies(s, SweepAxis::Gpus);
    QVERIFY(memory.stepSeconds[0].empty()); // a memory sweep times nothing
    const int n8 = indexOf(sweep, 8), n64 = indexOf(sweep, 64), n1024 = indexOf(sweep, 1024);
    for (std::size_t k = 0; k < 4; ++k) {
        // The scenario's own point is its own step time.
        const auto &series = sweep.stepSeconds[k];
        QCOMPARE(series.size(), sweep.values.size());
        QVERIFY(series[std::size_t(n8)] && series[std::size_t(n64)]);
        QVERIFY(!series[std::size_t(n1024)]);
        // From 8 GPUs (d 1, m 64) to 64 (d 8, m 8) each GPU computes 8 times less; the
        // data-parallel traffic that 8 GPUs do not have keeps the step's gain at most 8.
        const double gain = *series[std::size_t(n8)] / *series[std::size_t(n64)];
        QVERIFY2(gain > 1 && gain <= 8.0 + 1e-9, qPrintable(QString::number(gain)));
    }
    // The compute itself: exactly 8 times the forward and backward at 8 GPUs (m 64) as at
    // 64 (m 8), the same micro-batch on the same t.
    const auto timed = [&s](std::int64_t gpus) {
        const Scenario x = withSweepValue(s, SweepAxis::StepTimeGpus, gpus);
        return stepTime(x, estimate(x));
    };
    const StepTime at8 = timed(8), at64 = timed(64);
    QVERIFY2(at8.valid() && at64.valid(), (at8.error + at64.error).c_str());
    QCOMPARE(at8.forwardSeconds, 8 * at64.forwardSeconds);
    QCOMPARE(at8.backwardSeconds, 8 * at64.backwardSeconds);
    const Scenario own = withSweepValue(s, SweepAxis::StepTimeGpus, 64);
    const StepTime t =
        stepTime(compareStrategies(own)[1].scenario, compareStrategies(own)[1].report);
    QCOMPARE(*sweep.stepSeconds[1][std::size_t(n64)], t.stepSeconds);
}

#include "test_sweep.moc"
