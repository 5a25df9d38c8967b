#include "lesson.h"

#include "enumtable.h"
#include "inputfile.h"
#include "jsonobject.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace shardscope {

namespace {

constexpr EnumTable<LessonView, 3> lessonViews{{
    {LessonView::Memory, "memory"},
    {LessonView::Timeline, "timeline"},
    {LessonView::Compare, "compare"},
}};

} // namespace

std::string_view lessonViewId(LessonView v)
{
    return enumId(lessonViews, v);
}

std::optional<LessonView> parseLessonView(std::string_view id)
{
    return parseEnum(lessonViews, id);
}

namespace {

bool onlyKeys(const QJsonObject &o, std::initializer_list<const char *> allowed,
              const QString &where, QString *error)
{
    for (auto it = o.begin(); it != o.end(); ++it) {
        bool ok = false;
        for (const char *a : allowed)
            ok = ok || it.key() == QLatin1String(a);
        if (!ok) {
            *error = where + QStringLiteral(": unknown key \"%1\"").arg(it.key());
            return false;
        }
    }
    return true;
}

/// A required non-empty string.
bool requiredText(const QJsonObject &o, const char *key, const QString &where, QString *out,
                  QString *error)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString() || v.toString().trimmed().isEmpty()) {
        *error = where + QStringLiteral(": \"%1\" must be a non-empty string").arg(key);
        return false;
    }
    *out = v.toString().trimmed();
    return true;
}

/// One sentence: ends with . ! or ?, and no sentence end followed by a capital inside.
bool isOneSentence(const QString &text)
{
    static const QRegularExpression secondSentence(QStringLiteral("[.!?]\\s+[A-Z]"));
    return !text.isEmpty() && QStringLiteral(".!?").contains(text.back()) &&
           !secondSentence.match(text).hasMatch();
}

bool checkExpect(const QJsonObject &e, const QString &where, QString *error)
{
    const QString w = where + QStringLiteral(", \"expect\"");
    if (!onlyKeys(e,
                  {"peak", "fits", "verdict", "model_states", "activations", "host_per_node",
                   "bubble", "peak_in_flight"},
                  w, error))
        return false;
    for (auto it = e.begin(); it != e.end(); ++it) {
        const bool ok = it.key() == QLatin1String("fits")             ? it->isBool()
                        : it.key() == QLatin1String("peak_in_flight") ? it->isDouble()
                                                                      : it->isString();
        if (!ok) {
            *error = w + QStringLiteral(": \"%1\" has the wrong type").arg(it.key());
            return false;
        }
    }
    return true;
}

} // namespace

