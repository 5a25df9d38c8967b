#include "launchconfig.h"

#include "estimate.h"
#include "qtext.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <sstream>
#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

namespace shardscope {

namespace {

/// What was exported, in one line: "Llama 3 70B, 64 x NVIDIA H100 SXM 80GB, ZeRO-3 / FSDP,
/// d 64 t 1 p 1 c 1 e 1". The names are as the scenario gives them (from a config.json
/// `_name_or_path`, a scenario file, the catalog): escape them before a comment.
QString layoutSummary(const Scenario &s)
{
    const Layout &l = s.layout;
    return QStringLiteral("%1, %2 x %3, %4, d %5 t %6 p %7 c %8 e %9")
        .arg(toQString(s.model.displayName.empty() ? s.model.id : s.model.displayName))
        .arg(l.gpus)
        .arg(toQString(s.gpu.name.empty() ? s.gpu.id : s.gpu.name),
             toQString(zeroStageName(l.zeroStage)))
        .arg(l.dataParallel())
        .arg(l.tensorParallel)
        .arg(l.pipelineParallel)
        .arg(l.contextParallel)
        .arg(l.expertParallel);
}

/// The text of the first comment line of every YAML, TOML and shell export, without its
/// "# ": one line whatever the names hold (oneLineText()), so a newline in a model or GPU
/// name cannot start a key, a table or a command (reliability review F3, F9).
QString headerText(const Scenario &s)
{
    return QStringLiteral("Exported by shardscope export-config: ") +
           oneLineText(layoutSummary(s)) + u'.';
}

/// Parameters (elements) of the largest gathered ZeRO-3 unit on one GPU, as the
/// engine reports it (GpuGroup::gatheredUnitParameters, the largest over stages) for
/// the scenario with everything counted (a model-states-only report gathers nothing):
/// the same count for bf16 and fp32 weights. 0 when the report gathers none.
std::int64_t gatheredUnitElements(const Scenario &s)
{
    Scenario full = s;
    full.modelStatesOnly = false;
    const MemoryReport r = estimate(full);
    std::int64_t unit = 0;
    for (const GpuGroup &g : r.groups)
        unit = std::max(unit, g.gatheredUnitParameters);
    return unit;
}

/// The catalog's 8-bit Adam recipe (resources/data/recipes.json "adam-8bit":
/// bitsandbytes, Dettmers et al. 2022). DeepSpeed's config has no 8-bit Adam type
/// (config-json.md "optimizer": Adam, AdamW, OneBitAdam, Lamb, OneBitLamb and torch's).
bool isBitsandbytesAdam8bit(const Recipe &r)
{
    return r.id == "adam-8bit";
}

/// Notes shared by the formats that leave model parallelism to the launcher.
void modelParallelNotes(const Scenario &s, const QString &how, QStringList *notes)
{
    const Layout &l = s.layout;
    if (l.tensorParallel > 1 || l.pipelineParallel > 1)
        *notes << QStringLiteral("Tensor parallel %1 and pipeline parallel %2 are %3; the batch "
                                 "sizes assume data parallel %4 = %5 GPUs / (t p c).")
                      .arg(l.tensorParallel)
                      .arg(l.pipelineParallel)
                      .arg(how)
                      .arg(l.dataParallel())
                      .arg(l.gpus);
    if (l.contextParallel > 1)
        *notes << QStringLiteral("Context parallel %1 (ring attention) has no setting in this "
                                 "format.")
                      .arg(l.contextParallel);
    if (l.expertParallel > 1)
        *notes << QStringLiteral("Expert parallel %1 is an argument of the MoE layer "
                                 "(DeepSpeed-MoE: deepspeed.moe.layer.MoE(ep_size=%1)).")
                      .arg(l.expertParallel);
}

std::optional<LaunchConfig> deepSpeed(const Scenario &s, QString *error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    LaunchConfig out;
    if (l.hsdpShardSize > 0 && l.zeroStage != ZeroStage::Zero3) {
        *error = QStringLiteral("DeepSpeed shards in groups (MiCS, mics_shard_size) only with "
                                "ZeRO-3: pick zero3 or drop --hsdp-shard");
        return std::nullopt;
    }
    QJsonObject zero{{"stage", int(l.zeroStage)}};
    if (l.zeroStage != ZeroStage::Ddp) {
        zero.insert("overlap_comm", true);
        zero.insert("contiguous_gradients", true);
        zero.insert("reduce_bucket_size", qint64(s.overheads.zeroBucketElements));
    }
    if (l.zeroStage == ZeroStage::Zero3) {
        // stage3_prefetch_bucket_size counts ELEMENTS (parameters): DeepSpeed's ZeRO
        // config model, deepspeed/runtime/zero/config.py, documents prefetch_bucket_size
        // (alias "stage3_prefetch_bucket_size") as the "Maximum number of parameter
        // elements to fetch ahead of use"; docs/_pages/config-json.md calls it "The size
        // of the fixed buffer for prefetching parameters". With prefetch (gathered
        // units 2) one unit is fetched ahead: the report's unit in elements, not its
        // bytes; without prefetch 0.
        if (l.framework == Framework::DeepSpeed) {
            // The deepspeed profile estimates with DeepSpeed's own ZeRO-3 knobs: export the
            // same values (deepspeed/runtime/zero/config.py spellings).
            const Overheads &o = s.overheads;
            zero.insert("stage3_prefetch_bucket_size",
                        qint64(o.gatheredUnits == 2 ? o.stage3PrefetchElements : 0));
            zero.insert("stage3_max_live_parameters", qint64(o.stage3MaxLiveParameters));
            zero.insert("stage3_param_persistence_threshold", qint64(o.stage3PersistenceThreshold));
            zero.insert("stage3_max_reuse_distance", qint64(o.stage3MaxReuseDistance));
            zero.insert("sub_group_size", qint64(o.subGroupElements));
        } else if (const std::int64_t unit = gatheredUnitElements(s); unit > 0) {
            zero.insert("stage3_prefetch_bucket_size",
                        qint64(s.overheads.gatheredUnits == 2 ? unit : 0));
        }
        if (l.hsdpShardSize > 0)
            zero.insert("mics_shard_size", qint64(l.hsdpShardSize));
    }
    const QJsonObject cpu{{"device", "cpu"}, {"pin_memory", true}};
    if (l.offload != Offload::None)
        zero.insert("offload_optimizer", cpu);
    if (l.offload == Offload::OptimizerAndParams)
        zero.insert("offload_param", cpu);

    QJsonObject o{{"train_batch_size", qint64(t.globalBatch(l.dataParallel()))},
                  {"train_micro_batch_size_per_gpu", qint64(t.microBatchSize)},
                  {"gradient_accumulation_steps", qint64(t.microBatches)},
                  {"zero_optimization", zero}};
    // 8-bit Adam is a client optimizer passed to deepspeed.initialize. ZeRO refuses an
    // optimizer it has not tested unless zero_allow_untested_optimizer is set
    // (engine.py _do_optimizer_sanity_check), and ZeRO-Offload one that is not
    // DeepSpeedCPUAdam unless zero_force_ds_cpu_optimizer is false (engine.py
    // _configure_optimizer; both keys in Hugging Face's DeepSpeed guide).
    const bool adam8bit = isBitsandbytesAdam8bit(s.recipe);
    if (adam8bit && l.zeroStage != ZeroStage::Ddp)
        o.insert("zero_allow_untested_optimizer", true);
    if (adam8bit && l.offload != Offload::None)
        o.insert("zero_force_ds_cpu_optimizer", false);
    if (s.recipe.weightBytes == 2)
        o.insert("bf16", QJsonObject{{"enabled", true}});
    else if (s.recipe.weightBytes != 4) {
        *error = QStringLiteral("DeepSpeed trains in bf16, fp16 or fp32: %1-byte weights have no "
                                "setting")
                     .arg(s.recipe.weightBytes);
        return std::nullopt;
    }
    out.text = QJsonDocument(o).toJson(QJsonDocument::Indented);
    if (adam8bit) {
        out.notes << QStringLiteral("8-bit Adam has no DeepSpeed optimizer block: create "
                                    "bitsandbytes.optim.Adam8bit(model.parameters(), ...) in "
                                    "the training script and pass it as "
                                    "deepspeed.initialize(model=..., optimizer=...).");
        if (l.offload != Offload::None)
            out.notes << QStringLiteral("With offload_optimizer the optimizer step runs on the "
                                        "host, not in DeepSpeedCPUAdam: check that the installed "
                                        "bitsandbytes steps 8-bit Adam on CPU tensors, or drop "
                                        "the offload.");
    }
    modelParallelNotes(s,
                       QStringLiteral("launcher arguments (Megatron-DeepSpeed "
                                      "--tensor-model-parallel-size, "
                                      "--pipeline-model-parallel-size)"),
                       &out.notes);
    if (t.recompute != Recompute::None)
        out.notes << QStringLiteral("Activation recomputation (%1) is switched on in the "
                                    "training script (model.gradient_checkpointing_enable() or "
                                    "deepspeed.checkpointing).")
                         .arg(toQString(recomputeId(t.recompute)));
    return out;
}

std::optional<LaunchConfig> accelerate(const Scenario &s, QString *error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    if (l.modelParallel() > 1 || l.expertParallel > 1) {
        *error = QStringLiteral("Accelerate's FSDP config has no tensor, pipeline, context or "
                                "expert parallel setting: export torchtitan instead");
        return std::nullopt;
    }
    QString strategy;
    switch (l.zeroStage) {
    case ZeroStage::Ddp:
        strategy = QStringLiteral("NO_SHARD");
        break;
    case ZeroStage::Zero1:
        *error = QStringLiteral("FSDP has no ZeRO-1 (its SHARD_GRAD_OP is ZeRO-2): pick ddp, "
                                "zero2 or zero3");
        return std::nullopt;
    case ZeroStage::Zero2:
        strategy = l.hsdpShardSize > 0 ? QStringLiteral("HYBRID_SHARD_ZERO2")
                                       : QStringLiteral("SHARD_GRAD_OP");
        break;
    case ZeroStage::Zero3:
        strategy =
            l.hsdpShardSize > 0 ? QStringLiteral("HYBRID_SHARD") : QStringLiteral("FULL_SHARD");
        break;
    }
    if (l.hsdpShardSize > 0 && l.hsdpShardSize != std::min(l.gpusPerNode, l.gpus)) {
        *error = QStringLiteral("FSDP's HYBRID_SHARD shards within one node: set --hsdp-shard to "
                                "the GPUs per node (%1)")
                     .arg(std::min(l.gpusPerNode, l.gpus));
        return std::nullopt;
    }
    if (l.offload == Offload::Optimizer) {
        *error = QStringLiteral("FSDP's CPU offload moves parameters, gradients and the "
                                "optimizer step together: use --offload optimizer+params");
        return std::nullopt;
    }
    // mixed_precision: bf16, or no for fp32 weights, written 'no' (single-quoted: a bare
    // no is a YAML 1.1 boolean to PyYAML, which accelerate reads the file with, and
    // yaml-cpp 0.7 would write it bare).
    std::string precision;
    if (s.recipe.weightBytes == 2)
        precision = "bf16";
    else if (s.recipe.weightBytes == 4)
        precision = "no";
    else {
        *error = QStringLiteral("Accelerate's mixed_precision is no, fp16 or bf16: %1-byte "
                                "weights have no setting")
                     .arg(s.recipe.weightBytes);
        return std::nullopt;
    }
    const std::int64_t machines = (l.gpus + l.gpusPerNode - 1) / l.gpusPerNode;
    // Keys in accelerate's own order (it writes them sorted, config_args.py to_yaml_file).
    YAML::Emitter y;
    y << YAML::Comment(headerText(s).toStdString());
    y << YAML::BeginMap;
    y << YAML::Key << "compute_environment" << YAML::Value << "LOCAL_MACHINE";
    y << YAML::Key << "distributed_type" << YAML::Value << "FSDP";
    y << YAML::Key << "fsdp_config" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "fsdp_activation_checkpointing" << YAML::Value
      << (t.recompute == Recompute::Full);
    y << YAML::Key << "fsdp_auto_wrap_policy" << YAML::Value << "TRANSFORMER_BASED_WRAP";
    y << YAML::Key << "fsdp_backward_prefetch" << YAML::Value
      << (s.overheads.gatheredUnits == 2 ? "BACKWARD_PRE" : "NO_PREFETCH");
    y << YAML::Key << "fsdp_cpu_ram_efficient_loading" << YAML::Value << true;
    y << YAML::Key << "fsdp_forward_prefetch" << YAML::Value << false;
    y << YAML::Key << "fsdp_offload_params" << YAML::Value
      << (l.offload == Offload::OptimizerAndParams);
    y << YAML::Key << "fsdp_sharding_strategy" << YAML::Value << strategy.toStdString();
    y << YAML::Key << "fsdp_state_dict_type" << YAML::Value << "SHARDED_STATE_DICT";
    y << YAML::Key << "fsdp_sync_module_states" << YAML::Value << true;
    y << YAML::Key << "fsdp_use_orig_params" << YAML::Value << true;
    y << YAML::EndMap;
    y << YAML::Key << "machine_rank" << YAML::Value << 0;
    y << YAML::Key << "main_training_function" << YAML::Value << "main";
    y << YAML::Key << "mixed_precision" << YAML::Value;
    if (precision == "no")
        y << YAML::SingleQuoted;
    y << precision;
    y << YAML::Key << "num_machines" << YAML::Value << machines;
    y << YAML::Key << "num_processes" << YAML::Value << l.gpus;
    y << YAML::Key << "rdzv_backend" << YAML::Value << "static";
    y << YAML::Key << "same_network" << YAML::Value << true;
    y << YAML::Key << "use_cpu" << YAML::Value << false;
    y << YAML::EndMap;
    if (!y.good()) { // an emitter bug, not bad input: say so rather than write half a file
        *error = QStringLiteral("YAML emitter: ") + QString::fromStdString(y.GetLastError());
        return std::nullopt;
    }
    LaunchConfig out;
    out.text = QByteArray(y.c_str(), qsizetype(y.size())) + '\n';
    out.notes << QStringLiteral("Micro-batch size %1 and gradient accumulation %2 are training "
                                "arguments (Trainer: per_device_train_batch_size=%1, "
                                "gradient_accumulation_steps=%2): global batch %3 sequences "
                                "of %4 tokens.")
                     .arg(t.microBatchSize)
                     .arg(t.microBatches)
                     .arg(t.globalBatch(l.dataParallel()))
                     .arg(t.sequenceLength);
    if (t.recompute == Recompute::Selective)
        out.notes << QStringLiteral("fsdp_activation_checkpointing recomputes whole blocks; "
                                    "selective recomputation is set in the model code.");
    if (machines > 1)
        out.notes << QStringLiteral("Set machine_rank, main_process_ip and main_process_port on "
                                    "each of the %1 machines.")
                         .arg(machines);
    return out;
}

/// torchtitan's data-parallel mesh ([parallelism]): replicate and shard degrees and
/// fsdp_reshard_after_forward.
struct TitanMesh
{
    std::int64_t replicate = 1;
    std::int64_t shard = 1;
    QString reshard = QStringLiteral("default");
};

/// The mesh torchtitan runs the layout `l` on (DDP replicates over d ranks, ZeRO-2 and
/// ZeRO-3 shard with FSDP2, HSDP over dp_shard x cp), or nullopt with the reason in
/// `error` when its config cannot say it: ZeRO-1, an HSDP shard size that is no multiple
/// of c, more context than expert parallel ranks, optimizer-only CPU offload.
std::optional<TitanMesh> titanMesh(const Layout &l, QString *error)
{
    const std::int64_t d = l.dataParallel();
    const int c = l.contextParallel;
    TitanMesh m;
    switch (l.zeroStage) {
    case ZeroStage::Ddp:
        m.replicate = d;
        break;
    case ZeroStage::Zero1:
        *error = QStringLiteral("torchtitan has no ZeRO-1 (it shards with FSDP2): pick ddp, "
                                "zero2 or zero3");
        return std::nullopt;
    case ZeroStage::Zero2:
    case ZeroStage::Zero3:
        if (l.zeroStage == ZeroStage::Zero2)
            m.reshard = QStringLiteral("never"); // keep gathered weights from forward to backward
        m.shard = d;
        if (l.hsdpShardSize > 0) {
            // torchtitan's FSDP mesh is dp_shard x cp; our shard group spans d x c ranks.
            if (l.hsdpShardSize % c != 0) {
                *error = QStringLiteral("torchtitan shards over data_parallel_shard_degree x "
                                        "context_parallel_degree: the HSDP shard size (%1) must "
                                        "be a multiple of the context parallel size (%2)")
                             .arg(l.hsdpShardSize)
                             .arg(c);
                return std::nullopt;
            }
            m.shard = l.hsdpShardSize / c;
            m.replicate = d / m.shard;
        }
        break;
    }
    if (l.expertParallel > 1 && l.expertParallel < c) {
        *error = QStringLiteral("torchtitan needs context_parallel_degree <= "
                                "expert_parallel_degree (%1 > %2)")
                     .arg(c)
                     .arg(l.expertParallel);
        return std::nullopt;
    }
    if (l.offload == Offload::Optimizer) {
        *error = QStringLiteral("torchtitan's enable_cpu_offload moves parameters, gradients and "
                                "optimizer states together: use --offload optimizer+params");
        return std::nullopt;
    }
    return m;
}

/// pipeline_parallel_schedule for `schedule`, or nullopt with the reason in `error`
/// (torchtitan has no single-chunk ZB-H1).
std::optional<QString> titanSchedule(PipelineSchedule schedule, QString *error)
{
    switch (schedule) {
    case PipelineSchedule::GPipe:
        return QStringLiteral("GPipe");
    case PipelineSchedule::OneFOneB:
        return QStringLiteral("1F1B");
    case PipelineSchedule::Interleaved1F1B:
        return QStringLiteral("Interleaved1F1B");
    case PipelineSchedule::ZeroBubbleH1:
        *error = QStringLiteral("torchtitan has no single-chunk ZB-H1 schedule (its zero-bubble "
                                "schedules, InterleavedZeroBubble and ZBVZeroBubble, need 2 "
                                "or more stages per rank)");
        return std::nullopt;
    }
    return std::nullopt;
}

/// mixed_precision_param for the recipe's weights (bfloat16 or float32), or nullopt with
/// the reason in `error`.
std::optional<QString> titanParamDtype(const Scenario &s, QString *error)
{
    if (s.recipe.weightBytes == 2)
        return QStringLiteral("bfloat16");
    if (s.recipe.weightBytes == 4)
        return QStringLiteral("float32");
    *error = QStringLiteral("torchtitan's mixed_precision_param is bfloat16 or float32: "
                            "%1-byte weights have no setting")
                 .arg(s.recipe.weightBytes);
    return std::nullopt;
}

/// The [parallelism] table: degrees and pipeline settings.
toml::table titanParallelism(const Scenario &s, const TitanMesh &mesh, const QString &schedule)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    toml::table x;
    x.insert("data_parallel_replicate_degree", mesh.replicate);
    x.insert("data_parallel_shard_degree", mesh.shard);
    x.insert("fsdp_reshard_after_forward", mesh.reshard.toStdString());
    x.insert("tensor_parallel_degree", l.tensorParallel);
    x.insert("pipeline_parallel_degree", l.pipelineParallel);
    if (l.pipelineParallel > 1) {
        x.insert("pipeline_parallel_schedule", schedule.toStdString());
        x.insert("pipeline_parallel_microbatch_size", t.microBatchSize);
        // torchtitan counts the embedding and the output head as `first_stage_less_layers`
        // and `last_stage_less_layers` layers (both 1 by default) when it splits the model
        // (pipeline_parallel.py, generate_llm_fqn_per_model_part): 1 for balanced stages,
        // 0 for the estimate's plain split.
        const int less = l.balancedStages ? 1 : 0;
        x.insert("pipeline_parallel_first_stage_less_layers", less);
        x.insert("pipeline_parallel_last_stage_less_layers", less);
        const int v = t.schedule == PipelineSchedule::Interleaved1F1B ? t.chunks : 1;
        if (s.model.architecture && (v > 1 || l.balancedStages))
            x.insert("pipeline_parallel_layers_per_stage",
                     (s.model.architecture->layers + 2 * less) / (l.pipelineParallel * v));
    }
    x.insert("context_parallel_degree", l.contextParallel);
    x.insert("expert_parallel_degree", l.expertParallel);
    return x;
}

/// Adds the [activation_checkpoint] table and, with FP8, the [model] converters and their
/// torchao table to `root`.
void titanCheckpointAndFp8(const Training &t, toml::table *root)
{
    toml::table ac{{"mode", recomputeId(t.recompute)}};
    if (t.recompute == Recompute::Selective)
        ac.insert("selective_ac_option", "op");
    root->insert("activation_checkpoint", std::move(ac));
    // FP8 (torchtitan/config/job_config.py at 238fa9953, the last TOML version: Model
    // .converters, Float8Linear lines 731-741, MXLinear line 767; converter names from
    // components/quantization/float8.py line 238 and mx.py line 171).
    toml::table recipe;
    std::string converter;
    if (t.fp8 == Fp8Recipe::Delayed) {
        converter = "float8";
        recipe.insert("recipe_name", "tensorwise");
        recipe.insert("enable_fsdp_float8_all_gather", true);
        recipe.insert("precompute_float8_dynamic_scale_for_fsdp", true);
    } else if (t.fp8 == Fp8Recipe::Mxfp8) {
        converter = "mx";
        recipe.insert("recipe_name", "mxfp8_cublas");
    } else {
        return;
    }
    recipe.insert("filter_fqns", toml::array{"output"});
    root->insert("model", toml::table{{"converters", toml::array{"quantize.linear." + converter}}});
    toml::table linear;
    linear.insert(converter, std::move(recipe));
    root->insert("quantize", toml::table{{"linear", std::move(linear)}});
}

/// The notes beside a torchtitan config: what to add, and what it sets differently.
QStringList titanNotes(const Scenario &s)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    const bool pp = l.pipelineParallel > 1;
    QStringList notes;
    notes << QStringLiteral("A fragment: add [model] (name, flavor) and the optimizer; the "
                            "world size is %1 GPUs.")
                 .arg(l.gpus);
    if (l.tensorParallel > 1 && !t.sequenceParallel)
        notes << QStringLiteral("torchtitan's tensor parallelism always uses sequence "
                                "parallelism.");
    if (t.fp8 == Fp8Recipe::Delayed)
        notes << QStringLiteral("fp8 delayed is written as torchao's tensorwise Float8 "
                                "with the FP8 all-gather (torchao has no delayed scaling).");
    if (t.activationOffload)
        notes << QStringLiteral("torchtitan has no activation offload setting: the "
                                "estimate's offloaded activations need your own hooks "
                                "(torch.autograd.graph.save_on_cpu).");
    if (t.schedule == PipelineSchedule::Interleaved1F1B && pp && s.model.architecture &&
        !l.balancedStages && s.model.architecture->layers % (l.pipelineParallel * t.chunks) != 0)
        notes << QStringLiteral("Layers do not split evenly over %1 virtual stages: set "
                                "pipeline_parallel_split_points by hand.")
                     .arg(l.pipelineParallel * t.chunks);
    return notes;
}

