#pragma once

#include "launchconfig.h"
#include "scenariofile.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace shardscope {

// Reading launch configs: the inverse of exportLaunchConfig() (io/launchconfig.h). The
// key mapping, and what each format cannot carry, is docs/models.md "Reading a launch
// config". Nothing in a file is ever run: Megatron-LM arguments are split into shell
// words as bash would quote them, never expanded or executed.

/// What a launch config says about a scenario, before it is applied to one.
struct LaunchConfigRead
{
    LaunchFormat format = LaunchFormat::DeepSpeed;
    /// Settings the file states, as scenario-file keys of the settings table
    /// (core/settings.h: "tp", "strategy", "mbs", ...; choice ids, storage units).
    QJsonObject patch;
    /// The data-parallel degree d the file states (DeepSpeed: train_batch_size / (micro x
    /// accumulation); torchtitan: replicate x shard): the world size becomes d x t x p x c.
    std::optional<std::int64_t> dataParallel;
    /// The global batch in sequences, when the file gives it but not the gradient
    /// accumulation (Megatron-LM, torchtitan without pipelining): m = global / (b x d).
    std::optional<std::int64_t> globalBatch;
    /// Megatron-LM --num-layers-per-virtual-pipeline-stage n: v = layers / (p x n).
    std::optional<std::int64_t> layersPerVirtualStage;
    /// Megatron-LM --num-layers (with 2 added for --account-for-embedding/loss-in-
    /// pipeline-split), for the virtual stages; else the scenario's model's layers.
    std::optional<std::int64_t> splitLayers;
    /// Megatron-LM --num-distributed-optimizer-instances k: HSDP over d x c / k ranks.
    std::optional<std::int64_t> optimizerInstances;
    /// torchtitan data_parallel_replicate_degree r with data_parallel_shard_degree -1
    /// (the rest): HSDP over d x c / r ranks.
    std::optional<std::int64_t> hsdpReplicas;
    /// Bytes per weight of the precision the file trains in: 2 (bf16, fp16) or 4 (fp32).
    std::optional<int> weightBytes;
    /// What the file could not say or set, one sentence each.
    QStringList notes;
};

/// The format of a launch config, from its file name's extension (.json DeepSpeed,
/// .yaml/.yml Accelerate, .toml torchtitan, .sh/.args/.txt Megatron-LM) or, for any other
/// name, its content (a JSON object; "distributed_type:"; a "[parallelism]" table;
/// "--tensor-model-parallel-size" or another Megatron-LM argument). nullopt when neither
/// says.
std::optional<LaunchFormat> detectLaunchFormat(const QByteArray &bytes, const QString &fileName);

/// Reads a launch config (`fileName` names it in messages and picks the format, see
/// detectLaunchFormat()):
/// - DeepSpeed JSON (deepspeed.ai/docs/config-json): train_batch_size,
///   train_micro_batch_size_per_gpu, gradient_accumulation_steps ("auto" keeps the
///   default, with a note), bf16/fp16 enabled, zero_optimization stage, offload_optimizer
///   and offload_param device, mics_shard_size, reduce_bucket_size and the stage3_* knobs;
/// - Accelerate YAML: distributed_type FSDP (fsdp_sharding_strategy by name or number, or
///   fsdp_version 2's fsdp_reshard_after_forward; fsdp_offload_params,
///   fsdp_activation_checkpointing, fsdp_backward_prefetch), DEEPSPEED (deepspeed_config
///   zero_stage, offload devices, gradient_accumulation_steps) or MULTI_GPU, with
///   num_processes, num_machines and mixed_precision;
/// - torchtitan TOML: [parallelism] degrees, fsdp_reshard_after_forward, schedule and
///   pipeline micro-batch, [training] local/global batch, seq_len, mixed_precision_param,
///   enable_cpu_offload, [activation_checkpoint] mode;
/// - Megatron-LM arguments (a shell script or argument file): parallel sizes, virtual
///   pipeline, micro/global batch, recompute, distributed optimizer and its instances and
///   CPU offload, sequence length and parallelism, bf16/fp16, fp8.
/// A value the engine has no setting for, or of the wrong type, becomes a note, not a
/// failure. Malformed syntax returns nullopt with one line in `*error` naming the file and
/// the line or key: "run.yaml: line 3: ..." (YAML and TOML parser messages, JSON's offset
/// as a line, an unterminated quote in a script).
std::optional<LaunchConfigRead> readLaunchConfig(const QByteArray &bytes, const QString &fileName,
                                                 QString *error);

/// What the command line gives beside a launch config, and so wins over it.
struct LaunchOverrides
{
    QStringList keys;    ///< settings-table keys given as flags ("tp", "gpus", ...)
    bool recipe = false; ///< --recipe or --bytes-per-param given: the precision is theirs
    /// --dp: the world size is d x t x p x c with the file's t, p and c.
    std::optional<std::int64_t> dataParallel;
};

/// Applies what `read` says to `doc`, where the settings in `flags` win (a note names
/// each one the file also set; `doc` already holds their values). Derived values then
/// follow from the result: the world size from the data-parallel degree, gradient
/// accumulation from the global batch, virtual stages from layers per virtual stage, HSDP
/// groups, and the recipe from the precision (mixed-adam for 2-byte weights, fp32-adam for
/// 4, unless flags.recipe). Notes go to `*notes`, read.notes first. The result is not
/// validated (the caller does). False with one line in `*error` naming `fileName` when a
/// value is out of its setting's range (applyScenarioPatch()'s message).
bool applyLaunchConfig(const LaunchConfigRead &read, const QString &fileName,
                       const LaunchOverrides &flags, ScenarioDocument *doc, QStringList *notes,
                       QString *error);

/// Shell words of `text` as bash splits them, without running or expanding anything:
/// '...', "..." (backslash escapes \\ \" \$ \` and a newline), $'...' (ANSI-C escapes, as
/// shellQuoted() writes them), a backslash outside quotes, comments from an unquoted # that
/// starts a word, and backslash-newline continuations. Unquoted ( ) ; & | < > and newlines
/// end a word and are dropped. nullopt with "line N: unterminated quote" in `*error`.
std::optional<QStringList> shellWords(const QString &text, QString *error);

} // namespace shardscope
