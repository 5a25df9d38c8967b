// The charts' data without widgets (ui/charts/chartdata.h): the strategy comparison's bars, checked
// against the ZeRO paper's per-GPU model-state arithmetic (Rajbhandari et al. 2020,
// arXiv:1910.02054, Figure 1: 2 + 2 + K bytes per parameter, K = 12 for mixed-precision
// Adam, split as 4 B master weights and 8 B Adam moments), worked by hand below.
#include "../testsupport.h"
#include "chartdata.h"
#include "compare.h"
#include "estimate.h"

#include <QTest>

using namespace shardscope;

class TestChartData : public QObject
{
    Q_OBJECT
private slots:
    void compareBarsByHand();
    void compareLabelsSayWhatChanged();
    void compareLabelsNameThePeakStage();
    void memoryBarsOfStages();
    void memoryBarsOfOneGroup();
    void memoryAxisTitleOfUnevenGroups();
};

void TestChartData::compareBarsByHand()
{
    // The plain 70B model (70e9 parameters) on 64 GPUs, model states only:
    //   DDP:    weights 2 x 70e9 = 140e9, gradients 140e9, master 4 x 70e9 = 280e9,
    //           Adam 8 x 70e9 = 560e9: 1,120e9 bytes per GPU.
    //   ZeRO-1: master and Adam / 64: 4.375e9 + 8.75e9; 140e9 + 140e9 + 13.125e9 = 293.125e9.
    //   ZeRO-2: gradients / 64 too: 2.1875e9; 140e9 + 2.1875e9 + 13.125e9 = 155.3125e9.
    //   ZeRO-3: everything / 64: 1,120e9 / 64 = 17.5e9.
    const Scenario s = test::plain70bStates(64, ZeroStage::Zero3);
    const CompareBars bars = compareBars(s, compareStrategies(s));
    QCOMPARE(bars.current, 3);
    // The line at the H100's usable 81,559 MiB, not its datasheet 80e9.
    QCOMPARE(bars.capacityBytes, s.gpu.usableBytes());
    QCOMPARE(qint64(bars.capacityBytes), 85'520'809'984LL);

    const std::array<std::array<std::int64_t, 4>, 4> expected = {{
        {140'000'000'000, 140'000'000'000, 280'000'000'000, 560'000'000'000},
        {140'000'000'000, 140'000'000'000, 4'375'000'000, 8'750'000'000},
        {140'000'000'000, 2'187'500'000, 4'375'000'000, 8'750'000'000},
        {2'187'500'000, 2'187'500'000, 4'375'000'000, 8'750'000'000},
    }};
    const std::array<std::int64_t, 4> peaks = {1'120'000'000'000, 293'125'000'000, 155'312'500'000,
                                               17'500'000'000};
    const std::array<ZeroStage, 4> stages = {ZeroStage::Ddp, ZeroStage::Zero1, ZeroStage::Zero2,
                                             ZeroStage::Zero3};
    for (std::size_t i = 0; i < 4; ++i) {
        const CompareBar &bar = bars.bars[i];
        QVERIFY(bar.valid);
        QCOMPARE(bar.stage, stages[i]);
        QCOMPARE(bar.bytes.weights, expected[i][0]);
        QCOMPARE(bar.bytes.gradients, expected[i][1]);
        QCOMPARE(bar.bytes.masterWeights, expected[i][2]);
        QCOMPARE(bar.bytes.optimizerStates, expected[i][3]);
        QCOMPARE(bar.bytes.activations, std::int64_t(0));
        QCOMPARE(bar.bytes.buffers, std::int64_t(0));
        QCOMPARE(bar.peakBytes, peaks[i]);
    }
    // One group (no pipeline), nothing adjusted: the strategy's name alone.
    QCOMPARE(bars.bars[0].label, std::string("DDP"));
    QCOMPARE(bars.bars[1].label, std::string("ZeRO-1"));
    QCOMPARE(bars.bars[2].label, std::string("ZeRO-2"));
    QCOMPARE(bars.bars[3].label, std::string(zeroStageName(ZeroStage::Zero3)));
}

void TestChartData::compareLabelsSayWhatChanged()
{
    // Parameter offload needs ZeRO-3: DDP drops offload, ZeRO-1/2 keep the optimizer's
    // (core/compare.h), and each bar says so on its second line.
    Scenario s = test::plain70bStates(64, ZeroStage::Zero3);
    s.layout.offload = Offload::OptimizerAndParams;
    const CompareBars bars = compareBars(s, compareStrategies(s));
    QCOMPARE(bars.bars[0].label, std::string("DDP\nno offload"));
    QCOMPARE(bars.bars[1].label, std::string("ZeRO-1\noptimizer offload"));
    QCOMPARE(bars.bars[2].label, std::string("ZeRO-2\noptimizer offload"));
    QCOMPARE(bars.bars[3].label, std::string(zeroStageName(ZeroStage::Zero3)));
}

void TestChartData::compareLabelsNameThePeakStage()
{
    // With pipeline stages, a bar is the busiest GPU's, and its label names the stage.
    const Scenario s = test::llama70bPipeline();
    const auto variants = compareStrategies(s);
    const CompareBars bars = compareBars(s, variants);
    QCOMPARE(bars.current, 1); // ZeRO-1
    for (std::size_t i = 0; i < 4; ++i) {
        const MemoryReport &r = variants[i].report;
        QVERIFY(r.valid());
        const GpuGroup *peak = r.peakGroup();
        QCOMPARE(bars.bars[i].label,
                 std::string(zeroStageName(variants[i].scenario.layout.zeroStage)) + "\nstage " +
                     std::to_string(peak->pipelineStage));
        QCOMPARE(bars.bars[i].bytes.total(), peak->bytes.total());
        QCOMPARE(bars.bars[i].peakBytes, r.peakBytes());
    }
    QCOMPARE(bars.capacityBytes, variants[1].report.capacityBytes);
}

void TestChartData::memoryBarsOfStages()
{
    // Llama 3 70B on 64 GPUs, t 8, p 4, d 2: four stages of 2 x 8 = 16 GPUs, ranks 16k to
    // 16k + 15 in stage k (Megatron-LM's rank order: t fastest, then d, then p).
    const Scenario s = test::llama70bPipeline();
    const MemoryReport r = estimate(s);
    QVERIFY(r.valid());
    const std::vector<MemoryBar> groups = memoryGroupBars(r);
    QCOMPARE(groups.size(), std::size_t(4));
    for (int k = 0; k < 4; ++k) {
        QCOMPARE(groups[std::size_t(k)].firstRank, std::int64_t(16 * k));
        QCOMPARE(groups[std::size_t(k)].gpuCount, std::int64_t(16));
        QCOMPARE(groups[std::size_t(k)].stage, k);
        QCOMPARE(groups[std::size_t(k)].bytes.total(), r.groups[std::size_t(k)].totalBytes());
    }
    QCOMPARE(memoryBarLabel(groups[3], true, false, 0), std::string("Stage 3\nGPU 48–63\n× 16"));
    QCOMPARE(memoryBarLabel(groups[3], true, false, 1), std::string("Stage 3"));
    QCOMPARE(memoryBarLabel(groups[3], true, false, 2), std::string("3"));
    QCOMPARE(memoryAxisTitle(groups, true, false, 0), std::string("GPUs (global rank)"));
    QCOMPARE(memoryAxisTitle(groups, true, false, 1), std::string("Pipeline stage (16 GPUs each)"));
    // A short chart may drop the title only where the labels above name their GPUs: not
    // "Stage 3" (its title counts the stage's 16 GPUs) nor "3".
    QVERIFY(memoryTicksNameTheirGpus(true, false, 0));
    QVERIFY(!memoryTicksNameTheirGpus(true, false, 1));
    QVERIFY(!memoryTicksNameTheirGpus(true, false, 2));

    // One bar per GPU: 64, rank 17 in stage 1, its label the same at every length.
    const std::vector<MemoryBar> gpus = memoryGpuBars(groups);
    QCOMPARE(gpus.size(), std::size_t(64));
    QCOMPARE(gpus[17].firstRank, std::int64_t(17));
    QCOMPARE(gpus[17].gpuCount, std::int64_t(1));
    QCOMPARE(gpus[17].group, 1);
    for (int level = 0; level < 3; ++level)
        QCOMPARE(memoryBarLabel(gpus[17], true, true, level), std::string("GPU 17\nstage 1"));
    QCOMPARE(memoryAxisTitle(groups, true, true, 2), std::string("GPUs (global rank)"));
    QVERIFY(memoryTicksNameTheirGpus(true, true, 2)); // "GPU 17\nstage 1"
}

void TestChartData::memoryBarsOfOneGroup()
{
    // DDP on 16,384 GPUs: one group, ranks 0 to 16,383, the count grouped in thousands.
    const Scenario s = test::plain70bStates(16384, ZeroStage::Ddp);
    const std::vector<MemoryBar> groups = memoryGroupBars(estimate(s));
    QCOMPARE(groups.size(), std::size_t(1));
    QCOMPARE(groups[0].bytes.total(), std::int64_t(1'120'000'000'000)); // 16 B x 70e9
    QCOMPARE(memoryBarLabel(groups[0], false, false, 0), std::string("GPU 0–16383\n× 16,384"));
    QCOMPARE(memoryBarLabel(groups[0], false, false, 1), std::string("GPU 0–16383"));
    QCOMPARE(memoryBarLabel(groups[0], false, false, 2), std::string("0–16383"));
    QVERIFY(memoryTicksNameTheirGpus(false, false, 1));  // "GPU 0–16383"
    QVERIFY(!memoryTicksNameTheirGpus(false, false, 2)); // "0–16383"
    QCOMPARE(memoryAxisTitle(groups, false, false, 2), std::string("GPUs (global rank)"));

    // An invalid report has no bars.
    Scenario bad = s;
    bad.layout.tensorParallel = 3; // 16,384 is not a multiple of 3
    QVERIFY(memoryGroupBars(estimate(bad)).empty());
}

void TestChartData::memoryAxisTitleOfUnevenGroups()
{
    // Stages of different GPU counts (here by hand) share no "each" count.
    const std::vector<MemoryBar> groups = {{0, 8, 0, 0, {}}, {8, 4, 1, 1, {}}};
    QCOMPARE(memoryAxisTitle(groups, true, false, 1), std::string("Pipeline stage"));
    const std::vector<MemoryBar> single = {{0, 1, 0, 0, {}}, {1, 1, 1, 1, {}}};
    QCOMPARE(memoryAxisTitle(single, true, false, 2), std::string("Pipeline stage (1 GPU each)"));
    QCOMPARE(memoryBarLabel(single[1], true, false, 0), std::string("Stage 1\nGPU 1"));
}

QTEST_MAIN(TestChartData)
#include "test_chartdata.moc"
