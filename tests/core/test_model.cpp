// Parameter counts of dense decoder models, to the parameter.
// Reference values: ../shared/cases/parameter-counts.csv (copied below), which
// cites each model card / config.json; domain.md section 9.
#include "model.h"

#include <QTest>

using namespace shardscope;

class TestModel : public QObject
{
    Q_OBJECT
private slots:
    void publishedCounts_data();
    void publishedCounts();
    void tiedEmbeddingsDropTheHead();
    void plainMlpAndBiases();
    void plainCountModel();
    void validation();
    void scaledArchitectureIsNearTarget_data();
    void scaledArchitectureIsNearTarget();
};

void TestModel::publishedCounts_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<qint64>("hidden");
    QTest::addColumn<qint64>("ffn");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<qint64>("vocab");
    QTest::addColumn<qint64>("expected");
    // model,layers,hidden,ffn,heads,kv_heads,vocab,parameters (parameter-counts.csv)
    QTest::newRow("llama2-7b") << 32 << 4096LL << 11008LL << 32 << 32 << 32000LL << 6738415616LL;
    QTest::newRow("llama2-13b") << 40 << 5120LL << 13824LL << 40 << 40 << 32000LL << 13015864320LL;
    QTest::newRow("llama3-8b") << 32 << 4096LL << 14336LL << 32 << 8 << 128256LL << 8030261248LL;
    QTest::newRow("llama3-70b") << 80 << 8192LL << 28672LL << 64 << 8 << 128256LL << 70553706496LL;
    QTest::newRow("llama3.1-405b")
        << 126 << 16384LL << 53248LL << 128 << 8 << 128256LL << 405853388800LL;
    QTest::newRow("mistral-7b") << 32 << 4096LL << 14336LL << 32 << 8 << 32000LL << 7241732096LL;
    // Llama 2 70B model card: 68,976,648,192 (GQA with 8 KV heads, 32,000 vocab).
    QTest::newRow("llama2-70b") << 80 << 8192LL << 28672LL << 64 << 8 << 32000LL << 68976648192LL;
}

void TestModel::publishedCounts()
{
    QFETCH(int, layers);
    QFETCH(qint64, hidden);
    QFETCH(qint64, ffn);
    QFETCH(int, heads);
    QFETCH(int, kvHeads);
    QFETCH(qint64, vocab);
    QFETCH(qint64, expected);
    Architecture a;
    a.layers = layers;
    a.hidden = hidden;
    a.ffn = ffn;
    a.heads = heads;
    a.kvHeads = kvHeads;
    a.vocab = vocab;
    QVERIFY(validateArchitecture(a).empty());
    QCOMPARE(qint64(parameterCount(a)), expected);
}

void TestModel::tiedEmbeddingsDropTheHead()
{
    // Hand calculation: tying removes exactly one V x h matrix.
    Architecture a{
        .layers = 32, .hidden = 4096, .ffn = 11008, .heads = 32, .kvHeads = 32, .vocab = 32000};
    const auto untied = parameterCount(a);
    a.tiedEmbeddings = true;
    QCOMPARE(qint64(untied - parameterCount(a)), 32000LL * 4096LL);
}

void TestModel::plainMlpAndBiases()
{
    // GPT-2 small block by hand (h 768, ffn 3072, 12 heads, LayerNorm, biases):
    // attention 4 h^2 + 4 h = 2,362,368; MLP 2 h ffn + ffn + h = 4,722,432;
    // two LayerNorms 4 h = 3,072: 7,087,872 per block (matches HF GPT-2's h.0.* tensors).
    Architecture a{.layers = 12,
                   .hidden = 768,
                   .ffn = 3072,
                   .heads = 12,
                   .kvHeads = 12,
                   .vocab = 50257,
                   .tiedEmbeddings = true,
                   .gatedMlp = false,
                   .linearBiases = true,
                   .layerNormBias = true};
    QCOMPARE(qint64(layerParameterCount(a)), 7087872LL);
    // Embedding 50257 x 768 plus final LayerNorm 2 x 768 (no position table modelled).
    QCOMPARE(qint64(nonLayerParameterCount(a)), 50257LL * 768 + 2 * 768);
}

void TestModel::plainCountModel()
{
    Model m;
    m.plainParameters = 70'000'000'000;
    QCOMPARE(qint64(m.parameters()), 70000000000LL);
    m.architecture = Architecture{
        .layers = 32, .hidden = 4096, .ffn = 11008, .heads = 32, .kvHeads = 32, .vocab = 32000};
    QCOMPARE(qint64(m.parameters()), 6738415616LL); // the architecture wins
}

void TestModel::validation()
{
    Architecture a{
        .layers = 32, .hidden = 4096, .ffn = 11008, .heads = 32, .kvHeads = 5, .vocab = 32000};
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
