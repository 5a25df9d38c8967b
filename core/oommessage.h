#pragma once

// PyTorch's "CUDA out of memory" message, read into byte counts. The message is the
// one DeviceCachingAllocator::malloc() raises in PyTorch's
// c10/cuda/CUDACachingAllocator.cpp, with sizes printed by format_size() there ("N
// bytes" up to 1 KiB, then KiB, MiB or GiB with two decimals). Three wordings exist:
//
//   newer  (PyTorch 2.1 on): "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a
//          total capacity of 79.15 GiB of which 1.53 GiB is free. [Process 12345 has
//          77.61 GiB memory in use. | Including non-PyTorch memory, this process has
//          77.61 GiB memory in use. ]... [X allowed; ]Of the allocated memory 75.10 GiB is
//          allocated by PyTorch, [with X allocated in private pools (e.g., CUDA Graphs),
//          ]and 1.24 GiB is reserved by PyTorch but unallocated. ..."
//          (the process lines come from reportProcessMemoryInfo(), one per process NVML
//          lists on the GPU);
//   older  (PyTorch 1.4 to 2.0): "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0;
//          79.15 GiB total capacity; 75.10 GiB already allocated; 1.53 GiB free; [X
//          allowed; ]76.34 GiB reserved in total by PyTorch)";
//   oldest (PyTorch 1.0 to 1.3): "... 1.53 GiB free; 1.24 GiB cached)", where "cached" is
//          the allocator's cached minus allocated bytes.
//
// Pure: no I/O, no globals (docs/measurements.md "Explaining an OOM message").

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

/// Longest text parseOomMessage() reads, bytes (16 MiB: the file reader's own limit,
/// io/inputfile.h); longer text is refused.
inline constexpr std::size_t maxOomTextBytes = 16u * 1024 * 1024;

/// Largest byte count a size in the message may state (2^50 = 1 PiB); a larger one is
/// read as absent, with a note.
inline constexpr std::int64_t maxOomSizeBytes = std::int64_t(1) << 50;

/// Which of PyTorch's wordings the message uses (see the file comment).
enum class OomWording
{
    Newer,  ///< PyTorch 2.1 on: sentences, "is reserved by PyTorch but unallocated"
    Older,  ///< PyTorch 1.4 to 2.0: parenthesis, "reserved in total by PyTorch"
    Oldest, ///< PyTorch 1.0 to 1.3: parenthesis, "cached"
    Unknown ///< "Tried to allocate" found, the rest in neither form (truncated text)
};

/// "newer", "older", "oldest" or "unknown" (the JSON's `wording`).
std::string oomWordingId(OomWording w);

/// Another process on the GPU, from a "Process N has X memory in use" sentence.
struct OomProcess
{
    std::int64_t pid = 0;
    std::int64_t bytes = 0; ///< its GPU memory in use (NVML usedGpuMemory), bytes
};

/// What one out-of-memory message says, in bytes (each as printed: to 0.01 of its unit).
/// A field the message does not state, and that cannot be derived from what it does,
/// is empty; every derived field has a sentence in `notes`.
struct OomMessage
{
    OomWording wording = OomWording::Unknown;
    int device = -1; ///< the "GPU N" index; -1 when absent
    /// The request that failed, rounded up by the allocator (alloc_size), bytes.
    std::optional<std::int64_t> triedToAllocateBytes;
    /// cudaMemGetInfo's total: the card's memory as the driver reports it, bytes.
    std::optional<std::int64_t> totalCapacityBytes;
    /// cudaMemGetInfo's free memory at the failure, bytes.
    std::optional<std::int64_t> freeBytes;
    /// This process's GPU memory in use, PyTorch's and everyone else's (CUDA context,
    /// NCCL, cuBLAS workspaces), from NVML; newer wording only, bytes.
    std::optional<std::int64_t> inUseBytes;
    /// Memory PyTorch's allocator has handed to tensors (allocated_bytes, plus CUDA-graph
    /// private pools in the newer wording), bytes.
    std::optional<std::int64_t> allocatedByPytorchBytes;
    /// Memory the allocator holds in segments but has not handed out (reserved minus
    /// allocated): fragmentation once every whole free segment has been released, bytes.
    std::optional<std::int64_t> reservedUnallocatedBytes;
    /// Everything the allocator holds (reserved_bytes), bytes.
    std::optional<std::int64_t> reservedBytes;
    /// The cap set by torch.cuda.set_per_process_memory_fraction ("X allowed"), bytes.
    std::optional<std::int64_t> allowedBytes;
    /// CUDA-graph private pools ("with X allocated in private pools"), bytes.
    std::optional<std::int64_t> privatePoolBytes;
    /// "Process N has X memory in use" sentences: processes NVML lists on the GPU whose
    /// PID is not this process's.
    std::vector<OomProcess> otherProcesses;
    /// Out-of-memory messages in the text; the first is the one read.
    int messagesFound = 1;
    std::vector<std::string> notes; ///< one sentence each: derivations, absences, caveats
};

/// parseOomMessage()'s answer: the message, or why none was read.
struct OomParse
{
    std::optional<OomMessage> message;
    std::string error; ///< one line when `message` is empty

    bool valid() const { return message.has_value(); }
};

/// Finds PyTorch's out-of-memory message in `text` (a bare message, or one inside a
/// traceback or a log, its lines possibly wrapped or prefixed "[rankN]:") and reads its
/// numbers into bytes. The first message is read; others are counted. Errors: text
/// longer than maxOomTextBytes; no "out of memory. Tried to allocate" in the text (a
/// "CUDA error: out of memory" from outside the caching allocator is named as such, since
/// it states no sizes). Linear in the text's length.
OomParse parseOomMessage(std::string_view text);

} // namespace shardscope