std::optional<LaunchConfig> torchtitan(const Scenario &s, QString *error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    const std::int64_t d = l.dataParallel();
    const std::optional<TitanMesh> mesh = titanMesh(l, error);
    if (!mesh)
        return std::nullopt;
    QString schedule;
    const bool pp = l.pipelineParallel > 1;
    if (pp) {
        const std::optional<QString> name = titanSchedule(t.schedule, error);
        if (!name)
            return std::nullopt;
        schedule = *name;
    }
    const std::optional<QString> param = titanParamDtype(s, error);
    if (!param)
        return std::nullopt;
    // Without pipelining, m micro-batches are gradient-accumulation steps of
    // local_batch_size b; with it, local_batch_size m b is split into micro-batches of b.
    const std::int64_t local = pp ? t.microBatchSize * t.microBatches : t.microBatchSize;
    toml::table root;
    // [job] description (job_config.py Job.description, what torchtitan's own
    // train_configs/*.toml start with): what was exported, the names as a TOML string.
    root.insert("job", toml::table{{"description", layoutSummary(s).toStdString()}});
    root.insert("training",
                toml::table{{"local_batch_size", local},
                            {"global_batch_size", t.globalBatch(d)},
                            {"seq_len", t.sequenceLength},
                            {"mixed_precision_param", param->toStdString()},
                            {"mixed_precision_reduce", "float32"},
                            {"enable_cpu_offload", l.offload == Offload::OptimizerAndParams}});
    root.insert("parallelism", titanParallelism(s, *mesh, schedule));
    titanCheckpointAndFp8(t, &root);
    // toml++ writes the tables and their keys sorted by name. format_flags::none: plain
    // "double-quoted" strings with every control character and non-ASCII character
    // escaped (\u001B, \u202E), never a multi-line or literal string, no indentation.
    std::ostringstream toml;
    toml << toml::toml_formatter{root, toml::format_flags::none};
    LaunchConfig out;
    out.text =
        ("# " + headerText(s) + u'\n').toUtf8() + QByteArray::fromStdString(toml.str()) + '\n';
    out.notes = titanNotes(s);
    return out;
}

