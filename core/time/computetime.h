#pragma once

// The compute side of a training step: how long one GPU takes for one micro-batch's
// forward, backward and recomputation of a stage, from the GPU's dense peak, a
// per-family matmul efficiency, the GEMM shapes (a roofline with a launch cost per
// kernel), FlashAttention's throughput and the memory-bound kernels at HBM bandwidth.
// Every constant and its source: docs/steptime.md "Compute".

#include "../gpu.h"
#include "../scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

/// Fixed cost of one GPU kernel (launch and the last partial wave), seconds. 4 us makes
/// a 1 GFLOP matmul at 200 TFLOP/s run at 56% of its rate, a 16 GFLOP one at 95% and a
/// 128 GFLOP one at 99%: the shape of Calculon's matrix-efficiency tables (0.6 at 1
/// GFLOP, 0.9 at 16, 0.95 at 128; Isaev et al. 2023, "Calculon", SC'23).
inline constexpr double kernelLaunchSeconds = 4e-6;
/// Share of the HBM datasheet bandwidth that streaming kernels reach (STREAM-like copy
/// kernels reach 80-90% on A100 and H100; NVIDIA's CUDA samples bandwidthTest).
inline constexpr double hbmEfficiency = 0.8;
/// Share of the dense peak matmuls sustain in training on a GPU the catalog has no
/// calibrated `matmul_efficiency` for: between the A100's 0.72 and the H100's 0.60.
inline constexpr double defaultMatmulEfficiency = 0.6;
/// FlashAttention throughput, as a share of the dense BF16 peak, on a GPU the catalog
/// has no calibrated `attention_tflops` for: the H100's 190 of 989 TFLOP/s.
inline constexpr double defaultAttentionShareOfPeak = 0.19;

/// Forward attention FLOPs per token of one layer over the whole (unmasked) sequence of
/// `s` tokens: 2 s (a d_qk) + 2 s (a d_v), as the PaLM paper's appendix B counts them
/// (MFU's count; FlashAttention executes the causal half).
double attentionPerToken(const Architecture &a, std::int64_t s);

/// The dense peak the linear layers' matmuls run at, and the catalog field it comes from.
struct LinearPeak
{
    double flopsPerSecond = 0; ///< FLOP/s; 0 where the catalog has none
    const char *dtype = "";    ///< "BF16", "FP8" or "MXFP8"
    const char *field = "";    ///< "bf16_tflops", "fp8_tflops" or "mxfp8_tflops"
};

/// The peak of GPU `g` for the linear layers under `tr`: MXFP8's for an MXFP8 recipe
/// (only block-scaled tensor cores have one, Gpu::mxfp8FlopsPerSecond), FP8's for 1-byte
/// activations or another FP8 recipe, else BF16's. The attention core and the output head
/// stay at the BF16 peak beside an FP8 recipe (Transformer Engine's default recipes,
/// fp8_dpa off; torchtitan's filter_fqns ["output"]).
LinearPeak linearPeak(const Gpu &g, const Training &tr);

/// The rates one GPU computes at, for one scenario.
struct ComputeRates
{
    double matmulFlopsPerSecond = 0;      ///< linear layers' matmuls: peak x efficiency
    double otherMatmulFlopsPerSecond = 0; ///< head and unfused attention matmuls (BF16 beside FP8)
    double attentionFlopsPerSecond = 0;   ///< FlashAttention, in its own FLOP count (causal half)
    double memoryBytesPerSecond = 0;      ///< HBM x hbmEfficiency, for memory-bound kernels
    double matmulEfficiency = 0;          ///< the efficiency used, 0..1
    bool calibrated = false; ///< efficiency from the catalog (not the default or an override)
};

/// The rates for GPU `g` under training `tr` and throughput settings `th`: the dense
/// peak (FP8 for 1-byte activations or an FP8 recipe's linear layers, else BF16) x the
/// matmul efficiency (Throughput::computeEfficiencyPercent when set, else the
/// catalog's `matmul_efficiency`, else defaultMatmulEfficiency), FlashAttention at the
/// catalog's `attention_tflops` (scaled by an override over the calibrated efficiency),
/// HBM at hbmEfficiency. Appends a sentence to `notes` when a default applies. The
/// caller has checked that the peaks it needs are positive.
ComputeRates computeRates(const Gpu &g, const Training &tr, const Throughput &th,
                          std::vector<std::string> &notes);

/// Seconds of one matmul of `flops` FLOPs that reads and writes `bytes` of operands:
/// max(flops / rate, bytes / memory rate) + kernelLaunchSeconds (a roofline).
double gemmSeconds(double flops, double bytes, double rate, double memoryBytesPerSecond);

/// One stage's time per micro-batch on one GPU, seconds, split as a step is explained.
struct StageCompute
{
    double forward = 0;         ///< matmuls, attention and memory-bound kernels of one forward
    double backward = 0;        ///< input and weight gradients (+ FlashAttention's recomputation)
    double weightGradient = 0;  ///< the part of `backward` that is weight-gradient matmuls (W)
    double recompute = 0;       ///< recomputed forward (full) or attention cores (selective)
    double attention = 0;       ///< the attention cores inside forward, backward and recompute
    double attentionMemory = 0; ///< without FlashAttention: score traffic inside the above
    double dequantize = 0;      ///< QLoRA / int8 base dequantization inside the above
    double forwardFlops = 0;    ///< FLOPs of one forward (matmuls + attention, full count)
    double hardwareFlops = 0;   ///< FLOPs executed: forward, backward, recomputation
};

/// The compute of one micro-batch on one GPU of a stage holding `layerCount` blocks from
/// `firstLayer` (and the output head when `holdsHead`), for scenario `s` at `rates`:
/// matmuls by shape (docs/steptime.md "Compute"), attention (FlashAttention's throughput,
/// or unfused matmuls and the score matrix through HBM), memory-bound kernels (norms,
/// residuals, activation functions, the loss), LoRA adapters on a frozen base (no weight
/// gradients for frozen weights) and the base's dequantization. A model without an
/// architecture (a plain parameter count) is timed as 2 x parameters / p FLOPs per token.
StageCompute stageCompute(const Scenario &s, const ComputeRates &rates, int firstLayer,
                          int layerCount, bool holdsHead);

} // namespace shardscope
