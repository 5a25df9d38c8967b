#pragma once

// The generic profile: the textbook accounting, no framework's extras. Model states
// as the ZeRO paper counts them (Rajbhandari et al. SC 2020, arXiv:1910.02054, section
// 5 and Figure 1), activations as Korthikanti et al. 2022 (arXiv:2205.05198) count
// them, PyTorch DDP's gradient bucket (torch/nn/parallel/distributed.py,
// bucket_cap_mb = 25) and a ZeRO-1/2 reduce bucket.

#include "framework.h"

namespace shardscope::frameworks {

inline constexpr FrameworkProfile generic{
    .id = "generic",
    .name = "Generic",
    .aliases = {},
    .note = {},
    .selectiveNote = {},
    .fp32Gradients = Fp32GradientPolicy::RecipeOnly,
    .reduceBucket = ReduceBucketPolicy::Buckets,
    .zero3ReduceBucket = false,
    .zero3Gather = GatherPolicy::WholeUnits,
    .fp8 = Fp8Implementation::TransformerEngine,
    .selective = SelectivePolicy::AttentionCore,
    .highestZeroStage = ZeroStage::Zero3,
    .zeroStageRefusal = {},
};

} // namespace shardscope::frameworks