/// One line of a Megatron-LM argument array: the flag, and its value shell-quoted.
void megatronArg(QStringList *lines, const char *flag, const QString &value = {})
{
    QString line = QStringLiteral("    --") + QLatin1String(flag);
    if (!value.isNull())
        line += u' ' + shellQuoted(value);
    *lines << line;
}

void megatronArg(QStringList *lines, const char *flag, std::int64_t value)
{
    megatronArg(lines, flag, QString::number(value));
}

/// The model's shape as Megatron-LM's network-size arguments (arguments.py
/// _add_network_size_args and the TransformerConfig fields it turns into flags;
/// docs/models.md "Megatron-LM"), with what they cannot say in `notes`.
void megatronModelArgs(const Architecture &a, const Training &t, QStringList *lines,
                       QStringList *notes)
{
    megatronArg(lines, "num-layers", a.layers);
    megatronArg(lines, "hidden-size", a.hidden);
    megatronArg(lines, "ffn-hidden-size", a.ffn);
    megatronArg(lines, "num-attention-heads", a.heads);
    if (a.kvHeads > 0 && a.kvHeads < a.heads) {
        megatronArg(lines, "group-query-attention");
        megatronArg(lines, "num-query-groups", a.kvHeads);
    }
    if (a.headDim > 0 && a.headDim * a.heads != a.hidden)
        megatronArg(lines, "kv-channels", a.headDim);
    megatronArg(lines, "seq-length", t.sequenceLength);
    if (a.positionEmbeddings > 0) {
        megatronArg(lines, "position-embedding-type", QStringLiteral("learned_absolute"));
        megatronArg(lines, "max-position-embeddings", a.positionEmbeddings);
    } else {
        // Megatron asserts max_position_embeddings >= seq_length even for RoPE.
        megatronArg(lines, "position-embedding-type", QStringLiteral("rope"));
        megatronArg(lines, "max-position-embeddings", t.sequenceLength);
    }
    if (!a.layerNormBias)
        megatronArg(lines, "normalization", QStringLiteral("RMSNorm"));
    if (a.gatedMlp)
        megatronArg(lines, "swiglu");
    if (!a.linearBiases) {
        megatronArg(lines, "disable-bias-linear");
        if (a.qkvBiases)
            megatronArg(lines, "add-qkv-bias");
    }
    if (!a.tiedEmbeddings)
        megatronArg(lines, "untie-embeddings-and-output-weights");
    if (a.isMoe()) {
        megatronArg(lines, "num-experts", a.experts);
        megatronArg(lines, "moe-router-topk", a.activeExperts);
        megatronArg(lines, "moe-ffn-hidden-size", a.effectiveExpertFfn());
        if (a.sharedExperts > 0)
            megatronArg(lines, "moe-shared-expert-intermediate-size",
                        a.sharedExperts * a.effectiveExpertFfn());
        if (a.denseLayers > 0 || a.moeLayerStep > 1)
            *notes << QStringLiteral("Dense blocks between the MoE blocks are set with "
                                     "--moe-layer-freq (a Python list of 0 and 1 per layer).");
    }
    if (a.usesLatentAttention())
        *notes << QStringLiteral("Multi-latent attention: add --multi-latent-attention and its "
                                 "ranks (--q-lora-rank, --kv-lora-rank, --qk-head-dim, "
                                 "--qk-pos-emb-head-dim, --v-head-dim).");
    *notes << QStringLiteral("The vocabulary (%1) comes from the tokenizer arguments "
                             "(--tokenizer-type, --tokenizer-model), with --data-path and the "
                             "optimizer.")
                  .arg(a.vocab);
}

