#pragma once

// Naming tables for the engine's enums: each enum's command-line / JSON id, display name
// and accepted alternative spellings are one row of data, read by three generic lookups,
// instead of a switch per direction.

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace shardscope {

/// One value of enum `E` with its names: `id` (command line, JSON, settings files),
/// `name` (display; empty where the enum has none) and up to four `aliases` the parser
/// also accepts (empty entries are unused).
template <typename E> struct EnumRow
{
    E value;
    std::string_view id;
    std::string_view name = {};
    std::array<std::string_view, 4> aliases = {};
};

/// A naming table: one row per value, in the enum's order.
template <typename E, std::size_t N> using EnumTable = std::array<EnumRow<E>, N>;

/// The row of `value` in `table`, or nullptr for a value outside it (a cast integer).
template <typename E, std::size_t N>
constexpr const EnumRow<E> *findRow(const EnumTable<E, N> &table, E value)
{
    for (const EnumRow<E> &r : table)
        if (r.value == value)
            return &r;
    return nullptr;
}

/// `value`'s id, or `fallback` for a value outside the table.
template <typename E, std::size_t N>
constexpr std::string_view enumId(const EnumTable<E, N> &table, E value,
                                  std::string_view fallback = {})
{
    const EnumRow<E> *r = findRow(table, value);
    return r ? r->id : fallback;
}

/// `value`'s display name, or `fallback` for a value outside the table.
template <typename E, std::size_t N>
constexpr std::string_view enumName(const EnumTable<E, N> &table, E value,
                                    std::string_view fallback = {})
{
    const EnumRow<E> *r = findRow(table, value);
    return r ? r->name : fallback;
}

/// The value whose id or one of whose aliases is exactly `text` (case-sensitive);
/// std::nullopt for any other text, the empty text included.
template <typename E, std::size_t N>
constexpr std::optional<E> parseEnum(const EnumTable<E, N> &table, std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    for (const EnumRow<E> &r : table) {
        if (r.id == text)
            return r.value;
        for (std::string_view a : r.aliases)
            if (a == text)
                return r.value;
    }
    return std::nullopt;
}

} // namespace shardscope
