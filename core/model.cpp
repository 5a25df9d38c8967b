#include "model.h"

#include "intmath.h"

#include <algorithm>
#include <cmath>

namespace shardscope {

std::int64_t Architecture::effectiveHeadDim() const
{
    if (headDim > 0)
        return headDim;
    return heads > 0 ? quotient(hidden, heads) : 0;
}

std::int64_t Architecture::queryWidth() const
{
    if (usesLatentAttention())
        return std::int64_t(heads) * (qkNopeHeadDim + qkRopeHeadDim);
    return std::int64_t(heads) * effectiveHeadDim();
}

std::int64_t Architecture::keyWidth() const
{
    if (usesLatentAttention())
        return std::int64_t(heads) * (qkNopeHeadDim + qkRopeHeadDim);
    return std::int64_t(kvHeads) * effectiveHeadDim();
}

std::int64_t Architecture::valueWidth() const
{
    if (usesLatentAttention())
        return std::int64_t(heads) * vHeadDim;
    return std::int64_t(kvHeads) * effectiveHeadDim();
}

namespace {

/// Attention of one block: projections and their biases (no norms outside MLA).
std::int64_t attentionParameters(const Architecture &a)
{
    const std::int64_t h = a.hidden;
    if (a.usesLatentAttention()) {
        // DeepSeek MLA (transformers DeepseekV3Attention): q_a_proj h x rq, q_a_layernorm rq,
        // q_b_proj rq x a (nope + rope) (or one q_proj h x a (nope + rope) without rq);
        // kv_a_proj_with_mqa h x (rkv + rope), kv_a_layernorm rkv,
        // kv_b_proj rkv x a (nope + v); o_proj a v x h. No biases (attention_bias false).
        const std::int64_t q = a.queryWidth();
        const std::int64_t query =
            a.qLoraRank > 0 ? h * a.qLoraRank + a.qLoraRank + a.qLoraRank * q : h * q;
        const std::int64_t keyValue = h * (a.kvLoraRank + a.qkRopeHeadDim) + a.kvLoraRank +
                                      a.kvLoraRank * a.heads * (a.qkNopeHeadDim + a.vHeadDim);
        return query + keyValue + a.valueWidth() * h;
    }
    const std::int64_t q = a.queryWidth();
    const std::int64_t kv = a.keyWidth();
    // Q (h x q), K and V (h x kv each), output projection (q x h).
    std::int64_t attention = h * q + 2 * h * kv + q * h;
    if (a.linearBiases)
        attention += q + 2 * kv + h;
    else if (a.qkvBiases)
        attention += q + 2 * kv;
    return attention;
}

/// One MLP `f` wide: gate + up + down (gated) or up + down (plain), plus biases.
std::int64_t mlpParameters(const Architecture &a, std::int64_t f)
{
    const std::int64_t h = a.hidden;
    std::int64_t mlp = (a.gatedMlp ? 3 : 2) * h * f;
    if (a.linearBiases)
        mlp += (a.gatedMlp ? 2 : 1) * f + h;
    return mlp;
}

/// The norms of one block: weight (+ bias for LayerNorm) each.
std::int64_t normParameters(const Architecture &a)
{
    return std::int64_t(a.normsPerLayer) * a.hidden * (a.layerNormBias ? 2 : 1);
}

/// One block with `routed` of its routed experts counted.
std::int64_t blockParameters(const Architecture &a, int layer, std::int64_t routed)
{
    const std::int64_t common =
        attentionParameters(a) + qkNormParameterCount(a) + normParameters(a);
    if (!a.isMoeLayer(layer))
        return common + mlpParameters(a, a.ffn);
    // Router: a linear h -> experts without bias, plus the optional per-expert
    // correction bias; shared experts are one MLP each of the expert size.
    const std::int64_t router = a.hidden * a.experts + (a.routerBias ? a.experts : 0);
    return common + router + (routed + a.sharedExperts) * expertParameterCount(a);
}

template <typename PerLayer> std::int64_t sumOverLayers(const Architecture &a, PerLayer perLayer)
{
    // Blocks come in at most two kinds, dense and MoE, in any interleaving
    // (Architecture::isMoeLayer): count each kind once. Block 0 is dense whenever any is
    // (the dense prefix, or the first block of a step).
    const int moe = a.moeLayerCount();
    const int dense = a.layers - moe;
    std::int64_t total = 0;
    if (dense > 0)
        total += std::int64_t(dense) * perLayer(0);
    if (moe > 0)
        total += std::int64_t(moe) * perLayer(a.firstMoeLayer());
    return total;
}

} // namespace

std::int64_t qkNormParameterCount(const Architecture &a)
{
    switch (a.qkNorm) {
    case QkNorm::PerHead:
        return 2 * a.effectiveHeadDim();
    case QkNorm::Full:
        return a.queryWidth() + a.keyWidth();
    case QkNorm::None:
        break;
    }
    return 0;
}

std::int64_t expertParameterCount(const Architecture &a)
{
    return a.isMoe() ? mlpParameters(a, a.effectiveExpertFfn()) : 0;
}

std::int64_t layerParameterCount(const Architecture &a, int layer)
{
    return blockParameters(a, layer, a.experts);
}

std::int64_t activeLayerParameterCount(const Architecture &a, int layer)
{
    return blockParameters(a, layer, a.activeExperts);
}

std::int64_t nonLayerParameterCount(const Architecture &a)
{
    const std::int64_t embedding = a.vocab * a.hidden;
    const std::int64_t positions = a.positionEmbeddings * a.hidden;
    const std::int64_t finalNorm = a.hidden * (a.layerNormBias ? 2 : 1);
    const std::int64_t head = a.tiedEmbeddings ? 0 : a.vocab * a.hidden;
    return embedding + positions + finalNorm + head;
}

namespace {

/// The linear layers of a dense block with ordinary attention, in LoraTarget bit order:
/// {in, out} for q, k, v, o, gate, up, down (gate {0, 0} in a plain MLP).
struct Linear
{
    std::int64_t in = 0, out = 0;
};
void denseLinears(const Architecture &a, Linear (&m)[7])
{
    const std::int64_t h = a.hidden, q = a.queryWidth();
    m[0] = {h, q};
    m[1] = {h, a.keyWidth()};
    m[2] = {h, a.valueWidth()};
    m[3] = {q, h};
    m[4] = a.gatedMlp ? Linear{h, a.ffn} : Linear{};
    m[5] = {h, a.ffn};
    m[6] = {a.ffn, h};
}

/// Calls `visit(k, linear)` for each linear layer of `a`'s dense block that LoRA targets
/// `targets` adapt (bit k of the LoraTarget mask), in bit order; absent layers (a plain
/// MLP's gate) are passed over.
template <typename Visit> void forEachTargeted(const Architecture &a, int targets, Visit visit)
{
    Linear m[7];
    denseLinears(a, m);
    for (int k = 0; k < 7; ++k)
        if ((targets & (1 << k)) && m[k].in > 0)
            visit(k, m[k]);
}

} // namespace

std::int64_t loraLayerParameterCount(const Architecture &a, int rank, int targets,
                                     std::int64_t minMatrixElements)
{
    std::int64_t n = 0;
    forEachTargeted(a, targets, [&](int, const Linear &l) {
        for (const std::int64_t side : {l.in, l.out}) // lora_A r x in, lora_B out x r
            if (std::int64_t(rank) * side >= minMatrixElements)
                n += std::int64_t(rank) * side;
    });
    return n;
}

std::int64_t loraRankLimit(const Architecture &a, int targets, const char **name)
{
    static constexpr const char *names[7] = {"q", "k", "v", "o", "gate", "up", "down"};
    std::int64_t limit = 0;
    forEachTargeted(a, targets, [&](int k, const Linear &l) {
        const std::int64_t narrow = std::min(l.in, l.out);
        if (limit == 0 || narrow < limit) {
            limit = narrow;
            if (name)
                *name = names[k];
        }
    });
    return limit;
}

std::int64_t loraInputElements(const Architecture &a, int targets)
{
    std::int64_t n = 0;
    forEachTargeted(a, targets, [&](int, const Linear &l) { n += l.in; });
    return n;
}

std::int64_t largestLinearElements(const Architecture &a)
{
    Linear m[7];
    denseLinears(a, m);
    std::int64_t largest = 0;
    for (const Linear &l : m)
        largest = std::max(largest, l.in * l.out);
    return largest;
}

FrozenBlock frozenBlock(const Architecture &a, BaseFormat format)
{
    Linear m[7];
    denseLinears(a, m);
    FrozenBlock b;
    for (const Linear &l : m) {
        b.linearElements += l.in * l.out;
        b.linearBytes += frozenMatrixBytes(format, l.in * l.out, l.out);
    }
    return b;
}

std::int64_t parameterCount(const Architecture &a)
{
    return sumOverLayers(a, [&a](int l) { return layerParameterCount(a, l); }) +
           nonLayerParameterCount(a);
}

std::int64_t activeParameterCount(const Architecture &a)
{
    return sumOverLayers(a, [&a](int l) { return activeLayerParameterCount(a, l); }) +
           nonLayerParameterCount(a);
}

std::string validateArchitecture(const Architecture &a)
{
    auto str = [](std::int64_t v) { return std::to_string(v); };
    if (a.layers <= 0)
        return "layers must be at least 1";
    if (a.hidden <= 0)
        return "hidden size must be at least 1";
    if (a.ffn <= 0)
        return "ffn size must be at least 1";
    if (a.heads <= 0)
        return "attention heads must be at least 1";
    if (a.kvHeads <= 0)
        return "kv heads must be at least 1";
    if (a.vocab <= 0)
        return "vocabulary size must be at least 1";
    if (a.heads % a.kvHeads != 0)
        return "heads (" + str(a.heads) + ") is not divisible by kv heads (" + str(a.kvHeads) + ")";
    if (a.headDim == 0 && !a.usesLatentAttention() && a.hidden % a.heads != 0)
        return "hidden (" + str(a.hidden) + ") is not divisible by heads (" + str(a.heads) + ")";
    if (a.headDim < 0 || a.positionEmbeddings < 0 || a.expertFfn < 0)
        return "sizes must not be negative";
    if (a.normsPerLayer < 1 || a.normsPerLayer > 8)
        return "norms per layer must be between 1 and 8 (got " + str(a.normsPerLayer) + ")";
    // Largest supported model is far below this; it guards the int64 arithmetic.
    if (a.hidden > 1'000'000 || a.ffn > 10'000'000 || a.vocab > 100'000'000 || a.layers > 100'000 ||
        a.headDim > 100'000 || a.positionEmbeddings > 100'000'000 || a.expertFfn > 10'000'000)
        return "architecture is too large to be a real model";
    if (a.experts < 0 || a.activeExperts < 0 || a.sharedExperts < 0 || a.denseLayers < 0)
        return "expert counts must not be negative";
    if (a.moeLayerStep < 1 || a.moeLayerStep > 100'000)
        return "MoE layer step must be between 1 and 100000 (got " + str(a.moeLayerStep) + ")";
    if (!a.isMoe()) {
        if (a.activeExperts > 0 || a.sharedExperts > 0 || a.denseLayers > 0 || a.expertFfn > 0 ||
            a.routerBias || a.moeLayerStep > 1)
            return "expert settings need routed experts (experts is 0)";
    } else {
        if (a.experts > 100'000 || a.sharedExperts > 100'000)
            return "architecture is too large to be a real model";
        if (a.activeExperts < 1 || a.activeExperts > a.experts)
            return "active experts must be between 1 and experts (" + str(a.experts) + "), got " +
                   str(a.activeExperts);
        if (a.denseLayers >= a.layers)
            return "dense layers (" + str(a.denseLayers) + ") leave no MoE layer of " +
                   str(a.layers);
        if (a.moeLayerCount() < 1)
            return "MoE layer step " + str(a.moeLayerStep) + " after " + str(a.denseLayers) +
                   " dense layers leaves no MoE layer of " + str(a.layers);
    }
    const std::int64_t mla[] = {a.qLoraRank, a.qkRopeHeadDim, a.qkNopeHeadDim, a.vHeadDim};
    for (std::int64_t v : mla)
        if (v < 0 || v > 100'000 || a.kvLoraRank < 0 || a.kvLoraRank > 100'000)
            return "latent attention sizes must be between 0 and 100000";
    if (!a.usesLatentAttention()) {
        if (a.qLoraRank > 0 || a.qkRopeHeadDim > 0 || a.qkNopeHeadDim > 0 || a.vHeadDim > 0)
            return "latent attention sizes need a kv lora rank (kv_lora_rank is 0)";
    } else {
        if (a.qkNopeHeadDim + a.qkRopeHeadDim <= 0 || a.vHeadDim <= 0)
            return "latent attention needs a query/key head size and a value head size";
        if (a.kvHeads != a.heads)
            return "latent attention has one key/value head per query head (kv heads " +
                   str(a.kvHeads) + ", heads " + str(a.heads) + ")";
        if (a.linearBiases || a.qkvBiases)
            return "biases on latent attention are not modelled";
    }
    if (a.qkNorm != QkNorm::None && a.qkNorm != QkNorm::PerHead && a.qkNorm != QkNorm::Full)
        return "unknown query/key norm kind";
    if (a.qkNorm != QkNorm::None && a.usesLatentAttention())
        return "query/key norms on latent attention are not modelled";
    // Every field is capped above, but products of caps (a MoE block's experts times
    // their matrices, times the layers) can exceed int64: bound the count in floating
    // point before anything computes it exactly (the largest real model is ~1e13).
    const double h = double(a.hidden);
    const double width = double(std::max<std::int64_t>(a.heads, 1)) *
                         double(std::max({a.effectiveHeadDim(), a.qkNopeHeadDim + a.qkRopeHeadDim,
                                          a.vHeadDim, std::int64_t(1)}));
    const double latent = double(a.qLoraRank + a.kvLoraRank + a.qkRopeHeadDim);
    const double attention =
        4 * h * width + 2 * latent * (h + width) + (a.qkNorm != QkNorm::None ? 2 * width : 0);
    const double mlp =
        3 * h * double(a.ffn) +
        (double(a.experts) + a.sharedExperts) * 3 * h * double(a.effectiveExpertFfn()) +
        h * a.experts;
    const double bound = double(a.layers) * (attention + mlp + 16 * h) +
                         (2 * double(a.vocab) + double(a.positionEmbeddings) + 2) * h;
    if (bound > 1e17)
        return "architecture is too large to be a real model";
    return {};
}

Architecture scaledArchitecture(std::int64_t targetParameters)
{
    const double target = std::max<double>(double(targetParameters), 1e6);
    Architecture a;
    a.vocab = 32000;
    a.tiedEmbeddings = false;
    a.gatedMlp = true;
    const double width = std::cbrt(target * 128.0 / 12.0);
    a.hidden = std::max<std::int64_t>(128, std::llround(width / 128.0) * 128);
    a.heads = int(a.hidden / 128);
    a.kvHeads = a.heads >= 8 ? 8 : a.heads;
    while (a.heads % a.kvHeads != 0)
        --a.kvHeads;
    const std::int64_t rawFfn = (8 * a.hidden + 2) / 3;
    a.ffn = (rawFfn + 255) / 256 * 256;
    a.layers = 1;
    const double perLayer = double(layerParameterCount(a));
    const double rest = target - double(nonLayerParameterCount(a));
    a.layers = int(std::clamp<double>(std::round(rest / perLayer), 1.0, 100000.0));
    return a;
}

std::int64_t Model::parameters() const
{
    return architecture ? parameterCount(*architecture) : plainParameters;
}

std::int64_t Model::activeParameters() const
{
    return architecture ? activeParameterCount(*architecture) : plainParameters;
}

} // namespace shardscope
