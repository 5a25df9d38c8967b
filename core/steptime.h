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
    double achievedFlopsPerSecond = 0; ///< peak x compute efficiency
    double forwardSeconds = 0;         ///< matmuls and attention, m forwards
    double backwardSeconds = 0;        ///< m backwards (2 x forward, + flash's score recompute)
    double recomputeSeconds = 0; ///< m recomputed forwards (full) or attention cores (selective)
    double attentionMemorySeconds = 0; ///< without FlashAttention: the s x s scores through HBM
    double computeSeconds = 0;         ///< forward + backward + recompute + attention memory
    CollectiveTime dataParallel, tensorParallel, pipelineParallel, contextParallel, expertParallel;
    double bubbleSeconds = 0;    ///< pipeline bubble: idle / busy (bubbleClosedForm) x busy
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

/// Checks the step-time settings against their table ranges (core/inputlimits.h):
/// empty when valid, else a one-line reason naming the setting, e.g. "NIC bandwidth
/// must be from 125000000 to 10000000000000 bytes/s (got 0)". estimate() never reads
/// them, so validate() leaves them to this; stepTime() refuses with it.
std::string validateThroughput(const Throughput &t);

/// Times one training step of `s` whose memory report is `r` (r = estimate(s)).
/// Compute at the GPU's dense peak (FP8 for 1-byte activations, else BF16) x
/// Throughput::computeEfficiencyPercent; collectives from r's CommunicationBytes on
/// NVLink when the group fits in a node, else on the NIC, with ring-step latencies;
/// overlap and the bubble as docs/steptime.md writes them out. Error (one line naming
/// the input) when r is invalid or a needed GPU speed is 0 in the catalog.
StepTime stepTime(const Scenario &s, const MemoryReport &r);

/// Seconds one unit of the pipeline timeline stands for (schedule.h: 1 = one micro-batch's
/// forward through one stage; F + B = 3 units): the slowest stage's busy time per
/// micro-batch (compute and exposed tensor, context, expert and pipeline traffic) / 3,
/// so the timeline's makespan x this is that stage's busy time plus the bubble, as
/// stepTime() counts them. 0 when t is invalid or m < 1.
double secondsPerTimelineUnit(const StepTime &t, std::int64_t microBatches);

/// One line on a timed step for people: "Step: 6.89 s, 39.4% MFU, 2.4M tokens/s on 16384
/// GPUs; 15.6T tokens in 2.3 years, 325.8M GPU-hours" and, when priced, " ($814.6M)".
/// Durations read in minutes (under an hour), hours (under two days), days (under two
/// years) or years (365.25 days), one decimal; counts scale by k, M, G/B, T. `tokenBudget` is
/// Throughput::tokenBudget (0 leaves the time to train out). An invalid t gives
/// "Step: not timed: " and its error.
std::string stepTimeText(const StepTime &t, std::int64_t gpus, std::int64_t tokenBudget);

} // namespace shardscope
