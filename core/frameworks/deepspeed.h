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
    // Host RAM under offload_optimizer / offload_param, as DeepSpeed's estimators count
    // it: ZeRO-2 cpu_mem = total_params x max(4 x gpus, 16) x additional_buffer_factor 1.5
    // (stage_1_and_2.py estimate_zero2_model_states_mem_needs, lines 2430-2447): each
    // rank's fp32 model at load or the offloaded states, whichever is larger, times 1.5;
    // ZeRO-3 with zero_init 16 or 18 x total_params / nodes x 1.5 (stage3.py
    // estimate_zero3_model_states_mem_needs, lines 3008-3044): the offloaded states x 1.5.
    .offloadLoadCopyBytesPerParameter = 4,
    .offloadHostBufferPercent = 150,
    .highestZeroStage = ZeroStage::Zero3,
    .zeroStageRefusal = {},
};

} // namespace shardscope::frameworks
