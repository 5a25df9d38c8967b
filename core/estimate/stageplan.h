#pragma once

// Stage 1, the stage plan (docs/architecture.md "Parameters per GPU"): which layers,
// ranks, embedding and output head each pipeline stage holds, and the parameters one of
// its GPUs owns before ZeRO sharding.

#include "context.h"
#include "memoryreport.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <string>
#include <string_view>

namespace shardscope::stages {

/// Block `layer` of `a`, prepared for the split over t and e ranks: the matrices (and
/// their column-parallel biases) split t ways, norms, row-parallel output biases, MLA
/// latent norms and the MoE router replicated (Megatron-LM ColumnParallelLinear /
/// RowParallelLinear; Megatron-Core's TopKRouter weight is not split). Routed experts:
/// each split t ways but for its down-projection bias (Megatron-Core's expert
/// tensor-parallel size defaults to t). Elements, before the t and e splits.
inline PreparedModel::Block prepareBlock(const Architecture &a, int layer)
{
    const std::int64_t h = a.hidden;
    std::int64_t replicated = std::int64_t(a.normsPerLayer) * h * (a.layerNormBias ? 2 : 1) +
                              (a.linearBiases ? h : 0) +
                              (a.usesLatentAttention() ? a.qLoraRank + a.kvLoraRank : 0);
    // Query/key norms are replicated on every tensor rank, as Megatron-Core keeps them:
    // q_layernorm and k_layernorm are built head_dim wide (hidden_size_per_attention_head)
    // and applied to each rank's own heads (megatron/core/transformer/attention.py lines
    // 1734-1751 and 1932-1936, NVIDIA/Megatron-LM d98e8a6), and their gradients are
    // summed over the tensor-parallel group like sequence-parallel norms
    // (megatron/core/distributed/finalize_model_grads.py lines 451-453). OLMo 2's
    // whole-width form is kept whole on every rank too.
    replicated += qkNormParameterCount(a);
    PreparedModel::Block b;
    if (!a.isMoeLayer(layer)) {
        replicated += a.linearBiases ? h : 0; // the MLP's down-projection bias
        b.split = layerParameterCount(a, layer) - replicated;
        b.replicated = replicated;
        return b;
    }
    const std::int64_t expert = expertParameterCount(a);
    const std::int64_t expertBias = a.linearBiases ? h : 0;
    replicated += h * a.experts + (a.routerBias ? a.experts : 0) + expertBias * a.sharedExperts;
    const std::int64_t nonRouted = layerParameterCount(a, layer) - std::int64_t(a.experts) * expert;
    b.split = nonRouted - replicated;
    b.replicated = replicated;
    b.expertSplit = expert - expertBias;
    b.expertReplicated = expertBias;
    return b;
}

/// A prepared block on one GPU of t tensor ranks, holding `routedExperts` / e of its
/// routed experts (0 for a dense block), elements.
inline BlockShare blockParametersPerRank(const PreparedModel::Block &b, int routedExperts, int t,
                                         int e)
{
    return {shardElements(b.split, t) + b.replicated,
            routedExperts == 0 ? 0
                               : quotient(routedExperts, e) *
                                     (shardElements(b.expertSplit, t) + b.expertReplicated)};
}

/// One vocabulary-sized matrix on one tensor-parallel rank: ceil(V / t) rows of h
/// elements (Megatron VocabParallelEmbedding; padding of V to a multiple is not modelled).
inline std::int64_t vocabParametersPerRank(const Architecture &a, int t)
{
    return shardElements(a.vocab, t) * a.hidden;
}

/// The stage plan's per-scenario part: each kind of block's parameters on one GPU, the
/// vocabulary matrix per tensor rank, and how the L layers divide over the p stages
/// (stageLayerCount's rule, in closed form).
[[gnu::always_inline]] inline void planBlocks(EstimateContext &x)
{
    if (!x.hasArch)
        return;
    const Architecture &a = *x.arch;
    x.denseBlocks = a.layers - (x.moe ? a.moeLayerCount() : 0);
    if (x.denseBlocks > 0)
        x.kinds[0].perRank = blockParametersPerRank(x.prepared.dense, 0, x.t, x.e);
    if (x.moe)
        x.kinds[1].perRank = blockParametersPerRank(x.prepared.moe, a.experts, x.t, x.e);
    x.vocabPerRank = vocabParametersPerRank(a, x.t);
    x.layersPerStage = int(quotient(a.layers, x.p));
    x.extraLayers = int(remainder(a.layers, x.p));
    // Balanced stages: k = (L + 2) / p layer slots a stage, the end stages one short.
    x.balanced = x.s.layout.balancedStages && x.p > 1;
    x.balancedSlots = x.balanced ? int(quotient(std::int64_t(a.layers) + 2, x.p)) : 0;
}

/// What one pipeline stage holds, per GPU, before ZeRO sharding.
struct StageShare
{
    /// Parameters over the data x context ranks (attention, norms, dense MLPs, shared
    /// experts, router, embedding, head), elements.
    std::int64_t dense = 0;
    /// This GPU's routed experts, sharded over the expert data-parallel ranks (d c / e).
    std::int64_t experts = 0;
    /// The largest unit ZeRO-3 / FSDP gathers at once: one block, or on the first and last
    /// stage the vocabulary matrix if larger, elements.
    std::int64_t unit = 0;
    /// The stage's blocks of each kind (BlockKind: 0 dense, 1 MoE).
    std::int64_t blocks[2] = {0, 0};
};

/// Every field of `g` but its label back to its default, one by one: value-initialising
/// the whole group (a temporary, or construct_at) is a rep stos the next stores wait
/// for, the hottest instruction of the estimate.
inline void resetKeepingLabel(GpuGroup &g)
{
    // The defaults of memoryreport.h's member initialisers.
    g.firstRank = 0;
    g.gpuCount = 0;
    g.pipelineStage = 0;
    g.firstLayer = 0;
    g.layerCount = 0;
    g.holdsEmbedding = false;
    g.holdsOutputHead = false;
    g.parametersPerGpu = 0;
    g.gatheredUnitParameters = 0;
    g.peakInFlight = 1;
    g.embeddingInFlight = 0;
    g.outputInFlight = 0;
    g.chunkActivationBytes = 0;
    g.embeddingBytesPerMicroBatch = 0;
    g.outputBytesPerMicroBatch = 0;
    g.bytes = ComponentBytes();
    g.buffers = BufferBytes();
    g.activations = ActivationBytes();
    g.hostBytes = 0;
    g.communication = CommunicationBytes();
}
// resetKeepingLabel() names every field of GpuGroup: one added to memoryreport.h must be
// reset there too (the prepared-path test in tests/core/test_equivalence.cpp reuses one
// report across 100,000 estimates). 296 bytes on LP64 (x86-64, AArch64).
static_assert(sizeof(void *) != 8 || sizeof(GpuGroup) == 296,
              "GpuGroup changed: reset the new field in resetKeepingLabel()");

/// A group's label, "1 GPU", "all 64 GPUs" or "stage 3", written over `label` (left
/// as it is when it already reads so: a re-estimate rewrites nothing).
[[gnu::always_inline]] inline void setLabel(std::string &label, int stages, std::int64_t gpuCount,
                                            int stage)
{
    char text[40];
    char *end = text;
    const auto put = [&end](std::string_view part) {
        end = std::copy(part.begin(), part.end(), end);
    };
    if (stages == 1 && gpuCount == 1) {
        put("1 GPU");
    } else {
        put(stages == 1 ? "all " : "stage ");
        end = std::to_chars(end, text + sizeof text, stages == 1 ? gpuCount : stage).ptr;
        if (stages == 1)
            put(" GPUs");
    }
    // Compared in place, eight characters a step and the last eight (or, under eight, the
    // first and the last four) overlapping the step before: a library memcmp call costs
    // more than these few characters. Every label has at least five ("1 GPU").
    const std::size_t length = std::size_t(end - text);
    const auto word8 = [](const char *at) {
        std::uint64_t w;
        std::memcpy(&w, at, 8);
        return w;
    };
    const auto word4 = [](const char *at) {
        std::uint32_t w;
        std::memcpy(&w, at, 4);
        return w;
    };
    bool same = label.size() == length;
    if (same) {
        const char *held = label.data();
        if (length >= 8) {
            for (std::size_t k = 0; same && k + 8 < length; k += 8)
                same = word8(held + k) == word8(text + k);
            same = same && word8(held + length - 8) == word8(text + length - 8);
        } else if (length >= 4) {
            same =
                word4(held) == word4(text) && word4(held + length - 4) == word4(text + length - 4);
        } else {
            same = label.compare(0, length, text, length) == 0;
        }
    }
    if (!same)
        label.assign(text, length);
}

/// Stage `i` of the plan into `g` (reset first, its label kept when unchanged): its
/// ranks (stage i holds ranks i d t c .. (i + 1) d t c - 1, Megatron-LM's order), its
/// layers from `firstLayer` (advanced past them), whether it holds the embedding (the
/// first stage) and the final norm and head (the last; also a tied head when p > 1, as
/// Megatron keeps a copy of the shared embedding there), and g.parametersPerGpu.
[[gnu::always_inline]] inline StageShare planStage(const EstimateContext &x, int i, int &firstLayer,
                                                   GpuGroup &g)
{
    resetKeepingLabel(g);
    g.pipelineStage = i;
    g.firstRank = std::int64_t(i) * x.d * x.t * x.c;
    g.gpuCount = x.d * x.t * x.c;
    g.holdsEmbedding = i == 0;
    g.holdsOutputHead = i == x.p - 1;
    setLabel(g.label, x.p, g.gpuCount, i);
    StageShare share;
    if (!x.hasArch) {
        share.dense = x.prepared.parameters;
        g.parametersPerGpu = share.dense;
        return share;
    }
    const Architecture &a = *x.arch;
    g.firstLayer = firstLayer;
    const bool end = i == 0 || i == x.p - 1;
    g.layerCount = x.balanced ? (end ? x.balancedSlots - 1 : x.balancedSlots)
                              : x.layersPerStage + (i < x.extraLayers ? 1 : 0); // stageLayerCount
    firstLayer += g.layerCount;
    // MoE blocks of [firstLayer, firstLayer + layerCount), in closed form.
    share.blocks[1] = x.moe ? a.moeLayersIn(g.firstLayer, g.layerCount) : 0;
    share.blocks[0] = g.layerCount - share.blocks[1];
    for (int k = 0; k < 2; ++k) {
        share.dense += share.blocks[k] * x.kinds[k].perRank.dense;
        share.experts += share.blocks[k] * x.kinds[k].perRank.experts;
        if (share.blocks[k] > 0)
            share.unit = std::max(share.unit, x.kinds[k].perRank.total());
    }
    if (g.holdsEmbedding)
        share.dense += x.vocabPerRank + a.positionEmbeddings * a.hidden;
    if (g.holdsOutputHead) {
        share.dense += a.hidden * (a.layerNormBias ? 2 : 1);
        // Untied: the head. Tied with p > 1: Megatron keeps a copy of the shared
        // embedding on the last stage.
        if (!a.tiedEmbeddings || x.p > 1)
            share.dense += x.vocabPerRank;
    }
    if (g.holdsEmbedding || g.holdsOutputHead)
        share.unit = std::max(share.unit, x.vocabPerRank);
    g.parametersPerGpu = share.dense + share.experts;
    return share;
}

} // namespace shardscope::stages
