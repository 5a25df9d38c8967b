#include "layout.h"

#include "enumtable.h"
#include "framework.h"

#include <cctype>
#include <string>

namespace shardscope {

namespace {

/// ZeroStage's names; the aliases are DeepSpeed's stage numbers and PyTorch FSDP's
/// ShardingStrategy names (NO_SHARD, SHARD_GRAD_OP, FULL_SHARD).
constexpr EnumTable<ZeroStage, 4> zeroStages{{
    {ZeroStage::Ddp, "ddp", "DDP", {"0", "zero0", "no_shard"}},
    {ZeroStage::Zero1, "zero1", "ZeRO-1", {"1", "zero-1"}},
    {ZeroStage::Zero2, "zero2", "ZeRO-2", {"2", "zero-2", "shard_grad_op"}},
    {ZeroStage::Zero3, "zero3", "ZeRO-3 / FSDP", {"3", "zero-3", "fsdp", "full_shard"}},
}};

constexpr EnumTable<Offload, 3> offloads{{
    {Offload::None, "none"},
    {Offload::Optimizer, "optimizer", {}, {"cpu"}},
    {Offload::OptimizerAndParams, "optimizer+params", {}, {"params"}},
}};

constexpr EnumTable<FsdpReshard, 3> fsdpReshards{{
    {FsdpReshard::Default, "default"},
    {FsdpReshard::Always, "always"},
    {FsdpReshard::Never, "never"},
}};

} // namespace

std::string_view fsdpReshardId(FsdpReshard r)
{
    return enumId(fsdpReshards, r, "default");
}

std::optional<FsdpReshard> parseFsdpReshard(std::string_view text)
{
    return parseEnum(fsdpReshards, text);
}

std::string_view zeroStageId(ZeroStage s)
{
    return enumId(zeroStages, s, "ddp");
}

std::string_view zeroStageName(ZeroStage s)
{
    return enumName(zeroStages, s, "DDP");
}

std::optional<ZeroStage> parseZeroStage(std::string_view text)
{
    std::string t(text);
    for (auto &c : t)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return parseEnum(zeroStages, t);
}

std::string_view offloadId(Offload o)
{
    return enumId(offloads, o, "none");
}

std::optional<Offload> parseOffload(std::string_view text)
{
    return parseEnum(offloads, text);
}

std::string_view frameworkId(Framework f)
{
    return frameworkProfile(f).id;
}

std::string_view frameworkName(Framework f)
{
    return frameworkProfile(f).name;
}

std::optional<Framework> parseFramework(std::string_view text)
{
    const std::span<const FrameworkProfile> all = frameworkProfiles();
    for (std::size_t i = 0; i < all.size(); ++i) {
        const FrameworkProfile &f = all[i];
        if (text == f.id)
            return Framework(i);
        for (std::string_view alias : f.aliases)
            if (!alias.empty() && text == alias)
                return Framework(i);
    }
    return std::nullopt;
}

} // namespace shardscope
