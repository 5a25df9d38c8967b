// The shipped catalog (resources/data/*.json) and how malformed catalogs are refused.
#include "catalog.h"
#include "scenariofile.h"

#include <QTest>

using namespace shardscope;

class TestCatalog : public QObject
{
    Q_OBJECT
private slots:
    void builtInHasTheIssuePresets();
    void builtInCountsAreExact();
    void qkNormPresets_data();
    void qkNormPresets();
    void llama4MaverickPreset();
    void recipesMatchDomainSection1();
    void gpuCapacities();
    void fineTuningPresets();
    void malformedFineTuningPreset_data();
    void malformedFineTuningPreset();
    void malformed_data();
    void malformed();
};

void TestCatalog::builtInHasTheIssuePresets()
{
    const Catalog &c = Catalog::builtIn();
    for (const char *id :
         {"llama2-7b", "llama2-13b", "llama3-8b", "llama3-70b", "llama3.1-405b", "mistral-7b"})
        QVERIFY2(c.model(id), id);
    for (const char *id : {"h100-sxm-80gb", "h200-141gb", "a100-40gb", "a100-80gb", "b200-180gb",
                           "mi300x-192gb", "l40s-48gb", "rtx4090-24gb"})
        QVERIFY2(c.gpu(id), id);
    QVERIFY(!c.model("gpt-5"));
    for (const auto &m : c.models())
        QVERIFY2(!m.source.empty(), m.id.c_str());
    for (const auto &g : c.gpus())
        QVERIFY2(!g.source.empty(), g.id.c_str());
}

void TestCatalog::builtInCountsAreExact()
{
    const Catalog &c = Catalog::builtIn();
    QCOMPARE(qint64(c.model("llama3-70b")->parameters()), 70553706496LL);
    QCOMPARE(qint64(c.model("llama3.1-405b")->parameters()), 405853388800LL);
    QCOMPARE(qint64(c.model("llama2-13b")->parameters()), 13015864320LL);
    QCOMPARE(qint64(c.model("plain-70b")->parameters()), 70000000000LL);
}

void TestCatalog::qkNormPresets_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("active");
    // Each total is the Hub's safetensors total of the named repository, reproduced by
    // hand in tests/io/test_hfconfig.cpp (publishedCounts) and tests/core/test_model.cpp.
    QTest::newRow("qwen3-8b (Qwen/Qwen3-8B)") << "qwen3-8b" << 8190735360LL << 8190735360LL;
    // Qwen3-32B: Q and O 5120 x 8192, K and V 5120 x 1024, q/k norms 256, MLP 3 x 5120 x
    // 25600, 2 norms 10,240 = 487,598,336 per block; 64 blocks + 2 x 151936 x 5120 + 5120
    // = 32,762,123,264 (Qwen/Qwen3-32B).
    QTest::newRow("qwen3-32b (Qwen/Qwen3-32B)") << "qwen3-32b" << 32762123264LL << 32762123264LL;
    QTest::newRow("qwen3-30b-a3b (Qwen/Qwen3-30B-A3B)")
        << "qwen3-30b-a3b" << 30532122624LL << 3353032704LL;
    // The language model of google/gemma-3-27b-it: 27,432,406,640 - 423,060,336 vision.
    QTest::newRow("gemma3-27b text") << "gemma3-27b" << 27009346304LL << 27009346304LL;
    QTest::newRow("olmo2-7b (allenai/OLMo-2-1124-7B)")
        << "olmo2-7b" << 7298617344LL << 7298617344LL;
}

void TestCatalog::qkNormPresets()
{
    QFETCH(QString, id);
    QFETCH(qint64, total);
    QFETCH(qint64, active);
    const Model *m = Catalog::builtIn().model(id.toStdString());
    QVERIFY2(m, qPrintable(id));
    QVERIFY(m->architecture);
    QVERIFY(m->architecture->qkNorm != QkNorm::None);
    QCOMPARE(qint64(m->parameters()), total);
    QCOMPARE(qint64(m->activeParameters()), active);
}

void TestCatalog::llama4MaverickPreset()
{
    // The language model of meta-llama/Llama-4-Maverick-17B-128E, derived by hand in
    // tests/core/test_moe.cpp (llama4MaverickCounts) and tests/io/test_hfconfig.cpp: 24
    // dense blocks of 314,583,040 and 24 MoE blocks of 16,295,536,640, interleaved (MoE in
    // blocks 1, 3, ..., 47), plus 2,068,976,640 outside the blocks.
    const Model *m = Catalog::builtIn().model("llama4-maverick");
    QVERIFY(m);
    QVERIFY(m->architecture);
    QCOMPARE(m->architecture->moeLayerStep, 2);
    QCOMPARE(m->architecture->denseLayers, 0);
    QVERIFY(!m->architecture->isMoeLayer(0));
    QVERIFY(m->architecture->isMoeLayer(1));
    QCOMPARE(m->architecture->moeLayerCount(), 24);
    QCOMPARE(qint64(m->parameters()), 400711848960LL);
    QCOMPARE(qint64(m->activeParameters()), 17184691200LL);
}

