#pragma once

#include <cstdint>

namespace shardscope {

// Every bound on an input, in one place. The settings table (settings.h), the
// command line, scenario files, the window's controls and validate() all read
// these; nothing else writes a limit out.

/// Largest world size, GPUs (2^20: beyond every cluster built so far, small enough
/// that products of counts stay far from 64-bit overflow).
inline constexpr std::int64_t maxGpus = 1'048'576;
/// The GPU-count slider's top, GPUs: the largest run published so far (Llama 3 405B
/// on 16,384 H100s, Dubey et al. 2024). The box beside it takes up to maxGpus.
inline constexpr int maxGpuSliderCount = 16384;
/// Largest tensor, context or expert parallel degree.
inline constexpr int maxParallelDegree = 65536;
/// Largest pipeline-parallel degree, stages (the schedule simulator's bound).
inline constexpr int maxPipelineStages = 1024;
/// Largest number of micro-batches per step (gradient accumulation steps).
inline constexpr int maxMicroBatches = 65536;
/// Largest number of model chunks per stage (interleaved 1F1B).
inline constexpr int maxModelChunks = 64;
/// Most chunks a chunked cross-entropy may split the sequence into (torchtune's default
/// is 8; more chunks than tokens leave one-token chunks).
inline constexpr int maxLossChunks = 65536;
/// Largest stages x micro-batches x chunks one simulated schedule may have: bounds
/// the operations generated (at most three per cell) and so one call's time and memory.
inline constexpr std::int64_t maxScheduleCells = 1'048'576;
/// Largest micro-batch size, sequences.
inline constexpr std::int64_t maxMicroBatchSize = 65536;
/// Longest sequence, tokens (2^24).
inline constexpr std::int64_t maxSequenceLength = 16'777'216;
/// Most GPUs in one node.
inline constexpr std::int64_t maxGpusPerNode = 1024;
/// Largest buffer or context setting, bytes or elements (1e12).
inline constexpr std::int64_t maxBufferSize = 1'000'000'000'000;
/// Largest host RAM per node, bytes: 2^53, the largest integer a JSON number
/// (an IEEE double) holds exactly.
inline constexpr std::int64_t maxHostRamBytes = 9'007'199'254'740'992;
/// Largest link bandwidth setting, bytes/s (1e13: 80,000 Gb/s, far above any link).
inline constexpr std::int64_t maxLinkBytesPerSecond = 10'000'000'000'000;
/// A GPU's speeds in the catalog's units (bf16_tflops, fp8_tflops, attention_tflops in
/// TFLOP/s; memory_gbps, nvlink_gbps in GB/s): 0 is unknown, anything else lies from
/// minGpuSpeedUnits (1 GFLOP/s, 1 MB/s: slower than any accelerator, and a step time
/// that still prints in full) to maxGpuSpeedUnits (1e7: far above any accelerator).
inline constexpr double minGpuSpeedUnits = 1e-3;
/// See minGpuSpeedUnits.
inline constexpr double maxGpuSpeedUnits = 1e7;
/// True for a GPU speed in the catalog's units that is 0 (unknown) or within
/// [minGpuSpeedUnits, maxGpuSpeedUnits]; false for NaN, negatives and the rest.
constexpr bool validGpuSpeed(double units)
{
    return units == 0 || (units >= minGpuSpeedUnits && units <= maxGpuSpeedUnits);
}
/// Largest latency setting, nanoseconds (1 s).
inline constexpr std::int64_t maxLatencyNanoseconds = 1'000'000'000;
/// Most NICs one node may have (0 in the setting: one per GPU).
inline constexpr std::int64_t maxNicsPerNode = 64;
/// Largest price setting, US cents per GPU-hour ($100,000).
inline constexpr std::int64_t maxPriceCentsPerGpuHour = 10'000'000;
/// Largest token budget, tokens (1e15: below 2^53, so a JSON number holds it exactly).
inline constexpr std::int64_t maxTokenBudget = 1'000'000'000'000'000;
/// Largest LoRA rank (the widest Llama 3.1 405B matrix is 53,248; no adapter is wider).
inline constexpr int maxLoraRank = 65536;
/// Largest parameter count (1e14).
inline constexpr std::int64_t maxParameters = 100'000'000'000'000;

} // namespace shardscope
