#pragma once

#include "format.h"
#include "scenario.h"
#include "settings.h"

#include <QString>
#include <vector>

namespace shardscope {

/// One setting that differs between two scenarios, named as the window names it.
struct ScenarioChange
{
    QString key;   ///< scenario-file key: "seq", "offload", "model", "recipe", "gpu", "unit"
    QString label; ///< the window's label: "Sequence length", "CPU offload", "Model"
    QString value; ///< the new value as the window shows it: "8,192 tokens", "optimizer"

    /// "Sequence length → 8,192 tokens".
    QString text() const;
};

/// A table setting's value (storage units) as the window shows it: whole display units
/// with English digit grouping and the unit ("8,192 tokens", "512 MiB", "5%"), "on" /
/// "off", a strategy or schedule by its display name ("ZeRO-3 / FSDP", "interleaved
/// 1F1B"), other choices by their scenario-file id ("optimizer"), and an HSDP shard
/// group of 0 as "off". A byte count that is not a whole number of its display unit
/// (a scenario file may hold any) is shown in bytes: "1,000 bytes".
QString settingValueText(const Setting &setting, std::int64_t value);

/// What differs from `before` to `after`, in the order the window's controls come:
/// the model, recipe and GPU (by name; any field of theirs differing counts), every
/// settings-table entry of core/settings.h whose Setting::get differs, in table order,
/// then the display unit. Empty when all of these agree.
std::vector<ScenarioChange> scenarioChanges(const Scenario &before, ByteUnit unitBefore,
                                            const Scenario &after, ByteUnit unitAfter);

/// The changes as one line for the lesson bar: "Changed: Sequence length → 8,192
/// tokens, CPU offload → optimizer", or "No settings changed." when there are none.
QString changesSentence(const std::vector<ScenarioChange> &changes);

} // namespace shardscope
