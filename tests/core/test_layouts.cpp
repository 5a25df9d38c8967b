// The full per-GPU memory model: 3D layouts, per-stage groups, activations,
// buffers, offload and host memory, communication (docs/architecture.md). Every expected
// value is a hand calculation written beside it, or a published estimator.
#include "estimate.h"
#include "testscenarios.h"

#include <QRandomGenerator>
#include <QTest>

using namespace shardscope;

using test::llama2_7b;
using test::llama3_70b;
using test::noOverheads;
using test::onH100s;
using test::recipeBytes;

class TestLayouts : public QObject
{
    Q_OBJECT
private slots:
    void stagesOfLlama70bAtT8P4();
    void activationsFollowTheSchedule();
    void deepSpeedZero3Estimator();
    void deepSpeedZero2Estimator();
    void megatronTheoreticalMemory();
    void offloadAndHostMemory();
    void buffers();
    void communicationPerStep();
    void impossibleLayouts_data();
    void impossibleLayouts();
    void randomLayoutsProperties();
};

void TestLayouts::stagesOfLlama70bAtT8P4()
{
    // Llama 3 70B, t 8, p 4, d 2 (64 GPUs), DDP, model states only.
    Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Ddp, 8, 4);
    s.modelStatesOnly = true;
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(r.groups.size(), size_t(4));
    // One layer: attention 2 x 8192^2 + 2 x 8192 x 1024 = 150,994,944; MLP 3 x 8192 x 28672
    // = 704,643,072; norms 16,384 (replicated). Per rank: 855,638,016 / 8 + 16,384 =
    // 106,971,136. 20 layers: 2,139,422,720. Embedding / head: 128,256 / 8 x 8192 = 131,334,144.
    QCOMPARE(qint64(r.groups[0].parametersPerGpu), 2139422720LL + 131334144LL);
    QCOMPARE(qint64(r.groups[1].parametersPerGpu), 2139422720LL);
    QCOMPARE(qint64(r.groups[2].parametersPerGpu), 2139422720LL);
    QCOMPARE(qint64(r.groups[3].parametersPerGpu), 2139422720LL + 8192 + 131334144LL);
    QVERIFY(r.groups[0].holdsEmbedding && !r.groups[0].holdsOutputHead);
    QVERIFY(r.groups[3].holdsOutputHead);
    for (int i = 0; i < 4; ++i) {
        QCOMPARE(r.groups[i].layerCount, 20);
        QCOMPARE(r.groups[i].firstLayer, 20 * i);
        QCOMPARE(qint64(r.groups[i].firstRank), 16LL * i);
        QCOMPARE(qint64(r.groups[i].gpuCount), 16LL);
        QCOMPARE(qint64(r.groups[i].bytes.modelStates()), r.groups[i].parametersPerGpu * 16);
    }
    // Summed over the 8 tensor ranks of every stage, the parameters are the model's
    // 70,553,706,496 plus the replicated norms on 7 extra ranks: (80 x 16,384 + 8,192) x 7.
    qint64 sum = 0;
    for (const auto &g : r.groups)
        sum += g.parametersPerGpu * 8;
    QCOMPARE(sum, 70553706496LL + (80LL * 16384 + 8192) * 7);
}

