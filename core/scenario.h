#pragma once

#include "activations.h"
#include "gpu.h"
#include "layout.h"
#include "model.h"
#include "recipe.h"
#include "schedule.h"

namespace shardscope {

/// How one training step runs: batch shape, activation policy and pipeline schedule.
struct Training
{
    std::int64_t microBatchSize = 1;    ///< b, sequences per micro-batch
    std::int64_t sequenceLength = 4096; ///< s, tokens per sequence
    /// m, micro-batches per step per pipeline (gradient accumulation steps);
    /// global batch = m x b x d sequences.
    std::int64_t microBatches = 8;
    Recompute recompute = Recompute::Full;     ///< activation checkpointing level
    bool flashAttention = true;                ///< fused attention: no stored s x s scores
    bool sequenceParallel = true;              ///< Megatron sequence parallelism with t > 1
    bool fp32Logits = true;                    ///< logits kept in fp32 for the loss
    LossKernel lossKernel = LossKernel::Fused; ///< cross-entropy: fused or PyTorch eager
    bool dropout = false;                      ///< dropout masks stored (off for Llama-style)
    std::int64_t activationBytes = 2;          ///< bytes per activation element (bf16)
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int chunks = 1; ///< v, model chunks per stage (interleaved 1F1B only)

    /// Global batch in sequences for a data-parallel degree d: m x b x d.
    std::int64_t globalBatch(std::int64_t d) const { return microBatches * microBatchSize * d; }
};

/// Memory outside model states and activations, each a labelled, editable setting
/// (docs/architecture.md "Buffers" gives each default's source).
struct Overheads
{
    /// CUDA context, cuBLAS/NCCL workspaces and kernels per process. 512 MiB default.
    std::int64_t cudaContextBytes = 512LL * 1024 * 1024;
    /// DDP gradient bucket, bytes (PyTorch DistributedDataParallel bucket_cap_mb = 25 MiB).
    std::int64_t ddpBucketBytes = 25LL * 1024 * 1024;
    /// ZeRO-1/2 gradient reduce bucket, elements (DeepSpeed reduce_bucket_size = 5e8).
    std::int64_t zeroBucketElements = 500'000'000;
    /// ZeRO-3 / FSDP layers gathered at once: 1, or 2 with prefetch (FSDP BACKWARD_PRE).
    int gatheredUnits = 2;
    /// Allocator fragmentation reserve, percent of everything else on the GPU.
    int fragmentationPercent = 5;
    /// Host RAM per node, bytes, for CPU offload (DGX H100: 2 TB).
    std::int64_t hostRamBytesPerNode = 2'000'000'000'000;
};

/// Every input of an estimate, as one value: what is trained, how, on what.
struct Scenario
{
    Model model;
    Recipe recipe;
    Gpu gpu;
    Layout layout;
    Training training;
    Overheads overheads;
    /// Count weights, gradients, master weights and optimizer states only, as the
    /// ZeRO paper's Figure 1 does; activations and buffers become 0.
    bool modelStatesOnly = false;
};

} // namespace shardscope
