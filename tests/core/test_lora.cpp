// LoRA and QLoRA fine-tuning (docs/frameworks.md): adapter counts (Hu et al. 2021, PEFT's
// LoRA layer: lora_A r x in, lora_B out x r), frozen-base bytes per format (QLoRA,
// Dettmers et al. 2023, section 3; bitsandbytes), the QLoRA paper's two claims, and its
// paged optimizer (bitsandbytes' paged AdamW).
#include "estimate.h"
#include "estimate/activationstage.h"
#include "settings.h"
#include "testscenarios.h"

#include <QTest>
#include <algorithm>

using namespace shardscope;

namespace {

using test::llama2_7b;
using test::llama33b;
using test::llama3_70b;
using test::llama65b;

constexpr qint64 P7 = 6738415616LL;

Scenario oneGpu(const Architecture &a, int rank, int targets, BaseFormat format)
{
    Scenario s = test::onH100s(a, 1);
    s.fineTuning.loraRank = rank;
    s.fineTuning.loraTargets = targets;
    s.fineTuning.baseFormat = format;
    return s;
}

/// The QLoRA paper's setup (section 4 and Appendix: r = 64 on all linear layers, NF4 with
/// double quantization, bf16 compute; the qlora repository casts the LoRA modules to
/// bf16 and uses paged 32-bit AdamW): adapters bf16 weights (2) and gradients (2), no
/// master copy, fp32 Adam moments (8); LoRA dropout (0.05 for 33B and 65B,
/// scripts/finetune_guanaco_65b.sh line 41). Gradient checkpointing (full
/// recomputation), micro-batch 1 of 512 tokens, the default 512 MiB CUDA context and 5%
/// reserve. The paged optimizer is left to each test.
Scenario qlora(const Architecture &a, std::int64_t capacityBytes)
{
    Scenario s = oneGpu(a, 64, LoraAllLinear, BaseFormat::Nf4);
    s.fineTuning.loraDropout = true;
    s.recipe.masterWeightBytes = 0;
    s.gpu.capacityBytes = capacityBytes;
    s.training.microBatchSize = 1;
    s.training.sequenceLength = 512;
    s.training.microBatches = 1;
    s.training.recompute = Recompute::Full;
    return s;
}

} // namespace

class TestLora : public QObject
{
    Q_OBJECT
private slots:
    void llama7bRank8OnQAndV();
    void noteSaysWhatTravels();
    void allLinearCount();
    void targetsSetting();
    void frozenMatrixBytesPerFormat();
    void bf16BaseModelStates();
    void nf4BaseOfLlama7b();
    void fp32UnquantizedBase();
    void dequantizationWorkspace();
    void loraDropoutMasks();
    void offByDefault();
    void refusals();
    void rankAboveTheMatrixWidths();
    void qlora65bOnOne48GbGpu();
    void qlora33bOnOne24GbGpu();
    void pagedOptimizerMovesTheExcess();
    void pagedOptimizerKeepsSmallAdapters();
};

void TestLora::rankAboveTheMatrixWidths()
{
    // Review finding F11: a rank above min(in, out) of a targeted matrix trained
    // more parameters than the model has (qwen2.5-72b at rank 65536: 134.2B of 72.7B).
    // Llama 2 7B, q and v: both 4096 x 4096, so r <= 4096.
    QCOMPARE(loraRankLimit(llama2_7b(), LoraQ | LoraV), 4096LL);
    QVERIFY(estimate(oneGpu(llama2_7b(), 4096, LoraQ | LoraV, BaseFormat::Bf16)).valid());
    MemoryReport r = estimate(oneGpu(llama2_7b(), 4097, LoraQ | LoraV, BaseFormat::Bf16));
    QVERIFY(!r.valid());
    QCOMPARE(r.error, std::string("LoRA rank (4097) exceeds the narrowest targeted matrix (q, "
                                  "4096 wide): at most 4096"));
    // Llama 3 70B, all linear: k and v are 8192 x (8 KV heads x 128) = 8192 x 1024, the
    // narrowest, so r <= 1024; rank 65536 is refused instead of counting 2 x 65536 x
    // (8192 + 1024) parameters for k alone.
    const char *name = nullptr;
    QCOMPARE(loraRankLimit(llama3_70b(), LoraAllLinear, &name), 1024LL);
    QCOMPARE(std::string(name), std::string("k"));
    r = estimate(oneGpu(llama3_70b(), 65536, LoraAllLinear, BaseFormat::Bf16));
    QCOMPARE(r.error, std::string("LoRA rank (65536) exceeds the narrowest targeted matrix (k, "
                                  "1024 wide): at most 1024"));
}

