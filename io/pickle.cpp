#include "pickle.h"

#include <cstring>
#include <limits>

namespace shardscope {

namespace {

/// Opcode bytes, as CPython's Lib/pickle.py and pickletools.py name them.
enum Op : unsigned char
{
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    FLOAT = 'F',
    INT = 'I',
    BININT = 'J',
    BININT1 = 'K',
    LONG = 'L',
    BININT2 = 'M',
    NONE = 'N',
    PERSID = 'P',
    BINPERSID = 'Q',
    REDUCE = 'R',
    STRING = 'S',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    UNICODE = 'V',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    GET = 'g',
    BINGET = 'h',
    INST = 'i',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    OBJ = 'o',
    PUT = 'p',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    EXT1 = 0x82,
    EXT2 = 0x83,
    EXT4 = 0x84,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    NEWOBJ_EX = 0x92,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
    NEXT_BUFFER = 0x97,
    READONLY_BUFFER = 0x98
};

/// The opcode's pickletools name, or nullptr for a byte that is no opcode.
const char *opName(unsigned char op)
{
    struct Named
    {
        unsigned char op;
        const char *name;
    };
    static constexpr Named names[] = {{MARK, "MARK"},
                                      {STOP, "STOP"},
                                      {POP, "POP"},
                                      {POP_MARK, "POP_MARK"},
                                      {DUP, "DUP"},
                                      {FLOAT, "FLOAT"},
                                      {INT, "INT"},
                                      {BININT, "BININT"},
                                      {BININT1, "BININT1"},
                                      {LONG, "LONG"},
                                      {BININT2, "BININT2"},
                                      {NONE, "NONE"},
                                      {PERSID, "PERSID"},
                                      {BINPERSID, "BINPERSID"},
                                      {REDUCE, "REDUCE"},
                                      {STRING, "STRING"},
                                      {BINSTRING, "BINSTRING"},
                                      {SHORT_BINSTRING, "SHORT_BINSTRING"},
                                      {UNICODE, "UNICODE"},
                                      {BINUNICODE, "BINUNICODE"},
                                      {APPEND, "APPEND"},
                                      {BUILD, "BUILD"},
                                      {GLOBAL, "GLOBAL"},
                                      {DICT, "DICT"},
                                      {EMPTY_DICT, "EMPTY_DICT"},
                                      {APPENDS, "APPENDS"},
                                      {GET, "GET"},
                                      {BINGET, "BINGET"},
                                      {INST, "INST"},
                                      {LONG_BINGET, "LONG_BINGET"},
                                      {LIST, "LIST"},
                                      {EMPTY_LIST, "EMPTY_LIST"},
                                      {OBJ, "OBJ"},
                                      {PUT, "PUT"},
                                      {BINPUT, "BINPUT"},
                                      {LONG_BINPUT, "LONG_BINPUT"},
                                      {SETITEM, "SETITEM"},
                                      {TUPLE, "TUPLE"},
                                      {EMPTY_TUPLE, "EMPTY_TUPLE"},
                                      {SETITEMS, "SETITEMS"},
                                      {BINFLOAT, "BINFLOAT"},
                                      {PROTO, "PROTO"},
                                      {NEWOBJ, "NEWOBJ"},
                                      {EXT1, "EXT1"},
                                      {EXT2, "EXT2"},
                                      {EXT4, "EXT4"},
                                      {TUPLE1, "TUPLE1"},
                                      {TUPLE2, "TUPLE2"},
                                      {TUPLE3, "TUPLE3"},
                                      {NEWTRUE, "NEWTRUE"},
                                      {NEWFALSE, "NEWFALSE"},
                                      {LONG1, "LONG1"},
                                      {LONG4, "LONG4"},
                                      {BINBYTES, "BINBYTES"},
                                      {SHORT_BINBYTES, "SHORT_BINBYTES"},
                                      {SHORT_BINUNICODE, "SHORT_BINUNICODE"},
                                      {BINUNICODE8, "BINUNICODE8"},
                                      {BINBYTES8, "BINBYTES8"},
                                      {EMPTY_SET, "EMPTY_SET"},
                                      {ADDITEMS, "ADDITEMS"},
                                      {FROZENSET, "FROZENSET"},
                                      {NEWOBJ_EX, "NEWOBJ_EX"},
                                      {STACK_GLOBAL, "STACK_GLOBAL"},
                                      {MEMOIZE, "MEMOIZE"},
                                      {FRAME, "FRAME"},
                                      {BYTEARRAY8, "BYTEARRAY8"},
                                      {NEXT_BUFFER, "NEXT_BUFFER"},
                                      {READONLY_BUFFER, "READONLY_BUFFER"}};
    for (const Named &n : names)
        if (n.op == op)
            return n.name;
    return nullptr;
}

/// True for the opcodes that import, call or construct a Python object.
bool namesOrCalls(unsigned char op)
{
    switch (op) {
    case GLOBAL:
    case STACK_GLOBAL:
    case INST:
    case OBJ:
    case REDUCE:
    case BUILD:
    case NEWOBJ:
    case NEWOBJ_EX:
    case EXT1:
    case EXT2:
    case EXT4:
    case PERSID:
    case BINPERSID:
        return true;
    default:
        return false;
    }
}

/// The stack machine: one pass over the bytes, no recursion.
class Reader
{
public:
    Reader(std::string_view bytes, const PickleLimits &limits) : m_in(bytes), m_limits(limits) {}

