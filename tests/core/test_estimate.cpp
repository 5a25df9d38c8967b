// Per-GPU model-state bytes (Rajbhandari et al. 2020, ZeRO, section 5 and Figure 1;
// docs/architecture.md "Model states"). Each reference row names its source or hand
// calculation.
#include "estimate.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

namespace {

using test::mixedAdam;

Scenario plain(qint64 params, qint64 gpus, ZeroStage z, Recipe r = mixedAdam())
{
    // The reference figures count model states only.
    Scenario s = test::plainModelStates(params, gpus, z);
    s.model.id = "plain";
    s.recipe = r;
    s.gpu.id = "h100-sxm-80gb";
    return s;
}

} // namespace

class TestEstimate : public QObject
{
    Q_OBJECT
private slots:
    void referenceCases_data();
    void referenceCases();
    void componentsFollowTheStage();
    void megatronEighteenBytes();
    void shardsArePadded();
    void shardsSumToTheWhole();
    void neverRisesWithStage();
    void ddpIgnoresGpuCount();
    void fitsAndHeadroom();
    void invalidInputs_data();
    void invalidInputs();
    void trafficPastOneExabyteIsRefused();
};

void TestEstimate::referenceCases_data()
{
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<int>("stage");
    QTest::addColumn<qint64>("expectedBytes");
    // parameters,gpus,strategy,recipe,expected_gb,source (model-states.csv)
    QTest::newRow("70B ddp (seed 002)") << 70'000'000'000LL << 64LL << 0 << 1'120'000'000'000LL;
    QTest::newRow("70B zero1 64 (seed 002, 293.1 GB)")
        << 70'000'000'000LL << 64LL << 1 << 293'125'000'000LL;
    QTest::newRow("70B zero2 64 (seed 002, 155.3 GB)")
        << 70'000'000'000LL << 64LL << 2 << 155'312'500'000LL;
    QTest::newRow("70B zero3 64 (seed 002)") << 70'000'000'000LL << 64LL << 3 << 17'500'000'000LL;
    QTest::newRow("8B ddp (seed 002)") << 8'000'000'000LL << 8LL << 0 << 128'000'000'000LL;
    QTest::newRow("8B zero1 8 (seed 002)") << 8'000'000'000LL << 8LL << 1 << 44'000'000'000LL;
    QTest::newRow("7B ddp 1 GPU (seed 002 follow-up 1)")
        << 7'000'000'000LL << 1LL << 0 << 112'000'000'000LL;
    QTest::newRow("7.5B ddp (ZeRO paper Fig. 1)")
        << 7'500'000'000LL << 64LL << 0 << 120'000'000'000LL;
    QTest::newRow("7.5B zero1 (ZeRO paper Fig. 1, 31.4 GB)")
        << 7'500'000'000LL << 64LL << 1 << 31'406'250'000LL;
    QTest::newRow("7.5B zero2 (ZeRO paper Fig. 1, 16.6 GB)")
        << 7'500'000'000LL << 64LL << 2 << 16'640'625'000LL;
    QTest::newRow("7.5B zero3 (ZeRO paper Fig. 1, 1.9 GB)")
        << 7'500'000'000LL << 64LL << 3 << 1'875'000'000LL;
    // 70B ZeRO-3 on 8 GPUs is 16 B x 70e9 / 8 = 140 GB, not the "about 12 GB" some
    // teaching notes give.
    QTest::newRow("70B zero3 8 (16 B x 70e9 / 8 = 140 GB)")
        << 70'000'000'000LL << 8LL << 3 << 140'000'000'000LL;
    QTest::newRow("70B zero3 16 (16 B x 70e9 / 16 = 70 GB)")
        << 70'000'000'000LL << 16LL << 3 << 70'000'000'000LL;
    // Seed 003's "13B fits comfortably on 4 x A100-40GB" is wrong: 52 GB per card.
    QTest::newRow("13B zero3 4 (correction of seed 003)")
        << 13'000'000'000LL << 4LL << 3 << 52'000'000'000LL;
}

void TestEstimate::referenceCases()
{
    QFETCH(qint64, params);
    QFETCH(qint64, gpus);
    QFETCH(int, stage);
    QFETCH(qint64, expectedBytes);
    const MemoryReport r = estimate(plain(params, gpus, ZeroStage(stage)));
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(r.groups.size(), size_t(1));
    QCOMPARE(qint64(r.groups[0].gpuCount), gpus);
    QCOMPARE(qint64(r.groups[0].bytes.modelStates()), expectedBytes);
    QCOMPARE(qint64(r.peakBytes()), expectedBytes);
}

