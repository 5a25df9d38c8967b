// Hugging Face config.json import: each supported family's published parameter count,
// to the parameter, from a config.json written for the test (tests/io/data, each file
// names its source), and the one-line errors for unsupported or incomplete files.
#include "hfconfig.h"

#include <QFile>
#include <QTest>

using namespace shardscope;

namespace {

QByteArray readData(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

std::optional<Model> import(const QByteArray &json, QString *error)
{
    return modelFromHfConfig(json, error);
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT
private slots:
    void publishedCounts_data();
    void publishedCounts();
    void familyDetails();
    void newerFamilyDetails();
    void qkNormFamilies();
    void genericDecoder();
    void defaultsFromTheConfigClasses();
    void namesFromTheRepository();
    void llama4Interleaved_data();
    void llama4Interleaved();
    void qwenSparseBlocks_data();
    void qwenSparseBlocks();
    void expertFieldsNeverDense_data();
    void expertFieldsNeverDense();
    void mixtralStyleGeneric();
    void errors_data();
    void errors();
};

void TestHfConfig::publishedCounts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("active");
    // Totals: each file's _comment names the source (model card, Hub safetensors
    // total, KerasHub preset). Active = total for dense models.
    QTest::newRow("Llama 3.1 405B") << "llama-3.1-405b.json" << 405853388800LL << 405853388800LL;
    QTest::newRow("Mistral 7B") << "mistral-7b-v0.1.json" << 7241732096LL << 7241732096LL;
    // Mixtral: 46.7B total, 12.9B active (hand count in tests/core/test_moe.cpp).
    QTest::newRow("Mixtral 8x7B") << "mixtral-8x7b-v0.1.json" << 46702792704LL << 12879925248LL;
    QTest::newRow("Qwen2.5 7B") << "qwen2.5-7b.json" << 7615616512LL << 7615616512LL;
    QTest::newRow("Qwen2.5 72B") << "qwen2.5-72b.json" << 72706203648LL << 72706203648LL;
    QTest::newRow("Gemma 7B") << "gemma-7b.json" << 8537680896LL << 8537680896LL;
    QTest::newRow("Gemma 2 27B") << "gemma-2-27b.json" << 27227128320LL << 27227128320LL;
    // DeepSeek-V3: 671B total without the MTP module, 37B activated (model card);
    // derivation in tests/core/test_moe.cpp and docs/models.md.
    QTest::newRow("DeepSeek-V3") << "deepseek-v3.json" << 671026419200LL << 37552297472LL;

    // Qwen1.5-MoE-A2.7B ("14.3B" total, "2.7B activated", 2.0B non-embedding activated).
    // Block: attention 4 x 2048^2 + 3 x 2048 Q/K/V biases = 16,783,360; 60 routed + 4
    // shared (5632 / 1408) experts of 3 x 2048 x 1408 = 8,650,752 each = 553,648,128;
    // router 60 x 2048 = 122,880; shared_expert_gate 2048 + 2 RMSNorms 4096 = 6,144:
    // 570,560,512. Total 24 x 570,560,512 + 2 x 151936 x 2048 + 2048 = 14,315,784,192.
    // Active: 4 routed + 4 shared experts, 24 x 86,118,400 + 622,331,904 = 2,689,173,504
    // (2,066,841,600 without the embeddings: "2.0B non-embedding").
    QTest::newRow("Qwen1.5-MoE-A2.7B") << "qwen1.5-moe-a2.7b.json" << 14315784192LL << 2689173504LL;
    // Qwen2-57B-A14B ("57B", "14B activated"): 8 shared experts (20480 / 2560). Block:
    // attention 29,364,736 (incl. 4,608 biases) + 72 experts x 27,525,120 + router
    // 229,376 + gate and norms 10,752 = 2,011,413,504; 28 blocks + 1,089,080,832
    // outside = 57,408,658,944 (57.4B). Active 28 x 470,006,784 + 1,089,080,832 =
    // 14,249,270,784 (14.2B).
    QTest::newRow("Qwen2-57B-A14B") << "qwen2-57b-a14b.json" << 57408658944LL << 14249270784LL;
    // DeepSeek-V2-Lite ("15.7B total, 2.4B activated"): MLA without q_lora_rank, q_proj
    // 2048 x 16 x 192 = 6,291,456, kv_a 2048 x 576 = 1,179,648, kv_a_norm 512, kv_b 512 x
    // 16 x 256 = 2,097,152, o 2048 x 2048 = 4,194,304: 13,763,072. Block 0 dense (MLP 3 x
    // 2048 x 10944): 81,007,104; blocks 1-26: 66 experts x 8,650,752 + router 64 x 2048
    // (no correction bias in V2) = 584,847,872. Total 81,007,104 + 26 x 584,847,872 +
    // 419,432,448 = 15,706,484,224. Active (6 routed + 2 shared): 2,661,150,208; without
    // the 209,715,200 input embedding (DeepSeek's convention, see V3's 36.6B)
    // 2,451,435,008, the card's "2.4B".
    QTest::newRow("DeepSeek-V2-Lite") << "deepseek-v2-lite.json" << 15706484224LL << 2661150208LL;
    // DeepSeek-V2 ("236B total, 21B activated"): q_lora_rank 1536, 128 heads on h 5120;
    // MLA 149,227,520 per block; block 0 dense 337,981,440, blocks 1-59 (160 routed + 2
    // shared experts of 3 x 5120 x 1536) 3,972,116,480; outside 1,048,581,120. Total
    // 235,741,434,880 (235.7B); active 21,375,800,320 (21.4B).
    QTest::newRow("DeepSeek-V2") << "deepseek-v2.json" << 235741434880LL << 21375800320LL;
    // Llama 4 Scout, text model only ("17B active", "109B total" with the vision
    // encoder). Block (every one MoE, interleave_moe_layer_step 1): attention 5120 x 5120
    // x 2 + 5120 x 1024 x 2 = 62,914,560; 16 routed + 1 shared experts of 3 x 5120 x
    // 8192 = 125,829,120 each; router 16 x 5120 = 81,920; 2 norms 10,240:
    // 2,202,101,760. Total 48 x 2,202,101,760 + 2 x 202048 x 5120 + 5120 =
    // 107,769,861,120. The vision_config adds 871,932,416 (34 ViT blocks of 23,807,872,
    // embeddings 1,641,728, pre/post LayerNorms 5,632, pixel-shuffle MLP 39,845,888,
    // projector 4096 x 5120): 108,641,793,536 in all, the card's "109B". Active: one
    // routed + the shared expert, 48 x 314,664,960 + 2,068,976,640 = 17,172,894,720.
    QTest::newRow("Llama 4 Scout (text)")
        << "llama-4-scout-17b-16e.json" << 107769861120LL << 17172894720LL;
    // Llama 4 Maverick, text model only ("17B active", "400B total"; modeling_llama4.py).
    // interleave_moe_layer_step 2: Llama4TextConfig's moe_layers = range(1, 48, 2), so
    // blocks 1, 3, ..., 47 hold Llama4TextMoe and blocks 0, 2, ..., 46 Llama4TextMLP of
    // intermediate_size_mlp 16384. use_qk_norm is false (and Llama4TextL2Norm has no
    // weights); the NoPE blocks (no_rope_layers) only skip the weightless rotary embedding.
    // Attention 62,914,560 and 2 RMSNorms 10,240 in every block (as Scout).
    // Dense block: + 3 x 5120 x 16384 = 251,658,240 -> 314,583,040.
    // MoE block: + 128 routed experts (gate_up_proj 5120 x 2 x 8192 and down_proj 8192 x
    // 5120 each) and the shared expert (Llama4TextMLP, intermediate_size 8192), 129 x
    // 125,829,120 = 16,231,956,480, + Llama4Router Linear(5120, 128, bias=False) 655,360
    // -> 16,295,536,640.
    // Total 24 x 314,583,040 + 24 x 16,295,536,640 + 2 x 202048 x 5120 + 5120 =
    // 7,549,992,960 + 391,092,879,360 + 2,068,976,640 = 400,711,848,960 (the card's
    // "400B"; with the same vision_config as Scout's, 871,932,416, 401,583,781,376).
    // Active: one routed + the shared expert in each MoE block,
    // 24 x 314,583,040 + 24 x 315,238,400 + 2,068,976,640 = 17,184,691,200.
    QTest::newRow("Llama 4 Maverick (text)")
        << "llama-4-maverick-17b-128e.json" << 400711848960LL << 17184691200LL;
    // Phi-3-mini ("3.8B"): fused qkv_proj 3072 x 9216 and o_proj = 4 x 3072^2, fused
    // gate_up_proj 3072 x 16384 and down_proj = 3 x 3072 x 8192, 2 RMSNorms: 113,252,352
    // per block; 32 x 113,252,352 + 2 x 32064 x 3072 + 3072 = 3,821,079,552 (3.82B).
    QTest::newRow("Phi-3-mini") << "phi-3-mini-4k-instruct.json" << 3821079552LL << 3821079552LL;
    // Pythia-1B: the card's 805,736,448 non-embedding + 2 x 50304 x 2048 embed_in and
    // embed_out. By hand per block: query_key_value 2048 x 6144 + 6144, dense 2048^2 +
    // 2048, MLP 2 x 2048 x 8192 + 8192 + 2048, 2 LayerNorms 4 x 2048 = 50,358,272;
    // 16 x 50,358,272 + final LayerNorm 4,096 = 805,736,448.
    QTest::newRow("Pythia-1B") << "pythia-1b.json" << 1011781632LL << 1011781632LL;
    // Qwen2-VL-7B's language model is Qwen2-7B's shape (the Qwen2.5 7B row above):
    // 8,291,375,616 (Hub total) - 675,759,104 (vision: patch_embed 1,505,280 + 32 blocks
    // of 19,677,440 + merger 44,575,744) = 7,615,616,512.
    QTest::newRow("Qwen2-VL-7B (text)")
        << "qwen2-vl-7b-instruct.json" << 7615616512LL << 7615616512LL;
    // LLaVA-1.5-7B: text_config = LlamaConfig defaults (Llama 2 7B's shape) with vocab
    // 32064: 6,738,415,616 + 2 x 64 x 4096 = 6,738,939,904. With the CLIP ViT-L/14-336
    // tower (303,507,456) and the 2-layer projector (4,198,400 + 16,781,312) that is
    // 7,063,427,072, the Hub total.
    QTest::newRow("LLaVA-1.5-7B (text)") << "llava-1.5-7b-hf.json" << 6738939904LL << 6738939904LL;
    // Qwen3-8B (Hub safetensors total 8,190,735,360): Llama's block plus Qwen3Attention's
    // q_norm and k_norm of head_dim 128 each. Block: Q and O 4096 x 4096, K and V 4096 x
    // 1024, q/k norms 256, MLP 3 x 4096 x 12288, 2 norms 8,192 = 192,946,432; 36 blocks
    // + 2 x 151936 x 4096 + 4096 = 8,190,735,360.
    QTest::newRow("Qwen3-8B") << "qwen3-8b.json" << 8190735360LL << 8190735360LL;
    // Qwen3-30B-A3B (Hub total 30,532,122,624; "30.5B", "3.3B activated"). Block:
    // attention 2 x 2048 x 4096 + 2 x 2048 x 512 = 18,874,368, q/k norms 256, 128
    // experts of 3 x 2048 x 768 = 4,718,592 each (603,979,776), router 128 x 2048 =
    // 262,144, 2 norms 4,096: 623,120,640. Total 48 x 623,120,640 + 2 x 151936 x 2048 +
    // 2048 = 30,532,122,624. Active: 8 experts, 48 x 56,889,600 + 622,331,904 =
    // 3,353,032,704.
    QTest::newRow("Qwen3-30B-A3B") << "qwen3-30b-a3b.json" << 30532122624LL << 3353032704LL;
    // Gemma 3 27B, language model only. Block: Q and O 5376 x 4096, K and V 5376 x 2048
    // (66,060,288), q/k norms 2 x 128, GeGLU MLP 3 x 5376 x 21504 = 346,816,512, 4 norms
    // 21,504: 412,898,560. Total 62 blocks + tied 262208 x 5376 + 5376 = 27,009,346,304.
    // Left out: the SigLIP vision tower (27 blocks of 15,239,504, patch embedding 678,528,
    // 4096 position rows 4,718,592, post LayerNorm 2,304: 416,866,032) and the projector
    // (mm_input_projection_weight 1152 x 5376 + mm_soft_emb_norm 1152 = 6,194,304):
    // 27,009,346,304 + 423,060,336 = 27,432,406,640, the Hub safetensors total.
    QTest::newRow("Gemma 3 27B (text)") << "gemma-3-27b-it.json" << 27009346304LL << 27009346304LL;
    // Gemma 3 1B (Hub total 999,885,952, a gemma3_text file): block Q and O 1152 x 1024,
    // K and V 1152 x 256, q/k norms 2 x 256, MLP 3 x 1152 x 6912, 4 norms: 26,842,112;
    // 26 blocks + tied 262144 x 1152 + 1152 = 999,885,952.
    QTest::newRow("Gemma 3 1B") << "gemma-3-1b-pt.json" << 999885952LL << 999885952LL;
    // OLMo 2 7B (Hub total 7,298,617,344): Olmo2Attention's q_norm and k_norm over the
    // whole 4096-wide projections (8,192), post-attention and post-feed-forward norms
    // only (8,192). Block 4 x 4096^2 + 8,192 + 3 x 4096 x 11008 + 8,192 = 202,391,552;
    // 32 blocks + 2 x 100352 x 4096 + 4096 = 7,298,617,344.
    QTest::newRow("OLMo 2 7B") << "olmo-2-1124-7b.json" << 7298617344LL << 7298617344LL;
    // OLMoE-1B-7B (Hub total 6,919,161,856; "6.9B total, 1.3B active"; modular_olmoe.py).
    // Block: attention 4 x 2048^2 = 16,777,216; OlmoeAttention's q_norm (hidden 2048) and
    // k_norm (2048 / 16 x 16 kv heads = 2048): 4,096; input and post-attention norms 4,096;
    // router gate 2048 x 64 = 131,072; 64 experts of 3 x 2048 x 1024 = 6,291,456 each:
    // 402,653,184. 419,569,664 per block; 16 blocks = 6,713,114,624; untied embedding and
    // lm_head 2 x 50304 x 2048 = 206,045,184; final norm 2,048: 6,919,161,856.
    // Active: 8 experts, 16 x (16,777,216 + 4,096 + 4,096 + 131,072 + 8 x 6,291,456 =
    // 67,248,128) + 206,047,232 = 1,282,017,280 (the card's "1.3B active").
    QTest::newRow("OLMoE-1B-7B") << "olmoe-1b-7b.json" << 6919161856LL << 1282017280LL;
    // Granite-3.0-1B-A400M ("1.3B" total, "400M" active; modular_granitemoe.py). Block:
    // Q and O 1024 x 1024, K and V 1024 x 512 (8 kv heads of 64) = 3,145,728; 2 norms
    // 2,048; router 1024 x 32 = 32,768; 32 experts (input_linear 1024 x 2 x 512 and
    // output_linear 512 x 1024) of 1,572,864 = 50,331,648: 53,512,192. 24 blocks =
    // 1,284,292,608; tied embedding 49155 x 1024 = 50,334,720; final norm 1,024:
    // 1,334,628,352. Active: 8 experts, 24 x 15,763,456 + 50,335,744 = 428,658,688.
    QTest::newRow("Granite-3.0-1B-A400M")
        << "granite-3.0-1b-a400m-base.json" << 1334628352LL << 428658688LL;
}

void TestHfConfig::publishedCounts()
{
    QFETCH(QString, file);
    QFETCH(qint64, total);
    QFETCH(qint64, active);
    QString error;
    const auto m = import(readData(QFINDTESTDATA("data/" + file)), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(error.isEmpty());
    QVERIFY(m->architecture);
    QCOMPARE(qint64(m->parameters()), total);
    QCOMPARE(qint64(m->activeParameters()), active);
}

void TestHfConfig::familyDetails()
{
    QString error;
    // Qwen2: Q/K/V biases, nothing else.
    auto m = import(readData(QFINDTESTDATA("data/qwen2.5-7b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(m->architecture->qkvBiases);
    QVERIFY(!m->architecture->linearBiases);
    // Gemma 2: head_dim 128 with 32 heads on hidden 4608, four norms, tied.
    m = import(readData(QFINDTESTDATA("data/gemma-2-27b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->architecture->headDim), 128LL);
    QCOMPARE(m->architecture->normsPerLayer, 4);
    QVERIFY(m->architecture->tiedEmbeddings);
    // Gemma (1): two norms.
    m = import(readData(QFINDTESTDATA("data/gemma-7b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->normsPerLayer, 2);
    // Mixtral: every block is MoE, experts as wide as intermediate_size.
    m = import(readData(QFINDTESTDATA("data/mixtral-8x7b-v0.1.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->experts, 8);
    QCOMPARE(m->architecture->activeExperts, 2);
    QCOMPARE(qint64(m->architecture->effectiveExpertFfn()), 14336LL);
    QCOMPARE(m->architecture->denseLayers, 0);
    // DeepSeek-V3: MLA ranks, 3 dense blocks, router bias, the MTP module named in the
    // source but not counted.
    m = import(readData(QFINDTESTDATA("data/deepseek-v3.json")), &error);
    QVERIFY2(m, qPrintable(error));
    const Architecture &a = *m->architecture;
    QCOMPARE(qint64(a.qLoraRank), 1536LL);
    QCOMPARE(qint64(a.kvLoraRank), 512LL);
    QCOMPARE(qint64(a.qkRopeHeadDim), 64LL);
    QCOMPARE(qint64(a.qkNopeHeadDim), 128LL);
    QCOMPARE(qint64(a.vHeadDim), 128LL);
    QCOMPARE(a.denseLayers, 3);
    QCOMPARE(a.sharedExperts, 1);
    QVERIFY(a.routerBias);
    QVERIFY2(QString::fromStdString(m->source).contains(QStringLiteral("1 multi-token-prediction")),
             m->source.c_str());
}

void TestHfConfig::newerFamilyDetails()
{
    QString error;
    // Qwen2-MoE: 4 shared experts of moe_intermediate_size (5632 / 1408), Q/K/V biases,
    // the shared_expert_gate as a third norm, named in the source.
    auto m = import(readData(QFINDTESTDATA("data/qwen1.5-moe-a2.7b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->experts, 60);
    QCOMPARE(m->architecture->activeExperts, 4);
    QCOMPARE(m->architecture->sharedExperts, 4);
    QCOMPARE(qint64(m->architecture->effectiveExpertFfn()), 1408LL);
    QCOMPARE(m->architecture->normsPerLayer, 3);
    QVERIFY(m->architecture->qkvBiases);
    QVERIFY(!m->architecture->routerBias);
    QVERIFY2(QString::fromStdString(m->source).contains(QStringLiteral("shared_expert_gate")),
             m->source.c_str());
    // DeepSeek-V2-Lite: one full-rank q_proj, no router correction bias, 1 dense block.
    m = import(readData(QFINDTESTDATA("data/deepseek-v2-lite.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->architecture->qLoraRank), 0LL);
    QVERIFY(!m->architecture->routerBias);
    QCOMPARE(m->architecture->denseLayers, 1);
    QCOMPARE(m->architecture->sharedExperts, 2);
    // Pythia: LayerNorm with bias, a plain GELU MLP, biases everywhere, multi-head.
    m = import(readData(QFINDTESTDATA("data/pythia-1b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(m->architecture->layerNormBias);
    QVERIFY(!m->architecture->gatedMlp);
    QVERIFY(m->architecture->linearBiases);
    QCOMPARE(m->architecture->kvHeads, 8);
    QCOMPARE(qint64(m->architecture->effectiveHeadDim()), 256LL);
    // Pythia's card counts 805,736,448 parameters besides embed_in and embed_out.
    QCOMPARE(qint64(m->parameters()) - 2 * 50304LL * 2048, 805736448LL);
    // Phi-3: the fused matrices are counted as Llama's separate ones.
    m = import(readData(QFINDTESTDATA("data/phi-3-mini-4k-instruct.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(m->architecture->gatedMlp);
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("phi-3-mini-4k-instruct"));
    // Llama 4 Scout: text_config read, every block MoE with one shared expert, the dense
    // size (intermediate_size_mlp) kept for ffn, only the language model counted.
    m = import(readData(QFINDTESTDATA("data/llama-4-scout-17b-16e.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->experts, 16);
    QCOMPARE(m->architecture->activeExperts, 1);
    QCOMPARE(m->architecture->sharedExperts, 1);
    QCOMPARE(m->architecture->denseLayers, 0);
    QCOMPARE(qint64(m->architecture->ffn), 16384LL);
    QCOMPARE(qint64(m->architecture->effectiveExpertFfn()), 8192LL);
    QCOMPARE(qint64(m->architecture->headDim), 128LL);
    QVERIFY(!m->architecture->tiedEmbeddings);
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("hf-llama4"));
    QCOMPARE(QString::fromStdString(m->displayName),
             QStringLiteral("Llama 4 (text) 107.8B (config.json)"));
    QCOMPARE(QString::fromStdString(m->source),
             QStringLiteral("Hugging Face config.json, model_type llama4 "
                            "(Llama4ForConditionalGeneration); only the language model "
                            "(llama4_text) is counted, not the vision encoder and projector "
                            "(vision_config)"));
    // Llama 4 Maverick: MoE in every second block (blocks 1, 3, ..., 47), dense blocks
    // between them intermediate_size_mlp wide.
    m = import(readData(QFINDTESTDATA("data/llama-4-maverick-17b-128e.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->experts, 128);
    QCOMPARE(m->architecture->activeExperts, 1);
    QCOMPARE(m->architecture->sharedExperts, 1);
    QCOMPARE(m->architecture->denseLayers, 0);
    QCOMPARE(m->architecture->moeLayerStep, 2);
    QCOMPARE(m->architecture->moeLayerCount(), 24);
    QVERIFY(!m->architecture->isMoeLayer(0));
    QVERIFY(m->architecture->isMoeLayer(47));
    QCOMPARE(qint64(m->architecture->ffn), 16384LL);
    QCOMPARE(qint64(m->architecture->effectiveExpertFfn()), 8192LL);
    QCOMPARE(QString::fromStdString(m->displayName),
             QStringLiteral("Llama 4 (text) 400.7B (config.json)"));
    // Qwen2-VL's original file: the text fields at the top level, Qwen2's Q/K/V biases.
    m = import(readData(QFINDTESTDATA("data/qwen2-vl-7b-instruct.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(m->architecture->qkvBiases);
    QVERIFY(QString::fromStdString(m->source).contains(QStringLiteral("only the language model")));
    // LLaVA-1.5: the four fields text_config leaves out come from LlamaConfig.
    m = import(readData(QFINDTESTDATA("data/llava-1.5-7b-hf.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->architecture->hidden), 4096LL);
    QCOMPARE(qint64(m->architecture->ffn), 11008LL);
    QCOMPARE(m->architecture->kvHeads, 32);
    QVERIFY2(QString::fromStdString(m->source).endsWith(QStringLiteral(
                 "; text_config leaves out hidden_size, intermediate_size, "
                 "num_hidden_layers, num_attention_heads, taken from the LlamaConfig "
                 "defaults")),
             m->source.c_str());
    // The same text_config in a Qwen2-VL file written by newer transformers (nested,
    // model_type qwen2_vl_text) gives the same count as the flat file.
    const QByteArray nested = R"({"model_type": "qwen2_vl", "text_config": {
        "model_type": "qwen2_vl_text", "hidden_size": 3584, "intermediate_size": 18944,
        "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
        "vocab_size": 152064, "tie_word_embeddings": false}})";
    m = import(nested, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 7615616512LL);
}

void TestHfConfig::qkNormFamilies()
{
    QString error;
    // Qwen3: per-head q/k norms, no biases, head_dim 128 from the file.
    auto m = import(readData(QFINDTESTDATA("data/qwen3-8b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->qkNorm, QkNorm::PerHead);
    QCOMPARE(qint64(m->architecture->headDim), 128LL);
    QVERIFY(!m->architecture->qkvBiases);
    QCOMPARE(m->architecture->normsPerLayer, 2);
    // Qwen3-MoE: every block MoE, no shared expert, router without bias.
    m = import(readData(QFINDTESTDATA("data/qwen3-30b-a3b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->qkNorm, QkNorm::PerHead);
    QCOMPARE(m->architecture->experts, 128);
    QCOMPARE(m->architecture->activeExperts, 8);
    QCOMPARE(m->architecture->sharedExperts, 0);
    QCOMPARE(m->architecture->denseLayers, 0);
    QCOMPARE(qint64(m->architecture->effectiveExpertFfn()), 768LL);
    QVERIFY(!m->architecture->routerBias);
    // Gemma 3 (wrapper): text_config read, vocab_size from Gemma3TextConfig's default,
    // four norms, per-head q/k norms, tied; only the language model counted.
    m = import(readData(QFINDTESTDATA("data/gemma-3-27b-it.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->qkNorm, QkNorm::PerHead);
    QCOMPARE(m->architecture->normsPerLayer, 4);
    QCOMPARE(qint64(m->architecture->vocab), 262208LL);
    QVERIFY(m->architecture->tiedEmbeddings);
    QCOMPARE(QString::fromStdString(m->source),
             QStringLiteral("Hugging Face config.json, model_type gemma3 "
                            "(Gemma3ForConditionalGeneration); only the language model "
                            "(gemma3_text) is counted, not the vision encoder and projector "
                            "(vision_config); text_config leaves out vocab_size, taken from "
                            "the Gemma3TextConfig defaults"));
    // OLMo 2: whole-width q/k norms, two norms per block, untied.
    m = import(readData(QFINDTESTDATA("data/olmo-2-1124-7b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->qkNorm, QkNorm::Full);
    QCOMPARE(m->architecture->normsPerLayer, 2);
    QVERIFY(!m->architecture->tiedEmbeddings);
    QCOMPARE(QString::fromStdString(m->displayName), QStringLiteral("OLMo 2 7.3B (config.json)"));
    // OLMo 2 13B (allenai/OLMo-2-1124-13B: hidden 5120, intermediate 13824, 40 layers,
    // 40 heads, vocab 100352; num_key_value_heads absent = heads, Olmo2Config). Block
    // 4 x 5120^2 + q/k norms 10,240 + 3 x 5120 x 13824 + 2 norms 10,240 = 317,214,720;
    // 40 blocks + 2 x 100352 x 5120 + 5120 = 13,716,198,400, the Hub safetensors total.
    m = import(R"({"model_type": "olmo2", "hidden_size": 5120, "intermediate_size": 13824,
        "num_hidden_layers": 40, "num_attention_heads": 40, "vocab_size": 100352,
        "tie_word_embeddings": false})",
               &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->kvHeads, 40);
    QCOMPARE(qint64(m->parameters()), 13716198400LL);
}

void TestHfConfig::genericDecoder()
{
    QString error;
    // SmolLM3-3B (model_type smollm3, no reader of its own) is Llama-shaped: read from
    // the standard fields. Block: Q and O 2048 x 2048, K and V 2048 x 512, MLP 3 x 2048 x
    // 11008, 2 norms 4,096 = 78,123,008; 36 blocks + tied 128256 x 2048 + 2048 =
    // 3,075,098,624, the Hub safetensors total.
    auto m = import(readData(QFINDTESTDATA("data/smollm3-3b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(error.isEmpty());
    QCOMPARE(qint64(layerParameterCount(*m->architecture)), 78123008LL);
    QCOMPARE(qint64(m->parameters()), 3075098624LL);
    QVERIFY(m->architecture->tiedEmbeddings);
    QCOMPARE(m->architecture->kvHeads, 4);
    QCOMPARE(m->architecture->qkNorm, QkNorm::None);
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("hf-smollm3"));
    QCOMPARE(QString::fromStdString(m->displayName),
             QStringLiteral("Generic decoder (smollm3) 3.08B (config.json)"));
    // Every assumption in one note, the model's source.
    QCOMPARE(QString::fromStdString(m->source),
             QStringLiteral(
                 "Hugging Face config.json, model_type smollm3 (SmolLM3ForCausalLM); it is no "
                 "family read exactly, so it is read as a generic Llama-shaped decoder from the "
                 "standard fields, assuming: a gated (SwiGLU) MLP of gate, up and down "
                 "projections intermediate_size wide in every block; ordinary attention with "
                 "Q, K, V and O projections (num_key_value_heads = num_attention_heads and "
                 "head_dim = hidden_size / num_attention_heads when absent); RMSNorm weights "
                 "only, 2 per block and a final norm; no q/k norms; no mixture of experts; "
                 "biases on every linear layer only when attention_bias and mlp_bias are both "
                 "true, else none; rotary positions (no position table); an output head "
                 "unless tie_word_embeddings (default false); any other field is ignored"));
    // Without model_type: the architectures entry names it; absent fields take the
    // Llama defaults (kv heads = heads, untied). Llama 2 7B's shape: 6,738,415,616.
    const QByteArray bare = R"({"architectures": ["FooForCausalLM"], "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "vocab_size": 32000})";
    m = import(bare, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 6738415616LL);
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("hf-generic"));
    QVERIFY(QString::fromStdString(m->source).startsWith(
        QStringLiteral("Hugging Face config.json, model_type (none) "
                       "(FooForCausalLM); it is no family read exactly")));
    // Both bias flags: biases on every linear layer, as Llama's (4 x 4096 + 2 x 11008 +
    // 4096 per block).
    QByteArray biased = bare;
    biased.replace("\"vocab_size\"",
                   "\"attention_bias\": true, \"mlp_bias\": true, \"vocab_size\"");
    m = import(biased, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 6738415616LL + 32 * (5 * 4096LL + 2 * 11008));
    // A wrapper around an unknown text model: its text_config as a generic decoder.
    m = import(R"({"model_type": "llava", "text_config": {"model_type": "granite",
        "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
        "num_attention_heads": 32, "vocab_size": 32000}})",
               &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 6738415616LL);
    QVERIFY2(QString::fromStdString(m->source).contains(
                 QStringLiteral("only the language model (granite) is counted")),
             m->source.c_str());
    QVERIFY2(QString::fromStdString(m->source).contains(
                 QStringLiteral("its text_config is no family read exactly")),
             m->source.c_str());
}

void TestHfConfig::defaultsFromTheConfigClasses()
{
    // LlamaConfig: num_key_value_heads absent means as many as the attention heads;
    // tie_word_embeddings absent means false. Llama 2 7B by hand: 6,738,415,616.
    const QByteArray llama2 = R"({"model_type": "llama", "hidden_size": 4096,
        "intermediate_size": 11008, "num_hidden_layers": 32, "num_attention_heads": 32,
        "vocab_size": 32000})";
    QString error;
    auto m = import(llama2, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->kvHeads, 32);
    QVERIFY(!m->architecture->tiedEmbeddings);
    QCOMPARE(qint64(m->parameters()), 6738415616LL);
    // Llama with attention_bias and mlp_bias: every linear layer has a bias.
    QByteArray biased = llama2;
    biased.replace("\"vocab_size\"",
                   "\"attention_bias\": true, \"mlp_bias\": true, \"vocab_size\"");
    m = import(biased, &error);
    QVERIFY2(m, qPrintable(error));
    QVERIFY(m->architecture->linearBiases);
    // Q, K, V, O biases 4 x 4096, MLP biases 2 x 11008 + 4096, per block.
    QCOMPARE(qint64(m->parameters()), 6738415616LL + 32 * (5 * 4096LL + 2 * 11008));
    // No model_type: the architectures entry decides.
    QByteArray noType = llama2;
    noType.replace("\"model_type\": \"llama\"", "\"architectures\": [\"LlamaForCausalLM\"]");
    m = import(noType, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 6738415616LL);
}

void TestHfConfig::namesFromTheRepository()
{
    QString error;
    auto m = import(readData(QFINDTESTDATA("data/qwen2.5-7b.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("qwen2.5-7b"));
    QCOMPARE(QString::fromStdString(m->displayName), QStringLiteral("Qwen2.5-7B"));
    QVERIFY(QString::fromStdString(m->source).startsWith(
        QStringLiteral("Hugging Face config.json, model_type qwen2 (Qwen2ForCausalLM)")));
    // Without _name_or_path: the family and the count.
    m = import(readData(QFINDTESTDATA("data/mixtral-8x7b-v0.1.json")), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(QString::fromStdString(m->id), QStringLiteral("hf-mixtral"));
    QCOMPARE(QString::fromStdString(m->displayName), QStringLiteral("Mixtral 46.7B (config.json)"));
}

void TestHfConfig::llama4Interleaved_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("denseLayers");
    QTest::addColumn<int>("step");
    QTest::addColumn<qint64>("total");
    const QByteArray fields = R"("model_type": "llama4_text", "hidden_size": 5120,
        "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_hidden_layers": 48,
        "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "vocab_size": 202048, "num_local_experts": 128, "num_experts_per_tok": 1)";
    auto config = [&fields](const char *moe) {
        return QByteArray(R"({"model_type": "llama4", "text_config": {)") + fields + ", " + moe +
               "}}";
    };
    // Maverick's shape with the step (formerly refused as interleaved): the file's
    // total, 400,711,848,960 (publishedCounts above).
    QTest::newRow("interleave_moe_layer_step 2")
        << config(R"("interleave_moe_layer_step": 2)") << 0 << 2 << 400711848960LL;
    // The same blocks listed, as newer config.json files spell them out.
    QByteArray odd = R"("moe_layers": [)";
    for (int l = 1; l < 48; l += 2)
        odd += QByteArray::number(l) + (l < 47 ? ", " : "]");
    QTest::newRow("moe_layers 1, 3, ..., 47")
        << config(odd.constData()) << 0 << 2 << 400711848960LL;
    // Every third block from 2 on (range(2, 48, 3): 16 MoE, 32 dense):
    // 32 x 314,583,040 + 16 x 16,295,536,640 + 2,068,976,640 = 10,066,657,280 +
    // 260,728,586,240 + 2,068,976,640 = 272,864,220,160.
    QTest::newRow("interleave_moe_layer_step 3")
        << config(R"("interleave_moe_layer_step": 3)") << 0 << 3 << 272864220160LL;
    // A dense prefix then every second block: moe_layers 9, 11, ..., 47 (20 MoE blocks)
    // are dense blocks 0-7 and a step of 2 from block 8: denseLayers 8.
    // 28 x 314,583,040 + 20 x 16,295,536,640 + 2,068,976,640 = 8,808,325,120 +
    // 325,910,732,800 + 2,068,976,640 = 336,788,034,560.
    QByteArray late = R"("moe_layers": [)";
    for (int l = 9; l < 48; l += 2)
        late += QByteArray::number(l) + (l < 47 ? ", " : "]");
    QTest::newRow("dense prefix, then step 2")
        << config(late.constData()) << 8 << 2 << 336788034560LL;
}

void TestHfConfig::llama4Interleaved()
{
    QFETCH(QByteArray, json);
    QFETCH(int, denseLayers);
    QFETCH(int, step);
    QFETCH(qint64, total);
    QString error;
    const auto m = import(json, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->denseLayers, denseLayers);
    QCOMPARE(m->architecture->moeLayerStep, step);
    QCOMPARE(qint64(m->parameters()), total);
}

void TestHfConfig::qwenSparseBlocks_data()
{
    QTest::addColumn<QByteArray>("layout");
    QTest::addColumn<int>("denseLayers");
    QTest::addColumn<int>("step");
    QTest::addColumn<qint64>("total");
    // Qwen3-30B-A3B's file with its blocks made dense by decoder_sparse_step and
    // mlp_only_layers (Qwen3MoeDecoderLayer: sparse where layer_idx is not in
    // mlp_only_layers and (layer_idx + 1) % decoder_sparse_step == 0; else Qwen3MoeMLP
    // intermediate_size 6144 wide). MoE block 623,120,640 (publishedCounts); dense block:
    // attention 18,874,368 + q/k norms 256 + 3 x 2048 x 6144 = 37,748,736 + 2 norms 4,096 =
    // 56,627,456; outside the blocks 2 x 151936 x 2048 + 2048 = 622,331,904.
    // The file as published: every block sparse, 30,532,122,624.
    QTest::newRow("decoder_sparse_step 1") << QByteArray() << 0 << 1 << 30532122624LL;
    // Blocks 1, 3, ..., 47 sparse: 24 x 56,627,456 + 24 x 623,120,640 + 622,331,904 =
    // 16,936,286,208.
    QTest::newRow("decoder_sparse_step 2")
        << QByteArray(R"("decoder_sparse_step": 2)") << 0 << 2 << 16936286208LL;
    // mlp_only_layers [0, 1, 2]: a dense prefix of 3, then 45 MoE blocks:
    // 3 x 56,627,456 + 45 x 623,120,640 + 622,331,904 = 28,832,643,072.
    QTest::newRow("mlp_only_layers 0-2")
        << QByteArray(R"("mlp_only_layers": [2, 0, 1])") << 3 << 1 << 28832643072LL;
    // Both: step 2 and block 1 dense, so blocks 3, 5, ..., 47 sparse: a dense prefix of 2,
    // then every second block: 25 x 56,627,456 + 23 x 623,120,640 + 622,331,904 =
    // 1,415,686,400 + 14,331,774,720 + 622,331,904 = 16,369,793,024.
    QTest::newRow("decoder_sparse_step 2, mlp_only_layers [1]")
        << QByteArray(R"("decoder_sparse_step": 2, "mlp_only_layers": [1])") << 2 << 2
        << 16369793024LL;
}

void TestHfConfig::qwenSparseBlocks()
{
    QFETCH(QByteArray, layout);
    QFETCH(int, denseLayers);
    QFETCH(int, step);
    QFETCH(qint64, total);
    QByteArray json = readData(QFINDTESTDATA("data/qwen3-30b-a3b.json"));
    json.replace("\"decoder_sparse_step\": 1,", "");
    json.replace("\"mlp_only_layers\": [],", "");
    if (!layout.isEmpty())
        json.replace("\"model_type\"", layout + ", \"model_type\"");
    QString error;
    const auto m = import(json, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->denseLayers, denseLayers);
    QCOMPARE(m->architecture->moeLayerStep, step);
    QCOMPARE(qint64(m->parameters()), total);
}

void TestHfConfig::expertFieldsNeverDense_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QString supported = supportedHfModelTypes().join(QStringLiteral(", "));
    const QByteArray olmoe = readData(QFINDTESTDATA("data/olmoe-1b-7b.json"));
    // OLMoE under a name no reader knows: as a generic dense decoder it would be 575M
    // (16 x (16,777,216 + 3 x 2048 x 1024 + 4,096) + 206,047,232 = 575,211,520), not 6.92B.
    QByteArray renamed = olmoe;
    renamed.replace("\"model_type\": \"olmoe\"", "\"model_type\": \"olmoe_next\"");
    QTest::newRow("OLMoE relabelled")
        << renamed
        << "config.json (olmoe_next): model_type 'olmoe_next' has num_experts = 64 but is not a "
           "known mixture-of-experts family (a generic decoder reads experts only from "
           "Mixtral's num_local_experts and num_experts_per_tok), so it is not read as a dense "
           "model; supported: " +
               supported;
    // DeepSeek-V3 relabelled deepseek_v32 (as a dense generic decoder: 38.6B, not 671B).
    // DeepSeek-V3.2's own files add the lightning indexer (index_n_heads, index_head_dim),
    // which DeepSeek-V3's reader does not count, so the label is not taken as V3.
    QByteArray v32 = readData(QFINDTESTDATA("data/deepseek-v3.json"));
    v32.replace("\"model_type\": \"deepseek_v3\"", "\"model_type\": \"deepseek_v32\"");
    QTest::newRow("DeepSeek-V3 relabelled deepseek_v32")
        << v32
        << "config.json (deepseek_v32): model_type 'deepseek_v32' has n_routed_experts = 256 but "
           "is not a known mixture-of-experts family (a generic decoder reads experts only from "
           "Mixtral's num_local_experts and num_experts_per_tok), so it is not read as a dense "
           "model; supported: " +
               supported;
    // Without model_type, by an unknown architectures class; a wrapper's text model.
    QTest::newRow("architectures only")
        << QByteArray(R"({"architectures": ["FooMoeForCausalLM"], "hidden_size": 64,
            "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
            "vocab_size": 100, "num_experts": 8, "num_experts_per_tok": 2})")
        << "config.json: architectures FooMoeForCausalLM has num_experts = 8 but is not a known "
           "mixture-of-experts family (a generic decoder reads experts only from Mixtral's "
           "num_local_experts and num_experts_per_tok), so it is not read as a dense model; "
           "supported: " +
               supported;
    QTest::newRow("wrapper text model")
        << QByteArray(R"({"model_type": "llava", "text_config": {"model_type": "foo_moe",
            "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
            "num_attention_heads": 4, "vocab_size": 100, "moe_intermediate_size": 32}})")
        << "config.json (llava): text_config model_type 'foo_moe' has moe_intermediate_size = 32 "
           "but is not a known mixture-of-experts family (a generic decoder reads experts only "
           "from Mixtral's num_local_experts and num_experts_per_tok), so it is not read as a "
           "dense model; supported: " +
               supported;
    // Mixtral's fields plus a shared expert (Granite-MoE-Shared's shared_intermediate_size)
    // are not Mixtral-style: the shared expert is named.
    QTest::newRow("generic shared expert")
        << QByteArray(R"({"model_type": "granitemoeshared", "hidden_size": 64,
            "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
            "vocab_size": 100, "num_local_experts": 8, "num_experts_per_tok": 2,
            "shared_intermediate_size": 256})")
        << "config.json (granitemoeshared): model_type 'granitemoeshared' has "
           "shared_intermediate_size = 256 but is not a known mixture-of-experts family (a "
           "generic decoder reads experts only from Mixtral's num_local_experts and "
           "num_experts_per_tok), so it is not read as a dense model; supported: " +
               supported;
    // A dense family with expert fields: transformers would build the dense model and
    // drop them, so the file is no such model.
    QTest::newRow("dense family with experts")
        << QByteArray(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
            "num_local_experts": 8, "num_experts_per_tok": 2})")
        << "config.json (llama): num_local_experts = 8, but Llama (LlamaForCausalLM) has no "
           "mixture of experts, so it is not read as a dense model";
    QTest::newRow("dense family with a layer list")
        << QByteArray(R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
            "vocab_size": 100, "mlp_only_layers": [0]})")
        << "config.json (qwen2): mlp_only_layers = [0], but Qwen2 (Qwen2ForCausalLM) has no "
           "mixture of experts, so it is not read as a dense model";
}

void TestHfConfig::expertFieldsNeverDense()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!import(json, &error));
    QCOMPARE(error, message);
}

void TestHfConfig::mixtralStyleGeneric()
{
    // Mixtral 8x7B under a name no reader knows: Mixtral's two expert fields alone are read
    // as MixtralSparseMoeBlock in every block, the same 46,702,792,704 (12,879,925,248
    // active) as publishedCounts' Mixtral row, with the assumption in the source.
    QByteArray json = readData(QFINDTESTDATA("data/mixtral-8x7b-v0.1.json"));
    json.replace("\"model_type\": \"mixtral\"", "\"model_type\": \"mixtral_custom\"");
    QString error;
    const auto m = import(json, &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(qint64(m->parameters()), 46702792704LL);
    QCOMPARE(qint64(m->activeParameters()), 12879925248LL);
    QCOMPARE(m->architecture->experts, 8);
    QCOMPARE(m->architecture->activeExperts, 2);
    const QString source = QString::fromStdString(m->source);
    QVERIFY2(source.contains(
                 QStringLiteral("assuming: a Mixtral-style mixture of experts in every block: "
                                "num_local_experts gated (SwiGLU) experts")),
             qPrintable(source));
    QVERIFY2(source.contains(QStringLiteral("no shared experts and no dense blocks")),
             qPrintable(source));
    QVERIFY2(!source.contains(QStringLiteral("no mixture of experts")), qPrintable(source));
    // num_experts_per_tok is required with num_local_experts.
    json.replace("\"num_experts_per_tok\": 2,", "");
    QVERIFY(!import(json, &error));
    QVERIFY2(error.contains(QStringLiteral("as a generic decoder: missing num_experts_per_tok")),
             qPrintable(error));
}

void TestHfConfig::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    const QString supported = QStringLiteral(
        "llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, gemma3_text, qwen3, qwen3_moe, "
        "olmo2, phi3, gpt_neox, llama4_text, deepseek_v2, deepseek_v3, olmoe, granitemoe, "
        "llava, llava_next, qwen2_vl, qwen2_5_vl, llama4, gemma3");
    QTest::newRow("not json")
        << QByteArray(R"({"model_type": )")
        << "config.json: expected a JSON object: unterminated object at offset 15";
    QTest::newRow("array") << QByteArray("[1, 2]") << "config.json: expected a JSON object";
    QTest::newRow("empty file") << QByteArray(" \n")
                                << "config.json: the file is empty, expected a JSON object";
    QTest::newRow("null") << QByteArray("null")
                          << "config.json: expected a JSON object: illegal value at offset 1";
    // A wrapper whose text_config is there but no object is told so, not "missing".
    QTest::newRow("text_config not an object")
        << QByteArray(R"({"model_type": "llava", "text_config": 5})")
        << "config.json (llava): text_config is not an object";
    // An unknown family is read as a generic decoder from the standard fields; GPT-2's
    // config.json names them n_embd, n_layer, n_head (and has no intermediate size), so
    // it is refused with what is missing.
    QTest::newRow("unknown model_type")
        << QByteArray(R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"],
            "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
            "vocab_size": 50257})")
        << "config.json (gpt2): unsupported model_type 'gpt2' (GPT2LMHeadModel); as a generic "
           "decoder: missing hidden_size, intermediate_size, num_hidden_layers, "
           "num_attention_heads; supported: " +
               supported;
    QTest::newRow("unknown architecture")
        << QByteArray(R"({"architectures": ["FalconForCausalLM"]})")
        << "config.json: unsupported architectures FalconForCausalLM; as a generic decoder: "
           "missing hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, "
           "vocab_size; supported: " +
               supported;
    QTest::newRow("nothing") << QByteArray("{}")
                             << "config.json: no model_type or architectures; as a generic "
                                "decoder: missing hidden_size, intermediate_size, "
                                "num_hidden_layers, num_attention_heads, vocab_size; supported: " +
                                    supported;
    QTest::newRow("generic attention bias alone")
        << QByteArray(R"({"model_type": "granite", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
            "attention_bias": true})")
        << "config.json (granite): unsupported model_type 'granite'; as a generic decoder: "
           "attention_bias without mlp_bias (or the reverse) is not modelled; supported: " +
               supported;
    QTest::newRow("generic invalid shape")
        << QByteArray(R"({"model_type": "granite", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 3,
            "vocab_size": 100})")
        << "config.json (granite): unsupported model_type 'granite'; as a generic decoder: "
           "heads (4) is not divisible by kv heads (3); supported: " +
               supported;
    // Every missing field at once, in reading order.
    QTest::newRow("mixtral missing four")
        << QByteArray(R"({"model_type": "mixtral", "intermediate_size": 14336,
            "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8})")
        << "config.json (mixtral): missing hidden_size, vocab_size, num_local_experts, "
           "num_experts_per_tok";
    QTest::newRow("gemma needs head_dim")
        << QByteArray(R"({"model_type": "gemma2", "hidden_size": 4608, "intermediate_size": 36864,
            "num_hidden_layers": 46, "num_attention_heads": 32, "num_key_value_heads": 16,
            "vocab_size": 256000})")
        << "config.json (gemma2): missing head_dim";
    QTest::newRow("deepseek missing MLA and MoE")
        << QByteArray(R"({"model_type": "deepseek_v3", "hidden_size": 7168,
            "intermediate_size": 18432, "num_hidden_layers": 61, "num_attention_heads": 128,
            "vocab_size": 129280, "kv_lora_rank": 512})")
        << "config.json (deepseek_v3): missing n_routed_experts, num_experts_per_tok, "
           "moe_intermediate_size, n_shared_experts, first_k_dense_replace, q_lora_rank, "
           "qk_rope_head_dim, qk_nope_head_dim, v_head_dim";
    QTest::newRow("malformed and missing")
        << QByteArray(R"({"model_type": "mistral", "hidden_size": "4096", "intermediate_size": -1,
            "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
            "tie_word_embeddings": "no"})")
        << "config.json (mistral): missing vocab_size; hidden_size must be a positive whole "
           "number; intermediate_size must be a positive whole number; tie_word_embeddings "
           "must be true or false";
    // Review finding F13: a count past 1,000,000 was clamped silently and the
    // message then spoke of 1,000,000 heads; a 15 MiB model_type was echoed twice.
    QTest::newRow("heads past the count limit")
        << QByteArray(R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
            "num_hidden_layers": 32, "num_attention_heads": 1e12, "num_key_value_heads": 8,
            "vocab_size": 32000})")
        << "config.json (mistral): num_attention_heads must be at most 1000000 (got "
           "1000000000000)";
    QTest::newRow("huge model_type")
        << QByteArray(R"({"model_type": ")") + QByteArray(1 << 20, 'x') + QByteArray(R"("})")
        << "config.json: model_type is 1048576 characters long, more than the 256 of any model "
           "family";
    QTest::newRow("attention bias alone")
        << QByteArray(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
            "attention_bias": true})")
        << "config.json (llama): attention_bias without mlp_bias (or the reverse) is not "
           "modelled";
    // The q/k-norm families read now; what they cannot express is still refused.
    QTest::newRow("qwen3 needs head_dim")
        << QByteArray(R"({"model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
            "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
            "vocab_size": 151936})")
        << "config.json (qwen3): missing head_dim";
    QTest::newRow("qwen3_moe by architecture")
        << QByteArray(R"({"architectures": ["Qwen3MoeForCausalLM"]})")
        << "config.json (qwen3_moe): missing hidden_size, intermediate_size, num_hidden_layers, "
           "num_attention_heads, num_key_value_heads, vocab_size, head_dim, num_experts, "
           "num_experts_per_tok, moe_intermediate_size";
    QTest::newRow("qwen3 attention bias")
        << QByteArray(R"({"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 16, "vocab_size": 100, "attention_bias": true})")
        << "config.json (qwen3): attention_bias (biases on Q, K, V and O without MLP biases) is "
           "not modelled";
    // A dense block in the middle (a dense prefix or every n-th block is read:
    // qwenSparseBlocks).
    QTest::newRow("qwen3_moe dense block inside")
        << QByteArray(R"({"model_type": "qwen3_moe", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 16, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 32, "mlp_only_layers": [1]})")
        << "config.json (qwen3_moe): this dense/MoE layer pattern (mlp_only_layers) is not "
           "modelled, only a dense prefix, then every n-th block";
    QTest::newRow("qwen3_moe no sparse block")
        << QByteArray(R"({"model_type": "qwen3_moe", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 16, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
            "moe_intermediate_size": 32, "decoder_sparse_step": 5})")
        << "config.json (qwen3_moe): decoder_sparse_step 5 leaves no MoE block";
    QTest::newRow("olmoe attention bias")
        << QByteArray(R"({"model_type": "olmoe", "hidden_size": 64, "intermediate_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
            "attention_bias": true})")
        << "config.json (olmoe): attention_bias (biases on Q, K, V and O without MLP biases) is "
           "not modelled";
    QTest::newRow("olmoe head_dim")
        << QByteArray(R"({"model_type": "olmoe", "hidden_size": 64, "intermediate_size": 32,
            "num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 32,
            "vocab_size": 100})")
        << "config.json (olmoe): head_dim 32 other than hidden_size / num_attention_heads is "
           "not modelled (q_norm is hidden_size wide)";
    QTest::newRow("gemma3 sparse text_config")
        << QByteArray(R"({"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
            "hidden_size": 5376, "num_attention_heads": 30}})")
        << "config.json (gemma3): heads (30) is not divisible by kv heads (4)";
    QTest::newRow("mllama")
        << QByteArray(R"({"model_type": "mllama", "text_config": {"hidden_size": 4096}})")
        << "config.json (mllama): the cross-attention layers of Llama 3.2 Vision "
           "(cross_attention_layers) are not modelled";
    // Llama 4 with MoE blocks that are neither a dense prefix nor every n-th block after
    // it (Maverick's interleave_moe_layer_step 2 is accepted: llama4Interleaved).
    QTest::newRow("llama4 irregular moe_layers")
        << QByteArray(R"({"model_type": "llama4", "text_config": {"model_type": "llama4_text",
            "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
            "num_hidden_layers": 8, "num_attention_heads": 40, "num_key_value_heads": 8,
            "head_dim": 128, "vocab_size": 202048, "num_local_experts": 128,
            "num_experts_per_tok": 1, "moe_layers": [1, 3, 4, 7]}})")
        << "config.json (llama4): this dense/MoE layer pattern (moe_layers) is not modelled, "
           "only a dense prefix, then every n-th block";
    QTest::newRow("llama4 without text_config")
        << QByteArray(R"({"model_type": "llama4", "vision_config": {}})")
        << "config.json (llama4): missing text_config";
    QTest::newRow("llava sparse qwen2 text_config")
        << QByteArray(R"({"model_type": "llava", "text_config": {"model_type": "qwen2",
            "vocab_size": 152000}})")
        << "config.json (llava): text_config missing hidden_size, intermediate_size, "
           "num_hidden_layers, num_attention_heads, num_key_value_heads";
    QTest::newRow("llava unknown text model")
        << QByteArray(R"({"model_type": "llava", "text_config": {"model_type": "gpt2"}})")
        << "config.json (llava): unsupported text_config model_type 'gpt2'; as a generic "
           "decoder: text_config missing hidden_size, intermediate_size, num_hidden_layers, "
           "num_attention_heads, vocab_size; supported: " +
               supported;
    QTest::newRow("qwen2_moe sparse step")
        << QByteArray(R"({"model_type": "qwen2_moe", "hidden_size": 2048,
            "intermediate_size": 5632, "num_hidden_layers": 24, "num_attention_heads": 16,
            "num_key_value_heads": 16, "vocab_size": 151936, "num_experts": 60,
            "num_experts_per_tok": 4, "moe_intermediate_size": 1408,
            "shared_expert_intermediate_size": 5000, "decoder_sparse_step": 2})")
        << "config.json (qwen2_moe): shared_expert_intermediate_size 5000 is not a multiple of "
           "moe_intermediate_size 1408; dense blocks among MoE blocks (decoder_sparse_step 2) "
           "are not modelled for Qwen2-MoE: its shared_expert_gate is only in the MoE blocks";
    QTest::newRow("gpt_neox without attention biases")
        << QByteArray(R"({"model_type": "gpt_neox", "hidden_size": 2048,
            "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 8,
            "vocab_size": 50304, "attention_bias": false})")
        << "config.json (gpt_neox): attention_bias false (MLP biases without attention biases) "
           "is not modelled";
    QTest::newRow("invalid shape")
        << QByteArray(R"({"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
            "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 5,
            "vocab_size": 32000})")
        << "config.json (mistral): heads (32) is not divisible by kv heads (5)";
}

void TestHfConfig::errors()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!import(json, &error));
    QCOMPARE(error, message);
    // A null error pointer is allowed.
    QVERIFY(!modelFromHfConfig(json, nullptr));
}

QTEST_APPLESS_MAIN(TestHfConfig)
#include "test_hfconfig.moc"