void TestCatalog::recipesMatchDomainSection1()
{
    const Catalog &c = Catalog::builtIn();
    QCOMPARE(qint64(c.recipe("mixed-adam")->totalBytesPerParameter()), 16LL);
    QCOMPARE(qint64(c.recipe("mixed-adam-fp32-grads")->totalBytesPerParameter()), 18LL);
    QCOMPARE(qint64(c.recipe("bf16-adamw")->totalBytesPerParameter()), 8LL);
    QCOMPARE(qint64(c.recipe("fp32-adam")->totalBytesPerParameter()), 16LL);
    QCOMPARE(qint64(c.recipe("adam-8bit")->optimizerBytes), 2LL);
    QCOMPARE(qint64(c.recipe("sgd-momentum")->optimizerBytes), 4LL);
}

void TestCatalog::gpuCapacities()
{
    const Catalog &c = Catalog::builtIn();
    QCOMPARE(qint64(c.gpu("h100-sxm-80gb")->capacityBytes), 80'000'000'000LL);
    QCOMPARE(qint64(c.gpu("h100-sxm-80gb")->driverReportedBytes), 81559LL * 1048576);
    QCOMPARE(qint64(c.gpu("h200-141gb")->capacityBytes), 141'000'000'000LL);
    QCOMPARE(qint64(c.gpu("b200-180gb")->driverReportedBytes), 183359LL * 1048576);
    // V100: drivers before 530 report 16160 MiB, later ones 16384; the smaller is kept.
    QCOMPARE(qint64(c.gpu("v100-16gb")->driverReportedBytes), 16160LL * 1048576);
    // No public driver figure found for the MI325X.
    QCOMPARE(qint64(c.gpu("mi325x-256gb")->driverReportedBytes), 0LL);
    // Every card but that one has a driver figure, cited in its source, within 15% of
    // its label (the B300 reports 288.4 GB for its 288, the A100 80GB 85.9 GB).
    for (const Gpu &g : c.gpus()) {
        if (g.id == "mi325x-256gb")
            continue;
        QVERIFY2(g.driverReportedBytes > 0, g.id.c_str());
        QVERIFY2(g.source.find("reports") != std::string::npos, g.id.c_str());
        QVERIFY2(g.driverReportedBytes >= g.capacityBytes, g.id.c_str());
        QVERIFY2(g.driverReportedBytes < g.capacityBytes * 115 / 100, g.id.c_str());
        QCOMPARE(g.usableBytes(), g.driverReportedBytes);
    }
    // Fit is checked against the usable bytes: the driver's total where known,
    // 81,559 x 2^20 = 85,520,809,984 bytes (85.5 GB) on an H100 sold as 80 GB, and
    // the datasheet's 256e9 for the MI325X, which has no driver figure.
    QCOMPARE(qint64(c.gpu("h100-sxm-80gb")->usableBytes()), 85'520'809'984LL);
    QCOMPARE(qint64(c.gpu("a100-40gb")->usableBytes()), 42'949'672'960LL); // 40,960 MiB
    QCOMPARE(qint64(c.gpu("mi325x-256gb")->usableBytes()), 256'000'000'000LL);
}

/// recipes.json's fine-tuning presets: the window's Full, LoRA and QLoRA buttons as
/// settings-table values. QLoRA as artidoro/qlora runs it (Dettmers et al. 2023, section
/// 4): r 64, alpha 16 on every linear layer, NF4 base, bf16 adapters and gradients, fp32
/// paged AdamW moments, no master copy: 2 + 2 + 0 + 8 = 12 bytes per adapter parameter.
void TestCatalog::fineTuningPresets()
{
    const Catalog &c = Catalog::builtIn();
    const auto &presets = c.fineTuningPresets();
    QCOMPARE(presets.size(), std::size_t(3));
    QCOMPARE(presets[0].id, std::string("full"));
    QCOMPARE(presets[2].name, std::string("QLoRA"));
    QCOMPARE(qint64(c.recipe("qlora")->totalBytesPerParameter()), 12LL);
    QCOMPARE(qint64(c.recipe("qlora")->masterWeightBytes), 0LL);

    Scenario s = defaultScenario();
    s.recipe = *c.recipe("mixed-adam");
    applyFineTuningPreset(c, presets[2], s);
    QCOMPARE(s.fineTuning.loraRank, 64);
    QCOMPARE(s.fineTuning.loraAlpha, 16);
    QCOMPARE(s.fineTuning.loraTargets, int(LoraAllLinear));
    QCOMPARE(s.fineTuning.baseFormat, BaseFormat::Nf4);
    // The Guanaco scripts' --lora_dropout 0.1 / 0.05; qlora.py casts the embedding and
    // head back to bf16 after prepare_model_for_kbit_training.
    QVERIFY(s.fineTuning.loraDropout);
    QVERIFY(!s.fineTuning.fp32Unquantized);
    QVERIFY(s.training.pagedOptimizer);
    QCOMPARE(s.recipe.id, std::string("qlora"));
    // LoRA names no recipe: it leaves QLoRA's for the catalog's first (mixed-adam).
    applyFineTuningPreset(c, presets[1], s);
    QCOMPARE(s.fineTuning.loraRank, 8);
    QCOMPARE(s.fineTuning.loraTargets, int(LoraQ | LoraV));
    QCOMPARE(s.fineTuning.baseFormat, BaseFormat::Bf16);
    QVERIFY(!s.fineTuning.loraDropout); // PEFT's default lora_dropout 0.0
    QVERIFY(!s.training.pagedOptimizer);
    QCOMPARE(s.recipe.id, std::string("mixed-adam"));
    // A recipe picked by hand stays.
    s.recipe = *c.recipe("adam-8bit");
    applyFineTuningPreset(c, presets[0], s);
    QCOMPARE(s.fineTuning.loraRank, 0);
    QCOMPARE(s.recipe.id, std::string("adam-8bit"));
}

void TestCatalog::malformedFineTuningPreset_data()
{
    QTest::addColumn<QByteArray>("presets");
    QTest::addColumn<QString>("message");
    QTest::newRow("not an array") << QByteArray(R"("fine_tuning": {})")
                                  << "recipes.json: \"fine_tuning\" must be an array";
    QTest::newRow("no name") << QByteArray(R"("fine_tuning": [{"id": "x"}])")
                             << "recipes.json fine_tuning entry 0 (x): needs \"id\" and \"name\"";
    QTest::newRow("unknown recipe")
        << QByteArray(R"("fine_tuning": [{"id": "x", "name": "X", "recipe": "nope"}])")
        << "recipes.json fine_tuning entry 0 (x): unknown recipe 'nope'";
    QTest::newRow("unknown setting")
        << QByteArray(R"("fine_tuning": [{"id": "x", "name": "X", "settings": {"rank": "8"}}])")
        << "recipes.json fine_tuning entry 0 (x): unknown setting 'rank'";
    QTest::newRow("bad value")
        << QByteArray(
               R"("fine_tuning": [{"id": "x", "name": "X", "settings": {"base_format": "nf3"}}])")
        << "recipes.json fine_tuning entry 0 (x): base_format ";
}

void TestCatalog::malformedFineTuningPreset()
{
    QFETCH(QByteArray, presets);
    QFETCH(QString, message);
    const QByteArray models = R"({"models": [{"id": "x", "name": "X", "parameters": 5}]})";
    const QByteArray recipes = R"({"recipes": [{"id": "r", "weights": 2, "gradients": 2, )"
                               R"("master_weights": 4, "optimizer": 8}], )" +
                               presets + "}";
    const QByteArray gpus = R"({"gpus": [{"id": "g", "short": "G", "capacity_gb": 80}]})";
    QString error;
    QVERIFY(!Catalog::fromJson(models, recipes, gpus, &error));
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestCatalog::malformed_data()
{
    QTest::addColumn<QByteArray>("models");
    QTest::addColumn<QString>("message");
    QTest::newRow("truncated") << QByteArray(R"({"models": [ {"id": "x")")
                               << "models.json: unterminated string at offset 23";
    QTest::newRow("no array") << QByteArray(R"({"modelz": []})")
                              << "models.json: no \"models\" array";
    QTest::newRow("wrong type")
        << QByteArray(R"({"models": [{"id": "x", "name": "X", "parameters": "many"}]})")
        << "models.json entry 0 (x): \"parameters\" must be a non-negative whole number";
    QTest::newRow("negative")
        << QByteArray(R"({"models": [{"id": "x", "name": "X", "parameters": -1}]})")
        << "models.json entry 0 (x): \"parameters\" must be a non-negative whole number";
    QTest::newRow("missing field")
        << QByteArray(R"({"models": [{"id": "x", "name": "X", "layers": 2, "hidden": 8}]})")
        << "models.json entry 0 (x): missing \"ffn\"";
    QTest::newRow("bad heads")
        << QByteArray(R"({"models": [{"id": "x", "name": "X", "layers": 2, "hidden": 8,
            "ffn": 16, "heads": 4, "kv_heads": 3, "vocab": 10}]})")
        << "models.json entry 0 (x): heads (4) is not divisible by kv heads (3)";
}

void TestCatalog::malformed()
{
    QFETCH(QByteArray, models);
    QFETCH(QString, message);
    const QByteArray recipes =
        R"({"recipes": [{"id": "r", "weights": 2, "gradients": 2, "master_weights": 4, "optimizer": 8}]})";
    const QByteArray gpus = R"({"gpus": [{"id": "g", "short": "G", "capacity_gb": 80}]})";
    QString error;
    QVERIFY(!Catalog::fromJson(models, recipes, gpus, &error));
    QCOMPARE(error, message);
    // The same recipes and gpus with a good model list load.
    QVERIFY(Catalog::fromJson(R"({"models": [{"id": "x", "name": "X", "parameters": 5}]})", recipes,
                              gpus, &error));
    QVERIFY(error.isEmpty());
}

QTEST_GUILESS_MAIN(TestCatalog)
#include "test_catalog.moc"
