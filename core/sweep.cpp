#include "sweep.h"

#include "enumtable.h"
#include "inputlimits.h"
#include "steptime.h"

#include <cmath>

namespace shardscope {

namespace {

constexpr EnumTable<SweepAxis, 4> sweepAxes{{
    {SweepAxis::Gpus, "gpus", "GPUs", {"gpu"}},
    {SweepAxis::SequenceLength, "seq", "Sequence length (tokens)", {"sequence"}},
    {SweepAxis::MicroBatchSize, "mbs", "Micro-batch size", {"micro-batch"}},
    {SweepAxis::StepTimeGpus, "time", "Step time against GPUs", {"step-time"}},
}};

/// Powers of two from `first` to `last`, both included (first a power of two).
std::vector<std::int64_t> powersOfTwo(std::int64_t first, std::int64_t last)
{
    std::vector<std::int64_t> out;
    for (std::int64_t x = first; x <= last; x *= 2)
        out.push_back(x);
    return out;
}

} // namespace

std::string_view sweepAxisId(SweepAxis axis)
{
    return enumId(sweepAxes, axis, "gpus");
}

std::string_view sweepAxisTitle(SweepAxis axis)
{
    return enumName(sweepAxes, axis, "GPUs");
}

std::optional<SweepAxis> parseSweepAxis(std::string_view id)
{
    return parseEnum(sweepAxes, id);
}

std::vector<std::int64_t> sweepValues(SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SequenceLength:
        return powersOfTwo(512, 131'072);
    case SweepAxis::MicroBatchSize:
        return powersOfTwo(1, 64);
    case SweepAxis::Gpus:
    case SweepAxis::StepTimeGpus:
        break;
    }
    return powersOfTwo(1, maxGpuSliderCount);
}

std::int64_t sweepValueOf(const Scenario &s, SweepAxis axis)
{
    switch (axis) {
    case SweepAxis::SequenceLength:
        return s.training.sequenceLength;
    case SweepAxis::MicroBatchSize:
        return s.training.microBatchSize;
    case SweepAxis::Gpus:
    case SweepAxis::StepTimeGpus:
        break;
    }
    return s.layout.gpus;
}

Scenario withSweepValue(Scenario s, SweepAxis axis, std::int64_t value)
{
    switch (axis) {
    case SweepAxis::SequenceLength:
        s.training.sequenceLength = value;
        break;
    case SweepAxis::MicroBatchSize:
        s.training.microBatchSize = value;
        break;
    case SweepAxis::Gpus:
        s.layout.gpus = value;
        break;
    case SweepAxis::StepTimeGpus: {
        // Strong scaling: the global batch m x b x d x s stays, so m follows d; a d that
        // does not divide m x d gets m = 0, which the engine refuses (a gap in the line).
        const std::int64_t d = s.layout.dataParallel();
        const std::int64_t sequences = s.training.microBatches * d; // per micro-batch slot
        s.layout.gpus = value;
        const std::int64_t next = s.layout.dataParallel();
        s.training.microBatches = d > 0 && next > 0 && sequences % next == 0 ? sequences / next : 0;
        break;
    }
    }
    return s;
}

std::optional<double> sweptStepSeconds(const Scenario &s, const MemoryReport &r)
{
    if (!r.valid())
        return std::nullopt;
    const StepTime t = stepTime(s, r);
    if (!t.valid() || !std::isfinite(t.stepSeconds) || t.stepSeconds <= 0)
        return std::nullopt;
    return t.stepSeconds;
}

StrategySweep sweepStrategies(const Scenario &s, SweepAxis axis)
{
    StrategySweep out;
    out.axis = axis;
    out.values = sweepValues(axis);
    out.capacityBytes = s.gpu.usableBytes();
    for (auto &series : out.peakBytes)
        series.reserve(out.values.size());
    for (const std::int64_t x : out.values) {
        const std::array<StrategyVariant, 4> variants =
            compareStrategies(withSweepValue(s, axis, x));
        for (std::size_t k = 0; k < 4; ++k) {
            const MemoryReport &r = variants[k].report;
            out.peakBytes[k].push_back(r.valid() ? std::optional<std::int64_t>(r.peakBytes())
                                                 : std::nullopt);
            if (sweepsStepTime(axis))
                out.stepSeconds[k].push_back(sweptStepSeconds(variants[k].scenario, r));
        }
    }
    return out;
}

} // namespace shardscope
