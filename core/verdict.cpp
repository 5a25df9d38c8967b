#include "verdict.h"

#include <algorithm>

namespace shardscope {

Verdict verdict(const Scenario &s, const MemoryReport &r)
{
    Verdict v;
    if (!r.valid())
        return v; // Invalid, nothing else set
    v.shardRanks = s.layout.shardGroup();
    v.dataContextRanks = s.layout.dataParallel() * s.layout.contextParallel;
    v.gpuOverflowBytes = std::max<std::int64_t>(0, r.peakBytes() - r.capacityBytes);
    v.hostOverflowBytesPerNode =
        std::max<std::int64_t>(0, r.hostBytesPerNode - r.hostCapacityBytesPerNode);
    const bool gpu = v.gpuOverflowBytes > 0, host = v.hostOverflowBytesPerNode > 0;
    v.kind = gpu && host ? Verdict::Kind::GpuAndHost
             : gpu       ? Verdict::Kind::Gpu
             : host      ? Verdict::Kind::Host
                         : Verdict::Kind::Fits;
    if (const GpuGroup *busiest = r.peakGroup()) {
        v.busiestActivationBytes = busiest->bytes.activations;
        v.busiestModelStateBytes = busiest->bytes.modelStates();
        if (v.busiestActivationBytes > v.busiestModelStateBytes)
            v.dominant = Verdict::Dominant::Activations;
    }
    return v;
}

} // namespace shardscope
