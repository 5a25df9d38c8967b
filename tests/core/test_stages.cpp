// The estimate's stages one by one (core/estimate/*.h; docs/architecture.md "The memory
// model"): each test calls a stage function directly and checks figures worked out by
// hand from the source named beside them. test_equivalence checks the stages together.
#include "estimate.h"
#include "estimate/activationstage.h"
#include "estimate/buffers.h"
#include "estimate/communication.h"
#include "estimate/context.h"
#include "estimate/host.h"
#include "estimate/modelstates.h"
#include "estimate/notes.h"
#include "estimate/stageplan.h"
#include "estimate/validation.h"
#include "testscenarios.h"

#include <QTest>
#include <vector>

using namespace shardscope;
using namespace shardscope::stages;

namespace {

/// Runs `check` on the context of `s` with every per-scenario plan done (the estimate's
/// prologue: planBlocks, planBlockActivations, planFp8Weights, planFineTuning), and the
/// report those write. `s` must be valid.
template <typename Check> void withContext(const Scenario &s, Check check)
{
    const PreparedModel prepared = prepare(s.model);
    QCOMPARE(QString::fromStdString(validate(prepared, s)), QString());
    ActivationFigures figures;
    if (prepared.architecture)
        QCOMPARE(QString::fromStdString(
                     activationFigures(*prepared.architecture, activationSettings(s), figures)),
                 QString());
    EstimateContext x = resolveContext<FillPath::General>(prepared, s);
    planBlocks(x);
    planBlockActivations(x, figures);
    planFp8Weights(x);
    MemoryReport report;
    report.parameters = prepared.parameters;
    planFineTuning(x, report);
    check(x, report);
}

/// Every stage's GpuGroup of `x` from planStage alone.
std::vector<GpuGroup> planAll(const EstimateContext &x, std::vector<StageShare> &shares)
{
    std::vector<GpuGroup> groups(std::size_t(x.p));
    int firstLayer = 0;
    for (int i = 0; i < x.p; ++i)
        shares.push_back(planStage(x, i, firstLayer, groups[std::size_t(i)]));
    return groups;
}

/// withContext() with every stage planned (planAll): `check(x, shares, groups)`, the
/// shares and GpuGroups in stage order.
template <typename Check> void withStages(const Scenario &s, Check check)
{
    withContext(s, [&](const EstimateContext &x, const MemoryReport &) {
        std::vector<StageShare> shares;
        std::vector<GpuGroup> g = planAll(x, shares);
        check(x, shares, g);
    });
}

/// 70 billion parameters counted plainly on `gpus` GPUs at ZeRO stage `z`, mixed-precision
/// Adam (16 bytes per parameter): the ZeRO paper's Figure 1 setting, with the allocations
/// of `framework`.
Scenario seventyBillion(std::int64_t gpus, ZeroStage z, Framework framework = Framework::Generic)
{
    Scenario s = test::plainModelStates(70'000'000'000, gpus, z);
    s.layout.framework = framework;
    return s;
}

// Llama 3 70B's blocks (meta-llama/Meta-Llama-3-70B config.json: h 8192, f 28672, 64
// heads, 8 KV heads of 128, V 128256), elements:
//   q, o: 8192 x 8192 = 67,108,864 each; k, v: 8192 x 1024 = 8,388,608 each
//   gate, up, down: 8192 x 28672 = 234,881,024 each; two RMSNorms: 16,384
//   block = 2 x 67,108,864 + 2 x 8,388,608 + 3 x 234,881,024 + 16,384 = 855,654,400
//   vocabulary matrix = 128,256 x 8192 = 1,050,673,152
constexpr std::int64_t llama70bBlock = 855'654'400;
constexpr std::int64_t llama70bVocab = 1'050'673'152;

} // namespace

class TestStages : public QObject
{
    Q_OBJECT
private slots:
    // Stage plan
    void stagePlanPlacesLayersEmbeddingAndHead();
    void stagePlanSplitsMatricesOverTensorRanks();
    void stagePlanBalancesLlama405b();
    // Model states
    void zeroTableOfTheZeroPaper_data();
    void zeroTableOfTheZeroPaper();
    void modelStatesWithFrameworkGradients();
    // Activations
    void activationsOfKorthikantiTable2();
    // Buffers
    void buffersOfDdpAndZero3();
    void buffersOfDeepSpeedZero3();
    // Host
    void hostMemoryOfZeroOffload();
    void pagedOptimizerMovesTheExcess();
    // Communication
    void dataParallelTrafficOfRingCollectives();
    void tensorParallelTrafficOfMegatron();
    // Notes
    void notesNameWhatIsNotModelled();
    void notesNameSettingsWithoutEffect();
    // Validation
    void validationNamesTheBadInput();
};

void TestStages::stagePlanPlacesLayersEmbeddingAndHead()
{
    // Llama 3 70B on 32 GPUs at t 1, p 4 (d 8): 80 / 4 = 20 blocks a stage; stage 0
    // adds the embedding, stage 3 the final norm (8192) and the untied head.
    Scenario s = test::onH100s(test::llama3_70b(), 32, ZeroStage::Zero1, 1, 4);
    withStages(
        s, [](const EstimateContext &, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            QCOMPARE(int(g.size()), 4);
            for (int i = 0; i < 4; ++i) {
                QCOMPARE(g[i].layerCount, 20);
                QCOMPARE(g[i].firstLayer, 20 * i);
                QCOMPARE(g[i].firstRank, 8LL * i);
                QCOMPARE(g[i].gpuCount, 8LL);
            }
            QVERIFY(g[0].holdsEmbedding && !g[0].holdsOutputHead);
            QVERIFY(g[3].holdsOutputHead && !g[3].holdsEmbedding);
            QCOMPARE(g[0].label, std::string("stage 0"));
            // 20 x 855,654,400 = 17,113,088,000 block parameters a stage.
            QCOMPARE(g[0].parametersPerGpu, 17'113'088'000LL + llama70bVocab); // 18,163,761,152
            QCOMPARE(g[1].parametersPerGpu, 17'113'088'000LL);                 // blocks alone
            QCOMPARE(g[3].parametersPerGpu, 17'113'088'000LL + 8192 + llama70bVocab);
            // The four stages hold the published 70,553,706,496 parameters.
            std::int64_t total = 0;
            for (const GpuGroup &group : g)
                total += group.parametersPerGpu;
            QCOMPARE(total, 70'553'706'496LL);
            // The largest gathered unit: the vocabulary matrix on the end stages, a block
            // in the middle.
            QCOMPARE(shares[0].unit, llama70bVocab);
            QCOMPARE(shares[1].unit, llama70bBlock);
            QCOMPARE(shares[1].blocks[0], 20LL);
        });
}

void TestStages::stagePlanSplitsMatricesOverTensorRanks()
{
    // t 8 (Megatron-LM ColumnParallelLinear / RowParallelLinear): the block's matrices
    // split 8 ways, its two norms (16,384) whole on every rank:
    // (855,654,400 - 16,384) / 8 + 16,384 = 106,971,136; the vocabulary matrix
    // ceil(128,256 / 8) = 16,032 rows of 8192 = 131,334,144.
    Scenario s = test::onH100s(test::llama3_70b(), 8, ZeroStage::Zero1, 8, 1);
    withContext(s, [](const EstimateContext &x, const MemoryReport &) {
        QCOMPARE(x.kinds[0].perRank.dense, 106'971'136LL);
        QCOMPARE(x.kinds[0].perRank.experts, 0LL);
        QCOMPARE(x.vocabPerRank, 131'334'144LL);
        std::vector<StageShare> shares;
        const std::vector<GpuGroup> g = planAll(x, shares);
        QCOMPARE(g[0].label, std::string("all 8 GPUs"));
        QCOMPARE(g[0].parametersPerGpu, 80 * 106'971'136LL + 2 * 131'334'144LL + 8192);
    });
}

void TestStages::stagePlanBalancesLlama405b()
{
    // Llama 3 405B, 126 layers on 16 stages (Dubey et al. 2024, section 3.3.2: one layer
    // fewer on the first and the last stage): k = (126 + 2) / 16 = 8 slots, the end stages
    // 7 layers, the others 8.
    Scenario s = test::onH100s(test::dense(126, 16384, 53248, 128, 8, 128256), 2048,
                               ZeroStage::Zero1, 8, 16);
    s.layout.balancedStages = true;
    withStages(s, [](const EstimateContext &, std::vector<StageShare> &, std::vector<GpuGroup> &g) {
        int sum = 0;
        for (int i = 0; i < 16; ++i) {
            QCOMPARE(g[i].layerCount, i == 0 || i == 15 ? 7 : 8);
            QCOMPARE(g[i].firstLayer, sum);
            sum += g[i].layerCount;
        }
        QCOMPARE(sum, 126);
    });
}

void TestStages::zeroTableOfTheZeroPaper_data()
{
    QTest::addColumn<int>("stage");
    QTest::addColumn<qint64>("expected");
    // Rajbhandari et al. 2020, Figure 1: Psi = 7.5B at K = 12 on 64 GPUs; here 70B at
    // 2 + 2 + 12 = 16 bytes, shard = 70e9 / 64 = 1,093,750,000:
    QTest::newRow("DDP: 16 Psi = 1,120 GB") << 0 << 1'120'000'000'000LL;
    // 4 Psi + 12 shard = 280e9 + 13.125e9
    QTest::newRow("ZeRO-1: 293.1 GB") << 1 << 293'125'000'000LL;
    // 2 Psi + 14 shard = 140e9 + 15.3125e9
    QTest::newRow("ZeRO-2: 155.3 GB") << 2 << 155'312'500'000LL;
    // 16 shard
    QTest::newRow("ZeRO-3: 17.5 GB") << 3 << 17'500'000'000LL;
}

void TestStages::zeroTableOfTheZeroPaper()
{
    QFETCH(int, stage);
    QFETCH(qint64, expected);
    const ComponentBytes b =
        zeroStates(70'000'000'000, 1'093'750'000, ZeroStage(stage), test::mixedAdam());
    QCOMPARE(b.modelStates(), expected);
    QCOMPARE(b.activations + b.buffers, 0LL);
    // The same through the stage, from the scenario.
    withStages(
        seventyBillion(64, ZeroStage(stage)),
        [&](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            QCOMPARE(modelStates(x, shares[0], g[0]), 70'000'000'000LL);
            QCOMPARE(g[0].bytes.modelStates(), expected);
            QCOMPARE(g[0].hostBytes, 0LL);
        });
}

void TestStages::modelStatesWithFrameworkGradients()
{
    // Megatron-Core with the distributed optimizer (ZeRO-1): fp32 main gradients whole
    // on every rank, 6 + 12 / d bytes per parameter (Megatron-LM
    // theoretical_memory_usage.py): 70e9 x (6 + 12 / 64) = 433.125e9.
    withStages(
        seventyBillion(64, ZeroStage::Zero1, Framework::Megatron),
        [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            modelStates(x, shares[0], g[0]);
            QCOMPARE(g[0].bytes.gradients, 280'000'000'000LL);
            QCOMPARE(g[0].bytes.modelStates(), 433'125'000'000LL);
        });
    // DeepSpeed ZeRO-2 keeps an fp32 copy of its gradient partition beside the bf16 one:
    // shard x (2 + 4) = 1,093,750,000 x 6 (stage_1_and_2.py).
    withStages(
        seventyBillion(64, ZeroStage::Zero2, Framework::DeepSpeed),
        [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            modelStates(x, shares[0], g[0]);
            QCOMPARE(g[0].bytes.gradients, 6'562'500'000LL);
        });
}

void TestStages::activationsOfKorthikantiTable2()
{
    // GPT-3 175B (s 2048, b 1, h 12288, a 96) with the paper's assumptions: per layer
    // s b h (34 + 5 a s / h) = 25,165,824 x 114 = 2,868,903,936 bytes (Korthikanti et al.
    // 2022, Table 2, no parallelism). On 8 pipeline stages of 12 layers each, 1F1B with
    // 16 micro-batches holds p = 8 micro-batches on stage 0 (Narayanan et al. 2021,
    // section 2.2) and one on the last.
    Scenario s = test::onH100s(test::gpt3_175b(), 8, ZeroStage::Ddp, 1, 8);
    s.training.sequenceLength = 2048;
    s.training.microBatches = 16;
    s.training.recompute = Recompute::None;
    s.training.flashAttention = false;
    s.training.dropout = true;
    withContext(s, [](const EstimateContext &x, const MemoryReport &) {
        QCOMPARE(x.kinds[0].activation, 2'868'903'936LL);
        QCOMPARE(x.kinds[0].workingSet, 0LL); // nothing is recomputed
        std::vector<StageShare> shares;
        std::vector<GpuGroup> g = planAll(x, shares);
        std::string error;
        QVERIFY(stageActivations(x, 0, shares[0], g[0], error));
        QCOMPARE(g[0].peakInFlight, 8);
        QCOMPARE(g[0].chunkActivationBytes, 12 * 2'868'903'936LL);
        QCOMPARE(g[0].activations.layers, 8 * 12 * 2'868'903'936LL);
        QVERIFY(stageActivations(x, 7, shares[7], g[7], error));
        QCOMPARE(g[7].peakInFlight, 1);
        QCOMPARE(g[7].activations.layers, 12 * 2'868'903'936LL);
        QCOMPARE(QString::fromStdString(error), QString());
    });
}

void TestStages::buffersOfDdpAndZero3()
{
    // DDP: one 25 MiB bucket (PyTorch DistributedDataParallel bucket_cap_mb = 25), the
    // 512 MiB CUDA context, and 5% of everything for fragmentation.
    withStages(
        test::onH100s(test::llama3_70b(), 8, ZeroStage::Ddp),
        [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            const std::int64_t trained = modelStates(x, shares[0], g[0]);
            stageBuffers(x, shares[0], trained, g[0]);
            QCOMPARE(g[0].buffers.cudaContext, 536'870'912LL);
            QCOMPARE(g[0].buffers.communicationBuckets, 26'214'400LL);
            QCOMPARE(g[0].buffers.gatheredUnits, 0LL);
            // 16 x 70,553,706,496 + 536,870,912 + 26,214,400 = 1,129,422,389,248
            // (activations are the next stage's), 5% of it truncated.
            QCOMPARE(g[0].buffers.fragmentation, 56'471'119'462LL);
        });
    // ZeRO-3 on 8 GPUs: the largest unit is the vocabulary matrix; two gathered units and
    // one unit's gradient in bf16: 3 x 1,050,673,152 x 2 = 6,304,038,912 (DeepSpeed's
    // estimator counts 4 x the largest layer for one unit in fp16).
    withStages(
        test::onH100s(test::llama3_70b(), 8, ZeroStage::Zero3),
        [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            stageBuffers(x, shares[0], modelStates(x, shares[0], g[0]), g[0]);
            QCOMPARE(g[0].gatheredUnitParameters, llama70bVocab);
            QCOMPARE(g[0].buffers.gatheredUnits, 6'304'038'912LL);
            // The ZeRO reduce bucket (DeepSpeed reduce_bucket_size) is not kept
            // under FSDP-style ZeRO-3 with the generic profile.
            QCOMPARE(g[0].buffers.communicationBuckets, 0LL);
        });
    QCOMPARE(percentOf(1'000, 5), 50LL);
    QCOMPARE(percentOf(1'019, 5), 50LL); // 50.95 truncated
}

void TestStages::buffersOfDeepSpeedZero3()
{
    // stage3_max_reuse_distance (partitioned_param_coordinator.py __params_to_release):
    // blocks of 100 elements, a head of 150, reuse distance 1,000: the head stays, and the
    // k-th block from the end while 300 + 200 k < 1,000: k = 0, 1, 2, 3 (900 < 1,000;
    // k = 4 gives 1,100), so 150 + 4 x 100 = 550.
    QCOMPARE(deepSpeedRetainedAtTurn(100, 150, 32, 1'000), 550LL);
    QCOMPARE(deepSpeedRetainedAtTurn(100, 150, 3, 1'000), 450LL);  // only 3 blocks
    QCOMPARE(deepSpeedRetainedAtTurn(100, 0, 32, 1'000), 500LL);   // 200 k < 1,000: k <= 4
    QCOMPARE(deepSpeedRetainedAtTurn(100, 500, 32, 1'000), 500LL); // 2 x head = 1,000
    QCOMPARE(deepSpeedRetainedAtTurn(100, 150, 32, 0), 0LL);       // released after each forward
    // Live: the larger of the unit in use and the retained, never capped, plus the
    // prefetch as far as max live leaves room (lines 452-454).
    QCOMPARE(deepSpeedLiveParameters(100, 550, 50, 1'000), 600LL);
    QCOMPARE(deepSpeedLiveParameters(100, 550, 500, 1'000), 1'000LL);
    QCOMPARE(deepSpeedLiveParameters(1'200, 0, 50, 1'000), 1'200LL); // over the cap, no prefetch
    // Llama 3 70B, ZeRO-3 on 8 GPUs with optimizer and parameter offload (the review's
    // full-offload case, M2): the head (128,256 x 8192 = 1,050,673,152) is the largest
    // unit and twice it passes the 1e9 reuse distance, so it alone stays at the turn;
    // max live 1e9 leaves no room to prefetch; its whole gradient adds as much:
    // 2 x 1,050,673,152 x 2 = 4,202,692,608, plus the 161 persistent RMSNorm weights,
    // 161 x 8192 x 2 = 2,637,824. The reduce bucket and its reduce-scatter copy:
    // 2 x 5e8 x 2 = 2e9. 6,205,330,432 in all, within 1.6% of the generic profile's
    // 3 x 1,050,673,152 x 2 = 6,304,038,912 (which the review measured within about 4%),
    // where the capped unit alone gave 3,103,984,128.
    Scenario s = test::onH100s(test::llama3_70b(), 8, ZeroStage::Zero3);
    s.layout.framework = Framework::DeepSpeed;
    s.layout.offload = Offload::OptimizerAndParams;
    withStages(
        s, [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            stageBuffers(x, shares[0], modelStates(x, shares[0], g[0]), g[0]);
            QCOMPARE(g[0].buffers.gatheredUnits, 4'202'692'608LL + 2'637'824LL);
            QCOMPARE(g[0].buffers.communicationBuckets, 2'000'000'000LL);
        });
}

void TestStages::hostMemoryOfZeroOffload()
{
    // ZeRO-Offload (Ren et al. 2021) with ZeRO-2: the fp32 master weights, the optimizer
    // states and the gradient shard live on the host, 1,093,750,000 x (4 + 8 + 2) =
    // 15.3125e9 bytes per GPU; the bf16 weights (140e9) stay. Eight GPUs a node.
    Scenario s = seventyBillion(64, ZeroStage::Zero2);
    s.layout.offload = Offload::Optimizer;
    withStages(
        s, [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            modelStates(x, shares[0], g[0]);
            QCOMPARE(g[0].hostBytes, 15'312'500'000LL);
            QCOMPARE(g[0].bytes.modelStates(), 140'000'000'000LL);
            Checked ck;
            QCOMPARE(hostBytesPerNode(g[0].hostBytes, 8, 64, ck), 122'500'000'000LL);
            QCOMPARE(hostBytesPerNode(g[0].hostBytes, 8, 4, ck), 61'250'000'000LL); // 4 GPUs in all
            QVERIFY(!ck.overflow);
        });
    // Activation offload keeps the last two of L blocks (Transformer Engine CPU offload).
    Checked ck;
    QCOMPARE(offloadedActivationBytes(32, 0, 100, 0, ck), 30 * 100LL);
    QCOMPARE(offloadedActivationBytes(3, 58, 10, 100, ck), 3 * 10LL + 56 * 100LL);
    QVERIFY(!ck.overflow);
    // Review finding F6: 2^62 bytes a GPU on 8 GPUs a node is 2^65, past int64: the
    // overflow is reported, never wrapped to a negative size. 99,998 offloaded blocks of
    // 2^50 bytes likewise.
    Checked wide;
    QCOMPARE(hostBytesPerNode(std::int64_t(1) << 62, 8, 64, wide), 0);
    QVERIFY(wide.overflow);
    Checked offload;
    QCOMPARE(offloadedActivationBytes(100000, 0, std::int64_t(1) << 50, 0, offload), 0);
    QVERIFY(offload.overflow);
}

void TestStages::pagedOptimizerMovesTheExcess()
{
    // A paged optimizer moves what exceeds the GPU, at most the optimizer states
    // (bitsandbytes paged AdamW, Dettmers et al. 2023, section 3).
    ComponentBytes b;
    b.weights = 60;
    b.optimizerStates = 30;
    QCOMPARE(pagedOptimizerBytes(b, 80, 1, 1), 10LL); // 90 - 80
    QCOMPARE(pagedOptimizerBytes(b, 50, 1, 1), 30LL); // all of the states, no more
    QCOMPARE(pagedOptimizerBytes(b, 50, 1, 3), 10LL); // a third of them pageable
    QCOMPARE(pagedOptimizerBytes(b, 100, 1, 1), 0LL); // it fits
}

void TestStages::dataParallelTrafficOfRingCollectives()
{
    // 70e9 parameters, bf16 weights and gradients, 64 ranks; a ring all-gather or
    // reduce-scatter moves (n - 1) / n of the tensor per rank: 140e9 x 63 / 64 =
    // 137.8125e9.
    const std::int64_t n = 70'000'000'000, ranks = 64;
    QCOMPARE(std::int64_t(ringShare(140'000'000'000, ranks)), 137'812'500'000LL);
    // DDP: one all-reduce, 2 x 137.8125e9.
    QCOMPARE(std::int64_t(dataParallelTraffic(ZeroStage::Ddp, false, 8, 2, 2, n, ranks, ranks)),
             275'625'000'000LL);
    // ZeRO-2, 4 micro-batches: a reduce-scatter each, one all-gather of the weights.
    QCOMPARE(std::int64_t(dataParallelTraffic(ZeroStage::Zero2, false, 4, 2, 2, n, ranks, ranks)),
             5 * 137'812'500'000LL);
    // ZeRO-3, 1 micro-batch: two all-gathers and a reduce-scatter, 1.5 x DDP.
    QCOMPARE(std::int64_t(dataParallelTraffic(ZeroStage::Zero3, false, 1, 2, 2, n, ranks, ranks)),
             3 * 137'812'500'000LL);
    QCOMPARE(std::int64_t(ringShare(1'000, 1)), 0LL); // one rank sends nothing
    // Through the stage: DDP on 64 GPUs.
    withStages(
        seventyBillion(64, ZeroStage::Ddp),
        [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &g) {
            std::string error;
            QVERIFY(stageCommunication(x, 0, shares[0], g[0], error));
            QCOMPARE(g[0].communication.dataParallel, 275'625'000'000LL);
            QCOMPARE(g[0].communication.total(), 275'625'000'000LL);
        });
}

void TestStages::tensorParallelTrafficOfMegatron()
{
    // Llama 3 70B at t 8, b 1, s 4096, one micro-batch: 4 all-reduces a layer (Megatron-LM,
    // Shoeybi et al. 2019, section 3) of s b h x 2 bytes = 67,108,864, each 2 x 7 / 8 of
    // it: 80 x 4 x 2 x 58,720,256 = 37,580,963,840 bytes; with full recomputation 6.
    Scenario s = test::onH100s(test::llama3_70b(), 8, ZeroStage::Zero1, 8, 1);
    s.training.microBatches = 1;
    s.training.recompute = Recompute::Selective;
    withStages(
        s, [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &) {
            const ModelParallelTraffic traffic = modelParallelTraffic(x, 0, shares[0], 80);
            QCOMPARE(std::int64_t(traffic.tensor), 37'580'963'840LL);
            QCOMPARE(std::int64_t(traffic.pipeline + traffic.context + traffic.expert), 0LL);
        });
    s.training.recompute = Recompute::Full;
    withStages(
        s, [](const EstimateContext &x, std::vector<StageShare> &shares, std::vector<GpuGroup> &) {
            QCOMPARE(std::int64_t(modelParallelTraffic(x, 0, shares[0], 80).tensor),
                     37'580'963'840LL / 4 * 6);
        });
}

void TestStages::notesNameWhatIsNotModelled()
{
    Scenario s = seventyBillion(64, ZeroStage::Zero1);
    s.modelStatesOnly = false;
    s.layout.framework = Framework::Megatron;
    withContext(s, [](const EstimateContext &x, MemoryReport &report) {
        std::size_t count = 0;
        openingNotes(x, report, count);
        QCOMPARE(count, std::size_t(2));
        QCOMPARE(report.notes[0], std::string("Activations and FSDP gathered units are not "
                                              "modelled: a plain parameter count has no "
                                              "layer shapes."));
        QCOMPARE(report.notes[1],
                 std::string("Framework: Megatron-Core (fp32 main gradients in the grad buffer, "
                             "distributed optimizer with zero1, no extra bucket; "
                             "docs/frameworks.md)."));
        closingNotes(x, 0, report, count);
        QCOMPARE(count, std::size_t(2)); // no MoE, no paged optimizer
    });
    // Mixtral 8x7B (8 experts) at e 1 on 8 GPUs with ZeRO-1: every GPU holds all 8
    // routed experts, their states sharded over the 8 data-parallel ranks.
    withContext(test::onH100s(test::mixtral8x7b(), 8, ZeroStage::Zero1),
                [](const EstimateContext &x, MemoryReport &report) {
                    std::size_t count = 0;
                    closingNotes(x, 0, report, count);
                    QCOMPARE(count, std::size_t(1));
                    const QString note = QString::fromStdString(report.notes[0]);
                    QVERIFY2(note.startsWith("Mixture of experts: "), qPrintable(note));
                    QVERIFY2(note.endsWith("each GPU holds 8 of 8 routed experts per MoE layer, "
                                           "their states sharded over 8 ranks."),
                             qPrintable(note));
                });
}

void TestStages::notesNameSettingsWithoutEffect()
{
    // Llama 3 8B on 8 A100 80GB (catalog speeds: 312 TFLOP/s BF16, no FP8 peak) with FP8
    // on, LoRA dropout and fp32 unquantized on without LoRA, interleaved with p 1: each
    // setting changes nothing the engine counts (or describes a run the card cannot do),
    // and each says so.
    Scenario s = test::onH100s(test::llama3_8b(), 8, ZeroStage::Zero1);
    s.gpu.name = "NVIDIA A100 SXM4 80GB";
    s.gpu.bf16FlopsPerSecond = 312e12;
    s.gpu.fp8FlopsPerSecond = 0;
    s.training.fp8 = Fp8Recipe::Delayed;
    s.fineTuning.loraDropout = true;
    s.fineTuning.fp32Unquantized = true;
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = 2;
    const auto texts = [](const Scenario &sc) {
        QStringList out;
        withContext(sc, [&](const EstimateContext &x, MemoryReport &report) {
            std::size_t count = 0;
            openingNotes(x, report, count);
            for (std::size_t i = 0; i < count; ++i)
                out << QString::fromStdString(report.notes[i]);
        });
        return out;
    };
    const QStringList notes = texts(s);
    QCOMPARE(notes.size(), 5); // FP8's implementation, then the four
    QVERIFY2(notes[0].startsWith("FP8: Transformer Engine delayed scaling"), qPrintable(notes[0]));
    QVERIFY2(notes[1].startsWith("FP8 on NVIDIA A100 SXM4 80GB: the catalog gives it no FP8 "
                                 "peak (fp8_tflops 0)"),
             qPrintable(notes[1]));
    QCOMPARE(notes[2], QString("LoRA dropout: no effect without LoRA (rank 0): nothing is "
                               "dropped."));
    QVERIFY2(notes[3].startsWith("fp32 unquantized: no effect without LoRA on an int8 or nf4"),
             qPrintable(notes[3]));
    QCOMPARE(notes[4],
             QString("Pipeline schedule and chunks: no effect with one pipeline stage (p 1)."));
    // And none of them where the setting acts: an H100's FP8 peak, LoRA rank 16 on an nf4
    // base, two pipeline stages of 16 layers (two chunks of 8).
    // (FP8 with LoRA is refused, so FP8 is checked on its own.)
    Scenario acting = s;
    acting.fineTuning.loraRank = 16;
    acting.fineTuning.baseFormat = BaseFormat::Nf4;
    acting.training.fp8 = Fp8Recipe::Off;
    acting.layout.pipelineParallel = 2;
    for (const QString &n : texts(acting))
        QVERIFY2(!n.contains("no effect"), qPrintable(n));
    Scenario h100 = test::onH100s(test::llama3_8b(), 8, ZeroStage::Zero1);
    h100.gpu.bf16FlopsPerSecond = 989.4e12;
    h100.gpu.fp8FlopsPerSecond = 1978.9e12;
    h100.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(texts(h100).size(), 1);
    // MXFP8 on that H100 (no MXFP8 peak: no block-scaled tensor cores) is noted; on a card
    // with one (a B200's 4.5 PF) it is not.
    h100.training.fp8 = Fp8Recipe::Mxfp8;
    const QStringList mx = texts(h100);
    QCOMPARE(mx.size(), 2);
    QVERIFY2(mx[1].startsWith("MXFP8 on this card: the catalog gives it no MXFP8 peak "
                              "(mxfp8_tflops 0)"),
             qPrintable(mx[1]));
    h100.gpu.mxfp8FlopsPerSecond = 4500e12;
    QCOMPARE(texts(h100).size(), 1);
    // A card with no speeds at all (a custom entry) is not said to lack FP8.
    Scenario bare = test::onH100s(test::llama3_8b(), 8, ZeroStage::Zero1);
    bare.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(texts(bare).size(), 1);
}

void TestStages::validationNamesTheBadInput()
{
    // estimate.h's example: 100 GPUs at t 8, p 4 (32 a replica).
    Scenario s = test::onH100s(test::llama3_70b(), 100, ZeroStage::Zero1, 8, 4);
    std::string error;
    QVERIFY(!checkDegrees(s.model.architecture, s.layout, error));
    QCOMPARE(QString::fromStdString(error),
             QString("gpus (100) is not divisible by t x p x c (8 x 4 x 1 = 32)"));
    s.layout.gpus = 64;
    error.clear();
    QVERIFY(checkDegrees(s.model.architecture, s.layout, error));
    s.layout.framework = Framework::Megatron;
    s.layout.zeroStage = ZeroStage::Zero3;
    QVERIFY(!checkSharding(s.model.architecture, s.layout, error));
    QVERIFY(QString::fromStdString(error).startsWith("megatron: "));
    s.overheads.gatheredUnits = 3;
    QVERIFY(!checkOverheads(s, error));
    QCOMPARE(QString::fromStdString(error), QString("gathered FSDP units must be 1 or 2 (got 3)"));
}

QTEST_APPLESS_MAIN(TestStages)
#include "test_stages.moc"
