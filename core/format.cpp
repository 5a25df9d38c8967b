#include "format.h"

#include "verdict.h"

#include <cmath>
#include <cstdio>

namespace shardscope {

double unitBytes(ByteUnit u)
{
    return u == ByteUnit::GB ? 1e9 : 1073741824.0;
}

std::string unitName(ByteUnit u)
{
    return u == ByteUnit::GB ? "GB" : "GiB";
}

namespace {

/// Groups the integer part of a plain decimal string with commas.
std::string withThousands(const std::string &plain)
{
    const auto dot = plain.find('.');
    std::string intPart = plain.substr(0, dot);
    const std::string frac = dot == std::string::npos ? "" : plain.substr(dot);
    const bool negative = !intPart.empty() && intPart[0] == '-';
    if (negative)
        intPart.erase(0, 1);
    std::string grouped;
    for (std::size_t i = 0; i < intPart.size(); ++i) {
        if (i > 0 && (intPart.size() - i) % 3 == 0)
            grouped += ',';
        grouped += intPart[i];
    }
    return (negative ? "-" : "") + grouped + frac;
}

std::string trimZeros(std::string s)
{
    if (s.find('.') == std::string::npos)
        return s;
    while (!s.empty() && s.back() == '0')
        s.pop_back();
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s;
}

std::string formatNumber(double v)
{
    const double a = std::fabs(v);
    const int decimals = a >= 1000 ? 0 : a >= 10 ? 1 : 2;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return withThousands(trimZeros(buf));
}

} // namespace

std::string formatCount(std::int64_t n)
{
    return withThousands(std::to_string(n));
}

std::string formatBytes(std::int64_t bytes, ByteUnit u)
{
    return formatNumber(double(bytes) / unitBytes(u)) + " " + unitName(u);
}

std::string formatParameters(std::int64_t parameters)
{
    const double p = double(parameters);
    if (p >= 1e12)
        return formatNumber(p / 1e12) + "T";
    if (p >= 1e9)
        return formatNumber(p / 1e9) + "B";
    if (p >= 1e6)
        return formatNumber(p / 1e6) + "M";
    return formatNumber(p);
}

std::string verdictText(const Scenario &s, const MemoryReport &r, ByteUnit u)
{
    return verdictText(verdict(s, r), s, r, u);
}

std::string verdictText(const Verdict &v, const Scenario &s, const MemoryReport &r, ByteUnit u)
{
    if (v.kind == Verdict::Kind::Invalid)
        return "Cannot estimate: " + r.error;
    const std::string perGpu = r.gpuCount() == 1 ? "" : " per GPU";
    // "usable" marks the driver-reported total (Gpu::usableBytes()), which is not the
    // datasheet figure the card is sold as.
    const std::string capacity =
        formatBytes(r.capacityBytes, u) + (s.gpu.driverReportedBytes > 0 ? " usable" : "");
    if (v.kind == Verdict::Kind::Fits)
        return "Fits: " + formatBytes(r.peakBytes(), u) + " of " + capacity + perGpu;

    // Host RAM per node = offloaded bytes per GPU x GPUs per node: smaller shards (more
    // ranks to shard over) or more RAM help; so does offloading less, if the GPUs can
    // hold what comes back. Every amount is a positive overflow or a held byte count.
    const std::string ranks = std::to_string(v.shardRanks) + " of " +
                              std::to_string(v.dataContextRanks) + " data x context ranks";
    const std::string shardOver = v.hsdpPartial() ? "a larger HSDP shard group (now " + ranks + ")"
                                                  : std::string("more GPUs to shard over");
    const std::string hostOver =
        "host RAM by " + formatBytes(v.hostOverflowBytesPerNode, u) + " per node";
    if (v.kind == Verdict::Kind::Host)
        return "Overflows " + hostOver + " (" + formatBytes(r.hostBytesPerNode, u) +
               " offloaded per node, " + formatBytes(r.hostCapacityBytesPerNode, u) +
               " available); GPU memory fits (" + formatBytes(r.peakBytes(), u) + " of " +
               capacity + perGpu + "): offload less, add host RAM, or use " + shardOver;

    // GPU memory overflows. When the busiest GPU's activations outweigh its model
    // states, no ZeRO stage or GPU count helps: data parallelism does not split them.
    std::string reason;
    if (v.dominant == Verdict::Dominant::Activations) {
        reason = "activations (" + formatBytes(v.busiestActivationBytes, u) +
                 ") dominate and sharding does not split them: recompute, or split the sequence "
                 "(context or tensor parallel)";
    } else {
        const std::string hsdp = v.hsdpPartial() ? " over " + ranks + " (HSDP)" : "";
        switch (s.layout.zeroStage) {
        case ZeroStage::Ddp:
            reason = r.gpuCount() == 1 ? "one GPU must hold every model state"
                                       : "DDP keeps a full copy on every GPU";
            break;
        case ZeroStage::Zero1:
            reason = "ZeRO-1 shards only optimizer states" + hsdp +
                     "; weights and gradients stay replicated";
            break;
        case ZeroStage::Zero2:
            reason =
                "ZeRO-2 shards gradients and optimizer states" + hsdp + "; weights stay replicated";
            break;
        case ZeroStage::Zero3:
            reason = v.hsdpPartial()
                         ? "ZeRO-3 shards cover only " + ranks +
                               " (HSDP), so each GPU's share is too large: use a larger shard "
                               "group (up to " +
                               std::to_string(v.dataContextRanks) + ")"
                         : "even fully sharded, each GPU's share is too large: add GPUs or use a "
                           "leaner recipe";
            break;
        }
    }
    const std::string gpuOver = formatBytes(v.gpuOverflowBytes, u) + perGpu;
    if (v.kind == Verdict::Kind::Gpu)
        return "Overflows by " + gpuOver + ": " + reason;
    return "Overflows by " + gpuOver + " and " + hostOver + ": " + reason + "; host RAM holds " +
           formatBytes(r.hostCapacityBytesPerNode, u) + " of the " +
           formatBytes(r.hostBytesPerNode, u) + " offloaded per node: add host RAM or use " +
           shardOver;
}

std::string scenarioFileStem(const Scenario &s)
{
    // Keep [a-z0-9]; anything else becomes one hyphen, none at the ends.
    const auto slug = [](std::string_view text) {
        std::string out;
        for (const char ch : text) {
            const char c = (ch >= 'A' && ch <= 'Z') ? char(ch - 'A' + 'a') : ch;
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
                out += c;
            else if (!out.empty() && out.back() != '-')
                out += '-';
        }
        while (!out.empty() && out.back() == '-')
            out.pop_back();
        return out;
    };
    std::string model = slug(s.model.id.empty() ? s.model.displayName : s.model.id);
    if (model.empty())
        model = "model";
    std::string card = slug(s.gpu.shortName.empty() ? s.gpu.id : s.gpu.shortName);
    if (card.empty())
        card = "gpu";
    // "ZeRO-3/FSDP" -> "zero3": the stage's name before any alias.
    const std::string_view stage = zeroStageName(s.layout.zeroStage);
    std::string strategy = slug(stage.substr(0, stage.find('/')));
    std::erase(strategy, '-');
    std::string stem = model + "-" + std::to_string(s.layout.gpus) + "x" + card + "-" + strategy;
    const std::pair<const char *, std::int64_t> degrees[] = {{"t", s.layout.tensorParallel},
                                                             {"p", s.layout.pipelineParallel},
                                                             {"c", s.layout.contextParallel},
                                                             {"e", s.layout.expertParallel}};
    for (const auto &[name, degree] : degrees)
        if (degree > 1)
            stem += std::string("-") + name + std::to_string(degree);
    return stem;
}

} // namespace shardscope
