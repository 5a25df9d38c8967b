#pragma once

#include "memoryreport.h"
#include "scenario.h"

#include <string>

namespace shardscope {

/// Largest world size the engine accepts (the GPU-count slider's upper end is 16,384).
inline constexpr std::int64_t maxGpus = 1'048'576;
/// Largest parameter count the engine accepts (100 trillion).
inline constexpr std::int64_t maxParameters = 100'000'000'000'000;

/// Checks a scenario; empty when it can be estimated, else a one-line reason
/// naming the bad input (for example "gpus must be at least 1 (got 0)").
std::string validate(const Scenario &s);

/// Elements of an n-element tensor one rank of a d-way shard holds: ceil(n / d).
/// Flat shards are padded to a multiple of d (PyTorch FSDP FlatParameter,
/// DeepSpeed ZeRO partitions), so the last rank holds as much as the others.
std::int64_t shardElements(std::int64_t n, std::int64_t d);

/// Per-GPU model-state bytes for the scenario (domain.md section 2):
///   DDP     Psi (w + g + m + o)
///   ZeRO-1  Psi (w + g) + shard(Psi) (m + o)
///   ZeRO-2  Psi w + shard(Psi) (g + m + o)
///   ZeRO-3  shard(Psi) (w + g + m + o)
/// with shard(Psi) = ceil(Psi / d). Rajbhandari et al. 2020, section 5 and Figure 1.
/// An invalid scenario yields a report whose `error` says why, and no groups.
MemoryReport estimate(const Scenario &s);

} // namespace shardscope