void TestLora::llama7bRank8OnQAndV()
{
    // 32 layers x 2 matrices x 8 x (4096 + 4096) = 4,194,304 (docs/frameworks.md; PEFT prints
    // "trainable params: 4,194,304" for this LoraConfig).
    QCOMPARE(qint64(loraLayerParameterCount(llama2_7b(), 8, LoraQ | LoraV)), 131072LL);
    const MemoryReport r = estimate(oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16));
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.trainableParameters), 4194304LL);
    QCOMPARE(qint64(r.parameters), P7);
}

void TestLora::noteSaysWhatTravels()
{
    // Llama 2 7B, rank 8 on q and v, on 8 GPUs, one micro-batch. ZeRO-2: only the
    // 4,194,304 adapters' bf16 gradients are reduced, a ring's 2 x 7/8 of 8,388,608 bytes =
    // 14,680,064, and the note says so (it said "every parameter" before a new user's pass
    // measured the traffic against it). ZeRO-3 gathers the frozen base too.
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16);
    s.layout.gpus = 8;
    s.layout.zeroStage = ZeroStage::Zero2;
    s.training.microBatches = 1;
    const auto loraNote = [](const MemoryReport &r) {
        for (const std::string &n : r.notes)
            if (n.rfind("LoRA rank 8: ", 0) == 0)
                return QString::fromStdString(n);
        return QString();
    };
    const MemoryReport z2 = estimate(s);
    QVERIFY2(z2.valid(), z2.error.c_str());
    QCOMPARE(qint64(z2.groups[0].communication.dataParallel), 14680064LL);
    QVERIFY2(loraNote(z2).endsWith("(data-parallel traffic: the adapters' gradients only)."),
             qPrintable(loraNote(z2)));
    s.layout.zeroStage = ZeroStage::Zero3;
    const MemoryReport z3 = estimate(s);
    // The bf16 base gathered for the forward and the backward, 2 x 7/8 x 2 x 6,738,415,616
    // = 23,584,454,656, and the adapters' gather, gather and reduce-scatter, 3 x 7/8 x 2 x
    // 4,194,304 = 22,020,096: 23,606,474,752.
    QCOMPARE(qint64(z3.groups[0].communication.dataParallel), 23606474752LL);
    QVERIFY2(loraNote(z3).endsWith("and the frozen base gathered for each forward and backward "
                                   "under ZeRO-3)."),
             qPrintable(loraNote(z3)));
}

void TestLora::allLinearCount()
{
    // Rank 16 on all seven: 16 x [4 x (4096 + 4096) + 2 x (4096 + 11008) + (11008 + 4096)]
    // = 16 x 78,080 = 1,249,280 per block; x 32 = 39,976,960.
    QCOMPARE(qint64(loraLayerParameterCount(llama2_7b(), 16, LoraAllLinear)), 1249280LL);
    QCOMPARE(
        qint64(
            estimate(oneGpu(llama2_7b(), 16, LoraAllLinear, BaseFormat::Bf16)).trainableParameters),
        39976960LL);
}

