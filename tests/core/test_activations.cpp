// Activation bytes per GPU (Korthikanti et al. 2022; docs/activations.md).
// Source: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", arXiv:2205.05198, section 4.1 (per-tensor breakdown) and
// Table 2 (closed formulas). Each test names its source; hand calculations are
// written out next to the numbers.
#include "activations.h"
#include "framework.h"
#include "testscenarios.h"

#include <QTest>
#include <random>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Architecture)
Q_DECLARE_METATYPE(shardscope::ActivationSettings)

namespace {

// The models (GPT-3 175B, Brown et al. 2020, Table 2.1; Llama 3 8B and 70B, config.json)
// come from testscenarios.h.

// The paper's assumptions: s 2048, b 1, 16-bit activations, 1-byte dropout masks,
// attention scores materialised (no FlashAttention).
ActivationSettings paper(int t, bool sp, Recompute r)
{
    ActivationSettings s;
    s.microBatchSize = 1;
    s.sequenceLength = 2048;
    s.tensorParallel = t;
    s.sequenceParallel = sp;
    s.recompute = r;
    s.flashAttention = false;
    s.dropout = true;
    s.activationBytes = 2;
    return s;
}

// torchtitan's op-level selective recomputation (SelectivePolicy::OpLevel) at sequence
// length `sequence` on `t` tensor ranks, ActivationSettings' defaults otherwise.
ActivationSettings opLevel(std::int64_t sequence, int t = 1)
{
    ActivationSettings s;
    s.sequenceLength = sequence;
    s.tensorParallel = t;
    s.recompute = Recompute::Selective;
    s.selective = SelectivePolicy::OpLevel;
    return s;
}

// Korthikanti et al. Table 2, evaluated exactly in integers for the GPT-3 shape
// (every division below is exact for s 2048, h 12288, a 96, t in {1, 8}).
qint64 table2(qint64 s, qint64 b, qint64 h, qint64 a, qint64 t, bool sp, Recompute r)
{
    const qint64 sbh = s * b * h;
    const qint64 scores = 5 * a * s * s * b; // s b h (5 a s / h)
    switch (r) {
    case Recompute::None:
        // sbh (34 + 5as/h) / t with SP; sbh (10 + 24/t + 5as/(ht)) without.
        return sp ? (34 * sbh + scores) / t : 10 * sbh + (24 * sbh + scores) / t;
    case Recompute::Selective:
        // sbh 34 / t with SP; sbh (10 + 24/t) without.
        return sp ? 34 * sbh / t : 10 * sbh + 24 * sbh / t;
    case Recompute::Full:
        // 2 sbh: the layer input only (the SP shard of it with SP).
        return sp ? 2 * sbh / t : 2 * sbh;
    }
    return -1;
}

qint64 layerBytes(const Architecture &a, const ActivationSettings &s)
{
    return qint64(layerActivationBytes(a, s));
}

} // namespace

class TestActivations : public QObject
{
    Q_OBJECT
private slots:
    void recomputeIds();
    void gpt3Table2_data();
    void gpt3Table2();
    void gpt3TermsSection41();
    void paperReductionClaims();
    void llama3_8b();
    void llama3_70b();
    void torchtitanOpLevelSelective();
    void torchtitanOpLevelSelectiveTensorParallel();
    void torchtitanOpLevelSelectiveFallsBack();
    void flashAttentionRemovesScores();
    void contextParallelSplitsEverything();
    void logits();
    void lossBackward();
    void eagerRmsNorm();
    void embeddingDropoutMask();
    void dtypeScalesStoredTensors();
    void randomMonotonic();
    void invalidSettings_data();
    void invalidSettings();
};

void TestActivations::recomputeIds()
{
    for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
        QCOMPARE(parseRecompute(recomputeId(r)), std::optional<Recompute>(r));
    QCOMPARE(recomputeId(Recompute::Selective), std::string_view("selective"));
    QVERIFY(!parseRecompute("Full").has_value());
    QVERIFY(!parseRecompute("").has_value());
}

void TestActivations::gpt3Table2_data()
{
    QTest::addColumn<int>("t");
    QTest::addColumn<bool>("sp");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<qint64>("expected");
    // Hand values, sbh = 2048 x 12288 = 25,165,824 and 5as/h = 5 x 96 x 2048 / 12288 = 80:
    const int none = int(Recompute::None), sel = int(Recompute::Selective),
              full = int(Recompute::Full);
    // sbh (34 + 80) = 114 sbh
    QTest::newRow("no parallelism (Table 2 row 1)") << 1 << false << none << 2'868'903'936LL;
    // sbh (10 + 24/8 + 80/8) = 23 sbh
    QTest::newRow("TP 8 (Table 2, tensor parallel)") << 8 << false << none << 578'813'952LL;
    // sbh (34 + 80) / 8 = 14.25 sbh
    QTest::newRow("TP 8 + SP (Table 2)") << 8 << true << none << 358'612'992LL;
    // sbh (10 + 24/8) = 13 sbh
    QTest::newRow("TP 8 + selective (Table 2)") << 8 << false << sel << 327'155'712LL;
    // sbh 34 / 8 = 4.25 sbh
    QTest::newRow("TP 8 + SP + selective (Table 2)") << 8 << true << sel << 106'954'752LL;
    // 2 sbh
    QTest::newRow("full recompute (Table 2)") << 8 << false << full << 50'331'648LL;
    // 2 sbh / 8
    QTest::newRow("full recompute + SP") << 8 << true << full << 6'291'456LL;
    // 34 sbh
    QTest::newRow("selective, no parallelism") << 1 << true << sel << 855'638'016LL;
    QTest::newRow("full, no parallelism") << 1 << true << full << 50'331'648LL;
}

