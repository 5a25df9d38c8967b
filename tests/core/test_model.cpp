// Parameter counts of dense decoder models, to the parameter.
// Reference values (below), each citing its model card or config.json.
#include "estimate.h"
#include "model.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Architecture)

class TestModel : public QObject
{
    Q_OBJECT
private slots:
    void publishedCounts_data();
    void publishedCounts();
    void tiedEmbeddingsDropTheHead();
    void plainMlpAndBiases();
    void plainCountModel();
    void qwenQkvBiases();
    void gemma2FourNorms();
    void gpt3PositionTable();
    void qkNorms();
    void qkNormsReplicatedOnTensorRanks();
    void validation();
    void scaledArchitectureIsNearTarget_data();
    void scaledArchitectureIsNearTarget();
};

void TestModel::publishedCounts_data()
{
    QTest::addColumn<Architecture>("architecture");
    QTest::addColumn<qint64>("expected");
    // model,layers,hidden,ffn,heads,kv_heads,vocab,parameters (parameter-counts.csv)
    QTest::newRow("llama2-7b") << test::dense(32, 4096, 11008, 32, 32, 32000) << 6738415616LL;
    QTest::newRow("llama2-13b") << test::dense(40, 5120, 13824, 40, 40, 32000) << 13015864320LL;
    QTest::newRow("llama3-8b") << test::dense(32, 4096, 14336, 32, 8, 128256) << 8030261248LL;
    QTest::newRow("llama3-70b") << test::dense(80, 8192, 28672, 64, 8, 128256) << 70553706496LL;
    QTest::newRow("llama3.1-405b")
        << test::dense(126, 16384, 53248, 128, 8, 128256) << 405853388800LL;
    QTest::newRow("mistral-7b") << test::dense(32, 4096, 14336, 32, 8, 32000) << 7241732096LL;
    // Llama 2 70B model card: 68,976,648,192 (GQA with 8 KV heads, 32,000 vocab).
    QTest::newRow("llama2-70b") << test::dense(80, 8192, 28672, 64, 8, 32000) << 68976648192LL;
}

void TestModel::publishedCounts()
{
    QFETCH(Architecture, architecture);
    QFETCH(qint64, expected);
    QVERIFY(validateArchitecture(architecture).empty());
    QCOMPARE(qint64(parameterCount(architecture)), expected);
}

void TestModel::tiedEmbeddingsDropTheHead()
{
    // Hand calculation: tying removes exactly one V x h matrix.
    Architecture a = test::llama2_7b();
    const auto untied = parameterCount(a);
    a.tiedEmbeddings = true;
    QCOMPARE(qint64(untied - parameterCount(a)), 32000LL * 4096LL);
}

void TestModel::plainMlpAndBiases()
{
    // GPT-2 small block by hand (h 768, ffn 3072, 12 heads, LayerNorm, biases):
    // attention 4 h^2 + 4 h = 2,362,368; MLP 2 h ffn + ffn + h = 4,722,432;
    // two LayerNorms 4 h = 3,072: 7,087,872 per block (matches HF GPT-2's h.0.* tensors).
    const Architecture a = test::gpt2Layout(12, 768, 12, 50257);
    QCOMPARE(qint64(layerParameterCount(a)), 7087872LL);
    // Embedding 50257 x 768 plus final LayerNorm 2 x 768 (no position table modelled).
    QCOMPARE(qint64(nonLayerParameterCount(a)), 50257LL * 768 + 2 * 768);
}

void TestModel::plainCountModel()
{
    Model m;
    m.plainParameters = 70'000'000'000;
    QCOMPARE(qint64(m.parameters()), 70000000000LL);
    m.architecture = test::llama2_7b();
    QCOMPARE(qint64(m.parameters()), 6738415616LL); // the architecture wins
}

void TestModel::qwenQkvBiases()
{
    // Qwen2.5-7B config.json (Qwen/Qwen2.5-7B): hidden 3584, intermediate 18944, 28
    // layers, 28 heads, 4 KV heads (head dim 128), vocab 152064, untied; Qwen2Attention
    // has biases on q_proj, k_proj and v_proj only. Per block: Q 3584^2 + 3584, K and V
    // 3584 x 512 + 512 each, O 3584^2; MLP 3 x 3584 x 18944; norms 2 x 3584.
    Architecture a{
        .layers = 28, .hidden = 3584, .ffn = 18944, .heads = 28, .kvHeads = 4, .vocab = 152064};
    a.qkvBiases = true;
    const qint64 attention = 2 * 3584LL * 3584 + 3584 + 2 * (3584LL * 512 + 512);
    QCOMPARE(qint64(layerParameterCount(a)), attention + 3 * 3584LL * 18944 + 2 * 3584);
    QCOMPARE(qint64(layerParameterCount(a)), 233057792LL);
    // Model card "7.61B"; Hub safetensors total 7,615,616,512.
    QCOMPARE(qint64(parameterCount(a)), 7615616512LL);
    // Qwen2.5-72B (Qwen/Qwen2.5-72B): hidden 8192, intermediate 29568, 80 layers,
    // 64 heads, 8 KV heads; card "72.7B", Hub total 72,706,203,648.
    Architecture b{
        .layers = 80, .hidden = 8192, .ffn = 29568, .heads = 64, .kvHeads = 8, .vocab = 152064};
    b.qkvBiases = true;
    QCOMPARE(qint64(parameterCount(b)), 72706203648LL);
    // linearBiases implies the Q/K/V biases: setting both counts them once.
    b.linearBiases = true;
    const qint64 allBiases = parameterCount(b);
    b.qkvBiases = false;
    QCOMPARE(qint64(parameterCount(b)), allBiases);
}