void TestLayouts::activationsFollowTheSchedule()
{
    Scenario s = onH100s(llama3_70b(), 64, ZeroStage::Zero1, 8, 4);
    s.overheads = noOverheads();
    s.training.recompute = Recompute::Selective;
    s.training.microBatches = 8;
    s.training.schedule = PipelineSchedule::OneFOneB;
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    // 1F1B holds p - i micro-batches on stage i (Narayanan et al. 2021).
    for (int i = 0; i < 4; ++i)
        QCOMPARE(r.groups[i].peakInFlight, 4 - i);
    const qint64 perLayer = r.groups[1].activations.layers / (3 * 20);
    QCOMPARE(qint64(r.groups[0].activations.layers), 4 * 20 * perLayer);
    QCOMPARE(qint64(r.groups[3].activations.layers), 1 * 20 * perLayer);
    // Selective + sequence parallel, flash, no dropout, in units of s b h e / t with
    // e = 2 bytes (docs/activations.md): norm input and output 1 + 1 (attention), 1 + 1 (MLP);
    // Q 1; K and V 1024 / 8192 = 0.125 each; projection input 1; SwiGLU up, gate and
    // down input 3 x 28672 / 8192 = 10.5. Total 16.75 x 2 bytes = 33.5 s b h / t
    // (the paper's 34 is for GELU 4h and multi-head attention).
    // 33.5 x 4096 x 8192 / 8 = 140,509,184 bytes.
    QCOMPARE(perLayer, 140509184LL);
    // Logits on the last stage only: 4096 x 16,032 x 4 bytes = 262,668,288 (+ final norm
    // input and output 2 x 4096 x 8192 x 2 / 8 = 16,777,216).
    QCOMPARE(qint64(r.groups[3].activations.output), 262668288LL + 16777216LL);
    QCOMPARE(qint64(r.groups[0].activations.output), 0LL);
    // GPipe holds all m micro-batches on every stage.
    s.training.schedule = PipelineSchedule::GPipe;
    const MemoryReport gpipe = estimate(s);
    for (int i = 0; i < 4; ++i)
        QCOMPARE(qint64(gpipe.groups[i].activations.layers), 8 * 20 * perLayer);
    // GPipe keeps all 8 micro-batches' logits, but an eager loss's backward runs one
    // micro-batch at a time: 2 x 262,668,288 more on the last stage only, once.
    QCOMPARE(qint64(gpipe.groups[3].activations.output), 8 * (262668288LL + 16777216LL));
    QCOMPARE(qint64(gpipe.groups[3].activations.lossBackward), 0LL);
    s.training.schedule = PipelineSchedule::GPipe;
    s.training.lossKernel = LossKernel::Eager;
    const MemoryReport eager = estimate(s);
    QCOMPARE(qint64(eager.groups[3].activations.lossBackward), 2 * 262668288LL);
    QCOMPARE(qint64(eager.groups[3].bytes.activations - gpipe.groups[3].bytes.activations),
             2 * 262668288LL);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(qint64(eager.groups[i].bytes.activations),
                 qint64(gpipe.groups[i].bytes.activations));
    s.training.lossKernel = LossKernel::Fused;
    // Interleaved 1F1B, v 2, m 8: the head is in chunk 1 of the last stage, whose
    // micro-batches run backward right after forward: logits for one micro-batch only.
    // The embedding is in chunk 0 of stage 0, which holds min(2 p, m) = 8 micro-batches
    // (with dropout, its mask: s b h / t x 1 byte = 4096 x 8192 / 8 = 4,194,304 bytes).
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = 2;
    s.training.dropout = true;
    const MemoryReport inter = estimate(s);
    QVERIFY2(inter.valid(), inter.error.c_str());
    QCOMPARE(inter.groups[3].outputInFlight, 1);
    QCOMPARE(qint64(inter.groups[3].activations.output), 262668288LL + 16777216LL);
    QCOMPARE(inter.groups[0].embeddingInFlight, 8);
    QCOMPARE(qint64(inter.groups[0].activations.embedding), 8 * 4194304LL);
    QCOMPARE(inter.groups[1].embeddingInFlight + inter.groups[1].outputInFlight, 0);
    s.training.dropout = false;
    s.training.chunks = 1;
    // Full recomputation keeps 2 s b h / t per layer: 4096 x 8192 x 2 / 8 = 8,388,608.
    s.training.schedule = PipelineSchedule::OneFOneB;
    s.training.recompute = Recompute::Full;
    const MemoryReport full = estimate(s);
    QCOMPARE(qint64(full.groups[0].activations.layers), 4LL * 20 * 8388608);
    QVERIFY(full.groups[0].activations.workingSet > perLayer);
}

