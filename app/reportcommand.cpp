#include "reportcommand.h"

#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "hfconfig.h"
#include "inputfile.h"
#include "launchconfigread.h"
#include "qtext.h"
#include "reportjson.h"
#include "settings.h"
#include "steptime.h"

#include <QCommandLineParser>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <cmath>

namespace shardscope {

std::optional<std::int64_t> parseParameterCount(const QString &text)
{
    QString t = text.trimmed();
    double scale = 1;
    if (!t.isEmpty()) {
        const QChar last = t.back().toUpper();
        if (last == u'K' || last == u'M' || last == u'B' || last == u'T') {
            scale = last == u'K' ? 1e3 : last == u'M' ? 1e6 : last == u'B' ? 1e9 : 1e12;
            t.chop(1);
        }
    }
    bool ok = false;
    const double v = t.toDouble(&ok) * scale;
    if (!ok || !std::isfinite(v) || v < 1 || v > double(maxParameters))
        return std::nullopt;
    return std::int64_t(std::llround(v));
}

QCommandLineOption sweepAxisOption(const QString &swept)
{
    return valueOption("sweep",
                       QStringLiteral("What %1 varies: gpus, seq (sequence length) or mbs "
                                      "(micro-batch size), or time (step time against gpus) "
                                      "(default gpus).")
                           .arg(swept),
                       "axis", QStringLiteral("gpus"));
}

std::optional<SweepAxis> sweepAxisValue(const QCommandLineParser &p, const QCommandLineOption &o,
                                        QString *error)
{
    const QByteArray id = p.value(o).toUtf8();
    const auto axis = parseSweepAxis(std::string_view(id.constData(), id.size()));
    if (!axis)
        *error =
            QStringLiteral("--sweep must be gpus, seq, mbs or time (got '%1')").arg(p.value(o));
    return axis;
}

namespace {

QString ids(const auto &items)
{
    QStringList out;
    for (const auto &x : items)
        out << QString::fromStdString(x.id);
    return out.join(QStringLiteral(", "));
}

/// Sets `*out` to the built-in catalog's entry (found by `find`: Catalog::model, recipe
/// or gpu) whose id option `o` gives; false with `*error` = "--NAME: unknown WHAT 'ID'
/// (known: the ids `all` lists)".
template <typename T>
bool catalogEntry(const QCommandLineParser &p, const QCommandLineOption &o, const char *what,
                  const T *(Catalog::*find)(std::string_view) const,
                  const std::vector<T> &(Catalog::*all)() const, T *out, QString *error)
{
    const Catalog &catalog = Catalog::builtIn();
    if (const T *x = (catalog.*find)(p.value(o).toStdString())) {
        *out = *x;
        return true;
    }
    *error = QStringLiteral("--%1: unknown %2 '%3' (known: %4)")
                 .arg(o.names().first(), QLatin1String(what), p.value(o), ids((catalog.*all)()));
    return false;
}

} // namespace

namespace {

void printText(const Scenario &s, const MemoryReport &r, ByteUnit unit, QTextStream &out)
{
    auto fmt = [unit](std::int64_t b) { return QString::fromStdString(formatBytes(b, unit)); };
    const Layout &l = s.layout;
    out << QStringLiteral("%1: %2 parameter%3, %4 (%5 B/param)\n")
               .arg(QString::fromStdString(s.model.displayName.empty() ? "model"
                                                                       : s.model.displayName))
               .arg(r.parameters)
               .arg(r.parameters == 1 ? QString() : QStringLiteral("s"))
               .arg(QString::fromStdString(s.recipe.id))
               .arg(s.recipe.totalBytesPerParameter());
    out << QStringLiteral("%1 x %2: d %3, t %4, p %5, c %6, %7, offload %8\n")
               .arg(l.gpus)
               .arg(QString::fromStdString(s.gpu.name))
               .arg(l.dataParallel())
               .arg(l.tensorParallel)
               .arg(l.pipelineParallel)
               .arg(l.contextParallel)
               .arg(QString::fromUtf8(zeroStageName(l.zeroStage).data()),
                    QString::fromUtf8(offloadId(l.offload).data()));
    for (const auto &g : r.groups) {
        out << (g.gpuCount == 1 ? QStringLiteral("%1 (rank %3)").arg(toQString(g.label))
                                : QStringLiteral("%1 (%2 GPUs from rank %3)")
                                      .arg(toQString(g.label))
                                      .arg(g.gpuCount))
                   .arg(g.firstRank);
        if (g.layerCount == 1)
            out << QStringLiteral(", layer %1").arg(g.firstLayer);
        else if (g.layerCount > 1)
            out << QStringLiteral(", layers %1-%2")
                       .arg(g.firstLayer)
                       .arg(g.firstLayer + g.layerCount - 1);
        out << ":\n";
        for (int c = 0; c < componentCount; ++c)
            out << QStringLiteral("  %1 %2\n")
                       .arg(QString::fromStdString(componentName(Component(c))), -18)
                       .arg(fmt(componentValue(g.bytes, Component(c))), 12);
        out << QStringLiteral("  %1 %2\n")
                   .arg(QStringLiteral("Total"), -18)
                   .arg(fmt(g.totalBytes()), 12);
        out << QStringLiteral("  %1 %2\n")
                   .arg(QStringLiteral("Sent per step"), -18)
                   .arg(fmt(g.communication.total()), 12);
    }
    if (r.hostBytesPerNode > 0)
        out << QStringLiteral("Host RAM per node for offload: %1 of %2\n")
                   .arg(fmt(r.hostBytesPerNode), fmt(r.hostCapacityBytesPerNode));
    for (const auto &n : r.notes)
        out << QString::fromStdString(n) << "\n";
    out << QString::fromStdString(verdictText(s, r, unit)) << "\n";
    const StepTime st = stepTime(s, r);
    out << QString::fromStdString(stepTimeText(st, s.layout.gpus, s.throughput.tokenBudget))
        << "\n";
    if (st.valid()) {
        out << QString::fromStdString(stepBreakdownText(st)) << "\n";
        for (const auto &n : st.notes)
            out << QString::fromStdString(n) << "\n";
    }
}

} // namespace

QCommandLineOption valueOption(const char *name, const QString &help, const char *valueName,
                               const QString &defaultValue)
{
    return QCommandLineOption(QString::fromLatin1(name), help, QString::fromLatin1(valueName),
                              defaultValue);
}

namespace {

/// The value name shown in --help for a table setting: "on|off", "ddp|zero1|...",
/// the display unit ("MiB", "tokens"), or "n".
QString valueNameFor(const Setting &s)
{
    if (s.kind == SettingKind::Boolean)
        return QStringLiteral("on|off");
    if (s.kind == SettingKind::Choice && !s.rangeText.empty())
        return QStringLiteral("list"); // e.g. lora_targets: the help line says what
    if (s.kind == SettingKind::Choice) {
        QStringList ids;
        for (std::string_view c : s.choices)
            ids << toQString(c);
        return ids.join(u'|');
    }
    if (!s.displayUnit.empty() && s.displayUnit != "%")
        return toQString(s.displayUnit);
    return QStringLiteral("n");
}

/// The help line of a table setting: its help, its range and its default.
QString helpFor(const Setting &s, const Scenario &defaults)
{
    QString text = toQString(s.help);
    if (s.isSwitch)
        return text;
    if (s.kind == SettingKind::Integer)
        text += QStringLiteral(" %1%2.").arg(
            toQString(settingRangeText(s)),
            s.displayUnit.empty() ? QString() : QStringLiteral(" ") + toQString(s.displayUnit));
    return text + QStringLiteral(" Default %1.").arg(toQString(settingText(s, s.get(defaults))));
}

} // namespace

ScenarioOptions::ScenarioOptions()
    : scenarioFile(valueOption("scenario",
                               QStringLiteral("Scenario file to start from; flags given with it "
                                              "override its settings."),
                               "file")),
      model(valueOption("model",
                        QStringLiteral("Model preset id (%1; default llama3-70b).")
                            .arg(ids(Catalog::builtIn().models())),
                        "id")),
      params(valueOption("params",
                         QStringLiteral("Plain parameter count instead of --model, e.g. 70e9 "
                                        "or 70B (model states only: no shapes)."),
                         "count")),
      hfConfig(valueOption("hf-config",
                           QStringLiteral("Model from a Hugging Face config.json instead of "
                                          "--model (llama, mistral, mixtral, qwen2, qwen2_moe, "
                                          "gemma, gemma2, gemma3_text, qwen3, qwen3_moe, olmo2, "
                                          "phi3, gpt_neox, llama4_text, deepseek_v2, "
                                          "deepseek_v3; the language model of llava, "
                                          "llava_next, qwen2_vl, qwen2_5_vl, llama4, gemma3; "
                                          "any other as a generic Llama-shaped decoder)."),
                           "file")),
      layers(
          valueOption("layers", QStringLiteral("Inline architecture: transformer layers."), "L")),
      hidden(valueOption("hidden", QStringLiteral("Inline architecture: hidden size."), "h")),
      ffn(valueOption("ffn", QStringLiteral("Inline architecture: MLP inner size."), "f")),
      heads(valueOption("heads", QStringLiteral("Inline architecture: attention heads."), "a")),
      kvHeads(valueOption("kv-heads",
                          QStringLiteral("Inline architecture: key/value heads (default heads)."),
                          "g")),
      vocab(valueOption("vocab", QStringLiteral("Inline architecture: vocabulary size."), "V")),
      tied(QStringLiteral("tied"), QStringLiteral("Inline architecture: tied embeddings.")),
      plainMlp(QStringLiteral("plain-mlp"),
               QStringLiteral("Inline architecture: GELU MLP (2 matrices), not SwiGLU.")),
      headDim(valueOption("head-dim",
                          QStringLiteral("Inline architecture: per-head size (default hidden / "
                                         "heads)."),
                          "d")),
      experts(valueOption("experts",
                          QStringLiteral("Inline architecture: routed experts per block "
                                         "(mixture of experts; needs --experts-per-token)."),
                          "E")),
      expertsPerToken(valueOption(
          "experts-per-token",
          QStringLiteral("Inline architecture: routed experts per token, top-k."), "k")),
      expertFfn(valueOption("expert-ffn",
                            QStringLiteral("Inline architecture: one expert's MLP inner size "
                                           "(default --ffn)."),
                            "f")),
      sharedExperts(valueOption(
          "shared-experts",
          QStringLiteral("Inline architecture: experts every token passes (default 0)."), "n")),
      qkNorm(QStringLiteral("qk-norm"),
             QStringLiteral("Inline architecture: per-head q_norm and k_norm RMSNorms (Qwen3, "
                            "Gemma 3).")),
      recipe(valueOption("recipe",
                         QStringLiteral("Recipe id (%1; default mixed-adam).")
                             .arg(ids(Catalog::builtIn().recipes())),
                         "id")),
      bytesPerParam(valueOption("bytes-per-param",
                                QStringLiteral("Bytes per parameter W,G,M,O (weights, gradients, "
                                               "master weights, optimizer states), e.g. 2,2,4,8."),
                                "W,G,M,O")),
      gpu(valueOption(
          "gpu",
          QStringLiteral("GPU id (%1; default h100-sxm-80gb).").arg(ids(Catalog::builtIn().gpus())),
          "id")),
      dp(valueOption("dp",
                     QStringLiteral("Data-parallel degree: sets --gpus to dp x tp x pp x cp "
                                    "(default gpus / (tp pp cp))."),
                     "d")),
      zero(valueOption("zero", QStringLiteral("ZeRO stage 0..3 (alias of --strategy)."), "stage")),
      gradAccum(valueOption("grad-accum", QStringLiteral("Alias of --microbatches."), "m")),
      unit(valueOption("unit", QStringLiteral("gb (1e9 bytes, default) or gib (2^30)."), "unit")),
      launchConfig(valueOption("launch-config",
                               QStringLiteral("Layout and batch from a launch config: a DeepSpeed "
                                              "JSON, an Accelerate YAML, a torchtitan TOML or "
                                              "Megatron-LM arguments (.sh, .args); other flags "
                                              "win over it, and what it cannot say is listed "
                                              "as notes."),
                               "file"))
{
    const Scenario defaults = defaultScenario();
    for (const Setting &s : settings()) {
        const QString name = toQString(s.flag);
        table << (s.isSwitch ? QCommandLineOption(name, helpFor(s, defaults))
                             : QCommandLineOption(name, helpFor(s, defaults), valueNameFor(s)));
    }
    all = {scenarioFile, model,         params,
           hfConfig,     layers,        hidden,
           ffn,          heads,         kvHeads,
           vocab,        tied,          plainMlp,
           headDim,      experts,       expertsPerToken,
           expertFfn,    sharedExperts, qkNorm,
           recipe,       bytesPerParam, gpu,
           dp,           zero,          gradAccum,
           launchConfig};
    all << table;
    all << unit;
}

void ScenarioOptions::addTo(QCommandLineParser &p) const
{
    p.addOptions(all);
}

bool ScenarioOptions::anySet(const QCommandLineParser &p) const
{
    for (const auto &o : all)
        if (o.names() != unit.names() && o.names() != scenarioFile.names() && p.isSet(o))
            return true;
    return false;
}

QString settingsMarkdownRows()
{
    const Scenario defaults = defaultScenario();
    QString rows;
    for (const Setting &s : settings()) {
        QString flag = QStringLiteral("--") + toQString(s.flag);
        if (!s.isSwitch)
            flag += QStringLiteral(" ") + valueNameFor(s);
        QString help = toQString(s.help);
        if (s.kind == SettingKind::Integer)
            help += QStringLiteral(" %1%2.").arg(
                toQString(settingRangeText(s)),
                s.displayUnit.empty() ? QString() : QStringLiteral(" ") + toQString(s.displayUnit));
        const QString def =
            s.isSwitch ? QStringLiteral("off") : toQString(settingText(s, s.get(defaults)));
        rows += QStringLiteral("| `%1` | %2 | `%3` |\n")
                    .arg(flag, help.replace(u'|', QStringLiteral("\\|")), def);
    }
    return rows;
}

bool wholeNumberOption(const QCommandLineParser &p, const QCommandLineOption &o, std::int64_t min,
                       std::int64_t max, std::int64_t *value, QString *error)
{
    bool ok = false;
    const qlonglong v = p.value(o).toLongLong(&ok);
    if (!ok || v < min || v > max) {
        *error = QStringLiteral("--%1 must be a whole number from %2 to %3 (got '%4')")
                     .arg(o.names().first())
                     .arg(min)
                     .arg(max)
                     .arg(p.value(o));
        return false;
    }
    *value = v;
    return true;
}

std::optional<ScenarioDocument> ScenarioOptions::document(const QCommandLineParser &p,
                                                          QString *error, bool validateResult,
                                                          QStringList *notes) const
{
    std::optional<ScenarioDocument> none;
    auto fail = [error, &none](const QString &message) {
        *error = message;
        return none;
    };
    // A flag given twice was silently the last one ("--gpus 8 --gpus 16" ran 16, and
    // "--lora-rank x --lora-rank 16" hid the bad value): refused by name instead.
    for (const QCommandLineOption &o : all)
        if (p.values(o).size() > 1)
            return fail(QStringLiteral("--%1 is given %2 times; give it once")
                            .arg(o.names().first())
                            .arg(p.values(o).size()));
    ScenarioDocument doc{defaultScenario(), ByteUnit::GB};
    if (p.isSet(scenarioFile)) {
        const auto loaded = loadScenarioFile(p.value(scenarioFile), error);
        if (!loaded) {
            *error = QStringLiteral("--scenario: ") + *error;
            return none;
        }
        doc = *loaded;
    }
    Scenario &s = doc.scenario;

    // The model: a flag replaces the file's (or the default) model.
    bool inline_ = false;
    for (const auto *o :
         {&layers, &hidden, &ffn, &heads, &vocab, &kvHeads, &tied, &plainMlp, &headDim, &experts,
          &expertsPerToken, &expertFfn, &sharedExperts, &qkNorm})
        inline_ = inline_ || p.isSet(*o);
    if (int(p.isSet(model)) + int(p.isSet(params)) + int(inline_) + int(p.isSet(hfConfig)) > 1)
        return fail(QStringLiteral("--model, --params, --hf-config and an inline architecture "
                                   "(--layers ...) are exclusive; give one"));
    if (p.isSet(hfConfig)) {
        const auto bytes = readInputFile(p.value(hfConfig), error);
        if (!bytes)
            return fail(QStringLiteral("--hf-config: ") + *error);
        QString why;
        auto m = modelFromHfConfig(*bytes, &why);
        if (!m)
            return fail(QStringLiteral("--hf-config: ") + why);
        s.model = std::move(*m);
    } else if (p.isSet(params)) {
        const auto n = parseParameterCount(p.value(params));
        if (!n)
            return fail(QStringLiteral("--params must be a positive parameter count below 1e14, "
                                       "like 70e9 or 70B (got '%1')")
                            .arg(p.value(params)));
        s.model = Model{};
        s.model.id = "custom";
        s.model.displayName = formatParameters(*n) + " (plain count)";
        s.model.source = "--params on the command line";
        s.model.plainParameters = *n;
    } else if (inline_) {
        Architecture a;
        std::int64_t v = 0;
        for (const auto *o : {&layers, &hidden, &ffn, &heads, &vocab})
            if (!p.isSet(*o))
                return fail(QStringLiteral("an inline architecture needs --layers, --hidden, "
                                           "--ffn, --heads and --vocab (missing --%1)")
                                .arg(o->names().first()));
        if (!wholeNumberOption(p, layers, 1, 100000, &v, error))
            return none;
        a.layers = int(v);
        if (!wholeNumberOption(p, hidden, 1, 1000000, &a.hidden, error) ||
            !wholeNumberOption(p, ffn, 1, 10000000, &a.ffn, error) ||
            !wholeNumberOption(p, heads, 1, 100000, &v, error))
            return none;
        a.heads = int(v);
        a.kvHeads = a.heads;
        if (p.isSet(kvHeads)) {
            if (!wholeNumberOption(p, kvHeads, 1, 100000, &v, error))
                return none;
            a.kvHeads = int(v);
        }
        if (!wholeNumberOption(p, vocab, 1, 100000000, &a.vocab, error))
            return none;
        a.tiedEmbeddings = p.isSet(tied);
        a.gatedMlp = !p.isSet(plainMlp);
        // The optional shape flags; their combinations are checked by
        // validateArchitecture ("active experts must be between 1 and experts (2), got 3"),
        // but for --experts alone, which names the flag it needs.
        if (p.isSet(headDim) && !wholeNumberOption(p, headDim, 1, 100000, &a.headDim, error))
            return none;
        const std::pair<const QCommandLineOption *, int *> counts[] = {
            {&experts, &a.experts},
            {&expertsPerToken, &a.activeExperts},
            {&sharedExperts, &a.sharedExperts}};
        for (const auto &[o, field] : counts) {
            if (!p.isSet(*o))
                continue;
            if (!wholeNumberOption(p, *o, o == &sharedExperts ? 0 : 1, 100000, &v, error))
                return none;
            *field = int(v);
        }
        if (p.isSet(experts) && !p.isSet(expertsPerToken)) {
            *error = QStringLiteral("--experts needs --experts-per-token (the routed experts "
                                    "each token passes, top-k)");
            return none;
        }
        if (p.isSet(expertFfn) &&
            !wholeNumberOption(p, expertFfn, 1, 10000000, &a.expertFfn, error))
            return none;
        if (p.isSet(qkNorm))
            a.qkNorm = QkNorm::PerHead;
        if (const std::string e = validateArchitecture(a); !e.empty())
            return fail(QStringLiteral("inline architecture: ") + QString::fromStdString(e));
        s.model = Model{};
        s.model.id = "inline";
        s.model.architecture = a;
        s.model.displayName = "Inline " + formatParameters(parameterCount(a)) + " architecture";
        s.model.source = "given on the command line";
    } else if (p.isSet(model) && !catalogEntry(p, model, "model", &Catalog::model, &Catalog::models,
                                               &s.model, error)) {
        return none;
    }

    if (p.isSet(recipe) &&
        !catalogEntry(p, recipe, "recipe", &Catalog::recipe, &Catalog::recipes, &s.recipe, error))
        return none;
    if (p.isSet(bytesPerParam)) {
        const QStringList parts = p.value(bytesPerParam).split(u',');
        std::int64_t b[4] = {};
        bool ok = parts.size() == 4;
        for (int i = 0; ok && i < 4; ++i) {
            b[i] = parts[i].trimmed().toLongLong(&ok);
            ok = ok && b[i] >= 0 && b[i] <= 64;
        }
        if (!ok)
            return fail(QStringLiteral("--bytes-per-param must be four whole numbers 0..64 "
                                       "W,G,M,O, like 2,2,4,8 (got '%1')")
                            .arg(p.value(bytesPerParam)));
        s.recipe = Recipe{"custom", "Custom", "--bytes-per-param", b[0], b[1], b[2], b[3]};
    }
    if (p.isSet(gpu) && !catalogEntry(p, gpu, "GPU", &Catalog::gpu, &Catalog::gpus, &s.gpu, error))
        return none;

    // Every table setting that was given, parsed and checked by the table.
    std::vector<SettingValue> values;
    auto parseFlag = [&p](const Setting &setting, const QCommandLineOption &o, std::int64_t *out,
                          QString *err) {
        if (setting.isSwitch) {
            *out = 1;
            return true;
        }
        std::string why;
        const auto v = parseSettingText(setting, p.value(o).toStdString(), &why);
        if (!v) {
            // "--strategy: unknown strategy 'x'", "--tp must be a whole number ...".
            *err = QStringLiteral("--%1%2%3")
                       .arg(o.names().first(),
                            setting.kind == SettingKind::Choice ? QStringLiteral(": ")
                                                                : QStringLiteral(" "),
                            toQString(why));
            return false;
        }
        *out = *v;
        return true;
    };
    bool gpusGiven = false;
    for (qsizetype i = 0; i < table.size(); ++i) {
        const Setting &setting = settings()[std::size_t(i)];
        const QCommandLineOption &o = table[i];
        const QCommandLineOption *alias = setting.key == "strategy"       ? &zero
                                          : setting.key == "microbatches" ? &gradAccum
                                                                          : nullptr;
        std::int64_t v = 0, w = 0;
        const bool given = p.isSet(o), aliasGiven = alias && p.isSet(*alias);
        if (given && !parseFlag(setting, o, &v, error))
            return none;
        if (aliasGiven && !parseFlag(setting, *alias, &w, error))
            return none;
        if (given && aliasGiven && v != w)
            return fail(QStringLiteral("--%1 and --%2 disagree; give one")
                            .arg(o.names().first(), alias->names().first()));
        if (given || aliasGiven)
            values.push_back({&setting, given ? v : w});
        gpusGiven = gpusGiven || (given && setting.key == "gpus");
    }
    // A launch config goes under the settings flags: they win, with a note for each
    // setting the file also gives, and the values it derives (the GPU count, gradient
    // accumulation, virtual stages) follow them.
    if (p.isSet(launchConfig)) {
        const QString path = p.value(launchConfig);
        const auto bytes = readInputFile(path, error);
        if (!bytes)
            return fail(QStringLiteral("--launch-config: ") + *error);
        QString why;
        const QString name = QFileInfo(path).fileName();
        const auto read = readLaunchConfig(*bytes, name, &why);
        if (!read)
            return fail(QStringLiteral("--launch-config: ") + why);
        LaunchOverrides given;
        for (const SettingValue &v : values)
            given.keys << toQString(v.setting->key);
        given.recipe = p.isSet(recipe) || p.isSet(bytesPerParam);
        if (p.isSet(dp)) {
            given.keys << QStringLiteral("gpus");
            given.dataParallel = p.value(dp).toLongLong(); // range-checked below
        }
        // The flags' values are in place before the file's, so derived values see them;
        // they apply once more below.
        QStringList local;
        applySettings(s, values);
        if (!applyLaunchConfig(*read, name, given, &doc, notes ? notes : &local, &why))
            return fail(QStringLiteral("--launch-config: ") + why);
    }
    applySettings(s, values);

    // --dp sets the world size; with --gpus too, the two must agree.
    Layout &l = s.layout;
    if (p.isSet(dp)) {
        std::int64_t d = 0;
        if (!wholeNumberOption(p, dp, 1, maxGpus, &d, error))
            return none;
        // t, p, c are each at most 65,536, so d x t x p x c < 2^63 only when checked.
        const std::int64_t mp = l.modelParallel();
        if (mp > maxGpus || d > maxGpus / mp)
            return fail(QStringLiteral("--dp x --tp x --pp x --cp (%1 x %2 x %3 x %4) exceeds %5 "
                                       "GPUs")
                            .arg(d)
                            .arg(l.tensorParallel)
                            .arg(l.pipelineParallel)
                            .arg(l.contextParallel)
                            .arg(maxGpus));
        const std::int64_t world = d * mp;
        if (gpusGiven && l.gpus != world)
            return fail(QStringLiteral("--gpus (%1) disagrees with --dp x --tp x --pp x --cp (%2)")
                            .arg(l.gpus)
                            .arg(world));
        l.gpus = world;
    }
    if (p.isSet(unit)) {
        const auto u = byteUnit(p, error);
        if (!u)
            return none;
        doc.unit = *u;
    }
    if (const std::string e = validateResult ? validate(s) : std::string(); !e.empty())
        return fail(QString::fromStdString(e));
    return doc;
}

std::optional<Scenario> ScenarioOptions::scenario(const QCommandLineParser &p, QString *error,
                                                  QStringList *notes) const
{
    const auto doc = document(p, error, true, notes);
    return doc ? std::optional<Scenario>(doc->scenario) : std::nullopt;
}

std::optional<ByteUnit> ScenarioOptions::byteUnit(const QCommandLineParser &p, QString *error) const
{
    if (!p.isSet(unit))
        return ByteUnit::GB;
    const QString u = p.value(unit).toLower();
    if (u == QStringLiteral("gb"))
        return ByteUnit::GB;
    if (u == QStringLiteral("gib"))
        return ByteUnit::GiB;
    *error = QStringLiteral("--unit must be gb or gib (got '%1')").arg(p.value(unit));
    return std::nullopt;
}

int subcommandError(QTextStream &err, const QString &name, const QString &message, int code)
{
    err << "shardscope " << name << ": " << terminalText(message) << "\n";
    err.flush();
    return code;
}

void printNotes(QTextStream &err, const QStringList &notes)
{
    for (const QString &note : notes)
        err << "note: " << terminalText(note) << "\n";
    err.flush();
}

void describeSubcommand(QCommandLineParser &p, const QString &name, const QString &description,
                        const ScenarioOptions &options)
{
    p.setApplicationDescription(description);
    p.addHelpOption();
    p.addPositionalArgument(name, QStringLiteral("the subcommand"));
    options.addTo(p);
}

std::optional<int> startSubcommand(QCommandLineParser &p, const QStringList &args,
                                   const QString &name, QTextStream &out, QTextStream &err,
                                   int positionals)
{
    if (!p.parse(args))
        return subcommandError(err, name, p.errorText());
    // Any flag given twice, the subcommand's own included ("--top 3 --top 5" ran 5), is
    // refused by name rather than silently the last one.
    const QStringList found = p.optionNames();
    for (const QString &option : found)
        if (const qsizetype n = found.count(option); n > 1)
            return subcommandError(
                err, name,
                QStringLiteral("%1%2 is given %3 times; give it once")
                    .arg(option.size() == 1 ? QStringLiteral("-") : QStringLiteral("--"), option)
                    .arg(n));
    if (p.isSet(QStringLiteral("help"))) {
        out << p.helpText();
        out.flush();
        return 0;
    }
    if (p.positionalArguments().size() > positionals)
        return subcommandError(err, name,
                               QStringLiteral("unexpected argument '%1'")
                                   .arg(p.positionalArguments().at(positionals)));
    return std::nullopt;
}

int runReportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(p, QStringLiteral("report"),
                       QStringLiteral("Per-GPU training memory for a model and layout."), options);
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    const QCommandLineOption timeline(
        QStringLiteral("timeline"),
        QStringLiteral("With --json and --pp > 1, add the simulated pipeline schedule (per-stage "
                       "busy time, bubble): p x m x v operations, so off by default."));
    p.addOptions({json, timeline});

    auto fail = [&err](const QString &message) {
        return subcommandError(err, QStringLiteral("report"), message);
    };
    if (const auto done = startSubcommand(p, args, QStringLiteral("report"), out, err))
        return *done;
    QString error;
    QStringList notes;
    const auto doc = options.document(p, &error, true, &notes);
    if (!doc)
        return fail(error);
    const Scenario *s = &doc->scenario;
    const ByteUnit *unit = &doc->unit;
    const MemoryReport report = estimate(*s);
    if (!report.valid())
        return fail(QStringLiteral("cannot estimate: ") + QString::fromStdString(report.error));
    if (p.isSet(json))
        out << QJsonDocument(reportToJson(*s, report, p.isSet(timeline)))
                   .toJson(QJsonDocument::Indented);
    else {
        // Names come from files (a config.json, a scenario's gpu.name): escaped on the way out.
        QString text;
        QTextStream buffer(&text);
        printText(*s, report, *unit, buffer);
        buffer.flush();
        out << terminalText(text, TextLines::Many);
    }
    out.flush();
    printNotes(err, notes);
    return 0;
}

} // namespace shardscope
