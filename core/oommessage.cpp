#include "oommessage.h"

#include "enumtable.h"

#include <algorithm>
#include <array>

namespace shardscope {

namespace {

constexpr std::string_view anchor = "out of memory. Tried to allocate ";
/// Bytes after the anchor read as one message (the newer wording with eight processes and
/// its advice is under 1,000 characters).
constexpr std::size_t windowBytes = 4096;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// `text` with every run of white space made one space and torchrun's "[rankN]:" line
/// prefixes dropped, so a message wrapped over lines reads as PyTorch printed it.
std::string normalized(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    bool space = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '[' && text.substr(i, 5) == "[rank") {
            std::size_t j = i + 5;
            while (j < text.size() && j < i + 16 && isDigit(text[j]))
                ++j;
            if (j > i + 5 && text.substr(j, 2) == "]:") {
                i = j + 1;
                space = true;
                continue;
            }
        }
        if (isSpace(c)) {
            space = true;
            continue;
        }
        if (space && !out.empty())
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

/// A size as format_size() prints it: "512 bytes", "1.50 KiB", "2.00 GiB".
struct Size
{
    enum class State
    {
        Ok,
        Missing,   ///< no number and unit here
        OutOfRange ///< above maxOomSizeBytes
    } state = State::Missing;
    std::int64_t bytes = 0;
};

/// Reads `text` left to right; every method either consumes what it matched and
/// returns it, or leaves the position where it was.
class Scanner
{
public:
    explicit Scanner(std::string_view text) : m_text(text) {}