/// How Megatron-LM recomputes for `r` (TransformerConfig recompute_granularity,
/// recompute_method, recompute_num_layers): selective is the attention core
/// (recompute_modules default "core_attn"), full with method uniform over units of one
/// layer keeps each layer's input.
void megatronRecomputeArgs(Recompute r, QStringList *lines)
{
    if (r == Recompute::Selective) {
        megatronArg(lines, "recompute-granularity", QStringLiteral("selective"));
    } else if (r == Recompute::Full) {
        megatronArg(lines, "recompute-granularity", QStringLiteral("full"));
        megatronArg(lines, "recompute-method", QStringLiteral("uniform"));
        megatronArg(lines, "recompute-num-layers", 1);
    }
}

/// The pipeline arguments: balanced stages as --account-for-embedding/loss-in-pipeline-
/// split, interleaving as --num-layers-per-virtual-pipeline-stage; false with
/// the reason when Megatron-LM cannot split the layers this way (arguments.py asserts
/// (L + accounted) % p == 0 and its per-stage count % layers per virtual stage == 0).
bool megatronPipelineArgs(const Scenario &s, QStringList *lines, QString *error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    if (l.pipelineParallel == 1)
        return true;
    switch (t.schedule) {
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::Interleaved1F1B:
        break;
    case PipelineSchedule::GPipe:
    case PipelineSchedule::ZeroBubbleH1:
        *error = QStringLiteral("Megatron-LM schedules pipelines with 1F1B or interleaved 1F1B "
                                "(core/pipeline_parallel/schedules.py), not %1: pick 1f1b or "
                                "interleaved")
                     .arg(toQString(pipelineScheduleName(t.schedule)));
        return false;
    }
    const int v = t.schedule == PipelineSchedule::Interleaved1F1B ? t.chunks : 1;
    const int accounted = l.balancedStages ? 2 : 0;
    const std::int64_t layers = s.model.architecture->layers + accounted;
    if (layers % (std::int64_t(l.pipelineParallel) * v) != 0) {
        *error = QStringLiteral("Megatron-LM splits the layers evenly over p x v = %1 x %2 "
                                "stages, and %3 layers do not split so: pick another p or v, or "
                                "balanced stages")
                     .arg(l.pipelineParallel)
                     .arg(v)
                     .arg(layers);
        return false;
    }
    if (l.balancedStages) {
        megatronArg(lines, "account-for-embedding-in-pipeline-split");
        megatronArg(lines, "account-for-loss-in-pipeline-split");
    }
    if (v > 1)
        megatronArg(lines, "num-layers-per-virtual-pipeline-stage",
                    layers / (std::int64_t(l.pipelineParallel) * v));
    return true;
}

