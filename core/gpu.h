#pragma once

#include <cstdint>
#include <string>

namespace shardscope {

/// One accelerator model from the catalog (resources/gpus.json).
///
/// `capacityBytes` is the vendor's datasheet figure in bytes (GB = 1e9): the "80 GB" the
/// card is sold as. `driverReportedBytes` is the total the driver reports (nvidia-smi
/// memory.total, torch.cuda.mem_get_info()'s total, rocm-smi VRAM Total: MiB * 2^20)
/// where known, else 0. Fit verdicts and the capacity line use usableBytes().
struct Gpu
{
    std::string id;                       ///< e.g. "h100-sxm-80gb"
    std::string name;                     ///< e.g. "NVIDIA H100 SXM 80GB"
    std::string shortName;                ///< e.g. "H100", used on the capacity line
    std::int64_t capacityBytes = 0;       ///< datasheet capacity, bytes
    std::int64_t driverReportedBytes = 0; ///< driver-reported total, bytes (0: unknown)
    std::string source;                   ///< datasheet or driver reading the figure follows

    /// Bytes a process can be given on this card, what fit verdicts are checked against:
    /// the driver-reported total where known, else the datasheet figure. An H100 SXM sold
    /// as 80 GB reports 81,559 MiB (nvidia-smi memory.total; resources/data/gpus.json
    /// cites each card's reading), 81,559 x 2^20 = 85,520,809,984 bytes = 85.5 GB.
    /// The CUDA context and the allocator's reserve are counted in the estimate, not here.
    std::int64_t usableBytes() const
    {
        return driverReportedBytes > 0 ? driverReportedBytes : capacityBytes;
    }

    // Speeds for the step-time model (core/steptime.h, docs/steptime.md). Each is the
    // vendor datasheet's figure; 0 means unknown or not supported (no FP8 on A100), and
    // the step-time model refuses, naming the field, when it needs one that is 0.
    /// Dense (not 2:4 sparse) BF16 tensor-core peak, FLOP/s; FP16 where the card has no
    /// BF16 (V100).
    double bf16FlopsPerSecond = 0;
    /// Dense (not 2:4 sparse) FP8 tensor-core peak, FLOP/s (0: no FP8).
    double fp8FlopsPerSecond = 0;
    /// Dense MXFP8 peak, FLOP/s: FP8 with one E8M0 scale per 32 values (OCP microscaling),
    /// which needs block-scaled tensor cores (NVIDIA Blackwell, AMD MI355X); there it runs
    /// at the FP8 rate. 0: none (Hopper, Ada, MI300X run FP8 only per tensor) or unknown.
    double mxfp8FlopsPerSecond = 0;
    /// Memory (HBM or GDDR) bandwidth, bytes/s.
    double memoryBytesPerSecond = 0;
    /// NVLink / Infinity Fabric bandwidth one GPU sends to its node peers, bytes/s,
    /// unidirectional (half the datasheet's bidirectional total: H100 SXM 900 GB/s
    /// bidirectional gives 450e9). 0: no GPU-to-GPU link (PCIe only).
    double nvlinkBytesPerSecond = 0;
    std::string speedSource = {}; ///< datasheet(s) the four speeds follow
    /// Share of the dense peak that large matmuls sustain in training, 0..1 (0: not
    /// calibrated; the step-time model then uses defaultMatmulEfficiency with a note).
    /// Calibrated per GPU family on published step times and MFUs (docs/steptime.md).
    double matmulEfficiency = 0;
    /// FlashAttention's forward + backward throughput in training, FLOP/s in its own
    /// count (causal half of the full matmuls, backward 2.5x the forward); 0: not
    /// calibrated (defaultAttentionShareOfPeak x the BF16 peak).
    double attentionFlopsPerSecond = 0;
};

} // namespace shardscope
