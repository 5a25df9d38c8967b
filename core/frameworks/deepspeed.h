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
    // reduce_scatter is on by default (config.py line 108), so a full bucket goes
    // through __avg_scatter_grads (stage3.py lines 1595-1599, 1813), whose
    // reduce_scatter_coalesced cats the bucket's gradients, interleaved per rank, into a
    // new flat buffer before the collective (runtime/comm/coalesced_collectives.py lines
    // 184-199, at deepspeedai/DeepSpeed edaa722): a second bucket-sized buffer.
    .zero3ReduceScatterCopy = true,
    // The parameter coordinator (partitioned_param_coordinator.py at edaa722): the
    // module in use is always fetched (fetch_sub_module), prefetch only fills what
    // stage3_max_live_parameters leaves (lines 452-454, min(max available - available,
    // stage3_prefetch_bucket_size)), and a module's parameters are not released when
    // they are used again within stage3_max_reuse_distance elements of the trace (lines
    // 653-661), which keeps the last blocks and the head gathered from the forward into
    // the backward; stage3_param_persistence_threshold keeps small parameters whole
    // (parameter_offload.py mark_persistent_parameters, lines 311-323).
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
