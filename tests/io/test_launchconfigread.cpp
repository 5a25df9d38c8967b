// Reading launch configs (io/launchconfigread.h), the inverse of exportLaunchConfig():
// one hand-written file per format read to exact fields (each value worked out in the
// comment beside it from the format's documented meaning, docs/models.md "Reading a
// launch config"), export-config -> read round trips over ZeRO-1/2/3, HSDP, TP x PP with
// interleaving, recomputation modes and offload, malformed files' one-line errors, and
// shell words that keep a quoted `; rm -rf /` inside one word.
#include "../testfiles.h"
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "launchconfig.h"
#include "launchconfigread.h"
#include "scenariofile.h"

#include <QTest>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Scenario)
Q_DECLARE_METATYPE(shardscope::LaunchFormat)

namespace {

/// One hand-written launch file of each format, read whole (empty when missing): the seeds
/// of the launch_config fuzz target (fuzz/corpus/launch_config/), which these tests read to
/// exact fields. deepspeed.json: a DeepSpeed config as the Hugging Face DeepSpeed guide
/// writes them, with an "auto". accelerate-fsdp.yaml: Accelerate's FSDP plugin across 4
/// machines of 8 GPUs. accelerate-deepspeed.yaml: Accelerate's DeepSpeed plugin, fp32 ('no'
/// quoted, as accelerate writes it). torchtitan.toml: torchtitan's llama3_8b.toml shape,
/// FSDP over the rest (-1), TP 2, selective AC. megatron.sh: a Megatron-LM launch script
/// with a hostile quoted path and shell variables.
QByteArray launchFile(const char *name)
{
    return test::readFile(
        QFINDTESTDATA(QStringLiteral("../../fuzz/corpus/launch_config/") + QLatin1String(name)));
}

/// `bytes` read as `name` and applied to `base` (defaultScenario() when null) with no
/// flags; fails the test (returning an empty scenario) on an error.
Scenario applied(const QByteArray &bytes, const QString &name, QStringList *notes,
                 const Scenario *base = nullptr, QString *error = nullptr)
{
    QString why;
    const auto read = readLaunchConfig(bytes, name, &why);
    if (!read) {
        if (error)
            *error = why;
        return {};
    }
    ScenarioDocument doc{base ? *base : defaultScenario(), ByteUnit::GB};
    if (!applyLaunchConfig(*read, name, {}, &doc, notes, &why)) {
        if (error)
            *error = why;
        return {};
    }
    return doc.scenario;
}

bool hasNote(const QStringList &notes, const QString &part)
{
    for (const QString &n : notes)
        if (n.contains(part))
            return true;
    return false;
}

/// Llama 3 70B (80 layers) on 64 GPUs at t 8, p 4, d 2 (test::llama70bPipeline()).
Scenario pipeline(ZeroStage z, PipelineSchedule schedule, int chunks, Recompute r)
{
    Scenario s = test::llama70bPipeline();
    s.layout.zeroStage = z;
    s.training.schedule = schedule;
    s.training.chunks = chunks;
    s.training.recompute = r;
    return s;
}

Scenario dataParallel(std::int64_t gpus, ZeroStage z, Offload o, std::int64_t hsdp,
                      std::int64_t mbs, std::int64_t m, Recompute r)
{
    Scenario s = test::llama70bZero3();
    s.layout.gpus = gpus;
    s.layout.zeroStage = z;
    s.layout.offload = o;
    s.layout.hsdpShardSize = hsdp;
    s.training.microBatchSize = mbs;
    s.training.microBatches = m;
    s.training.recompute = r;
    return s;
}

QString extension(LaunchFormat f)
{
    switch (f) {
    case LaunchFormat::DeepSpeed:
        return QStringLiteral("ds.json");
    case LaunchFormat::Accelerate:
        return QStringLiteral("accelerate.yaml");
    case LaunchFormat::Torchtitan:
        return QStringLiteral("titan.toml");
    case LaunchFormat::Megatron:
        return QStringLiteral("megatron.sh");
    }
    return {};
}

} // namespace

