#pragma once

#include "activations.h"
#include "gpu.h"
#include "layout.h"
#include "model.h"
#include "recipe.h"
#include "schedule.h"

namespace shardscope {

/// How one training step runs: batch shape, activation policy and pipeline schedule.
/// bitsandbytes pages only the optimizer states of tensors with at least this many
/// elements (bitsandbytes/optim/optimizer.py, Optimizer8bit.get_state_buffer: "if not
/// self.is_paged or p.numel() < 1e5", a plain GPU tensor otherwise).
constexpr std::int64_t pagedOptimizerMinElements = 100'000;

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
    NormKernel normKernel = NormKernel::Fused; ///< RMSNorm: fused, or eager fp32 PyTorch
    bool dropout = false;                      ///< dropout masks stored (off for Llama-style)
    std::int64_t activationBytes = 2;          ///< bytes per activation element (bf16)
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int chunks = 1; ///< v, model chunks per stage (interleaved 1F1B only)
    /// FP8 training of the linear layers: Transformer Engine's recipes, or torchao Float8
    /// under the fsdp2 profile (core/recipe.h Fp8Recipe; docs/frameworks.md).
    Fp8Recipe fp8 = Fp8Recipe::Off;
    /// Activation offload to CPU (Transformer Engine's get_cpu_offload_context, as
    /// Megatron-Core's --cpu-offloading-num-layers drives it): the saved activations of
    /// all but the last two layers of the stage go to host RAM during the forward pass
    /// and come back for the backward (docs/frameworks.md "Activation offload").
    bool activationOffload = false;
    /// Paged optimizer (bitsandbytes' paged AdamW, QLoRA section 3): the optimizer
    /// states of every tensor with at least pagedOptimizerMinElements elements live in
    /// CUDA unified memory, and what of them does not fit in GPU memory is paged to host
    /// RAM instead of running out of memory.
    bool pagedOptimizer = false;
    /// Chunked cross-entropy: the output projection and the loss run over this many chunks
    /// of the sequence, so the logits are kept in the activation dtype and only one
    /// chunk at a time is upcast for the loss (torchtune CEWithChunkedOutputLoss,
    /// num_output_chunks = 8; docs/activations.md "Beyond the layers"). 1: whole logits.
    int lossChunks = 1;
    /// Optimizer step in backward (torchtune optimizer_in_bwd): each parameter is stepped
    /// and its gradient freed as soon as it is accumulated, so about one parameter's
    /// gradient exists at a time, the largest (docs/frameworks.md "Memory-saving
    /// switches"). Needs one micro-batch per step and no ZeRO sharding or LoRA.
    bool optimizerInBackward = false;
    /// Hugging Face use_cache left on while training: each attention layer keeps its keys
    /// and values in a DynamicCache (docs/frameworks.md "Memory-saving switches" says when
    /// that is extra to what autograd saves).
    bool useCache = false;
    /// torch.compile on, over the model and its loss: the loss counts as compiled
    /// (ActivationSettings::compiledLoss); the rest of its measured effect is stated as a
    /// range with its sources in a note (docs/frameworks.md "Memory-saving switches").
    bool torchCompile = false;

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
    /// DeepSpeed ZeRO-3 only (Framework::DeepSpeed): parameters fetched ahead of use,
    /// elements (stage3_prefetch_bucket_size, 5e7, deepspeed/runtime/zero/config.py).
    std::int64_t stage3PrefetchElements = 50'000'000;
    /// DeepSpeed ZeRO-3 only: most gathered parameters alive at once, elements
    /// (stage3_max_live_parameters, 1e9, deepspeed/runtime/zero/config.py).
    std::int64_t stage3MaxLiveParameters = 1'000'000'000;
    /// DeepSpeed ZeRO-3 only: parameters this small or smaller stay whole on every GPU,
    /// elements (stage3_param_persistence_threshold, 1e5, deepspeed/runtime/zero/config.py).
    std::int64_t stage3PersistenceThreshold = 100'000;
    /// DeepSpeed ZeRO-3 only: a gathered parameter used again within this many elements
    /// of the parameter trace is not released, elements (stage3_max_reuse_distance, 1e9,
    /// deepspeed/runtime/zero/config.py line 244; partitioned_param_coordinator.py
    /// __params_to_release, lines 653-661): the last blocks of the forward stay gathered
    /// into the backward.
    std::int64_t stage3MaxReuseDistance = 1'000'000'000;
    /// DeepSpeed ZeRO-3 only: optimizer sub-group whose fp32 gradient exists at once,
    /// elements (sub_group_size, 1e9, deepspeed/runtime/zero/config.py).
    std::int64_t subGroupElements = 1'000'000'000;
};

/// The cluster's links and the run's economics, for the step-time model only
/// (core/steptime.h, docs/steptime.md): memory results never read them. GPUs per
/// node is Layout::gpusPerNode; the GPU's own speeds are in Gpu.
struct Throughput
{
    /// Bandwidth of one NIC, bytes/s, one direction: 400 Gb/s = 50e9 (an InfiniBand NDR
    /// ConnectX-7 port, eight per DGX H100 node, one per GPU).
    std::int64_t nicBytesPerSecond = 50'000'000'000;
    /// NICs per node for collectives that leave a node; 0: one per GPU (Layout::gpusPerNode).
    /// A node's cross-node traffic spreads over all of them (docs/steptime.md).
    std::int64_t nicsPerNode = 0;
    /// Host link per GPU (CPU offload traffic), bytes/s, one direction: PCIe 5.0 x16,
    /// 32 GT/s x 16 lanes x 128/130 / 8 = 63 GB/s.
    std::int64_t hostLinkBytesPerSecond = 63'000'000'000;
    /// Override of the share of the dense tensor-core peak matmuls sustain, percent;
    /// 0 (the default): the GPU's calibrated `matmul_efficiency` (core/time/computetime.h,
    /// docs/steptime.md). FlashAttention's rate scales with it.
    int computeEfficiencyPercent = 0;
    /// Latency of one ring step over NVLink / xGMI, nanoseconds (NCCL's tuning model,
    /// src/graph/tuning.cc, puts intra-node hardware latency near 1 us).
    std::int64_t nvlinkLatencyNanoseconds = 1000;
    /// Latency of one ring step over the NIC, nanoseconds (NCCL's tuning model puts
    /// network hardware latency near 5 us).
    std::int64_t nicLatencyNanoseconds = 5000;
    /// Rental price, US cents per GPU-hour; 0: not priced (no cost shown).
    std::int64_t priceCentsPerGpuHour = 0;
    /// Tokens to train for "time to train": 15.6e12, Llama 3 405B's pre-training
    /// (Dubey et al. 2024, section 3.1).
    std::int64_t tokenBudget = 15'600'000'000'000;
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
    Throughput throughput; ///< links and economics for step time (not read by estimate())
    /// LoRA / QLoRA fine-tuning: adapters train, the base is frozen (off by default).
    FineTuning fineTuning;
    /// Count weights, gradients, master weights and optimizer states only, as the
    /// ZeRO paper's Figure 1 does; activations and buffers become 0.
    bool modelStatesOnly = false;
};

} // namespace shardscope