/// Megatron-LM's data-parallel sharding: the distributed optimizer for ZeRO-1 (with
/// --num-distributed-optimizer-instances for an HSDP shard group) and its CPU offload.
bool megatronShardingArgs(const Layout &l, QStringList *lines, QString *error)
{
    if (l.zeroStage == ZeroStage::Zero2 || l.zeroStage == ZeroStage::Zero3) {
        *error = QStringLiteral("Megatron-LM's distributed optimizer (--use-distributed-optimizer) "
                                "shards optimizer states only, like ZeRO-1: pick ddp or zero1");
        return false;
    }
    if (l.zeroStage == ZeroStage::Zero1) {
        megatronArg(lines, "use-distributed-optimizer");
        if (l.hsdpShardSize > 0) {
            const std::int64_t ranks = l.dataParallel() * l.contextParallel;
            megatronArg(lines, "num-distributed-optimizer-instances", ranks / l.hsdpShardSize);
        }
    }
    if (l.offload == Offload::OptimizerAndParams) {
        *error = QStringLiteral("Megatron-LM offloads the optimizer only "
                                "(--optimizer-cpu-offload): use --offload optimizer");
        return false;
    }
    if (l.offload == Offload::Optimizer) {
        // arguments.py asserts the precision-aware optimizer with the CPU offload.
        megatronArg(lines, "optimizer-cpu-offload");
        megatronArg(lines, "optimizer-offload-fraction", QStringLiteral("1.0"));
        megatronArg(lines, "use-precision-aware-optimizer");
    }
    return true;
}