void TestEstimate::componentsFollowTheStage()
{
    // 70B on 64 GPUs, ZeRO-2: weights replicated (2 x 70e9), the rest / 64.
    const MemoryReport r = estimate(plain(70'000'000'000, 64, ZeroStage::Zero2));
    const ComponentBytes &b = r.groups[0].bytes;
    QCOMPARE(qint64(b.weights), 140'000'000'000LL);
    QCOMPARE(qint64(b.gradients), 2'187'500'000LL);       // 2 x 70e9 / 64
    QCOMPARE(qint64(b.masterWeights), 4'375'000'000LL);   // 4 x 70e9 / 64
    QCOMPARE(qint64(b.optimizerStates), 8'750'000'000LL); // 8 x 70e9 / 64
    QCOMPARE(qint64(b.activations), 0LL);
    QCOMPARE(qint64(b.buffers), 0LL);
}

void TestEstimate::megatronEighteenBytes()
{
    // Megatron-LM dist_optimizer.md: bf16 params + fp32 grads = 18 B/param without the
    // distributed optimizer, 6 + 12/d with it (= ZeRO-1 here).
    Recipe r = mixedAdam();
    r.gradientBytes = 4;
    QCOMPARE(qint64(estimate(plain(70'000'000'000, 64, ZeroStage::Ddp, r)).peakBytes()),
             1'260'000'000'000LL);
    QCOMPARE(qint64(estimate(plain(70'000'000'000, 64, ZeroStage::Zero1, r)).peakBytes()),
             70'000'000'000LL * 6 + 70'000'000'000LL * 12 / 64);
}

void TestEstimate::shardsArePadded()
{
    QCOMPARE(qint64(shardElements(10, 4)), 3LL);
    QCOMPARE(qint64(shardElements(12, 4)), 3LL);
    QCOMPARE(qint64(shardElements(7, 1)), 7LL);
    // 10 parameters over 4 ranks: each holds 3 (padded), so 3 x 16 bytes under ZeRO-3.
    QCOMPARE(qint64(estimate(plain(10, 4, ZeroStage::Zero3)).peakBytes()), 48LL);
}

void TestEstimate::shardsSumToTheWhole()
{
    // When d divides Psi, d shards hold exactly the unsharded states.
    for (qint64 d : {1LL, 2LL, 8LL, 64LL, 1024LL}) {
        const qint64 psi = 1024LL * 1000 * 1000 * 7;
        const auto s = estimate(plain(psi, d, ZeroStage::Zero3)).groups[0].bytes;
        QCOMPARE(qint64(s.modelStates()) * d, psi * 16);
    }
}

void TestEstimate::neverRisesWithStage()
{
    for (qint64 params : {1'000'000LL, 7'000'000'001LL, 405'853'388'800LL}) {
        for (qint64 gpus : {1LL, 3LL, 64LL, 16384LL}) {
            qint64 previous = std::numeric_limits<qint64>::max();
            for (int z = 0; z <= 3; ++z) {
                const qint64 peak = estimate(plain(params, gpus, ZeroStage(z))).peakBytes();
                QVERIFY(peak > 0);
                QVERIFY(peak <= previous);
                previous = peak;
            }
        }
    }
}

void TestEstimate::ddpIgnoresGpuCount()
{
    // Seeds are right here: DDP never fits a 70B however many GPUs are added.
    for (qint64 gpus : {1LL, 8LL, 1024LL, 16384LL})
        QCOMPARE(qint64(estimate(plain(70'000'000'000, gpus, ZeroStage::Ddp)).peakBytes()),
                 1'120'000'000'000LL);
}

void TestEstimate::fitsAndHeadroom()
{
    const MemoryReport fit = estimate(plain(70'000'000'000, 64, ZeroStage::Zero3));
    QVERIFY(fit.fits());
    QCOMPARE(qint64(fit.headroomBytes()), 62'500'000'000LL);
    const MemoryReport over = estimate(plain(70'000'000'000, 64, ZeroStage::Ddp));
    QVERIFY(!over.fits());
    QCOMPARE(qint64(over.headroomBytes()), -1'040'000'000'000LL);
    // Exactly at capacity fits: 5e9 params x 16 B = 80 GB on one GPU.
    QVERIFY(estimate(plain(5'000'000'000, 1, ZeroStage::Ddp)).fits());
    QVERIFY(!estimate(plain(5'000'000'001, 1, ZeroStage::Ddp)).fits());
}

void TestEstimate::invalidInputs_data()
{
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<QString>("message");
    QTest::newRow("zero gpus") << 7'000'000'000LL << 0LL << "gpus must be at least 1 (got 0)";
    QTest::newRow("negative gpus") << 7'000'000'000LL << -4LL << "gpus must be at least 1 (got -4)";
    QTest::newRow("zero params") << 0LL << 8LL << "parameters must be positive (got 0)";
    QTest::newRow("negative params") << -5LL << 8LL << "parameters must be positive (got -5)";
    QTest::newRow("too many params")
        << 200'000'000'000'000LL << 8LL << "parameters must be at most 1e14 (got 200000000000000)";
}

void TestEstimate::invalidInputs()
{
    QFETCH(qint64, params);
    QFETCH(qint64, gpus);
    QFETCH(QString, message);
    const MemoryReport r = estimate(plain(params, gpus, ZeroStage::Zero3));
    QVERIFY(!r.valid());
    QVERIFY(!r.fits());
    QVERIFY(r.groups.empty());
    QCOMPARE(QString::fromStdString(r.error), message);
}

void TestEstimate::trafficPastOneExabyteIsRefused()
{
    // 100T parameters under ZeRO-3 on 8 GPUs move (2 w + g) = 6 bytes of every parameter
    // per micro-batch, 7/8 of it off the GPU: 1e14 x 6 x 7/8 = 5.25e14 bytes. x 65,536
    // micro-batches = 3.4e19 bytes, past 2^63: it printed -2,487,088,147 GB. Now refused.
    Scenario s = plain(100'000'000'000'000, 8, ZeroStage::Zero3);
    s.training.microBatches = 65536;
    const MemoryReport r = estimate(s);
    QVERIFY(!r.valid());
    QCOMPARE(r.error, std::string("data-parallel traffic exceeds 1 EB per GPU per step: fewer "
                                  "micro-batches per step (got 65536), a smaller model or more "
                                  "GPUs"));
    s.training.microBatches = 8;
    const MemoryReport ok = estimate(s);
    QVERIFY(ok.valid());
    QCOMPARE(ok.groups[0].communication.dataParallel, 8 * 525'000'000'000'000LL);
}

QTEST_APPLESS_MAIN(TestEstimate)
#include "test_estimate.moc"
