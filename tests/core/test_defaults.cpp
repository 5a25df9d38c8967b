// The starting scenario and the layout rules every front end shares (core/defaults.h):
// one default GPU count, the GPU slider's counts, "keep d when t, p or c change", and
// the chunks a schedule switch sets.
#include "defaults.h"
#include "inputlimits.h"
#include "scenariofile.h"

#include <QTest>
#include <algorithm>

using namespace shardscope;

class TestDefaults : public QObject
{
    Q_OBJECT
private slots:
    void defaultScenarioIsLlama70bOn64H100sUnderDdp()
    {
        // io's defaultScenario() is core's with the catalog's presets: what the window,
        // `report`, `plan`, `export` and scenario files start from.
        const Scenario s = defaultScenario();
        QCOMPARE(s.model.id, std::string(defaultModelId));
        QCOMPARE(s.model.id, std::string("llama3-70b"));
        QCOMPARE(qint64(s.model.parameters()), 70553706496LL); // Llama 3 70B, docs/models.md
        QCOMPARE(s.recipe.id, std::string("mixed-adam"));
        QCOMPARE(qint64(s.recipe.totalBytesPerParameter()), 16LL); // 2 + 2 + 4 + 8
        QCOMPARE(s.gpu.id, std::string("h100-sxm-80gb"));
        QCOMPARE(qint64(s.gpu.capacityBytes), 80'000'000'000LL);
        QCOMPARE(qint64(s.layout.gpus), 64LL);
        QCOMPARE(qint64(defaultGpuCount), 64LL);
        QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
        QCOMPARE(s.layout.tensorParallel, 1);
        QCOMPARE(s.layout.pipelineParallel, 1);
        QCOMPARE(s.layout.contextParallel, 1);
        QCOMPARE(qint64(s.layout.dataParallel()), 64LL);
        QCOMPARE(qint64(s.training.sequenceLength), 4096LL);
        QCOMPARE(qint64(s.training.microBatches), 8LL);
        QCOMPARE(qint64(s.training.globalBatch(s.layout.dataParallel())), 512LL); // 8 x 1 x 64
        QCOMPARE(s.training.recompute, Recompute::Full);
        QCOMPARE(s.training.chunks, 1);
        QCOMPARE(qint64(s.overheads.cudaContextBytes), 512LL * 1024 * 1024);
        QVERIFY(!s.modelStatesOnly);
    }

    void gpuSliderCounts_data()
    {
        QTest::addColumn<qint64>("multiple");
        QTest::addColumn<int>("size");
        QTest::addColumn<QList<qint64>>("first");
        QTest::addColumn<qint64>("last");
        // k in 1, 2, 3, 4, 6, 8, ..., 12,288, 16,384: 1 + 1 + 2 x 13 = 28 counts.
        QTest::newRow("1") << 1LL << 28 << QList<qint64>{1, 2, 3, 4, 6, 8, 12, 16, 24, 32}
                           << 16384LL;
        QTest::newRow("below 1 is 1") << 0LL << 28 << QList<qint64>{1, 2, 3, 4} << 16384LL;
        // t 8 x p 4: k up to 512 (1 + 1 + 2 x 8 = 18 counts).
        QTest::newRow("32") << 32LL << 18 << QList<qint64>{32, 64, 96, 128, 192} << 16384LL;
        // k x 3 <= 16,384: k up to 4,096, the last 12,288.
        QTest::newRow("3") << 3LL << 24 << QList<qint64>{3, 6, 9, 12, 18} << 12288LL;
        QTest::newRow("16384") << 16384LL << 1 << QList<qint64>{16384} << 16384LL;
    }
    void gpuSliderCounts()
    {
        QFETCH(qint64, multiple);
        QFETCH(int, size);
        QFETCH(QList<qint64>, first);
        QFETCH(qint64, last);
        const std::vector<std::int64_t> c = shardscope::gpuSliderCounts(multiple);
        QCOMPARE(int(c.size()), size);
        for (int i = 0; i < first.size(); ++i)
            QCOMPARE(qint64(c[std::size_t(i)]), first[i]);
        QCOMPARE(qint64(c.back()), last);
        for (std::int64_t n : c)
            QCOMPARE(qint64(n % std::max<qint64>(multiple, 1)), 0LL);
    }

    void gpuSliderCountsPastTheTopAreEmpty()
    {
        QVERIFY(shardscope::gpuSliderCounts(maxGpuSliderCount + 1).empty());
    }

    void nearestGpuSliderIndex()
    {
        const std::vector<std::int64_t> c = shardscope::gpuSliderCounts();
        QCOMPARE(qint64(c[shardscope::nearestGpuSliderIndex(c, 1000)]), 1024LL);
        QCOMPARE(qint64(c[shardscope::nearestGpuSliderIndex(c, 64)]), 64LL);
        QCOMPARE(qint64(c[shardscope::nearestGpuSliderIndex(c, 7)]), 6LL); // 6 and 8 tie
        QCOMPARE(qint64(c[shardscope::nearestGpuSliderIndex(c, 100'000)]), 16384LL);
        QCOMPARE(shardscope::nearestGpuSliderIndex(c, 0), std::size_t(0));
    }

    void degreesKeepDataParallel_data()
    {
        QTest::addColumn<qint64>("gpus");
        QTest::addColumn<int>("t0");
        QTest::addColumn<int>("p0");
        QTest::addColumn<int>("t");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("c");
        QTest::addColumn<qint64>("expectedGpus");
        // d 64 kept: 64 x 8 = 512.
        QTest::newRow("t 8 from 64") << 64LL << 1 << 1 << 8 << 1 << 1 << 512LL;
        // d = 64 / 8 = 8 kept: 8 x 8 x 4 = 256.
        QTest::newRow("p 4 at t 8") << 64LL << 8 << 1 << 8 << 4 << 1 << 256LL;
        // d 2 (64 / (8 x 4)) kept, p back to 1: 2 x 8 = 16.
        QTest::newRow("p 1 from 4") << 64LL << 8 << 4 << 8 << 1 << 1 << 16LL;
        // d 8 kept, c 2: 8 x 2 = 16.
        QTest::newRow("c 2") << 8LL << 1 << 1 << 1 << 1 << 2 << 16LL;
        // 2 GPUs under t 4: d is 0, taken as 1, so 1 x 4 = 4.
        QTest::newRow("d 0 taken as 1") << 2LL << 4 << 1 << 4 << 1 << 1 << 4LL;
        // d 2^20 x t 2 passes 1,048,576: clamped to maxGpus.
        QTest::newRow("clamped") << 1048576LL << 1 << 1 << 2 << 1 << 1 << 1048576LL;
    }
    void degreesKeepDataParallel()
    {
        QFETCH(qint64, gpus);
        QFETCH(int, t0);
        QFETCH(int, p0);
        QFETCH(int, t);
        QFETCH(int, p);
        QFETCH(int, c);
        QFETCH(qint64, expectedGpus);
        Layout l;
        l.gpus = gpus;
        l.tensorParallel = t0;
        l.pipelineParallel = p0;
        setDegreesKeepingData(l, t, p, c);
        QCOMPARE(l.tensorParallel, t);
        QCOMPARE(l.pipelineParallel, p);
        QCOMPARE(l.contextParallel, c);
        QCOMPARE(qint64(l.gpus), expectedGpus);
    }

    void chunksForSchedule()
    {
        using shardscope::chunksForSchedule;
        // Interleaved keeps a count that interleaves, else takes 2 (Narayanan et al. 2021).
        QCOMPARE(chunksForSchedule(PipelineSchedule::Interleaved1F1B, 4), 4);
        QCOMPARE(chunksForSchedule(PipelineSchedule::Interleaved1F1B, 1), 2);
        QCOMPARE(chunksForSchedule(PipelineSchedule::Interleaved1F1B, 2), 2);
        // Every other schedule runs one chunk per stage.
        QCOMPARE(chunksForSchedule(PipelineSchedule::OneFOneB, 4), 1);
        QCOMPARE(chunksForSchedule(PipelineSchedule::GPipe, 4), 1);
        QCOMPARE(chunksForSchedule(PipelineSchedule::ZeroBubbleH1, 2), 1);
    }
};

QTEST_GUILESS_MAIN(TestDefaults)
#include "test_defaults.moc"
