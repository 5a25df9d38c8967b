#pragma once

// Integer arithmetic for the engine's hot path. Parallel degrees are almost always powers
// of two, and a shift is several times cheaper than the division instruction; each
// division returns exactly what the built-in operator returns. Checked is exact 64-bit
// arithmetic that reports an overflow instead of wrapping.

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

/// Exact int64 arithmetic that remembers whether anything overflowed: a product or sum
/// stops at the first step that overflows, sets `overflow` and gives 0 (the engine's
/// byte counts, which are refused past 1 EB rather than wrapped).
struct Checked
{
    bool overflow = false;

    /// first x factors[0] x factors[1] x ..., or 0 with `overflow` set.
    template <typename First, typename... Factors>
    std::int64_t product(First first, Factors... factors)
    {
        std::int64_t r = std::int64_t(first);
        if ((true && ... && !__builtin_mul_overflow(r, std::int64_t(factors), &r)))
            return r;
        overflow = true;
        return 0;
    }

    /// first + terms[0] + terms[1] + ..., or 0 with `overflow` set.
    template <typename First, typename... Terms> std::int64_t sum(First first, Terms... terms)
    {
        std::int64_t r = std::int64_t(first);
        if ((true && ... && !__builtin_add_overflow(r, std::int64_t(terms), &r)))
            return r;
        overflow = true;
        return 0;
    }
};

} // namespace shardscope
