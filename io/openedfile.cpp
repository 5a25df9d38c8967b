#include "openedfile.h"

#include "hfconfig.h"
#include "inputfile.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace shardscope {

std::optional<OpenedFile> openScenarioOrConfig(const QString &path, QString *error)
{
    // The same reader, limit and messages as --scenario and --hf-config (io/inputfile.h).
    const auto read = readInputFile(path, error);
    if (!read)
        return std::nullopt;
    const QByteArray &bytes = *read;
    const QString name = QFileInfo(path).fileName();
    // A YAML, TOML or script file can only be a launch config: its reader's error alone.
    const auto format = detectLaunchFormat(QByteArray(), name);
    if (format && format != LaunchFormat::DeepSpeed) {
        auto launch = readLaunchConfig(bytes, name, error);
        if (!launch)
            return std::nullopt;
        return OpenedFile{std::nullopt, std::nullopt, std::move(launch)};
    }
    QString scenarioError;
    if (auto doc = scenarioFromBytes(bytes, name, &scenarioError))
        return OpenedFile{std::move(doc), std::nullopt, std::nullopt};
    // Not a scenario: perhaps a Hugging Face config.json.
    QString hfError;
    if (auto model = modelFromHfConfig(bytes, &hfError)) {
        if (model->displayName.empty())
            model->displayName = QFileInfo(path).dir().dirName().toStdString();
        return OpenedFile{std::nullopt, std::move(model), std::nullopt};
    }
    // Not a model either: perhaps a DeepSpeed config (a JSON object with its keys).
    QString launchError;
    if (detectLaunchFormat(bytes, name)) {
        if (auto launch = readLaunchConfig(bytes, name, &launchError))
            return OpenedFile{std::nullopt, std::nullopt, std::move(launch)};
    } else {
        launchError = QStringLiteral("not a launch config");
    }
    // A file that says it is a scenario gets the scenario's error alone.
    if (QJsonDocument::fromJson(bytes).object().value(QStringLiteral("schema")).toString() ==
        QLatin1String(scenarioFileSchema)) {
        *error = scenarioError;
        return std::nullopt;
    }
    *error = QStringLiteral("%1 is neither a ShardScope scenario (%2) nor a Hugging Face "
                            "config.json (%3) nor a DeepSpeed config (%4)")
                 .arg(name, scenarioError, hfError, launchError);
    return std::nullopt;
}

} // namespace shardscope
