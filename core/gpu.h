#pragma once

#include <cstdint>
#include <string>

namespace shardscope {

/// One accelerator model from the catalog (resources/gpus.json).
///
/// `capacityBytes` is the vendor's datasheet figure in bytes (GB = 1e9), which
/// is what the capacity line is drawn at. `driverReportedBytes` is the total the
/// driver reports (nvidia-smi "Total", in MiB * 2^20) where known, else 0.
struct Gpu
{
    std::string id;                       ///< e.g. "h100-sxm-80gb"
    std::string name;                     ///< e.g. "NVIDIA H100 SXM 80GB"
    std::string shortName;                ///< e.g. "H100", used on the capacity line
    std::int64_t capacityBytes = 0;       ///< datasheet capacity, bytes
    std::int64_t driverReportedBytes = 0; ///< driver-reported total, bytes (0: unknown)
    std::string source;                   ///< datasheet or driver reading the figure follows
};

} // namespace shardscope