    bool lit(std::string_view s)
    {
        if (m_text.substr(m_pos).substr(0, s.size()) != s)
            return false;
        m_pos += s.size();
        return true;
    }
    /// Moves past the next `s`; false (position kept) when there is none.
    bool skipTo(std::string_view s)
    {
        const std::size_t at = m_text.find(s, m_pos);
        if (at == std::string_view::npos)
            return false;
        m_pos = at + s.size();
        return true;
    }
    void space()
    {
        while (m_pos < m_text.size() && m_text[m_pos] == ' ')
            ++m_pos;
    }
    /// A whole number of at most 12 digits.
    std::optional<std::int64_t> integer()
    {
        std::size_t i = m_pos;
        std::int64_t v = 0;
        while (i < m_text.size() && isDigit(m_text[i]) && i - m_pos < 12)
            v = v * 10 + (m_text[i++] - '0');
        if (i == m_pos || (i < m_text.size() && isDigit(m_text[i])))
            return std::nullopt;
        m_pos = i;
        return v;
    }
    /// DIGITS[.DIGITS] UNIT, exact: the decimal is scaled by the unit in integers and
    /// rounded to the nearest byte.
    Size size()
    {
        const std::size_t start = m_pos;
        Size s;
        const auto whole = integer();
        if (!whole)
            return s;
        std::int64_t frac = 0, scale = 1;
        if (m_pos + 1 < m_text.size() && m_text[m_pos] == '.' && isDigit(m_text[m_pos + 1])) {
            ++m_pos;
            while (m_pos < m_text.size() && isDigit(m_text[m_pos])) {
                if (scale < 1'000'000) { // digits past the sixth change nothing that matters
                    frac = frac * 10 + (m_text[m_pos] - '0');
                    scale *= 10;
                }
                ++m_pos;
            }
        }
        static constexpr std::array<std::pair<std::string_view, std::int64_t>, 6> units{{
            {" bytes", 1},
            {" KiB", std::int64_t(1) << 10},
            {" MiB", std::int64_t(1) << 20},
            {" GiB", std::int64_t(1) << 30},
            {" TiB", std::int64_t(1) << 40},
            {" B", 1},
        }};
        for (const auto &[name, unit] : units) {
            if (!lit(name))
                continue;
            if (*whole > maxOomSizeBytes / unit) {
                s.state = Size::State::OutOfRange;
                return s;
            }
            // frac < 1e6 and unit <= 2^40: the product stays below 2^63.
            const std::int64_t bytes = *whole * unit + (frac * unit + scale / 2) / scale;
            s.state = bytes > maxOomSizeBytes ? Size::State::OutOfRange : Size::State::Ok;
            s.bytes = bytes;
            return s;
        }
        m_pos = start;
        return s;
    }
    std::size_t pos() const { return m_pos; }
    void setPos(std::size_t p) { m_pos = p; }
    std::string_view rest() const { return m_text.substr(m_pos); }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
};

/// Stores a read size into `field`, or a note when it was too large to be real.
void store(const Size &s, std::optional<std::int64_t> &field, const char *what,
           std::vector<std::string> &notes)
{
    if (s.state == Size::State::Ok)
        field = s.bytes;
    else if (s.state == Size::State::OutOfRange)
        notes.push_back(std::string("The ") + what +
                        " figure is above 1 PiB and was not read as a size.");
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ')
        s.remove_suffix(1);
    return s;
}

/// The parenthesis of the older and oldest wordings: "GPU 0; 79.15 GiB total capacity;
/// 75.10 GiB already allocated; 1.53 GiB free; [X allowed; ]R reserved in total by
/// PyTorch" or "...; C cached". Each part is "SIZE LABEL"; unknown parts are skipped.
void readParenthesis(std::string_view inside, OomMessage &m, std::optional<std::int64_t> &cached)
{
    bool reserved = false, sawCached = false, total = false;
    while (!inside.empty()) {
        const std::size_t semi = inside.find(';');
        const std::string_view part = trimmed(inside.substr(0, semi));
        inside = semi == std::string_view::npos ? std::string_view() : inside.substr(semi + 1);
        Scanner p(part);
        if (p.lit("GPU ")) {
            if (const auto d = p.integer(); d && *d < 1'000'000)
                m.device = int(*d);
            continue;
        }
        const Size s = p.size();
        if (s.state == Size::State::Missing)
            continue;
        const std::string_view label = trimmed(p.rest());
        if (label == "total capacity") {
            store(s, m.totalCapacityBytes, "total capacity", m.notes);
            total = true;
        } else if (label == "already allocated") {
            store(s, m.allocatedByPytorchBytes, "already allocated", m.notes);
        } else if (label == "free") {
            store(s, m.freeBytes, "free", m.notes);
        } else if (label == "allowed") {
            store(s, m.allowedBytes, "allowed", m.notes);
        } else if (label == "reserved in total by PyTorch") {
            store(s, m.reservedBytes, "reserved in total", m.notes);
            reserved = true;
        } else if (label == "cached") {
            store(s, cached, "cached", m.notes);
            sawCached = true;
        }
    }
    m.wording = reserved    ? OomWording::Older
                : sawCached ? OomWording::Oldest
                : total     ? OomWording::Older
                            : OomWording::Unknown;
}

/// The sentences of the newer wording after "Tried to allocate X".
void readSentences(Scanner &sc, OomMessage &m)
{
    m.wording = OomWording::Newer;
    if (sc.lit(". GPU "))
        if (const auto d = sc.integer(); d && *d < 1'000'000)
            m.device = int(*d);
    // PyTorch 2.1 printed "capacty" (c10/cuda/CUDACachingAllocator.cpp at v2.1.0, fixed in
    // 2.2); many messages users paste still say so.
    if (sc.skipTo(" has a total capacity of ") || sc.skipTo(" has a total capacty of "))
        store(sc.size(), m.totalCapacityBytes, "total capacity", m.notes);
    if (sc.lit(" of which ")) {
        store(sc.size(), m.freeBytes, "free", m.notes);
        sc.lit(" is free.");
    }
    // reportProcessMemoryInfo()'s sentences, one per process, then "X allowed; ".
    for (int i = 0; i < 4096; ++i) {
        sc.space();
        const std::size_t at = sc.pos();
        if (sc.lit("Process ")) {
            const auto pid = sc.integer();
            if (pid && sc.lit(" has ")) {
                const Size s = sc.size();
                if (s.state == Size::State::Ok && sc.lit(" memory in use.")) {
                    m.otherProcesses.push_back({*pid, s.bytes});
                    continue;
                }
            }
        } else if (sc.lit("Including non-PyTorch memory, this process has ")) {
            const Size s = sc.size();
            if (s.state != Size::State::Missing && sc.lit(" memory in use.")) {
                store(s, m.inUseBytes, "in use", m.notes);
                continue;
            }
        } else {
            const Size s = sc.size();
            if (s.state != Size::State::Missing && sc.lit(" allowed;")) {
                store(s, m.allowedBytes, "allowed", m.notes);
                continue;
            }
        }
        sc.setPos(at);
        break;
    }
    if (sc.skipTo("Of the allocated memory ")) {
        store(sc.size(), m.allocatedByPytorchBytes, "allocated by PyTorch", m.notes);
        sc.lit(" is allocated by PyTorch,");
        sc.space();
        if (sc.lit("with ")) {
            store(sc.size(), m.privatePoolBytes, "private pools", m.notes);
            sc.lit(" allocated in private pools (e.g., CUDA Graphs),");
            sc.space();
        }
        if (sc.lit("and "))
            store(sc.size(), m.reservedUnallocatedBytes, "reserved but unallocated", m.notes);
    }
}

std::string sizeText(std::int64_t bytes)
{
    // Notes name sizes as PyTorch would, to two decimals of MiB or GiB.
    const bool gib = bytes >= (std::int64_t(1) << 30);
    const double v = double(bytes) / double(std::int64_t(1) << (gib ? 30 : 20));
    const std::int64_t hundredths = std::int64_t(v * 100 + 0.5);
    std::string s = std::to_string(hundredths / 100) + ".";
    const std::int64_t f = hundredths % 100;
    s += char('0' + f / 10);
    s += char('0' + f % 10);
    return s + (gib ? " GiB" : " MiB");
}

} // namespace

std::string oomWordingId(OomWording w)
{
    static constexpr EnumTable<OomWording, 3> oomWordings{{
        {OomWording::Newer, "newer"},
        {OomWording::Older, "older"},
        {OomWording::Oldest, "oldest"},
    }};
    return std::string(enumId(oomWordings, w, "unknown"));
}

OomParse parseOomMessage(std::string_view text)
{
    OomParse r;
    if (text.size() > maxOomTextBytes) {
        r.error = "the text is longer than 16 MiB; paste the part with the out-of-memory message";
        return r;
    }
    const std::string norm = normalized(text);
    const std::size_t first = norm.find(anchor);
    if (first == std::string::npos) {
        if (norm.find("CUDA error: out of memory") != std::string::npos)
            r.error = "found \"CUDA error: out of memory\", raised outside PyTorch's caching "
                      "allocator (NCCL, cuBLAS or another library); it states no sizes to read";
        else
            r.error = "no PyTorch out-of-memory message (\"CUDA out of memory. Tried to "
                      "allocate ...\") in the text";
        return r;
    }
    OomMessage m;
    std::size_t next = norm.find(anchor, first + anchor.size());
    const std::size_t end = std::min({norm.size(), first + windowBytes, next});
    for (; next != std::string::npos; next = norm.find(anchor, next + anchor.size()))
        ++m.messagesFound;
    const std::string_view window = std::string_view(norm).substr(first, end - first);

    Scanner sc(window);
    sc.lit(anchor);
    store(sc.size(), m.triedToAllocateBytes, "tried to allocate", m.notes);
    std::optional<std::int64_t> cached;
    if (sc.lit(" (")) {
        const std::size_t close = sc.rest().find(')');
        if (close == std::string_view::npos)
            m.notes.push_back("The message ends before its closing parenthesis; what follows "
                              "the cut is absent.");
        readParenthesis(sc.rest().substr(0, close), m, cached);
    } else if (sc.rest().substr(0, 6) == ". GPU ") {
        readSentences(sc, m);
    } else {
        m.notes.push_back("Only \"Tried to allocate\" was read: the rest is in neither of "
                          "PyTorch's wordings (cut short?).");
    }

    // Derive what the wording leaves out, and say so.
    auto &notes = m.notes;
    if (m.wording == OomWording::Newer) {
        if (m.allocatedByPytorchBytes && m.reservedUnallocatedBytes)
            m.reservedBytes = *m.allocatedByPytorchBytes + *m.reservedUnallocatedBytes;
        if (!m.inUseBytes && m.otherProcesses.size() == 1) {
            const OomProcess p = m.otherProcesses.front();
            m.inUseBytes = p.bytes;
            m.otherProcesses.clear();
            notes.push_back("In use is process " + std::to_string(p.pid) +
                            "'s: NVML lists no process as this one (a container's PID "
                            "namespace hides the match), and it is the only one listed.");
        } else if (!m.inUseBytes && m.otherProcesses.size() > 1) {
            notes.push_back(std::to_string(m.otherProcesses.size()) +
                            " processes are listed and none as this one (a container's PID "
                            "namespace hides the match): in use is left empty.");
        }
    } else if (m.wording == OomWording::Older) {
        if (m.reservedBytes && m.allocatedByPytorchBytes) {
            m.reservedUnallocatedBytes =
                std::max<std::int64_t>(0, *m.reservedBytes - *m.allocatedByPytorchBytes);
            notes.push_back("Reserved but unallocated is derived: reserved in total (" +
                            sizeText(*m.reservedBytes) + ") - already allocated (" +
                            sizeText(*m.allocatedByPytorchBytes) +
                            "), each printed to 0.01 of its unit.");
        }
        notes.push_back("The older wording states no in-use figure (NVML's per-process "
                        "memory came with PyTorch 2.1's wording).");
    } else if (m.wording == OomWording::Oldest) {
        if (cached) {
            m.reservedUnallocatedBytes = cached;
            notes.push_back("Reserved but unallocated is the oldest wording's \"cached\" "
                            "(PyTorch 1.0 to 1.3 printed cached minus allocated bytes).");
            if (m.allocatedByPytorchBytes) {
                m.reservedBytes = *m.allocatedByPytorchBytes + *cached;
                notes.push_back("Reserved is derived: already allocated + cached.");
            }
        }
        notes.push_back("The oldest wording states no in-use figure.");
    }
    std::string absent;
    const std::pair<const char *, const std::optional<std::int64_t> *> six[] = {
        {"tried to allocate", &m.triedToAllocateBytes},
        {"total capacity", &m.totalCapacityBytes},
        {"free", &m.freeBytes},
        {"in use", &m.inUseBytes},
        {"allocated by PyTorch", &m.allocatedByPytorchBytes},
        {"reserved but unallocated", &m.reservedUnallocatedBytes}};
    for (const auto &[name, field] : six)
        if (!field->has_value())
            absent += std::string(absent.empty() ? "" : ", ") + name;
    if (!absent.empty())
        notes.push_back("Not in the message (left empty): " + absent + ".");
    // A real message's figures fit its card: free, in use and reserved are parts of the
    // total. One that does not was edited or cut and pasted together; its verdict rests
    // on figures no GPU printed.
    if (m.totalCapacityBytes) {
        const std::int64_t total = *m.totalCapacityBytes;
        const std::pair<const char *, const std::optional<std::int64_t> *> parts[] = {
            {"free", &m.freeBytes},
            {"in use", &m.inUseBytes},
            {"reserved by PyTorch", &m.reservedBytes}};
        for (const auto &[name, field] : parts)
            if (field->has_value() && **field > total) {
                notes.push_back(std::string("The message's figures do not fit its card: ") + name +
                                " (" + sizeText(**field) + ") is more than the total capacity (" +
                                sizeText(total) + "). Was it edited?");
                break;
            }
    }
    if (m.messagesFound > 1)
        notes.push_back("The text holds " + std::to_string(m.messagesFound) +
                        " out-of-memory messages; the first is read.");
    r.message = std::move(m);
    return r;
}

} // namespace shardscope