std::optional<LaunchConfig> megatron(const Scenario &s, QString *error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    if (!s.model.architecture) {
        *error = QStringLiteral("Megatron-LM needs the model's shape (--num-layers, "
                                "--hidden-size, ...), and this model has none");
        return std::nullopt;
    }
    LaunchConfig out;
    QStringList args;
    megatronArg(&args, "tensor-model-parallel-size", l.tensorParallel);
    megatronArg(&args, "pipeline-model-parallel-size", l.pipelineParallel);
    if (!megatronPipelineArgs(s, &args, error))
        return std::nullopt;
    megatronArg(&args, "context-parallel-size", l.contextParallel);
    megatronArg(&args, "expert-model-parallel-size", l.expertParallel);
    if (l.tensorParallel > 1 && t.sequenceParallel)
        megatronArg(&args, "sequence-parallel");
    if (!megatronShardingArgs(l, &args, error))
        return std::nullopt;
    megatronArg(&args, "micro-batch-size", t.microBatchSize);
    megatronArg(&args, "global-batch-size", t.globalBatch(l.dataParallel()));
    megatronRecomputeArgs(t.recompute, &args);
    if (s.recipe.weightBytes == 2)
        megatronArg(&args, "bf16");
    else if (s.recipe.weightBytes != 4) {
        *error = QStringLiteral("Megatron-LM trains in bf16, fp16 or fp32: %1-byte weights have "
                                "no setting")
                     .arg(s.recipe.weightBytes);
        return std::nullopt;
    }
    // Transformer Engine's recipes: delayed scaling in the hybrid format (E4M3 forward,
    // E5M2 gradients), MXFP8 in E4M3 throughout (TransformerConfig fp8, fp8_recipe).
    if (t.fp8 == Fp8Recipe::Delayed) {
        megatronArg(&args, "fp8-format", QStringLiteral("hybrid"));
        megatronArg(&args, "fp8-recipe", QStringLiteral("delayed"));
    } else if (t.fp8 == Fp8Recipe::Mxfp8) {
        megatronArg(&args, "fp8-format", QStringLiteral("e4m3"));
        megatronArg(&args, "fp8-recipe", QStringLiteral("mxfp8"));
    }
    megatronModelArgs(*s.model.architecture, t, &args, &out.notes);
    if (t.activationOffload)
        out.notes << QStringLiteral("Activation offload: add --cpu-offloading-num-layers for "
                                    "Transformer Engine's get_cpu_offload_context.");
    const std::int64_t machines = (l.gpus + l.gpusPerNode - 1) / l.gpusPerNode;
    out.notes << QStringLiteral("Run it on %1 GPUs: torchrun --nnodes %2 --nproc-per-node %3 "
                                "pretrain_gpt.py \"${MEGATRON_ARGS[@]}\" plus the data, "
                                "tokenizer and optimizer arguments.")
                     .arg(l.gpus)
                     .arg(machines)
                     .arg(std::min(l.gpus, l.gpusPerNode));
    // A bash array, one argument per line, as Megatron-LM's own launch scripts
    // (examples/gpt3/train_gpt3_175b_distributed.sh: GPT_MODEL_ARGS=( ... )): it can be
    // sourced or pasted above the torchrun line, and every value is shell-quoted.
    QString text = QStringLiteral("# ") + headerText(s) + u'\n';
    text += QStringLiteral("# Megatron-LM arguments: torchrun ... pretrain_gpt.py "
                           "\"${MEGATRON_ARGS[@]}\" ...\n");
    text += QStringLiteral("MEGATRON_ARGS=(\n") + args.join(u'\n') + QStringLiteral("\n)\n");
    out.text = text.toUtf8();
    return out;
}

} // namespace

