#pragma once

// A drawn value of a settings-table row (core/settings.h), shared by the tests that
// set random table rows through applySettings(): tests/core/test_equivalence.cpp and
// tests/app/test_commandline.cpp.

#include "settings.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace shardscope::test {

/// A value of table setting `s`: a choice or an allowed value at random, a switch either
/// way, an integer at an edge of its range, near `current`, or anywhere in a decade of
/// the range (the range spans up to 1e18). `Draw` maps a seeded std::mt19937_64 to
/// ranges: below(n) in [0, n) and oneIn(n) true once in n. The order and number of the
/// draws are fixed: test_equivalence's recorded digest depends on them.
template <typename Draw>
std::int64_t drawSettingValue(const Setting &s, std::int64_t current, Draw &d)
{
    switch (s.kind) {
    case SettingKind::Boolean:
        return std::int64_t(d.below(2));
    case SettingKind::Choice:
        return std::int64_t(d.below(s.choices.size()));
    case SettingKind::Integer:
        break;
    }
    if (!s.choices.empty())
        return std::stoll(std::string(s.choices[d.below(s.choices.size())]));
    const std::uint64_t span = std::uint64_t(s.max - s.min);
    switch (d.below(8)) {
    case 0:
        return s.min;
    case 1:
        return s.max;
    case 6:
    case 7:
        return current;
    case 2:
        return current > s.min && current < s.max ? current + (d.oneIn(2) ? 1 : -1) : s.min;
    case 3:
        return s.min + std::int64_t(d.below(std::min<std::uint64_t>(span, 16) + 1));
    default: {
        // A decade of the range: 10^k wide for k drawn up to the span's own size.
        std::uint64_t width = 1;
        const int decades = int(d.below(19));
        for (int k = 0; k < decades && width <= span / 10; ++k)
            width *= 10;
        return s.min + std::int64_t(d.below(std::min(width, span) + 1));
    }
    }
}

} // namespace shardscope::test
