#pragma once

#include "memoryreport.h"

#include <QByteArray>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// Which file a Measurement came from (docs/measurements.md).
enum class MeasurementSource
{
    /// `torch.cuda.memory._dump_snapshot()`: a pickle of the caching allocator's segments,
    /// blocks and (with `_record_memory_history()`) its alloc/free trace.
    Snapshot,
    /// `torch.profiler.profile(...).export_memory_timeline("x.json")`: [times, sizes by
    /// category] (torch/profiler/_memory_profiler.py, MemoryProfileTimeline).
    ProfilerTimeline,
    /// `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv -l 1`.
    NvidiaSmiCsv
};

/// JSON name of a source: "pytorch_snapshot", "profiler_memory_timeline", "nvidia_smi_csv".
std::string measurementSourceKey(MeasurementSource s);

/// One category of the profiler's memory timeline at its peak, bytes (may be negative
/// for a moment when the profiler moves a tensor between categories).
struct MeasuredCategory
{
    std::string name; ///< "parameter", "optimizer_state", "input", "temporary", "activation",
                      ///< "gradient", "autograd_detail", "unknown" (_CATEGORY_TO_INDEX order)
    std::int64_t bytes = 0;
};

/// What one GPU held, from a snapshot's segments (by `device`) or an nvidia-smi log (by
/// `index`), bytes.
struct MeasuredGpu
{
    int index = 0;
    std::optional<std::int64_t> reservedBytes;      ///< snapshot: its segments' total_size
    std::optional<std::int64_t> allocatedBytes;     ///< snapshot: its active_allocated blocks
    std::optional<std::int64_t> peakAllocatedBytes; ///< snapshot: its trace's replay
    std::optional<std::int64_t> peakReservedBytes;  ///< snapshot: its trace's replay
    std::optional<std::int64_t> peakUsedBytes;      ///< nvidia-smi: max memory.used (MiB x 2^20)
    std::optional<std::int64_t> totalBytes;         ///< nvidia-smi: memory.total of the last row
    std::int64_t samples = 0;                       ///< nvidia-smi rows for this GPU
};

/// One moment of a measured memory trace.
struct MeasuredPoint
{
    double seconds = 0;     ///< since the trace's first moment
    std::int64_t bytes = 0; ///< allocated (snapshot, profiler) or used (nvidia-smi) bytes
};

/// The most points a Measurement's trace keeps (readMeasurement()): enough for a chart a
/// few thousand pixels wide.
inline constexpr std::size_t maxMeasuredTracePoints = 4096;

/// Memory measured on a real run, read from one of the three MeasurementSource files.
/// Every count is exact bytes; a figure the file cannot give is nullopt.
struct Measurement
{
    MeasurementSource source = MeasurementSource::Snapshot;
    /// Snapshot: sum of every segment's total_size (what cudaMalloc reserved) at the
    /// snapshot, all devices.
    std::optional<std::int64_t> reservedBytes;
    /// Snapshot: sum of the size of every block whose state is "active_allocated" (held by
    /// a tensor) at the snapshot. Profiler: the timeline's last total.
    std::optional<std::int64_t> allocatedBytes;
    /// Snapshot with a trace: the largest allocated total of any one device, replaying
    /// its device_traces list's alloc (+size) and free_requested (-size) backwards from
    /// the device's allocated bytes at the snapshot. Profiler: the largest total over time.
    std::optional<std::int64_t> peakAllocatedBytes;
    /// Snapshot with a trace: the same replay of segment_alloc / segment_map (+) and
    /// segment_free / segment_unmap (-) from the device's reserved bytes, largest device.
    std::optional<std::int64_t> peakReservedBytes;
    /// nvidia-smi: the largest memory.used of any GPU at any time.
    std::optional<std::int64_t> peakUsedBytes;
    /// Profiler: the categories at the peak (empty for the other sources).
    std::vector<MeasuredCategory> categories;
    /// Per GPU (snapshot devices, nvidia-smi indices), by index.
    std::vector<MeasuredGpu> gpus;
    /// Trace entries read (snapshot), timeline points (profiler) or rows (nvidia-smi).
    std::int64_t samples = 0;
    /// Memory over time of traceGpu, oldest first: a snapshot's allocated bytes at its
    /// trace's first entry and after each alloc / free_requested (times from `time_us`);
    /// the profiler's total per time (microseconds, _coalesce_timeline); nvidia-smi's
    /// memory.used per row (`timestamp`, yyyy/MM/dd HH:mm:ss.zzz). Longer traces are cut
    /// into maxMeasuredTracePoints equal runs of points, each kept as its largest point,
    /// so the peak survives. Empty when the file holds no times (a snapshot without a
    /// trace or without time_us, a log without timestamps).
    std::vector<MeasuredPoint> trace;
    /// The GPU the trace follows: the one with the largest peak (profiler: 0).
    int traceGpu = 0;
};