void TestActivations::gpt3Table2()
{
    QFETCH(int, t);
    QFETCH(bool, sp);
    QFETCH(int, recompute);
    QFETCH(qint64, expected);
    const Recompute r = Recompute(recompute);
    const ActivationSettings s = paper(t, sp, r);
    QCOMPARE(QString::fromStdString(validateActivationSettings(test::gpt3_175b(), s)), QString());
    QCOMPARE(table2(2048, 1, 12288, 96, t, sp, r), expected);
    QCOMPARE(layerBytes(test::gpt3_175b(), s), expected);
}

void TestActivations::gpt3TermsSection41()
{
    // Korthikanti et al. section 4.1, per tensor, in units of sbh = 25,165,824 bytes:
    // attention block 11 sbh + 5 a s^2 b, MLP 19 sbh, two LayerNorms 4 sbh.
    const qint64 sbh = 2048LL * 12288;
    const qint64 as2b = 96LL * 2048 * 2048;
    const LayerActivationTerms x =
        layerActivationTerms(test::gpt3_175b(), paper(1, true, Recompute::None));
    QCOMPARE(qint64(x.qkvInput), 2 * sbh);              // QKV input
    QCOMPARE(qint64(x.query + x.key), 4 * sbh);         // QK^T inputs
    QCOMPARE(qint64(x.softmaxOutput), 2 * as2b);        // softmax output
    QCOMPARE(qint64(x.softmaxDropoutMask), as2b);       // softmax dropout mask
    QCOMPARE(qint64(x.softmaxDropoutOutput), 2 * as2b); // attention over values: dropout out
    QCOMPARE(qint64(x.value), 2 * sbh);                 // ... and V
    QCOMPARE(qint64(x.projectionInput), 2 * sbh);       // linear projection input
    QCOMPARE(qint64(x.attentionDropoutMask), sbh);      // attention dropout mask
    QCOMPARE(qint64(x.mlpInput), 2 * sbh);              // first MLP linear input
    QCOMPARE(qint64(x.upOutput), 8 * sbh);              // GeLU input
    QCOMPARE(qint64(x.downInput), 8 * sbh);             // second MLP linear input
    QCOMPARE(qint64(x.gateOutput), 0LL);                // no gate in a GELU MLP
    QCOMPARE(qint64(x.mlpDropoutMask), sbh);            // MLP dropout mask
    QCOMPARE(qint64(x.attentionNormInput + x.mlpNormInput), 4 * sbh); // LayerNorms
    QCOMPARE(qint64(x.softmaxStatistics), 0LL);
    QCOMPARE(qint64(x.layerInput), 0LL);
    const qint64 attention = x.qkvInput + x.query + x.key + x.value + x.softmaxOutput +
                             x.softmaxDropoutMask + x.softmaxDropoutOutput + x.projectionInput +
                             x.attentionDropoutMask;
    QCOMPARE(attention, 11 * sbh + 5 * as2b);
    QCOMPARE(qint64(x.mlpInput + x.upOutput + x.downInput + x.mlpDropoutMask), 19 * sbh);
    QCOMPARE(qint64(x.total()), 34 * sbh + 5 * as2b);

    // Section 4.2.2 split with t = 8, no SP: the norm/dropout region (10 sbh) stays whole,
    // the rest (24 sbh + 5as^2 b) is split.
    const LayerActivationTerms y =
        layerActivationTerms(test::gpt3_175b(), paper(8, false, Recompute::None));
    QCOMPARE(qint64(y.attentionNormInput + y.qkvInput + y.attentionDropoutMask + y.mlpNormInput +
                    y.mlpInput + y.mlpDropoutMask),
             10 * sbh);
    QCOMPARE(qint64(y.query + y.key + y.value + y.projectionInput + y.upOutput + y.downInput),
             24 * sbh / 8);
}

void TestActivations::paperReductionClaims()
{
    const qint64 baseline = layerBytes(test::gpt3_175b(), paper(8, false, Recompute::None));
    const qint64 both = layerBytes(test::gpt3_175b(), paper(8, true, Recompute::Selective));
    // Abstract: sequence parallelism + selective recomputation "reduces activation memory
    // by 5x" against the tensor-parallel baseline. GPT-3, t = 8: 23 sbh / 4.25 sbh = 5.41.
    QCOMPARE(baseline * 425, both * 2300);
    QVERIFY(baseline >= 5 * both && baseline < 6 * both);
    // Section 4.2: for GPT-3, selective recomputation removes the 5as/h = 80 part of
    // 34 + 80, i.e. 80/114 = 70% of the activation memory (the paper's "70%", quoted
    // from memory: only the abstract is in the stored copies).
    const qint64 none = layerBytes(test::gpt3_175b(), paper(1, false, Recompute::None));
    const qint64 selective = layerBytes(test::gpt3_175b(), paper(1, false, Recompute::Selective));
    QCOMPARE((none - selective) * 114, none * 80);
}

