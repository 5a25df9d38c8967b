#pragma once

// Stage 3, activations (docs/architecture.md "Activations", docs/activations.md): the
// bytes one GPU of a pipeline stage holds at its peak, the per-block figures of
// activations.h (Korthikanti et al. 2022: 34 s b h + 5 a s^2 b per layer with 2-byte
// activations, no recomputation, t = 1) times the micro-batch sets the pipeline
// schedule keeps in flight (schedule.h bounds, checked against the simulation).

#include "context.h"
#include "host.h"
#include "memoryreport.h"
#include "schedule.h"
#include "stageplan.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

namespace shardscope::stages {

/// The settings activations.h computes a block's activations from, as `s` sets them: the
/// micro-batch, sequence, t and c splits, recomputation and the kernels, with the FP8
/// recipe and selective policy the framework profile implies.
inline ActivationSettings activationSettings(const Scenario &s)
{
    ActivationSettings a;
    a.microBatchSize = s.training.microBatchSize;
    a.sequenceLength = s.training.sequenceLength;
    a.tensorParallel = s.layout.tensorParallel;
    a.contextParallel = s.layout.contextParallel;
    a.sequenceParallel = s.training.sequenceParallel;
    a.recompute = s.training.recompute;
    a.flashAttention = s.training.flashAttention;
    a.dropout = s.training.dropout;
    a.activationBytes = s.training.activationBytes;
    a.fp32Logits = s.training.fp32Logits;
    a.lossKernel = s.training.lossKernel;
    a.lossChunks = s.training.lossChunks;
    a.compiledLoss = s.training.torchCompile;
    // Inductor fuses an eager RMSNorm into one kernel that saves its input and statistics.
    a.normKernel = s.training.torchCompile ? NormKernel::Fused : s.training.normKernel;
    // LoRA freezes the base, its norms included (PEFT, torchtune).
    a.normWeightsTrain = s.fineTuning.loraRank == 0;
    // Transformer Engine saves the linear layers' inputs in FP8; torchao Float8 (the
    // fsdp2 profile) saves them in high precision (torchao/float8/float8_linear.py line
    // 45, ctx.save_for_backward(input_hp, weight_hp_t)).
    const FrameworkProfile &f = frameworkProfile(s.layout.framework);
    a.fp8 = f.fp8 == Fp8Implementation::TorchaoFloat8 ? Fp8Recipe::Off : s.training.fp8;
    // Under fsdp2 "selective" is torchtitan's op-level policy (opLevelSelective).
    a.selective = f.selective;
    return a;
}

/// What LoRA dropout keeps for the backward of one block, bytes: every adapted matrix has
/// its own nn.Dropout before lora_A (src/peft/tuners/lora/layer.py lines 255-258;
/// `lora_B(lora_A(dropout(x)))`, line 1063), which keeps its mask (1 byte per element,
/// PyTorch's native_dropout saves a bool mask) and whose output lora_A saves for its
/// weight gradient (`activationBytes` per element); without dropout (nn.Identity) lora_A
/// saves the input the frozen layer already keeps. `tokens` per rank times
/// `inputElements` (loraInputElements()) times (activationBytes + 1). Llama 2 7B on q and
/// v, 4,096 tokens in bf16: 4,096 x 8,192 x 3 = 100,663,296.
inline std::int64_t loraDropoutBytes(std::int64_t tokens, std::int64_t inputElements,
                                     std::int64_t activationBytes)
{
    return tokens * inputElements * (activationBytes + 1);
}

/// What Hugging Face's use_cache adds to one block while training, bytes on one GPU per
/// micro-batch (docs/frameworks.md "Memory-saving switches"). DynamicLayer.update keeps
/// torch.cat([empty, k]) and the same of v (transformers src/transformers/cache_utils.py
/// lines 92-96 and 119-120 at 004999d), a copy that the attention then reads in place of
/// k and v. A fused kernel (SDPA, FlashAttention) saves those very tensors, so nothing is
/// added; the eager path saves repeat_kv's expanded copies instead, so the cache's
/// unexpanded keys and values, 2 x tokens x (g / t) d x e, are extra when g < a
/// (repeat_kv returns its input when g = a). Under full recomputation Hugging Face
/// switches use_cache off (src/transformers/modeling_layers.py lines 61-68 at 00029cf),
/// and multi-head latent attention is not counted: 0 for both.
inline std::int64_t trainingCacheBytes(const Architecture &a, const Training &tr, int t,
                                       std::int64_t tokensPerRank)
{
    if (!tr.useCache || tr.flashAttention || tr.recompute == Recompute::Full ||
        a.usesLatentAttention() || a.kvHeads >= a.heads)
        return 0;
    return 2 * tokensPerRank * (a.kvHeads / t) * a.effectiveHeadDim() * tr.activationBytes;
}

/// The activations stage's per-scenario part: each kind of block's bytes per
/// micro-batch (activation) and what recomputing it adds in its backward (working set:
/// the whole block under full recomputation, the part not saved under selective), the
/// embedding's, the logits' and the eager loss backward's bytes, from `figures`
/// (activationFigures). Under LoRA each adapted matrix also keeps its rank-r
/// intermediate (lora_A's output, the input of lora_B's weight gradient): tokens x r
/// elements, and with LoRA dropout its mask and dropped input (loraDropoutBytes()), all
/// rebuilt with the block (so in its working set) under full recomputation; a quantized
/// base adds bitsandbytes' dequantized copy of the block's largest matrix
/// (dequantizationWorkspaceBytes()) to the working set of whichever block computes.
[[gnu::always_inline]] inline void planBlockActivations(EstimateContext &x,
                                                        const ActivationFigures &figures)
{
    if (!x.hasArch)
        return;
    const Training &tr = x.s.training;
    for (int k = 0; k < 2; ++k) {
        if ((k == 0 && x.denseBlocks == 0) || (k == 1 && !x.moe))
            continue; // no block of this kind
        BlockKind &kind = x.kinds[k];
        kind.activation = k == 0 ? figures.firstBlock : figures.moeBlock;
        if (tr.recompute != Recompute::None) {
            const std::int64_t full =
                k == 0 ? figures.firstBlockNoRecompute : figures.moeBlockNoRecompute;
            kind.workingSet = tr.recompute == Recompute::Full ? full : full - kind.activation;
        }
    }
    if (tr.useCache) [[unlikely]] {
        // At most the block's own K and V terms (q-wide, unfused), so within int64; the
        // sum saturates, and a saturated block is refused as past 1 EB below.
        const std::int64_t cache = trainingCacheBytes(*x.arch, tr, x.t, x.tokensPerRank);
        for (int k = 0; k < (x.moe ? 2 : 1); ++k) {
            std::int64_t &kept = x.kinds[k].activation;
            if (__builtin_add_overflow(kept, cache, &kept))
                kept = std::numeric_limits<std::int64_t>::max();
        }
    }
    x.embeddingActivation = figures.embedding;
    x.outputActivation = figures.output;
    x.lossBackward = figures.lossBackward;
    if (x.lora) {
        const FineTuning &ft = x.s.fineTuning;
        const int present = x.arch->gatedMlp ? LoraAllLinear : (LoraAllLinear & ~LoraGate);
        const int adapted = std::popcount(unsigned(ft.loraTargets & present));
        const std::int64_t extra =
            x.tokensPerRank * ft.loraRank * adapted * tr.activationBytes +
            (ft.loraDropout
                 ? loraDropoutBytes(x.tokensPerRank, loraInputElements(*x.arch, ft.loraTargets),
                                    tr.activationBytes)
                 : 0);
        if (tr.recompute == Recompute::Full)
            x.kinds[0].workingSet += extra;
        else
            x.kinds[0].activation += extra;
        x.kinds[0].workingSet += dequantizationWorkspaceBytes(
            ft.baseFormat, largestLinearElements(*x.arch), tr.activationBytes);
    }
}

/// Layer activation bytes one (micro-batch, chunk) set holds on a stage with `share`'s
/// blocks: (L_i / v) identical blocks for a dense model (exact, since v divides L_i), for
/// a MoE model the stage's blocks averaged over v. With balanced stages every set counts
/// as a full chunk of k / v layers (the short stages' average block), an upper bound for
/// their one short chunk. In 64 bits when the stage's blocks fit and the stages are not
/// balanced, else in 128.
[[gnu::always_inline]] inline Wide chunkActivationBytes(const EstimateContext &x,
                                                        const StageShare &share, int layerCount)
{
    Checked blockSum;
    const std::int64_t stageBlocks64 =
        blockSum.sum(blockSum.product(share.blocks[0], x.kinds[0].activation),
                     blockSum.product(share.blocks[1], x.kinds[1].activation));
    if (!blockSum.overflow && !x.balanced) [[likely]]
        return quotient(stageBlocks64, x.v);
    const Wide stageBlocks = Wide(share.blocks[0]) * x.kinds[0].activation +
                             Wide(share.blocks[1]) * x.kinds[1].activation;
    return x.balanced
               ? wideQuotient(stageBlocks * Wide(x.balancedSlots / x.v), std::max(1, layerCount))
               : wideQuotient(stageBlocks, x.v);
}

/// Activations of one GPU of stage `i` at its peak into g.activations and
/// g.bytes.activations: the schedule's peak sets of layer activations (peakInFlightBound),
/// the embedding's sets on the first stage (chunk 0) and the logits' on the last (chunk
/// v - 1; embeddingInFlightBound, headInFlightBound), and the larger of the loss
/// backward and the largest working set of a recomputed block less the micro-batch's
/// logits (ActivationBytes::transient). With activation offload (p = v = 1) all but
/// the last two blocks of the micro-batch go to host RAM (g.hostBytes). False, with
/// `error` set, when the total passes 1 EB.
[[gnu::always_inline]] inline bool stageActivations(const EstimateContext &x, int i,
                                                    const StageShare &share, GpuGroup &g,
                                                    std::string &error)
{
    const Training &tr = x.s.training;
    const int p = x.p;
    if (x.hasArch)
        g.peakInFlight = p > 1 ? peakInFlightBound(tr.schedule, p, int(x.m), tr.chunks, i) : 1;
    if (!x.activationsModelled)
        return true;
    g.embeddingInFlight =
        g.holdsEmbedding ? (p > 1 ? embeddingInFlightBound(tr.schedule, p, int(x.m), x.v) : 1) : 0;
    g.outputInFlight =
        g.holdsOutputHead ? (p > 1 ? headInFlightBound(tr.schedule, p, int(x.m), x.v) : 1) : 0;
    const Wide chunk = chunkActivationBytes(x, share, g.layerCount);
    const std::int64_t workingSet = std::max(share.blocks[0] > 0 ? x.kinds[0].workingSet : 0,
                                             share.blocks[1] > 0 ? x.kinds[1].workingSet : 0);
    Wide kept = chunk;
    if (x.activationOffload) [[unlikely]] {
        Checked ck;
        const std::int64_t offloaded = offloadedActivationBytes(
            share.blocks[0], share.blocks[1], x.kinds[0].activation, x.kinds[1].activation, ck);
        const std::int64_t host = ck.sum(g.hostBytes, offloaded);
        if (ck.overflow || host > maxReportBytes) {
            error = "activation offload moves more than 1 EB per GPU to host RAM: lower the "
                    "micro-batch size or sequence length";
            return false;
        }
        kept = chunk - offloaded;
        g.hostBytes = host;
    }
    const std::int64_t loss = g.holdsOutputHead ? x.lossBackward : 0;
    // Autograd runs the head's backward (the loss's, then the output projection's, which
    // frees that micro-batch's logits) before it recomputes any block of the micro-batch,
    // so the loss's moment and a block's working set are never held together.
    const std::int64_t transient =
        std::max(loss, workingSet - (g.holdsOutputHead ? x.outputActivation : 0));
    // The held sets and their total, in 64 bits: every term is non-negative, so a
    // product or sum that overflows means a total past 1 EB. A chunk past 64 bits
    // (refused too, for any set in flight) takes the 128-bit sums.
    std::int64_t layers = 0, embedding = 0, output = 0;
    Wide total = 0;
    bool tooLarge = false;
    if (kept <= std::numeric_limits<std::int64_t>::max()) [[likely]] {
        Checked ck;
        layers = ck.product(g.peakInFlight, std::int64_t(kept));
        embedding = ck.product(g.embeddingInFlight, x.embeddingActivation);
        output = ck.product(g.outputInFlight, x.outputActivation);
        total = ck.sum(layers, embedding, output, transient);
        tooLarge = ck.overflow || total > maxReportBytes;
    } else {
        const Wide wideLayers = Wide(g.peakInFlight) * kept;
        const Wide wideEmbedding = Wide(g.embeddingInFlight) * x.embeddingActivation;
        const Wide wideOutput = Wide(g.outputInFlight) * x.outputActivation;
        total = wideLayers + wideEmbedding + wideOutput + transient;
        tooLarge = total > maxReportBytes;
        layers = std::int64_t(wideLayers);
        embedding = std::int64_t(wideEmbedding);
        output = std::int64_t(wideOutput);
    }
    if (tooLarge) {
        error = "activation memory exceeds 1 EB per GPU: lower the micro-batch size or "
                "sequence length";
        return false;
    }
    g.chunkActivationBytes = std::int64_t(kept);
    g.embeddingBytesPerMicroBatch = g.holdsEmbedding ? x.embeddingActivation : 0;
    g.outputBytesPerMicroBatch = g.holdsOutputHead ? x.outputActivation : 0;
    g.activations = {layers, workingSet, embedding, output, loss, transient};
    g.bytes.activations = std::int64_t(total);
    return true;
}

} // namespace shardscope::stages
