#include "layout.h"

#include "framework.h"

#include <cctype>
#include <string>

namespace shardscope {

std::string_view zeroStageId(ZeroStage s)
{
    switch (s) {
    case ZeroStage::Ddp:
        return "ddp";
    case ZeroStage::Zero1:
        return "zero1";
    case ZeroStage::Zero2:
        return "zero2";
    case ZeroStage::Zero3:
        return "zero3";
    }
    return "ddp";
}

std::string_view zeroStageName(ZeroStage s)
{
    switch (s) {
    case ZeroStage::Ddp:
        return "DDP";
    case ZeroStage::Zero1:
        return "ZeRO-1";
    case ZeroStage::Zero2:
        return "ZeRO-2";
    case ZeroStage::Zero3:
        return "ZeRO-3 / FSDP";
    }
    return "DDP";
}

std::optional<ZeroStage> parseZeroStage(std::string_view text)
{
    std::string t(text);
    for (auto &c : t)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    if (t == "ddp" || t == "0" || t == "zero0" || t == "no_shard")
        return ZeroStage::Ddp;
    if (t == "zero1" || t == "1" || t == "zero-1")
        return ZeroStage::Zero1;
    if (t == "zero2" || t == "2" || t == "zero-2" || t == "shard_grad_op")
        return ZeroStage::Zero2;
    if (t == "zero3" || t == "3" || t == "zero-3" || t == "fsdp" || t == "full_shard")
        return ZeroStage::Zero3;
    return std::nullopt;
}

std::string_view offloadId(Offload o)
{
    switch (o) {
    case Offload::None:
        return "none";
    case Offload::Optimizer:
        return "optimizer";
    case Offload::OptimizerAndParams:
        return "optimizer+params";
    }
    return "none";
}

std::optional<Offload> parseOffload(std::string_view text)
{
    if (text == "none")
        return Offload::None;
    if (text == "optimizer" || text == "cpu")
        return Offload::Optimizer;
    if (text == "optimizer+params" || text == "params")
        return Offload::OptimizerAndParams;
    return std::nullopt;
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
