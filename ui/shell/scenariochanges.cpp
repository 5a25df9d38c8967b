#include "scenariochanges.h"

#include "layout.h"
#include "qtext.h"
#include "schedule.h"

#include <QLocale>
#include <QStringList>

namespace shardscope {

namespace {

bool sameModel(const Model &a, const Model &b)
{
    // Presets and imports are told apart by id and name; a model edited in place keeps
    // both, so its counts and shape decide.
    return a.id == b.id && a.displayName == b.displayName && a.source == b.source &&
           a.plainParameters == b.plainParameters &&
           a.architecture.has_value() == b.architecture.has_value() &&
           a.parameters() == b.parameters() && a.activeParameters() == b.activeParameters();
}

bool sameRecipe(const Recipe &a, const Recipe &b)
{
    return a.id == b.id && a.displayName == b.displayName && a.source == b.source &&
           a.weightBytes == b.weightBytes && a.gradientBytes == b.gradientBytes &&
           a.masterWeightBytes == b.masterWeightBytes && a.optimizerBytes == b.optimizerBytes;
}

bool sameGpu(const Gpu &a, const Gpu &b)
{
    return a.id == b.id && a.name == b.name && a.shortName == b.shortName &&
           a.capacityBytes == b.capacityBytes && a.driverReportedBytes == b.driverReportedBytes &&
           a.source == b.source;
}

} // namespace

QString ScenarioChange::text() const
{
    return label + QStringLiteral(" → ") + value;
}

QString settingValueText(const Setting &setting, std::int64_t value)
{
    switch (setting.kind) {
    case SettingKind::Boolean:
        return value ? QStringLiteral("on") : QStringLiteral("off");
    case SettingKind::Choice:
        if (setting.key == "strategy")
            return toQString(zeroStageName(ZeroStage(value)));
        if (setting.key == "schedule")
            return toQString(pipelineScheduleName(PipelineSchedule(value)));
        return QString::fromStdString(settingText(setting, value));
    case SettingKind::Integer:
        break;
    }
    if (setting.key == "hsdp_shard" && value == 0)
        return QStringLiteral("off");
    const QLocale english(QLocale::English);
    if (value % setting.scale != 0) // only byte counts have a scale (MiB, GB)
        return english.toString(qlonglong(value)) + QStringLiteral(" bytes");
    const std::int64_t shown = value / setting.scale;
    const QString number = english.toString(qlonglong(shown));
    QString unit = toQString(setting.displayUnit);
    if (unit.isEmpty())
        return number;
    if (unit == QStringLiteral("%"))
        return number + unit;
    if (shown == 1 && unit.endsWith(u's')) // "1 sequence", "1 token"
        unit.chop(1);
    return number + u' ' + unit;
}

std::vector<ScenarioChange> scenarioChanges(const Scenario &before, ByteUnit unitBefore,
                                            const Scenario &after, ByteUnit unitAfter)
{
    std::vector<ScenarioChange> out;
    if (!sameModel(before.model, after.model))
        out.push_back({QStringLiteral("model"), QStringLiteral("Model"),
                       after.model.displayName.empty()
                           ? QStringLiteral("a custom model")
                           : QString::fromStdString(after.model.displayName)});
    if (!sameRecipe(before.recipe, after.recipe))
        out.push_back({QStringLiteral("recipe"), QStringLiteral("Recipe"),
                       after.recipe.displayName.empty()
                           ? QStringLiteral("a custom recipe")
                           : QString::fromStdString(after.recipe.displayName)});
    if (!sameGpu(before.gpu, after.gpu))
        out.push_back({QStringLiteral("gpu"), QStringLiteral("GPU"),
                       after.gpu.name.empty() ? QStringLiteral("a custom GPU")
                                              : QString::fromStdString(after.gpu.name)});
    for (const Setting &setting : settings()) {
        const std::int64_t v = setting.get(after);
        if (setting.get(before) != v)
            out.push_back(
                {toQString(setting.key), toQString(setting.label), settingValueText(setting, v)});
    }
    if (unitBefore != unitAfter)
        out.push_back({QStringLiteral("unit"), QStringLiteral("Unit"),
                       QString::fromStdString(unitName(unitAfter))});
    return out;
}

QString changesSentence(const std::vector<ScenarioChange> &changes)
{
    if (changes.empty())
        return QStringLiteral("No settings changed.");
    QStringList parts;
    for (const ScenarioChange &c : changes)
        parts << c.text();
    return QStringLiteral("Changed: ") + parts.join(QStringLiteral(", "));
}

} // namespace shardscope
