#include "catalog.h"

#include "inputlimits.h"
#include "modeljson.h"
#include "qtext.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>
#include <cstdlib>

namespace shardscope {

namespace {

QJsonArray readArray(const QByteArray &bytes, const char *file, const char *key, QString *error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: %2 at offset %3")
                     .arg(QLatin1String(file), pe.errorString())
                     .arg(pe.offset);
        return {};
    }
    const QJsonValue arr = doc.object().value(QLatin1String(key));
    if (!arr.isArray())
        *error = QStringLiteral("%1: no \"%2\" array").arg(QLatin1String(file), QLatin1String(key));
    return arr.toArray();
}

QString entryName(const char *file, const QJsonObject &o, qsizetype index)
{
    const QString id = o.value(QLatin1String("id")).toString();
    return QStringLiteral("%1 entry %2%3")
        .arg(QLatin1String(file))
        .arg(index)
        .arg(id.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(id));
}

/// The entries of `file`'s `key` array, each read by `parse(object, where, error)` and
/// appended to `out`; false, with `*error` set, at the first that fails.
template <typename T, typename Parse>
bool readEntries(const QByteArray &bytes, const char *file, const char *key, Parse parse,
                 std::vector<T> &out, QString *error)
{
    const QJsonArray entries = readArray(bytes, file, key, error);
    if (!error->isEmpty())
        return false;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QJsonObject o = entries.at(i).toObject();
        std::optional<T> entry = parse(o, entryName(file, o, i), error);
        if (!entry)
            return false;
        out.push_back(std::move(*entry));
    }
    return true;
}

/// One recipes.json entry; `where` names it in the error.
std::optional<Recipe> recipeFromJson(const QJsonObject &o, const QString &where, QString *err)
{
    Recipe r;
    r.id = o.value(QLatin1String("id")).toString().toStdString();
    r.displayName = o.value(QLatin1String("name")).toString().toStdString();
    r.source = o.value(QLatin1String("source")).toString().toStdString();
    if (r.id.empty() || !readJsonInt(o, "weights", &r.weightBytes, err, where) ||
        !readJsonInt(o, "gradients", &r.gradientBytes, err, where) ||
        !readJsonInt(o, "master_weights", &r.masterWeightBytes, err, where) ||
        !readJsonInt(o, "optimizer", &r.optimizerBytes, err, where)) {
        if (err->isEmpty())
            *err = where + QStringLiteral(": needs \"id\"");
        return std::nullopt;
    }
    if (const std::string e = validateRecipe(r); !e.empty()) {
        *err = where + QStringLiteral(": ") + QString::fromStdString(e);
        return std::nullopt;
    }
    return r;
}

/// One gpus.json entry; `where` names it in the error.
std::optional<Gpu> gpuFromJson(const QJsonObject &o, const QString &where, QString *err)
{
    Gpu g;
    g.id = o.value(QLatin1String("id")).toString().toStdString();
    g.name = o.value(QLatin1String("name")).toString().toStdString();
    g.shortName = o.value(QLatin1String("short")).toString().toStdString();
    g.source = o.value(QLatin1String("source")).toString().toStdString();
    std::int64_t gb = 0, mib = 0;
    if (g.id.empty() || g.shortName.empty() || !readJsonInt(o, "capacity_gb", &gb, err, where) ||
        !readJsonInt(o, "driver_mib", &mib, err, where, false) || gb <= 0 || gb > 100'000) {
        if (err->isEmpty())
            *err = where + QStringLiteral(": needs \"id\", \"short\" and a capacity_gb "
                                          "between 1 and 100000");
        return std::nullopt;
    }
    g.capacityBytes = gb * 1'000'000'000;
    g.driverReportedBytes = mib * 1024 * 1024;
    // Optional speeds (files written before they existed stay valid): 0 = unknown.
    const struct
    {
        const char *key;
        double scale;
        double *out;
    } speeds[] = {{"bf16_tflops", 1e12, &g.bf16FlopsPerSecond},
                  {"fp8_tflops", 1e12, &g.fp8FlopsPerSecond},
                  {"mxfp8_tflops", 1e12, &g.mxfp8FlopsPerSecond},
                  {"memory_gbps", 1e9, &g.memoryBytesPerSecond},
                  {"nvlink_gbps", 1e9, &g.nvlinkBytesPerSecond},
                  {"attention_tflops", 1e12, &g.attentionFlopsPerSecond},
                  {"matmul_efficiency", 1, &g.matmulEfficiency}};
    for (const auto &sp : speeds) {
        const QJsonValue v = o.value(QLatin1String(sp.key));
        if (v.isUndefined())
            continue;
        if (sp.out == &g.matmulEfficiency) {
            if (!v.isDouble() || !(v.toDouble() >= 0) || v.toDouble() > 1) {
                *err = where + QStringLiteral(": \"%1\" must be a number from 0 to 1")
                                   .arg(QLatin1String(sp.key));
                return std::nullopt;
            }
        } else if (!v.isDouble() || !validGpuSpeed(v.toDouble())) {
            *err = where + QStringLiteral(": \"%1\" must be 0 (unknown) or a number from "
                                          "%2 to %3")
                               .arg(QLatin1String(sp.key))
                               .arg(minGpuSpeedUnits)
                               .arg(maxGpuSpeedUnits);
            return std::nullopt;
        }
        *sp.out = v.toDouble() * sp.scale;
    }
    g.speedSource = o.value(QLatin1String("speed_source")).toString().toStdString();
    return g;
}

} // namespace

