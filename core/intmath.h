#pragma once

// Integer division for the engine's hot path. Parallel degrees are almost always powers
// of two, and a shift is several times cheaper than the division instruction; each
// function returns exactly what the built-in operator returns.

#include <bit>
#include <cstdint>

namespace shardscope {

/// a / b truncated toward zero, exactly as the `/` operator gives it, for b > 0: a
/// shift when a >= 0 and b is a power of two, else the division instruction.
constexpr std::int64_t quotient(std::int64_t a, std::int64_t b)
{
    if (a >= 0 && b > 0 && (b & (b - 1)) == 0)
        return a >> std::countr_zero(static_cast<std::uint64_t>(b));
    return a / b;
}

/// a % b, exactly as the `%` operator gives it, for b > 0: a mask when a >= 0 and b is a
/// power of two, else the division instruction.
constexpr std::int64_t remainder(std::int64_t a, std::int64_t b)
{
    if (a >= 0 && b > 0 && (b & (b - 1)) == 0)
        return a & (b - 1);
    return a % b;
}

} // namespace shardscope
