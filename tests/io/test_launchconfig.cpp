// Launch-config export (io/launchconfig.h): every exported document is checked against
// the spellings of the framework's own documentation, cited in docs/models.md
// "Exporting a layout": DeepSpeed docs/_pages/config-json.md and the MiCS section of
// its ZeRO-3 docs; Accelerate examples/config_yaml_templates/fsdp.yaml and
// utils/constants.py (FSDP_SHARDING_STRATEGY, FSDP_BACKWARD_PREFETCH); torchtitan
// torchtitan/config/job_config.py (Training, Parallelism, ActivationCheckpoint) and
// torch.distributed.pipelining's schedule names; Megatron-LM
// megatron/training/arguments.py (docs/models.md "Megatron-LM"). The JSON is parsed;
// YAML and TOML are checked line by line and parsed back with yaml-cpp and toml++; the
// Megatron bash array is read back by bash itself.
#include "../testsupport.h"
#include "catalog.h"
#include "estimate.h"
#include "launchconfig.h"
#include "scenariofile.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <set>
#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

using namespace shardscope;

Q_DECLARE_METATYPE(shardscope::Scenario)

namespace {

/// The issue's 70B example (test::llama70bZero3(): Llama 3 70B, 64 x H100, ZeRO-3,
/// micro-batch 1, gradient accumulation 8, full recomputation, mixed-precision AdamW).
Scenario llama70bZero3()
{
    Scenario s = test::llama70bZero3();
    s.training.microBatchSize = 1;
    s.training.microBatches = 8;
    s.training.recompute = Recompute::Full;
    return s;
}

/// The [training] table torchtitan's export writes for llama70bZero3() (the last table:
/// toml++ sorts them by name).
QString llama70bTrainingToml()
{
    return QStringLiteral("[training]\n"
                          "enable_cpu_offload = false\n"
                          "global_batch_size = 512\n"
                          "local_batch_size = 1\n"
                          "mixed_precision_param = \"bfloat16\"\n"
                          "mixed_precision_reduce = \"float32\"\n"
                          "seq_len = 4096\n");
}

LaunchConfig exported(const Scenario &s, LaunchFormat f)
{
    QString error;
    const auto c = exportLaunchConfig(s, f, &error);
    // A failed export yields a document no check accepts, naming the reason.
    return c ? *c : LaunchConfig{("export failed: " + error).toUtf8(), {}};
}

QJsonObject deepSpeedJson(const Scenario &s)
{
    QJsonParseError pe;
    const QJsonDocument d = QJsonDocument::fromJson(exported(s, LaunchFormat::DeepSpeed).text, &pe);
    return pe.error == QJsonParseError::NoError ? d.object() : QJsonObject();
}

QStringList lines(const Scenario &s, LaunchFormat f)
{
    return QString::fromUtf8(exported(s, f).text).split(u'\n');
}

/// The words bash reads from `script` (the Megatron export) into MEGATRON_ARGS, run in
/// `dir` (with LC_ALL=`locale` when given); each word NUL-terminated so a newline inside
/// a word stays visible.
QStringList bashArray(const QByteArray &script, const QString &dir, const QString &locale = {})
{
    QFile f(dir + QStringLiteral("/args.sh"));
    if (!f.open(QIODevice::WriteOnly) || f.write(script) != script.size())
        return {QStringLiteral("cannot write args.sh")};
    f.close();
    QProcess bash;
    bash.setWorkingDirectory(dir);
    if (!locale.isEmpty()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LC_ALL"), locale);
        bash.setProcessEnvironment(env);
    }
    bash.start(
        QStringLiteral("bash"),
        {QStringLiteral("-c"),
         QStringLiteral("set -eu; source ./args.sh; printf '%s\\0' \"${MEGATRON_ARGS[@]}\"")});
    if (!bash.waitForFinished(10000) || bash.exitCode() != 0)
        return {QStringLiteral("bash failed: ") + QString::fromUtf8(bash.readAllStandardError())};
    QStringList words = QString::fromUtf8(bash.readAllStandardOutput()).split(QChar(0));
    words.removeLast(); // after the last NUL
    return words;
}

/// A scenario whose model and GPU names try to break out of a comment or a string: a
/// newline followed by a key (YAML), a table (TOML) or a command (shell), an escape
/// sequence that clears the screen, and a right-to-left override (reliability review
/// F3 and F9).
Scenario hostileNames()
{
    Scenario s = llama70bZero3();
    s.model.displayName = "org/m\nmain_process_ip: 1.2.3.4\n[evil]\nx=1\n'; touch pwned; '\x1b[2J";
    s.gpu.name = "H100\nmain_process_port: 4444\xe2\x80\xae";
    return s;
}

QString exportError(const Scenario &s, LaunchFormat f)
{
    QString error;
    if (exportLaunchConfig(s, f, &error))
        return QStringLiteral("(exported)");
    return error;
}

} // namespace

class TestLaunchConfig : public QObject
{
    Q_OBJECT
private slots:
    void formatIds();
    void deepSpeedZero3();
    void deepSpeedStagesAndOffload();
    void deepSpeedPrefetchBucketCountsElements();
    void deepSpeedAdam8bitIsAClientOptimizer();
    void deepSpeedProfileExportsItsZero3Knobs();
    void profileDifferentFromTheLauncherIsNoted();
    void loraIsLeftToPeftWithANote();
    void deepSpeedLeavesModelParallelToTheLauncher();
    void accelerateFsdp();
    void accelerateStrategies();
    void torchtitanFsdp();
    void torchtitanLayouts();
    void torchtitanFloat8();
    void namesCannotAddYamlKeys();
    void namesCannotAddTomlTables();
    void oneLineTextEscapes();
    void shellQuotedReadsBack_data();
    void shellQuotedReadsBack();
    void megatronDense();
    void megatronLayouts();
    void megatronNamesStayInTheComment();
    void refusals_data();
    void refusals();
};

void TestLaunchConfig::formatIds()
{
    QCOMPARE(launchFormatId(LaunchFormat::DeepSpeed), QStringLiteral("deepspeed"));
    QCOMPARE(parseLaunchFormat(QStringLiteral("Accelerate")), LaunchFormat::Accelerate);
    QCOMPARE(parseLaunchFormat(QStringLiteral("torchtitan")), LaunchFormat::Torchtitan);
    QCOMPARE(parseLaunchFormat(QStringLiteral("Megatron")), LaunchFormat::Megatron);
    QCOMPARE(launchFormatId(LaunchFormat::Megatron), QStringLiteral("megatron"));
    QVERIFY(!parseLaunchFormat(QStringLiteral("nemo")));
}

