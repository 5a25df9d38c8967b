// FP8 training recipes and activation offload to CPU (docs/frameworks.md), each checked
// against a hand calculation written out here. The sources, file and line, are in
// docs/frameworks.md "FP8 training" and "Activation offload": Transformer Engine
// (NVIDIA/TransformerEngine d0067d0), torchao (pytorch/ao 36027d8), Megatron-LM d98e8a6.
//
// Llama 2 7B (32 layers, h 4096, f 11008, 32 heads, V 32000) per block: the linear
// weights are q, k, v, o 4 x 4096^2 = 67,108,864 and gate, up, down 3 x 4096 x 11008 =
// 135,266,304, together 202,375,168; with the two RMSNorm weights (8,192) the block has
// 202,383,360 parameters.
#include "estimate.h"
#include "settings.h"
#include "steptime.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

namespace {

constexpr std::int64_t linearPerBlock = 202'375'168;
constexpr std::int64_t paramsPerBlock = 202'383'360;

/// Llama 2 7B with mixed-precision AdamW on `gpus` H100s (80 GB) at ZeRO stage `z`,
/// sequence 4096, one sequence per micro-batch, no recomputation, FP8 recipe `fp8`.
Scenario llama7b(std::int64_t gpus, ZeroStage z, Fp8Recipe fp8, Framework fw = Framework::Generic)
{
    Scenario s = test::onH100s(test::llama2_7b(), gpus, z);
    s.layout.framework = fw;
    s.training.sequenceLength = 4096;
    s.training.microBatchSize = 1;
    s.training.recompute = Recompute::None;
    s.training.fp8 = fp8;
    return s;
}

MemoryReport estimated(const Scenario &s)
{
    MemoryReport r = estimate(s);
    if (!r.valid())
        qFatal("invalid scenario: %s", r.error.c_str());
    return r;
}

/// The activation settings of llama7b() for one block on one GPU.
ActivationSettings blockSettings(Fp8Recipe fp8)
{
    ActivationSettings a;
    a.sequenceLength = 4096;
    a.microBatchSize = 1;
    a.recompute = Recompute::None;
    a.fp8 = fp8;
    return a;
}

bool hasNoteStartingWith(const MemoryReport &r, const std::string &prefix)
{
    for (const std::string &n : r.notes)
        if (n.rfind(prefix, 0) == 0)
            return true;
    return false;
}

} // namespace

class TestFp8 : public QObject
{
    Q_OBJECT
private slots:
    void settings();
    void formatBytes();
    void transformerEngineDelayedWeightCopies();
    void transformerEngineMxfp8WeightCopies();
    void savedLinearInputsInFp8_data();
    void savedLinearInputsInFp8();
    void savedExpertInputsInFp8();
    void torchaoFloat8AllGather();
    void torchaoMxfp8ChangesNoMemory();
    void refusals();
    void fp8PeakForLinearLayers();
    void activationOffloadLlama2_7b();
    void activationOffloadWithFullRecompute();
    void activationOffloadNeedsOnePipelineStage();
};

void TestFp8::settings()
{
    const Setting *f = settingByKey("fp8");
    QVERIFY(f);
    QCOMPARE(f->kind, SettingKind::Choice);
    QCOMPARE(f->flag, std::string_view("fp8"));
    std::string error;
    QCOMPARE(parseSettingText(*f, "delayed", &error).value_or(-1), qint64(Fp8Recipe::Delayed));
    QCOMPARE(parseSettingText(*f, "MXFP8", &error).value_or(-1), qint64(Fp8Recipe::Mxfp8));
    QCOMPARE(parseSettingText(*f, "tensorwise", &error).value_or(-1), qint64(Fp8Recipe::Delayed));
    QVERIFY(!parseSettingText(*f, "nvfp4", &error));
    QCOMPARE(QString::fromStdString(error),
             QStringLiteral("unknown fp8 training 'nvfp4' (known: off, delayed, mxfp8)"));
    const Setting *o = settingByKey("activation_offload");
    QVERIFY(o);
    QCOMPARE(o->kind, SettingKind::Boolean);
    QCOMPARE(o->flag, std::string_view("activation-offload"));
    QCOMPARE(parseSettingText(*o, "on", &error).value_or(-1), qint64(1));
    // Off by default: today's results.
    QCOMPARE(Scenario().training.fp8, Fp8Recipe::Off);
    QCOMPARE(Scenario().training.activationOffload, false);
}

