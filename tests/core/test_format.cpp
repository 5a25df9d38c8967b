// Display formatting and the plain-language verdict (README.md's examples).
#include "estimate.h"
#include "format.h"
#include "testscenarios.h"

#include <QTest>

using namespace shardscope;

namespace {
/// 70 billion parameters, counted plainly, on `gpus` H100s at ZeRO stage `z`.
Scenario seventyB(qint64 gpus, ZeroStage z)
{
    return test::plainModelStates(70'000'000'000, gpus, z);
}
} // namespace

class TestFormat : public QObject
{
    Q_OBJECT
private slots:
    void bytes_data();
    void bytes();
    void parameters();
    void counts();
    void verdicts_data();
    void verdicts();
    void activationsDominateTheVerdict();
};

void TestFormat::bytes_data()
{
    QTest::addColumn<qint64>("value");
    QTest::addColumn<int>("unit");
    QTest::addColumn<QString>("text");
    QTest::newRow("17.5 GB") << 17'500'000'000LL << 0 << "17.5 GB";
    QTest::newRow("1,120 GB") << 1'120'000'000'000LL << 0 << "1,120 GB";
    QTest::newRow("293.1 GB") << 293'125'000'000LL << 0 << "293.1 GB";
    QTest::newRow("80 GB") << 80'000'000'000LL << 0 << "80 GB";
    QTest::newRow("1.88 GB") << 1'875'000'000LL << 0 << "1.88 GB";
    QTest::newRow("0 GB") << 0LL << 0 << "0 GB";
    // 80e9 bytes / 2^30 = 74.505... GiB
    QTest::newRow("80 GB in GiB") << 80'000'000'000LL << 1 << "74.5 GiB";
    QTest::newRow("81559 MiB") << 81559LL * 1024 * 1024 << 1 << "79.6 GiB";
    QTest::newRow("1 PB") << 1'000'000'000'000'000LL << 0 << "1,000,000 GB";
}

void TestFormat::bytes()
{
    QFETCH(qint64, value);
    QFETCH(int, unit);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatBytes(value, ByteUnit(unit))), text);
}

void TestFormat::parameters()
{
    QCOMPARE(QString::fromStdString(formatParameters(70'553'706'496)), QStringLiteral("70.6B"));
    QCOMPARE(QString::fromStdString(formatParameters(2'000'000'000'000)), QStringLiteral("2T"));
    QCOMPARE(QString::fromStdString(formatParameters(100'000'000)), QStringLiteral("100M"));
    QCOMPARE(QString::fromStdString(formatParameters(7'241'732'096)), QStringLiteral("7.24B"));
}

void TestFormat::counts()
{
    QCOMPARE(formatCount(0), std::string("0"));
    QCOMPARE(formatCount(999), std::string("999"));
    QCOMPARE(formatCount(16384), std::string("16,384"));
    QCOMPARE(formatCount(1'048'576), std::string("1,048,576"));
    QCOMPARE(formatCount(-1200), std::string("-1,200"));
    QCOMPARE(formatCount(INT64_MAX), std::string("9,223,372,036,854,775,807"));
}

void TestFormat::verdicts_data()
{
    QTest::addColumn<qint64>("gpus");
    QTest::addColumn<int>("stage");
    QTest::addColumn<QString>("text");
    QTest::newRow("zero3 fits") << 64LL << 3 << "Fits: 17.5 GB of 80 GB per GPU";
    QTest::newRow("ddp overflows")
        << 64LL << 0 << "Overflows by 1,040 GB per GPU: DDP keeps a full copy on every GPU";
    QTest::newRow("zero1 overflows")
        << 64LL << 1
        << "Overflows by 213.1 GB per GPU: ZeRO-1 shards only optimizer states; weights and "
           "gradients stay replicated";
    QTest::newRow("zero3 on 8 overflows")
        << 8LL << 3
        << "Overflows by 60 GB per GPU: even fully sharded, each GPU's share is too large: add "
           "GPUs or use a leaner recipe";
    QTest::newRow("one gpu") << 1LL << 0
                             << "Overflows by 1,040 GB: one GPU must hold every model state";
}

void TestFormat::verdicts()
{
    QFETCH(qint64, gpus);
    QFETCH(int, stage);
    QFETCH(QString, text);
    const Scenario s = seventyB(gpus, ZeroStage(stage));
    QCOMPARE(QString::fromStdString(verdictText(s, estimate(s), ByteUnit::GB)), text);
}

void TestFormat::activationsDominateTheVerdict()
{
    // Llama 3.1 8B on 8 H100s, ZeRO-3, s 32768, full recomputation, eager loss: 16.1 GB
    // of model states but 59.6 GB of activations (lesson 6). More GPUs would not help.
    Scenario s = test::onH100s(test::llama3_8b(), 8, ZeroStage::Zero3);
    s.recipe = test::recipeBytes(4, 4, 0, 8);
    s.training.sequenceLength = 32768;
    s.training.microBatches = 1;
    s.training.recompute = Recompute::Full;
    s.training.lossKernel = LossKernel::Eager;
    QCOMPARE(QString::fromStdString(verdictText(s, estimate(s), ByteUnit::GB)),
             QStringLiteral("Overflows by 3.27 GB per GPU: activations (59.6 GB) dominate and "
                            "sharding does not split them: recompute, or split the sequence "
                            "(context or tensor parallel)"));
    // With model states the larger part the reason stays the strategy's.
    s.training.sequenceLength = 4096;
    s.layout.gpus = 1;
    s.layout.zeroStage = ZeroStage::Ddp;
    QVERIFY(QString::fromStdString(verdictText(s, estimate(s), ByteUnit::GB))
                .endsWith(QStringLiteral("one GPU must hold every model state")));
}

QTEST_APPLESS_MAIN(TestFormat)
#include "test_format.moc"