void TestLaunchConfig::deepSpeedZero3()
{
    const QJsonObject o = deepSpeedJson(llama70bZero3());
    // "train_batch_size must be equal to train_micro_batch_size_per_gpu *
    // gradient_accumulation_steps * number of GPUs" (data-parallel GPUs): 1 x 8 x 64.
    QCOMPARE(o["train_batch_size"].toInteger(), 512LL);
    QCOMPARE(o["train_micro_batch_size_per_gpu"].toInteger(), 1LL);
    QCOMPARE(o["gradient_accumulation_steps"].toInteger(), 8LL);
    QCOMPARE(o["bf16"].toObject()["enabled"].toBool(), true);
    const QJsonObject z = o["zero_optimization"].toObject();
    QCOMPARE(z["stage"].toInteger(), 3LL);
    QCOMPARE(z["reduce_bucket_size"].toInteger(), 500000000LL); // Overheads default, 5e8
    // Prefetch one gathered unit: the largest is the 128,256 x 8192 embedding.
    QCOMPARE(z["stage3_prefetch_bucket_size"].toInteger(), 128256LL * 8192);
    QVERIFY(!z.contains("offload_optimizer"));
    QVERIFY(!z.contains("offload_param"));
    QVERIFY(!z.contains("mics_shard_size"));
    QStringList keys = o.keys();
    keys.sort();
    QCOMPARE(keys, QStringList({"bf16", "gradient_accumulation_steps", "train_batch_size",
                                "train_micro_batch_size_per_gpu", "zero_optimization"}));
    // Activation checkpointing is not a DeepSpeed JSON switch for HF models: a note.
    const LaunchConfig c = exported(llama70bZero3(), LaunchFormat::DeepSpeed);
    QCOMPARE(c.notes.size(), 1);
    QVERIFY(c.notes[0].contains(QStringLiteral("gradient_checkpointing_enable()")));
    QVERIFY(c.text.endsWith('\n'));
}

void TestLaunchConfig::deepSpeedStagesAndOffload()
{
    Scenario s = llama70bZero3();
    s.layout.offload = Offload::OptimizerAndParams;
    QJsonObject z = deepSpeedJson(s)["zero_optimization"].toObject();
    QCOMPARE(z["offload_optimizer"].toObject()["device"].toString(), QStringLiteral("cpu"));
    QCOMPARE(z["offload_optimizer"].toObject()["pin_memory"].toBool(), true);
    QCOMPARE(z["offload_param"].toObject()["device"].toString(), QStringLiteral("cpu"));

    s.layout.zeroStage = ZeroStage::Zero2;
    s.layout.offload = Offload::Optimizer;
    z = deepSpeedJson(s)["zero_optimization"].toObject();
    QCOMPARE(z["stage"].toInteger(), 2LL);
    QVERIFY(z.contains("offload_optimizer"));
    QVERIFY(!z.contains("offload_param"));
    QVERIFY(!z.contains("stage3_prefetch_bucket_size"));

    // HSDP with ZeRO-3 is MiCS: "mics_shard_size".
    s = llama70bZero3();
    s.layout.hsdpShardSize = 8;
    QCOMPARE(deepSpeedJson(s)["zero_optimization"].toObject()["mics_shard_size"].toInteger(), 8LL);
    // One gathered unit: no prefetch.
    s.overheads.gatheredUnits = 1;
    QCOMPARE(
        deepSpeedJson(s)["zero_optimization"].toObject()["stage3_prefetch_bucket_size"].toInteger(),
        0LL);

    // DDP is stage 0, nothing else in zero_optimization; fp32 weights: no bf16 block.
    s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Ddp;
    s.recipe = *Catalog::builtIn().recipe("fp32-adam");
    const QJsonObject o = deepSpeedJson(s);
    QCOMPARE(o["zero_optimization"].toObject(), QJsonObject({{"stage", 0}}));
    QVERIFY(!o.contains("bf16"));
}

void TestLaunchConfig::deepSpeedPrefetchBucketCountsElements()
{
    // DeepSpeed's stage3_prefetch_bucket_size is a number of parameter elements
    // (deepspeed/runtime/zero/config.py: "Maximum number of parameter elements to fetch
    // ahead of use"), so bf16 and fp32 weights prefetch the same unit.
    //
    // Llama 3 70B on 64 GPUs, ZeRO-3, t 1. Largest unit on the one stage: one layer is
    // 8192 x 8192 (Q) + 2 x 8192 x 1024 (K, V) + 8192 x 8192 (O) + 3 x 8192 x 28,672
    // (SwiGLU) + 2 x 8192 (norms) = 855,654,400 parameters; the embedding (and head) is
    // 128,256 x 8192 = 1,050,673,152: the unit. The report's gathered buffer is
    // (2 gathered + 1 gradient) x unit x element bytes, element bytes = min(weight
    // bytes, activation bytes 2):
    //   mixed-adam (2-byte weights): 3 x 1,050,673,152 x 2 = 6,304,038,912 bytes
    //   fp32-adam  (4-byte weights): 3 x 1,050,673,152 x 2 = 6,304,038,912 bytes
    //     (fp32 shards are gathered in the bf16 compute dtype)
    // and both buckets are 6,304,038,912 / (3 x 2) = 1,050,673,152 elements. Dividing
    // fp32's bytes by 3 x 4 instead would give half, 525,336,576.
    Scenario mixed = llama70bZero3();
    Scenario fp32 = llama70bZero3();
    fp32.recipe = *Catalog::builtIn().recipe("fp32-adam");
    for (const Scenario &s : {mixed, fp32}) {
        const MemoryReport r = estimate(s);
        QCOMPARE(r.groups.size(), std::size_t(1));
        QCOMPARE(qint64(r.groups[0].buffers.gatheredUnits), 6304038912LL);
        const qint64 bucket = deepSpeedJson(s)["zero_optimization"]
                                  .toObject()["stage3_prefetch_bucket_size"]
                                  .toInteger();
        QCOMPARE(bucket, 1050673152LL);
        // What the report says: its gathered bytes over (units + 1) x element bytes.
        QCOMPARE(bucket, qint64(r.groups[0].buffers.gatheredUnits / (3 * 2)));
    }
    // A model-states-only scenario exports the same bucket (its report holds no buffers).
    mixed.modelStatesOnly = true;
    QCOMPARE(deepSpeedJson(mixed)["zero_optimization"]
                 .toObject()["stage3_prefetch_bucket_size"]
                 .toInteger(),
             1050673152LL);
}

