#pragma once

// PyTorch FSDP2 as torchtitan runs it (docs/frameworks.md "PyTorch FSDP2 / torchtitan";
// torch/distributed/fsdp/_fully_shard/, pytorch/torchtitan b5bcd76).

#include "framework.h"

namespace shardscope::frameworks {

inline constexpr FrameworkProfile fsdp2{
    .id = "fsdp2",
    .name = "PyTorch FSDP2 / torchtitan",
    .aliases = {"torchtitan", "fsdp"},
    .note = "Framework: PyTorch FSDP2 / torchtitan (no reduce bucket, one unit's gradient; "
            "under pipeline parallelism the stage's weights stay gathered and its gradients "
            "accumulate unsharded in fp32 until the last micro-batch; docs/frameworks.md).",
    .selectiveNote =
        "Selective is torchtitan's op-level selective AC: each dense block keeps its input, "
        "every other matmul output (q, v, w1, w2 of a Llama block) and the SDPA output and "
        "logsumexp, and recomputes the rest (torchtitan activation_checkpoint.py; "
        "docs/activations.md).",
    // The optimizer reads the sharded parameters' own gradients (MixedPrecisionPolicy
    // reduce_dtype); no separate fp32 copy.
    .fp32Gradients = Fp32GradientPolicy::RecipeOnly,
    // No flat reduce bucket: each unit's unsharded gradient is reduce-scattered by
    // foreach_reduce (_fsdp_collectives.py).
    .reduceBucket = ReduceBucketPolicy::OneUnitGradient,
    .zero3ReduceBucket = false,
    .zero3Gather = GatherPolicy::WholeUnits,
    // torchao Float8 (torchao/float8), enable_fsdp_float8_all_gather.
    .fp8 = Fp8Implementation::TorchaoFloat8,
    // torchtitan activation_checkpoint.py, ac mode "selective", selective_ac_option "op".
    .selective = SelectivePolicy::OpLevel,
    // torchtitan's fsdp_reshard_after_forward ("default": not under PP) and PyTorch
    // pipelining's no-sync backward: whole weights and gradients under PP.
    .fsdp2Resharding = true,
    .highestZeroStage = ZeroStage::Zero3,
    .zeroStageRefusal = {},
};

} // namespace shardscope::frameworks
