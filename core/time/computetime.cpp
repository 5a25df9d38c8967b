#include "computetime.h"

#include "../model.h"

#include <algorithm>
#include <bit>

namespace shardscope {

namespace {

/// Memory-bound element passes per token per layer in one forward, in units of an h-wide
/// row (norms, residual adds, dropout, casts) and of an MLP-wide row (the activation
/// function; a gated MLP reads two rows). Twice the minimal count of a pre-norm block
/// (two norms and two residual adds: 10 h-wide passes; GELU 2 or SwiGLU 3 MLP-wide),
/// which is what unfused PyTorch kernels with fp32 norm statistics, autocast casts and
/// bias/dropout kernels move; calibrated on the llm-foundry rows (docs/steptime.md).
constexpr double hiddenRowPasses = 20;
constexpr double plainMlpRowPasses = 4;
constexpr double gatedMlpRowPasses = 6;
/// Memory-bound kernels per layer in one forward (norms, adds, activation, rotary, ...).
constexpr int elementwiseKernelsPerLayer = 10;
/// Matmul kernels per layer in one forward: QKV, output projection, MLP in, MLP out.
constexpr int matmulKernelsPerLayer = 4;
/// Passes over the logits in the loss (write, softmax read and write) in the forward.
constexpr double logitPasses = 3;

/// The adapted matrices' (in, out) widths for LoRA targets `targets` of block `a`, and
/// how many there are (PEFT's q, k, v, o, gate, up, down).
struct AdapterShapes
{
    double in[7] = {};
    double out[7] = {};
    int count = 0;
};

AdapterShapes adapterShapes(const Architecture &a, int targets)
{
    AdapterShapes s;
    const double h = double(a.hidden), f = double(a.ffn);
    const double q = double(a.queryWidth()), k = double(a.keyWidth()), v = double(a.valueWidth());
    const struct
    {
        int bit;
        double in, out;
    } all[] = {{LoraQ, h, q},    {LoraK, h, k},  {LoraV, h, v},   {LoraO, q, h},
               {LoraGate, h, f}, {LoraUp, h, f}, {LoraDown, f, h}};
    for (const auto &m : all) {
        if (!(targets & m.bit) || (m.bit == LoraGate && !a.gatedMlp))
            continue;
        s.in[s.count] = m.in;
        s.out[s.count] = m.out;
        ++s.count;
    }
    return s;
}

} // namespace

double attentionPerToken(const Architecture &a, std::int64_t s)
{
    const double dv = double(a.usesLatentAttention() ? a.vHeadDim : a.effectiveHeadDim());
    return 2.0 * double(s) * (double(a.queryWidth()) + double(a.heads) * dv);
}

LinearPeak linearPeak(const Gpu &g, const Training &tr)
{
    if (tr.activationBytes == 1)
        return {g.fp8FlopsPerSecond, "FP8", "fp8_tflops"};
    switch (tr.fp8) {
    case Fp8Recipe::Off:
        break;
    case Fp8Recipe::Delayed:
        return {g.fp8FlopsPerSecond, "FP8", "fp8_tflops"};
    case Fp8Recipe::Mxfp8:
        return {g.mxfp8FlopsPerSecond, "MXFP8", "mxfp8_tflops"};
    }
    return {g.bf16FlopsPerSecond, "BF16", "bf16_tflops"};
}

ComputeRates computeRates(const Gpu &g, const Training &tr, const Throughput &th,
                          std::vector<std::string> &notes)
{
    ComputeRates r;
    const bool fp8Activations = tr.activationBytes == 1;
    const double linear = linearPeak(g, tr).flopsPerSecond;
    const double otherPeak = fp8Activations ? g.fp8FlopsPerSecond : g.bf16FlopsPerSecond;
    const double calibrated = g.matmulEfficiency > 0 ? g.matmulEfficiency : defaultMatmulEfficiency;
    double efficiency = calibrated;
    r.calibrated = g.matmulEfficiency > 0;
    if (th.computeEfficiencyPercent > 0) {
        efficiency = th.computeEfficiencyPercent / 100.0;
        r.calibrated = false;
    } else if (!(g.matmulEfficiency > 0)) {
        notes.push_back("GPU " + g.id +
                        " has no calibrated matmul efficiency in the catalog; matmuls are "
                        "timed at 60% of its dense peak (set --efficiency-percent to "
                        "override).");
    }
    r.matmulEfficiency = efficiency;
    r.matmulFlopsPerSecond = linear * efficiency;
    r.otherMatmulFlopsPerSecond = otherPeak * efficiency;
    // FlashAttention's own rate, scaled with an override of the matmul efficiency so
    // that one setting moves the whole compute side.
    const double attention = g.attentionFlopsPerSecond > 0
                                 ? g.attentionFlopsPerSecond
                                 : defaultAttentionShareOfPeak * g.bf16FlopsPerSecond;
    r.attentionFlopsPerSecond = attention * efficiency / calibrated;
    r.memoryBytesPerSecond = g.memoryBytesPerSecond * hbmEfficiency;
    return r;
}

double gemmSeconds(double flops, double bytes, double rate, double memoryBytesPerSecond)
{
    return std::max(flops / rate, bytes / memoryBytesPerSecond) + kernelLaunchSeconds;
}

namespace {

/// One layer's attention core per micro-batch on one GPU, seconds: FlashAttention at its
/// own rate (the causal half of the full matmuls, backward 2.5x the forward: Dao 2023,
/// FlashAttention-2, benchmark FLOP count), or unfused: QK^T and softmax x V as batched
/// matmuls over the whole s x s and the score matrix through HBM, 4 passes forward
/// (write, softmax read and write, AV read), 8 backward, 4 more when recomputed.
struct AttentionTimes
{
    double forward = 0, backward = 0;
    double memoryForward = 0; ///< unfused: the score passes inside `forward`
    double fullFlops = 0;     ///< forward FLOPs over the whole sequence (MFU's count)
};

AttentionTimes attentionTimes(const Scenario &s, const ComputeRates &rates, double tokens)
{
    const Architecture &a = *s.model.architecture;
    const Training &tr = s.training;
    const double t = double(s.layout.tensorParallel);
    AttentionTimes at;
    at.fullFlops = tokens * attentionPerToken(a, tr.sequenceLength) / t;
    if (tr.flashAttention) {
        at.forward = at.fullFlops / 2 / rates.attentionFlopsPerSecond;
        at.backward = 2.5 * at.forward;
        return at;
    }
    const double scores = double(a.heads) *
                          (double(tr.sequenceLength) / double(s.layout.contextParallel)) *
                          double(tr.sequenceLength) * double(tr.microBatchSize) / t;
    at.memoryForward = 4 * scores * double(tr.activationBytes) / rates.memoryBytesPerSecond;
    const double matmuls = at.fullFlops / rates.otherMatmulFlopsPerSecond + 2 * kernelLaunchSeconds;
    at.forward = matmuls + at.memoryForward;
    at.backward = 2 * matmuls + 2 * at.memoryForward;
    return at;
}

/// One block of a kind (dense or MoE, `layer` a block of that kind) per micro-batch on
/// one GPU, seconds, without its attention core: matmuls, memory-bound kernels, LoRA
/// adapters and the base's dequantization.
struct BlockTimes
{
    double gemm = 0;        ///< the forward's matmuls (a roofline with launches)
    double elementwise = 0; ///< the forward's memory-bound kernels
    double adapters = 0;    ///< LoRA's adapter matmuls in the forward
    double dequantize = 0;  ///< dequantizing the frozen base, once
    double flops = 0;       ///< the forward's matmul FLOPs
};

BlockTimes blockTimes(const Scenario &s, const ComputeRates &rates, int layer, bool moe,
                      double tokens)
{
    const Architecture &a = *s.model.architecture;
    const Training &tr = s.training;
    const double t = double(s.layout.tensorParallel), T = tokens;
    const double beta = double(tr.activationBytes), mem = rates.memoryBytesPerSecond;
    const double h = double(a.hidden);
    const bool sp = tr.sequenceParallel && s.layout.tensorParallel > 1;
    BlockTimes b;
    const double params = double(activeLayerParameterCount(a, layer));
    const double mlpWidth =
        moe ? double(a.activeExperts + a.sharedExperts) * double(a.effectiveExpertFfn())
            : double(a.ffn);
    const double mlpIn = a.gatedMlp ? 2 : 1;
    const double q = double(a.queryWidth()), kv = double(a.keyWidth() + a.valueWidth());
    // Forward matmuls: 2 T P / t FLOPs; operands are the weights once and each matmul's
    // input and output rows.
    b.flops = 2 * T * params / t;
    const double operandBytes =
        beta * (params / t + T * (4 * h + (q + kv) / t + q / t + mlpWidth * (mlpIn + 1) / t));
    b.gemm = gemmSeconds(b.flops, operandBytes, rates.matmulFlopsPerSecond, mem) +
             (matmulKernelsPerLayer - 1) * kernelLaunchSeconds;
    // Memory-bound kernels: h-wide rows (split t ways under sequence parallelism) and
    // MLP-wide rows (split t ways).
    const double rows = (sp ? T / t : T) * h * hiddenRowPasses +
                        T * mlpWidth / t * (a.gatedMlp ? gatedMlpRowPasses : plainMlpRowPasses);
    b.elementwise = rows * beta / mem + elementwiseKernelsPerLayer * kernelLaunchSeconds;
    if (!s.fineTuning.enabled())
        return b;
    // LoRA: each adapter is two thin matmuls (T x in x r, T x r x out) in the forward.
    const AdapterShapes as = adapterShapes(a, s.fineTuning.loraTargets);
    const double r = double(s.fineTuning.loraRank);
    for (int i = 0; i < as.count; ++i) {
        b.adapters += gemmSeconds(2 * T * r * as.in[i], beta * (T * as.in[i] + T * r),
                                  rates.matmulFlopsPerSecond, mem) +
                      gemmSeconds(2 * T * r * as.out[i], beta * (T * r + T * as.out[i]),
                                  rates.matmulFlopsPerSecond, mem);
    }
    if (s.fineTuning.baseFormat == BaseFormat::Nf4 || s.fineTuning.baseFormat == BaseFormat::Int8) {
        // bitsandbytes dequantizes each frozen matrix to bf16 before its matmul, in every
        // forward and backward: read the stored bytes, write 2 per weight.
        const FrozenBlock fb = frozenBlock(a, s.fineTuning.baseFormat);
        const int matrices = a.gatedMlp ? 7 : 6;
        b.dequantize =
            double(fb.linearBytes + 2 * fb.linearElements) / mem + matrices * kernelLaunchSeconds;
    }
    return b;
}

} // namespace

StageCompute stageCompute(const Scenario &s, const ComputeRates &rates, int firstLayer,
                          int layerCount, bool holdsHead)
{
    StageCompute c;
    const Training &tr = s.training;
    const Layout &l = s.layout;
    const double t = double(l.tensorParallel);
    const double T = double(tr.microBatchSize) * double(tr.sequenceLength) /
                     double(l.contextParallel); // tokens per GPU per micro-batch
    const double beta = double(tr.activationBytes);
    const double mem = rates.memoryBytesPerSecond;
    const bool full = tr.recompute == Recompute::Full;
    const bool selective = tr.recompute == Recompute::Selective;
    if (!s.model.architecture) {
        const double flops =
            T * 2.0 * double(s.model.plainParameters) / double(l.pipelineParallel) / t;
        c.forward = flops / rates.matmulFlopsPerSecond;
        c.backward = 2 * c.forward;
        c.weightGradient = c.forward;
        c.recompute = full ? c.forward : 0.0;
        c.forwardFlops = flops;
        c.hardwareFlops = flops * (full ? 4 : 3);
        return c;
    }
    const Architecture &a = *s.model.architecture;
    const bool lora = s.fineTuning.enabled();
    const double h = double(a.hidden);
    const AttentionTimes at = attentionTimes(s, rates, T);

    // Blocks of each kind on the stage: identical within a kind, so timed once each. The
    // frozen base under LoRA needs input gradients only: one backward matmul per weight.
    const int moeBlocks = a.isMoe() ? a.moeLayersIn(firstLayer, layerCount) : 0;
    const std::pair<bool, int> kinds[2] = {{false, layerCount - moeBlocks}, {true, moeBlocks}};
    for (const auto &[moe, count] : kinds) {
        if (count == 0)
            continue;
        int layer = firstLayer;
        for (int i = firstLayer; i < firstLayer + layerCount; ++i)
            if (a.isMoeLayer(i) == moe) {
                layer = i;
                break;
            }
        const BlockTimes b = blockTimes(s, rates, layer, moe, T);
        const double fwd = b.gemm + b.elementwise + b.adapters + b.dequantize + at.forward;
        const double weightGrad = (lora ? 0.0 : b.gemm) + b.adapters;
        const double bwd = (lora ? b.gemm : 2 * b.gemm) + 2 * b.elementwise + 2 * b.adapters +
                           b.dequantize + at.backward;
        const double n = count;
        c.forward += n * fwd;
        c.backward += n * bwd;
        c.weightGradient += n * weightGrad;
        if (full)
            c.recompute += n * fwd;
        else if (selective)
            c.recompute += n * at.forward;
        c.attention += n * ((full || selective ? 2 : 1) * at.forward + at.backward);
        c.attentionMemory +=
            n * (tr.flashAttention ? 0.0 : (3 + (full || selective ? 1 : 0)) * at.memoryForward);
        c.dequantize += n * b.dequantize * (2 + (full ? 1 : 0));
        c.forwardFlops += n * (b.flops + at.fullFlops);
        const double scores = tr.flashAttention
                                  ? T * 2.0 * double(tr.sequenceLength) * double(a.queryWidth()) / t
                                  : 0.0;
        c.hardwareFlops += n * ((lora ? 2 : 3) * b.flops + 3 * at.fullFlops + scores +
                                (full        ? b.flops + at.fullFlops
                                 : selective ? at.fullFlops
                                             : 0.0));
    }

    if (holdsHead) {
        // The output head (V h / t) and the loss over the logits (fp32 or the activation
        // dtype): not recomputed, frozen under LoRA (input gradients only).
        const double v = double(a.vocab);
        const double flops = 2 * T * v * h / t;
        const double gemm = gemmSeconds(flops, beta * (v * h / t + T * (h + v / t)),
                                        rates.otherMatmulFlopsPerSecond, mem);
        const double logitBytes = tr.fp32Logits ? 4.0 : beta;
        const double loss = logitPasses * T * v / t * logitBytes / mem + 2 * kernelLaunchSeconds;
        c.forward += gemm + loss;
        c.backward += (lora ? 1 : 2) * gemm + 2 * loss;
        c.weightGradient += lora ? 0.0 : gemm;
        c.forwardFlops += flops;
        c.hardwareFlops += (lora ? 2 : 3) * flops;
    }
    return c;
}

} // namespace shardscope
