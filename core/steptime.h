#pragma once

// Step time, throughput, MFU and HFU of one scenario, from the scenario and its memory
// report (the collectives the report counts). Every term and its source: docs/steptime.md.
// A separate value from the MemoryReport, so memory results never change with it.

#include "memoryreport.h"
#include "scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

/// Floating-point operations one token costs in the forward pass of the whole model
/// (matmuls as 2 m n k: 2 FLOPs per multiply-add).
struct TokenFlops
{
    /// 2 x the parameters that multiply activations: every block's active parameters
    /// (norm weights and biases included, as 6N counts them) plus the output head
    /// (the embedding matrix again when tied); the embedding and position tables are
    /// lookups and excluded. Plain parameter counts: 2 x all parameters.
    double matmul = 0;
    /// Attention scores and their use, every layer: QK^T 2 s (a d_qk) plus softmax x V
    /// 2 s (a d_v), over the full (unmasked) sequence as the PaLM paper's appendix B
    /// counts it: 4 s h per layer for multi-head attention.
    double attention = 0;
    /// Model FLOPs per trained token, without recomputation: 3 x (matmul + attention)
    /// (backward = 2 x forward). For a dense model, 6 N + 12 L h s (Chowdhery et al.
    /// 2022, PaLM, appendix B; Dubey et al. 2024 section 3.3.2 uses the same MFU).
    double modelPerToken() const { return 3 * (matmul + attention); }
};

/// Forward FLOPs per token of `m` at sequence length `sequenceLength` (tokens).
TokenFlops tokenFlops(const Model &m, std::int64_t sequenceLength);

/// Time one collective takes on its link, seconds.
struct CollectiveTime
{
    std::int64_t bytes = 0;    ///< bytes one GPU sends per step (CommunicationBytes)
    double seconds = 0;        ///< bytes / bandwidth + ring steps x latency
    double exposedSeconds = 0; ///< the part not hidden behind compute (overlap rules)
    bool crossesNodes = false; ///< the group spans nodes: the NIC, else NVLink / xGMI
};

/// A scenario's training step in seconds, and what follows from it. All times are
/// for one training step (m micro-batches), seconds, on the slowest pipeline stage.
struct StepTime
{
    std::string error; ///< non-empty when the step cannot be timed; nothing else is set

    double peakFlopsPerSecond = 0;     ///< the GPU's dense peak for the activation dtype
    double matmulEfficiency = 0;       ///< share of the peak matmuls run at (calibrated or set)
    double achievedFlopsPerSecond = 0; ///< peak x matmul efficiency
    /// m forwards on the slowest stage: matmuls by shape, attention, memory-bound kernels
    /// (norms, residuals, activation functions, the loss), LoRA adapters, dequantization.
    double forwardSeconds = 0;
    /// m backwards: input and weight gradients (input only for frozen weights), attention
    /// backward (FlashAttention's includes its score recomputation).
    double backwardSeconds = 0;
    double recomputeSeconds = 0; ///< m recomputed forwards (full) or attention cores (selective)
    /// Without FlashAttention: the s x s scores through HBM (inside the three above).
    double attentionMemorySeconds = 0;
    /// QLoRA / int8 base: dequantizing the frozen weights (inside the three above).
    double dequantizeSeconds = 0;
    double computeSeconds = 0; ///< forward + backward + recompute
    CollectiveTime dataParallel, tensorParallel, pipelineParallel, contextParallel, expertParallel;
    /// Pipeline bubble from the slowest stage's own times: (p - 1) / (v m) x its busy time
    /// (GPipe, 1F1B, interleaved), (p - 1) / m x (busy - 2 W) for ZB-H1.
    double bubbleSeconds = 0;
    double optimizerSeconds = 0; ///< optimizer step through HBM (0 with the optimizer offloaded)
    double offloadSeconds = 0;   ///< CPU offload traffic over the host link
    /// The CPU's own optimizer step with offload: (g + 2 M + 2 O + w) bytes per updated
    /// parameter through host DRAM, 614.4 GB/s per node shared by its GPUs
    /// (docs/steptime.md "Memory-bound optimizer step"); 0 without offload.
    double cpuOptimizerSeconds = 0;
    double stepSeconds = 0; ///< the whole step