    std::optional<PickleDocument> run(QString *error)
    {
        if (std::int64_t(m_in.size()) > m_limits.maxInputBytes)
            return fail(error, 0,
                        QStringLiteral("larger than the %1 bytes a pickle may hold (%2 bytes)")
                            .arg(m_limits.maxInputBytes)
                            .arg(m_in.size()));
        while (true) {
            if (m_pos >= m_in.size())
                return fail(error, m_pos, QStringLiteral("ends before STOP (truncated)"));
            const std::size_t at = m_pos;
            const unsigned char op = static_cast<unsigned char>(m_in[m_pos++]);
            if (op == STOP) {
                if (m_stack.size() != 1 || !m_marks.empty())
                    return fail(error, at,
                                QStringLiteral("STOP with %1 values and %2 marks on the stack "
                                               "(expected one value)")
                                    .arg(m_stack.size())
                                    .arg(m_marks.size()));
                if (m_pos != m_in.size())
                    return fail(error, m_pos,
                                QStringLiteral("%1 bytes after STOP").arg(m_in.size() - m_pos));
                m_doc.root = m_stack.back();
                return std::move(m_doc);
            }
            if (!step(op, at))
                return fail(error, m_errorAt, m_error);
        }
    }

private:
    std::optional<PickleDocument> fail(QString *error, std::size_t at, const QString &why)
    {
        if (error)
            *error = QStringLiteral("byte %1: %2").arg(at).arg(why);
        return std::nullopt;
    }

    bool bad(std::size_t at, const QString &why)
    {
        m_errorAt = at;
        m_error = why;
        return false;
    }

    bool take(std::size_t n, std::size_t at, const char **p)
    {
        if (n > m_in.size() - m_pos)
            return bad(at, QStringLiteral("ends inside its argument (truncated)"));
        *p = m_in.data() + m_pos;
        m_pos += n;
        return true;
    }

    bool readUnsigned(std::size_t n, std::size_t at, std::uint64_t *v)
    {
        const char *p = nullptr;
        if (!take(n, at, &p))
            return false;
        *v = 0;
        for (std::size_t i = 0; i < n; ++i)
            *v |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
        return true;
    }

    /// A text line argument (GET, PUT): digits up to '\n', at most 20 of them.
    bool readDecimalLine(std::size_t at, std::uint64_t *v)
    {
        *v = 0;
        int digits = 0;
        while (m_pos < m_in.size() && m_in[m_pos] != '\n') {
            const char c = m_in[m_pos++];
            if (c < '0' || c > '9' || ++digits > 18)
                return bad(at, QStringLiteral("memo index is not a decimal number"));
            *v = *v * 10 + std::uint64_t(c - '0');
        }
        if (m_pos >= m_in.size() || digits == 0)
            return bad(at, QStringLiteral("ends inside its argument (truncated)"));
        ++m_pos; // the newline
        return true;
    }

    bool push(PickleNode node, std::size_t at)
    {
        if (std::int64_t(m_doc.nodes.size()) >= m_limits.maxNodes)
            return bad(at, QStringLiteral("more than %1 values").arg(m_limits.maxNodes));
        m_doc.nodes.push_back(std::move(node));
        return pushRef(std::uint32_t(m_doc.nodes.size() - 1), at);
    }