void TestActivations::llama3_8b()
{
    // Llama 3 8B (h 4096, ffn 14336, 32 heads, 8 kv heads, d 128), s 8192, b 1, bf16,
    // FlashAttention, no dropout, t = c = 1. Hand calculation, per tensor:
    //   s b h e   = 8192 x 4096 x 2  =  67,108,864  x 6 (norm 1 in/out, Q, projection
    //                                                  input, norm 2 in/out) = 402,653,184
    //   K, V      = 8192 x 1024 x 2  =  16,777,216  x 2                    =  33,554,432
    //   gate, up, down = 8192 x 14336 x 2 = 234,881,024 x 3                = 704,643,072
    //   softmax statistics = 4 x 32 x 8192                                 =   1,048,576
    //   total = 1,141,899,264 = 34 sbh + 4 a s b (34 again: 12 + 1 + 21 sbh).
    ActivationSettings s;
    s.sequenceLength = 8192;
    const LayerActivationTerms x = layerActivationTerms(test::llama3_8b(), s);
    QCOMPARE(qint64(x.query), 67'108'864LL);
    QCOMPARE(qint64(x.key), 16'777'216LL);
    QCOMPARE(qint64(x.value), 16'777'216LL);
    QCOMPARE(qint64(x.gateOutput), 234'881'024LL);
    QCOMPARE(qint64(x.upOutput), 234'881'024LL);
    QCOMPARE(qint64(x.downInput), 234'881'024LL);
    QCOMPARE(qint64(x.softmaxStatistics), 1'048'576LL);
    QCOMPARE(qint64(x.softmaxOutput + x.softmaxDropoutMask + x.softmaxDropoutOutput), 0LL);
    QCOMPARE(qint64(x.attentionDropoutMask + x.mlpDropoutMask), 0LL);
    QCOMPARE(qint64(x.total()), 1'141'899'264LL);
    QCOMPARE(layerBytes(test::llama3_8b(), s), 34LL * 8192 * 4096 + 4LL * 32 * 8192);
    // Selective drops the statistics; full keeps s b h e.
    s.recompute = Recompute::Selective;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 1'140'850'688LL);
    s.recompute = Recompute::Full;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 67'108'864LL);
}

void TestActivations::torchtitanOpLevelSelective()
{
    // torchtitan's op-level selective AC (Framework::Fsdp2 + Recompute::Selective):
    // torchtitan/models/llama/parallelize_llama.py lines 219-272 at 069bae2 save the
    // outputs of aten.mm, the flash SDPA kernel, reduce_scatter and max, except every
    // second mm (mm_count % 2 == 0). A Llama block's mms in forward order
    // (torchtitan/models/llama/model.py lines 191, 216, 255): wq 1, wk 2, wv 3, wo 4,
    // w1 5, w3 6, w2 7, so wq, wv, w1 and w2 are saved; wk, wo, w3 recomputed.
    // Llama 3 8B, s 8192, b 1, bf16, flash, t = c = 1. Hand calculation:
    //   block input (checkpoint input) 8192 x 4096 x 2            =  67,108,864
    //   wq output 8192 x 4096 x 2                                  =  67,108,864
    //   wv output 8192 x 1024 x 2                                  =  16,777,216
    //   w1 output 8192 x 14336 x 2                                 = 234,881,024
    //   w2 output 8192 x 4096 x 2                                  =  67,108,864
    //   SDPA output 8192 x 4096 x 2                                =  67,108,864
    //   SDPA logsumexp 4 x 32 x 8192                               =   1,048,576
    //   total 8192 x 63,616                                        = 521,142,272
    // against 1,140,850,688 for Megatron's selective (the same block, generic).
    ActivationSettings s = opLevel(8192);
    QVERIFY(opLevelSelective(test::llama3_8b(), s));
    const LayerActivationTerms x = layerActivationTerms(test::llama3_8b(), s);
    QCOMPARE(qint64(x.layerInput), 67'108'864LL);
    QCOMPARE(qint64(x.query), 67'108'864LL);
    QCOMPARE(qint64(x.key), 0LL);
    QCOMPARE(qint64(x.value), 16'777'216LL);
    QCOMPARE(qint64(x.projectionOutput), 0LL);
    QCOMPARE(qint64(x.gateOutput), 234'881'024LL);
    QCOMPARE(qint64(x.upOutput), 0LL);
    QCOMPARE(qint64(x.downOutput), 67'108'864LL);
    QCOMPARE(qint64(x.projectionInput), 67'108'864LL);
    QCOMPARE(qint64(x.softmaxStatistics), 1'048'576LL);
    QCOMPARE(qint64(x.attentionNormInput + x.qkvInput + x.mlpNormInput + x.mlpInput + x.downInput +
                    x.reduceScatterOutputs),
             0LL);
    QCOMPARE(qint64(x.total()), 521'142'272LL);
    // The other profiles keep Megatron's meaning; none and full ignore the framework.
    for (const Framework f : {Framework::Generic, Framework::DeepSpeed, Framework::Megatron}) {
        s.selective = frameworkProfile(f).selective;
        QVERIFY(!opLevelSelective(test::llama3_8b(), s));
        QCOMPARE(layerBytes(test::llama3_8b(), s), 1'140'850'688LL);
    }
    s.selective = SelectivePolicy::OpLevel;
    s.recompute = Recompute::None;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 1'141'899'264LL);
    s.recompute = Recompute::Full;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 67'108'864LL);

    // A GELU MLP has six mms (q, k, v, o, fc1, fc2): q, v and fc1 are saved. GPT-3 175B
    // (h 12288, 96 heads, ffn 49152), s 2048, flash:
    //   block input, wq, wv, SDPA output 4 x 2048 x 12288 x 2     = 201,326,592
    //   fc1 output 2048 x 49152 x 2                                = 201,326,592
    //   logsumexp 4 x 96 x 2048                                    =     786,432
    //   total                                                      = 403,439,616
    ActivationSettings g = opLevel(2048);
    const LayerActivationTerms y = layerActivationTerms(test::gpt3_175b(), g);
    QCOMPARE(qint64(y.upOutput), 201'326'592LL);
    QCOMPARE(qint64(y.gateOutput + y.downOutput + y.key + y.projectionOutput), 0LL);
    QCOMPARE(qint64(y.total()), 403'439'616LL);
    // Unfused attention: the SDPA math path is bmm and softmax, none in the save list, so
    // the attention output and the statistics are recomputed: 403,439,616 - 50,331,648
    // - 786,432.
    g.flashAttention = false;
    QCOMPARE(layerBytes(test::gpt3_175b(), g), 352'321'536LL);
}