/// The most bytes a measurement file may hold: 256 MiB (a snapshot with a long trace
/// runs to hundreds of MiB; what is larger is refused before it is read).
inline constexpr qint64 maxMeasurementFileBytes = qint64(256) * 1024 * 1024;

/// Reads a measurement from a file's bytes, the format told by its content: a pickle
/// (first byte 0x80, PROTO) is a snapshot, read with readPickle() (io/pickle.h: nothing
/// in it is ever run; a pickle that names or calls an object is refused); JSON whose
/// top level is a two-item array is a profiler memory timeline; text whose first line
/// names memory.used, or whose rows are "timestamp, index, N MiB, N MiB", is an
/// nvidia-smi log. A gzip file is refused with "decompress it first (gunzip)".
///
/// Snapshot: `segments` (each `total_size`, `device` and `blocks` of `size` and `state`)
/// is required; `device_traces` (a list per device of entries with `action` and `size`)
/// is optional (torch/cuda/memory.py, _snapshot()'s docstring). Profiler: [times,
/// sizes], sizes a row per time of 9 numbers: a leading 0, then PARAMETER,
/// OPTIMIZER_STATE, INPUT, TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL and unknown
/// bytes (torch/profiler/_memory_profiler.py, _coalesce_timeline). nvidia-smi: a header
/// (optional with `noheader`) naming the columns, values in MiB with or without the unit;
/// rows reading "[N/A]" are skipped.
///
/// nullopt plus a one-line `*error` ("snapshot: segment 3 has no total_size", "byte 2:
/// refused opcode GLOBAL ...", "nvidia-smi CSV line 4: ...") on anything else.
std::optional<Measurement> readMeasurement(const QByteArray &bytes, QString *error);

/// readInputFile() (io/inputfile.h, up to maxMeasurementFileBytes) then
/// readMeasurement(); errors start with the file's name.
std::optional<Measurement> readMeasurementFile(const QString &path, QString *error);

/// One measured figure beside the prediction that covers the same memory.
struct MeasuredComparison
{
    std::string measure; ///< "peak_allocated", "allocated", "peak_reserved", "reserved",
                         ///< "peak_used"
    std::string covers;  ///< which predicted components the figure is compared with
    std::int64_t measuredBytes = 0;
    std::int64_t predictedBytes = 0;
    std::int64_t gapBytes() const { return measuredBytes - predictedBytes; }
};

/// One profiler category group beside the predicted components it stands for.
struct CategoryGap
{
    std::string key;                     ///< "parameters", "optimizer_states", ...
    std::vector<std::string> categories; ///< profiler categories summed
    std::vector<std::string> components; ///< componentKey()s / buffer parts summed
    std::int64_t measuredBytes = 0;
    std::int64_t predictedBytes = 0;
    std::int64_t gapBytes() const { return measuredBytes - predictedBytes; }
};

/// A measurement against the prediction for the GPU group that peaks (per GPU, bytes).
struct MeasurementGap
{
    std::string group;                           ///< the predicted peak group's label
    std::int64_t predictedPeakBytes = 0;         ///< its total, every component
    std::vector<MeasuredComparison> comparisons; ///< the source's figures, largest first
    std::vector<CategoryGap> categories;         ///< profiler only
};

/// Compares `m` with `report`'s peak group (valid report). What each source sees decides
/// the prediction it meets (docs/measurements.md):
/// - allocated figures (snapshot, profiler): tensors only, so the predicted total less
///   the CUDA context and the allocator's fragmentation reserve (BufferBytes);
/// - reserved figures (snapshot): the allocator's segments, so the total less the CUDA
///   context;
/// - nvidia-smi's memory.used: the whole process, so the total.
/// With several GPUs the largest per-GPU figure is compared. Profiler categories map to
/// components: PARAMETER -> weights + master weights, OPTIMIZER_STATE -> optimizer
/// states, GRADIENT -> gradients, ACTIVATION + AUTOGRAD_DETAIL + INPUT -> activations,
/// TEMPORARY + unknown -> communication buckets + gathered ZeRO-3 units.
MeasurementGap compareMeasurement(const Measurement &m, const MemoryReport &report);

} // namespace shardscope
