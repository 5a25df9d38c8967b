#include "framework.h"

#include "frameworks/deepspeed.h"
#include "frameworks/fsdp2.h"
#include "frameworks/generic.h"
#include "frameworks/megatron.h"

namespace shardscope {

namespace {

/// The profiles in Framework enum order: adding a framework adds its file's profile here
/// and its enumerator to Framework (core/layout.h).
constexpr std::array profiles{frameworks::generic, frameworks::deepSpeed, frameworks::fsdp2,
                              frameworks::megatron};

constexpr std::array<std::string_view, profiles.size()> ids = [] {
    std::array<std::string_view, profiles.size()> out{};
    for (std::size_t i = 0; i < profiles.size(); ++i)
        out[i] = profiles[i].id;
    return out;
}();

static_assert(profiles[std::size_t(Framework::Generic)].id == "generic");
static_assert(profiles[std::size_t(Framework::DeepSpeed)].id == "deepspeed");
static_assert(profiles[std::size_t(Framework::Fsdp2)].id == "fsdp2");
static_assert(profiles[std::size_t(Framework::Megatron)].id == "megatron");

} // namespace

std::span<const FrameworkProfile> frameworkProfiles()
{
    return profiles;
}

const FrameworkProfile &frameworkProfile(Framework f)
{
    const auto i = std::size_t(f);
    return i < profiles.size() ? profiles[i] : profiles[0];
}

std::span<const std::string_view> frameworkIds()
{
    return ids;
}

} // namespace shardscope
