#include "scenariofile.h"

#include "catalog.h"
#include "estimate.h"
#include "inputfile.h"
#include "inputlimits.h"
#include "jsonobject.h"
#include "modeljson.h"
#include "qtext.h"
#include "settings.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSettings>
#include <cmath>
#include <initializer_list>
#include <vector>

namespace shardscope {

namespace {

/// JSON numbers are doubles: whole numbers are exact up to 2^53.
constexpr double maxExactJson = 9007199254740992.0;

QString describe(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Double:
        return QString::number(v.toDouble(), 'g', 15);
    case QJsonValue::String:
        return QLatin1Char('"') + v.toString().left(40) + QLatin1Char('"');
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("nothing");
}

/// Reads patch keys one by one, remembering the first error; every reader returns
/// false after an error so a chain of && stops at the first bad key.
class Reader
{
public:
    Reader(const QJsonObject &o, QString where) : m_o(o), m_where(std::move(where)) {}

    bool has(const char *key) const { return m_o.contains(QLatin1String(key)); }
    QJsonValue value(const char *key) const { return m_o.value(QLatin1String(key)); }
    const QString &error() const { return m_error; }

    bool fail(const QString &message)
    {
        if (m_error.isEmpty())
            m_error = m_where + QStringLiteral(": ") + message;
        return false;
    }

    /// A whole number in [min, max], if the key is present.
    template <typename T> bool integer(const char *key, std::int64_t min, std::int64_t max, T *out)
    {
        if (!has(key))
            return true;
        const QJsonValue v = value(key);
        const double d = v.toDouble();
        if (!v.isDouble() || !std::isfinite(d) || std::abs(d) > maxExactJson ||
            d != std::floor(d) || d < double(min) || d > double(max))
            return fail(QStringLiteral("\"%1\" must be a whole number from %2 to %3 (got %4)")
                            .arg(QLatin1String(key))
                            .arg(min)
                            .arg(max)
                            .arg(describe(v)));
        *out = T(std::int64_t(d));
        return true;
    }

    bool boolean(const char *key, bool *out)
    {
        if (!has(key))
            return true;
        const QJsonValue v = value(key);
        if (!v.isBool())
            return fail(QStringLiteral("\"%1\" must be true or false (got %2)")
                            .arg(QLatin1String(key), describe(v)));
        *out = v.toBool();
        return true;
    }

    /// A string parsed by `parse`; `known` lists the accepted values for the message.
    template <typename T, typename Parse>
    bool choice(const char *key, Parse parse, const char *known, T *out)
    {
        if (!has(key))
            return true;
        const QJsonValue v = value(key);
        const std::optional<T> parsed =
            v.isString() ? parse(v.toString().toStdString()) : std::nullopt;
        if (!parsed)
            return fail(QStringLiteral("\"%1\" must be one of %2 (got %3)")
                            .arg(QLatin1String(key), QLatin1String(known), describe(v)));
        *out = *parsed;
        return true;
    }

    /// A settings-table value (core/settings.h), if the key is present: a whole
    /// number in storage units, true/false, or one of the choice ids exactly (files
    /// take only the ids the writer uses, no command-line aliases).
    bool setting(const Setting &s, std::vector<SettingValue> *out)
    {
        const std::string keyText(s.key);
        const char *key = keyText.c_str();
        if (!has(key))
            return true;
        std::int64_t v = 0;
        switch (s.kind) {
        case SettingKind::Integer:
            if (!integer(key, s.min, s.max, &v))
                return false;
            if (const std::string e = checkSettingValue(s, v); !e.empty())
                return fail(QStringLiteral("\"%1\" %2").arg(QLatin1String(key), toQString(e)));
            break;
        case SettingKind::Boolean: {
            bool b = false;
            if (!boolean(key, &b))
                return false;
            v = b;
            break;
        }
        case SettingKind::Choice: {
            const QJsonValue j = value(key);
            v = -1;
            for (std::size_t i = 0; j.isString() && i < s.choices.size(); ++i)
                if (j.toString() == toQString(s.choices[i]))
                    v = std::int64_t(i);
            if (v < 0) {
                QStringList known;
                for (std::string_view c : s.choices)
                    known << toQString(c);
                return fail(
                    QStringLiteral("\"%1\" must be one of %2 (got %3)")
                        .arg(QLatin1String(key), known.join(QStringLiteral(", ")), describe(j)));
            }
            break;
        }
        }
        out->push_back({&s, v});
        return true;
    }