void TestLora::targetsSetting()
{
    const Setting *t = settingByKey("lora_targets");
    QVERIFY(t);
    std::string error;
    QCOMPARE(parseSettingText(*t, "q,v", &error).value_or(-1), qint64(LoraQ | LoraV));
    QCOMPARE(parseSettingText(*t, "v_proj, q_proj", &error).value_or(-1), qint64(LoraQ | LoraV));
    QCOMPARE(parseSettingText(*t, "all-linear", &error).value_or(-1), qint64(LoraAllLinear));
    QCOMPARE(settingText(*t, LoraQ | LoraK | LoraV | LoraO), std::string("q,k,v,o"));
    QVERIFY(!parseSettingText(*t, "q,x", &error));
    QCOMPARE(QString::fromStdString(error),
             QStringLiteral("unknown lora targets 'q,x' (known: a comma list of q, k, v, o, "
                            "gate, up, down, or all-linear)"));
}

void TestLora::frozenMatrixBytesPerFormat()
{
    // One 4096 x 4096 matrix, 16,777,216 weights.
    const std::int64_t n = 4096LL * 4096;
    QCOMPARE(qint64(frozenMatrixBytes(BaseFormat::Bf16, n, 4096)), 2 * 16777216LL);
    // LLM.int8: 1 byte per weight + an fp32 scale per row: 16,777,216 + 16,384.
    QCOMPARE(qint64(frozenMatrixBytes(BaseFormat::Int8, n, 4096)), 16793600LL);
    // NF4 + double quantization (QLoRA section 3): 8,388,608 (4 bits) + 262,144 blocks of
    // 64 x 1 byte (8-bit absmax) + ceil(262,144 / 256) = 1,024 fp32 scales x 4 = 8,654,848
    // bytes: 4.127 bits per weight, the paper's 0.127 bits of constants. bitsandbytes'
    // quant state adds 1,092 bytes per matrix (functional.py: the 16-entry fp32 NF4 code,
    // 64; the fp32 absmax offset, 4; the nested state's copy of the 256-entry fp32
    // dynamic code, 1,024): 8,655,940.
    QCOMPARE(qint64(nf4QuantStateBytes), 1092LL);
    QCOMPARE(qint64(frozenMatrixBytes(BaseFormat::Nf4, n, 4096)), 8654848LL + 1092);
    QCOMPARE(8654848.0 * 8 / double(n) - 4.0, 0.126953125);
}

void TestLora::bf16BaseModelStates()
{
    // Frozen bf16 base 2 P; adapters 4,194,304 x (2 + 2 + 4 + 8) = 67,108,864.
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16);
    s.modelStatesOnly = true;
    const GpuGroup g = estimate(s).groups[0];
    QCOMPARE(qint64(g.bytes.weights), 2 * P7 + 2 * 4194304LL);
    QCOMPARE(qint64(g.bytes.gradients), 2 * 4194304LL);
    QCOMPARE(qint64(g.bytes.masterWeights), 4 * 4194304LL);
    QCOMPARE(qint64(g.bytes.optimizerStates), 8 * 4194304LL);
    QCOMPARE(qint64(g.parametersPerGpu), P7);
}

void TestLora::nf4BaseOfLlama7b()
{
    // Per block: q, k, v, o (4096 x 4096) 4 x 8,655,940 = 34,623,760; gate, up, down
    // (45,088,768 weights each): 22,544,384 + 704,512 + 4 x 2,752 + 1,092 = 23,260,996,
    // x 3 = 69,782,988; the block 104,406,748, x 32 = 3,341,015,936. Embedding, head and
    // the 65 norms stay bf16: (2 x 131,072,000 + 266,240) x 2 = 524,820,480. Base
    // 3,865,836,416.
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Nf4);
    s.modelStatesOnly = true;
    const GpuGroup g = estimate(s).groups[0];
    QCOMPARE(qint64(g.bytes.weights), 3865836416LL + 2 * 4194304LL);
    QCOMPARE(qint64(g.bytes.modelStates()), 3865836416LL + 16 * 4194304LL);
}

