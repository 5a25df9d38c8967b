#include "computetime.h"

#include "../model.h"

#include <algorithm>
#include <bit>

namespace shardscope {

namespace {

/// Forward attention FLOPs per token of one layer over the whole (unmasked) sequence:
/// 2 s (a d_qk) + 2 s (a d_v), as the PaLM paper's appendix B counts them.
double attentionPerToken(const Architecture &a, std::int64_t s)
{
    const double dv = double(a.usesLatentAttention() ? a.vHeadDim : a.effectiveHeadDim());
    return 2.0 * double(s) * (double(a.queryWidth()) + double(a.heads) * dv);
}

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

ComputeRates computeRates(const Gpu &g, const Training &tr, const Throughput &th,
                          std::vector<std::string> &notes)
{
    ComputeRates r;
    const bool fp8Activations = tr.activationBytes == 1;
    const bool fp8Linear = !fp8Activations && tr.fp8 != Fp8Recipe::Off;
    const double linearPeak =
        fp8Activations || fp8Linear ? g.fp8FlopsPerSecond : g.bf16FlopsPerSecond;
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
    r.matmulFlopsPerSecond = linearPeak * efficiency;
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
    const bool sp = tr.sequenceParallel && l.tensorParallel > 1;
    const bool lora = s.fineTuning.enabled();
    const double h = double(a.hidden);

    // Blocks of each kind on the stage: identical within a kind, so timed once each.
    const int moeBlocks = a.isMoe() ? a.moeLayersIn(firstLayer, layerCount) : 0;
    const int denseBlocks = layerCount - moeBlocks;
    auto kindLayer = [&](bool moe) {
        for (int i = firstLayer; i < firstLayer + layerCount; ++i)
            if (a.isMoeLayer(i) == moe)
                return i;
        return firstLayer;
    };

    // Attention, per layer, identical in every block.
    const double attentionFull = T * attentionPerToken(a, tr.sequenceLength) / t;
    double attnFwd = 0, attnBwd = 0, attnMemFwd = 0;
    if (tr.flashAttention) {
        // FlashAttention's own count: causal half of the full matmuls, backward 2.5x the
        // forward (Dao 2023, FlashAttention-2, benchmark FLOP count).
        attnFwd = attentionFull / 2 / rates.attentionFlopsPerSecond;
        attnBwd = 2.5 * attnFwd;
    } else {
        // Unfused: QK^T and softmax x V as batched matmuls over the whole s x s, and the
        // score matrix through HBM: 4 passes forward (write, softmax read and write, AV
        // read), 8 backward, 4 more when recomputed.
        const double scores = double(a.heads) *
                              (double(tr.sequenceLength) / double(l.contextParallel)) *
                              double(tr.sequenceLength) * double(tr.microBatchSize) / t;
        attnMemFwd = 4 * scores * beta / mem;
        attnFwd =
            attentionFull / rates.otherMatmulFlopsPerSecond + 2 * kernelLaunchSeconds + attnMemFwd;
        attnBwd = 2 * (attentionFull / rates.otherMatmulFlopsPerSecond + 2 * kernelLaunchSeconds) +
                  2 * attnMemFwd;
    }

    // One block of a kind: matmuls, memory-bound kernels, LoRA adapters, dequantization.
    auto block = [&](bool moe, int count) {
        if (count == 0)
            return;
        const int layer = kindLayer(moe);
        const double params = double(activeLayerParameterCount(a, layer));
        const double mlpWidth =
            moe ? double(a.activeExperts + a.sharedExperts) * double(a.effectiveExpertFfn())
                : double(a.ffn);
        const double mlpIn = a.gatedMlp ? 2 : 1;
        const double q = double(a.queryWidth()), kv = double(a.keyWidth() + a.valueWidth());
        // Forward matmuls: 2 T P / t FLOPs; operands are the weights once and each
        // matmul's input and output rows.
        const double flops = 2 * T * params / t;
        const double operandBytes =
            beta * (params / t + T * (4 * h + (q + kv) / t + q / t + mlpWidth * (mlpIn + 1) / t));
        const double gemm = gemmSeconds(flops, operandBytes, rates.matmulFlopsPerSecond, mem) +
                            (matmulKernelsPerLayer - 1) * kernelLaunchSeconds;
        // Memory-bound kernels: h-wide rows (split t ways under sequence parallelism) and
        // MLP-wide rows (split t ways).
        const double rows = (sp ? T / t : T) * h * hiddenRowPasses +
                            T * mlpWidth / t * (a.gatedMlp ? gatedMlpRowPasses : plainMlpRowPasses);
        const double elementwise =
            rows * beta / mem + elementwiseKernelsPerLayer * kernelLaunchSeconds;
        // LoRA: the frozen base's matmuls need input gradients only; each adapter is two
        // thin matmuls (T x in x r, T x r x out) in the forward, four in the backward.
        double adapters = 0, dequantize = 0;
        if (lora) {
            const AdapterShapes as = adapterShapes(a, s.fineTuning.loraTargets);
            const double r = double(s.fineTuning.loraRank);
            for (int i = 0; i < as.count; ++i) {
                adapters += gemmSeconds(2 * T * r * as.in[i], beta * (T * as.in[i] + T * r),
                                        rates.matmulFlopsPerSecond, mem) +
                            gemmSeconds(2 * T * r * as.out[i], beta * (T * r + T * as.out[i]),
                                        rates.matmulFlopsPerSecond, mem);
            }
            if (s.fineTuning.baseFormat == BaseFormat::Nf4 ||
                s.fineTuning.baseFormat == BaseFormat::Int8) {
                // bitsandbytes dequantizes each frozen matrix to bf16 before its matmul,
                // in every forward and backward: read the stored bytes, write 2 per weight.
                const FrozenBlock fb = frozenBlock(a, s.fineTuning.baseFormat);
                const int matrices = a.gatedMlp ? 7 : 6;
                dequantize = double(fb.linearBytes + 2 * fb.linearElements) / mem +
                             matrices * kernelLaunchSeconds;
            }
        }
        const double fwd = gemm + elementwise + adapters + dequantize + attnFwd;
        const double weightGrad = (lora ? 0.0 : gemm) + adapters;
        const double bwd =
            (lora ? gemm : 2 * gemm) + 2 * elementwise + 2 * adapters + dequantize + attnBwd;
        const double n = count;
        c.forward += n * fwd;
        c.backward += n * bwd;
        c.weightGradient += n * weightGrad;
        if (full)
            c.recompute += n * fwd;
        else if (selective)
            c.recompute += n * attnFwd;
        c.attention += n * ((full || selective ? 2 : 1) * attnFwd + attnBwd);
        c.attentionMemory +=
            n * (tr.flashAttention ? 0.0 : (3 + (full || selective ? 1 : 0)) * attnMemFwd);
        c.dequantize += n * dequantize * (2 + (full ? 1 : 0));
        c.forwardFlops += n * (flops + attentionFull);
        const double scores = tr.flashAttention
                                  ? T * 2.0 * double(tr.sequenceLength) * double(a.queryWidth()) / t
                                  : 0.0;
        c.hardwareFlops += n * ((lora ? 2 : 3) * flops + 3 * attentionFull + scores +
                                (full        ? flops + attentionFull
                                 : selective ? attentionFull
                                             : 0.0));
    };
    block(false, denseBlocks);
    block(true, moeBlocks);

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