void TestFp8::formatBytes()
{
    // Delayed: 1 byte per element. MXFP8: one E8M0 byte per 32 elements on top,
    // 4096 + 128; a partial block still has its scale: 33 elements + 2.
    QCOMPARE(fp8TensorBytes(Fp8Recipe::Delayed, 4096), std::int64_t(4096));
    QCOMPARE(fp8TensorBytes(Fp8Recipe::Mxfp8, 4096), std::int64_t(4224));
    QCOMPARE(fp8TensorBytes(Fp8Recipe::Mxfp8, 33), std::int64_t(35));
    QCOMPARE(fp8TensorBytes(Fp8Recipe::Off, 4096), std::int64_t(0));
    // Delayed scaling's state per GEMM: 5 quantizers x (1024 amax entries + 1 scale) x 4
    // bytes = 20,500; MXFP8 keeps none.
    QCOMPARE(fp8RecipeStateBytes(Fp8Recipe::Delayed, 1), std::int64_t(20'500));
    QCOMPARE(fp8RecipeStateBytes(Fp8Recipe::Mxfp8, 128), std::int64_t(0));
}

void TestFp8::transformerEngineDelayedWeightCopies()
{
    // Hand calculation, Llama 2 7B, t = 1, 32 blocks: an FP8 copy and its transpose of
    // every linear weight, 32 x 2 x 202,375,168 = 12,952,010,752 bytes, plus the amax
    // history and scales of 4 GEMMs per block, 32 x 4 x 20,500 = 2,624,000 bytes:
    // 12,954,634,752 bytes more weights on every GPU, whole under every ZeRO stage.
    for (const ZeroStage z : {ZeroStage::Zero1, ZeroStage::Zero3}) {
        const MemoryReport off = estimated(llama7b(8, z, Fp8Recipe::Off));
        const MemoryReport on = estimated(llama7b(8, z, Fp8Recipe::Delayed));
        QCOMPARE(on.groups[0].bytes.weights - off.groups[0].bytes.weights,
                 std::int64_t(12'954'634'752));
        QCOMPARE(on.groups[0].bytes.gradients, off.groups[0].bytes.gradients);
        QCOMPARE(on.groups[0].bytes.optimizerStates, off.groups[0].bytes.optimizerStates);
        QVERIFY(hasNoteStartingWith(on, "FP8: Transformer Engine delayed scaling"));
        QVERIFY(!hasNoteStartingWith(off, "FP8:"));
    }
    // With t = 2 each rank quantizes its half: 32 x 2 x 101,187,584 + 2,624,000.
    Scenario off = llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off);
    off.layout.tensorParallel = 2;
    Scenario on = off;
    on.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(estimated(on).groups[0].bytes.weights - estimated(off).groups[0].bytes.weights,
             std::int64_t(32LL * 2 * 101'187'584 + 2'624'000));
}

void TestFp8::transformerEngineMxfp8WeightCopies()
{
    // Row- and column-wise copies with one E8M0 scale per 32 values: per block
    // 202,375,168 + 202,375,168 / 32 = 202,375,168 + 6,324,224 = 208,699,392 bytes a
    // copy; 32 x 2 x 208,699,392 = 13,356,761,088. No amax history.
    const MemoryReport off = estimated(llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off));
    const MemoryReport on = estimated(llama7b(8, ZeroStage::Zero1, Fp8Recipe::Mxfp8));
    QCOMPARE(on.groups[0].bytes.weights - off.groups[0].bytes.weights,
             std::int64_t(13'356'761'088));
    QVERIFY(hasNoteStartingWith(on, "FP8: Transformer Engine MXFP8 block scaling"));
}

void TestFp8::savedLinearInputsInFp8_data()
{
    QTest::addColumn<int>("recipe");
    QTest::addColumn<qint64>("block");
    // One Llama 2 7B block, s = 4096, b = 1, t = 1, bf16, flash, no recomputation:
    //   norm 1 input, q, k, v, norm 2 input   5 x 4096 x 4096 x 2   = 167,772,160
    //   softmax statistics                    4 x 32 x 4096         =     524,288
    //   up and gate outputs                   2 x 4096 x 11008 x 2  = 180,355,072
    //   linear inputs in bf16: qkv, projection and MLP inputs 3 x 33,554,432, the
    //   down projection's input 4096 x 11008 x 2 = 90,177,536         = 190,840,832
    //   total                                                       = 539,492,352
    // Delayed: the four linear inputs at 1 byte, 3 x 16,777,216 + 45,088,768 =
    // 95,420,416, total 444,071,936. MXFP8 adds one scale per 32: 3 x 524,288 +
    // 1,409,024 = 2,981,888, total 447,053,824.
    QTest::newRow("off") << int(Fp8Recipe::Off) << qint64(539'492'352);
    QTest::newRow("delayed") << int(Fp8Recipe::Delayed) << qint64(444'071'936);
    QTest::newRow("mxfp8") << int(Fp8Recipe::Mxfp8) << qint64(447'053'824);
}

void TestFp8::savedLinearInputsInFp8()
{
    QFETCH(int, recipe);
    QFETCH(qint64, block);
    const Fp8Recipe r = Fp8Recipe(recipe);
    QCOMPARE(layerActivationBytes(test::llama2_7b(), blockSettings(r)), std::int64_t(block));
    // The estimate holds 32 such blocks on one stage (one micro-batch in flight).
    const MemoryReport rep = estimated(llama7b(8, ZeroStage::Zero1, r));
    QCOMPARE(rep.groups[0].activations.layers, 32 * std::int64_t(block));
    // Full recomputation keeps each block's bf16 input only: FP8 changes nothing there.
    ActivationSettings full = blockSettings(r);
    full.recompute = Recompute::Full;
    QCOMPARE(layerActivationBytes(test::llama2_7b(), full), std::int64_t(4096LL * 4096 * 2));
}

void TestFp8::savedExpertInputsInFp8()
{
    // Mixtral 8x7B (every block MoE, k = 2 of 8 experts, f_e 14336, no shared expert),
    // s = 4096, b = 1, bf16: delayed scaling saves one byte of each of these elements:
    //   QKV and MLP inputs 2 x 4096 x 4096                  33,554,432
    //   output projection input 4096 x 32 x 128               16,777,216
    //   the experts' input, 2 copies x 4096 tokens x 4096     33,554,432
    //   the experts' down input 8192 x 14336                 117,440,512
    //   (no dense MLP down input: no shared expert)
    //   total                                                201,326,592 bytes a block
    const Architecture a = test::mixtral8x7b();
    const std::int64_t off = layerActivationBytes(a, blockSettings(Fp8Recipe::Off));
    const std::int64_t on = layerActivationBytes(a, blockSettings(Fp8Recipe::Delayed));
    QCOMPARE(off - on, std::int64_t(201'326'592));
    // The estimate's figures agree with the terms: 32 blocks on one stage.
    Scenario s = test::onH100s(a, 8, ZeroStage::Zero3);
    s.training.sequenceLength = 4096;
    s.training.microBatchSize = 1;
    s.training.recompute = Recompute::None;
    s.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(estimated(s).groups[0].activations.layers, 32 * on);
}

void TestFp8::torchaoFloat8AllGather()
{
    // fsdp2 + delayed: torchao Float8 with enable_fsdp_float8_all_gather, Llama 2 7B on 8
    // GPUs, ZeRO-3, bf16 compute, two gathered units. The largest unit is a block
    // (202,383,360 parameters; the 32000 x 4096 = 131,072,000 embedding is smaller):
    //   off: 3 x 202,383,360 x 2                                  = 1,214,300,160
    //   on:  2 x (202,375,168 x 1 + 8,192 x 2) + 202,383,360 x 2  =   809,549,824
    // (the embedding's 3 x 131,072,000 x 2 = 786,432,000 is still smaller).
    const MemoryReport off =
        estimated(llama7b(8, ZeroStage::Zero3, Fp8Recipe::Off, Framework::Fsdp2));
    const MemoryReport on =
        estimated(llama7b(8, ZeroStage::Zero3, Fp8Recipe::Delayed, Framework::Fsdp2));
    QCOMPARE(off.groups[0].buffers.gatheredUnits, std::int64_t(3LL * paramsPerBlock * 2));
    QCOMPARE(on.groups[0].buffers.gatheredUnits, std::int64_t(809'549'824));
    // torchao keeps no FP8 weight copy and saves the bf16 inputs (float8_linear.py).
    QCOMPARE(on.groups[0].bytes.weights, off.groups[0].bytes.weights);
    QCOMPARE(on.groups[0].bytes.activations, off.groups[0].bytes.activations);
    // All-gather traffic: the 32 x 202,375,168 = 6,476,005,376 linear weights travel in
    // 1 byte instead of 2, twice per micro-batch (forward and backward), 8 micro-batches,
    // ring share 7/8: 8 x (6,476,005,376 x 4 - 6,476,005,376 x 2) x 7 / 8 =
    // 90,664,075,264 bytes fewer.
    QCOMPARE(off.groups[0].communication.dataParallel - on.groups[0].communication.dataParallel,
             std::int64_t(90'664'075'264));
    QVERIFY(hasNoteStartingWith(on, "FP8: torchao Float8, tensorwise scaling"));
    // Under ZeRO-1 there is no gathered unit: nothing changes.
    const MemoryReport z1off =
        estimated(llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off, Framework::Fsdp2));
    const MemoryReport z1on =
        estimated(llama7b(8, ZeroStage::Zero1, Fp8Recipe::Delayed, Framework::Fsdp2));
    QCOMPARE(z1on.peakBytes(), z1off.peakBytes());
}

void TestFp8::torchaoMxfp8ChangesNoMemory()
{
    // torchao's MXFP8 linear saves input_hp and weight_hp (prototype/moe_training/
    // mxfp8_linear.py line 108) and FSDP2's FP8 all-gather is tensorwise only
    // (torchao/float8/config.py lines 272-273): the same bytes as bf16.
    const MemoryReport off =
        estimated(llama7b(8, ZeroStage::Zero3, Fp8Recipe::Off, Framework::Fsdp2));
    const MemoryReport on =
        estimated(llama7b(8, ZeroStage::Zero3, Fp8Recipe::Mxfp8, Framework::Fsdp2));
    QCOMPARE(on.peakBytes(), off.peakBytes());
    QCOMPARE(on.groups[0].communication.dataParallel, off.groups[0].communication.dataParallel);
    QVERIFY(hasNoteStartingWith(on, "FP8: torchao MXFP8"));
}

void TestFp8::refusals()
{
    Scenario plain = test::plainModelStates(7'000'000'000, 8, ZeroStage::Zero1);
    plain.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(validate(plain), std::string("fp8 needs the model's architecture (a plain parameter "
                                          "count has no linear layers)"));
    Scenario lora = llama7b(1, ZeroStage::Ddp, Fp8Recipe::Delayed);
    lora.fineTuning.loraRank = 8;
    QCOMPARE(validate(lora),
             std::string("fp8 with LoRA is not modelled: turn fp8 off or the LoRA rank to 0"));
}

void TestFp8::fp8PeakForLinearLayers()
{
    // H100 SXM dense peaks: BF16 989.4e12, FP8 1978.9e12 FLOP/s; efficiency set to 50%.
    Scenario s = llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off);
    s.gpu.id = "h100";
    s.gpu.bf16FlopsPerSecond = 989.4e12;
    s.gpu.fp8FlopsPerSecond = 1978.9e12;
    s.gpu.memoryBytesPerSecond = 3.35e12;
    s.gpu.nvlinkBytesPerSecond = 450e9;
    s.throughput.computeEfficiencyPercent = 50;
    const StepTime bf16 = stepTime(s, estimated(s));
    QVERIFY(bf16.valid());
    QCOMPARE(bf16.peakFlopsPerSecond, 989.4e12);
    s.training.fp8 = Fp8Recipe::Delayed;
    const StepTime fp8 = stepTime(s, estimated(s));
    QVERIFY(fp8.valid());
    QCOMPARE(fp8.peakFlopsPerSecond, 1978.9e12);
    // Forward, 8 micro-batches of 4096 tokens: the blocks' linear matmuls 2 x 32 x
    // 202,375,168 = 12,952,010,752 FLOPs per token (the norms' 2 x 32 x 8,192
    // multiply-adds count as matmul, as 6N does: 524,288 more) move from the BF16 rate to
    // the FP8 rate; the head, attention and the memory-bound kernels keep their times
    // (every matmul here is compute-bound: far above the roofline's ridge).
    const double tokens = 8.0 * 4096;
    const double linear = 12'952'010'752.0 + 524'288.0;
    const double expected =
        bf16.forwardSeconds - tokens * linear * (1 / (989.4e12 * 0.5) - 1 / (1978.9e12 * 0.5));
    QVERIFY2(
        std::abs(fp8.forwardSeconds - expected) < 1e-9 * expected,
        qPrintable(QStringLiteral("%1 s, expected %2 s").arg(fp8.forwardSeconds).arg(expected)));
    QVERIFY(fp8.stepSeconds < bf16.stepSeconds);
    // 1-byte activations already ran everything at the FP8 peak; the recipe keeps that.
    Scenario oneByte = s;
    oneByte.training.activationBytes = 1;
    oneByte.training.fp8 = Fp8Recipe::Off;
    Scenario oneByteFp8 = oneByte;
    oneByteFp8.training.fp8 = Fp8Recipe::Delayed;
    QCOMPARE(stepTime(oneByteFp8, estimated(oneByteFp8)).forwardSeconds,
             stepTime(oneByte, estimated(oneByte)).forwardSeconds);
}

void TestFp8::activationOffloadLlama2_7b()
{
    // Llama 2 7B on 8 GPUs, ZeRO-1, s = 4096, b = 1, no recomputation: each block keeps
    // 539,492,352 bytes (savedLinearInputsInFp8 writes it out). Offloading all but the
    // last two of the 32 blocks (TE's num_layers = 30 of model_layers = 32):
    //   before: 32 x 539,492,352 = 17,263,755,264 bytes of block activations
    //   after:   2 x 539,492,352 =  1,078,984,704 on the GPU
    //   host:   30 x 539,492,352 = 16,184,770,560 per GPU, x 8 GPUs per node =
    //           129,478,164,480 bytes of host RAM per node.
    Scenario s = llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off);
    const MemoryReport before = estimated(s);
    s.training.activationOffload = true;
    const MemoryReport after = estimated(s);
    QCOMPARE(before.groups[0].activations.layers, std::int64_t(17'263'755'264));
    QCOMPARE(after.groups[0].activations.layers, std::int64_t(1'078'984'704));
    QCOMPARE(after.groups[0].chunkActivationBytes, std::int64_t(1'078'984'704));
    QCOMPARE(after.groups[0].hostBytes, std::int64_t(16'184'770'560));
    QCOMPARE(before.hostBytesPerNode, std::int64_t(0));
    QCOMPARE(after.hostBytesPerNode, std::int64_t(129'478'164'480));
    QVERIFY(after.hostFits()); // a DGX H100's 2 TB
    // Everything else stays: the drop in activations is the offloaded bytes.
    QCOMPARE(before.groups[0].bytes.activations - after.groups[0].bytes.activations,
             std::int64_t(16'184'770'560));
    QCOMPARE(before.groups[0].bytes.modelStates(), after.groups[0].bytes.modelStates());
    QVERIFY(hasNoteStartingWith(after, "Activation offload:"));
    // With the optimizer offloaded too, host RAM holds both: ZeRO-1 moves the master
    // weights and Adam states, 12 x 6,738,415,616 / 8 = 10,107,623,424 bytes per GPU.
    s.layout.offload = Offload::Optimizer;
    QCOMPARE(estimated(s).groups[0].hostBytes, std::int64_t(16'184'770'560 + 10'107'623'424));
    // A node with less host RAM than that no longer fits.
    s.layout.offload = Offload::None;
    s.overheads.hostRamBytesPerNode = 100'000'000'000;
    QVERIFY(!estimated(s).hostFits());
}

void TestFp8::activationOffloadWithFullRecompute()
{
    // Full recomputation keeps each block's input, 4096 x 4096 x 2 = 33,554,432 bytes:
    // 30 of them go to host (1,006,632,960), 2 stay (67,108,864).
    Scenario s = llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off);
    s.training.recompute = Recompute::Full;
    s.training.activationOffload = true;
    const MemoryReport r = estimated(s);
    QCOMPARE(r.groups[0].activations.layers, std::int64_t(67'108'864));
    QCOMPARE(r.groups[0].hostBytes, std::int64_t(1'006'632'960));
}

void TestFp8::activationOffloadNeedsOnePipelineStage()
{
    Scenario s = llama7b(8, ZeroStage::Zero1, Fp8Recipe::Off);
    s.layout.pipelineParallel = 2;
    s.training.activationOffload = true;
    QCOMPARE(validate(s), std::string("activation offload is modelled without pipeline "
                                      "parallelism (p = 1), as Megatron-Core allows it"));
    Scenario plain = test::plainModelStates(7'000'000'000, 8, ZeroStage::Zero1);
    plain.training.activationOffload = true;
    QCOMPARE(validate(plain), std::string("activation offload needs the model's architecture (a "
                                          "plain parameter count has no layers)"));
}

QTEST_APPLESS_MAIN(TestFp8)
#include "test_fp8.moc"