class TestLaunchConfigRead : public QObject
{
    Q_OBJECT
private slots:
    void detectsTheFormat();
    void deepSpeedFixture();
    void accelerateFsdpFixture();
    void accelerateDeepSpeedFixture();
    void torchtitanFixture();
    void megatronFixture();
    void megatronQuotesStayOneWord();
    void roundTrip_data();
    void roundTrip();
    void malformed_data();
    void malformed();
    void unsupportedValuesAreNotes();
    void hugeNumbersAreNotes();
    void flagsWin();
};

void TestLaunchConfigRead::detectsTheFormat()
{
    QCOMPARE(detectLaunchFormat("{}", QStringLiteral("x.json")), LaunchFormat::DeepSpeed);
    QCOMPARE(detectLaunchFormat("", QStringLiteral("x.YML")), LaunchFormat::Accelerate);
    QCOMPARE(detectLaunchFormat("", QStringLiteral("x.toml")), LaunchFormat::Torchtitan);
    QCOMPARE(detectLaunchFormat("", QStringLiteral("x.args")), LaunchFormat::Megatron);
    // By content, for a name with no known extension.
    QCOMPARE(detectLaunchFormat(" {\"a\": 1}", QStringLiteral("cfg")), LaunchFormat::DeepSpeed);
    QCOMPARE(detectLaunchFormat(launchFile("accelerate-fsdp.yaml"), QStringLiteral("cfg")),
             LaunchFormat::Accelerate);
    QCOMPARE(detectLaunchFormat(launchFile("torchtitan.toml"), QStringLiteral("cfg")),
             LaunchFormat::Torchtitan);
    QCOMPARE(detectLaunchFormat(launchFile("megatron.sh"), QStringLiteral("cfg")),
             LaunchFormat::Megatron);
    QCOMPARE(detectLaunchFormat("hello", QStringLiteral("cfg")), std::nullopt);
    QString error;
    QVERIFY(!readLaunchConfig("hello", QStringLiteral("notes.md"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("notes.md: not a launch config")), qPrintable(error));
}

void TestLaunchConfigRead::deepSpeedFixture()
{
    QStringList notes;
    const Scenario s =
        applied(launchFile("deepspeed.json"), QStringLiteral("ds_config.json"), &notes);
    // train_batch_size = micro x accumulation x d: d = 256 / (2 x 4) = 32 GPUs at t p c 1.
    QCOMPARE(s.layout.gpus, 32);
    QCOMPARE(s.layout.dataParallel(), 32);
    QCOMPARE(s.training.microBatchSize, 2);
    QCOMPARE(s.training.microBatches, 4);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(s.layout.offload, Offload::Optimizer);
    QCOMPARE(s.layout.framework, Framework::DeepSpeed);
    // stage3_prefetch_bucket_size 0: nothing fetched ahead, one gathered unit.
    QCOMPARE(s.overheads.gatheredUnits, 1);
    // "auto" keeps the default reduce bucket (5e8 elements) and says so.
    QCOMPARE(s.overheads.zeroBucketElements, 500'000'000);
    QVERIFY(hasNote(notes, QStringLiteral("zero_optimization.reduce_bucket_size is \"auto\"")));
    QVERIFY(hasNote(notes, QStringLiteral("no tensor, pipeline, context or expert parallel")));
    QCOMPARE(s.recipe.id, std::string("mixed-adam")); // bf16: the default recipe's 2 bytes
    QCOMPARE(validate(s), std::string());
}

void TestLaunchConfigRead::accelerateFsdpFixture()
{
    QStringList notes;
    const Scenario s =
        applied(launchFile("accelerate-fsdp.yaml"), QStringLiteral("fsdp.yaml"), &notes);
    QCOMPARE(s.layout.gpus, 32);         // num_processes
    QCOMPARE(s.layout.gpusPerNode, 8);   // 32 processes / 4 machines
    QCOMPARE(s.layout.hsdpShardSize, 8); // HYBRID_SHARD: shard within a node of 8
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(s.layout.offload, Offload::None);
    QCOMPARE(s.training.recompute, Recompute::Full);
    QCOMPARE(s.overheads.gatheredUnits, 2); // BACKWARD_PRE
    QCOMPARE(s.layout.framework, Framework::Fsdp2);
    QVERIFY(hasNote(notes, QStringLiteral("no micro-batch")));
    QCOMPARE(validate(s), std::string());
}

void TestLaunchConfigRead::accelerateDeepSpeedFixture()
{
    QStringList notes;
    const Scenario s =
        applied(launchFile("accelerate-deepspeed.yaml"), QStringLiteral("ds.yml"), &notes);
    QCOMPARE(s.layout.gpus, 8);
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero2);
    QCOMPARE(s.layout.offload, Offload::Optimizer);
    QCOMPARE(s.training.microBatches, 16);
    QCOMPARE(s.layout.framework, Framework::DeepSpeed);
    // mixed_precision 'no': fp32 weights, the catalog's fp32 AdamW (4+4+0+8 bytes).
    QCOMPARE(s.recipe.id, std::string("fp32-adam"));
    QCOMPARE(s.recipe.weightBytes, 4);
    QVERIFY(hasNote(notes, QStringLiteral("recipe fp32-adam")));
}