void TestModel::gemma2FourNorms()
{
    // Gemma 2 27B config.json (google/gemma-2-27b): hidden 4608, intermediate 36864,
    // 46 layers, 32 heads of head_dim 128 (4096 wide, not 4608), 16 KV heads, vocab
    // 256000, tied; four RMSNorms per block (input, post-attention, pre- and
    // post-feed-forward). Per block: Q and O 4608 x 4096 each, K and V 4608 x 2048
    // each, GeGLU MLP 3 x 4608 x 36864, norms 4 x 4608 = 566,249,472.
    Architecture a = test::dense(46, 4608, 36864, 32, 16, 256000);
    a.headDim = 128;
    a.tiedEmbeddings = true;
    a.normsPerLayer = 4;
    QCOMPARE(qint64(layerParameterCount(a)),
             2 * 4608LL * 4096 + 2 * 4608LL * 2048 + 3 * 4608LL * 36864 + 4 * 4608);
    // KerasHub preset gemma2_27b_en and the Hub safetensors total: 27,227,128,320.
    QCOMPARE(qint64(parameterCount(a)), 27227128320LL);
    // Two extra norms per block: 46 x 2 x 4608 more than a two-norm block.
    a.normsPerLayer = 2;
    QCOMPARE(qint64(parameterCount(a)), 27227128320LL - 46 * 2 * 4608LL);
}

void TestModel::gpt3PositionTable()
{
    // GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads,
    // d_ff = 4 d_model, context 2048; GPT-2 layout: LayerNorm, biases, GELU, tied).
    // Block: 4 h^2 + 4 h attention, 2 h 4h + 4h + h MLP, 2 LayerNorms 4 h.
    Architecture a = test::gpt3_175b(); // ffn 49152 = 4 x 12288, vocab 50257
    a.positionEmbeddings = 2048;
    const qint64 h = 12288;
    QCOMPARE(qint64(layerParameterCount(a)), 4 * h * h + 4 * h + 8 * h * h + 5 * h + 4 * h);
    // Embedding 50257 h, position table 2048 h, final LayerNorm 2 h.
    QCOMPARE(qint64(nonLayerParameterCount(a)), 50257 * h + 2048 * h + 2 * h);
    // 174,604,259,328. The paper lists "175.0B" and publishes no exact count; the
    // layout it describes gives 174.6B, which we can confirm only to the nearest 1B.
    QCOMPARE(qint64(parameterCount(a)), 174604259328LL);
    QCOMPARE(qRound64(parameterCount(a) / 1e9), 175LL);
}

void TestModel::qkNorms()
{
    // Qwen3-8B config.json (Qwen/Qwen3-8B): hidden 4096, intermediate 12288, 36 layers,
    // 32 heads, 8 KV heads, head_dim 128, vocab 151936, untied. Qwen3Attention adds a
    // q_norm and a k_norm of head_dim weights each (transformers modeling_qwen3.py), so a
    // block is Llama's plus 2 x 128: Q and O 4096^2 each, K and V 4096 x 1024 each,
    // q/k norms 256, MLP 3 x 4096 x 12288, 2 norms 8,192 = 192,946,432.
    Architecture a = test::dense(36, 4096, 12288, 32, 8, 151936);
    a.headDim = 128;
    a.qkNorm = QkNorm::PerHead;
    QCOMPARE(qint64(qkNormParameterCount(a)), 256LL);
    QCOMPARE(qint64(layerParameterCount(a)),
             2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 256 + 3 * 4096LL * 12288 + 2 * 4096);
    QCOMPARE(qint64(layerParameterCount(a)), 192946432LL);
    // 36 x 192,946,432 + 2 x 151936 x 4096 + 4096 = 8,190,735,360, the Hub's safetensors
    // total for Qwen/Qwen3-8B ("8.2B").
    QCOMPARE(qint64(parameterCount(a)), 8190735360LL);
    a.qkNorm = QkNorm::None;
    QCOMPARE(qint64(parameterCount(a)), 8190735360LL - 36 * 256LL);
    // OLMo 2 7B config.json (allenai/OLMo-2-1124-7B): hidden 4096, intermediate 11008,
    // 32 layers, 32 heads = 32 KV heads, vocab 100352, untied. Olmo2Attention's q_norm
    // covers the whole query projection (32 x 128) and k_norm the keys (32 x 128):
    // 8,192 per block. Block 4 x 4096^2 + 8,192 + 3 x 4096 x 11008 + 2 x 4096 =
    // 202,391,552; 32 blocks + 2 x 100352 x 4096 + 4096 = 7,298,617,344, the Hub total.
    Architecture o = test::dense(32, 4096, 11008, 32, 32, 100352);
    o.qkNorm = QkNorm::Full;
    QCOMPARE(qint64(qkNormParameterCount(o)), 8192LL);
    QCOMPARE(qint64(layerParameterCount(o)), 202391552LL);
    QCOMPARE(qint64(parameterCount(o)), 7298617344LL);
    // With grouped-query attention the key norm is only the kv heads wide: 32 x 128 +
    // 8 x 128 = 5,120.
    o.kvHeads = 8;
    QCOMPARE(qint64(qkNormParameterCount(o)), 5120LL);
    // Latent attention has its own latent norms; q/k norms on it are refused.
    Architecture mla = test::dense(4, 1024, 4096, 8, 8, 1000);
    mla.kvLoraRank = 64;
    mla.qkNopeHeadDim = 32;
    mla.qkRopeHeadDim = 16;
    mla.vHeadDim = 32;
    QVERIFY(validateArchitecture(mla).empty());
    mla.qkNorm = QkNorm::PerHead;
    QCOMPARE(QString::fromStdString(validateArchitecture(mla)),
             QStringLiteral("query/key norms on latent attention are not modelled"));
}

