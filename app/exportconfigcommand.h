#pragma once

#include <QStringList>
#include <QTextStream>

namespace shardscope {

/// `shardscope export-config --format deepspeed|accelerate|torchtitan|megatron [scenario flags]
/// [--out FILE]`: writes the scenario's layout as a launch config for the framework
/// (io/launchconfig.h exportLaunchConfig) to FILE, or to `out` without --out. The
/// scenario comes from the flags every subcommand shares (ScenarioOptions: --model,
/// --hf-config, --gpus, --strategy, --mbs, --grad-accum, --recompute, ...). What the
/// file cannot carry (tensor parallel sizes for DeepSpeed, batch sizes for
/// Accelerate, ...) goes to `err` as "note: ..." lines.
///
/// Returns the exit code: 0 on success, 2 on a bad argument or a layout the format
/// cannot express (one line on `err` naming it), 1 when FILE cannot be written.
/// `args` starts with the program name, then "export-config".
int runExportConfigCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace shardscope