void TestLaunchConfigRead::torchtitanFixture()
{
    QStringList notes;
    Scenario base = defaultScenario();
    base.layout.gpus = 16; // what --gpus 16 gives: dp_shard -1 takes the rest
    const Scenario s =
        applied(launchFile("torchtitan.toml"), QStringLiteral("llama3_8b.toml"), &notes, &base);
    QCOMPARE(s.layout.gpus, 16);
    QCOMPARE(s.layout.tensorParallel, 2);
    QCOMPARE(s.layout.dataParallel(), 8); // 16 / 2
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero3);
    QCOMPARE(s.layout.hsdpShardSize, 0);
    QCOMPARE(s.training.microBatchSize, 8); // local_batch_size without pipelining
    // gradient accumulation = global / (local x d) = 128 / (8 x 8) = 2.
    QCOMPARE(s.training.microBatches, 2);
    QCOMPARE(s.training.sequenceLength, 8192);
    QCOMPARE(s.training.recompute, Recompute::Selective);
    QVERIFY(s.training.sequenceParallel);
    QCOMPARE(s.layout.framework, Framework::Fsdp2);
    QVERIFY(hasNote(notes, QStringLiteral("data_parallel_shard_degree -1")));
    QCOMPARE(validate(s), std::string());
}

void TestLaunchConfigRead::megatronFixture()
{
    QStringList notes;
    Scenario base = defaultScenario(); // Llama 3 70B (80 layers), 64 GPUs
    base.layout.gpus = 16;             // torchrun's world: --gpus 16
    const Scenario s =
        applied(launchFile("megatron.sh"), QStringLiteral("train.sh"), &notes, &base);
    QCOMPARE(s.layout.tensorParallel, 2);
    QCOMPARE(s.layout.pipelineParallel, 2);
    QCOMPARE(s.layout.dataParallel(), 4); // 16 / (2 x 2)
    QCOMPARE(s.layout.zeroStage, ZeroStage::Zero1);
    QCOMPARE(s.training.microBatchSize, 1);
    // m = global / (b x d) = 64 / (1 x 4) = 16.
    QCOMPARE(s.training.microBatches, 16);
    // The file's 32 layers over p 2 in virtual stages of 4: v = 32 / (2 x 4) = 4.
    QCOMPARE(s.training.schedule, PipelineSchedule::Interleaved1F1B);
    QCOMPARE(s.training.chunks, 4);
    QCOMPARE(s.training.recompute, Recompute::Selective);
    QCOMPARE(s.training.sequenceLength, 4096);
    QVERIFY(s.training.sequenceParallel);
    QCOMPARE(s.layout.framework, Framework::Megatron);
    QVERIFY(hasNote(notes, QStringLiteral("shape arguments")));
    QVERIFY(hasNote(notes, QStringLiteral("GPU count")));
}