void TestLora::fp32UnquantizedBase()
{
    // PEFT's prepare_model_for_kbit_training (src/peft/utils/other.py lines 204-209)
    // casts every bf16 parameter that is not Params4bit to fp32: Llama 2 7B's embedding,
    // head and 65 norms, 2 x 131,072,000 + 266,240 = 262,410,240 parameters, take 4 bytes
    // instead of 2: 524,820,480 bytes more than nf4BaseOfLlama7b's 3,865,836,416.
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Nf4);
    s.modelStatesOnly = true;
    s.fineTuning.fp32Unquantized = true;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.weights),
             3865836416LL + 524820480LL + 2 * 4194304LL);
    // A bf16 base is not loaded in k-bit: nothing to prepare, 2 P.
    s.fineTuning.baseFormat = BaseFormat::Bf16;
    QCOMPARE(qint64(estimate(s).groups[0].bytes.weights), 2 * P7 + 2 * 4194304LL);
}

void TestLora::dequantizationWorkspace()
{
    // bitsandbytes multiplies with a dequantized copy of the whole weight (cuda/ops.py
    // _dequant_linear_fallback, lines 904-916; MatMul4Bit.backward, line 384): Llama 2
    // 7B's largest matrix, gate/up/down, 4096 x 11008 = 45,088,768 weights: in bf16
    // 90,177,536 bytes plus its absmax in fp32, 4 x 704,512 = 2,818,048: 92,995,584.
    // LLM.int8 builds the bf16 weight for the input gradient (MatMul8bitLt, line 237):
    // 90,177,536. A bf16 base multiplies with its own weights: 0.
    QCOMPARE(qint64(largestLinearElements(llama2_7b())), 45088768LL);
    QCOMPARE(qint64(dequantizationWorkspaceBytes(BaseFormat::Nf4, 45088768, 2)), 92995584LL);
    QCOMPARE(qint64(dequantizationWorkspaceBytes(BaseFormat::Int8, 45088768, 2)), 90177536LL);
    QCOMPARE(qint64(dequantizationWorkspaceBytes(BaseFormat::Bf16, 45088768, 2)), 0LL);
    // In a block's backward working set, on top of what recomputation rebuilds: the nf4
    // base's working set exceeds the bf16 base's by exactly that.
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16);
    const qint64 bf16 = qint64(estimate(s).groups[0].activations.workingSet);
    s.fineTuning.baseFormat = BaseFormat::Nf4;
    QCOMPARE(qint64(estimate(s).groups[0].activations.workingSet), bf16 + 92995584LL);
}

void TestLora::loraDropoutMasks()
{
    // PEFT: lora_B(lora_A(dropout(x))) (src/peft/tuners/lora/layer.py line 1063), an
    // nn.Dropout per adapted matrix when lora_dropout > 0 (lines 255-258): its bool mask
    // (1 byte) and its output, saved by lora_A (2 bytes in bf16). Llama 2 7B, r 8 on q
    // and v (inputs 4096 + 4096 = 8,192 per token), one sequence of 4,096 tokens, no
    // recomputation: 4,096 x 8,192 x 3 = 100,663,296 bytes a block, x 32 blocks =
    // 3,221,225,472.
    QCOMPARE(qint64(loraInputElements(llama2_7b(), LoraQ | LoraV)), 8192LL);
    QCOMPARE(qint64(loraInputElements(llama2_7b(), LoraO | LoraDown)), 4096LL + 11008);
    QCOMPARE(qint64(stages::loraDropoutBytes(4096, 8192, 2)), 100663296LL);
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16);
    s.training.microBatchSize = 1;
    s.training.sequenceLength = 4096;
    s.training.recompute = Recompute::None;
    const qint64 without = qint64(estimate(s).groups[0].activations.layers);
    s.fineTuning.loraDropout = true;
    QCOMPARE(qint64(estimate(s).groups[0].activations.layers), without + 3221225472LL);
    // Under full recomputation the masks are rebuilt with their block: one block's worth
    // in the working set.
    s.training.recompute = Recompute::Full;
    const qint64 full = qint64(estimate(s).groups[0].activations.workingSet);
    s.fineTuning.loraDropout = false;
    QCOMPARE(qint64(estimate(s).groups[0].activations.workingSet), full - 100663296LL);
}