    std::int64_t tokensPerStep = 0;  ///< global batch x sequence length
    double tokensPerSecond = 0;      ///< tokensPerStep / stepSeconds
    double modelFlopsPerStep = 0;    ///< tokenFlops().modelPerToken() x tokensPerStep
    double hardwareFlopsPerStep = 0; ///< what the GPUs execute: model + recompute
    /// Model FLOPs utilisation: model FLOPs / (step x GPUs x peak), recompute excluded
    /// (Chowdhery et al. 2022, appendix B).
    double mfu = 0;
    /// Hardware FLOPs utilisation: as mfu with recomputation counted (Korthikanti et al.
    /// 2022, section 5).
    double hfu = 0;
    double trainSeconds = 0;        ///< Throughput::tokenBudget / tokensPerSecond
    double gpuHours = 0;            ///< trainSeconds x GPUs / 3600
    double costDollars = 0;         ///< gpuHours x price (0 when unpriced)
    std::vector<std::string> notes; ///< assumptions that apply (one sentence each)

    bool valid() const { return error.empty(); }
};

/// A step explained: its parts in seconds, each what the step waits for. Compute and the
/// exposed tensor, context, expert and pipeline traffic are the slowest stage's; data
/// parallel, optimizer and offload are those of the stage that takes longest after the
/// pipeline drains. total() is StepTime::stepSeconds.
struct StepBreakdown
{
    double forward = 0, backward = 0, recompute = 0, bubble = 0;
    double optimizer = 0;    ///< the GPU's optimizer step (0 with the optimizer offloaded)
    double offload = 0;      ///< CPU offload traffic over the host link
    double cpuOptimizer = 0; ///< the CPU's optimizer step with offload
    double tensorParallel = 0, contextParallel = 0, expertParallel = 0, pipelineParallel = 0,
           dataParallel = 0; ///< exposed communication per collective, seconds
    /// Exposed communication: the five collectives' sum.
    double exposedCommunication() const
    {
        return tensorParallel + contextParallel + expertParallel + pipelineParallel + dataParallel;
    }
    /// The step: every part, summed in one fixed order.
    double total() const
    {
        return forward + backward + recompute + tensorParallel + contextParallel + expertParallel +
               pipelineParallel + bubble + dataParallel + optimizer + offload + cpuOptimizer;
    }
};

/// The parts of timed step `t` (stepTime() sets stepSeconds to their total()).
StepBreakdown stepBreakdown(const StepTime &t);

/// One line explaining a timed step for people, the parts over 0.5% of it, largest
/// first, each in seconds and percent: "Where the step goes: backward 20.1 s (52%),
/// forward 10.0 s (26%), recompute 7.9 s (20%), exposed communication 0.6 s (2%: data
/// parallel 0.5 s, tensor parallel 0.1 s)". An invalid t gives "".
std::string stepBreakdownText(const StepTime &t);

/// Checks the step-time settings against their table ranges (core/inputlimits.h):
/// empty when valid, else a one-line reason naming the setting, e.g. "NIC bandwidth
/// must be from 125000000 to 10000000000000 bytes/s (got 0)". estimate() never reads
/// them, so validate() leaves them to this; stepTime() refuses with it.
std::string validateThroughput(const Throughput &t);

/// Times one training step of `s` whose memory report is `r` (r = estimate(s)).
/// Compute per stage from the GEMM shapes at the GPU's dense peak (FP8 for 1-byte
/// activations, else BF16) x its calibrated matmul efficiency (or the override), with
/// FlashAttention and memory-bound kernels (core/time/computetime.h); collectives from
/// r's CommunicationBytes on the node topology with NCCL's ring or tree
/// (core/time/collectives.h); overlap and the bubble as docs/steptime.md writes them out.
/// Error (one line naming the input) when r is invalid or a needed GPU speed is 0.
StepTime stepTime(const Scenario &s, const MemoryReport &r);

/// Seconds one unit of the pipeline timeline stands for (schedule.h: 1 = one micro-batch's
/// forward through one stage; F + B = 3 units): the slowest stage's busy time per
/// micro-batch (compute and exposed tensor, context, expert and pipeline traffic) / 3,
/// so the timeline's makespan x this is that stage's busy time plus the bubble, as
/// stepTime() counts them. 0 when t is invalid or m < 1.
double secondsPerTimelineUnit(const StepTime &t, std::int64_t microBatches);

/// One line on a timed step for people: "Step: 6.89 s, 39.4% MFU, 2.4M tokens/s on 16384
/// GPUs; 15.6T tokens in 2.3 years, 325.8M GPU-hours" and, when priced, " ($814.6M)"; a
/// step under 0.1 s reads in milliseconds ("Step: 4.52 ms").
/// Durations read in minutes (under an hour), hours (under two days), days (under two
/// years) or years (365.25 days), one decimal; counts scale by k, M, G/B, T. `tokenBudget` is
/// Throughput::tokenBudget (0 leaves the time to train out). An invalid t gives
/// "Step: not timed: " and its error.
std::string stepTimeText(const StepTime &t, std::int64_t gpus, std::int64_t tokenBudget);

} // namespace shardscope