void TestLaunchConfigRead::megatronQuotesStayOneWord()
{
    QString error;
    const auto words = shellWords(QString::fromUtf8(launchFile("megatron.sh")), &error);
    QVERIFY2(words, qPrintable(error));
    QVERIFY(words->contains(QStringLiteral("/data/my corpus_text_document; rm -rf /")));
    QVERIFY(words->contains(QStringLiteral("/tmp/ckpt; rm -rf /")));
    QVERIFY(!words->contains(QStringLiteral("rm")));
    // What shellQuoted() writes reads back as the same word, ANSI-C quoting included.
    for (const QString &w : {QStringLiteral("a b; rm -rf /"), QStringLiteral("it's"),
                             QStringLiteral("line\nbreak\x1b[2J"), QStringLiteral("\u202eevil")}) {
        const auto back = shellWords(QStringLiteral("--x ") + shellQuoted(w) + u'\n', &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(*back, (QStringList{QStringLiteral("--x"), w}));
    }
    // Unquoted operators end words and run nothing: `; rm` is just two more words.
    QCOMPARE(*shellWords(QStringLiteral("a;rm -rf / # gone\nb\\\nc"), &error),
             (QStringList{"a", "rm", "-rf", "/", "bc"}));
}

void TestLaunchConfigRead::roundTrip_data()
{
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<LaunchFormat>("format");
    const Scenario zero3 =
        dataParallel(64, ZeroStage::Zero3, Offload::None, 0, 1, 8, Recompute::Full);
    const Scenario zero2 =
        dataParallel(16, ZeroStage::Zero2, Offload::None, 0, 2, 4, Recompute::None);
    const Scenario zero3Offload =
        dataParallel(16, ZeroStage::Zero3, Offload::OptimizerAndParams, 0, 2, 4, Recompute::Full);
    const Scenario zero2Offload =
        dataParallel(16, ZeroStage::Zero2, Offload::Optimizer, 0, 2, 4, Recompute::None);
    const Scenario zero1Offload =
        dataParallel(32, ZeroStage::Zero1, Offload::Optimizer, 0, 4, 2, Recompute::Full);
    const Scenario hsdp =
        dataParallel(64, ZeroStage::Zero3, Offload::None, 8, 1, 4, Recompute::Full);
    const Scenario interleaved =
        pipeline(ZeroStage::Zero1, PipelineSchedule::Interleaved1F1B, 2, Recompute::Selective);
    const Scenario plain1f1b =
        pipeline(ZeroStage::Ddp, PipelineSchedule::OneFOneB, 1, Recompute::Full);
    const Scenario titanPipe =
        pipeline(ZeroStage::Zero3, PipelineSchedule::Interleaved1F1B, 2, Recompute::Selective);
    Scenario megatronHsdp =
        pipeline(ZeroStage::Zero1, PipelineSchedule::OneFOneB, 1, Recompute::None);
    megatronHsdp.layout.pipelineParallel = 1; // t 8, d 8: 2 optimizer instances of 4
    megatronHsdp.layout.hsdpShardSize = 4;
    const std::pair<const char *, Scenario> dp[] = {
        {"zero3", zero3}, {"zero2", zero2}, {"zero3 offload", zero3Offload}, {"hsdp", hsdp}};
    for (const auto &[name, s] : dp) {
        QTest::addRow("deepspeed %s", name) << s << LaunchFormat::DeepSpeed;
        QTest::addRow("accelerate %s", name) << s << LaunchFormat::Accelerate;
        QTest::addRow("torchtitan %s", name) << s << LaunchFormat::Torchtitan;
    }
    QTest::addRow("deepspeed zero2 offload") << zero2Offload << LaunchFormat::DeepSpeed;
    QTest::addRow("deepspeed zero1 offload") << zero1Offload << LaunchFormat::DeepSpeed;
    QTest::addRow("megatron zero1 offload") << zero1Offload << LaunchFormat::Megatron;
    QTest::addRow("megatron t8 p4 interleaved selective") << interleaved << LaunchFormat::Megatron;
    QTest::addRow("megatron t8 p4 1f1b full") << plain1f1b << LaunchFormat::Megatron;
    QTest::addRow("megatron hsdp none") << megatronHsdp << LaunchFormat::Megatron;
    QTest::addRow("torchtitan t8 p4 interleaved selective")
        << titanPipe << LaunchFormat::Torchtitan;
    QTest::addRow("torchtitan t8 p4 1f1b full") << plain1f1b << LaunchFormat::Torchtitan;
}

void TestLaunchConfigRead::roundTrip()
{
    QFETCH(Scenario, scenario);
    QFETCH(LaunchFormat, format);
    QString error;
    const auto config = exportLaunchConfig(scenario, format, &error);
    QVERIFY2(config, qPrintable(error));
    // What the file cannot say comes from the base: the same model and GPU, and for
    // Megatron-LM the world size (torchrun's --nproc-per-node x --nnodes).
    Scenario base = defaultScenario();
    base.model = scenario.model;
    base.gpu = scenario.gpu;
    if (format == LaunchFormat::Megatron)
        base.layout.gpus = scenario.layout.gpus;
    QStringList notes;
    const Scenario s = applied(config->text, extension(format), &notes, &base, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const Layout &a = scenario.layout, &b = s.layout;
    QCOMPARE(b.zeroStage, a.zeroStage);
    QCOMPARE(b.offload, a.offload);
    QCOMPARE(b.hsdpShardSize, a.hsdpShardSize);
    QCOMPARE(b.dataParallel(), a.dataParallel());
    if (format != LaunchFormat::Accelerate) { // Accelerate's file carries no batch sizes
        QCOMPARE(s.training.microBatchSize, scenario.training.microBatchSize);
        QCOMPARE(s.training.microBatches, scenario.training.microBatches);
    }
    if (format != LaunchFormat::DeepSpeed) // DeepSpeed's JSON has no recomputation
        QCOMPARE(s.training.recompute, scenario.training.recompute);
    if (format == LaunchFormat::Torchtitan || format == LaunchFormat::Megatron) {
        QCOMPARE(b.gpus, a.gpus);
        QCOMPARE(b.tensorParallel, a.tensorParallel);
        QCOMPARE(b.pipelineParallel, a.pipelineParallel);
        QCOMPARE(b.contextParallel, a.contextParallel);
        QCOMPARE(b.expertParallel, a.expertParallel);
        if (a.pipelineParallel > 1) {
            QCOMPARE(s.training.schedule, scenario.training.schedule);
            QCOMPARE(s.training.chunks, scenario.training.chunks);
        }
    } else {
        QCOMPARE(b.gpus, a.gpus); // t p c 1 in these rows
    }
    QCOMPARE(validate(s), std::string());
}

void TestLaunchConfigRead::malformed_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("error");
    QTest::newRow("json") << QByteArray("{\"train_batch_size\": 8,\n \"zero_optimization\": "
                                        "{\"stage\": 3,}\n}")
                          << QStringLiteral("ds.json") << QStringLiteral("ds.json: line 2: ");
    QTest::newRow("json array") << QByteArray("[1, 2]") << QStringLiteral("ds.json")
                                << QStringLiteral("ds.json: a DeepSpeed config is a JSON object");
    QTest::newRow("json, no DeepSpeed key")
        << QByteArray("{\"hidden_size\": 4096}") << QStringLiteral("config.json")
        << QStringLiteral("config.json: not a DeepSpeed config (none of train_batch_size, ");
    QTest::newRow("yaml") << QByteArray("distributed_type: FSDP\nfsdp_config:\n  a: [1, 2\n")
                          << QStringLiteral("fsdp.yaml")
                          << QStringLiteral("fsdp.yaml: line 4: "); // the end of the file
    QTest::newRow("yaml list") << QByteArray("- a\n- b\n") << QStringLiteral("fsdp.yaml")
                               << QStringLiteral("fsdp.yaml: an Accelerate config is a YAML "
                                                 "mapping of keys");
    QTest::newRow("yaml no type") << QByteArray("num_processes: 8\n") << QStringLiteral("a.yaml")
                                  << QStringLiteral("a.yaml: no distributed_type");
    QTest::newRow("toml") << QByteArray("[parallelism]\ntensor_parallel_degree = \n")
                          << QStringLiteral("titan.toml") << QStringLiteral("titan.toml: line 2: ");
    QTest::newRow("shell") << QByteArray("--tensor-model-parallel-size 2 \\\n--save 'oops\n")
                           << QStringLiteral("run.sh")
                           << QStringLiteral("run.sh: line 2: unterminated ' quote");
    QTest::newRow("shell double") << QByteArray("--micro-batch-size 1\n--save \"x\n")
                                  << QStringLiteral("run.args")
                                  << QStringLiteral("run.args: line 2: unterminated \" quote");
}

void TestLaunchConfigRead::malformed()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, name);
    QFETCH(QString, error);
    QString why;
    QVERIFY(!readLaunchConfig(bytes, name, &why));
    QVERIFY2(why.startsWith(error), qPrintable(why));
    QVERIFY(!why.contains(u'\n'));
}

