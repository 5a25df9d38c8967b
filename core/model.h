#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace shardscope {

/// Shape of a dense decoder-only transformer (Llama / Mistral / GPT family).
///
/// Every size is a count of elements, not bytes. `headDim` of 0 means
/// hidden / heads. `gatedMlp` selects a SwiGLU-style MLP with three matrices
/// (gate, up, down) instead of the two of a plain GELU MLP. Norms are RMSNorm
/// (one weight vector, no bias) unless `layerNormBias` is set.
struct Architecture
{
    int layers = 0;              ///< L, number of transformer blocks
    std::int64_t hidden = 0;     ///< h, model width
    std::int64_t ffn = 0;        ///< MLP inner size (4h for GPT, ~8h/3 for SwiGLU)
    int heads = 0;               ///< a, attention (query) heads
    int kvHeads = 0;             ///< key/value heads (== heads for MHA, fewer for GQA)
    std::int64_t vocab = 0;      ///< V, vocabulary size
    std::int64_t headDim = 0;    ///< per-head size; 0 means hidden / heads
    bool tiedEmbeddings = false; ///< output head shares the token-embedding matrix
    bool gatedMlp = true;        ///< SwiGLU (3 matrices) or plain GELU MLP (2 matrices)
    bool linearBiases = false;   ///< GPT-style biases on every linear layer
    bool layerNormBias = false;  ///< LayerNorm (weight + bias) instead of RMSNorm

    /// Per-head size in elements: `headDim`, or hidden / heads when unset.
    std::int64_t effectiveHeadDim() const;
};

/// Parameters of one transformer block (attention + MLP + its two norms).
std::int64_t layerParameterCount(const Architecture &a);

/// Parameters outside the blocks: token embedding, final norm and (when untied)
/// the output head. Learned position embeddings are not modelled (RoPE).
std::int64_t nonLayerParameterCount(const Architecture &a);

/// Exact parameter count of the architecture:
/// L * layer + V h (embedding) + h (final norm) + V h (untied head).
/// Reproduces the published Llama 2/3/3.1 and Mistral counts to the parameter
/// (tests/core/test_model.cpp; ../docs/architecture.md "Parameter count").
std::int64_t parameterCount(const Architecture &a);

/// Checks an architecture; returns an empty string when valid, else a one-line
/// reason (for example "heads (10) is not divisible by kv heads (4)").
std::string validateArchitecture(const Architecture &a);

/// A Llama-style architecture whose parameter count is close to `targetParameters`.
///
/// Width follows the Llama family's aspect ratio (layers ~ hidden / 128), so
/// params ~ 12 h^3 / 128: h = cbrt(params * 128 / 12) rounded to a multiple of
/// 128, 128-wide heads, grouped-query attention with 8 KV heads once there are
/// 8 or more heads, SwiGLU with ffn = 8h/3 rounded up to 256, untied 32,000-token
/// vocabulary. Layers are then chosen so the exact count is nearest the target.
/// The result is a plausible shape, not a published model.
Architecture scaledArchitecture(std::int64_t targetParameters);

/// A model: either an architecture (exact count derived from it) or a plain count.
struct Model
{
    std::string id;          ///< machine name, e.g. "llama3-70b"
    std::string displayName; ///< e.g. "Llama 3 70B"
    std::string source;      ///< where the shape comes from
    std::optional<Architecture> architecture;
    std::int64_t plainParameters = 0; ///< used when there is no architecture

    /// Total parameters: parameterCount(*architecture), else plainParameters.
    std::int64_t parameters() const;
};

} // namespace shardscope