void TestModel::qkNormsReplicatedOnTensorRanks()
{
    // Megatron-Core keeps q_layernorm / k_layernorm whole on every tensor rank
    // (core/estimate/stageplan.h prepareBlock): with 2-byte weights, Qwen3-8B's per-head norms add
    // 2 x 36 x 256 = 18,432 weight bytes per GPU at t = 2 as at t = 1, not half of it.
    Architecture a = test::dense(36, 4096, 12288, 32, 8, 151936);
    a.headDim = 128;
    auto weightBytes = [](const Architecture &arch, int t) {
        const MemoryReport r = estimate(test::onH100s(arch, t, ZeroStage::Ddp, t));
        return qint64(r.groups[0].bytes.weights);
    };
    for (int t : {1, 2}) {
        const qint64 none = weightBytes(a, t);
        Architecture perHead = a;
        perHead.qkNorm = QkNorm::PerHead;
        QCOMPARE(weightBytes(perHead, t) - none, 2 * 36 * 256LL);
        // OLMo 2's whole-width form on the same shape: 2 x 36 x (4096 + 1024) bytes.
        Architecture full = a;
        full.qkNorm = QkNorm::Full;
        QCOMPARE(weightBytes(full, t) - none, 2 * 36 * 5120LL);
    }
}

void TestModel::validation()
{
    Architecture a = test::llama2_7b();
    a.kvHeads = 5;
    QCOMPARE(QString::fromStdString(validateArchitecture(a)),
             QStringLiteral("heads (32) is not divisible by kv heads (5)"));
    a.kvHeads = 8;
    a.layers = 0;
    QCOMPARE(QString::fromStdString(validateArchitecture(a)),
             QStringLiteral("layers must be at least 1"));
    a.layers = 32;
    a.heads = 30;
    a.kvHeads = 10;
    QCOMPARE(QString::fromStdString(validateArchitecture(a)),
             QStringLiteral("hidden (4096) is not divisible by heads (30)"));
    a.heads = 32;
    a.kvHeads = 8;
    a.normsPerLayer = 0;
    QCOMPARE(QString::fromStdString(validateArchitecture(a)),
             QStringLiteral("norms per layer must be between 1 and 8 (got 0)"));
}

void TestModel::scaledArchitectureIsNearTarget_data()
{
    QTest::addColumn<qint64>("target");
    for (qint64 t : {300'000'000LL, 1'000'000'000LL, 7'000'000'000LL, 70'000'000'000LL,
                     405'000'000'000LL, 2'000'000'000'000LL})
        QTest::newRow(qPrintable(QString::number(t))) << t;
}

void TestModel::scaledArchitectureIsNearTarget()
{
    QFETCH(qint64, target);
    const Architecture a = scaledArchitecture(target);
    QVERIFY(validateArchitecture(a).empty());
    QCOMPARE(a.hidden % 128, 0);
    QCOMPARE(a.ffn % 256, 0);
    QVERIFY(a.layers > 1);
    // Layers are rounded to the nearest whole block: off by at most half a block.
    const qint64 diff = std::abs(qint64(parameterCount(a)) - target);
    QVERIFY2(
        diff <= layerParameterCount(a) / 2 + 1,
        qPrintable(QStringLiteral("count %1 for target %2").arg(parameterCount(a)).arg(target)));
}

QTEST_APPLESS_MAIN(TestModel)
#include "test_model.moc"