void TestLaunchConfigRead::unsupportedValuesAreNotes()
{
    QStringList notes;
    const Scenario s = applied("{\"train_micro_batch_size_per_gpu\": \"two\", "
                               "\"zero_optimization\": {\"stage\": 7}}",
                               QStringLiteral("ds.json"), &notes);
    QCOMPARE(s.training.microBatchSize, 1); // the default's
    QCOMPARE(s.layout.zeroStage, ZeroStage::Ddp);
    QVERIFY(hasNote(notes, QStringLiteral("train_micro_batch_size_per_gpu: 'two' is not a "
                                          "whole number from 1; ignored.")));
    QVERIFY(hasNote(notes, QStringLiteral("zero_optimization.stage: '7' is not 0 to 3")));
    notes.clear();
    const Scenario t = applied("--tensor-model-parallel-size $TP --micro-batch-size 2\n",
                               QStringLiteral("run.sh"), &notes);
    QCOMPARE(t.layout.tensorParallel, 1);
    QCOMPARE(t.training.microBatchSize, 2);
    QVERIFY(hasNote(notes, QStringLiteral("--tensor-model-parallel-size: '$TP' is not a whole "
                                          "number from 1 (variables are not expanded); "
                                          "ignored.")));
}

void TestLaunchConfigRead::hugeNumbersAreNotes()
{
    // Numbers past 10^15 are notes, so no product or sum of them overflows (the sanitizer
    // build runs this): 2^62 x 2 and 2^63 - 1 + 2 would.
    QStringList notes;
    const Scenario ds = applied("{\"train_batch_size\": 8, \"train_micro_batch_size_per_gpu\": "
                                "4611686018427387904, \"gradient_accumulation_steps\": 2}",
                                QStringLiteral("ds.json"), &notes);
    QCOMPARE(ds.training.microBatchSize, 1);
    QVERIFY(
        hasNote(notes, QStringLiteral("train_micro_batch_size_per_gpu: '4.6116860184273879e+18' "
                                      "is not a whole number from 1; ignored.")));
    notes.clear();
    const Scenario mg = applied("--pipeline-model-parallel-size 2 --num-layers 9223372036854775807 "
                                "--num-layers-per-virtual-pipeline-stage 9223372036854775807\n",
                                QStringLiteral("run.sh"), &notes);
    QCOMPARE(mg.layout.pipelineParallel, 2);
    QCOMPARE(mg.training.chunks, 1);
    QVERIFY(hasNote(notes, QStringLiteral("--num-layers: '9223372036854775807' is not a whole "
                                          "number from 1")));
    notes.clear();
    QString error;
    (void)applied("[parallelism]\ndata_parallel_replicate_degree = 9223372036854775807\n"
                  "data_parallel_shard_degree = 4\n",
                  QStringLiteral("titan.toml"), &notes, nullptr, &error);
    QVERIFY(hasNote(notes, QStringLiteral("parallelism.data_parallel_replicate_degree is not a "
                                          "whole number from 1; ignored.")));
}

