#pragma once

// DeepSpeed ZeRO (docs/frameworks.md "DeepSpeed"; deepspeed/runtime/zero/ at
// microsoft/DeepSpeed 38327e0).

#include "framework.h"

namespace shardscope::frameworks {

inline constexpr FrameworkProfile deepSpeed{
    .id = "deepspeed",
    .name = "DeepSpeed",
    .aliases = {"ds"},
    .note = "Framework: DeepSpeed (ZeRO's fp32 gradient partition, the 5e8-element reduce "
            "bucket, ZeRO-3 prefetch and persistent parameters; docs/frameworks.md).",
    .selectiveNote = {},
    // ZeRO-1/2 keep the .grad of single_partition_of_fp32_groups (stage_1_and_2.py);
    // ZeRO-3 one sub-group's, fp32_partitioned_groups_flat[sub_group_id].grad
    // (stage3.py).
    .fp32Gradients = Fp32GradientPolicy::PartitionCopy,
    // reduce_bucket_size elements (default 5e8), allocated by ZeRO-3 too as its ipg
    // bucket (stage3.py).
    .reduceBucket = ReduceBucketPolicy::Buckets,
    .zero3ReduceBucket = true,
    // stage3_prefetch_bucket_size, stage3_max_live_parameters and
    // stage3_param_persistence_threshold (stage3.py persistent_parameters).
    .zero3Gather = GatherPolicy::LiveParameterBudget,
    .fp8 = Fp8Implementation::TransformerEngine,
    .selective = SelectivePolicy::AttentionCore,
    .highestZeroStage = ZeroStage::Zero3,
    .zeroStageRefusal = {},
};

} // namespace shardscope::frameworks