std::optional<Lesson> lessonFromJson(const QByteArray &json, const QString &fileName,
                                     QString *error)
{
    const std::optional<QJsonObject> read = jsonObjectFromBytes(
        json, fileName, QStringLiteral("a lesson must be a JSON object"), error);
    if (!read)
        return std::nullopt;
    const QJsonObject &o = *read;
    if (!onlyKeys(o, {"schema", "version", "id", "title", "summary", "sources", "start", "steps"},
                  fileName, error))
        return std::nullopt;
    if (o.value(QLatin1String("schema")).toString() != QLatin1String(lessonFileSchema)) {
        *error = fileName + QStringLiteral(": \"schema\" must be \"%1\"").arg(lessonFileSchema);
        return std::nullopt;
    }
    // "version" is the format's schema version: missing reads as 1 (the first files
    // had none), a newer one is refused rather than half understood.
    if (const QJsonValue version = o.value(QLatin1String("version")); !version.isUndefined()) {
        const double v = version.toDouble(-1);
        if (!version.isDouble() || v < 1 || v != std::floor(v) || v > 1e9) {
            *error = fileName + QStringLiteral(": \"version\" must be a whole number from 1");
            return std::nullopt;
        }
        if (v > lessonFileVersion) {
            *error = fileName + QStringLiteral(": \"version\" %1 is newer than this ShardScope "
                                               "reads (%2); update ShardScope")
                                    .arg(qint64(v))
                                    .arg(lessonFileVersion);
            return std::nullopt;
        }
    }
    Lesson lesson;
    lesson.fileName = fileName;
    if (!requiredText(o, "title", fileName, &lesson.title, error))
        return std::nullopt;
    if (o.contains(QLatin1String("id"))) {
        if (!requiredText(o, "id", fileName, &lesson.id, error))
            return std::nullopt;
    } else {
        lesson.id = QFileInfo(fileName).completeBaseName(); // "my-lesson" for my-lesson.json
    }
    if (o.contains(QLatin1String("summary")) &&
        !requiredText(o, "summary", fileName, &lesson.summary, error))
        return std::nullopt;
    const QJsonValue sources = o.value(QLatin1String("sources"));
    if (!sources.isUndefined() && (!sources.isArray() || sources.toArray().isEmpty())) {
        *error = fileName + QStringLiteral(": \"sources\" must be a non-empty list of strings");
        return std::nullopt;
    }
    for (const QJsonValue &v : sources.toArray()) {
        if (!v.isString() || v.toString().trimmed().isEmpty()) {
            *error = fileName + QStringLiteral(": \"sources\" must be a non-empty list of strings");
            return std::nullopt;
        }
        lesson.sources << v.toString();
    }
    const QJsonValue start = o.value(QLatin1String("start"));
    if (!start.isUndefined() && !start.isObject()) {
        *error = fileName + QStringLiteral(": \"start\" must be an object of scenario keys");
        return std::nullopt;
    }
    lesson.start = start.toObject();
    ScenarioDocument current{defaultScenario(), ByteUnit::GB};
    if (!lesson.start.isEmpty()) {
        const auto next = applyScenarioPatch(current, lesson.start,
                                             fileName + QStringLiteral(", \"start\""), error);
        if (!next)
            return std::nullopt;
        current = *next;
    }

    const QJsonValue steps = o.value(QLatin1String("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty()) {
        *error = fileName + QStringLiteral(": \"steps\" must be a non-empty list");
        return std::nullopt;
    }
    const QJsonArray list = steps.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = fileName + QStringLiteral(", step %1").arg(i + 1);
        if (!list[i].isObject()) {
            *error = where + QStringLiteral(": a step must be an object");
            return std::nullopt;
        }
        const QJsonObject so = list[i].toObject();
        LessonStep step;
        if (!onlyKeys(so, {"title", "set", "view", "text", "expect"}, where, error) ||
            !requiredText(so, "title", where, &step.title, error) ||
            !requiredText(so, "text", where, &step.text, error))
            return std::nullopt;
        if (!isOneSentence(step.text)) {
            *error = where + QStringLiteral(": \"text\" must be one sentence ending in . ! or ?");
            return std::nullopt;
        }
        const QJsonValue set = so.value(QLatin1String("set"));
        if (!set.isUndefined() && !set.isObject()) {
            *error = where + QStringLiteral(": \"set\" must be an object of scenario keys");
            return std::nullopt;
        }
        step.patch = set.toObject();
        if (so.contains(QLatin1String("view"))) {
            const QJsonValue v = so.value(QLatin1String("view"));
            step.view = v.isString() ? parseLessonView(v.toString().toStdString()) : std::nullopt;
            if (!step.view) {
                *error = where + QStringLiteral(": \"view\" must be memory, timeline or compare");
                return std::nullopt;
            }
        }
        const QJsonValue expect = so.value(QLatin1String("expect"));
        if (!expect.isUndefined() && !expect.isObject()) {
            *error = where + QStringLiteral(": \"expect\" must be an object");
            return std::nullopt;
        }
        step.expect = expect.toObject();
        if (!checkExpect(step.expect, where, error))
            return std::nullopt;
        const auto next = applyScenarioPatch(current, step.patch, where, error);
        if (!next)
            return std::nullopt;
        current = *next;
        lesson.steps.push_back(std::move(step));
    }
    return lesson;
}

std::optional<Lesson> loadLessonFile(const QString &path, QString *error)
{
    const auto bytes = readInputFile(path, error);
    if (!bytes)
        return std::nullopt;
    return lessonFromJson(*bytes, QFileInfo(path).fileName(), error);
}

std::vector<Lesson> builtInLessons(QStringList *errors)
{
    const QDir dir(QStringLiteral(":/shardscope/lessons"));
    const QStringList names = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    std::vector<Lesson> out;
    for (const QString &name : names) {
        QString error;
        if (auto lesson = loadLessonFile(dir.filePath(name), &error))
            out.push_back(std::move(*lesson));
        else if (errors)
            *errors << error;
    }
    return out;
}