QString launchFormatId(LaunchFormat f)
{
    switch (f) {
    case LaunchFormat::DeepSpeed:
        return QStringLiteral("deepspeed");
    case LaunchFormat::Accelerate:
        return QStringLiteral("accelerate");
    case LaunchFormat::Torchtitan:
        return QStringLiteral("torchtitan");
    case LaunchFormat::Megatron:
        return QStringLiteral("megatron");
    }
    return {};
}

std::optional<LaunchFormat> parseLaunchFormat(const QString &id)
{
    for (LaunchFormat f : {LaunchFormat::DeepSpeed, LaunchFormat::Accelerate,
                           LaunchFormat::Torchtitan, LaunchFormat::Megatron})
        if (id.compare(launchFormatId(f), Qt::CaseInsensitive) == 0)
            return f;
    return std::nullopt;
}

namespace {

/// True for what must not reach a terminal or a config file raw (reliability review F9):
/// C0 controls and DEL, C1 controls, the line and paragraph separators, and the
/// bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A-U+202E,
/// U+2066-U+2069; Unicode TR9 "Explicit Directional Formatting Characters").
bool mustEscape(char32_t u)
{
    return u < 0x20 || u == 0x7f || (u >= 0x80 && u < 0xa0) || u == 0x2028 || u == 0x2029 ||
           u == 0x061c || u == 0x200e || u == 0x200f || (u >= 0x202a && u <= 0x202e) ||
           (u >= 0x2066 && u <= 0x2069);
}

} // namespace

QString oneLineText(const QString &text)
{
    QString line;
    for (const char32_t u : text.toUcs4()) {
        if (u == U'\n')
            line += QStringLiteral("\\n");
        else if (u == U'\t')
            line += QStringLiteral("\\t");
        else if (u == U'\r')
            line += QStringLiteral("\\r");
        else if (u < 0x100 && mustEscape(u))
            line += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
        else if (mustEscape(u))
            line += QStringLiteral("\\u%1").arg(uint(u), 4, 16, QLatin1Char('0'));
        else
            line += QString::fromUcs4(&u, 1);
    }
    return line;
}

QString shellQuoted(const QString &value)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    if (plain.match(value).hasMatch())
        return value;
    bool control = false;
    for (const char32_t u : value.toUcs4())
        control = control || mustEscape(u);
    if (!control) {
        // Inside '...' the shell gives every character its own meaning but the quote,
        // which closes, escapes and reopens: ' -> '\''.
        QString quoted = value;
        quoted.replace(u'\'', QStringLiteral("'\\''"));
        return u'\'' + quoted + u'\'';
    }
    // Bash's ANSI-C quoting $'...': the control characters as escapes, so none is written.
    // Those above U+007F as their UTF-8 bytes (\xHH each): bash decodes \uHHHH only in a
    // UTF-8 locale and leaves it as text in the C locale.
    QString quoted = QStringLiteral("$'");
    for (const char32_t u : value.toUcs4()) {
        const QString c = QString::fromUcs4(&u, 1);
        if (u == U'\\' || u == U'\'')
            quoted += u'\\' + c;
        else if (mustEscape(u))
            for (const char byte : c.toUtf8())
                quoted += QStringLiteral("\\x%1").arg(uint(quint8(byte)), 2, 16, QLatin1Char('0'));
        else
            quoted += c;
    }
    return quoted + u'\'';
}