void TestActivations::torchtitanOpLevelSelectiveTensorParallel()
{
    // Llama 3 70B (h 8192, ffn 28672, 64 heads, 8 kv heads), s 8192, b 1, t 8 with
    // sequence parallel (torchtitan's TP plan: wo and w2 RowwiseParallel with Shard(1)
    // outputs, so each is reduce-scattered, and reduce_scatter_tensor is in the save
    // list). Hand calculation:
    //   block input, norm region 1024 x 8192 x 2                   =  16,777,216
    //   wq output 8192 x (8 x 128) x 2                             =  16,777,216
    //   wv output 8192 x 128 x 2                                   =   2,097,152
    //   w1 output 8192 x 3584 x 2                                  =  58,720,256
    //   w2 output, h-wide partial sums 8192 x 8192 x 2             = 134,217,728
    //   SDPA output 8192 x 1024 x 2                                =  16,777,216
    //   logsumexp 4 x 8 x 8192                                     =     262,144
    //   two reduce_scatter outputs 2 x 1024 x 8192 x 2             =  33,554,432
    //   total                                                      = 279,183,360
    ActivationSettings s = opLevel(8192, 8);
    const LayerActivationTerms x = layerActivationTerms(test::llama3_70b(), s);
    QCOMPARE(qint64(x.layerInput), 16'777'216LL);
    QCOMPARE(qint64(x.downOutput), 134'217'728LL);
    QCOMPARE(qint64(x.reduceScatterOutputs), 33'554'432LL);
    QCOMPARE(qint64(x.total()), 279'183'360LL);
    // Without sequence parallel the block input is whole and the reductions are
    // all-reduces, not saved: 279,183,360 - 33,554,432 + 7 x 16,777,216.
    s.sequenceParallel = false;
    QCOMPARE(layerBytes(test::llama3_70b(), s), 363'069'440LL);
}

void TestActivations::torchtitanOpLevelSelectiveFallsBack()
{
    // A routed-expert block is not modelled op by op (its router and grouped expert
    // matmuls, docs/architecture.md "Known limits"): it keeps Megatron's selective count,
    // whatever the framework.
    ActivationSettings s;
    s.sequenceLength = 4096;
    s.recompute = Recompute::Selective;
    const std::int64_t generic = layerActivationBytes(test::mixtral8x7b(), s);
    s.selective = SelectivePolicy::OpLevel;
    QVERIFY(!opLevelSelective(test::mixtral8x7b(), s));
    QCOMPARE(layerActivationBytes(test::mixtral8x7b(), s), generic);
    QVERIFY(generic > 0);
}