    /// A string field of a nested object (optional; must be a string when present).
    bool text(const QJsonObject &o, const char *key, const QString &prefix, std::string *out)
    {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined())
            return true;
        if (!v.isString())
            return fail(QStringLiteral("\"%1%2\" must be a string (got %3)")
                            .arg(prefix, QLatin1String(key), describe(v)));
        *out = v.toString().toStdString();
        return true;
    }

    /// Refuses keys of `o` not in `allowed`, naming the first.
    bool onlyKeys(const QJsonObject &o, std::initializer_list<const char *> allowed,
                  const QString &prefix, const QStringList &ignored = {})
    {
        for (auto it = o.begin(); it != o.end(); ++it) {
            bool ok = ignored.contains(it.key());
            for (const char *a : allowed)
                ok = ok || it.key() == QLatin1String(a);
            if (!ok)
                return fail(QStringLiteral("unknown key \"%1%2\"").arg(prefix, it.key()));
        }
        return true;
    }

private:
    const QJsonObject &m_o;
    QString m_where;
    QString m_error;
};

/// Scenario keys outside the settings table: structured values and the display unit.
const std::initializer_list<const char *> structuredKeys = {"model", "recipe", "gpu", "unit"};

std::optional<ByteUnit> parseUnit(std::string_view s)
{
    if (s == "gb")
        return ByteUnit::GB;
    if (s == "gib")
        return ByteUnit::GiB;
    return std::nullopt;
}

/// Reads the scenario file's `key`, a catalog preset's id or an object: absent, `*out` is
/// kept; an id copies the preset `lookup` finds (unknown ids are refused); an object is
/// `readObject`'s. False, with the reason in `r`, when the value is neither.
template <typename T>
bool readPresetOrObject(Reader &r, const char *key,
                        const T *(Catalog::*lookup)(std::string_view) const,
                        bool (*readObject)(Reader &, const QJsonObject &, T *), T *out)
{
    if (!r.has(key))
        return true;
    const QJsonValue v = r.value(key);
    if (v.isString()) {
        const T *preset = (Catalog::builtIn().*lookup)(v.toString().toStdString());
        if (!preset)
            return r.fail(
                QStringLiteral("\"%1\": unknown preset %2").arg(QLatin1String(key), describe(v)));
        *out = *preset;
        return true;
    }
    if (!v.isObject())
        return r.fail(QStringLiteral("\"%1\" must be a preset id or an object (got %2)")
                          .arg(QLatin1String(key), describe(v)));
    return readObject(r, v.toObject(), out);
}

bool readModelObject(Reader &r, const QJsonObject &o, Model *out)
{
    // The keys themselves are modelFromJson's vocabulary (io/modeljson.h); here only
    // the types it would otherwise coerce silently are checked.
    for (const char *key : {"id", "name", "source"})
        if (o.contains(QLatin1String(key)) && !o.value(QLatin1String(key)).isString())
            return r.fail(QStringLiteral("\"model.%1\" must be a string (got %2)")
                              .arg(QLatin1String(key), describe(o.value(QLatin1String(key)))));
    for (const char *key :
         {"tied", "gated_mlp", "linear_biases", "layernorm_bias", "qkv_biases", "router_bias"})
        if (o.contains(QLatin1String(key)) && !o.value(QLatin1String(key)).isBool())
            return r.fail(QStringLiteral("\"model.%1\" must be true or false (got %2)")
                              .arg(QLatin1String(key), describe(o.value(QLatin1String(key)))));
    QString error;
    const auto m = modelFromJson(o, QStringLiteral("model"), &error);
    if (!m)
        return r.fail(error);
    if (!m->architecture && (m->plainParameters < 1 || m->plainParameters > maxParameters))
        return r.fail(QStringLiteral("\"model.parameters\" must be a whole number from 1 to %1 "
                                     "(got %2)")
                          .arg(maxParameters)
                          .arg(m->plainParameters));
    *out = *m;
    return true;
}

bool readRecipeObject(Reader &r, const QJsonObject &o, Recipe *out)
{
    const QString prefix = QStringLiteral("recipe.");
    Recipe rec{"custom", "Custom", "", 0, 0, 0, 0};
    if (!r.onlyKeys(o,
                    {"id", "name", "source", "weights", "gradients", "master_weights", "optimizer"},
                    prefix) ||
        !r.text(o, "id", prefix, &rec.id) || !r.text(o, "name", prefix, &rec.displayName) ||
        !r.text(o, "source", prefix, &rec.source))
        return false;
    if (rec.id.empty())
        rec.id = "custom";
    if (rec.displayName.empty())
        rec.displayName = "Custom";
    const char *keys[] = {"weights", "gradients", "master_weights", "optimizer"};
    std::int64_t *fields[] = {&rec.weightBytes, &rec.gradientBytes, &rec.masterWeightBytes,
                              &rec.optimizerBytes};
    Reader inner(o, QString());
    for (int i = 0; i < 4; ++i) {
        if (!o.contains(QLatin1String(keys[i])))
            return r.fail(QStringLiteral("missing \"recipe.%1\"").arg(QLatin1String(keys[i])));
        if (!inner.integer(keys[i], 0, 64, fields[i]))
            return r.fail(QStringLiteral("\"recipe.") + inner.error().mid(3));
    }
    if (rec.totalBytesPerParameter() <= 0)
        return r.fail(QStringLiteral("\"recipe\" needs at least one byte per parameter"));
    *out = rec;
    return true;
}

/// A GPU speed in a scenario file: its key, the catalog's unit (TFLOP/s or GB/s) in
/// base units, and the Gpu field it sets.
struct GpuSpeedKey
{
    const char *key;
    double scale;
    double Gpu::*field;
};
constexpr GpuSpeedKey gpuSpeedKeys[] = {{"bf16_tflops", 1e12, &Gpu::bf16FlopsPerSecond},
                                        {"fp8_tflops", 1e12, &Gpu::fp8FlopsPerSecond},
                                        {"mxfp8_tflops", 1e12, &Gpu::mxfp8FlopsPerSecond},
                                        {"memory_gbps", 1e9, &Gpu::memoryBytesPerSecond},
                                        {"nvlink_gbps", 1e9, &Gpu::nvlinkBytesPerSecond},
                                        {"attention_tflops", 1e12, &Gpu::attentionFlopsPerSecond},
                                        {"matmul_efficiency", 1, &Gpu::matmulEfficiency}};

bool readGpuObject(Reader &r, const QJsonObject &o, Gpu *out)
{
    const QString prefix = QStringLiteral("gpu.");
    Gpu gpu;
    gpu.id = "custom";
    gpu.name = "Custom GPU";
    if (!r.onlyKeys(o,
                    {"id", "name", "short", "capacity_bytes", "driver_bytes", "source",
                     "bf16_tflops", "fp8_tflops", "mxfp8_tflops", "memory_gbps", "nvlink_gbps",
                     "speed_source", "attention_tflops", "matmul_efficiency"},
                    prefix) ||
        !r.text(o, "id", prefix, &gpu.id) || !r.text(o, "name", prefix, &gpu.name) ||
        !r.text(o, "short", prefix, &gpu.shortName) || !r.text(o, "source", prefix, &gpu.source) ||
        !r.text(o, "speed_source", prefix, &gpu.speedSource))
        return false;
    // The step-time speeds, in the catalog's units (io/catalog.cpp); optional, so files
    // written before they existed still load (0: unknown, and step time says so).
    for (const GpuSpeedKey &k : gpuSpeedKeys) {
        const QJsonValue sv = o.value(QLatin1String(k.key));
        if (sv.isUndefined())
            continue;
        const bool share = k.field == &Gpu::matmulEfficiency; // a fraction, not a speed
        if (share && (!sv.isDouble() || !(sv.toDouble() >= 0) || sv.toDouble() > 1))
            return r.fail(QStringLiteral("\"gpu.%1\" must be a number from 0 to 1 (got %2)")
                              .arg(QLatin1String(k.key), describe(sv)));
        if (!share && (!sv.isDouble() || !validGpuSpeed(sv.toDouble())))
            return r.fail(QStringLiteral("\"gpu.%1\" must be 0 (unknown) or a number from %2 "
                                         "to %3 (got %4)")
                              .arg(QLatin1String(k.key))
                              .arg(minGpuSpeedUnits)
                              .arg(maxGpuSpeedUnits)
                              .arg(describe(sv)));
        gpu.*k.field = sv.toDouble() * k.scale;
    }
    if (!o.contains(QLatin1String("capacity_bytes")))
        return r.fail(QStringLiteral("missing \"gpu.capacity_bytes\""));
    Reader inner(o, QString());
    // Up to 1 PB per card: far above any accelerator, far below int64 overflow.
    if (!inner.integer("capacity_bytes", 1, 1'000'000'000'000'000, &gpu.capacityBytes) ||
        !inner.integer("driver_bytes", 0, 1'000'000'000'000'000, &gpu.driverReportedBytes))
        return r.fail(QStringLiteral("\"gpu.") + inner.error().mid(3));
    // An empty id or name reads as none given: "8 x Custom GPU", never "8 x :".
    if (gpu.id.empty())
        gpu.id = "custom";
    if (gpu.name.empty())
        gpu.name = "Custom GPU";
    if (gpu.shortName.empty())
        gpu.shortName = gpu.name;
    *out = gpu;
    return true;
}

QJsonObject recipeToJson(const Recipe &r)
{
    return {{"id", QString::fromStdString(r.id)},
            {"name", QString::fromStdString(r.displayName)},
            {"source", QString::fromStdString(r.source)},
            {"weights", qint64(r.weightBytes)},
            {"gradients", qint64(r.gradientBytes)},
            {"master_weights", qint64(r.masterWeightBytes)},
            {"optimizer", qint64(r.optimizerBytes)}};
}

QJsonObject gpuToJson(const Gpu &g)
{
    QJsonObject o{{"id", QString::fromStdString(g.id)},
                  {"name", QString::fromStdString(g.name)},
                  {"short", QString::fromStdString(g.shortName)},
                  {"capacity_bytes", qint64(g.capacityBytes)},
                  {"driver_bytes", qint64(g.driverReportedBytes)},
                  {"source", QString::fromStdString(g.source)},
                  {"speed_source", QString::fromStdString(g.speedSource)}};
    for (const GpuSpeedKey &k : gpuSpeedKeys)
        o.insert(QLatin1String(k.key), g.*k.field / k.scale);
    return o;
}

} // namespace

Scenario defaultScenario()
{
    const Catalog &c = Catalog::builtIn();
    return shardscope::defaultScenario(*c.model(defaultModelId), *c.recipe(defaultRecipeId),
                                       *c.gpu(defaultGpuId));
}

QJsonObject settingsToJson(const Scenario &s)
{
    QJsonObject o;
    for (const Setting &setting : settings()) {
        const std::int64_t v = setting.get(s);
        const QString key = toQString(setting.key);
        switch (setting.kind) {
        case SettingKind::Integer:
            o.insert(key, qint64(v));
            break;
        case SettingKind::Boolean:
            o.insert(key, v != 0);
            break;
        case SettingKind::Choice:
            o.insert(key, toQString(settingText(setting, v)));
            break;
        }
    }
    return o;
}

QJsonObject scenarioToJson(const Scenario &s, ByteUnit unit)
{
    QJsonObject o{
        {"schema", QLatin1String(scenarioFileSchema)},
        {"version", scenarioFileVersion},
        {"model", modelToJson(s.model)},
        {"recipe", recipeToJson(s.recipe)},
        {"gpu", gpuToJson(s.gpu)},
        {"unit", unit == ByteUnit::GiB ? QStringLiteral("gib") : QStringLiteral("gb")},
    };
    // Every table setting, in storage units (bytes, elements), booleans and choice ids.
    const QJsonObject table = settingsToJson(s);
    for (auto it = table.begin(); it != table.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

std::optional<ScenarioDocument> applyScenarioPatch(const ScenarioDocument &doc,
                                                   const QJsonObject &patch, const QString &where,
                                                   QString *error, const QStringList &ignoredKeys,
                                                   bool validateResult)
{
    ScenarioDocument out = doc;
    Scenario &s = out.scenario;
    Reader r(patch, where);
    // Unknown keys first, naming the first one.
    for (auto it = patch.begin(); it != patch.end(); ++it) {
        bool known =
            ignoredKeys.contains(it.key()) || settingByKey(it.key().toStdString()) != nullptr;
        for (const char *k : structuredKeys)
            known = known || it.key() == QLatin1String(k);
        if (!known) {
            *error = where + QStringLiteral(": unknown key \"%1\"").arg(it.key());
            return std::nullopt;
        }
    }
    std::vector<SettingValue> values;
    bool ok = readPresetOrObject(r, "model", &Catalog::model, readModelObject, &s.model) &&
              readPresetOrObject(r, "recipe", &Catalog::recipe, readRecipeObject, &s.recipe) &&
              readPresetOrObject(r, "gpu", &Catalog::gpu, readGpuObject, &s.gpu) &&
              r.choice("unit", parseUnit, "gb, gib", &out.unit);
    for (const Setting &setting : settings())
        ok = ok && r.setting(setting, &values);
    if (!ok) {
        *error = r.error();
        return std::nullopt;
    }
    applySettings(s, values);
    if (const std::string e = validateResult ? validate(s) : std::string(); !e.empty()) {
        *error = where + QStringLiteral(": ") + QString::fromStdString(e);
        return std::nullopt;
    }
    return out;
}

std::optional<ScenarioDocument> scenarioFromJson(const QJsonObject &o, const QString &where,
                                                 QString *error)
{
    const QJsonValue schema = o.value(QLatin1String("schema"));
    if (schema.toString() != QLatin1String(scenarioFileSchema)) {
        *error = where + QStringLiteral(": \"schema\" must be \"%1\" (got %2): not a ShardScope "
                                        "scenario file")
                             .arg(QLatin1String(scenarioFileSchema), describe(schema));
        return std::nullopt;
    }
    const QJsonValue version = o.value(QLatin1String("version"));
    const double v = version.toDouble(-1);
    if (!version.isDouble() || v < 1 || v != std::floor(v)) {
        *error = where + QStringLiteral(": \"version\" must be a whole number from 1 (got %1)")
                             .arg(describe(version));
        return std::nullopt;
    }
    if (v > scenarioFileVersion) {
        *error = where + QStringLiteral(": \"version\" %1 is newer than this ShardScope reads "
                                        "(%2); update ShardScope")
                             .arg(describe(version))
                             .arg(scenarioFileVersion);
        return std::nullopt;
    }
    if (!o.contains(QLatin1String("model"))) {
        *error = where + QStringLiteral(": missing \"model\"");
        return std::nullopt;
    }
    return applyScenarioPatch(ScenarioDocument{defaultScenario(), ByteUnit::GB}, o, where, error,
                              {QStringLiteral("schema"), QStringLiteral("version")});
}

std::optional<ScenarioDocument> scenarioFromBytes(const QByteArray &bytes, const QString &where,
                                                  QString *error)
{
    const std::optional<QJsonObject> o = jsonObjectFromBytes(
        bytes, where, QStringLiteral("a scenario file must be a JSON object"), error);
    if (!o)
        return std::nullopt;
    return scenarioFromJson(*o, where, error);
}

std::optional<ScenarioDocument> loadScenarioFile(const QString &path, QString *error)
{
    const auto bytes = readInputFile(path, error);
    if (!bytes)
        return std::nullopt;
    return scenarioFromBytes(*bytes, QFileInfo(path).fileName(), error);
}

bool writeFileAtomically(const QString &path, const std::function<bool(QSaveFile &)> &write,
                         QString *error)
{
    // A device, FIFO or folder is never replaced: QSaveFile would rename a regular file
    // over /dev/full, or write nothing and report success.
    if (const QFileInfo target(path); target.exists() && !target.isFile()) {
        *error = QStringLiteral("cannot write %1: not a regular file").arg(path);
        return false;
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    // flush() before commit(): Qt 6.4's commit() renames the temporary over the target
    // even when writing out its buffer fails (a full disk), so the old file would be
    // replaced by an empty or truncated one. A failed flush abandons the write.
    if (!write(f) || !f.flush()) {
        const QString why =
            f.errorString().isEmpty() ? QStringLiteral("writing failed") : f.errorString();
        f.cancelWriting();
        *error = QStringLiteral("cannot write %1: %2").arg(path, why);
        return false;
    }
    if (!f.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

bool writeAllBytes(QIODevice &device, const QByteArray &bytes)
{
    // A short write (a size limit or a disk filling up mid-write) is not an error to
    // QIODevice; writing the rest gets the system's reason (ENOSPC, EFBIG) recorded.
    for (qsizetype done = 0; done < bytes.size();) {
        const qint64 n = device.write(bytes.constData() + done, bytes.size() - done);
        if (n <= 0)
            return false;
        done += qsizetype(n);
    }
    return true;
}

bool writeBytesAtomically(const QString &path, const QByteArray &bytes, QString *error)
{
    return writeFileAtomically(
        path, [&bytes](QSaveFile &f) { return writeAllBytes(f, bytes); }, error);
}

bool saveScenarioFile(const QString &path, const Scenario &s, ByteUnit unit, QString *error)
{
    return writeBytesAtomically(
        path, QJsonDocument(scenarioToJson(s, unit)).toJson(QJsonDocument::Indented), error);
}

RecentFiles::RecentFiles(QSettings &settings, const QString &key) : m_settings(settings), m_key(key)
{
}

QStringList RecentFiles::updated(QStringList list, const QString &path,
                                 const std::function<bool(const QString &)> &exists)
{
    QStringList out;
    if (!path.isEmpty())
        out << QFileInfo(path).absoluteFilePath();
    for (const QString &p : list) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        if (!p.isEmpty() && !out.contains(abs) && exists(abs))
            out << abs;
    }
    while (out.size() > maxEntries)
        out.removeLast();
    return out;
}

QStringList RecentFiles::files() const
{
    const QStringList stored = m_settings.value(m_key).toStringList();
    const QStringList kept =
        updated(stored, QString(), [](const QString &p) { return QFileInfo::exists(p); });
    if (kept != stored)
        m_settings.setValue(m_key, kept);
    return kept;
}

void RecentFiles::add(const QString &path)
{
    m_settings.setValue(m_key, updated(m_settings.value(m_key).toStringList(), path,
                                       [](const QString &p) { return QFileInfo::exists(p); }));
}

void RecentFiles::remove(const QString &path)
{
    QStringList list = m_settings.value(m_key).toStringList();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    m_settings.setValue(m_key, list);
}

void RecentFiles::clear()
{
    m_settings.remove(m_key);
}

} // namespace shardscope