Scenario applyStep(const Scenario &base, const LessonStep &step)
{
    QString error;
    const auto next = applyScenarioPatch(ScenarioDocument{base, ByteUnit::GB}, step.patch,
                                         QString(), &error, {}, false);
    return next ? next->scenario : base;
}

ScenarioDocument lessonDocument(const Lesson &lesson, int step)
{
    ScenarioDocument doc{defaultScenario(), ByteUnit::GB};
    QString error;
    auto apply = [&doc, &error](const QJsonObject &patch) {
        if (auto next = applyScenarioPatch(doc, patch, QString(), &error, {}, false))
            doc = *next;
    };
    apply(lesson.start);
    const int last = std::min(step, int(lesson.steps.size()) - 1);
    for (int i = 0; i <= last; ++i)
        apply(lesson.steps[std::size_t(i)].patch);
    return doc;
}

bool isLessonJson(const QByteArray &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    return doc.isObject() &&
           doc.object().value(QLatin1String("schema")) == QLatin1String(lessonFileSchema);
}

QJsonObject lessonStepPatch(const ScenarioDocument &base, const ScenarioDocument &current)
{
    const QJsonObject from = scenarioToJson(base.scenario, base.unit);
    const QJsonObject to = scenarioToJson(current.scenario, current.unit);
    QJsonObject patch;
    for (auto it = to.begin(); it != to.end(); ++it) {
        if (it.key() == QLatin1String("schema") || it.key() == QLatin1String("version") ||
            from.value(it.key()) == it.value())
            continue;
        // A model, recipe or GPU that is a shipped preset is written as its id, as a
        // teacher would write it, when the id reads back to the same object.
        const QString id = it.value().toObject().value(QLatin1String("id")).toString();
        if (it.value().isObject() && !id.isEmpty()) {
            QString error;
            const auto byId =
                applyScenarioPatch(base, QJsonObject{{it.key(), id}}, QString(), &error, {}, false);
            if (byId && scenarioToJson(byId->scenario, byId->unit).value(it.key()) == it.value()) {
                patch.insert(it.key(), id);
                continue;
            }
        }
        patch.insert(it.key(), it.value());
    }
    return patch;
}

QJsonObject lessonToJson(const Lesson &lesson)
{
    QJsonObject o{{"schema", QLatin1String(lessonFileSchema)},
                  {"version", lessonFileVersion},
                  {"title", lesson.title}};
    if (!lesson.id.isEmpty())
        o.insert(QLatin1String("id"), lesson.id);
    if (!lesson.summary.isEmpty())
        o.insert(QLatin1String("summary"), lesson.summary);
    if (!lesson.sources.isEmpty())
        o.insert(QLatin1String("sources"), QJsonArray::fromStringList(lesson.sources));
    if (!lesson.start.isEmpty())
        o.insert(QLatin1String("start"), lesson.start);
    QJsonArray steps;
    for (const LessonStep &step : lesson.steps) {
        QJsonObject so{{"title", step.title}};
        if (!step.patch.isEmpty())
            so.insert(QLatin1String("set"), step.patch);
        if (step.view)
            so.insert(QLatin1String("view"), QString::fromUtf8(lessonViewId(*step.view)));
        so.insert(QLatin1String("text"), step.text);
        if (!step.expect.isEmpty())
            so.insert(QLatin1String("expect"), step.expect);
        steps.append(so);
    }
    o.insert(QLatin1String("steps"), steps);
    return o;
}

bool saveLessonFile(const QString &path, const Lesson &lesson, QString *error)
{
    return writeBytesAtomically(path, QJsonDocument(lessonToJson(lesson)).toJson(), error);
}

LessonView lessonViewAt(const Lesson &lesson, int step)
{
    LessonView view = LessonView::Memory;
    const int last = std::min(step, int(lesson.steps.size()) - 1);
    for (int i = 0; i <= last; ++i)
        if (lesson.steps[std::size_t(i)].view)
            view = *lesson.steps[std::size_t(i)].view;
    return view;
}

} // namespace shardscope
