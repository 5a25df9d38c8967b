#pragma once

#include "memoryreport.h"
#include "scenario.h"

#include <cstdint>
#include <string>

namespace shardscope {

/// Unit bytes are drawn in: GB = 1e9 bytes (vendors, papers) or GiB = 2^30 bytes (drivers).
enum class ByteUnit
{
    GB,
    GiB
};

/// Bytes in one unit: 1e9 or 1073741824.
double unitBytes(ByteUnit u);
/// "GB" or "GiB".
std::string unitName(ByteUnit u);

/// Formats a byte count for display in the unit, with thousands separators and
/// 0 decimals at >= 1000, 1 at >= 10, 2 below; trailing zeros dropped.
/// Examples (GB): 17.5e9 -> "17.5 GB", 1.12e12 -> "1,120 GB", 293.125e9 -> "293.1 GB".
std::string formatBytes(std::int64_t bytes, ByteUnit u);

/// Formats a parameter count: 70553706496 -> "70.55B", 1.2e12 -> "1.2T", 3e8 -> "300M".
std::string formatParameters(std::int64_t parameters);

/// One plain-language sentence on whether the scenario fits, for example
/// "Fits: 17.5 GB of 80 GB per GPU" or
/// "Overflows by 1,040 GB per GPU: DDP keeps a full copy on every GPU".
/// The overflow reason names what the strategy leaves replicated or, when the busiest
/// GPU's activations outweigh its model states, that data parallelism cannot split them.
std::string verdictText(const Scenario &s, const MemoryReport &r, ByteUnit u);

} // namespace shardscope
