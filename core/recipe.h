#pragma once

#include <cstdint>
#include <string>

namespace shardscope {

/// Bytes each parameter costs in training, by model state.
///
/// Follows the ZeRO paper's accounting (Rajbhandari et al. SC 2020,
/// arXiv:1910.02054, section 3.1): mixed-precision Adam is 2 (bf16 weights) +
/// 2 (bf16 gradients) + 4 (fp32 master weights) + 8 (fp32 Adam m and v) = 16.
/// Presets live in resources/recipes.json; every field stays editable.
struct Recipe
{
    std::string id;                     ///< e.g. "mixed-adam"
    std::string displayName;            ///< e.g. "Mixed-precision AdamW (16 B/param)"
    std::string source;                 ///< paper or code the numbers follow
    std::int64_t weightBytes = 2;       ///< working weights (bf16: 2, fp32: 4)
    std::int64_t gradientBytes = 2;     ///< gradients (bf16: 2, fp32 accumulation: 4)
    std::int64_t masterWeightBytes = 4; ///< fp32 master copy (0 without one)
    std::int64_t optimizerBytes = 8;    ///< all optimizer moments together (Adam fp32: 4 + 4)

    /// weights + gradients + master weights + optimizer states, bytes / parameter.
    std::int64_t totalBytesPerParameter() const
    {
        return weightBytes + gradientBytes + masterWeightBytes + optimizerBytes;
    }
};

/// Empty when every field is in 0..64 bytes and the total is positive; else a reason.
std::string validateRecipe(const Recipe &r);

} // namespace shardscope
