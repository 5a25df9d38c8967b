#pragma once

#include <QStringList>
#include <QTextStream>

namespace shardscope {

/// `shardscope measured FILE [scenario flags] [--json]`: reads a measured run's memory
/// from FILE (a `torch.cuda.memory._dump_snapshot()` pickle, a profiler
/// `export_memory_timeline` JSON or an nvidia-smi CSV log; io/measurement.h, format told
/// by content) and prints it beside the prediction for the scenario the flags describe
/// (the same flags as `report`): each measured per-GPU figure against the predicted
/// components it covers, and, for the profiler's timeline, the gap by category
/// (compareMeasurement()). `--json` prints {"file", "measured", "predicted",
/// "comparisons", "gap_by_category"} (docs/measurements.md).
///
/// Returns the exit code: 0 on success; 2 with one line on `err` for a bad argument, a
/// missing, malformed or refused file (a pickle that names or calls a Python object is
/// refused and nothing in it runs). `args` starts with the program name, then "measured".
int runMeasuredCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace shardscope
