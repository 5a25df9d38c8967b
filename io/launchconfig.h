#pragma once

#include "scenario.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace shardscope {

/// Training frameworks a chosen layout can be exported to as a launch config.
enum class LaunchFormat
{
    DeepSpeed,  ///< DeepSpeed config JSON (deepspeed.ai/docs/config-json)
    Accelerate, ///< Hugging Face Accelerate config YAML with distributed_type FSDP
    Torchtitan, ///< torchtitan job TOML fragment ([job], [training], [parallelism],
                ///< [activation_checkpoint])
    Megatron,   ///< Megatron-LM pretrain_gpt.py arguments as a bash array (MEGATRON_ARGS)
};

/// Command-line name of a format: "deepspeed", "accelerate", "torchtitan" or "megatron".
QString launchFormatId(LaunchFormat f);

/// Inverse of launchFormatId (case-insensitive); nullopt for any other text.
std::optional<LaunchFormat> parseLaunchFormat(const QString &id);

/// An exported launch configuration.
struct LaunchConfig
{
    QByteArray text;   ///< the document, UTF-8, ending in a newline
    QStringList notes; ///< what the file cannot carry and the launcher or script must set
};

/// `text` as one line with nothing a terminal or a parser acts on: newline, tab and
/// carriage return as \n, \t, \r, other control characters (C0, DEL, C1) as \xHH, the
/// line separators and bidirectional formatting characters (U+202E, ...) as \uHHHH;
/// everything else unchanged. What the launch configs' comments write names through.
QString oneLineText(const QString &text);

/// `value` as one POSIX shell word that bash reads back as exactly `value`: unchanged
/// when it holds only [A-Za-z0-9_@%+=:,./-]; else in single quotes (a quote as '\'');
/// with a control or bidirectional character, in bash's ANSI-C quoting $'...' with those
/// characters escaped as their UTF-8 bytes (\xHH each, which bash reads alike in every
/// locale), so none is written raw. A `; rm -rf /` or a newline stays inside the word.
QString shellQuoted(const QString &value);

/// Writes the scenario's layout and batch as a launch config for `format`. Every
/// key and value spelling follows the framework's own documentation (cited with the
/// mapping in docs/models.md "Exporting a layout"). The YAML is written with yaml-cpp,
/// the TOML with toml++, the JSON with QJsonDocument, so no name adds a key; the names
/// appear only in the first comment line, through oneLineText(), and in torchtitan's
/// [job] description as a TOML string:
///
/// - DeepSpeed: train_batch_size = micro-batch x gradient accumulation x data-parallel
///   size, train_micro_batch_size_per_gpu, gradient_accumulation_steps, bf16.enabled,
///   zero_optimization.stage, reduce_bucket_size, stage3_prefetch_bucket_size (with
///   prefetch, the elements, i.e. parameters, of the largest gathered unit in the
///   engine's report: BufferBytes::gatheredUnits converted from bytes with the
///   gathered dtype; else 0), offload_optimizer / offload_param {device: cpu},
///   mics_shard_size for HSDP. The catalog's 8-bit Adam recipe ("adam-8bit") is a
///   client optimizer (bitsandbytes.optim.Adam8bit, passed to deepspeed.initialize):
///   no optimizer block, zero_allow_untested_optimizer true under ZeRO,
///   zero_force_ds_cpu_optimizer false with offload, and a note. Tensor, pipeline,
///   context and expert parallel sizes and activation checkpointing are launcher or
///   script settings: reported in `notes`.
/// - Accelerate: distributed_type FSDP, mixed_precision, num_machines, num_processes,
///   fsdp_config with fsdp_sharding_strategy (NO_SHARD, SHARD_GRAD_OP, FULL_SHARD,
///   HYBRID_SHARD, HYBRID_SHARD_ZERO2), fsdp_offload_params,
///   fsdp_activation_checkpointing, fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP,
///   fsdp_backward_prefetch BACKWARD_PRE (NO_PREFETCH with one gathered unit).
/// - torchtitan: [training] local_batch_size, global_batch_size, seq_len,
///   mixed_precision_param, enable_cpu_offload; [parallelism]
///   data_parallel_replicate_degree, data_parallel_shard_degree,
///   fsdp_reshard_after_forward, tensor_parallel_degree, pipeline_parallel_degree,
///   pipeline_parallel_schedule, context_parallel_degree, expert_parallel_degree;
///   [activation_checkpoint] mode; [job] description (what was exported). toml++
///   writes the tables and keys sorted by name.
/// - Megatron: a bash array MEGATRON_ARGS=( ... ), one argument per line, of
///   --tensor-model-parallel-size, --pipeline-model-parallel-size,
///   --num-layers-per-virtual-pipeline-stage (interleaved), --context-parallel-size,
///   --expert-model-parallel-size, --sequence-parallel, --use-distributed-optimizer
///   (ZeRO-1), --micro-batch-size, --global-batch-size (b m d), --recompute-*,
///   --bf16, --fp8-format/--fp8-recipe and the model's shape (--num-layers, ...), each
///   value through shellQuoted() (spellings: Megatron-LM megatron/training/arguments.py,
///   table in docs/models.md). ZeRO-2/3, GPipe, ZB-H1, parameter offload and layer
///   counts Megatron cannot split evenly are refused.
///
/// Under LoRA (FineTuning::enabled()) DeepSpeed and Accelerate configs carry a note with
/// the PEFT LoraConfig (and BitsAndBytesConfig for a quantized base) the training script
/// must apply; torchtitan and Megatron-LM, which have no adapters, are refused.
///
/// Returns nullopt and one line in `*error` when the scenario is invalid
/// ("scenario: ...") or uses something the format has no setting for, naming it:
/// for example FSDP has no ZeRO-1, Accelerate's FSDP config no tensor parallelism,
/// torchtitan no single-chunk ZB-H1 schedule.
std::optional<LaunchConfig> exportLaunchConfig(const Scenario &s, LaunchFormat format,
                                               QString *error);

} // namespace shardscope
