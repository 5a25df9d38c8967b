#pragma once

#include "defaults.h"
#include "format.h"
#include "scenario.h"

#include <QByteArray>
#include <QIODevice>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

class QSaveFile;
class QSettings;

namespace shardscope {

// Scenario files: every setting of a Scenario plus the display unit as one versioned
// JSON object (docs/lessons.md "Scenario files" lists the keys). Lessons patch
// scenarios with the same keys (io/lesson.h).
//
//   { "schema": "shardscope-scenario", "version": 1,
//     "model": { modelToJson } | "preset-id",
//     "recipe": { "id", "name", "source", "weights", "gradients", "master_weights",
//                 "optimizer" } | "preset-id",
//     "gpu": { "id", "name", "short", "capacity_bytes", "driver_bytes", "source",
//              "bf16_tflops", "fp8_tflops", "mxfp8_tflops", "memory_gbps", "nvlink_gbps",
//              "speed_source" }
//            | "preset-id" (the speeds optional: 0, unknown, when absent),
//     "unit": "gb" | "gib",
//     and one key per settings-table entry (core/settings.h: "gpus", "tp", ..., in
//     storage units: bytes, elements; booleans; choice ids) }

/// The "schema" value of a scenario file.
inline constexpr const char *scenarioFileSchema = "shardscope-scenario";
/// The file format version this build writes and the newest it reads.
inline constexpr int scenarioFileVersion = 1;

/// What a scenario file holds: the scenario and the unit it was shown in.
struct ScenarioDocument
{
    Scenario scenario;
    ByteUnit unit = ByteUnit::GB;
};

/// The starting point that scenario patches (lessons) apply to, and that fills the
/// settings a hand-written scenario file leaves out: core/defaults.h's
/// defaultScenario() with its model, recipe and GPU from the built-in catalog (Llama 3
/// 70B, 64 x H100 SXM 80GB, DDP, mixed-precision AdamW). The window, `report`, `plan`
/// and `export` start from it too.
Scenario defaultScenario();

/// Every settings-table entry of `s` (core/settings.h), keyed by its scenario-file key:
/// integers in storage units (bytes, elements, GPUs), booleans, and choice ids
/// ("zero3", "interleaved"). A scenario file's scalar keys, and the "inputs" that the
/// report and plan JSON echo, so a setting added to the table appears in all three.
QJsonObject settingsToJson(const Scenario &s);

/// Every setting of `s` and the unit, as a complete version-1 scenario file object.
/// Model, recipe and GPU are written out in full (not as preset ids), so a file
/// reproduces the same estimate even if the catalog changes.
QJsonObject scenarioToJson(const Scenario &s, ByteUnit unit);

/// Applies the scenario keys present in `patch` (the vocabulary above, without
/// "schema"/"version") to a copy of `doc`. All or nothing: on any unknown key, wrong
/// type or out-of-range value returns nullopt and sets `*error` to one line
/// "<where>: <what is wrong with which key>"; `doc` is never partly changed. The
/// result is checked with validate() (an impossible layout is refused, naming why).
/// "model", "recipe" and "gpu" take a preset id from Catalog::builtIn() or a full
/// object. Setting "schedule" without "chunks" sets chunks to 2 for "interleaved",
/// else 1 (as the command line does). `ignoredKeys` are skipped (for wrapping keys).
/// With `validateResult` false the validate() check is left to estimate().
std::optional<ScenarioDocument>
applyScenarioPatch(const ScenarioDocument &doc, const QJsonObject &patch, const QString &where,
                   QString *error, const QStringList &ignoredKeys = {}, bool validateResult = true);

/// Reads a scenario file object: checks "schema" and "version" (a newer version is
/// refused, naming it), then applies the keys to defaultScenario() with
/// applyScenarioPatch; "model" is required. nullopt plus a one-line `*error`
/// naming `where` and the field when malformed.
std::optional<ScenarioDocument> scenarioFromJson(const QJsonObject &o, const QString &where,
                                                 QString *error);

/// Parses scenario file bytes (scenarioFromJson after JSON parsing: truncated or
/// non-JSON text is refused with the parser's reason and offset).
std::optional<ScenarioDocument> scenarioFromBytes(const QByteArray &bytes, const QString &where,
                                                  QString *error);

/// Loads a scenario file; nullopt plus a one-line `*error` naming the file.
std::optional<ScenarioDocument> loadScenarioFile(const QString &path, QString *error);

/// Writes through a QSaveFile: `write` fills it (returns false to abandon), the buffer is
/// flushed and checked, then the file is committed by an atomic rename. On any failure
/// (a full disk, a size limit, a target that exists but is not a regular file, such as
/// /dev/full or a folder) the old file is left as it was, the temporary file is
/// removed, and `*error` says why ("cannot write PATH: No space left on device").
/// Returns success.
bool writeFileAtomically(const QString &path, const std::function<bool(QSaveFile &)> &write,
                         QString *error);

/// Writes all of `bytes` to `device`, writing on after a short write so that a full disk
/// or size limit leaves its reason in device.errorString() ("No space left on device")
/// rather than "Unknown error". False when a write fails.
bool writeAllBytes(QIODevice &device, const QByteArray &bytes);

/// writeFileAtomically() of `bytes`: every file the command line and the window write
/// that is not an image (scenarios, launch configs, report JSON and CSV) goes through it.
bool writeBytesAtomically(const QString &path, const QByteArray &bytes, QString *error);

/// Saves scenarioToJson(s, unit), indented, with writeFileAtomically.
bool saveScenarioFile(const QString &path, const Scenario &s, ByteUnit unit, QString *error);

/// The "recently opened scenarios" list, stored in a QSettings under one key.
///
/// Most recent first, at most maxEntries, absolute paths, no duplicates. Files that
/// no longer exist are dropped when the list is read or updated.
class RecentFiles
{
public:
    /// Most entries kept.
    static constexpr int maxEntries = 8;

    /// Uses `settings` (not owned; must outlive this) under `key`.
    explicit RecentFiles(QSettings &settings,
                         const QString &key = QStringLiteral("recentScenarioFiles"));

    /// The existing files, most recent first (missing ones are dropped and the
    /// stored list is updated).
    QStringList files() const;
    /// Puts `path` first (moving it if present) and trims the list to maxEntries.
    void add(const QString &path);
    /// Removes `path` from the list.
    void remove(const QString &path);
    /// Empties the list.
    void clear();

    /// The list after opening `path`: pure logic of add(), for reuse and tests.
    /// `exists` decides which entries survive.
    static QStringList updated(QStringList list, const QString &path,
                               const std::function<bool(const QString &)> &exists);

private:
    QSettings &m_settings;
    QString m_key;
};

} // namespace shardscope
