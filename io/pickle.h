#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

/// What a PickleNode holds: Python's None, bool, int, float, str, bytes, list, tuple or dict.
enum class PickleKind
{
    None,
    Bool,
    Int,
    Float,
    String,
    Bytes,
    List,
    Tuple,
    Dict
};

/// One value read from a pickle. Containers hold their children by index into
/// PickleDocument::nodes (a dict as key, value, key, value, ...), so a value the
/// pickle memoizes and fetches again (BINGET) is one node reached from several
/// parents: walk the graph by the keys you expect, never by unbounded recursion.
struct PickleNode
{
    PickleKind kind = PickleKind::None;
    bool boolean = false;            ///< Bool
    std::int64_t integer = 0;        ///< Int (pickle ints wider than 64 bits are refused)
    double real = 0;                 ///< Float
    std::string text;                ///< String (UTF-8 as written) or Bytes
    std::vector<std::uint32_t> kids; ///< List, Tuple: items; Dict: key, value, key, value, ...
    int depth = 0; ///< containers: 1 + the deepest child when it was added; scalars 0
};

/// The bounds readPickle() holds a pickle to; anything past one is refused with a
/// message naming the bound. The defaults admit a `torch.cuda.memory._dump_snapshot()`
/// of a long training run (hundreds of MiB, a few levels deep); a value takes about 90
/// bytes, so maxNodes keeps the graph under about 3 GiB whatever the input.
struct PickleLimits
{
    std::int64_t maxInputBytes = std::int64_t(256) * 1024 * 1024; ///< the whole pickle
    int maxDepth = 64;                              ///< nested containers (a snapshot needs 6)
    std::int64_t maxNodes = 32 * 1024 * 1024;       ///< values of any kind, and the stack
    std::int64_t maxMemo = 32 * 1024 * 1024;        ///< memo slots (PUT / MEMOIZE index)
    std::int64_t maxStringBytes = 16 * 1024 * 1024; ///< one str or bytes value
};

/// A pickle read into plain values: `nodes[root]` is what STOP returned.
struct PickleDocument
{
    std::vector<PickleNode> nodes;
    std::uint32_t root = 0;

    /// The node at `index` (an index from a container's kids or `root`).
    const PickleNode &at(std::uint32_t index) const { return nodes[index]; }
    /// Dict `dict`'s value for the str key `key` (the last one when repeated, as Python's
    /// dict keeps); nullptr when `dict` is not a dict or has no such key.
    const PickleNode *find(const PickleNode &dict, std::string_view key) const;
};

/// Reads a pickle of plain data (protocols 2 to 5, as Python's pickle.dump and
/// torch's C++ Pickler, torch/csrc/jit/serialization/pickler.cpp, write a memory
/// snapshot) without running anything. Read: PROTO, FRAME, STOP, MARK, EMPTY_DICT,
/// EMPTY_LIST, EMPTY_TUPLE, DICT, LIST, TUPLE, TUPLE1-3, SETITEM(S), APPEND(S), NONE,
/// NEWTRUE, NEWFALSE, BININT, BININT1, BININT2, LONG1 and LONG4 (up to 8 bytes, a
/// signed 64-bit int), BINFLOAT, SHORT_BINUNICODE, BINUNICODE(8), SHORT_BINBYTES,
/// BINBYTES(8), PUT, BINPUT, LONG_BINPUT, MEMOIZE, GET, BINGET, LONG_BINGET
/// (pickletools in CPython names and documents each).
///
/// Every other opcode is refused, never interpreted: GLOBAL, STACK_GLOBAL, INST, OBJ,
/// REDUCE, BUILD, NEWOBJ, NEWOBJ_EX, EXT1/2/4, PERSID and BINPERSID (which name or call
/// a Python object) with "byte N: refused opcode NAME (it names or calls a Python
/// object; ShardScope never runs code from a pickle)", any other with "byte N: opcode
/// NAME is not read (...)". Also refused, each in one line naming the byte offset:
/// truncated input, a missing STOP, bytes after STOP, an unknown opcode, a stack or
/// MARK underflow, a GET of an unset memo slot, and any bound of `limits` passed.
/// Returns nullopt and sets `*error` on failure.
std::optional<PickleDocument> readPickle(std::string_view bytes, QString *error,
                                         const PickleLimits &limits = {});

} // namespace shardscope
