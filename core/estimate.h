#pragma once

#include "inputlimits.h"
#include "memoryreport.h"
#include "scenario.h"

#include <string>

namespace shardscope {

// The engine's input bounds (maxGpus, maxParameters, ...) are in inputlimits.h.

/// Checks a scenario; empty when it can be estimated, else a one-line reason
/// naming the bad input, for example "gpus must be at least 1 (got 0)" or
/// "gpus (100) is not divisible by t x p x c (8 x 4 x 1 = 32)". Impossible
/// layouts are refused, never rounded.
std::string validate(const Scenario &s);

/// Elements of an n-element tensor one rank of a d-way shard holds: ceil(n / d).
/// Flat shards are padded to a multiple of d (PyTorch FSDP FlatParameter,
/// DeepSpeed ZeRO partitions), so the last rank holds as much as the others.
std::int64_t shardElements(std::int64_t n, std::int64_t d);

/// Transformer layers on pipeline stage `stage` of p: L / p each, and with
/// uneven stages allowed the first L % p stages take one more.
int stageLayerCount(int layers, int stages, int stage);

/// Per-GPU memory for the scenario, one group per pipeline stage.
///
/// Model states (docs/architecture.md "Model states"; Rajbhandari et al. 2020, section 5): the
/// stage's parameters per tensor-parallel rank, Psi, are sharded over the ZeRO group D
/// (Layout::shardGroup) with shard(Psi) = ceil(Psi / D):
///   DDP     Psi (w + g + m + o)
///   ZeRO-1  Psi (w + g) + shard(Psi) (m + o)
///   ZeRO-2  Psi w + shard(Psi) (g + m + o)
///   ZeRO-3  shard(Psi) (w + g + m + o)
/// (Rajbhandari et al. 2020, section 5 and Figure 1.) Offload moves master
/// weights, optimizer states and, from ZeRO-2, gradient shards to host RAM
/// (and, with params, ZeRO-3 weight shards). Activations follow activations.h
/// times the schedule's peak in-flight micro-batches per stage
/// (peakInFlightBound). Buffers are the Overheads settings. Communication per
/// step: ring collectives, every term written out in docs/architecture.md
/// "Communication per GPU per step".
/// An invalid scenario yields a report whose `error` says why, and no groups.
MemoryReport estimate(const Scenario &s);

} // namespace shardscope
