#pragma once

#include "scenariofile.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {

// Lessons: short guided tours through scenarios, stored as data in
// resources/lessons/*.json (compiled in under :/shardscope/lessons/) and listed in
// docs/lessons.md, which also specifies the file format for teachers' own lessons. A lesson is a
// title and steps; each step sets some scenario keys (the scenario-file vocabulary of
// io/scenariofile.h), may pick a view, and says one sentence. Steps are cumulative: step k's
// scenario is defaultScenario() with the lesson's "start" patch and the patches of steps 0..k
// applied in order.
//
//   { "schema": "shardscope-lesson", "version": 1, "id": "ddp-never-fits", (docs/lessons.md)
//     "title": "...", "summary": "...", "sources": ["...", ...],
//     "start": { scenario keys },                       (optional)
//     "steps": [ { "title": "...", "set": { scenario keys }, "view": "memory",
//                  "text": "One sentence.", "expect": { ... } }, ... ] }
//
// "view" is "memory", "timeline" or "compare" (optional: the previous step's view,
// "memory" at first). "expect" (optional) states the numbers the sentence quotes, as
// the engine formats them, so tests/io/test_lesson.cpp checks every lesson against
// the engine: "peak" (formatBytes of the peak per-GPU total, in the step's unit),
// "fits" (bool), "verdict" (verdictText), "model_states" and "activations" (of the
// peak group), "host_per_node" (offloaded bytes per node), "bubble" (the pipeline
// bubble as a share of total time, "42.9%"), "peak_in_flight" (micro-batches stage 0
// holds at once).

/// The "schema" value of a lesson file.
inline constexpr const char *lessonFileSchema = "shardscope-lesson";
/// The newest lesson format ("version") this build reads and the one it writes
/// (docs/lessons.md); a file without "version" is read as version 1.
inline constexpr int lessonFileVersion = 1;

/// Which view a lesson step shows.
enum class LessonView
{
    Memory,   ///< the per-GPU memory chart
    Timeline, ///< the pipeline timeline
    Compare   ///< DDP / ZeRO-1 / ZeRO-2 / ZeRO-3 side by side
};

/// "memory", "timeline" or "compare".
std::string_view lessonViewId(LessonView v);
/// Inverse of lessonViewId; nullopt for anything else.
std::optional<LessonView> parseLessonView(std::string_view id);

/// One step: the settings it changes, the view, and one sentence.
struct LessonStep
{
    QString title;                  ///< short heading, e.g. "DDP on 64 GPUs"
    QJsonObject patch;              ///< scenario keys this step sets ("set")
    std::optional<LessonView> view; ///< view to show; nullopt keeps the previous one
    QString text;                   ///< one sentence of explanation
    QJsonObject expect;             ///< numbers the sentence states (see above)
};

/// A lesson: what it teaches, where its numbers come from, and its steps.
struct Lesson
{
    QString id;                    ///< machine name, e.g. "ddp-never-fits"
    QString title;                 ///< e.g. "DDP never fits a 70B"
    QString summary;               ///< one or two sentences shown before step 1
    QStringList sources;           ///< papers, docs and sections the numbers follow
    QJsonObject start;             ///< scenario keys applied before step 1
    std::vector<LessonStep> steps; ///< at least one
    QString fileName;              ///< the file it was read from, for messages
};

/// Parses and validates one lesson file: the keys above and no others ("id" defaults
/// to the file's name, "sources" and "version" may be left out; a "version" newer than
/// lessonFileVersion is refused), non-empty title and steps, one sentence per step (ends with . !
/// or ?, no second sentence), every patch well-formed, and every step's cumulative scenario valid
/// for the engine. nullopt plus `*error` naming the file and step, for example
/// "02-zero3-8-gpus.json, step 3: \"gpus\" must be a whole number from 1 to 1048576
/// (got -8)".
std::optional<Lesson> lessonFromJson(const QByteArray &json, const QString &fileName,
                                     QString *error);

/// Reads and parses a lesson file.
std::optional<Lesson> loadLessonFile(const QString &path, QString *error);

/// The lessons compiled in (:/shardscope/lessons/*.json), ordered by file name.
/// A malformed built-in lesson is skipped and its message appended to `*errors`
/// when given (tests/io/test_lesson.cpp requires none).
std::vector<Lesson> builtInLessons(QStringList *errors = nullptr);

/// `base` with the step's keys applied. Keys were checked when the lesson was
/// loaded; should the combination be impossible for this base, the result is the
/// patched scenario all the same, and estimate() says why (the "unit" key is
/// ignored here; see lessonDocument).
Scenario applyStep(const Scenario &base, const LessonStep &step);

/// Scenario and unit at step `step` (0-based, clamped to the steps): defaultScenario(),
/// then the lesson's "start", then steps 0..step, in order.
ScenarioDocument lessonDocument(const Lesson &lesson, int step);

/// True when `json` is a JSON object whose "schema" says it is a lesson: how File >
/// Open and a drop tell a lesson from a scenario or a config.json, by content.
bool isLessonJson(const QByteArray &json);

/// The scenario keys (io/scenariofile.h vocabulary) whose values differ between
/// `base` and `current`: the "set" of a step that goes from one to the other.
QJsonObject lessonStepPatch(const ScenarioDocument &base, const ScenarioDocument &current);

/// The lesson as a lesson file (schema, version lessonFileVersion, then the keys
/// above that are set); lessonFromJson() reads it back to the same steps.
QJsonObject lessonToJson(const Lesson &lesson);

/// Writes lessonToJson(lesson), indented, atomically (writeBytesAtomically(): a failed
/// write leaves the old file); false plus `*error` naming the file on failure.
bool saveLessonFile(const QString &path, const Lesson &lesson, QString *error);

/// The view at step `step`: the last "view" given at or before it, else Memory.
LessonView lessonViewAt(const Lesson &lesson, int step);

} // namespace shardscope