bool Catalog::readFineTuningPresets(const QByteArray &recipes, Catalog &c, QString *err)
{
    const QJsonValue list =
        QJsonDocument::fromJson(recipes).object().value(QLatin1String("fine_tuning"));
    if (list.isUndefined())
        return true;
    if (!list.isArray()) {
        *err = QStringLiteral("recipes.json: \"fine_tuning\" must be an array");
        return false;
    }
    const QJsonArray ps = list.toArray();
    for (qsizetype i = 0; i < ps.size(); ++i) {
        const QJsonObject o = ps.at(i).toObject();
        const QString where = entryName("recipes.json fine_tuning", o, i);
        FineTuningPreset p;
        p.id = o.value(QLatin1String("id")).toString().toStdString();
        p.name = o.value(QLatin1String("name")).toString().toStdString();
        p.help = o.value(QLatin1String("help")).toString().toStdString();
        p.recipeId = o.value(QLatin1String("recipe")).toString().toStdString();
        if (p.id.empty() || p.name.empty()) {
            *err = where + QStringLiteral(": needs \"id\" and \"name\"");
            return false;
        }
        if (!p.recipeId.empty() && !c.recipe(p.recipeId)) {
            *err = where + QStringLiteral(": unknown recipe '%1'").arg(toQString(p.recipeId));
            return false;
        }
        const QJsonObject values = o.value(QLatin1String("settings")).toObject();
        for (auto it = values.begin(); it != values.end(); ++it) {
            const std::string key = it.key().toStdString();
            const Setting *setting = settingByKey(key);
            if (!setting) {
                *err = where + QStringLiteral(": unknown setting '%1'").arg(it.key());
                return false;
            }
            std::string why;
            const auto v = parseSettingText(*setting, it.value().toString().toStdString(), &why);
            if (!v) {
                *err = where + QStringLiteral(": %1 %2").arg(it.key(), toQString(why));
                return false;
            }
            p.values.push_back({setting, *v});
        }
        c.m_fineTuning.push_back(std::move(p));
    }
    return true;
}

void applyFineTuningPreset(const Catalog &catalog, const FineTuningPreset &p, Scenario &s)
{
    applySettings(s, p.values);
    if (!p.recipeId.empty()) {
        s.recipe = *catalog.recipe(p.recipeId);
        return;
    }
    for (const FineTuningPreset &other : catalog.fineTuningPresets())
        if (!other.recipeId.empty() && other.recipeId == s.recipe.id &&
            !catalog.recipes().empty()) {
            s.recipe = catalog.recipes().front();
            return;
        }
}

std::optional<Catalog> Catalog::fromJson(const QByteArray &models, const QByteArray &recipes,
                                         const QByteArray &gpus, QString *error)
{
    QString localError;
    QString *err = error ? error : &localError;
    err->clear();
    Catalog c;

    if (!readEntries(models, "models.json", "models", modelFromJson, c.m_models, err) ||
        !readEntries(recipes, "recipes.json", "recipes", recipeFromJson, c.m_recipes, err) ||
        !readFineTuningPresets(recipes, c, err) ||
        !readEntries(gpus, "gpus.json", "gpus", gpuFromJson, c.m_gpus, err))
        return std::nullopt;
    if (c.m_models.empty() || c.m_recipes.empty() || c.m_gpus.empty()) {
        *err = QStringLiteral("catalog: models, recipes and gpus must each have an entry");
        return std::nullopt;
    }
    return c;
}

const Catalog &Catalog::builtIn()
{
    static const Catalog catalog = [] {
        auto read = [](const char *name) {
            QFile f(QStringLiteral(":/shardscope/data/") + QLatin1String(name));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        QString error;
        auto c = fromJson(read("models.json"), read("recipes.json"), read("gpus.json"), &error);
        if (!c) {
            std::fprintf(stderr, "shardscope: built-in catalog is broken: %s\n", qPrintable(error));
            std::abort();
        }
        return *c;
    }();
    return catalog;
}

template <typename T> static const T *findById(const std::vector<T> &v, std::string_view id)
{
    for (const auto &x : v)
        if (x.id == id)
            return &x;
    return nullptr;
}

const Model *Catalog::model(std::string_view id) const
{
    return findById(m_models, id);
}
const Recipe *Catalog::recipe(std::string_view id) const
{
    return findById(m_recipes, id);
}
const Gpu *Catalog::gpu(std::string_view id) const
{
    return findById(m_gpus, id);
}

} // namespace shardscope
