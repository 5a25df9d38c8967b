#include "compare.h"

#include "estimate.h"

namespace shardscope {

std::array<StrategyVariant, 4> compareStrategies(const Scenario &s)
{
    std::array<StrategyVariant, 4> out;
    for (int i = 0; i < 4; ++i) {
        StrategyVariant &v = out[std::size_t(i)];
        v.scenario = s;
        Layout &l = v.scenario.layout;
        l.zeroStage = ZeroStage(i);
        if (l.zeroStage == ZeroStage::Ddp && l.offload != Offload::None) {
            l.offload = Offload::None;
            v.adjustments.push_back("no offload");
        }
        if (l.zeroStage == ZeroStage::Ddp && l.hsdpShardSize > 0) {
            l.hsdpShardSize = 0;
            v.adjustments.push_back("no HSDP");
        }
        if (l.offload == Offload::OptimizerAndParams && l.zeroStage != ZeroStage::Zero3) {
            l.offload = Offload::Optimizer;
            v.adjustments.push_back("optimizer offload");
        }
        v.report = estimate(v.scenario);
    }
    return out;
}

} // namespace shardscope
