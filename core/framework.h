#pragma once

// Framework profiles: what a training framework really allocates, as one row of named
// policies per framework. Each profile is one file of facts in core/frameworks/ (with
// the framework's code cited, file and line, beside each policy; docs/frameworks.md
// explains them), listed once in framework.cpp. The estimate's stages read these
// policies; none of them tests a framework's name.

#include "activations.h"
#include "layout.h"

#include <array>
#include <span>
#include <string_view>

namespace shardscope {

/// Which gradients the optimizer reads when the recipe's gradients are narrower than
/// fp32 and it keeps fp32 master weights.
enum class Fp32GradientPolicy
{
    /// The recipe's gradients, as the ZeRO paper counts them (Rajbhandari et al. 2020).
    RecipeOnly,
    /// An fp32 copy of the rank's gradient partition beside the bf16 gradients, under
    /// ZeRO-1/2 the whole shard, under ZeRO-3 one optimizer sub-group's at a time
    /// (DeepSpeed: Overheads::subGroupElements). None under DDP.
    PartitionCopy,
    /// fp32 main gradients for every parameter the rank holds, in place of the
    /// recipe's, under every ZeRO stage the framework allows (Megatron-Core's grad
    /// buffer).
    FullMainGradBuffer
};

/// Where gradients wait to be reduced, besides the gradients themselves.
enum class ReduceBucketPolicy
{
    /// DDP's bucket (Overheads::ddpBucketBytes); under ZeRO a reduce bucket of
    /// Overheads::zeroBucketElements gradients (ZeRO-3 too when
    /// FrameworkProfile::zero3ReduceBucket).
    Buckets,
    /// One unit's unsharded gradient before its reduce-scatter under ZeRO-1/2 (DDP's
    /// bucket under DDP); none under ZeRO-3, whose gathered-units buffer holds it.
    OneUnitGradient,
    /// None: gradients are reduced in place in a contiguous grad buffer.
    InPlace
};

/// What a GPU holds of ZeRO-3's gathered parameters.
enum class GatherPolicy
{
    /// Overheads::gatheredUnits units (the one in use and those prefetched) plus one
    /// unit's unsharded gradient, in the compute dtype.
    WholeUnits,
    /// DeepSpeed's parameter coordinator: the unit in use, or at the turn from the
    /// forward to the backward the last blocks (and the head) whose next use lies within
    /// Overheads::stage3MaxReuseDistance elements of the trace, whichever is larger,
    /// never capped; plus a prefetch bucket of Overheads::stage3PrefetchElements as far
    /// as Overheads::stage3MaxLiveParameters leaves room; plus the persistent parameters
    /// (norm weights of at most Overheads::stage3PersistenceThreshold elements kept
    /// whole on every GPU). buffers.h deepSpeedLiveParameters().
    LiveParameterBudget
};

/// Which library runs FP8 training (docs/frameworks.md "FP8 training").
enum class Fp8Implementation
{
    /// NVIDIA Transformer Engine: FP8 weight copies (and transposes), the amax
    /// history, the linear layers' inputs saved in FP8.
    TransformerEngine,
    /// torchao Float8 with FSDP2: tensorwise FP8 weights all-gathered in 1 byte,
    /// inputs saved in the activation dtype; MXFP8 only changes the matmuls.
    TorchaoFloat8
};

/// A training framework's allocation policies: one row of facts, read by the
/// estimate's stages (core/estimate/*.h). Every field is a policy named above or a
/// text; none is a number, so a profile cannot hide a tuned constant.
struct FrameworkProfile
{
    std::string_view id;   ///< command-line and JSON id, "deepspeed"
    std::string_view name; ///< display name, "DeepSpeed"
    /// Other ids accepted on input ("ds"); empty entries are unused.
    std::array<std::string_view, 3> aliases = {};
    /// The report's note naming the profile and what it changes; empty for none.
    std::string_view note;
    /// Appended to `note` (after a space) under Recompute::Selective when the profile's
    /// selective policy is SelectivePolicy::OpLevel; empty for none.
    std::string_view selectiveNote;
    Fp32GradientPolicy fp32Gradients = Fp32GradientPolicy::RecipeOnly;
    ReduceBucketPolicy reduceBucket = ReduceBucketPolicy::Buckets;
    /// Under ZeRO-3 the Buckets policy keeps its reduce bucket too (DeepSpeed's
    /// stage-3 ipg bucket); otherwise ZeRO-3 has none.
    bool zero3ReduceBucket = false;
    /// Under ZeRO-3 the reduce-scatter of a full reduce bucket interleaves its gradients
    /// into a second flat buffer of the bucket's size before the collective (DeepSpeed's
    /// reduce_scatter_coalesced), so the bucket counts twice. Read by buffers.h
    /// communicationBucketBytes() with zero3ReduceBucket.
    bool zero3ReduceScatterCopy = false;
    GatherPolicy zero3Gather = GatherPolicy::WholeUnits;
    Fp8Implementation fp8 = Fp8Implementation::TransformerEngine;
    /// What Recompute::Selective keeps (core/activations.h).
    SelectivePolicy selective = SelectivePolicy::AttentionCore;
    /// PyTorch FSDP2 as torchtitan drives it: Layout::fsdpReshard applies (re-shard after
    /// forward, torchtitan/distributed/fsdp.py get_fsdp_reshard_after_forward_policy), and
    /// under pipeline parallelism each stage keeps its units gathered after their backward
    /// and accumulates unsharded gradients, in the reduce dtype, until the step's last
    /// micro-batch (torch/distributed/pipelining/stage.py backward_maybe_with_nosync:
    /// set_reshard_after_backward(False), set_requires_gradient_sync(False)). Read by
    /// modelstates.h wholeStates().
    bool fsdp2Resharding = false;
    /// Host RAM under CPU offload as the framework's own estimator counts it: each rank
    /// builds its fp32 model copy in host RAM at load, this many bytes per parameter it
    /// owns (0: no load-time copy counted), before ZeRO-1/2 partitions it; ZeRO-3 builds
    /// the model partitioned (zero.Init), so it counts none. Read by host.h
    /// offloadHostBytesPerNode().
    int offloadLoadCopyBytesPerParameter = 0;
    /// The estimator's allowance for pinned staging buffers and allocator slack on the
    /// host RAM it counts under CPU offload, percent (100: none). Read by host.h
    /// offloadHostBytesPerNode().
    int offloadHostBufferPercent = 100;
    /// The highest ZeRO stage the framework implements (Megatron-Core's distributed
    /// optimizer shards optimizer states only: ZeroStage::Zero1).
    ZeroStage highestZeroStage = ZeroStage::Zero3;
    /// Why a higher stage is refused, after "<id>: "; used when highestZeroStage <
    /// ZeroStage::Zero3.
    std::string_view zeroStageRefusal;
};

/// Every profile, in Framework enum order (profile i is Framework(i)).
std::span<const FrameworkProfile> frameworkProfiles();

/// The profile of framework `f` (the generic one for a value out of range).
const FrameworkProfile &frameworkProfile(Framework f);

/// Every profile's id in enum order: the settings table's choices for "framework".
std::span<const std::string_view> frameworkIds();

} // namespace shardscope