void TestLaunchConfigRead::flagsWin()
{
    // --tp 4 given beside a file with t 2: the flag's value stays, the note says so, and
    // the batch derived from the file sees it: d = 16 / (4 x 2) = 2, m = 64 / (1 x 2) = 32.
    QString error;
    const auto read =
        readLaunchConfig(launchFile("megatron.sh"), QStringLiteral("train.sh"), &error);
    QVERIFY2(read, qPrintable(error));
    ScenarioDocument doc{defaultScenario(), ByteUnit::GB};
    doc.scenario.layout.gpus = 16;
    doc.scenario.layout.tensorParallel = 4;
    QStringList notes;
    LaunchOverrides flags;
    flags.keys = {QStringLiteral("tp"), QStringLiteral("gpus")};
    QVERIFY2(applyLaunchConfig(*read, QStringLiteral("train.sh"), flags, &doc, &notes, &error),
             qPrintable(error));
    QCOMPARE(doc.scenario.layout.tensorParallel, 4);
    QCOMPARE(doc.scenario.layout.pipelineParallel, 2);
    QCOMPARE(doc.scenario.training.microBatches, 32);
    QVERIFY(hasNote(notes, QStringLiteral("--tp overrides the file's tp 2.")));
}

QTEST_GUILESS_MAIN(TestLaunchConfigRead)
#include "test_launchconfigread.moc"
