#include "commandline.h"

#include "launchconfig.h"
#include "qtext.h"
#include "scenariofile.h"
#include "settings.h"

#include <QLocale>
#include <algorithm>
#include <cstdlib>

namespace shardscope {

namespace {

const QString program = QStringLiteral("shardscope");

QString number(std::int64_t v)
{
    return QString::number(qlonglong(v));
}

/// The same shape: two architectures equal in every field (Architecture::operator==;
/// a field added there belongs in unstatedShape() too), or two plain counts equal.
bool sameModelShape(const Model &a, const Model &b)
{
    return a.architecture.has_value() == b.architecture.has_value() &&
           (a.architecture ? *a.architecture == *b.architecture
                           : a.plainParameters == b.plainParameters);
}

/// Every field of two GPUs equal: the catalog's entry, not an edit of it.
bool sameGpu(const Gpu &a, const Gpu &b)
{
    return a.id == b.id && a.name == b.name && a.shortName == b.shortName &&
           a.capacityBytes == b.capacityBytes && a.driverReportedBytes == b.driverReportedBytes &&
           a.source == b.source && a.bf16FlopsPerSecond == b.bf16FlopsPerSecond &&
           a.fp8FlopsPerSecond == b.fp8FlopsPerSecond &&
           a.mxfp8FlopsPerSecond == b.mxfp8FlopsPerSecond &&
           a.memoryBytesPerSecond == b.memoryBytesPerSecond &&
           a.nvlinkBytesPerSecond == b.nvlinkBytesPerSecond && a.speedSource == b.speedSource &&
           a.matmulEfficiency == b.matmulEfficiency &&
           a.attentionFlopsPerSecond == b.attentionFlopsPerSecond;
}

/// What of `a` the inline flags cannot state, as a list of phrases ("biases on every
/// linear layer", "multi-head latent attention"); empty when the flags state all of it.
QStringList unstatedShape(const Architecture &a)
{
    const Architecture d;
    QStringList out;
    if (a.linearBiases != d.linearBiases)
        out << QStringLiteral("biases on every linear layer");
    if (a.layerNormBias != d.layerNormBias)
        out << QStringLiteral("LayerNorm biases");
    if (a.qkvBiases != d.qkvBiases)
        out << QStringLiteral("Q, K and V biases");
    if (a.normsPerLayer != d.normsPerLayer)
        out << QStringLiteral("%1 norms per block").arg(a.normsPerLayer);
    if (a.positionEmbeddings != d.positionEmbeddings)
        out << QStringLiteral("a learned position table");
    if (a.denseLayers != d.denseLayers)
        out << QStringLiteral("%1 dense first blocks").arg(a.denseLayers);
    if (a.routerBias != d.routerBias)
        out << QStringLiteral("a router bias");
    if (a.moeLayerStep != d.moeLayerStep)
        out << QStringLiteral("experts in every %1th block").arg(a.moeLayerStep);
    if (a.qLoraRank != d.qLoraRank || a.kvLoraRank != d.kvLoraRank ||
        a.qkRopeHeadDim != d.qkRopeHeadDim || a.qkNopeHeadDim != d.qkNopeHeadDim ||
        a.vHeadDim != d.vHeadDim)
        out << QStringLiteral("multi-head latent attention");
    if (a.qkNorm == QkNorm::Full)
        out << QStringLiteral("full-width q/k norms");
    return out;
}

/// The inline flags ScenarioOptions reads an architecture from (app/reportcommand.h).
QStringList inlineArguments(const Architecture &a)
{
    QStringList w{QStringLiteral("--layers"), number(a.layers),        QStringLiteral("--hidden"),
                  number(a.hidden),           QStringLiteral("--ffn"), number(a.ffn),
                  QStringLiteral("--heads"),  number(a.heads)};
    if (a.kvHeads != a.heads)
        w << QStringLiteral("--kv-heads") << number(a.kvHeads);
    w << QStringLiteral("--vocab") << number(a.vocab);
    if (a.headDim != 0)
        w << QStringLiteral("--head-dim") << number(a.headDim);
    if (a.tiedEmbeddings)
        w << QStringLiteral("--tied");
    if (!a.gatedMlp)
        w << QStringLiteral("--plain-mlp");
    if (a.experts != 0)
        w << QStringLiteral("--experts") << number(a.experts);
    if (a.activeExperts != 0)
        w << QStringLiteral("--experts-per-token") << number(a.activeExperts);
    if (a.expertFfn != 0)
        w << QStringLiteral("--expert-ffn") << number(a.expertFfn);
    if (a.sharedExperts != 0)
        w << QStringLiteral("--shared-experts") << number(a.sharedExperts);
    if (a.qkNorm == QkNorm::PerHead)
        w << QStringLiteral("--qk-norm");
    return w;
}

QString modelName(const Model &m)
{
    return toQString(m.displayName.empty() ? m.id : m.displayName);
}

/// --model, --params or the inline flags for `m`.
QStringList modelArguments(const Model &m, QStringList *notes)
{
    const Catalog &catalog = Catalog::builtIn();
    if (const Model *preset = catalog.model(m.id); preset && sameModelShape(*preset, m))
        return {QStringLiteral("--model"), toQString(m.id)};
    if (!m.architecture)
        return {QStringLiteral("--params"), number(m.plainParameters)};
    const Architecture &a = *m.architecture;
    if (const QStringList missing = unstatedShape(a); !missing.isEmpty())
        *notes << QStringLiteral("The model %1 has %2, which the inline flags cannot state; the "
                                 "command line gives the rest of its shape (save a scenario "
                                 "file to keep all of it).")
                      .arg(modelName(m), missing.join(QStringLiteral(", ")));
    return inlineArguments(a);
}

QStringList recipeArguments(const Recipe &r)
{
    if (const Recipe *preset = Catalog::builtIn().recipe(r.id);
        preset && preset->weightBytes == r.weightBytes &&
        preset->gradientBytes == r.gradientBytes &&
        preset->masterWeightBytes == r.masterWeightBytes &&
        preset->optimizerBytes == r.optimizerBytes)
        return {QStringLiteral("--recipe"), toQString(r.id)};
    return {QStringLiteral("--bytes-per-param"), QStringLiteral("%1,%2,%3,%4")
                                                     .arg(r.weightBytes)
                                                     .arg(r.gradientBytes)
                                                     .arg(r.masterWeightBytes)
                                                     .arg(r.optimizerBytes)};
}

QStringList gpuArguments(const Gpu &g, const Gpu &fallback, QStringList *notes)
{
    const Gpu *preset = Catalog::builtIn().gpu(g.id);
    if (preset && sameGpu(*preset, g))
        return {QStringLiteral("--gpu"), toQString(g.id)};
    const Gpu &used = preset ? *preset : fallback;
    *notes << QStringLiteral("The GPU %1 %2; the command line uses the catalog's %3 (save a "
                             "scenario file to keep it).")
                  .arg(toQString(g.name.empty() ? g.id : g.name),
                       preset ? QStringLiteral("differs from its catalog entry")
                              : QStringLiteral("is not in the catalog"),
                       toQString(used.id));
    return {QStringLiteral("--gpu"), toQString(used.id)};
}

/// `--flag value` (or the bare switch) for table setting `setting` at `value`; a value
/// the flag cannot state exactly becomes the nearest one it can, with a note.
QStringList settingArguments(const Setting &setting, std::int64_t value, QStringList *notes)
{
    const QString flag = QStringLiteral("--") + toQString(setting.flag);
    if (setting.isSwitch) {
        if (value)
            return {flag};
        *notes << QStringLiteral("%1 is off, which its switch %2 cannot say; the command line "
                                 "leaves it at its default.")
                      .arg(toQString(setting.label), flag);
        return {};
    }
    if (setting.kind == SettingKind::Integer && setting.scale != 1 && value % setting.scale != 0) {
        // A scenario file may hold any byte count; the flag takes whole display units.
        std::int64_t shown = value / setting.scale;
        if (std::llabs(value % setting.scale) * 2 >= setting.scale)
            shown += value < 0 ? -1 : 1;
        shown = std::clamp(shown, setting.displayMin(), setting.displayMax());
        const QLocale english(QLocale::English);
        *notes << QStringLiteral("%1 is %2 bytes, not a whole number of %3; the command line "
                                 "says %4 %3.")
                      .arg(toQString(setting.label), english.toString(qlonglong(value)),
                           toQString(setting.displayUnit), number(shown));
        return {flag, number(shown)};
    }
    return {flag, toQString(settingText(setting, value))};
}

CommandLine withNotes(QStringList words, const QStringList &arguments, QStringList notes)
{
    return {words << arguments, std::move(notes)};
}

} // namespace

QString CommandLine::text() const
{
    QStringList quoted;
    for (const QString &w : words)
        quoted << shellQuoted(w);
    return quoted.join(u' ');
}

QStringList scenarioArguments(const Scenario &s, ByteUnit unit, QStringList *notes)
{
    const Scenario defaults = defaultScenario();
    QStringList w = modelArguments(s.model, notes);
    w << gpuArguments(s.gpu, defaults.gpu, notes) << recipeArguments(s.recipe);
    // The headline settings always, so the line reads as the window's left column.
    const auto headline = [](const Setting &setting) {
        return setting.key == "gpus" || setting.key == "strategy";
    };
    for (const Setting &setting : settings())
        if (headline(setting))
            w << settingArguments(setting, setting.get(s), notes);
    bool scheduleGiven = false, chunksGiven = false;
    for (const Setting &setting : settings()) {
        const std::int64_t v = setting.get(s);
        if (headline(setting) || v == setting.get(defaults))
            continue;
        w << settingArguments(setting, v, notes);
        scheduleGiven = scheduleGiven || setting.key == "schedule";
        chunksGiven = chunksGiven || setting.key == "chunks";
    }
    // A schedule given alone resets the chunks to its default (applySettings()).
    if (scheduleGiven && !chunksGiven && s.training.chunks != defaultChunks(s.training.schedule))
        if (const Setting *chunks = settingByKey("chunks"))
            w << settingArguments(*chunks, chunks->get(s), notes);
    if (unit == ByteUnit::GiB)
        w << QStringLiteral("--unit") << QStringLiteral("gib");
    return w;
}

CommandLine windowCommandLine(const Scenario &s, ByteUnit unit, const WindowView &view)
{
    QStringList notes;
    QStringList w = scenarioArguments(s, unit, &notes);
    if (!view.view.isEmpty())
        w << QStringLiteral("--view") << view.view;
    if (view.presentation)
        w << QStringLiteral("--present");
    if (!view.sweepAxis.isEmpty() && view.sweepAxis != QStringLiteral("gpus"))
        w << QStringLiteral("--sweep") << view.sweepAxis;
    return withNotes({program}, w, notes);
}

CommandLine reportCommandLine(const Scenario &s, ByteUnit unit)
{
    QStringList notes;
    const QStringList w = scenarioArguments(s, unit, &notes);
    return withNotes({program, QStringLiteral("report")}, w, notes);
}

CommandLine exportCommandLine(const Scenario &s, ByteUnit unit, const QString &chart,
                              const QString &sweepAxis, const QString &format, const QString &file)
{
    QStringList notes;
    QStringList w{program, QStringLiteral("export"), QStringLiteral("--chart"), chart};
    if (!sweepAxis.isEmpty() && sweepAxis != QStringLiteral("gpus"))
        w << QStringLiteral("--sweep") << sweepAxis;
    w << QStringLiteral("--format") << format;
    // A name starting with '-' would read as a flag: joined to its option instead.
    if (file.startsWith(u'-'))
        w << QStringLiteral("--out=") + file;
    else
        w << QStringLiteral("--out") << file;
    const QStringList scenario = scenarioArguments(s, unit, &notes);
    return withNotes(w, scenario, notes);
}

} // namespace shardscope
