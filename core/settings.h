#pragma once

// The settings table: every scalar setting of a Scenario, declared once. The
// command line (app/reportcommand), scenario files (io/scenariofile), the window's
// controls (ui/panels/advancedpanel, ui/shell/mainwindow) and the README's flag table are all
// derived from it, so a setting has one name, one range and one help line
// everywhere. Model, recipe and GPU are structured values with their own readers
// (catalog ids or objects) and are not in the table.

#include "scenario.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace shardscope {

/// How a setting's value is written: a whole number, on/off, or one of named ids.
enum class SettingKind
{
    Integer, ///< a whole number in [min, max] (storage units), optionally one of `allowed`
    Boolean, ///< false/true; on the command line on|off, or a switch (see Setting::isSwitch)
    Choice   ///< one of `choices` ids; the value is the enum's integer
};

/// One scalar setting. Values are std::int64_t in storage units (the Scenario
/// field's unit: bytes, elements, GPUs, tokens; an enum's integer; 0/1). The
/// command line and the window show `displayUnit`, where one display unit is
/// `scale` storage units (MiB: 1,048,576 bytes; GB: 1e9 bytes).
struct Setting
{
    std::string_view key;   ///< scenario-file key, "cuda_context_bytes"
    std::string_view flag;  ///< command-line flag without "--", "cuda-context-mib"
    std::string_view label; ///< the window's label, "CUDA context"
    std::string_view help;  ///< one line: what it sets, and the source of its default
    SettingKind kind = SettingKind::Integer;
    std::int64_t min = 0;              ///< smallest value, storage units (Integer)
    std::int64_t max = 0;              ///< largest value, storage units (Integer)
    std::string_view displayUnit = {}; ///< "MiB", "GB", "tokens"; empty for plain counts
    std::int64_t scale = 1;            ///< storage units per display unit
    /// Choice ids in enum order (value i is choices[i]); for an Integer, a non-empty
    /// list of the only values allowed, as decimal text ("1", "2", "4", "8").
    std::span<const std::string_view> choices = {};
    /// Parses a Choice id (aliases too: "fsdp" for ZeRO-3); nullopt when unknown.
    std::optional<std::int64_t> (*parseChoice)(std::string_view) = nullptr;
    /// When set, the valid values as one phrase, in place of the choices listed one by
    /// one (a Choice with many ids: lora_targets' 128 combinations).
    std::string_view rangeText = {};
    /// Boolean given on the command line as a bare switch (--uneven-stages), not on|off.
    bool isSwitch = false;
    std::int64_t (*get)(const Scenario &) = nullptr; ///< reads the Scenario field
    void (*set)(Scenario &, std::int64_t) = nullptr; ///< writes it (value already checked)

    /// Smallest and largest value in display units: ceil(min / scale), floor(max / scale).
    std::int64_t displayMin() const { return (min + scale - 1) / scale; }
    std::int64_t displayMax() const { return max / scale; }
};

/// Every table setting, in the order the help text and the README list them.
std::span<const Setting> settings();

/// The setting with this scenario-file key, or nullptr.
const Setting *settingByKey(std::string_view key);

/// The setting with this command-line flag (without "--"), or nullptr.
const Setting *settingByFlag(std::string_view flag);

/// Checks a value in storage units against the setting's range, allowed values or
/// choices. Empty when valid, else what is wrong without naming the setting:
/// "must be a whole number from 1 to 65536 (got 0)".
std::string checkSettingValue(const Setting &s, std::int64_t value);

/// Parses command-line text in display units ("8", "on", "zero3") into storage
/// units, checked with checkSettingValue. nullopt plus `*error` as
/// "must be on or off (got 'yes')" when the text is not a valid value; the caller
/// names the flag.
std::optional<std::int64_t> parseSettingText(const Setting &s, std::string_view text,
                                             std::string *error);

/// The value as command-line text in display units: "8", "on", "zero3", "512"
/// (MiB). Exact, and parsed back by parseSettingText, when the value is a whole
/// number of display units; otherwise the storage-unit number (for messages only).
std::string settingText(const Setting &s, std::int64_t value);

/// The valid values as one phrase for help and errors: "1 to 1,024",
/// "on or off", "one of: none, selective, full", "1, 2, 4 or 8".
std::string settingRangeText(const Setting &s);

/// Model chunks per stage that a schedule takes when no chunk count is given:
/// 2 for interleaved 1F1B (the smallest that interleaves; Narayanan et al. 2021),
/// else 1.
int defaultChunks(PipelineSchedule s);

/// Applies checked values to a scenario in table order, then, when the schedule
/// was set and the chunks were not, sets chunks to defaultChunks(schedule). Every
/// front end applies settings through this, so the rule lives once.
struct SettingValue
{
    const Setting *setting;
    std::int64_t value; ///< storage units, already checked
};
void applySettings(Scenario &s, std::span<const SettingValue> values);

} // namespace shardscope
