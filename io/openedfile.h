#pragma once

#include "launchconfigread.h"
#include "model.h"
#include "scenariofile.h"

#include <QString>
#include <optional>

namespace shardscope {

/// What a file the window opens (File > Open, a drop, a recent file, the command line)
/// holds: a whole ShardScope scenario, only a model from a Hugging Face config.json, or a
/// layout from a launch config. Exactly one of the three is set.
struct OpenedFile
{
    std::optional<ScenarioDocument> scenario; ///< a scenario file (io/scenariofile.h)
    std::optional<Model> model;               ///< a config.json's model (io/hfconfig.h)
    std::optional<LaunchConfigRead> launch;   ///< a launch config (io/launchconfigread.h)
};

/// Reads `path` with readInputFile() (16 MiB, regular files only). A .yaml, .yml, .toml,
/// .sh, .bash, .args or .txt file is read as a launch config (readLaunchConfig()) alone;
/// any other is tried as a scenario, then as a Hugging Face config.json (the model is
/// named after the file's folder when the config names none), then as a launch config
/// (a DeepSpeed JSON). On failure returns nullopt and sets `*error` to one line: a
/// launch-config file or a file that says it is a scenario (its "schema") gets that
/// reader's reason alone, any other file every reader's reason.
std::optional<OpenedFile> openScenarioOrConfig(const QString &path, QString *error);

} // namespace shardscope
