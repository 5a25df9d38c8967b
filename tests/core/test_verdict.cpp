// The verdict (core/verdict.h) and its sentence (verdictText, core/format.h): what
// overflows, by how many bytes, with every amount worked out by hand below.
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "scenariofile.h"
#include "verdict.h"

#include <QTest>

using namespace shardscope;

namespace {

using test::llama70bZero3;

// The catalog's H100 SXM 80GB is checked against the total its driver reports,
// 81,559 MiB x 2^20 = 85,520,809,984 bytes = 85.5 GB (Gpu::usableBytes()).
//
// Hand counts of llama70bZero3() used below (the same terms as
// tests/app/test_reportcommand.cpp):
//   parameters 70,553,706,496; over 64 ranks 1,102,401,664 each (exact)
//   activations 5,368,709,120 + 134,217,728 + 2,101,346,304 = 7,604,273,152 (the
//     layers, the final norm and the logits; a block's recomputed working set,
//     1,125,122,048, is smaller than the final norm and logits that the head's backward
//     frees before it, so it adds nothing: ActivationBytes::transient)
//   CUDA context 536,870,912; gathered units 1,050,673,152 x 3 x 2 = 6,304,038,912
//   activations + context + gathered units = 14,445,182,976

QString text(const Scenario &s)
{
    return QString::fromStdString(verdictText(s, estimate(s), ByteUnit::GB));
}

} // namespace

class TestVerdict : public QObject
{
    Q_OBJECT
private slots:
    void onlyHostRamOverflows();
    void hsdpShardsCoverPartOfTheRanks();
    void gpuAndHostOverflow();
    void fits();
    void nearTheLine();
    void invalid();
};

