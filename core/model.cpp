#include "model.h"

#include <algorithm>
#include <cmath>

namespace shardscope {

std::int64_t Architecture::effectiveHeadDim() const
{
    if (headDim > 0)
        return headDim;
    return heads > 0 ? hidden / heads : 0;
}

std::int64_t layerParameterCount(const Architecture &a)
{
    const std::int64_t h = a.hidden;
    const std::int64_t hd = a.effectiveHeadDim();
    const std::int64_t q = std::int64_t(a.heads) * hd;
    const std::int64_t kv = std::int64_t(a.kvHeads) * hd;
    // Attention: Q (h x q), K and V (h x kv each), output projection (q x h).
    std::int64_t attention = h * q + 2 * h * kv + q * h;
    // MLP: gate + up + down (gated) or up + down (plain).
    std::int64_t mlp = (a.gatedMlp ? 3 : 2) * h * a.ffn;
    if (a.linearBiases) {
        attention += q + 2 * kv + h;
        mlp += (a.gatedMlp ? 2 : 1) * a.ffn + h;
    }
    // Two norms per block: weight (+ bias for LayerNorm).
    const std::int64_t norms = 2 * h * (a.layerNormBias ? 2 : 1);
    return attention + mlp + norms;
}

std::int64_t nonLayerParameterCount(const Architecture &a)
{
    const std::int64_t embedding = a.vocab * a.hidden;
    const std::int64_t finalNorm = a.hidden * (a.layerNormBias ? 2 : 1);
    const std::int64_t head = a.tiedEmbeddings ? 0 : a.vocab * a.hidden;
    return embedding + finalNorm + head;
}

std::int64_t parameterCount(const Architecture &a)
{
    return std::int64_t(a.layers) * layerParameterCount(a) + nonLayerParameterCount(a);
}

std::string validateArchitecture(const Architecture &a)
{
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
        return "heads (" + std::to_string(a.heads) + ") is not divisible by kv heads (" +
               std::to_string(a.kvHeads) + ")";
    if (a.headDim == 0 && a.hidden % a.heads != 0)
        return "hidden (" + std::to_string(a.hidden) + ") is not divisible by heads (" +
               std::to_string(a.heads) + ")";
    // Largest supported model is far below this; it guards the int64 arithmetic.
    if (a.hidden > 1'000'000 || a.ffn > 10'000'000 || a.vocab > 100'000'000 || a.layers > 100'000)
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

} // namespace shardscope
