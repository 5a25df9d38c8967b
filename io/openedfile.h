#pragma once

#include "model.h"
#include "scenariofile.h"

#include <QString>
#include <optional>

namespace shardscope {

/// What a file the window opens (File > Open, a drop, a recent file, the command line)
/// holds: a whole ShardScope scenario, or only a model from a Hugging Face config.json.
/// Exactly one of the two is set.
struct OpenedFile
{
    std::optional<ScenarioDocument> scenario; ///< a scenario file (io/scenariofile.h)
    std::optional<Model> model;               ///< a config.json's model (io/hfconfig.h)
};

/// Reads `path` with readInputFile() (16 MiB, regular files only) and tries it as a
/// scenario, then as a Hugging Face config.json (the model is named after the file's
/// folder when the config names none). On failure returns nullopt and sets `*error` to
/// one line: a file that says it is a scenario (its "schema") gets the scenario reader's
/// reason alone, any other file both readers' reasons.
std::optional<OpenedFile> openScenarioOrConfig(const QString &path, QString *error);

} // namespace shardscope
