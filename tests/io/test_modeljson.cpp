// Model JSON (io/modeljson.h): every shipped preset round-trips, the new architecture
// fields are optional (v1 files stay valid), and the catalog's presets reproduce their
// published counts.
#include "catalog.h"
#include "hfconfig.h"
#include "modeljson.h"

#include <QFile>
#include <QTest>

using namespace shardscope;

namespace {

void checkRoundTrip(const Model &m)
{
    QString error;
    const auto back = modelFromJson(modelToJson(m), QStringLiteral("round trip"), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->id, m.id);
    QCOMPARE(back->displayName, m.displayName);
    QCOMPARE(back->source, m.source);
    QCOMPARE(back->architecture.has_value(), m.architecture.has_value());
    QCOMPARE(qint64(back->plainParameters), qint64(m.plainParameters));
    if (m.architecture)
        QVERIFY2(*back->architecture == *m.architecture, m.id.c_str());
    QCOMPARE(qint64(back->parameters()), qint64(m.parameters()));
}

} // namespace

class TestModelJson : public QObject
{
    Q_OBJECT
private slots:
    void everyPresetRoundTrips();
    void importedModelsRoundTrip();
    void presetCounts_data();
    void presetCounts();
    void denseModelsKeepTheV1Form();
    void malformedNewFields();
};

void TestModelJson::everyPresetRoundTrips()
{
    const Catalog &c = Catalog::builtIn();
    QVERIFY(c.models().size() >= 17);
    for (const Model &m : c.models())
        checkRoundTrip(m);
}

void TestModelJson::importedModelsRoundTrip()
{
    for (const char *file : {"deepseek-v3.json", "gemma-2-27b.json", "qwen2.5-7b.json"}) {
        QFile f(QFINDTESTDATA(QStringLiteral("data/") + QLatin1String(file)));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QString error;
        const auto m = modelFromHfConfig(f.readAll(), &error);
        QVERIFY2(m, qPrintable(error));
        checkRoundTrip(*m);
    }
}

void TestModelJson::presetCounts_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("active");
    // Sources: each preset's "source"; derivations in docs/models.md.
    QTest::newRow("llama3.1-8b (as Llama 3 8B)") << "llama3.1-8b" << 8030261248LL << 8030261248LL;
    QTest::newRow("llama3.1-70b (as Llama 3 70B)")
        << "llama3.1-70b" << 70553706496LL << 70553706496LL;
    QTest::newRow("mixtral-8x7b: 46.7B, 12.9B active")
        << "mixtral-8x7b" << 46702792704LL << 12879925248LL;
    QTest::newRow("qwen2.5-7b: 7.61B") << "qwen2.5-7b" << 7615616512LL << 7615616512LL;
    QTest::newRow("qwen2.5-72b: 72.7B") << "qwen2.5-72b" << 72706203648LL << 72706203648LL;
    QTest::newRow("gemma2-27b") << "gemma2-27b" << 27227128320LL << 27227128320LL;
    QTest::newRow("deepseek-v3: 671B, 37B active")
        << "deepseek-v3" << 671026419200LL << 37552297472LL;
    // GPT-3: 96 x 1,812,099,072 + (50257 + 2048) x 12288 + 2 x 12288 (test_model.cpp).
    QTest::newRow("gpt3-175b: 174.6B") << "gpt3-175b" << 174604259328LL << 174604259328LL;
}

void TestModelJson::presetCounts()
{
    QFETCH(QString, id);
    QFETCH(qint64, total);
    QFETCH(qint64, active);
    const Model *m = Catalog::builtIn().model(id.toStdString());
    QVERIFY2(m, qPrintable(id));
    QVERIFY(!m->source.empty());
    QCOMPARE(qint64(m->parameters()), total);
    QCOMPARE(qint64(m->activeParameters()), active);
}

void TestModelJson::denseModelsKeepTheV1Form()
{
    // A dense preset writes exactly the v1 keys, so files written before the MoE
    // fields read the same and older readers still read new dense files.
    const QJsonObject o = modelToJson(*Catalog::builtIn().model("llama3-70b"));
    QStringList keys = o.keys();
    keys.sort();
    QCOMPARE(keys,
             QStringList({"ffn", "gated_mlp", "heads", "hidden", "id", "kv_heads", "layernorm_bias",
                          "layers", "linear_biases", "name", "source", "tied", "vocab"}));
    // And a v1 object without any of the new keys is a dense, two-norm model.
    QString error;
    const auto m = modelFromJson(o, QStringLiteral("v1"), &error);
    QVERIFY2(m, qPrintable(error));
    QCOMPARE(m->architecture->experts, 0);
    QCOMPARE(m->architecture->normsPerLayer, 2);
}

void TestModelJson::malformedNewFields()
{
    QJsonObject o = modelToJson(*Catalog::builtIn().model("mixtral-8x7b"));
    QString error;
    o.insert("active_experts", -2);
    QVERIFY(!modelFromJson(o, QStringLiteral("models.json entry 9"), &error));
    QCOMPARE(error,
             QStringLiteral(
                 "models.json entry 9: \"active_experts\" must be a non-negative whole number"));
    o.insert("active_experts", 9);
    QVERIFY(!modelFromJson(o, QStringLiteral("models.json entry 9"), &error));
    QCOMPARE(error, QStringLiteral("models.json entry 9: active experts must be between 1 and "
                                   "experts (8), got 9"));
}

QTEST_GUILESS_MAIN(TestModelJson)
#include "test_modeljson.moc"
