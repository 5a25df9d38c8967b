// What a lesson step changed, named as the window names it (ui/shell/scenariochanges.h): the
// lesson bar's "Changed: ..." line and the undo steps' names come from it.
#include "../testsupport.h"
#include "scenariochanges.h"
#include "scenariofile.h"

#include <QTest>

using namespace shardscope;

class TestScenarioChanges : public QObject
{
    Q_OBJECT
private slots:
    void nothingChanged();
    void oneSettingByItsLabel();
    void valuesInDisplayUnits();
    void modelRecipeGpuAndUnitByName();
    void inTheWindowsOrder();
};

namespace {

QStringList texts(const std::vector<ScenarioChange> &changes)
{
    QStringList out;
    for (const ScenarioChange &c : changes)
        out << c.text();
    return out;
}

QString valueOf(const char *key, std::int64_t value)
{
    return settingValueText(*settingByKey(key), value);
}

} // namespace

void TestScenarioChanges::nothingChanged()
{
    const Scenario s = defaultScenario();
    QVERIFY(scenarioChanges(s, ByteUnit::GB, s, ByteUnit::GB).empty());
    QCOMPARE(changesSentence({}), QStringLiteral("No settings changed."));
}

void TestScenarioChanges::oneSettingByItsLabel()
{
    // 05-activation-memory.json, step 2: { "seq": 8192 } after 4,096 tokens.
    Scenario before = defaultScenario();
    before.training.sequenceLength = 4096;
    Scenario after = before;
    after.training.sequenceLength = 8192;
    const auto changes = scenarioChanges(before, ByteUnit::GB, after, ByteUnit::GB);
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0].key, QStringLiteral("seq"));
    QCOMPARE(changes[0].label, QStringLiteral("Sequence length"));
    QCOMPARE(changes[0].value, QStringLiteral("8,192 tokens"));
    QCOMPARE(changesSentence(changes), QStringLiteral("Changed: Sequence length → 8,192 tokens"));
    // 02-zero3-on-8-h100s.json, step 3: { "offload": "optimizer" }.
    after = before;
    after.layout.offload = Offload::Optimizer;
    QCOMPARE(changesSentence(scenarioChanges(before, ByteUnit::GB, after, ByteUnit::GB)),
             QStringLiteral("Changed: CPU offload → optimizer"));
}

void TestScenarioChanges::valuesInDisplayUnits()
{
    // Whole display units, grouped as English writes them, with the table's unit.
    QCOMPARE(valueOf("gpus", 16384), QStringLiteral("16,384"));
    QCOMPARE(valueOf("seq", 262144), QStringLiteral("262,144 tokens"));
    QCOMPARE(valueOf("seq", 1), QStringLiteral("1 token"));
    QCOMPARE(valueOf("mbs", 1), QStringLiteral("1 sequence"));
    QCOMPARE(valueOf("mbs", 4), QStringLiteral("4 sequences"));
    QCOMPARE(valueOf("cuda_context_bytes", 1024LL * 1024 * 1024), QStringLiteral("1,024 MiB"));
    QCOMPARE(valueOf("host_ram_bytes_per_node", 2'000'000'000'000), QStringLiteral("2,000 GB"));
    QCOMPARE(valueOf("zero_bucket_elements", 500'000'000), QStringLiteral("500,000,000 elements"));
    QCOMPARE(valueOf("fragmentation_percent", 10), QStringLiteral("10%"));
    // A byte count between display units (a scenario file may hold one) in bytes.
    QCOMPARE(valueOf("cuda_context_bytes", 1000), QStringLiteral("1,000 bytes"));
    // Switches, names and ids.
    QCOMPARE(valueOf("flash_attention", 0), QStringLiteral("off"));
    QCOMPARE(valueOf("uneven_stages", 1), QStringLiteral("on"));
    QCOMPARE(valueOf("strategy", int(ZeroStage::Zero3)), QStringLiteral("ZeRO-3 / FSDP"));
    QCOMPARE(valueOf("strategy", int(ZeroStage::Ddp)), QStringLiteral("DDP"));
    QCOMPARE(valueOf("schedule", int(PipelineSchedule::Interleaved1F1B)),
             QStringLiteral("Interleaved 1F1B"));
    QCOMPARE(valueOf("offload", int(Offload::OptimizerAndParams)),
             QStringLiteral("optimizer+params"));
    QCOMPARE(valueOf("recompute", int(Recompute::Selective)), QStringLiteral("selective"));
    QCOMPARE(valueOf("hsdp_shard", 0), QStringLiteral("off"));
    QCOMPARE(valueOf("hsdp_shard", 8), QStringLiteral("8"));
}

void TestScenarioChanges::modelRecipeGpuAndUnitByName()
{
    const Scenario before = defaultScenario();
    Scenario after = before;
    after.model.id = "plain-13b";
    after.model.displayName = "13B (plain count, as in the claim)";
    after.model.architecture.reset();
    after.model.plainParameters = 13'000'000'000;
    after.recipe = test::claim12bRecipe();
    after.gpu.id = "a100-40gb";
    after.gpu.name = "NVIDIA A100 40GB";
    after.gpu.capacityBytes = 40'000'000'000;
    QCOMPARE(texts(scenarioChanges(before, ByteUnit::GB, after, ByteUnit::GiB)),
             QStringList({QStringLiteral("Model → 13B (plain count, as in the claim)"),
                          QStringLiteral("Recipe → 12 B/param (the claim's own figure)"),
                          QStringLiteral("GPU → NVIDIA A100 40GB"), QStringLiteral("Unit → GiB")}));
    // A recipe edited in place (same id and name, other bytes) has changed too.
    after = before;
    after.recipe.optimizerBytes = 4;
    const auto changes = scenarioChanges(before, ByteUnit::GB, after, ByteUnit::GB);
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0].key, QStringLiteral("recipe"));
}

void TestScenarioChanges::inTheWindowsOrder()
{
    // Model, recipe and GPU first, then the settings table's order (gpus before tp before
    // strategy before seq), then the unit.
    const Scenario before = defaultScenario();
    Scenario after = before;
    after.training.sequenceLength = 2048;
    after.layout.zeroStage = ZeroStage::Zero1;
    after.layout.tensorParallel = 8;
    after.layout.gpus = 512; // from 64
    after.model.displayName = "Renamed";
    QStringList keys;
    for (const ScenarioChange &c : scenarioChanges(before, ByteUnit::GB, after, ByteUnit::GiB))
        keys << c.key;
    QCOMPARE(keys, QStringList({QStringLiteral("model"), QStringLiteral("gpus"),
                                QStringLiteral("tp"), QStringLiteral("strategy"),
                                QStringLiteral("seq"), QStringLiteral("unit")}));
}

QTEST_MAIN(TestScenarioChanges)
#include "test_scenariochanges.moc"