void TestActivations::llama3_70b()
{
    // Llama 3 70B (h 8192, ffn 28672, 64 heads, 8 kv heads, d 128), s 8192, b 1, bf16,
    // FlashAttention, no dropout, t = 8 with sequence parallel. Hand calculation:
    //   norm region, s/t = 1024 tokens: 1024 x 8192 x 2 = 16,777,216 x 4  =  67,108,864
    //   Q, projection input: 8192 x (8 heads x 128) x 2 = 16,777,216 x 2  =  33,554,432
    //   K, V: 8192 x (1 kv head x 128) x 2 = 2,097,152 x 2                 =   4,194,304
    //   gate, up, down: 8192 x 3584 x 2 = 58,720,256 x 3                   = 176,160,768
    //   softmax statistics: 4 x 8 x 8192                                   =     262,144
    //   total                                                              = 281,280,512
    // = sbh/t (8 + 2 + 0.25 + 0.25 + 2 + 21) = 33.5 sbh/t, plus the statistics.
    ActivationSettings s;
    s.sequenceLength = 8192;
    s.tensorParallel = 8;
    const LayerActivationTerms x = layerActivationTerms(test::llama3_70b(), s);
    QCOMPARE(qint64(x.attentionNormInput), 16'777'216LL);
    QCOMPARE(qint64(x.key), 2'097'152LL);
    QCOMPARE(qint64(x.gateOutput), 58'720'256LL);
    QCOMPARE(qint64(x.softmaxStatistics), 262'144LL);
    QCOMPARE(qint64(x.total()), 281'280'512LL);
    // Without sequence parallel the four norm-region tensors are whole: + 4 x 7/8 x 33.5 MB.
    s.sequenceParallel = false;
    QCOMPARE(layerBytes(test::llama3_70b(), s), 281'280'512LL + 4 * (134'217'728LL - 16'777'216LL));
}

void TestActivations::flashAttentionRemovesScores()
{
    // Korthikanti et al. 5 a s^2 b / t (softmax 2, mask 1, dropout output 2) goes; FlashAttention
    // (Dao et al. 2022) keeps the fp32 logsumexp instead, 4 a s b / t bytes.
    for (int t : {1, 8}) {
        ActivationSettings s = paper(t, true, Recompute::None);
        const qint64 materialised = layerBytes(test::gpt3_175b(), s);
        s.flashAttention = true;
        const qint64 flash = layerBytes(test::gpt3_175b(), s);
        const qint64 a = 96, sl = 2048;
        QCOMPARE(materialised - flash, 5 * a * sl * sl / t - 4 * a * sl / t);
        // Selective recomputation already recomputes the core: flash changes nothing.
        s.recompute = Recompute::Selective;
        const qint64 selectiveFlash = layerBytes(test::gpt3_175b(), s);
        s.flashAttention = false;
        QCOMPARE(selectiveFlash, layerBytes(test::gpt3_175b(), s));
    }
    // Dropout off, no flash: the softmax output is the only s x s tensor (2 a s^2 b).
    // With GQA the unfused path also keeps K and V expanded to all 32 heads.
    // Llama 3 8B, s 4096: 2 x 32 x 4096^2 + 2 x 4096 x (4096 - 1024) x 2 - 4 x 32 x 4096.
    ActivationSettings s;
    s.sequenceLength = 4096;
    const qint64 flash = layerBytes(test::llama3_8b(), s);
    s.flashAttention = false;
    QCOMPARE(layerBytes(test::llama3_8b(), s) - flash,
             2LL * 32 * 4096 * 4096 + 2LL * 4096 * 3072 * 2 - 4LL * 32 * 4096);
}

void TestActivations::contextParallelSplitsEverything()
{
    // Every tensor holds s/c tokens; the score matrix holds s/c queries x s keys per head.
    ActivationSettings s = paper(8, true, Recompute::None);
    const LayerActivationTerms one = layerActivationTerms(test::gpt3_175b(), s);
    s.contextParallel = 2;
    const LayerActivationTerms two = layerActivationTerms(test::gpt3_175b(), s);
    QCOMPARE(qint64(two.softmaxOutput), 12LL * 1024 * 2048 * 2); // a/t heads x s/c x s x e
    QCOMPARE(qint64(2 * two.total()), qint64(one.total()));
    QCOMPARE(qint64(2 * outputActivationBytes(test::gpt3_175b(), s)),
             qint64(outputActivationBytes(test::gpt3_175b(), paper(8, true, Recompute::None))));
}

void TestActivations::logits()
{
    // The logits in fp32: s 8192, b 1, V 128,256 in fp32 = 8192 x 128256 x 4 = 4,202,692,608.
    ActivationSettings s;
    s.sequenceLength = 8192;
    OutputActivationTerms o = outputActivationTerms(test::llama3_8b(), s);
    QCOMPARE(qint64(o.logits), 4'202'692'608LL);
    QCOMPARE(qint64(o.finalNormInput), 67'108'864LL); // s b h e
    QCOMPARE(qint64(o.outputInput), 67'108'864LL);
    QCOMPARE(qint64(outputActivationBytes(test::llama3_8b(), s)),
             4'202'692'608LL + 2 * 67'108'864LL);
    // bf16 logits: half.
    s.fp32Logits = false;
    QCOMPARE(qint64(outputActivationTerms(test::llama3_8b(), s).logits), 2'101'346'304LL);
    // Vocab-parallel cross entropy, t = 8: 128256 / 8 = 16032 columns per rank.
    s.fp32Logits = true;
    s.tensorParallel = 8;
    QCOMPARE(qint64(outputActivationTerms(test::llama3_8b(), s).logits), 8192LL * 16032 * 4);
    // GPT-3's 50,257 tokens over t = 8: ceil = 6,283 columns per rank (ceil-divided).
    o = outputActivationTerms(test::gpt3_175b(), paper(8, true, Recompute::Full));
    QCOMPARE(qint64(o.logits), 2048LL * 6283 * 4);
    QCOMPARE(qint64(o.finalNormInput), 2048LL / 8 * 12288 * 2);
}

void TestActivations::lossBackward()
{
    QCOMPARE(parseLossKernel(lossKernelId(LossKernel::Eager)),
             std::optional<LossKernel>(LossKernel::Eager));
    QCOMPARE(lossKernelId(LossKernel::Fused), std::string_view("fused"));
    QVERIFY(!parseLossKernel("Eager").has_value());
    // Fused (Megatron's vocab-parallel cross-entropy): the gradient overwrites the
    // kept softmax, nothing more.
    ActivationSettings s;
    s.sequenceLength = 8192;
    QCOMPARE(qint64(lossBackwardBytes(test::llama3_8b(), s)), 0LL);
    // Eager F.cross_entropy on fp32 logits: the incoming gradient and log_softmax's input
    // gradient, 2 x 8192 x 128256 x 4 = 8,405,385,216 bytes beside the kept 4,202,692,608.
    s.lossKernel = LossKernel::Eager;
    QCOMPARE(qint64(lossBackwardBytes(test::llama3_8b(), s)), 8'405'385'216LL);
    // The held terms do not change with the kernel.
    QCOMPARE(qint64(outputActivationBytes(test::llama3_8b(), s)),
             4'202'692'608LL + 2 * 67'108'864LL);
    // bf16 logits halve it; vocab-parallel t = 8 keeps 16032 columns per rank.
    s.fp32Logits = false;
    QCOMPARE(qint64(lossBackwardBytes(test::llama3_8b(), s)), 2LL * 8192 * 128256 * 2);
    s.fp32Logits = true;
    s.tensorParallel = 8;
    QCOMPARE(qint64(lossBackwardBytes(test::llama3_8b(), s)), 2LL * 8192 * 16032 * 4);
    // Invalid settings give 0, as every other term does.
    s.tensorParallel = 3;
    QCOMPARE(qint64(lossBackwardBytes(test::llama3_8b(), s)), 0LL);
}

void TestActivations::eagerRmsNorm()
{
    // NormKernel ids round-trip; anything else is refused.
    for (NormKernel k : {NormKernel::Fused, NormKernel::Eager})
        QCOMPARE(parseNormKernel(normKernelId(k)), std::optional<NormKernel>(k));
    QVERIFY(!parseNormKernel("Eager").has_value());

    // Llama 3 8B, s 8192, b 1, bf16 (llama3_8b above: 1,141,899,264 with fused norms).
    // Hugging Face's LlamaRMSNorm in eager PyTorch keeps, per norm, the fp32 copy of its
    // input, 8192 x 4096 x 4 = 134,217,728 (in place of the bf16 input, 67,108,864), and
    // the normalized bf16 tensor the weight multiply saves, 67,108,864: +134,217,728 per
    // norm, two norms a block: 1,141,899,264 + 268,435,456 = 1,410,334,720 (+23.5%).
    ActivationSettings s;
    s.sequenceLength = 8192;
    s.normKernel = NormKernel::Eager;
    LayerActivationTerms x = layerActivationTerms(test::llama3_8b(), s);
    QCOMPARE(qint64(x.attentionNormInput), 134'217'728LL);
    QCOMPARE(qint64(x.attentionNormOutput), 67'108'864LL);
    QCOMPARE(qint64(x.mlpNormInput), 134'217'728LL);
    QCOMPARE(qint64(x.mlpNormOutput), 67'108'864LL);
    QCOMPARE(qint64(x.qkvInput), 67'108'864LL); // the linear layers' inputs do not change
    QCOMPARE(qint64(x.total()), 1'410'334'720LL);

    // A frozen norm (LoRA) keeps only the fp32 copy: + 67,108,864 per norm.
    s.normWeightsTrain = false;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 1'141'899'264LL + 2 * 67'108'864LL);

    // The final norm the same way: fp32 copy 134,217,728 + normalized 67,108,864 + the
    // output projection's input 67,108,864 + fp32 logits 4,202,692,608.
    s.normWeightsTrain = true;
    const OutputActivationTerms o = outputActivationTerms(test::llama3_8b(), s);
    QCOMPARE(qint64(o.finalNormInput), 134'217'728LL);
    QCOMPARE(qint64(o.finalNormOutput), 67'108'864LL);
    QCOMPARE(qint64(outputActivationBytes(test::llama3_8b(), s)),
             134'217'728LL + 2 * 67'108'864LL + 4'202'692'608LL);

    // Full recomputation keeps the block input only, in the activation dtype.
    s.recompute = Recompute::Full;
    QCOMPARE(layerBytes(test::llama3_8b(), s), 67'108'864LL);

    // fp32 activations: the copy is the input itself; only the normalized tensor adds.
    s.recompute = Recompute::None;
    s.activationBytes = 4;
    ActivationSettings fused = s;
    fused.normKernel = NormKernel::Fused;
    QCOMPARE(layerBytes(test::llama3_8b(), s) - layerBytes(test::llama3_8b(), fused),
             2 * 134'217'728LL);

    // LayerNorm models run nn.LayerNorm's native kernel even in eager PyTorch: unchanged.
    Architecture layerNorm = test::llama3_8b();
    layerNorm.layerNormBias = true;
    QCOMPARE(layerBytes(layerNorm, s), layerBytes(layerNorm, fused));
}

void TestActivations::embeddingDropoutMask()
{
    // 1-byte embedding dropout mask, s b h (/ t with SP); docs/activations.md, beyond the layers.
    QCOMPARE(qint64(embeddingActivationBytes(test::gpt3_175b(), paper(8, true, Recompute::None))),
             2048LL * 12288 / 8);
    QCOMPARE(qint64(embeddingActivationBytes(test::gpt3_175b(), paper(8, false, Recompute::Full))),
             2048LL * 12288);
    ActivationSettings s;
    QCOMPARE(qint64(embeddingActivationBytes(test::llama3_8b(), s)), 0LL);
}

void TestActivations::dtypeScalesStoredTensors()
{
    // fp32 activations double every stored tensor except the 1-byte masks and the
    // fp32 statistics: GPT-3, no parallelism, dropout on, no flash:
    // 2 x (32 sbh + 4 a s^2 b) + (2 sbh + a s^2 b).
    ActivationSettings s = paper(1, true, Recompute::None);
    s.activationBytes = 4;
    const qint64 sbh = 2048LL * 12288, as2b = 96LL * 2048 * 2048;
    QCOMPARE(layerBytes(test::gpt3_175b(), s), 2 * (32 * sbh + 4 * as2b) + 2 * sbh + as2b);
}

void TestActivations::randomMonotonic()
{
    // Over many random valid inputs: never negative, the total is the exact sum of the
    // terms (checked in long double against overflow), and memory never rises when t,
    // c or the recompute level rise.
    std::mt19937_64 rng(20220510);
    auto pick = [&](std::initializer_list<std::int64_t> xs) {
        std::uniform_int_distribution<std::size_t> d(0, xs.size() - 1);
        return *(xs.begin() + d(rng));
    };
    int checked = 0;
    for (int i = 0; i < 4000; ++i) {
        Architecture a;
        a.layers = int(pick({1, 32, 80}));
        a.heads = int(pick({1, 8, 12, 32, 64, 96, 128}));
        a.kvHeads = int(pick({1, 2, 8, 16, 32, 96}));
        if (a.heads % a.kvHeads != 0)
            a.kvHeads = a.heads;
        a.headDim = pick({0, 64, 128});
        a.hidden = a.heads * pick({64, 128, 96});
        a.ffn = pick({4 * a.hidden, 14336, 28672, 11008, 1000});
        a.vocab = pick({32000, 50257, 128256, 7});
        a.gatedMlp = rng() & 1;
        ActivationSettings s;
        s.microBatchSize = pick({1, 2, 3, 16});
        s.sequenceLength = pick({1, 2, 2048, 4096, 8192, 12, 131072});
        s.tensorParallel = int(pick({1, 2, 4, 8}));
        s.contextParallel = int(pick({1, 2, 4}));
        s.sequenceParallel = rng() & 1;
        s.recompute = Recompute(pick({0, 1, 2}));
        s.flashAttention = rng() & 1;
        s.dropout = rng() & 1;
        s.activationBytes = pick({1, 2, 4, 8});
        s.fp32Logits = rng() & 1;
        if (!validateActivationSettings(a, s).empty()) {
            QCOMPARE(qint64(layerActivationBytes(a, s)), 0LL);
            QCOMPARE(qint64(outputActivationBytes(a, s)), 0LL);
            continue;
        }
        ++checked;
        const LayerActivationTerms x = layerActivationTerms(a, s);
        const std::int64_t fields[] = {x.attentionNormInput,
                                       x.qkvInput,
                                       x.query,
                                       x.key,
                                       x.value,
                                       x.softmaxOutput,
                                       x.softmaxDropoutMask,
                                       x.softmaxDropoutOutput,
                                       x.softmaxStatistics,
                                       x.projectionInput,
                                       x.attentionDropoutMask,
                                       x.mlpNormInput,
                                       x.mlpInput,
                                       x.upOutput,
                                       x.gateOutput,
                                       x.downInput,
                                       x.mlpDropoutMask,
                                       x.layerInput};
        long double sum = 0;
        for (std::int64_t f : fields) {
            QVERIFY(f >= 0);
            sum += f;
        }
        QVERIFY(sum == (long double)x.total());
        QVERIFY(x.total() > 0);
        const std::int64_t layer = x.total();
        const std::int64_t out = outputActivationBytes(a, s);
        const std::int64_t emb = embeddingActivationBytes(a, s);
        QVERIFY(out > 0);
        QVERIFY(emb >= 0);

        // Doubling t, or c, never raises a term.
        for (int ActivationSettings::*degree :
             {&ActivationSettings::tensorParallel, &ActivationSettings::contextParallel}) {
            ActivationSettings u = s;
            u.*degree *= 2;
            if (validateActivationSettings(a, u).empty()) {
                QVERIFY(layerActivationBytes(a, u) <= layer);
                QVERIFY(outputActivationBytes(a, u) <= out);
                QVERIFY(embeddingActivationBytes(a, u) <= emb);
            }
        }
        ActivationSettings u = s;
        u.sequenceParallel = true;
        if (!s.sequenceParallel && validateActivationSettings(a, u).empty())
            QVERIFY(layerActivationBytes(a, u) <= layer);
        u = s;
        u.recompute = Recompute::None;
        const std::int64_t none = layerActivationBytes(a, u);
        u.recompute = Recompute::Selective;
        const std::int64_t selective = layerActivationBytes(a, u);
        u.recompute = Recompute::Full;
        const std::int64_t full = layerActivationBytes(a, u);
        QVERIFY(none >= selective);
        QVERIFY(selective >= full);
        QVERIFY(full > 0);
    }
    QVERIFY2(checked > 1000, qPrintable(QString::number(checked)));

    // Huge but valid-looking sizes are either rejected or positive (no wrap-around).
    int huge = 0, rejected = 0;
    for (int i = 0; i < 2000; ++i) {
        Architecture a = test::llama3_70b();
        a.hidden = pick({8192, 1'000'000});
        a.ffn = pick({28672, 10'000'000 - 16});
        a.vocab = pick({128256, 100'000'000});
        a.headDim = pick({0, 128, 1LL << 40});
        ActivationSettings s;
        s.microBatchSize = pick({1, 1'000'000});
        s.sequenceLength = pick({8192, 1'000'000'000 - 8 * 4 * 2});
        s.flashAttention = rng() & 1;
        s.dropout = rng() & 1;
        s.activationBytes = pick({2, 8});
        if (!validateActivationSettings(a, s).empty()) {
            ++rejected;
            continue;
        }
        ++huge;
        QVERIFY(layerActivationBytes(a, s) > 0);
        QVERIFY(outputActivationBytes(a, s) > 0);
    }
    qDebug("random: %d valid; huge: %d valid, %d rejected", checked, huge, rejected);
    QVERIFY(huge > 100 && rejected > 100);
}

void TestActivations::invalidSettings_data()
{
    QTest::addColumn<Architecture>("architecture");
    QTest::addColumn<ActivationSettings>("settings");
    QTest::addColumn<QString>("message");
    const Architecture gpt3 = test::gpt3_175b(), llama = test::llama3_70b();
    Architecture noLayers = llama, ffn1004 = llama;
    noLayers.layers = 0;
    ffn1004.ffn = 1004;
    // The paper's settings without recomputation, with b, s, t, c, SP and e as given.
    auto settings = [](std::int64_t b, std::int64_t s, int t, int c, bool sp, std::int64_t e) {
        ActivationSettings x = paper(t, sp, Recompute::None);
        x.microBatchSize = b;
        x.sequenceLength = s;
        x.contextParallel = c;
        x.activationBytes = e;
        return x;
    };
    QTest::newRow("architecture") << noLayers << settings(1LL, 2048LL, 1, 1, true, 2LL)
                                  << "layers must be at least 1";
    QTest::newRow("b 0") << gpt3 << settings(0LL, 2048LL, 1, 1, true, 2LL)
                         << "micro-batch size must be at least 1 (got 0)";
    QTest::newRow("b huge") << gpt3 << settings(2'000'000LL, 2048LL, 1, 1, true, 2LL)
                            << "micro-batch size must be at most 1000000 (got 2000000)";
    QTest::newRow("s negative") << gpt3 << settings(1LL, -1LL, 1, 1, true, 2LL)
                                << "sequence length must be at least 1 (got -1)";
    QTest::newRow("s huge") << gpt3 << settings(1LL, 2'000'000'000LL, 1, 1, true, 2LL)
                            << "sequence length must be at most 1000000000 (got 2000000000)";
    QTest::newRow("t 0") << gpt3 << settings(1LL, 2048LL, 0, 1, true, 2LL)
                         << "tensor parallel size must be at least 1 (got 0)";
    QTest::newRow("t huge") << gpt3 << settings(1LL, 2048LL, 2'000'000, 1, true, 2LL)
                            << "tensor parallel size must be at most 1048576 (got 2000000)";
    QTest::newRow("c -2") << gpt3 << settings(1LL, 2048LL, 1, -2, true, 2LL)
                          << "context parallel size must be at least 1 (got -2)";
    QTest::newRow("e 3") << gpt3 << settings(1LL, 2048LL, 1, 1, true, 3LL)
                         << "activation bytes must be 1, 2, 4 or 8 (got 3)";
    QTest::newRow("heads / t") << gpt3 << settings(1LL, 2048LL, 5, 1, true, 2LL)
                               << "heads (96) is not divisible by tensor parallel size (5)";
    // Megatron-Core TransformerConfig: num_query_groups must be a multiple of t.
    QTest::newRow("kv heads / t") << llama << settings(1LL, 8192LL, 16, 1, true, 2LL)
                                  << "kv heads (8) is not divisible by tensor parallel size (16)";
    QTest::newRow("ffn / t") << ffn1004 << settings(1LL, 8192LL, 8, 1, true, 2LL)
                             << "ffn size (1004) is not divisible by tensor parallel size (8)";
    QTest::newRow("s / c") << gpt3 << settings(1LL, 2047LL, 1, 2, false, 2LL)
                           << "sequence length (2047) is not divisible by context parallel size "
                              "(2)";
    QTest::newRow("s / t with SP") << gpt3 << settings(1LL, 2044LL, 8, 1, true, 2LL)
                                   << "sequence length (2044) is not divisible by tensor "
                                      "parallel size (8) with sequence parallel on";
    QTest::newRow("s/c / t with SP") << gpt3 << settings(1LL, 2052LL, 8, 2, true, 2LL)
                                     << "sequence length per context rank (1026) is not "
                                        "divisible by tensor parallel size (8) with sequence "
                                        "parallel on";
    QTest::newRow("overflow") << gpt3 << settings(1'000'000LL, 1'000'000'000LL, 1, 1, true, 8LL)
                              << "activation sizes are too large: a byte count exceeds 64-bit "
                                 "integers";
}

void TestActivations::invalidSettings()
{
    QFETCH(Architecture, architecture);
    QFETCH(ActivationSettings, settings);
    QFETCH(QString, message);
    const Architecture &a = architecture;
    const ActivationSettings &x = settings;
    QCOMPARE(QString::fromStdString(validateActivationSettings(a, x)), message);
    QCOMPARE(qint64(layerActivationBytes(a, x)), 0LL);
    QCOMPARE(qint64(layerActivationTerms(a, x).query), 0LL);
    QCOMPARE(qint64(embeddingActivationBytes(a, x)), 0LL);
    QCOMPARE(qint64(outputActivationBytes(a, x)), 0LL);
}

QTEST_APPLESS_MAIN(TestActivations)
#include "test_activations.moc"