void TestVerdict::onlyHostRamOverflows()
{
    // shardscope report --model llama3-70b --gpus 64 --strategy zero3
    //   --offload optimizer+params --host-ram-gb 1
    Scenario s = llama70bZero3();
    s.layout.offload = Offload::OptimizerAndParams;
    s.overheads.hostRamBytesPerNode = 1'000'000'000;
    const MemoryReport r = estimate(s);
    // Every model state moves to the host: 1,102,401,664 x 16 = 17,638,426,624 bytes per
    // GPU, x 8 GPUs per node = 141,107,412,992 bytes per node against 1e9.
    QCOMPARE(qint64(r.hostBytesPerNode), 141'107'412'992LL);
    QVERIFY(!r.hostFits());
    // The GPU keeps no model state: 14,445,182,976 + 5 % reserve 722,259,148
    // = 15,167,442,124 bytes, well under 85,520,809,984.
    QCOMPARE(qint64(r.peakBytes()), 15'167'442'124LL);

    const Verdict v = verdict(s, r);
    QCOMPARE(v.kind, Verdict::Kind::Host);
    QVERIFY(v.hostOverflows());
    QVERIFY(!v.gpuOverflows());
    QCOMPARE(qint64(v.hostOverflowBytesPerNode),
             qint64(r.hostBytesPerNode - r.hostCapacityBytesPerNode));
    QCOMPARE(qint64(v.hostOverflowBytesPerNode), 140'107'412'992LL); // 141,107,412,992 - 1e9
    QCOMPARE(qint64(v.gpuOverflowBytes), 0LL);
    // Activations are all the busiest GPU holds besides buffers.
    QCOMPARE(v.dominant, Verdict::Dominant::Activations);
    QCOMPARE(qint64(v.busiestModelStateBytes), 0LL);
    QCOMPARE(qint64(v.busiestActivationBytes), 7'604'273'152LL);

    const QString t = text(s);
    QCOMPARE(t, QStringLiteral("Overflows host RAM by 140.1 GB per node (141.1 GB offloaded per "
                               "node, 1 GB available); GPU memory fits (15.2 GB of 85.5 GB "
                               "usable per GPU): offload less, add host RAM, or use more GPUs "
                               "to shard over"));
    QVERIFY(t.contains(QStringLiteral("host RAM")));
    QVERIFY2(!t.contains(u'-'), qPrintable(t)); // no minus sign before any amount
}

void TestVerdict::hsdpShardsCoverPartOfTheRanks()
{
    // HSDP: ZeRO-3 shards over 8 of the 64 data-parallel ranks, replicated 8 times.
    Scenario s = llama70bZero3();
    s.layout.hsdpShardSize = 8;
    const MemoryReport r = estimate(s);
    // 70,553,706,496 / 8 = 8,819,213,312 parameters x 16 = 141,107,412,992 bytes of model
    // states; + 14,445,182,976 = 155,552,595,968; + 5 % reserve 7,777,629,798
    // = 163,330,225,766 bytes per GPU: 77,809,415,782 over 85,520,809,984.
    QCOMPARE(qint64(r.peakBytes()), 163'330'225'766LL);
    const Verdict v = verdict(s, r);
    QCOMPARE(v.kind, Verdict::Kind::Gpu);
    QCOMPARE(qint64(v.gpuOverflowBytes), 77'809'415'782LL);
    QCOMPARE(qint64(v.hostOverflowBytesPerNode), 0LL);
    QCOMPARE(v.dominant, Verdict::Dominant::ModelStates);
    QCOMPARE(qint64(v.shardRanks), 8LL);
    QCOMPARE(qint64(v.dataContextRanks), 64LL);
    QVERIFY(v.hsdpPartial());
    const QString t = text(s);
    QCOMPARE(t, QStringLiteral("Overflows by 77.8 GB per GPU: ZeRO-3 shards cover only 8 of 64 "
                               "data x context ranks (HSDP), so each GPU's share is too large: "
                               "use a larger shard group (up to 64)"));
    QVERIFY(!t.contains(QStringLiteral("fully sharded")));

    // A shard group of all 64 ranks is plain ZeRO-3: 17,638,426,624 + 14,445,182,976
    // + 5 % = 33,687,790,080 bytes, which fits.
    s.layout.hsdpShardSize = 64;
    QVERIFY(!verdict(s, estimate(s)).hsdpPartial());
    QCOMPARE(text(s), QStringLiteral("Fits: 33.7 GB of 85.5 GB usable per GPU"));

    // ZeRO-2 under HSDP names the shard group too.
    s.layout.zeroStage = ZeroStage::Zero2;
    s.layout.hsdpShardSize = 8;
    QVERIFY2(text(s).contains(QStringLiteral("ZeRO-2 shards gradients and optimizer states over "
                                             "8 of 64 data x context ranks (HSDP); weights stay "
                                             "replicated")),
             qPrintable(text(s)));
}

void TestVerdict::gpuAndHostOverflow()
{
    // 70B, ZeRO-1 on 8 GPUs (one node), optimizer offload, 500 GB host RAM, model states
    // only. On the GPU the replicated bf16 weights and gradients:
    //   70,553,706,496 x (2 + 2) = 282,214,825,984 bytes, 196,694,016,000 over
    //   85,520,809,984.
    // On the host the master weight and Adam shards (ZeRO-1 keeps gradients on the GPU):
    //   70,553,706,496 / 8 = 8,819,213,312 x (4 + 8) = 105,830,559,744 per GPU,
    //   x 8 = 846,644,477,952 per node, 346,644,477,952 over 5e11.
    Scenario s = llama70bZero3();
    s.layout.gpus = 8;
    s.layout.zeroStage = ZeroStage::Zero1;
    s.layout.offload = Offload::Optimizer;
    s.overheads.hostRamBytesPerNode = 500'000'000'000;
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QCOMPARE(qint64(r.peakBytes()), 282'214'825'984LL);
    QCOMPARE(qint64(r.hostBytesPerNode), 846'644'477'952LL);
    const Verdict v = verdict(s, r);
    QCOMPARE(v.kind, Verdict::Kind::GpuAndHost);
    QVERIFY(v.gpuOverflows() && v.hostOverflows());
    QCOMPARE(qint64(v.gpuOverflowBytes), 196'694'016'000LL);
    QCOMPARE(qint64(v.hostOverflowBytesPerNode), 346'644'477'952LL);
    QCOMPARE(v.dominant, Verdict::Dominant::ModelStates);
    QCOMPARE(text(s), QStringLiteral("Overflows by 196.7 GB per GPU and host RAM by 346.6 GB per "
                                     "node: ZeRO-1 shards only optimizer states; weights and "
                                     "gradients stay replicated; host RAM holds 500 GB of the "
                                     "846.6 GB offloaded per node: add host RAM or use more GPUs "
                                     "to shard over"));
}

void TestVerdict::fits()
{
    // 17,638,426,624 + 14,445,182,976 = 32,083,609,600; + 5 % 1,604,180,480
    // = 33,687,790,080 bytes per GPU; nothing offloaded.
    const Scenario s = llama70bZero3();
    const MemoryReport r = estimate(s);
    QCOMPARE(qint64(r.peakBytes()), 33'687'790'080LL);
    const Verdict v = verdict(s, r);
    QCOMPARE(v.kind, Verdict::Kind::Fits);
    QCOMPARE(qint64(v.gpuOverflowBytes), 0LL);
    QCOMPARE(qint64(v.hostOverflowBytesPerNode), 0LL);
    QCOMPARE(v.dominant, Verdict::Dominant::ModelStates); // 17.6 GB states > 8.7 GB activations
    QCOMPARE(qint64(v.busiestModelStateBytes), 17'638'426'624LL);
    QCOMPARE(text(s), QStringLiteral("Fits: 33.7 GB of 85.5 GB usable per GPU"));
    // Offloading the optimizer within a 2 TB node still fits: host RAM is no overflow.
    Scenario offload = s;
    offload.layout.offload = Offload::Optimizer;
    QCOMPARE(verdict(offload, estimate(offload)).kind, Verdict::Kind::Fits);
}

void TestVerdict::nearTheLine()
{
    // 5.2e9 parameters x 16 bytes = 83.2e9 on one H100, model states only: over the
    // 80e9 on the datasheet, under the 85,520,809,984 bytes the driver reports, so it
    // fits with 2,320,809,984 bytes to spare.
    Scenario s = test::catalogScenario("plain-70b", 1);
    s.model.plainParameters = 5'200'000'000;
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QCOMPARE(qint64(r.peakBytes()), 83'200'000'000LL);
    QCOMPARE(qint64(r.capacityBytes), 85'520'809'984LL);
    QCOMPARE(qint64(r.headroomBytes()), 2'320'809'984LL);
    QVERIFY(r.fits());
    QCOMPARE(text(s), QStringLiteral("Fits: 83.2 GB of 85.5 GB usable"));
    // A card with no driver figure is checked against its datasheet: 3.2e9 over 80e9.
    s.gpu.driverReportedBytes = 0;
    const MemoryReport datasheet = estimate(s);
    QCOMPARE(qint64(datasheet.capacityBytes), 80'000'000'000LL);
    QCOMPARE(qint64(verdict(s, datasheet).gpuOverflowBytes), 3'200'000'000LL);
    QCOMPARE(text(s), QStringLiteral("Overflows by 3.2 GB: one GPU must hold every model state"));
}

void TestVerdict::invalid()
{
    Scenario s = llama70bZero3();
    s.layout.tensorParallel = 5; // 64 GPUs do not split into t = 5
    const MemoryReport r = estimate(s);
    const Verdict v = verdict(s, r);
    QCOMPARE(v.kind, Verdict::Kind::Invalid);
    QVERIFY(!v.gpuOverflows() && !v.hostOverflows());
    QCOMPARE(qint64(v.gpuOverflowBytes), 0LL);
    QCOMPARE(qint64(v.hostOverflowBytesPerNode), 0LL);
    QCOMPARE(text(s), QStringLiteral("Cannot estimate: gpus (64) is not divisible by t x p x c "
                                     "(5 x 1 x 1 = 5)"));
}

QTEST_GUILESS_MAIN(TestVerdict)
#include "test_verdict.moc"
