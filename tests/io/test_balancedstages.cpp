// Balanced pipeline stages (Layout::balancedStages): the embedding and the output head
// count as a layer each, so the first and last stage hold one layer fewer. Llama 3's
// layout (Dubey et al. 2024, section 3.3.2: 126 layers on 16 stages of 8 slots) and
// torchtitan's default split (pipeline_parallel_first_stage_less_layers = 1,
// pipeline_parallel_last_stage_less_layers = 1).

#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "launchconfig.h"

#include <QtTest>

using namespace shardscope;

namespace {

/// Llama 3's 405B run on 16,384 H100s (d 128, 16 micro-batches), interleaved 1F1B with
/// v chunks on balanced stages.
Scenario llama405b(int chunks)
{
    Scenario s = test::llama405bPretraining(16384, 16);
    s.layout.balancedStages = true;
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = chunks;
    return s;
}

} // namespace

class TestBalancedStages : public QObject
{
    Q_OBJECT
private slots:
    void layerCounts()
    {
        // k = (126 + 2) / 16 = 8 slots a stage: 7 layers on the first and last stage, 8 on
        // the 14 between; 7 + 14 x 8 + 7 = 126.
        int sum = 0;
        for (int i = 0; i < 16; ++i) {
            const int n = stageLayerCount(126, 16, i, true);
            QCOMPARE(n, i == 0 || i == 15 ? 7 : 8);
            sum += n;
        }
        QCOMPARE(sum, 126);
        // Without balancing the first 126 mod 16 = 14 stages take the extra layer.
        QCOMPARE(stageLayerCount(126, 16, 0), 8);
        QCOMPARE(stageLayerCount(126, 16, 15), 7);
        // One stage holds everything either way.
        QCOMPARE(stageLayerCount(126, 1, 0, true), 126);
    }

    void reportPlacesTheLayers()
    {
        const MemoryReport r = estimate(llama405b(8));
        QVERIFY2(r.valid(), r.error.c_str());
        QCOMPARE(r.groups.size(), std::size_t(16));
        int next = 0;
        for (const GpuGroup &g : r.groups) {
            QCOMPARE(g.firstLayer, next);
            QCOMPARE(g.layerCount, g.pipelineStage == 0 || g.pipelineStage == 15 ? 7 : 8);
            next += g.layerCount;
        }
        QCOMPARE(next, 126);
        // Every chunk holds one layer slot (8 / v = 1), so a chunk's activations are one
        // layer's, the same on the short stages (counted as a full chunk, an upper bound
        // for the embedding-only and head-only chunks) as on the full ones, and the same
        // as one layer a stage at p = 126 (a plain split, 1F1B) gives.
        Scenario one = llama405b(8);
        one.layout.balancedStages = false;
        one.layout.pipelineParallel = 126;
        one.layout.gpus = 126 * 8;
        one.training.schedule = PipelineSchedule::OneFOneB;
        one.training.chunks = 1;
        one.training.microBatches = 126;
        const MemoryReport single = estimate(one);
        QVERIFY2(single.valid(), single.error.c_str());
        const std::int64_t layer = single.groups[1].chunkActivationBytes;
        QVERIFY(layer > 0);
        for (const GpuGroup &g : r.groups)
            QCOMPARE(g.chunkActivationBytes, layer);
        // v = 2: four slots a chunk, so four layers' activations a set.
        const MemoryReport two = estimate(llama405b(2));
        QVERIFY2(two.valid(), two.error.c_str());
        QCOMPARE(two.groups[1].chunkActivationBytes, 4 * layer);
    }

    void refusesWhatDoesNotSplit()
    {
        // 128 slots do not split into 5 stages; p 16 gives 8 slots, which 3 chunks do not
        // divide (interleaved needs m a multiple of p, so m = 16 stays).
        Scenario five = llama405b(2);
        five.layout.pipelineParallel = 5;
        five.layout.gpus = 5 * 8;
        five.training.schedule = PipelineSchedule::OneFOneB;
        five.training.chunks = 1;
        QCOMPARE(validate(five),
                 std::string("balanced stages need p dividing layers + 2 (128; got p = 5)"));
        QCOMPARE(validate(llama405b(3)),
                 std::string("balanced stages of 8 layer slots are not divisible by chunks (3)"));
        // The plain split refuses v = 8 at p 16: 126 / 16 leaves stages of 7 layers.
        Scenario plain = llama405b(8);
        plain.layout.balancedStages = false;
        plain.layout.allowUnevenStages = true;
        QCOMPARE(validate(plain),
                 std::string("layers per stage (7) are not divisible by chunks (8)"));
    }

    void oneStageIsUnchanged()
    {
        // p = 1: nothing to balance; the report is the plain one, field by field where it
        // matters.
        Scenario s = llama405b(1);
        s.layout.pipelineParallel = 1;
        s.layout.gpus = 8;
        s.layout.tensorParallel = 8;
        s.training.schedule = PipelineSchedule::OneFOneB;
        Scenario plain = s;
        plain.layout.balancedStages = false;
        const MemoryReport a = estimate(s), b = estimate(plain);
        QVERIFY2(a.valid(), a.error.c_str());
        QCOMPARE(a.groups.size(), std::size_t(1));
        QCOMPARE(a.groups[0].layerCount, 126);
        QCOMPARE(a.groups[0].bytes.total(), b.groups[0].bytes.total());
        QCOMPARE(a.groups[0].bytes.activations, b.groups[0].bytes.activations);
    }

    void torchtitanExportSaysSo()
    {
        // torchtitan: num_virtual_stages = ceil((L + first_less + last_less) /
        // layers_per_stage) = (126 + 1 + 1) / 1 = 128 = p x v.
        // (torchtitan shards with FSDP2: ZeRO-3 here, as the exporter asks.)
        QString error;
        Scenario s = llama405b(8);
        s.layout.zeroStage = ZeroStage::Zero3;
        const auto c = exportLaunchConfig(s, LaunchFormat::Torchtitan, &error);
        QVERIFY2(c, qPrintable(error));
        const QString text = QString::fromUtf8(c->text);
        QVERIFY(text.contains("pipeline_parallel_first_stage_less_layers = 1\n"));
        QVERIFY(text.contains("pipeline_parallel_last_stage_less_layers = 1\n"));
        QVERIFY(text.contains("pipeline_parallel_layers_per_stage = 1\n"));
        // The plain split: no layer credited to the embedding or the head, and 80 layers
        // over p 4 x v 2 are 10 a virtual stage.
        Scenario plain = llama405b(2);
        plain.model = *Catalog::builtIn().model("llama3-70b");
        plain.layout.balancedStages = false;
        plain.layout.zeroStage = ZeroStage::Zero3;
        plain.layout.pipelineParallel = 4;
        plain.layout.gpus = 64;
        plain.training.microBatches = 8;
        const auto p = exportLaunchConfig(plain, LaunchFormat::Torchtitan, &error);
        QVERIFY2(p, qPrintable(error));
        const QString plainText = QString::fromUtf8(p->text);
        QVERIFY(plainText.contains("pipeline_parallel_first_stage_less_layers = 0\n"));
        QVERIFY(plainText.contains("pipeline_parallel_layers_per_stage = 10\n"));
    }
};

QTEST_APPLESS_MAIN(TestBalancedStages)
#include "test_balancedstages.moc"
