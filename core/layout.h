#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shardscope {

/// How model states are placed over the data-parallel group (domain.md section 2).
///
/// Ddp = ZeRO stage 0 (FSDP NO_SHARD); Zero1 shards optimizer states and master
/// weights; Zero2 also gradients (FSDP SHARD_GRAD_OP); Zero3 also the weights
/// (FSDP FULL_SHARD). Rajbhandari et al. 2020, section 5.
enum class ZeroStage
{
    Ddp = 0,
    Zero1 = 1,
    Zero2 = 2,
    Zero3 = 3
};

/// Command-line / JSON name: "ddp", "zero1", "zero2", "zero3".
std::string_view zeroStageId(ZeroStage s);
/// Display name: "DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP".
std::string_view zeroStageName(ZeroStage s);
/// Parses an id ("ddp", "zero1", ..., also "0".."3", "fsdp"); nullopt when unknown.
std::optional<ZeroStage> parseZeroStage(std::string_view text);

/// The parallel layout: how many GPUs and how model states are sharded.
///
/// In this version every GPU is one data-parallel rank (d = gpus).
struct Layout
{
    std::int64_t gpus = 1; ///< world size
    ZeroStage zeroStage = ZeroStage::Ddp;

    /// Data-parallel degree d, the group ZeRO shards over.
    std::int64_t dataParallel() const { return gpus; }
};

} // namespace shardscope
