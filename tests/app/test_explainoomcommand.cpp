// `shardscope explain-oom`: the message's six numbers under the JSON keys the issue names,
// nulls for what the message does not state, the verdict and suggestions, and the exit
// codes (app/explainoomcommand.h). Messages rebuilt from DeviceCachingAllocator::malloc()
// in PyTorch's c10/cuda/CUDACachingAllocator.cpp.
#include "explainoomcommand.h"
#include "runcommand.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace shardscope;
using shardscope::test::Run;
using shardscope::test::verifyRefusal;

namespace {

constexpr qint64 GiB = qint64(1) << 30;
/// `hundredths` / 100 GiB to the nearest byte (how "N.NN GiB" reads).
qint64 gib(qint64 hundredths)
{
    return (hundredths * GiB + 50) / 100;
}

const QString newer = QStringLiteral(
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.15 GiB of which 1.53 GiB is free. Including non-PyTorch memory, "
    "this process has 77.61 GiB memory in use. Of the allocated memory 75.10 GiB is "
    "allocated by PyTorch, and 1.24 GiB is reserved by PyTorch but unallocated. If reserved "
    "but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");

const QString older = QStringLiteral(
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total "
    "capacity; 75.10 GiB already allocated; 1.53 GiB free; 76.34 GiB reserved in total by "
    "PyTorch)");

/// `shardscope explain-oom ...`, run in-process.
const shardscope::test::Subcommand explainCli{runExplainOomCommand, "explain-oom"};

} // namespace

class TestExplainOomCommand : public QObject
{
    Q_OBJECT
private slots:
    void jsonKeysOfTheNewerWording()
    {
        // Llama 3 70B, ZeRO-3 on 64 H100s, recomputation off: activations are over.
        const QJsonObject o =
            explainCli.json({"--message", newer, "--model", "llama3-70b", "--gpus", "64", "--zero",
                             "3", "--recompute", "none"});
        const QJsonObject oom = o["oom"].toObject();
        QCOMPARE(oom["wording"].toString(), QStringLiteral("newer"));
        QCOMPARE(oom["tried_to_allocate_bytes"].toInteger(), 2 * GiB);
        QCOMPARE(oom["total_capacity_bytes"].toInteger(), gib(7915));
        QCOMPARE(oom["free_bytes"].toInteger(), gib(153));
        QCOMPARE(oom["in_use_bytes"].toInteger(), gib(7761));
        QCOMPARE(oom["allocated_by_pytorch_bytes"].toInteger(), gib(7510));
        QCOMPARE(oom["reserved_unallocated_bytes"].toInteger(), gib(124));
        QVERIFY(oom["allowed_bytes"].isNull());
        const QJsonObject verdict = o["verdict"].toObject();
        QCOMPARE(verdict["cause"].toString(), QStringLiteral("activations"));
        QVERIFY(!verdict["advice"].toArray().isEmpty());
        const QJsonObject prediction = o["prediction"].toObject();
        QCOMPARE(prediction["measured_demand_bytes"].toInteger(), gib(7761) + 2 * GiB);
        // The H100's usable bytes, 81,559 MiB as its driver reports.
        QCOMPARE(prediction["capacity_bytes"].toInteger(), 81559LL * 1048576);
        QVERIFY(prediction["activations_bytes"].toInteger() >
                prediction["optimizer_states_bytes"].toInteger());
        const QJsonArray suggestions = o["suggestions"].toArray();
        QCOMPARE(suggestions.size(), qsizetype(3));
        const QJsonObject first = suggestions.first().toObject();
        QCOMPARE(first["changes"].toArray().size(), qsizetype(1));
        QCOMPARE(first["gpus"].toInteger(), qint64(64));
        // At least 5% of the usable 85,520,809,984 bytes kept free: 85,520,809,984
        // - 855,208,099 x 5 = 81,244,769,489.
        QVERIFY(first["peak_bytes"].toInteger() <= 81'244'769'489);
    }

    void olderWordingHasNullInUse()
    {
        const QJsonObject o = explainCli.json({"--message", older, "--suggestions", "0"});
        const QJsonObject oom = o["oom"].toObject();
        QCOMPARE(oom["wording"].toString(), QStringLiteral("older"));
        QVERIFY(oom["in_use_bytes"].isNull());
        QCOMPARE(oom["reserved_bytes"].toInteger(), gib(7634));
        QCOMPARE(oom["reserved_unallocated_bytes"].toInteger(), gib(7634) - gib(7510));
        QVERIFY(o["suggestions"].toArray().isEmpty());
        QVERIFY(!oom["notes"].toArray().isEmpty());
    }

    void messageFileAndText()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("train.log"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("step 1 loss 2.3\nTraceback (most recent call last):\n" + newer.toUtf8() + "\n");
        f.close();
        const Run r = explainCli({"--message-file", path, "--suggestions", "0"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.err.isEmpty());
        QVERIFY2(r.out.contains(QStringLiteral("newer wording, GPU 0")), qPrintable(r.out));
        QVERIFY(r.out.contains(QStringLiteral("reserved, unallocated")));
        QVERIFY(r.out.contains(QStringLiteral("Verdict (")));
    }

    void refusals()
    {
        verifyRefusal(explainCli({"--message", "loss 2.3"}),
                      QStringLiteral("shardscope explain-oom: no PyTorch out-of-memory message"));
        verifyRefusal(explainCli({}), QStringLiteral("shardscope explain-oom: give the message"));
        verifyRefusal(explainCli({"--message", newer, "--message-file", "x.log"}),
                      QStringLiteral("shardscope explain-oom: give the message"));
        verifyRefusal(explainCli({"--message-file", "/nonexistent/oom.log"}),
                      QStringLiteral("shardscope explain-oom: "));
        verifyRefusal(explainCli({"--message", newer, "--suggestions", "-1"}),
                      QStringLiteral("shardscope explain-oom: --suggestions must be"));
        verifyRefusal(explainCli({"--message", newer, "--gpus", "0"}),
                      QStringLiteral("shardscope explain-oom: "));
    }
};

QTEST_GUILESS_MAIN(TestExplainOomCommand)
#include "test_explainoomcommand.moc"