    bool pushRef(std::uint32_t index, std::size_t at)
    {
        if (std::int64_t(m_stack.size()) >= m_limits.maxNodes)
            return bad(at,
                       QStringLiteral("more than %1 values on the stack").arg(m_limits.maxNodes));
        m_stack.push_back(index);
        return true;
    }

    bool pop(std::size_t at, std::uint32_t *index)
    {
        if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back()))
            return bad(at, QStringLiteral("needs a value but the stack is empty"));
        *index = m_stack.back();
        m_stack.pop_back();
        return true;
    }

    bool popMark(std::size_t at, std::size_t *start)
    {
        if (m_marks.empty())
            return bad(at, QStringLiteral("needs a MARK but none is open"));
        *start = m_marks.back();
        m_marks.pop_back();
        return true;
    }

    /// Adds `child` to container `parent`, keeping the depth bound.
    bool adopt(std::uint32_t parent, std::uint32_t child, std::size_t at)
    {
        const int depth = m_doc.nodes[child].depth + 1;
        if (depth > m_limits.maxDepth)
            return bad(at,
                       QStringLiteral("containers nested deeper than %1").arg(m_limits.maxDepth));
        PickleNode &p = m_doc.nodes[parent];
        p.kids.push_back(child);
        if (depth > p.depth)
            p.depth = depth;
        return true;
    }

    bool container(std::uint32_t index, PickleKind kind, std::size_t at, const char *what)
    {
        if (m_doc.nodes[index].kind != kind)
            return bad(at, QStringLiteral("%1 on a value that is not a %2")
                               .arg(QLatin1String(opName(static_cast<unsigned char>(m_in[at]))))
                               .arg(QLatin1String(what)));
        return true;
    }

    /// APPENDS / SETITEMS: the values above the MARK at `start` join the `kind` container
    /// just under it (a dict takes them as key, value pairs), and leave the stack.
    bool adoptMarked(PickleKind kind, const char *what, std::size_t start, std::size_t at)
    {
        const std::uint32_t parent = m_stack[start - 1];
        if (!container(parent, kind, at, what))
            return false;
        for (std::size_t i = start; i < m_stack.size(); ++i)
            if (!adopt(parent, m_stack[i], at))
                return false;
        m_stack.resize(start);
        return true;
    }

    /// A tuple, list or dict of the stack's values from `start` (pairs for a dict).
    bool collect(PickleKind kind, std::size_t start, std::size_t at)
    {
        PickleNode n;
        n.kind = kind;
        if (kind == PickleKind::Dict && (m_stack.size() - start) % 2 != 0)
            return bad(at, QStringLiteral("an odd number of values for a dict's keys and values"));
        const std::vector<std::uint32_t> items(m_stack.begin() + std::ptrdiff_t(start),
                                               m_stack.end());
        m_stack.resize(start);
        if (!push(std::move(n), at))
            return false;
        const std::uint32_t self = m_stack.back();
        for (const std::uint32_t item : items)
            if (!adopt(self, item, at))
                return false;
        return true;
    }

    bool memoPut(std::uint64_t slot, std::size_t at)
    {
        if (m_stack.empty())
            return bad(at, QStringLiteral("memoizes but the stack is empty"));
        // Picklers number memo slots 0, 1, 2, ... (each PUT takes at least 2 bytes), so a slot
        // past the bytes read so far is refused before it could size the memo.
        if (slot >= std::uint64_t(m_limits.maxMemo) || slot > m_pos)
            return bad(at, QStringLiteral("memo index %1 past the bound of %2")
                               .arg(slot)
                               .arg(m_limits.maxMemo));
        if (slot >= m_memo.size())
            m_memo.resize(slot + 1, unset);
        m_memo[slot] = m_stack.back();
        return true;
    }

    bool memoGet(std::uint64_t slot, std::size_t at)
    {
        if (slot >= m_memo.size() || m_memo[slot] == unset)
            return bad(at, QStringLiteral("fetches memo slot %1, which was never set").arg(slot));
        return pushRef(m_memo[slot], at);
    }

    bool text(PickleKind kind, std::uint64_t n, std::size_t at)
    {
        if (n > std::uint64_t(m_limits.maxStringBytes))
            return bad(at, QStringLiteral("a string of %1 bytes, past the bound of %2")
                               .arg(n)
                               .arg(m_limits.maxStringBytes));
        const char *p = nullptr;
        if (!take(std::size_t(n), at, &p))
            return false;
        PickleNode node;
        node.kind = kind;
        node.text.assign(p, std::size_t(n));
        return push(std::move(node), at);
    }

