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
    void defaultsFromTheConfigClasses();
    void namesFromTheRepository();
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

void TestHfConfig::errors_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not json") << QByteArray(R"({"model_type": )")
                              << "config.json: unterminated object at offset 15";
    QTest::newRow("array") << QByteArray("[1, 2]") << "config.json: expected a JSON object";
    QTest::newRow("unknown model_type")
        << QByteArray(R"({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]})")
        << "config.json: unsupported model_type 'gpt2' (GPT2LMHeadModel); supported: llama, "
           "mistral, mixtral, qwen2, gemma, gemma2, deepseek_v3";
    QTest::newRow("unknown architecture")
        << QByteArray(R"({"architectures": ["FalconForCausalLM"]})")
        << "config.json: unsupported architectures FalconForCausalLM; supported: llama, "
           "mistral, mixtral, qwen2, gemma, gemma2, deepseek_v3";
    QTest::newRow("nothing") << QByteArray("{}")
                             << "config.json: no model_type or architectures; supported: llama, "
                                "mistral, mixtral, qwen2, gemma, gemma2, deepseek_v3";
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
    QTest::newRow("attention bias alone")
        << QByteArray(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
            "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100,
            "attention_bias": true})")
        << "config.json (llama): attention_bias without mlp_bias (or the reverse) is not "
           "modelled";
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
