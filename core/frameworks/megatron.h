#pragma once

// Megatron-Core with the distributed optimizer (docs/frameworks.md "Megatron-Core";
// megatron/core/distributed/param_and_grad_buffer.py,
// megatron/training/theoretical_memory_usage.py at NVIDIA/Megatron-LM d98e8a6).

#include "framework.h"

namespace shardscope::frameworks {

inline constexpr FrameworkProfile megatron{
    .id = "megatron",
    .name = "Megatron-Core",
    .aliases = {"megatron-core", "mcore"},
    .note = "Framework: Megatron-Core (fp32 main gradients in the grad buffer, distributed "
            "optimizer with zero1, no extra bucket; docs/frameworks.md).",
    .selectiveNote = {},
    // fp32 main gradients in the full grad buffer on every data-parallel rank
    // (param_and_grad_buffer.py; theoretical_memory_usage.py's 18 or 6 + 12 / d bytes).
    .fp32Gradients = Fp32GradientPolicy::FullMainGradBuffer,
    // Gradients are reduced in place in the grad buffer's buckets.
    .reduceBucket = ReduceBucketPolicy::InPlace,
    .zero3ReduceBucket = false,
    .zero3Gather = GatherPolicy::WholeUnits,
    .fp8 = Fp8Implementation::TransformerEngine,
    .selective = SelectivePolicy::AttentionCore,
    // The distributed optimizer shards master weights and optimizer states only
    // (distrib_optimizer.py).
    .highestZeroStage = ZeroStage::Zero1,
    .zeroStageRefusal = "Megatron-Core's distributed optimizer shards optimizer states only: "
                        "pick ddp or zero1 (or the deepspeed or fsdp2 framework)",
};

} // namespace shardscope::frameworks