    bool integer(std::int64_t v, std::size_t at)
    {
        PickleNode node;
        node.kind = PickleKind::Int;
        node.integer = v;
        return push(std::move(node), at);
    }

    /// LONG1 / LONG4: a little-endian two's-complement integer of `n` bytes.
    bool longInteger(std::uint64_t n, std::size_t at)
    {
        if (n > 8)
            return bad(at, QStringLiteral("an integer of %1 bytes, wider than 64 bits").arg(n));
        const char *p = nullptr;
        if (!take(std::size_t(n), at, &p))
            return false;
        std::uint64_t u = 0;
        for (std::size_t i = 0; i < n; ++i)
            u |= std::uint64_t(static_cast<unsigned char>(p[i])) << (8 * i);
        if (n > 0 && n < 8 && (static_cast<unsigned char>(p[n - 1]) & 0x80))
            u |= ~std::uint64_t(0) << (8 * n); // sign-extend
        std::int64_t v = 0;
        std::memcpy(&v, &u, sizeof v);
        return integer(v, at);
    }

    bool step(unsigned char op, std::size_t at)
    {
        std::uint64_t n = 0;
        std::uint32_t a = 0, b = 0;
        std::size_t start = 0;
        switch (op) {
        case PROTO:
            if (!readUnsigned(1, at, &n))
                return false;
            if (n < 2 || n > 5)
                return bad(at, QStringLiteral("protocol %1; protocols 2 to 5 are read").arg(n));
            return true;
        case FRAME: {
            if (!readUnsigned(8, at, &n))
                return false;
            if (n > m_in.size() - m_pos)
                return bad(at,
                           QStringLiteral("a frame of %1 bytes past the end (truncated)").arg(n));
            return true;
        }
        case MARK:
            if (std::int64_t(m_marks.size()) >= m_limits.maxDepth * 4)
                return bad(at,
                           QStringLiteral("more than %1 open marks").arg(m_limits.maxDepth * 4));
            m_marks.push_back(m_stack.size());
            return true;
        case EMPTY_DICT:
        case EMPTY_LIST:
        case EMPTY_TUPLE: {
            PickleNode node;
            node.kind = op == EMPTY_DICT   ? PickleKind::Dict
                        : op == EMPTY_LIST ? PickleKind::List
                                           : PickleKind::Tuple;
            return push(std::move(node), at);
        }
        case DICT:
            return popMark(at, &start) && collect(PickleKind::Dict, start, at);
        case LIST:
            return popMark(at, &start) && collect(PickleKind::List, start, at);
        case TUPLE:
            return popMark(at, &start) && collect(PickleKind::Tuple, start, at);
        case TUPLE1:
        case TUPLE2:
        case TUPLE3: {
            const std::size_t count = std::size_t(op - TUPLE1 + 1);
            const std::size_t floor = m_marks.empty() ? 0 : m_marks.back();
            if (m_stack.size() < floor + count)
                return bad(at,
                           QStringLiteral("needs %1 values but the stack has fewer").arg(count));
            return collect(PickleKind::Tuple, m_stack.size() - count, at);
        }
        case APPEND:
            return pop(at, &b) && pop(at, &a) && container(a, PickleKind::List, at, "list") &&
                   adopt(a, b, at) && pushRef(a, at);
        case APPENDS: {
            if (!popMark(at, &start))
                return false;
            if (start == 0)
                return bad(at, QStringLiteral("APPENDS with no list under its MARK"));
            return adoptMarked(PickleKind::List, "list", start, at);
        }
        case SETITEM: {
            std::uint32_t d = 0;
            return pop(at, &b) && pop(at, &a) && pop(at, &d) &&
                   container(d, PickleKind::Dict, at, "dict") && adopt(d, a, at) &&
                   adopt(d, b, at) && pushRef(d, at);
        }
        case SETITEMS: {
            if (!popMark(at, &start))
                return false;
            if (start == 0)
                return bad(at, QStringLiteral("SETITEMS with no dict under its MARK"));
            if ((m_stack.size() - start) % 2 != 0)
                return bad(at, QStringLiteral("an odd number of values for a dict's keys and "
                                              "values"));
            return adoptMarked(PickleKind::Dict, "dict", start, at);
        }
        case NONE:
            return push(PickleNode{}, at);
        case NEWTRUE:
        case NEWFALSE: {
            PickleNode node;
            node.kind = PickleKind::Bool;
            node.boolean = op == NEWTRUE;
            return push(std::move(node), at);
        }
        case BININT1:
            return readUnsigned(1, at, &n) && integer(std::int64_t(n), at);
        case BININT2:
            return readUnsigned(2, at, &n) && integer(std::int64_t(n), at);
        case BININT:
            return readUnsigned(4, at, &n) &&
                   integer(std::int64_t(std::int32_t(std::uint32_t(n))), at);
        case LONG1:
            return readUnsigned(1, at, &n) && longInteger(n, at);
        case LONG4:
            return readUnsigned(4, at, &n) && longInteger(n, at);
        case BINFLOAT: {
            if (!readUnsigned(8, at, &n))
                return false;
            // Big-endian IEEE 754: readUnsigned read it little-endian, so swap the bytes.
            std::uint64_t be = 0;
            for (int i = 0; i < 8; ++i)
                be |= ((n >> (8 * i)) & 0xff) << (8 * (7 - i));
            PickleNode node;
            node.kind = PickleKind::Float;
            std::memcpy(&node.real, &be, sizeof node.real);
            return push(std::move(node), at);
        }
        case SHORT_BINUNICODE:
            return readUnsigned(1, at, &n) && text(PickleKind::String, n, at);
        case BINUNICODE:
            return readUnsigned(4, at, &n) && text(PickleKind::String, n, at);
        case BINUNICODE8:
            return readUnsigned(8, at, &n) && text(PickleKind::String, n, at);
        case SHORT_BINBYTES:
            return readUnsigned(1, at, &n) && text(PickleKind::Bytes, n, at);
        case BINBYTES:
            return readUnsigned(4, at, &n) && text(PickleKind::Bytes, n, at);
        case BINBYTES8:
            return readUnsigned(8, at, &n) && text(PickleKind::Bytes, n, at);
        case PUT:
            return readDecimalLine(at, &n) && memoPut(n, at);
        case BINPUT:
            return readUnsigned(1, at, &n) && memoPut(n, at);
        case LONG_BINPUT:
            return readUnsigned(4, at, &n) && memoPut(n, at);
        case MEMOIZE:
            return memoPut(m_memo.size(), at);
        case GET:
            return readDecimalLine(at, &n) && memoGet(n, at);
        case BINGET:
            return readUnsigned(1, at, &n) && memoGet(n, at);
        case LONG_BINGET:
            return readUnsigned(4, at, &n) && memoGet(n, at);
        default:
            break;
        }
        const char *name = opName(op);
        if (!name)
            return bad(at, QStringLiteral("0x%1 is not a pickle opcode")
                               .arg(unsigned(op), 2, 16, QLatin1Char('0')));
        if (namesOrCalls(op))
            return bad(at, QStringLiteral("refused opcode %1 (it names or calls a Python object; "
                                          "ShardScope never runs code from a pickle)")
                               .arg(QLatin1String(name)));
        return bad(at, QStringLiteral("opcode %1 is not read (only plain dicts, lists, tuples, "
                                      "strings, numbers, booleans and None are)")
                           .arg(QLatin1String(name)));
    }

    static constexpr std::uint32_t unset = std::numeric_limits<std::uint32_t>::max();
    std::string_view m_in;
    const PickleLimits &m_limits;
    std::size_t m_pos = 0;
    PickleDocument m_doc;
    std::vector<std::uint32_t> m_stack;
    std::vector<std::size_t> m_marks;
    std::vector<std::uint32_t> m_memo;
    std::size_t m_errorAt = 0;
    QString m_error;
};

} // namespace

const PickleNode *PickleDocument::find(const PickleNode &dict, std::string_view key) const
{
    if (dict.kind != PickleKind::Dict)
        return nullptr;
    const PickleNode *found = nullptr;
    for (std::size_t i = 0; i + 1 < dict.kids.size(); i += 2) {
        const PickleNode &k = nodes[dict.kids[i]];
        if (k.kind == PickleKind::String && k.text == key)
            found = &nodes[dict.kids[i + 1]];
    }
    return found;
}

std::optional<PickleDocument> readPickle(std::string_view bytes, QString *error,
                                         const PickleLimits &limits)
{
    Reader reader(bytes, limits);
    return reader.run(error);
}

} // namespace shardscope