void TestLora::offByDefault()
{
    Scenario s = oneGpu(llama2_7b(), 0, LoraQ | LoraV, BaseFormat::Bf16);
    const MemoryReport r = estimate(s);
    QCOMPARE(qint64(r.trainableParameters), P7);
    QCOMPARE(Scenario().fineTuning.loraRank, 0);
}

void TestLora::refusals()
{
    Scenario s = oneGpu(llama2_7b(), 0, LoraQ | LoraV, BaseFormat::Nf4);
    QCOMPARE(QString::fromStdString(validate(s)),
             QStringLiteral("base format nf4 is for a frozen base: set a LoRA rank"));
    s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Nf4);
    s.layout.gpus = 2;
    s.layout.tensorParallel = 2;
    QCOMPARE(QString::fromStdString(validate(s)),
             QStringLiteral("LoRA is modelled without tensor parallelism (t = 1)"));
    s = oneGpu(llama2_7b(), 8, 0, BaseFormat::Nf4);
    QCOMPARE(QString::fromStdString(validate(s)),
             QStringLiteral("LoRA targets must name at least one of q, k, v, o, gate, up, down"));
}

void TestLora::qlora65bOnOne48GbGpu()
{
    // QLoRA (Dettmers et al. 2023), abstract and section 1: "finetune a 65B parameter
    // model on a single 48GB GPU". Taken as 48e9 bytes, below the 48 GiB of an RTX A6000.
    // The engine's peak is 48.17e9 bytes: 799,539,200 adapter parameters; NF4 base (with
    // bitsandbytes' quant states) and bf16 adapters 36.06e9, adapter gradients 1.60e9 and
    // Adam moments 6.40e9, activations 1.29e9 (LoRA dropout's masks and inputs and the
    // dequantized 8192 x 22016 weight in the working set), CUDA context and the 5% reserve
    // 2.83e9: 0.17e9 over, which the paper's paged optimizer (section 3) moves to host
    // RAM, so it fits as the paper ran it.
    Scenario s = qlora(llama65b(), 48'000'000'000);
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.parameters), 65285660672LL);
    QCOMPARE(qint64(r.trainableParameters), 799539200LL);
    QVERIFY2(!r.fits(), qPrintable(QString::number(double(r.peakBytes()) / 1e9)));
    s.training.pagedOptimizer = true;
    const MemoryReport paged = estimate(s);
    QVERIFY2(paged.fits(), qPrintable(QString::number(double(paged.hostBytesPerNode) / 1e9)));
    // Without quantization the bf16 base alone (130.6 GB) does not.
    Scenario bf16 = qlora(llama65b(), 48'000'000'000);
    bf16.fineTuning.baseFormat = BaseFormat::Bf16;
    QVERIFY(!estimate(bf16).fits());
}

void TestLora::qlora33bOnOne24GbGpu()
{
    // QLoRA section 1: Guanaco 33B "can be trained on 24 GB consumer GPUs", the RTX 3090 /
    // 4090, whose 24 GB are 24 GiB = 25,769,803,776 bytes (24,576 MiB of GDDR6X). The
    // engine's peak is 25.89e9 bytes: NF4 base and bf16 adapters 18.39e9, adapter
    // gradients 0.98e9 and Adam moments 3.90e9, activations 0.85e9 (with LoRA dropout and
    // the dequantized weight; the 512 tokens' final norm and logits, 79,167,488 bytes,
    // are freed before a block is recomputed), CUDA context and the 5% reserve 1.77e9:
    // 0.12e9 over, which
    // the paper's paged optimizer moves to host RAM (on 24e9 bytes too:
    // pagedOptimizerMovesTheExcess).
    Scenario s = qlora(llama33b(), 24LL * 1024 * 1024 * 1024);
    const MemoryReport r = estimate(s);
    QVERIFY2(r.valid(), r.error.c_str());
    QCOMPARE(qint64(r.parameters), 32528943616LL);
    QVERIFY2(!r.fits(), qPrintable(QString::number(double(r.peakBytes()) / 1e9)));
    s.training.pagedOptimizer = true;
    const MemoryReport paged = estimate(s);
    QVERIFY2(paged.fits(), qPrintable(QString::number(double(paged.hostBytesPerNode) / 1e9)));
}