void TestLaunchConfig::deepSpeedProfileExportsItsZero3Knobs()
{
    // Under --framework deepspeed the estimate used DeepSpeed's ZeRO-3 defaults
    // (deepspeed/runtime/zero/config.py: stage3_prefetch_bucket_size 5e7,
    // stage3_max_live_parameters 1e9, stage3_param_persistence_threshold 1e5,
    // stage3_max_reuse_distance 1e9, sub_group_size 1e9); the exported config carries
    // those same values.
    Scenario s = llama70bZero3();
    s.layout.framework = Framework::DeepSpeed;
    const QJsonObject z = deepSpeedJson(s)["zero_optimization"].toObject();
    QCOMPARE(z["stage3_prefetch_bucket_size"].toInteger(), 50'000'000LL);
    QCOMPARE(z["stage3_max_live_parameters"].toInteger(), 1'000'000'000LL);
    QCOMPARE(z["stage3_param_persistence_threshold"].toInteger(), 100'000LL);
    QCOMPARE(z["stage3_max_reuse_distance"].toInteger(), 1'000'000'000LL);
    QCOMPARE(z["sub_group_size"].toInteger(), 1'000'000'000LL);
    // The generic profile exports the engine's own unit instead
    // (deepSpeedPrefetchBucketCountsElements).
    const QJsonObject g = deepSpeedJson(llama70bZero3())["zero_optimization"].toObject();
    QVERIFY(!g.contains("stage3_max_live_parameters"));
    QCOMPARE(exported(s, LaunchFormat::DeepSpeed).notes.filter("profile").size(), 0);
}

void TestLaunchConfig::profileDifferentFromTheLauncherIsNoted()
{
    Scenario s = llama70bZero3();
    s.layout.framework = Framework::DeepSpeed;
    const QStringList notes = exported(s, LaunchFormat::Torchtitan).notes;
    QVERIFY2(notes.contains(QStringLiteral("The estimate used the DeepSpeed profile, not "
                                           "PyTorch FSDP2 / torchtitan's: re-run it with "
                                           "--framework fsdp2 for this launcher's memory.")),
             qPrintable(notes.join('|')));
}

void TestLaunchConfig::loraIsLeftToPeftWithANote()
{
    // QLoRA on Llama 3 70B under ZeRO-3: the DeepSpeed and Accelerate configs are those of
    // the layout, and a note names the PEFT and bitsandbytes settings the script applies.
    Scenario s = llama70bZero3();
    s.fineTuning.loraRank = 64;
    s.fineTuning.loraAlpha = 16;
    s.fineTuning.loraTargets = LoraQ | LoraV | LoraDown;
    s.fineTuning.baseFormat = BaseFormat::Nf4;
    s.fineTuning.loraDropout = true;
    const QString peft =
        QStringLiteral("config has no LoRA setting: PEFT adds the adapters in the training "
                       "script, get_peft_model(model, LoraConfig(r=64, lora_alpha=16, "
                       "target_modules=[\"q_proj\", \"v_proj\", \"down_proj\"])), on a base "
                       "loaded with BitsAndBytesConfig(load_in_4bit=True, "
                       "bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant=True), with "
                       "lora_dropout above 0 (the estimate keeps its masks).");
    for (const auto &[format, id] : {std::pair{LaunchFormat::DeepSpeed, "deepspeed"},
                                     std::pair{LaunchFormat::Accelerate, "accelerate"}}) {
        const QStringList notes = exported(s, format).notes;
        QVERIFY2(notes.contains(QStringLiteral("The %1 ").arg(QLatin1String(id)) + peft),
                 qPrintable(notes.join('|')));
    }
    // Full training: no such note.
    for (const QString &n : exported(llama70bZero3(), LaunchFormat::DeepSpeed).notes)
        QVERIFY(!n.contains(QStringLiteral("LoRA")));
}

void TestLaunchConfig::deepSpeedAdam8bitIsAClientOptimizer()
{
    // shardscope export-config --format deepspeed --model llama3-70b --gpus 64
    //   --strategy zero3 --recipe adam-8bit
    // DeepSpeed has no 8-bit Adam optimizer type (config-json.md "optimizer"): the
    // script builds bitsandbytes.optim.Adam8bit and hands it to deepspeed.initialize.
    // ZeRO asserts on such an optimizer unless zero_allow_untested_optimizer is true
    // (deepspeed/runtime/engine.py _do_optimizer_sanity_check).
    Scenario s = llama70bZero3();
    s.recipe = *Catalog::builtIn().recipe("adam-8bit");
    const LaunchConfig c = exported(s, LaunchFormat::DeepSpeed);
    const QJsonObject o = QJsonDocument::fromJson(c.text).object();
    QVERIFY(!o.contains("optimizer"));
    QCOMPARE(o["zero_allow_untested_optimizer"].toBool(false), true);
    QVERIFY(!o.contains("zero_force_ds_cpu_optimizer"));
    QCOMPARE(o["bf16"].toObject()["enabled"].toBool(), true); // 2-byte weights
    // Two notes: the optimizer first, then recomputation.
    QCOMPARE(c.notes.size(), 2);
    QCOMPARE(c.notes[0], QStringLiteral("8-bit Adam has no DeepSpeed optimizer block: create "
                                        "bitsandbytes.optim.Adam8bit(model.parameters(), ...) "
                                        "in the training script and pass it as "
                                        "deepspeed.initialize(model=..., optimizer=...)."));

    // With ZeRO-Offload DeepSpeed insists on DeepSpeedCPUAdam unless
    // zero_force_ds_cpu_optimizer is false (engine.py _configure_optimizer).
    s.layout.offload = Offload::Optimizer;
    const LaunchConfig off = exported(s, LaunchFormat::DeepSpeed);
    const QJsonObject oo = QJsonDocument::fromJson(off.text).object();
    QCOMPARE(oo["zero_force_ds_cpu_optimizer"].toBool(true), false);
    QVERIFY(off.notes.join(' ').contains(QStringLiteral("step runs on the host")));

    // DDP does not wrap the optimizer in ZeRO: only the note.
    s = llama70bZero3();
    s.recipe = *Catalog::builtIn().recipe("adam-8bit");
    s.layout.zeroStage = ZeroStage::Ddp;
    const LaunchConfig ddp = exported(s, LaunchFormat::DeepSpeed);
    QVERIFY(!QJsonDocument::fromJson(ddp.text).object().contains("zero_allow_untested_optimizer"));
    QVERIFY(ddp.notes[0].contains(QStringLiteral("bitsandbytes.optim.Adam8bit")));

    // Every other recipe's document is unchanged: no such keys, no such note.
    const LaunchConfig mixed = exported(llama70bZero3(), LaunchFormat::DeepSpeed);
    QVERIFY(
        !QJsonDocument::fromJson(mixed.text).object().contains("zero_allow_untested_optimizer"));
    QVERIFY(!mixed.notes.join(' ').contains(QStringLiteral("Adam8bit")));
}

void TestLaunchConfig::deepSpeedLeavesModelParallelToTheLauncher()
{
    // 64 GPUs with t 8 and p 2: data parallel 4, so train_batch_size = 1 x 8 x 4.
    Scenario s = llama70bZero3();
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 2;
    const LaunchConfig c = exported(s, LaunchFormat::DeepSpeed);
    QCOMPARE(QJsonDocument::fromJson(c.text).object()["train_batch_size"].toInteger(), 32LL);
    QVERIFY2(c.notes.join(' ').contains(QStringLiteral("--tensor-model-parallel-size")),
             qPrintable(c.notes.join(' ')));
    QVERIFY(c.notes.join(' ').contains(QStringLiteral("data parallel 4 = 64 GPUs / (t p c)")));
}

void TestLaunchConfig::accelerateFsdp()
{
    // Key names and values as accelerate's examples/config_yaml_templates/fsdp.yaml and
    // multi_node.yaml write them; num_processes is the total over all machines.
    const QStringList l = lines(llama70bZero3(), LaunchFormat::Accelerate);
    QVERIFY(l[0].startsWith(QStringLiteral("# Exported by shardscope export-config: Llama 3 70B")));
    for (const char *line : {"compute_environment: LOCAL_MACHINE",
                             "distributed_type: FSDP",
                             "fsdp_config:",
                             "  fsdp_activation_checkpointing: true",
                             "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP",
                             "  fsdp_backward_prefetch: BACKWARD_PRE",
                             "  fsdp_cpu_ram_efficient_loading: true",
                             "  fsdp_forward_prefetch: false",
                             "  fsdp_offload_params: false",
                             "  fsdp_sharding_strategy: FULL_SHARD",
                             "  fsdp_state_dict_type: SHARDED_STATE_DICT",
                             "  fsdp_sync_module_states: true",
                             "  fsdp_use_orig_params: true",
                             "machine_rank: 0",
                             "main_training_function: main",
                             "mixed_precision: bf16",
                             "num_machines: 8",
                             "num_processes: 64",
                             "rdzv_backend: static",
                             "same_network: true",
                             "use_cpu: false"})
        QVERIFY2(l.contains(QLatin1String(line)), line);
    QCOMPARE(l.size(), 23); // the header, 21 lines, and the empty string after the last newline
    const LaunchConfig c = exported(llama70bZero3(), LaunchFormat::Accelerate);
    QVERIFY(c.notes[0].contains(QStringLiteral("per_device_train_batch_size=1")));
    QVERIFY(c.notes[0].contains(QStringLiteral("gradient_accumulation_steps=8")));
}

void TestLaunchConfig::accelerateStrategies()
{
    Scenario s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Ddp;
    QVERIFY(lines(s, LaunchFormat::Accelerate).contains("  fsdp_sharding_strategy: NO_SHARD"));
    s.layout.zeroStage = ZeroStage::Zero2;
    QVERIFY(lines(s, LaunchFormat::Accelerate).contains("  fsdp_sharding_strategy: SHARD_GRAD_OP"));
    s.layout.hsdpShardSize = 8;
    QVERIFY(lines(s, LaunchFormat::Accelerate)
                .contains("  fsdp_sharding_strategy: HYBRID_SHARD_ZERO2"));
    s.layout.zeroStage = ZeroStage::Zero3;
    s.layout.offload = Offload::OptimizerAndParams;
    s.overheads.gatheredUnits = 1;
    s.training.recompute = Recompute::None;
    const QStringList l = lines(s, LaunchFormat::Accelerate);
    QVERIFY(l.contains("  fsdp_sharding_strategy: HYBRID_SHARD"));
    QVERIFY(l.contains("  fsdp_offload_params: true"));
    QVERIFY(l.contains("  fsdp_backward_prefetch: NO_PREFETCH"));
    QVERIFY(l.contains("  fsdp_activation_checkpointing: false"));
    // fp32 weights: mixed precision 'no' (quoted: a bare no is a YAML boolean).
    s.recipe = *Catalog::builtIn().recipe("fp32-adam");
    QVERIFY(lines(s, LaunchFormat::Accelerate).contains("mixed_precision: 'no'"));
    // Four GPUs on one machine.
    s = llama70bZero3();
    s.layout.gpus = 4;
    s.model = *Catalog::builtIn().model("llama3-8b");
    QVERIFY(lines(s, LaunchFormat::Accelerate).contains("num_machines: 1"));
}

void TestLaunchConfig::torchtitanFsdp()
{
    // torchtitan job_config.py: [training] local_batch_size, global_batch_size, seq_len,
    // mixed_precision_param, mixed_precision_reduce, enable_cpu_offload; [parallelism]
    // data_parallel_replicate_degree, data_parallel_shard_degree,
    // fsdp_reshard_after_forward, tensor/pipeline/context/expert_parallel_degree;
    // [activation_checkpoint] mode.
    const QString text =
        QString::fromUtf8(exported(llama70bZero3(), LaunchFormat::Torchtitan).text);
    const QString body = text.section(u'\n', 1); // after the header comment
    // toml++ writes tables and keys sorted by name (TOML has no order); [job] description
    // says what was exported.
    QCOMPARE(body, QStringLiteral("[activation_checkpoint]\n"
                                  "mode = \"full\"\n"
                                  "\n"
                                  "[job]\n"
                                  "description = \"Llama 3 70B, 64 x NVIDIA H100 SXM 80GB, "
                                  "ZeRO-3 / FSDP, d 64 t 1 p 1 c 1 e 1\"\n"
                                  "\n"
                                  "[parallelism]\n"
                                  "context_parallel_degree = 1\n"
                                  "data_parallel_replicate_degree = 1\n"
                                  "data_parallel_shard_degree = 64\n"
                                  "expert_parallel_degree = 1\n"
                                  "fsdp_reshard_after_forward = \"default\"\n"
                                  "pipeline_parallel_degree = 1\n"
                                  "tensor_parallel_degree = 1\n"
                                  "\n") +
                       llama70bTrainingToml());
}

void TestLaunchConfig::torchtitanFloat8()
{
    // torchtitan job_config.py at 238fa9953 (the last TOML version): Model.converters,
    // Float8Linear (lines 731-741) and MXLinear (line 767) under [quantize.linear];
    // converter names from components/quantization/float8.py line 238 and mx.py line 171.
    Scenario s = llama70bZero3();
    s.layout.framework = Framework::Fsdp2;
    s.training.fp8 = Fp8Recipe::Delayed;
    const LaunchConfig c = exported(s, LaunchFormat::Torchtitan);
    const QString text = QString::fromUtf8(c.text);
    QVERIFY2(text.contains(QStringLiteral("[model]\n"
                                          "converters = [ \"quantize.linear.float8\" ]\n")),
             qPrintable(text));
    QVERIFY(text.endsWith(QStringLiteral("[quantize.linear.float8]\n"
                                         "enable_fsdp_float8_all_gather = true\n"
                                         "filter_fqns = [ \"output\" ]\n"
                                         "precompute_float8_dynamic_scale_for_fsdp = true\n"
                                         "recipe_name = \"tensorwise\"\n"
                                         "\n") +
                          llama70bTrainingToml()));
    s.training.fp8 = Fp8Recipe::Mxfp8;
    const QStringList mx = lines(s, LaunchFormat::Torchtitan);
    QVERIFY(mx.contains(QStringLiteral("converters = [ \"quantize.linear.mx\" ]")));
    QVERIFY(mx.contains(QStringLiteral("[quantize.linear.mx]")));
    QVERIFY(mx.contains(QStringLiteral("recipe_name = \"mxfp8_cublas\"")));
    // Activation offload has no torchtitan key, DeepSpeed has no FP8 key: notes.
    s.training.activationOffload = true;
    QVERIFY(exported(s, LaunchFormat::Torchtitan)
                .notes.filter(QStringLiteral("no activation offload setting"))
                .size() == 1);
    QVERIFY(exported(s, LaunchFormat::DeepSpeed)
                .notes.filter(QStringLiteral("fp8 mxfp8 is not a deepspeed setting"))
                .size() == 1);
}

void TestLaunchConfig::torchtitanLayouts()
{
    // HSDP: shard over 8, replicate over 64 / 8.
    Scenario s = llama70bZero3();
    s.layout.hsdpShardSize = 8;
    QStringList l = lines(s, LaunchFormat::Torchtitan);
    QVERIFY(l.contains("data_parallel_replicate_degree = 8"));
    QVERIFY(l.contains("data_parallel_shard_degree = 8"));
    // DDP replicates; ZeRO-2 keeps the gathered weights after forward ("never").
    s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Ddp;
    l = lines(s, LaunchFormat::Torchtitan);
    QVERIFY(l.contains("data_parallel_replicate_degree = 64"));
    QVERIFY(l.contains("data_parallel_shard_degree = 1"));
    s.layout.zeroStage = ZeroStage::Zero2;
    QVERIFY(lines(s, LaunchFormat::Torchtitan).contains("fsdp_reshard_after_forward = \"never\""));
    // Pipelining: 8 stages x t 8 on 64 GPUs is d 1; interleaved with 2 chunks, 80
    // layers: 5 layers per virtual stage; the m = 8 micro-batches of b = 1 are one
    // local batch of 8.
    s = llama70bZero3();
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 8;
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = 2;
    l = lines(s, LaunchFormat::Torchtitan);
    for (const char *line :
         {"local_batch_size = 8", "global_batch_size = 8", "data_parallel_shard_degree = 1",
          "tensor_parallel_degree = 8", "pipeline_parallel_degree = 8",
          "pipeline_parallel_schedule = \"Interleaved1F1B\"",
          "pipeline_parallel_microbatch_size = 1", "pipeline_parallel_layers_per_stage = 5"})
        QVERIFY2(l.contains(QLatin1String(line)), line);
    s.training.schedule = PipelineSchedule::GPipe;
    s.training.chunks = 1;
    QVERIFY(lines(s, LaunchFormat::Torchtitan).contains("pipeline_parallel_schedule = \"GPipe\""));
    s.training.schedule = PipelineSchedule::OneFOneB;
    QVERIFY(lines(s, LaunchFormat::Torchtitan).contains("pipeline_parallel_schedule = \"1F1B\""));
    // Selective recomputation: torchtitan's per-op selective mode.
    s = llama70bZero3();
    s.training.recompute = Recompute::Selective;
    l = lines(s, LaunchFormat::Torchtitan);
    QVERIFY(l.contains("mode = \"selective\""));
    QVERIFY(l.contains("selective_ac_option = \"op\""));
    // Mixtral with 8-way expert parallelism inside the 64 data-parallel ranks.
    s = llama70bZero3();
    s.model = *Catalog::builtIn().model("mixtral-8x7b");
    s.layout.expertParallel = 8;
    s.layout.offload = Offload::OptimizerAndParams;
    l = lines(s, LaunchFormat::Torchtitan);
    QVERIFY(l.contains("expert_parallel_degree = 8"));
    QVERIFY(l.contains("enable_cpu_offload = true"));
}

void TestLaunchConfig::namesCannotAddYamlKeys()
{
    // A model name with "\nmain_process_ip: 1.2.3.4" used to add that key to the
    // Accelerate file (review F3). Parsed back with yaml-cpp, the document has exactly
    // the keys it has for a plain name, and the name is one comment line, escaped.
    const LaunchConfig plain = exported(llama70bZero3(), LaunchFormat::Accelerate);
    const LaunchConfig c = exported(hostileNames(), LaunchFormat::Accelerate);
    auto keys = [](const YAML::Node &map) {
        std::set<std::string> k;
        for (const auto &kv : map)
            k.insert(kv.first.as<std::string>());
        return k;
    };
    const YAML::Node doc = YAML::Load(c.text.toStdString());
    QVERIFY(doc.IsMap());
    QCOMPARE(doc.size(), std::size_t(11));
    QVERIFY(keys(doc) == keys(YAML::Load(plain.text.toStdString())));
    QVERIFY(!doc["main_process_ip"]);
    QVERIFY(!doc["main_process_port"]);
    QCOMPARE(doc["fsdp_config"].size(), std::size_t(10));
    QCOMPARE(doc["num_processes"].as<int>(), 64);
    QCOMPARE(doc["mixed_precision"].as<std::string>(), std::string("bf16"));
    // Same line count as the plain export; the first line holds both names, escaped.
    QCOMPARE(c.text.count('\n'), plain.text.count('\n'));
    const QString first = QString::fromUtf8(c.text).section(u'\n', 0, 0);
    QCOMPARE(first, QStringLiteral("# Exported by shardscope export-config: "
                                   "org/m\\nmain_process_ip: 1.2.3.4\\n[evil]\\nx=1\\n'; touch "
                                   "pwned; '\\x1b[2J, 64 x H100\\nmain_process_port: "
                                   "4444\\u202e, ZeRO-3 / FSDP, d 64 t 1 p 1 c 1 e 1."));
    // No escape character or right-to-left override reaches the file raw (review F9).
    QVERIFY(!c.text.contains('\x1b'));
    QVERIFY(!c.text.contains("\xe2\x80\xae"));
    // fp32 weights: 'no' stays a string (a bare no is a YAML 1.1 boolean).
    Scenario fp32 = llama70bZero3();
    fp32.recipe = *Catalog::builtIn().recipe("fp32-adam");
    const YAML::Node d32 = YAML::Load(exported(fp32, LaunchFormat::Accelerate).text.toStdString());
    QCOMPARE(d32["mixed_precision"].as<std::string>(), std::string("no"));
    QVERIFY(lines(fp32, LaunchFormat::Accelerate).contains("mixed_precision: 'no'"));
}

void TestLaunchConfig::namesCannotAddTomlTables()
{
    // "\n[evil]\nx=1" in a name used to add a table to the torchtitan file (review F3).
    // Parsed back with toml++: the same four tables as for a plain name, and the name
    // is the whole of one string, [job] description.
    const LaunchConfig c = exported(hostileNames(), LaunchFormat::Torchtitan);
    toml::table doc;
    try {
        doc = toml::parse(c.text.toStdString());
    } catch (const toml::parse_error &e) {
        QFAIL(e.what());
    }
    std::set<std::string> tables;
    for (const auto &kv : doc)
        tables.insert(std::string(kv.first.str()));
    QVERIFY(tables ==
            (std::set<std::string>{"activation_checkpoint", "job", "parallelism", "training"}));
    QVERIFY(!doc["evil"]);
    QVERIFY(!doc["x"]);
    QCOMPARE(doc["job"].as_table()->size(), std::size_t(1));
    const std::string description = doc["job"]["description"].value_or(std::string());
    QCOMPARE(QString::fromStdString(description),
             QStringLiteral("org/m\nmain_process_ip: 1.2.3.4\n[evil]\nx=1\n'; touch pwned; "
                            "'\x1b[2J, 64 x H100\nmain_process_port: 4444\u202e, ZeRO-3 / "
                            "FSDP, d 64 t 1 p 1 c 1 e 1"));
    QCOMPARE(doc["parallelism"]["data_parallel_shard_degree"].value_or(0), 64);
    QCOMPARE(doc["training"]["global_batch_size"].value_or(0), 512);
    // toml++ escapes the control characters in the string, our comment the rest.
    QVERIFY(!c.text.contains('\x1b'));
    QVERIFY(!c.text.contains("\xe2\x80\xae"));
    const QByteArray escaped = "description = \"org/m\\nmain_process_ip: 1.2.3.4\\n[evil]\\nx=1"
                               "\\n'; touch pwned; '\\u001B[2J, 64 x H100\\nmain_process_port: "
                               "4444\\u202E, ";
    QVERIFY2(c.text.contains(escaped), c.text.constData());
    QCOMPARE(c.text.count('\n'),
             exported(llama70bZero3(), LaunchFormat::Torchtitan).text.count('\n'));
}

void TestLaunchConfig::oneLineTextEscapes()
{
    QCOMPARE(oneLineText(QStringLiteral("Llama 3 70B")), QStringLiteral("Llama 3 70B"));
    QCOMPARE(oneLineText(QStringLiteral("a\nb\tc\rd")), QStringLiteral("a\\nb\\tc\\rd"));
    QCOMPARE(oneLineText(QStringLiteral("\x1b[31m\x7f")), QStringLiteral("\\x1b[31m\\x7f"));
    QCOMPARE(oneLineText(QString(QChar(0x85))), QStringLiteral("\\x85"));
    QCOMPARE(oneLineText(QStringLiteral("x\u202e\u2066\u2028y")),
             QStringLiteral("x\\u202e\\u2066\\u2028y"));
    // Other non-ASCII text, an emoji outside the BMP included, is kept.
    QCOMPARE(oneLineText(QStringLiteral("Ünïcode \U0001F680")),
             QStringLiteral("Ünïcode \U0001F680"));
}

void TestLaunchConfig::shellQuotedReadsBack_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("quoted");
    QTest::newRow("number") << "8"
                            << "8";
    QTest::newRow("token") << "RMSNorm"
                           << "RMSNorm";
    QTest::newRow("path") << "org/model-1.5_b@v2:x,y=z%"
                          << "org/model-1.5_b@v2:x,y=z%";
    QTest::newRow("space") << "Llama 3 70B"
                           << "'Llama 3 70B'";
    QTest::newRow("command") << "x; rm -rf / #"
                             << "'x; rm -rf / #'";
    QTest::newRow("quote") << "it's $(id) `id` $HOME \\"
                           << "'it'\\''s $(id) `id` $HOME \\'";
    QTest::newRow("newline") << "a\nrm -rf ~"
                             << "$'a\\x0arm -rf ~'";
    QTest::newRow("escape and quote") << "'\x1b[2J\\'"
                                      << "$'\\'\\x1b[2J\\\\\\''";
    QTest::newRow("bidi") << "abc\u202edef"
                          << "$'abc\\xe2\\x80\\xaedef'";
    QTest::newRow("c1") << "a\u0085b"
                        << "$'a\\xc2\\x85b'";
    QTest::newRow("empty") << ""
                           << "''";
    QTest::newRow("unicode") << "Ünï"
                             << "'Ünï'";
}

void TestLaunchConfig::shellQuotedReadsBack()
{
    // bash reads each quoted word back as exactly the value, and runs nothing in it.
    QFETCH(QString, value);
    QFETCH(QString, quoted);
    QCOMPARE(shellQuoted(value), quoted);
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("no bash");
    QTemporaryDir dir;
    const QByteArray script = "MEGATRON_ARGS=(\n    " + shellQuoted(value).toUtf8() + "\n)\n";
    QCOMPARE(bashArray(script, dir.path()), QStringList{value});
    // The same in the C locale, where bash would leave \uHHHH undecoded.
    QCOMPARE(bashArray(script, dir.path(), QStringLiteral("C")), QStringList{value});
}

void TestLaunchConfig::megatronDense()
{
    // Llama 3 70B (80 layers, h 8192, ffn 28672, 64 heads, 8 KV heads, RoPE, RMSNorm,
    // SwiGLU, no biases, untied) on 64 H100s under ZeRO-1, b 1, m 8, full recomputation:
    // d 64, global batch 1 x 8 x 64 = 512. Spellings: Megatron-LM arguments.py
    // (docs/models.md "Megatron-LM").
    Scenario s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Zero1;
    const LaunchConfig c = exported(s, LaunchFormat::Megatron);
    QStringList l = QString::fromUtf8(c.text).split(u'\n');
    QVERIFY2(l[0].startsWith(QStringLiteral("# Exported by shardscope export-config: Llama 3 70B, "
                                            "64 x NVIDIA H100 SXM 80GB, ZeRO-1,")),
             qPrintable(l[0]));
    QCOMPARE(l.mid(2), QStringList({"MEGATRON_ARGS=(",
                                    "    --tensor-model-parallel-size 1",
                                    "    --pipeline-model-parallel-size 1",
                                    "    --context-parallel-size 1",
                                    "    --expert-model-parallel-size 1",
                                    "    --use-distributed-optimizer",
                                    "    --micro-batch-size 1",
                                    "    --global-batch-size 512",
                                    "    --recompute-granularity full",
                                    "    --recompute-method uniform",
                                    "    --recompute-num-layers 1",
                                    "    --bf16",
                                    "    --num-layers 80",
                                    "    --hidden-size 8192",
                                    "    --ffn-hidden-size 28672",
                                    "    --num-attention-heads 64",
                                    "    --group-query-attention",
                                    "    --num-query-groups 8",
                                    "    --seq-length 4096",
                                    "    --position-embedding-type rope",
                                    "    --max-position-embeddings 4096",
                                    "    --normalization RMSNorm",
                                    "    --swiglu",
                                    "    --disable-bias-linear",
                                    "    --untie-embeddings-and-output-weights",
                                    ")",
                                    ""}));
    QVERIFY(c.notes.join(u' ').contains(QStringLiteral("--tokenizer-type")));
    QVERIFY(c.notes.join(u' ').contains(QStringLiteral("torchrun --nnodes 8 --nproc-per-node 8")));
    // DDP: no distributed optimizer; no recomputation: no recompute flags; fp32: no --bf16.
    s.layout.zeroStage = ZeroStage::Ddp;
    s.training.recompute = Recompute::None;
    s.recipe = *Catalog::builtIn().recipe("fp32-adam");
    l = lines(s, LaunchFormat::Megatron);
    QVERIFY(!l.contains(QStringLiteral("    --use-distributed-optimizer")));
    QVERIFY(l.filter(QStringLiteral("--recompute")).isEmpty());
    QVERIFY(!l.contains(QStringLiteral("    --bf16")));
    QVERIFY(l.contains(QStringLiteral("    --global-batch-size 512")));
}

void TestLaunchConfig::megatronLayouts()
{
    // t 8, p 4, interleaved v 5 on 64 GPUs: d 2, global batch 1 x 8 x 2 = 16; 80 layers
    // over 4 x 5 virtual stages: 4 layers each. Selective recomputation is the attention
    // core alone (no method, no count); sequence parallel with t > 1; FP8 delayed is
    // Transformer Engine's hybrid format with the delayed recipe.
    Scenario s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Zero1;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 4;
    s.training.schedule = PipelineSchedule::Interleaved1F1B;
    s.training.chunks = 5;
    s.training.recompute = Recompute::Selective;
    s.training.fp8 = Fp8Recipe::Delayed;
    QStringList l = lines(s, LaunchFormat::Megatron);
    QCOMPARE(
        l.mid(3, 14),
        QStringList(
            {"    --tensor-model-parallel-size 8", "    --pipeline-model-parallel-size 4",
             "    --num-layers-per-virtual-pipeline-stage 4", "    --context-parallel-size 1",
             "    --expert-model-parallel-size 1", "    --sequence-parallel",
             "    --use-distributed-optimizer", "    --micro-batch-size 1",
             "    --global-batch-size 16", "    --recompute-granularity selective", "    --bf16",
             "    --fp8-format hybrid", "    --fp8-recipe delayed", "    --num-layers 80"}));
    s.training.sequenceParallel = false;
    s.training.fp8 = Fp8Recipe::Mxfp8;
    l = lines(s, LaunchFormat::Megatron);
    QVERIFY(!l.contains(QStringLiteral("    --sequence-parallel")));
    QVERIFY(l.contains(QStringLiteral("    --fp8-format e4m3")));
    QVERIFY(l.contains(QStringLiteral("    --fp8-recipe mxfp8")));
    // Balanced stages, p 2 on 80 layers: (80 + 2) / 2 = 41 per stage, the embedding and
    // the loss counted as layers, as Megatron's account-for flags count them.
    s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Zero1;
    s.layout.pipelineParallel = 2;
    s.layout.balancedStages = true;
    l = lines(s, LaunchFormat::Megatron);
    QVERIFY(l.contains(QStringLiteral("    --account-for-embedding-in-pipeline-split")));
    QVERIFY(l.contains(QStringLiteral("    --account-for-loss-in-pipeline-split")));
    QVERIFY(l.filter(QStringLiteral("virtual")).isEmpty());
    // HSDP-like ZeRO-1: shard over 8 of the 32 data-parallel ranks, 4 optimizer instances.
    s.layout.balancedStages = false;
    s.layout.hsdpShardSize = 8;
    QVERIFY(lines(s, LaunchFormat::Megatron)
                .contains(QStringLiteral("    --num-distributed-optimizer-instances 4")));
    // Mixtral 8x7B with 8-way expert parallelism: its experts, top-2 and expert width.
    s = llama70bZero3();
    s.layout.zeroStage = ZeroStage::Zero1;
    s.model = *Catalog::builtIn().model("mixtral-8x7b");
    s.layout.expertParallel = 8;
    l = lines(s, LaunchFormat::Megatron);
    for (const char *line : {"    --expert-model-parallel-size 8", "    --num-experts 8",
                             "    --moe-router-topk 2", "    --moe-ffn-hidden-size 14336"})
        QVERIFY2(l.contains(QLatin1String(line)), line);
    // Optimizer offload: Megatron's hybrid-device optimizer, the whole of it on the host.
    s.layout.offload = Offload::Optimizer;
    l = lines(s, LaunchFormat::Megatron);
    QVERIFY(l.contains(QStringLiteral("    --optimizer-cpu-offload")));
    QVERIFY(l.contains(QStringLiteral("    --optimizer-offload-fraction 1.0")));
    QVERIFY(l.contains(QStringLiteral("    --use-precision-aware-optimizer")));
}

void TestLaunchConfig::megatronNamesStayInTheComment()
{
    // Names with "'; touch pwned; '", newlines and an escape sequence: bash reads the
    // export back as the same arguments as for plain names and runs nothing else.
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("no bash");
    Scenario plain = llama70bZero3();
    plain.layout.zeroStage = ZeroStage::Zero1;
    Scenario hostile = hostileNames();
    hostile.layout.zeroStage = ZeroStage::Zero1;
    QTemporaryDir dir;
    const QStringList expected =
        bashArray(exported(plain, LaunchFormat::Megatron).text, dir.path());
    // 24 arguments: 18 flags with a value (two words each) and 6 without.
    QCOMPARE(expected.size(), 18 * 2 + 6);
    const LaunchConfig c = exported(hostile, LaunchFormat::Megatron);
    QCOMPARE(bashArray(c.text, dir.path()), expected);
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("pwned"))));
    QVERIFY(!c.text.contains('\x1b'));
    QVERIFY(!c.text.contains("\xe2\x80\xae"));
    QCOMPARE(c.text.count('\n'), exported(plain, LaunchFormat::Megatron).text.count('\n'));
}