void TestLayouts::deepSpeedZero3Estimator()
{
    // DeepSpeed deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs:
    // without offload gpu_mem = 4 x largest_layer_params + 18 x total_params / total_gpus.
    // Its 18 bytes = fp16 params 2 + fp32 grads 4 + fp32 params 4 + Adam 8: our
    // "mixed-adam-fp32-grads" recipe; its 4 x largest layer = one gathered fp16 unit
    // and its fp16 gradient: gatheredUnits = 1.
    Scenario s = onH100s(llama2_7b(), 64, ZeroStage::Zero3);
    s.recipe = recipeBytes(2, 4, 4, 8);
    s.overheads = noOverheads();
    s.overheads.gatheredUnits = 1;
    const qint64 total = 6738415616LL;
    const qint64 largestLayer = 202383360LL; // one Llama 2 7B block (> 32000 x 4096 embedding)
    MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    const GpuGroup &g = r.groups[0];
    QCOMPARE(qint64(g.bytes.modelStates() + g.buffers.gatheredUnits),
             4 * largestLayer + 18 * total / 64);
    // cpu_offload (optimizer): gpu_mem = 4 x largest layer + 2 x total / gpus;
    // with zero_init, cpu_mem = total x 16 x gpus_factor x 1.5, gpus_factor = 1 / nodes.
    s.layout.offload = Offload::Optimizer;
    r = estimate(s);
    QCOMPARE(qint64(r.groups[0].bytes.modelStates() + r.groups[0].buffers.gatheredUnits),
             4 * largestLayer + 2 * total / 64);
    QCOMPARE(qint64(r.hostBytesPerNode) * 3 / 2, total * 16 / 8 * 3 / 2); // 8 nodes; no 1.5 pad
    // cpu_offload_params: gpu_mem = 4 x largest layer; cpu_mem = total x 18 x gpus_factor x 1.5.
    s.layout.offload = Offload::OptimizerAndParams;
    r = estimate(s);
    QCOMPARE(qint64(r.groups[0].bytes.modelStates() + r.groups[0].buffers.gatheredUnits),
             4 * largestLayer);
    QCOMPARE(qint64(r.hostBytesPerNode), total * 18 / 8);
}

void TestLayouts::deepSpeedZero2Estimator()
{
    // DeepSpeed stage_1_and_2.py, estimate_zero2_model_states_mem_needs:
    // cpu_offload: gpu_mem = 2 x total_params (the fp16 weights).
    Scenario s = onH100s(llama2_7b(), 8, ZeroStage::Zero2);
    s.recipe = recipeBytes(2, 4, 4, 8);
    s.modelStatesOnly = true;
    s.layout.offload = Offload::Optimizer;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.modelStates()), 2 * 6738415616LL);
    // Without offload the old estimator counted 4 x total + 16 x total / gpus (a full fp16
    // gradient buffer); DeepSpeed PR #5099 (issues #4076, #5102) corrected it to 2 x total
    // + 18 x total / gpus, the fp32 gradient partition DeepSpeed really keeps: that is the
    // `deepspeed` framework profile (tests/core/test_frameworks.cpp). The generic profile
    // is the ZeRO paper's ZeRO-2: 2 x total + 16 x total / gpus, 2 x total under the old
    // estimator.
    s.layout.offload = Offload::None;
    const qint64 ours = estimate(s).groups[0].bytes.modelStates();
    QCOMPARE(ours, 2 * 6738415616LL + 16 * 6738415616LL / 8);
    QCOMPARE(4 * 6738415616LL + 16 * 6738415616LL / 8 - ours, 2 * 6738415616LL);
}

void TestLayouts::megatronTheoreticalMemory()
{
    // Megatron-LM megatron/training/theoretical_memory_usage.py (Table 2 of Korthikanti et
    // al.), first pipeline stage, selective recomputation with sequence parallelism:
    //   per layer  s b h (18 + 4 ffn / h) / t  bytes, for a GELU MLP, MHA and dropout;
    //   weights and optimizer  (6 + 12 / d) bytes per parameter with the distributed
    //   optimizer (bf16 weights, fp32 gradients) = our ZeRO-1 with the 18-byte recipe.
    // GPT-3 175B shape (h 12288, 96 heads, ffn 4h), s 2048, b 1, t 8, p 8, d 4.
    // Megatron pads the vocabulary to 51,200 and its formula counts no biases.
    Architecture gpt = test::gpt3_175b();
    gpt.vocab = 51200;
    gpt.linearBiases = false;
    gpt.layerNormBias = false;
    Scenario s = onH100s(gpt, 4 * 8 * 8, ZeroStage::Zero1, 8, 8);
    s.recipe = recipeBytes(2, 4, 4, 8);
    s.overheads = noOverheads();
    s.training.sequenceLength = 2048;
    s.training.recompute = Recompute::Selective;
    s.training.flashAttention = false;
    s.training.dropout = true;
    s.training.microBatches = 8;
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    const GpuGroup &first = r.groups[0];
    // 12 layers per stage, 1F1B holds p = 8 micro-batches on stage 0.
    QCOMPARE(first.peakInFlight, 8);
    const qint64 sbh = 2048LL * 12288;
    const qint64 megatronPerLayer = sbh * (18 + 4 * 49152 / 12288) / 8;
    QCOMPARE(qint64(first.activations.layers), 8 * 12 * megatronPerLayer);
    const qint64 psi = first.parametersPerGpu;
    QCOMPARE(qint64(first.bytes.modelStates()), psi * 6 + shardElements(psi, 4) * 12);
}