void TestLora::pagedOptimizerMovesTheExcess()
{
    // QLoRA section 3, "Paged Optimizers": the optimizer states live in CUDA unified
    // memory and are evicted to CPU RAM when the GPU runs out. Guanaco 33B on a card of
    // 24e9 bytes: the engine's peak is 25.89e9 bytes (qlora33bOnOne24GbGpu), over it by
    // 1,889,253,348. Every adapter matrix has at least 64 x 6,656 = 425,984 >= 100,000
    // elements, so all 487,587,840 x 8 = 3,900,702,720 bytes of Adam moments may page;
    // the excess moves to host RAM and the GPU holds exactly its capacity.
    constexpr qint64 capacity = 24'000'000'000LL;
    Scenario s = qlora(llama33b(), capacity);
    const MemoryReport without = estimate(s);
    QVERIFY(!without.fits());
    const qint64 over = qint64(without.peakBytes()) - capacity;
    QCOMPARE(over, 1'889'253'348LL);
    QCOMPARE(qint64(without.groups[0].bytes.optimizerStates), 3900702720LL);

    s.training.pagedOptimizer = true;
    const MemoryReport paged = estimate(s);
    QVERIFY2(paged.valid(), paged.error.c_str());
    QCOMPARE(qint64(paged.peakBytes()), capacity);
    QVERIFY(paged.fits());
    QCOMPARE(qint64(paged.groups[0].bytes.optimizerStates), 3900702720LL - over);
    QCOMPARE(qint64(paged.groups[0].hostBytes), over);
    QCOMPARE(qint64(paged.hostBytesPerNode), over); // one GPU in the node
    const auto &notes = paged.notes;
    QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string &n) {
        return n.rfind("Paged optimizer: 1.89 GB", 0) == 0;
    }));
    // On a card where it fits, nothing moves and the numbers are those without paging.
    s.gpu.capacityBytes = 32'000'000'000LL;
    const MemoryReport roomy = estimate(s);
    QCOMPARE(qint64(roomy.peakBytes()), qint64(without.peakBytes()));
    QCOMPARE(qint64(roomy.hostBytesPerNode), 0LL);
}

void TestLora::pagedOptimizerKeepsSmallAdapters()
{
    // bitsandbytes pages only tensors of at least 1e5 elements (optimizer.py,
    // get_state_buffer). Llama 2 7B, rank 8 on q and v: lora_A 8 x 4,096 and lora_B
    // 4,096 x 8 are 32,768 elements each, so none pages; at rank 32 each is 131,072 and
    // all do. Counted with the threshold: 0 and 2 x 2 x 131,072 = 524,288 per block.
    QCOMPARE(
        qint64(loraLayerParameterCount(llama2_7b(), 8, LoraQ | LoraV, pagedOptimizerMinElements)),
        0LL);
    QCOMPARE(
        qint64(loraLayerParameterCount(llama2_7b(), 32, LoraQ | LoraV, pagedOptimizerMinElements)),
        524288LL);
    Scenario s = oneGpu(llama2_7b(), 8, LoraQ | LoraV, BaseFormat::Bf16);
    s.gpu.capacityBytes = 10'000'000'000LL; // the bf16 base alone is 13.5 GB
    s.training.pagedOptimizer = true;
    const MemoryReport r = estimate(s);
    QVERIFY(!r.fits());
    QCOMPARE(qint64(r.groups[0].bytes.optimizerStates), 8 * 4194304LL);
    QCOMPARE(qint64(r.hostBytesPerNode), 0LL);
    QVERIFY(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string &n) {
        return n.rfind("Paged optimizer: nothing to page", 0) == 0;
    }));
}

QTEST_APPLESS_MAIN(TestLora)
#include "test_lora.moc"