namespace {

/// The framework profile a launch format runs: DeepSpeed for its JSON, FSDP2 for
/// Accelerate's FSDP and torchtitan, Megatron-Core for Megatron-LM's arguments.
Framework formatFramework(LaunchFormat f)
{
    switch (f) {
    case LaunchFormat::DeepSpeed:
        return Framework::DeepSpeed;
    case LaunchFormat::Accelerate:
    case LaunchFormat::Torchtitan:
        return Framework::Fsdp2;
    case LaunchFormat::Megatron:
        return Framework::Megatron;
    }
    return Framework::Generic;
}

/// What a DeepSpeed or Accelerate config leaves to the training script under LoRA: PEFT's
/// LoraConfig with the scenario's rank, alpha and target_modules, and for a quantized
/// base the BitsAndBytesConfig the model is loaded with.
QString loraNote(const FineTuning &ft, const QString &format)
{
    QStringList targets;
    for (std::size_t i = 0; i < loraTargetNames.size(); ++i)
        if (ft.loraTargets & (1 << i))
            targets << QStringLiteral("\"%1_proj\"").arg(toQString(loraTargetNames[i]));
    QString note = QStringLiteral("The %1 config has no LoRA setting: PEFT adds the adapters "
                                  "in the training script, get_peft_model(model, LoraConfig(r=%2, "
                                  "lora_alpha=%3, target_modules=[%4]))")
                       .arg(format)
                       .arg(ft.loraRank)
                       .arg(ft.loraAlpha)
                       .arg(targets.join(QStringLiteral(", ")));
    if (ft.baseFormat == BaseFormat::Nf4)
        note += QStringLiteral(", on a base loaded with BitsAndBytesConfig(load_in_4bit=True, "
                               "bnb_4bit_quant_type=\"nf4\", bnb_4bit_use_double_quant=True)");
    else if (ft.baseFormat == BaseFormat::Int8)
        note += QStringLiteral(", on a base loaded with BitsAndBytesConfig(load_in_8bit=True)");
    if (ft.loraDropout)
        note += QStringLiteral(", with lora_dropout above 0 (the estimate keeps its masks)");
    return note + u'.';
}

} // namespace

std::optional<LaunchConfig> exportLaunchConfig(const Scenario &s, LaunchFormat format,
                                               QString *error)
{
    QString local;
    QString *err = error ? error : &local;
    err->clear();
    if (const std::string e = validate(s); !e.empty()) {
        *err = QStringLiteral("scenario: ") + QString::fromStdString(e);
        return std::nullopt;
    }
    // LoRA and QLoRA: torchtitan and Megatron-LM train every parameter (neither has
    // adapters; torchtune and NeMo do), so their configs would describe a full training
    // run that needs far more memory than the estimate.
    if (s.fineTuning.enabled() &&
        (format == LaunchFormat::Torchtitan || format == LaunchFormat::Megatron)) {
        *err = QStringLiteral("no LoRA or QLoRA adapters in %1 (it trains every parameter): "
                              "export for deepspeed or accelerate, where PEFT adds them in the "
                              "training script, or set --lora-rank 0")
                   .arg(format == LaunchFormat::Torchtitan ? QStringLiteral("torchtitan")
                                                           : QStringLiteral("Megatron-LM"));
        return std::nullopt;
    }
    std::optional<LaunchConfig> out;
    switch (format) {
    case LaunchFormat::DeepSpeed:
        out = deepSpeed(s, err);
        break;
    case LaunchFormat::Accelerate:
        out = accelerate(s, err);
        break;
    case LaunchFormat::Torchtitan:
        out = torchtitan(s, err);
        break;
    case LaunchFormat::Megatron:
        out = megatron(s, err);
        break;
    }
    const Framework fw = s.layout.framework;
    if (out && fw != Framework::Generic && fw != formatFramework(format))
        out->notes << QStringLiteral("The estimate used the %1 profile, not %2's: re-run it "
                                     "with --framework %3 for this launcher's memory.")
                          .arg(toQString(frameworkName(fw)),
                               toQString(frameworkName(formatFramework(format))),
                               toQString(frameworkId(formatFramework(format))));
    if (out && fw == Framework::Fsdp2 && format == LaunchFormat::Torchtitan &&
        s.training.recompute == Recompute::Selective)
        out->notes << QStringLiteral("selective_ac_option \"op\" is torchtitan's op-level "
                                     "selective checkpointing; the estimate counts Megatron's "
                                     "attention-core recomputation, which keeps more.");
    const bool notesItsOwnFp8AndOffload =
        format == LaunchFormat::Torchtitan || format == LaunchFormat::Megatron;
    if (out && !notesItsOwnFp8AndOffload && s.training.fp8 != Fp8Recipe::Off)
        out->notes << QStringLiteral("fp8 %1 is not a %2 setting: the model's linear layers "
                                     "must run Transformer Engine's recipe (te.fp8_autocast).")
                          .arg(toQString(fp8RecipeId(s.training.fp8)), launchFormatId(format));
    if (out && s.fineTuning.enabled())
        out->notes << loraNote(s.fineTuning, launchFormatId(format));
    if (out && !notesItsOwnFp8AndOffload && s.training.activationOffload)
        out->notes << QStringLiteral("Activation offload is not a %1 setting: wrap the layers "
                                     "in Transformer Engine's get_cpu_offload_context.")
                          .arg(launchFormatId(format));
    return out;
}

} // namespace shardscope