void TestLayouts::offloadAndHostMemory()
{
    Scenario s = onH100s(llama3_70b(), 8, ZeroStage::Zero3);
    s.modelStatesOnly = true;
    s.layout.offload = Offload::Optimizer;
    const MemoryReport r = estimate(s);
    // Domain.md section 10: 70B on 8 x H100 fits with optimizer offload. On the GPU only
    // the bf16 weight shard: 2 x 70,553,706,496 / 8 = 17,638,426,624 bytes.
    QCOMPARE(qint64(r.peakBytes()), 17638426624LL);
    // Host per node: gradients + master + Adam shards of 8 GPUs = 14 x 70.55e9.
    QCOMPARE(qint64(r.hostBytesPerNode), 14 * 70553706496LL);
    QVERIFY(r.hostFits()); // 987.8 GB < 2 TB
    s.overheads.hostRamBytesPerNode = 512'000'000'000;
    QVERIFY(!estimate(s).fits());
}

void TestLayouts::buffers()
{
    Scenario s = onH100s(llama2_7b(), 8, ZeroStage::Ddp);
    const MemoryReport ddp = estimate(s);
    const BufferBytes &b = ddp.groups[0].buffers;
    QCOMPARE(qint64(b.cudaContext), 512LL * 1024 * 1024);
    QCOMPARE(qint64(b.communicationBuckets), 25LL * 1024 * 1024);
    QCOMPARE(qint64(b.gatheredUnits), 0LL);
    const ComponentBytes &c = ddp.groups[0].bytes;
    const qint64 rest = c.modelStates() + c.activations + b.cudaContext + b.communicationBuckets;
    QCOMPARE(qint64(b.fragmentation), rest * 5 / 100);
    QCOMPARE(qint64(c.buffers),
             b.cudaContext + b.communicationBuckets + b.gatheredUnits + b.fragmentation);
    // ZeRO-2: DeepSpeed reduce bucket of 5e8 elements in the gradient dtype.
    s.layout.zeroStage = ZeroStage::Zero2;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 1'000'000'000LL);
    // ZeRO-3 with prefetch: two gathered blocks plus one block's gradient, bf16:
    // 202,383,360 x 3 x 2.
    s.layout.zeroStage = ZeroStage::Zero3;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.gatheredUnits), 202383360LL * 6);
    // One GPU: no communication buckets.
    s.layout.gpus = 1;
    s.layout.zeroStage = ZeroStage::Ddp;
    QCOMPARE(qint64(estimate(s).groups[0].buffers.communicationBuckets), 0LL);
}

void TestLayouts::communicationPerStep()
{
    // Ring collectives (docs/architecture.md) with one micro-batch: DDP 2 (d-1)/d Psi bytes, ZeRO-3
    // about 1.5x.
    Scenario s = onH100s(llama2_7b(), 8, ZeroStage::Ddp);
    s.training.microBatches = 1;
    const qint64 psi = 6738415616LL;
    QCOMPARE(qint64(estimate(s).groups[0].communication.dataParallel), psi * 2 * 2 * 7 / 8);
    s.layout.zeroStage = ZeroStage::Zero3;
    QCOMPARE(qint64(estimate(s).groups[0].communication.dataParallel), psi * 6 * 7 / 8);
    // ZeRO-3 gathers every micro-batch: m = 4 is 4x.
    s.training.microBatches = 4;
    QCOMPARE(qint64(estimate(s).groups[0].communication.dataParallel), 4 * psi * 6 * 7 / 8);
    // Tensor parallel t 2: 4 all-reduces of b s h per layer (Megatron-LM), ring 2 (t-1)/t.
    // Full recomputation reruns the forward: 6. Llama 2 7B, s 4096, b 1, m 4, no recompute:
    // 4 x 32 x 4 x 2 x 1/2 x 4096 x 4096 x 2 bytes.
    Scenario tp = onH100s(llama2_7b(), 2, ZeroStage::Ddp, 2);
    tp.training.microBatches = 4;
    tp.training.recompute = Recompute::None;
    QCOMPARE(qint64(estimate(tp).groups[0].communication.tensorParallel),
             4LL * 32 * 4 * 4096 * 4096 * 2);
    // Pipeline p 2: each stage sends b s h per micro-batch to its one neighbour.
    Scenario pp = onH100s(llama2_7b(), 2, ZeroStage::Ddp, 1, 2);
    pp.training.microBatches = 4;
    QCOMPARE(qint64(estimate(pp).groups[0].communication.pipelineParallel), 4LL * 4096 * 4096 * 2);
}