void TestLaunchConfig::refusals_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<Scenario>("scenario");
    QTest::addColumn<QString>("message");
    const int ds = int(LaunchFormat::DeepSpeed), acc = int(LaunchFormat::Accelerate),
              tt = int(LaunchFormat::Torchtitan), mg = int(LaunchFormat::Megatron);
    // llama70bZero3() with `change` made.
    auto with = [](void (*change)(Scenario &)) {
        Scenario s = llama70bZero3();
        change(s);
        return s;
    };
    QTest::newRow("invalid scenario")
        << ds << with([](Scenario &s) { s.layout.tensorParallel = 5; })
        << "scenario: gpus (64) is not divisible by t x p x c (5 x 1 x 1 = 5)";
    QTest::newRow("deepspeed hsdp zero2")
        << ds << with([](Scenario &s) {
               s.layout.zeroStage = ZeroStage::Zero2;
               s.layout.hsdpShardSize = 8;
           })
        << "DeepSpeed shards in groups (MiCS, mics_shard_size) only with ZeRO-3: pick zero3 or "
           "drop --hsdp-shard";
    QTest::newRow("fsdp zero1") << acc
                                << with([](Scenario &s) { s.layout.zeroStage = ZeroStage::Zero1; })
                                << "FSDP has no ZeRO-1 (its SHARD_GRAD_OP is ZeRO-2): pick ddp, "
                                   "zero2 or zero3";
    QTest::newRow("accelerate tp") << acc << with([](Scenario &s) { s.layout.tensorParallel = 8; })
                                   << "Accelerate's FSDP config has no tensor, pipeline, context "
                                      "or expert parallel setting: export torchtitan instead";
    QTest::newRow("accelerate hsdp across nodes")
        << acc << with([](Scenario &s) { s.layout.hsdpShardSize = 16; })
        << "FSDP's HYBRID_SHARD shards within one node: set --hsdp-shard to the GPUs "
           "per node (8)";
    QTest::newRow("accelerate optimizer offload")
        << acc << with([](Scenario &s) { s.layout.offload = Offload::Optimizer; })
        << "FSDP's CPU offload moves parameters, gradients and the optimizer step together: use "
           "--offload optimizer+params";
    QTest::newRow("torchtitan zero1")
        << tt << with([](Scenario &s) { s.layout.zeroStage = ZeroStage::Zero1; })
        << "torchtitan has no ZeRO-1 (it shards with FSDP2): pick ddp, zero2 or zero3";
    QTest::newRow("torchtitan zb-h1")
        << tt << with([](Scenario &s) {
               s.layout.pipelineParallel = 4;
               s.training.schedule = PipelineSchedule::ZeroBubbleH1;
           })
        << "torchtitan has no single-chunk ZB-H1 schedule (its zero-bubble schedules, "
           "InterleavedZeroBubble and ZBVZeroBubble, need 2 or more stages per rank)";
    QTest::newRow("megatron zero3")
        << mg << with([](Scenario &) {})
        << "Megatron-LM's distributed optimizer (--use-distributed-optimizer) shards optimizer "
           "states only, like ZeRO-1: pick ddp or zero1";
    QTest::newRow("megatron gpipe")
        << mg << with([](Scenario &s) {
               s.layout.zeroStage = ZeroStage::Zero1;
               s.layout.pipelineParallel = 4;
               s.training.schedule = PipelineSchedule::GPipe;
           })
        << "Megatron-LM schedules pipelines with 1F1B or interleaved 1F1B "
           "(core/pipeline_parallel/schedules.py), not GPipe: pick 1f1b or interleaved";
    QTest::newRow("megatron uneven layers")
        << mg << with([](Scenario &s) {
               s.layout.zeroStage = ZeroStage::Zero1;
               s.layout.pipelineParallel = 32;
               s.layout.allowUnevenStages = true;
           })
        << "Megatron-LM splits the layers evenly over p x v = 32 x 1 stages, and 80 layers do "
           "not split so: pick another p or v, or balanced stages";
    // Neither has adapters: a config would describe full training, far above the estimate.
    for (const auto &[format, name] : {std::pair{tt, "torchtitan"}, std::pair{mg, "Megatron-LM"}})
        QTest::addRow("%s lora", name)
            << format << with([](Scenario &s) {
                   s.layout.zeroStage = ZeroStage::Zero1;
                   s.fineTuning.loraRank = 8;
               })
            << QStringLiteral("no LoRA or QLoRA adapters in %1 (it trains every parameter): "
                              "export for deepspeed or accelerate, where PEFT adds them in the "
                              "training script, or set --lora-rank 0")
                   .arg(QLatin1String(name));
}

void TestLaunchConfig::refusals()
{
    QFETCH(int, format);
    QFETCH(Scenario, scenario);
    QFETCH(QString, message);
    QCOMPARE(exportError(scenario, LaunchFormat(format)), message);
}

QTEST_GUILESS_MAIN(TestLaunchConfig)
#include "test_launchconfig.moc"
