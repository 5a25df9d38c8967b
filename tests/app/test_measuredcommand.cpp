// `shardscope measured FILE [scenario flags] [--json]` (app/measuredcommand.h): the
// measured figures beside the prediction, and one-line refusals of bad or hostile files.
#include "measuredcommand.h"
#include "runcommand.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace shardscope;
using shardscope::test::Run;
using shardscope::test::verifyRefusal;

namespace {

QString data(const char *name)
{
    return QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/io/data/measurement/") +
           QLatin1String(name);
}

Run measured(const QStringList &rest)
{
    return shardscope::test::runCommand(runMeasuredCommand, "measured", rest);
}

const QStringList scenario = {"--model", "llama3-8b", "--gpus", "8", "--gpu", "h100-sxm-80gb"};

} // namespace

class TestMeasuredCommand : public QObject
{
    Q_OBJECT
private slots:
    void jsonHoldsMeasuredPredictedAndGaps()
    {
        const Run r = measured(QStringList{data("snapshot.pickle"), "--json"} + scenario);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        for (const char *k : {"file", "measured", "predicted", "comparisons", "gap_by_category"})
            QVERIFY2(o.contains(QLatin1String(k)), k);
        QCOMPARE(o.value("file").toString(), QStringLiteral("snapshot.pickle"));
        const QJsonObject m = o.value("measured").toObject();
        QCOMPARE(m.value("source").toString(), QStringLiteral("pytorch_snapshot"));
        // The generator's hand sums (scripts/make-measurement-fixtures.py).
        QCOMPARE(m.value("reserved_bytes").toInteger(), qint64(23'068'672));
        QCOMPARE(m.value("allocated_bytes").toInteger(), qint64(12'585'472));
        QCOMPARE(m.value("peak_allocated_bytes").toInteger(), qint64(18'874'368));
        QVERIFY(m.value("peak_used_bytes").isNull());
        // The trace: 9 points of device 0, the fourth the 18,874,368-byte peak at 3 ms.
        const QJsonObject trace = m.value("trace").toObject();
        QCOMPARE(trace.value("gpu").toInt(), 0);
        QCOMPARE(trace.value("points").toInteger(), qint64(9));
        QCOMPARE(trace.value("bytes").toArray().at(3).toInteger(), qint64(18'874'368));
        QCOMPARE(trace.value("seconds").toArray().at(3).toDouble(), 0.003);
        QCOMPARE(trace.value("seconds").toArray().size(), 9);
        // The prediction is `report`'s for the same flags.
        const QJsonObject p = o.value("predicted").toObject();
        QVERIFY(p.value("peak_bytes").toInteger() > 0);
        const QJsonObject components = p.value("components").toObject();
        QVERIFY(components.contains("weights") && components.contains("activations"));
        const QJsonArray c = o.value("comparisons").toArray();
        QCOMPARE(c.size(), 4);
        const QJsonObject first = c.at(0).toObject();
        QCOMPARE(first.value("measure").toString(), QStringLiteral("peak_allocated"));
        QCOMPARE(first.value("gap_bytes").toInteger(),
                 first.value("measured_bytes").toInteger() -
                     first.value("predicted_bytes").toInteger());
        const QJsonObject buffers = p.value("buffers").toObject();
        QCOMPARE(first.value("predicted_bytes").toInteger(),
                 p.value("peak_bytes").toInteger() - buffers.value("cuda_context").toInteger() -
                     buffers.value("fragmentation").toInteger());
        QVERIFY(o.value("gap_by_category").toArray().isEmpty()); // a snapshot has no categories
    }

    void profilerGapByCategory()
    {
        const Run r = measured(QStringList{data("profiler-timeline.json"), "--json"} + scenario);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
        const QJsonObject m = o.value("measured").toObject();
        QCOMPARE(m.value("categories").toObject().value("activation").toInteger(),
                 qint64(6'000'000));
        const QJsonArray g = o.value("gap_by_category").toArray();
        QCOMPARE(g.size(), 5);
        const QJsonObject params = g.at(0).toObject();
        QCOMPARE(params.value("key").toString(), QStringLiteral("parameters"));
        QCOMPARE(params.value("measured_bytes").toInteger(), qint64(1'000'000));
        const QJsonObject predicted =
            o.value("predicted").toObject().value("components").toObject();
        QCOMPARE(params.value("predicted_bytes").toInteger(),
                 predicted.value("weights").toInteger() +
                     predicted.value("master_weights").toInteger());
    }

    void textNamesEachFigure()
    {
        const Run r = measured(QStringList{data("nvidia-smi.csv")} + scenario);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QLatin1String("nvidia_smi_csv, 2 GPUs")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("peak_used")), qPrintable(r.out));
    }

    void refusals()
    {
        // Nothing in a hostile pickle runs: had it, this file would exist.
        QFile::remove(QStringLiteral("/tmp/shardscope-hostile-pickle-ran"));
        verifyRefusal(measured({data("hostile-global.pickle")}),
                      "shardscope measured: hostile-global.pickle: snapshot pickle: byte 2: "
                      "refused opcode GLOBAL");
        QVERIFY(!QFile::exists(QStringLiteral("/tmp/shardscope-hostile-pickle-ran")));
        verifyRefusal(measured({}), "shardscope measured: give the measurement FILE");
        verifyRefusal(measured({data("snapshot.pickle"), "extra"}),
                      "shardscope measured: unexpected argument 'extra'");
        verifyRefusal(measured({data("no-such-file.pickle")}),
                      "shardscope measured: no-such-file.pickle: cannot open");
        verifyRefusal(measured({data("snapshot.pickle"), "--gpus", "0"}),
                      "shardscope measured: --gpus");
    }
};

QTEST_GUILESS_MAIN(TestMeasuredCommand)
#include "test_measuredcommand.moc"
