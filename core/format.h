#pragma once

#include "memoryreport.h"
#include "scenario.h"
#include "verdict.h"

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

/// A whole number with thousands separators: 16384 -> "16,384", -1200 -> "-1,200".
std::string formatCount(std::int64_t n);

/// Formats a parameter count: 70553706496 -> "70.55B", 1.2e12 -> "1.2T", 3e8 -> "300M".
std::string formatParameters(std::int64_t parameters);

/// One plain-language sentence on whether the scenario fits, written from
/// verdict(s, r) (verdict.h), amounts in unit `u`, always positive. For example
/// "Fits: 17.5 GB of 85.5 GB usable per GPU" (the capacity is MemoryReport::capacityBytes,
/// Gpu::usableBytes(): "usable" where it is the driver-reported total, as on an H100 sold
/// as 80 GB; the datasheet figure alone, "of 80 GB", for a card with no driver figure),
/// "Overflows by 1,040 GB per GPU: DDP keeps a full copy on every GPU",
/// "Overflows host RAM by 140.1 GB per node (...); GPU memory fits (...): offload less, ..."
/// or, when both overflow, "Overflows by X per GPU and host RAM by Y per node: ...".
/// The GPU reason names what the strategy leaves replicated, that HSDP shards cover only
/// S of the N data x context ranks, or, when the busiest GPU's activations outweigh its
/// model states, that data parallelism cannot split them. Invalid reports give
/// "Cannot estimate: " and the error.
std::string verdictText(const Scenario &s, const MemoryReport &r, ByteUnit u);
/// A file-name stem that says what a scenario is, for exported charts and data:
/// "<model id>-<gpus>x<card>-<strategy>", then "-t<t>", "-p<p>", "-c<c>", "-e<e>" for
/// degrees above 1, in lower case ASCII letters, digits and hyphens only; for example
/// "llama3-70b-64xh100-zero3" or "gpt3-175b-64xa100-zero1-t8-p8".
std::string scenarioFileStem(const Scenario &s);
/// The same sentence from a verdict already decided (v = verdict(s, r)).
std::string verdictText(const Verdict &v, const Scenario &s, const MemoryReport &r, ByteUnit u);

} // namespace shardscope
