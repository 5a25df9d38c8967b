#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace shardscope {

/// How model states are placed over the data-parallel group (docs/architecture.md "Model states").
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

/// What CPU offload moves to host memory (ZeRO-Offload, Ren et al. 2021,
/// arXiv:2101.06840; ZeRO-Infinity's offload_param; FSDP CPUOffload).
enum class Offload
{
    None,
    Optimizer, ///< fp32 master weights, optimizer states (and, from ZeRO-2, gradient shards)
    OptimizerAndParams ///< also the ZeRO-3 weight shards (ZeRO-Infinity offload_param)
};
/// "none", "optimizer", "optimizer+params".
std::string_view offloadId(Offload o);
/// Parses an offload id; nullopt when unknown.
std::optional<Offload> parseOffload(std::string_view text);

/// When FSDP re-shards a unit's parameters after its forward (torchtitan's
/// `parallelism.fsdp_reshard_after_forward`, torchtitan/config/configs.py; resolved by
/// get_fsdp_reshard_after_forward_policy in torchtitan/distributed/fsdp.py). Read by
/// profiles that follow it (FrameworkProfile::followsReshardPolicy).
enum class FsdpReshard
{
    Default, ///< re-shard, except under pipeline parallelism
    Always,  ///< re-shard after every forward
    Never    ///< keep the gathered parameters until the backward
};
/// "default", "always", "never" (torchtitan's spellings).
std::string_view fsdpReshardId(FsdpReshard r);
/// Parses an id; nullopt when unknown.
std::optional<FsdpReshard> parseFsdpReshard(std::string_view text);

/// Which framework's allocations the estimate follows (docs/frameworks.md gives each
/// profile's sources, file and line in the framework's public code).
///
/// Generic is the textbook accounting (ZeRO paper, Korthikanti et al.). DeepSpeed adds
/// the fp32 gradient partition ZeRO keeps for the optimizer and ZeRO-3's reduce bucket,
/// prefetch and persistent parameters; Fsdp2 (PyTorch FSDP2 / torchtitan) drops the
/// DeepSpeed reduce bucket for one unit's gradient; Megatron (Megatron-Core with the
/// distributed optimizer) keeps fp32 main gradients in its full grad buffer, shards
/// only master weights and optimizer states (ddp or zero1), and has no extra bucket.
enum class Framework
{
    Generic = 0,
    DeepSpeed = 1,
    Fsdp2 = 2,
    Megatron = 3
};
/// Command-line / JSON name: "generic", "deepspeed", "fsdp2", "megatron".
std::string_view frameworkId(Framework f);
/// Display name: "Generic", "DeepSpeed", "PyTorch FSDP2 / torchtitan", "Megatron-Core".
std::string_view frameworkName(Framework f);
/// Parses an id (also "ds", "torchtitan", "fsdp", "megatron-core"); nullopt when unknown.
std::optional<Framework> parseFramework(std::string_view text);

/// The parallel layout: world size = d x t x p x c (Megatron-LM rank order:
/// tensor fastest, then context, data, pipeline).
struct Layout
{
    std::int64_t gpus = 1;    ///< world size
    int tensorParallel = 1;   ///< t: each layer's matrices split t ways (Shoeybi et al. 2019)
    int pipelineParallel = 1; ///< p: layers split into p stages
    int contextParallel = 1;  ///< c: the sequence split c ways (ring attention)
    ZeroStage zeroStage = ZeroStage::Ddp;
    /// HSDP shard-group size s: shard over s ranks, replicate over (d c) / s groups.
    /// 0 means shard over the whole data x context group.
    std::int64_t hsdpShardSize = 0;
    Offload offload = Offload::None;
    bool allowUnevenStages = false; ///< when L % p != 0, the first L % p stages take one more layer
    std::int64_t gpusPerNode = 8;   ///< for host memory per node
    /// e: expert parallel degree. The e ranks of an expert-parallel group are carved
    /// out of the data x context ranks of one stage (Megatron-Core: expert data
    /// parallel = world / (expert tensor parallel t x e x p)); each holds experts / e
    /// of every MoE block. e must divide the experts and d x c (validate()).
    int expertParallel = 1;
    /// Whose allocations the estimate follows (Generic: the textbook accounting).
    Framework framework = Framework::Generic;
    /// FSDP2's re-shard after forward (torchtitan's policy; FsdpReshard).
    FsdpReshard fsdpReshard = FsdpReshard::Default;
    /// Balanced stages (Llama 3, Dubey et al. 2024, section 3.3.2; torchtitan's
    /// generate_llm_fqn_per_model_part with input and output weight 1): the embedding and
    /// the output head count as one layer each, so with k = (L + 2) / p the first and the
    /// last stage hold k - 1 layers and every other stage k. Needs p >= 2 and p | L + 2;
    /// interleaved 1F1B then needs v | k, and chunk 0 of the first stage and chunk v - 1
    /// of the last hold k / v - 1 layers (the embedding-only and head-only chunks when
    /// k = v). Takes precedence over allowUnevenStages.
    bool balancedStages = false;

    /// t x p x c: GPUs one model replica spans.
    std::int64_t modelParallel() const
    {
        return std::int64_t(tensorParallel) * pipelineParallel * contextParallel;
    }
    /// Data-parallel degree d = gpus / (t p c) (meaningful when it divides; see validate()).
    std::int64_t dataParallel() const { return modelParallel() > 0 ? gpus / modelParallel() : 0; }
    /// Ranks ZeRO shards model states over: the HSDP shard size, else d x c
    /// (Megatron-Core's distributed optimizer and torchtitan's dp_shard_cp mesh
    /// both shard over data x context parallel ranks).
    std::int64_t shardGroup() const
    {
        return hsdpShardSize > 0 ? hsdpShardSize : dataParallel() * contextParallel;
    }
    /// Ranks ZeRO shards routed-expert states over: shardGroup() / e (the expert
    /// data-parallel group; torchtitan's dp_shard_mod_ep).
    std::int64_t expertShardGroup() const
    {
        return expertParallel > 0 ? shardGroup() / expertParallel : 0;
    }
    /// Ranks holding the same routed experts, whose gradients are reduced together:
    /// d x c / e.
    std::int64_t expertDataParallel() const
    {
        return expertParallel > 0 ? dataParallel() * contextParallel / expertParallel : 0;
    }
};

} // namespace shardscope