void TestLayouts::impossibleLayouts_data()
{
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<int>("t");
    QTest::addColumn<int>("p");
    QTest::addColumn<QString>("message");
    QTest::newRow("not divisible")
        << 100LL << 8 << 4 << "gpus (100) is not divisible by t x p x c (8 x 4 x 1 = 32)";
    QTest::newRow("heads by t") << 48LL << 3 << 1
                                << "activations: heads (64) is not divisible by tensor parallel "
                                   "size (3)";
    QTest::newRow("layers by p") << 48LL << 1 << 3
                                 << "layers (80) are not divisible by pipeline stages (3); allow "
                                    "uneven stages or change p";
    QTest::newRow("more stages than layers")
        << 96LL << 1 << 96 << "pipeline stages (96) exceed layers (80)";
}

void TestLayouts::impossibleLayouts()
{
    QFETCH(qint64, gpus);
    QFETCH(int, t);
    QFETCH(int, p);
    QFETCH(QString, message);
    const MemoryReport r = estimate(onH100s(llama3_70b(), gpus, ZeroStage::Zero1, t, p));
    QCOMPARE(QString::fromStdString(r.error), message);
    QVERIFY(r.groups.empty());
}

void TestLayouts::randomLayoutsProperties()
{
    // Many random valid layouts: shards summed over the ZeRO group cover the stage
    // (equal when divisible), memory never rises with the ZeRO stage or with d under
    // ZeRO-3, and nothing is negative.
    QRandomGenerator rng(20261130);
    const Architecture archs[] = {llama2_7b(), llama3_70b()};
    int checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const Architecture &a = archs[rng.bounded(2)];
        const int t = 1 << rng.bounded(4); // 1..8
        const int p = 1 << rng.bounded(3); // 1..4
        const qint64 d = 1 + rng.bounded(64);
        Scenario s = onH100s(a, d * t * p, ZeroStage::Ddp, t, p);
        s.training.microBatches = 1 + rng.bounded(16);
        s.training.recompute = Recompute(rng.bounded(3));
        s.training.lossKernel = rng.bounded(2) ? LossKernel::Eager : LossKernel::Fused;
        qint64 previous = std::numeric_limits<qint64>::max();
        for (int z = 0; z <= 3; ++z) {
            s.layout.zeroStage = ZeroStage(z);
            const MemoryReport r = estimate(s);
            QVERIFY2(r.valid(), r.error.c_str());
            QVERIFY(r.peakBytes() <= previous);
            previous = r.peakBytes();
            for (const GpuGroup &g : r.groups) {
                for (int c = 0; c < componentCount; ++c)
                    QVERIFY(componentValue(g.bytes, Component(c)) >= 0);
                QVERIFY(g.communication.total() >= 0);
                if (z == 3) {
                    const qint64 shard = g.bytes.weights / s.recipe.weightBytes;
                    QVERIFY(shard * d >= g.parametersPerGpu);
                    QVERIFY(shard * d < g.parametersPerGpu + d);
                    if (g.parametersPerGpu % d == 0)
                        QCOMPARE(shard * d, g.parametersPerGpu);
                }
            }
            ++checked;
        }
        // ZeRO-3 never rises as d doubles.
        s.layout.zeroStage = ZeroStage::Zero3;
        const qint64 before = estimate(s).peakBytes();
        s.layout.gpus *= 2;
        QVERIFY(estimate(s).peakBytes() <= before);
    }
    QCOMPARE(checked, 1600);
}

QTEST_APPLESS_MAIN(TestLayouts)
#include "test_layouts.moc"
