// `shardscope report`: the JSON numbers of issue 2 and one-line errors naming the bad argument.
#include "reportcommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace shardscope;

namespace {
struct Run
{
    int code = 0;
    QString out, err;
};

Run run(const QStringList &args)
{
    Run r;
    QTextStream out(&r.out), err(&r.err);
    r.code = runReportCommand(
        QStringList{QStringLiteral("shardscope"), QStringLiteral("report")} + args, out, err);
    return r;
}
} // namespace

class TestReportCommand : public QObject
{
    Q_OBJECT
private slots:
    void issueExampleJson();
    void plainParams_data();
    void plainParams();
    void textOutput();
    void badArguments_data();
    void badArguments();
};

void TestReportCommand::issueExampleJson()
{
    const Run r = run({"--model", "llama3-70b", "--gpus", "64", "--strategy", "zero3", "--gpu",
                       "h100-sxm-80gb", "--json"});
    QCOMPARE(r.code, 0);
    QVERIFY(r.err.isEmpty());
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["parameters"].toInteger(), 70553706496LL);
    QCOMPARE(o["capacity_bytes"].toInteger(), 80000000000LL);
    QCOMPARE(o["fits"].toBool(), true);
    const QJsonArray groups = o["groups"].toArray();
    QCOMPARE(groups.size(), 1);
    const QJsonObject g = groups[0].toObject();
    QCOMPARE(g["gpus"].toInteger(), 64LL);
    // ceil(70,553,706,496 / 64) = 1,102,401,664 parameters per rank (exact division).
    const QJsonObject b = g["bytes"].toObject();
    QCOMPARE(b["weights"].toInteger(), 1102401664LL * 2);
    QCOMPARE(b["gradients"].toInteger(), 1102401664LL * 2);
    QCOMPARE(b["master_weights"].toInteger(), 1102401664LL * 4);
    QCOMPARE(b["optimizer_states"].toInteger(), 1102401664LL * 8);
    // Activations (defaults: b 1, s 4096, full recompute, flash, fp32 logits), with
    // sbh e = 4096 x 8192 x 2 = 67,108,864 bytes (docs/activations.md):
    //   80 layer inputs, 2 sbh each: 80 x 67,108,864 = 5,368,709,120
    //   one layer recomputed in backward: 16.75 sbh e = 1,124,073,472 plus fp32 softmax
    //   statistics 4 x 64 x 4096 = 1,048,576
    //   final norm input and output 2 x 67,108,864, logits 4096 x 128,256 x 4 = 2,101,346,304
    QCOMPARE(b["activations"].toInteger(),
             5368709120LL + 1124073472LL + 1048576LL + 134217728LL + 2101346304LL);
    // Buffers: CUDA context 512 MiB; two gathered units plus one unit's gradient, bf16,
    // the largest unit being the 128,256 x 8192 embedding: 1,050,673,152 x 3 x 2; and a
    // 5 % fragmentation reserve of everything else.
    const qint64 states = 1102401664LL * 16;
    const qint64 rest = states + b["activations"].toInteger() + 536870912LL + 6304038912LL;
    QCOMPARE(b["buffers"].toInteger(), 536870912LL + 6304038912LL + rest * 5 / 100);
    QCOMPARE(g["total_bytes"].toInteger(), rest + rest * 5 / 100);
    QCOMPARE(o["model_states_only"].toBool(), false);
}

void TestReportCommand::plainParams_data()
{
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<qint64>("total");
    QTest::newRow("70e9 ddp") << "70e9"
                              << "ddp" << 1'120'000'000'000LL;
    QTest::newRow("70B zero1") << "70B"
                               << "zero1" << 293'125'000'000LL;
    QTest::newRow("70000000000 zero2") << "70000000000"
                                       << "zero2" << 155'312'500'000LL;
    QTest::newRow("0.07T zero3") << "0.07T"
                                 << "zero3" << 17'500'000'000LL;
}

void TestReportCommand::plainParams()
{
    QFETCH(QString, params);
    QFETCH(QString, strategy);
    QFETCH(qint64, total);
    const Run r = run({"--params", params, "--gpus", "64", "--strategy", strategy, "--json",
                       "--model-states-only"});
    QCOMPARE(r.code, 0);
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(o["groups"].toArray()[0].toObject()["total_bytes"].toInteger(), total);
    QCOMPARE(o["fits"].toBool(), total <= 80'000'000'000LL);
}

void TestReportCommand::textOutput()
{
    const Run r = run({"--params", "13e9", "--gpus", "4", "--strategy", "fsdp", "--gpu",
                       "a100-40gb", "--model-states-only"});
    QCOMPARE(r.code, 0);
    // domain.md section 10: 13B on 4 x A100-40GB needs 52 GB per card.
    QVERIFY2(r.out.contains(QStringLiteral("Overflows by 12 GB per GPU")), qPrintable(r.out));
}

void TestReportCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown model")
        << QStringList{"--model", "gpt-9"} << "shardscope report: --model: unknown model 'gpt-9'";
    QTest::newRow("zero gpus") << QStringList{"--gpus", "0"}
                               << "shardscope report: --gpus must be a whole number from 1";
    QTest::newRow("negative params")
        << QStringList{"--params", "-70e9"} << "shardscope report: --params must be a positive";
    QTest::newRow("words for params")
        << QStringList{"--params", "lots"} << "shardscope report: --params must be a positive";
    QTest::newRow("unknown strategy") << QStringList{"--strategy", "zero4"}
                                      << "shardscope report: --strategy: unknown strategy 'zero4'";
    QTest::newRow("unknown gpu") << QStringList{"--gpu", "h900"}
                                 << "shardscope report: --gpu: unknown GPU 'h900'";
    QTest::newRow("unknown recipe") << QStringList{"--recipe", "magic"}
                                    << "shardscope report: --recipe: unknown recipe 'magic'";
    QTest::newRow("both model and params")
        << QStringList{"--model", "llama3-8b", "--params", "8e9"}
        << "shardscope report: --model, --params and an inline architecture (--layers ...) are "
           "exclusive";
    QTest::newRow("unknown flag") << QStringList{"--gpuz", "8"}
                                  << "shardscope report: Unknown option 'gpuz'.";
    QTest::newRow("bad unit") << QStringList{"--unit", "tb"}
                              << "shardscope report: --unit must be gb or gib (got 'tb')";
}

void TestReportCommand::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run r = run(args);
    QCOMPARE(r.code, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(message), qPrintable(r.err));
    QCOMPARE(r.err.count(u'\n'), 1); // one line
}

QTEST_GUILESS_MAIN(TestReportCommand)
#include "test_reportcommand.moc"
