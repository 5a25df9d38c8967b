#include "reportcommand.h"

#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "hfconfig.h"
#include "reportjson.h"

#include <QCommandLineParser>
#include <QFile>
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

namespace {

QString ids(const auto &items)
{
    QStringList out;
    for (const auto &x : items)
        out << QString::fromStdString(x.id);
    return out.join(QStringLiteral(", "));
}

void printText(const Scenario &s, const MemoryReport &r, ByteUnit unit, QTextStream &out)
{
    auto fmt = [unit](std::int64_t b) { return QString::fromStdString(formatBytes(b, unit)); };
    const Layout &l = s.layout;
    out << QStringLiteral("%1: %2 parameters, %3 (%4 B/param)\n")
               .arg(QString::fromStdString(s.model.displayName.empty() ? "model"
                                                                       : s.model.displayName))
               .arg(r.parameters)
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
        out << QStringLiteral("%1 (%2 GPUs from rank %3)")
                   .arg(QString::fromStdString(g.label))
                   .arg(g.gpuCount)
                   .arg(g.firstRank);
        if (g.layerCount > 0)
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
}

} // namespace

namespace {

QCommandLineOption valueOption(const char *name, const QString &help, const char *valueName,
                               const QString &def = {})
{
    return QCommandLineOption(QString::fromLatin1(name), help, QString::fromLatin1(valueName), def);
}

} // namespace

ScenarioOptions::ScenarioOptions()
    : model(valueOption("model",
                        QStringLiteral("Model preset id (%1; default llama3-70b).")
                            .arg(ids(Catalog::builtIn().models())),
                        "id")),
      params(valueOption("params",
                         QStringLiteral("Plain parameter count instead of --model, e.g. 70e9 "
                                        "or 70B (model states only: no shapes)."),
                         "count")),
      hfConfig(valueOption("hf-config",
                           QStringLiteral("Model from a Hugging Face config.json instead of "
                                          "--model (llama, mistral, mixtral, qwen2, gemma, "
                                          "gemma2, deepseek_v3)."),
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
      recipe(valueOption("recipe",
                         QStringLiteral("Recipe id (%1; default mixed-adam).")
                             .arg(ids(Catalog::builtIn().recipes())),
                         "id", QStringLiteral("mixed-adam"))),
      bytesPerParam(valueOption("bytes-per-param",
                                QStringLiteral("Bytes per parameter W,G,M,O (weights, gradients, "
                                               "master weights, optimizer states), e.g. 2,2,4,8."),
                                "W,G,M,O")),
      gpus(valueOption("gpus", QStringLiteral("World size (default 8, or dp x tp x pp x cp)."),
                       "n")),
      dp(valueOption("dp", QStringLiteral("Data-parallel degree (default gpus / (tp pp cp))."),
                     "d")),
      tp(valueOption("tp", QStringLiteral("Tensor-parallel degree (default 1)."), "t",
                     QStringLiteral("1"))),
      pp(valueOption("pp", QStringLiteral("Pipeline-parallel stages (default 1)."), "p",
                     QStringLiteral("1"))),
      cp(valueOption("cp", QStringLiteral("Context-parallel degree (default 1)."), "c",
                     QStringLiteral("1"))),
      ep(valueOption("ep",
                     QStringLiteral("Expert-parallel degree for a mixture-of-experts model, "
                                    "inside the data x context ranks (default 1)."),
                     "e", QStringLiteral("1"))),
      strategy(valueOption("strategy", QStringLiteral("ddp, zero1, zero2 or zero3 (default ddp)."),
                           "name")),
      zero(valueOption("zero", QStringLiteral("ZeRO stage 0..3 (alias of --strategy)."), "stage")),
      hsdpShard(valueOption("hsdp-shard",
                            QStringLiteral("HSDP shard-group size (default: shard over all "
                                           "data x context ranks)."),
                            "s", QStringLiteral("0"))),
      offload(valueOption("offload",
                          QStringLiteral("CPU offload: none, optimizer or optimizer+params."),
                          "what", QStringLiteral("none"))),
      unevenStages(QStringLiteral("uneven-stages"),
                   QStringLiteral("Allow layers not divisible by pipeline stages.")),
      gpusPerNode(valueOption("gpus-per-node", QStringLiteral("GPUs per node (default 8)."), "n",
                              QStringLiteral("8"))),
      mbs(valueOption("mbs", QStringLiteral("Micro-batch size in sequences (default 1)."), "b",
                      QStringLiteral("1"))),
      seq(valueOption("seq", QStringLiteral("Sequence length in tokens (default 4096)."), "s",
                      QStringLiteral("4096"))),
      microbatches(valueOption("microbatches",
                               QStringLiteral("Micro-batches per step, m (default 8); global batch "
                                              "= m x mbs x dp."),
                               "m")),
      gradAccum(valueOption("grad-accum", QStringLiteral("Alias of --microbatches."), "m")),
      recompute(valueOption("recompute",
                            QStringLiteral("Activation recomputation: none, selective or full "
                                           "(default full)."),
                            "level", QStringLiteral("full"))),
      flashAttention(valueOption("flash-attention",
                                 QStringLiteral("on (default) or off: store the s x s scores."),
                                 "on|off", QStringLiteral("on"))),
      sequenceParallel(valueOption("sequence-parallel",
                                   QStringLiteral("on (default) or off (with --tp > 1)."), "on|off",
                                   QStringLiteral("on"))),
      fp32Logits(valueOption("fp32-logits",
                             QStringLiteral("on (default) or off: logits in fp32 for the loss, "
                                            "else in the activation dtype."),
                             "on|off", QStringLiteral("on"))),
      loss(valueOption("loss",
                       QStringLiteral("Cross-entropy kernel: fused (default; Megatron's "
                                      "vocab-parallel loss, one logits buffer) or eager "
                                      "(PyTorch F.cross_entropy, three at its backward)."),
                       "fused|eager", QStringLiteral("fused"))),
      schedule(valueOption("schedule",
                           QStringLiteral("Pipeline schedule: gpipe, 1f1b (default), "
                                          "interleaved or zb-h1."),
                           "name", QStringLiteral("1f1b"))),
      chunks(valueOption("chunks",
                         QStringLiteral("Model chunks per stage for interleaved 1F1B (default 2)."),
                         "v")),
      cudaContextMib(valueOption("cuda-context-mib",
                                 QStringLiteral("CUDA context per GPU in MiB (default 512)."),
                                 "MiB", QStringLiteral("512"))),
      fragmentation(valueOption("fragmentation-percent",
                                QStringLiteral("Allocator fragmentation reserve (default 5)."), "%",
                                QStringLiteral("5"))),
      gatheredUnits(valueOption("gathered-units",
                                QStringLiteral("ZeRO-3 layers gathered at once, 1 or 2 (default 2: "
                                               "prefetch)."),
                                "n", QStringLiteral("2"))),
      hostRamGb(valueOption("host-ram-gb",
                            QStringLiteral("Host RAM per node in GB (default 2000)."), "GB",
                            QStringLiteral("2000"))),
      modelStatesOnly(QStringLiteral("model-states-only"),
                      QStringLiteral("Count weights, gradients, master weights and optimizer "
                                     "states only (as the ZeRO paper and the seeds do).")),
      gpu(valueOption(
          "gpu",
          QStringLiteral("GPU id (%1; default h100-sxm-80gb).").arg(ids(Catalog::builtIn().gpus())),
          "id", QStringLiteral("h100-sxm-80gb"))),
      unit(valueOption("unit", QStringLiteral("gb (1e9 bytes, default) or gib (2^30)."), "unit",
                       QStringLiteral("gb")))
{
    all = {model,
           params,
           hfConfig,
           layers,
           hidden,
           ffn,
           heads,
           kvHeads,
           vocab,
           tied,
           plainMlp,
           recipe,
           bytesPerParam,
           gpus,
           dp,
           tp,
           pp,
           cp,
           ep,
           strategy,
           zero,
           hsdpShard,
           offload,
           unevenStages,
           gpusPerNode,
           mbs,
           seq,
           microbatches,
           gradAccum,
           recompute,
           flashAttention,
           sequenceParallel,
           fp32Logits,
           loss,
           schedule,
           chunks,
           cudaContextMib,
           fragmentation,
           gatheredUnits,
           hostRamGb,
           modelStatesOnly,
           gpu,
           unit};
}

void ScenarioOptions::addTo(QCommandLineParser &p) const
{
    p.addOptions(all);
}

bool ScenarioOptions::anySet(const QCommandLineParser &p) const
{
    for (const auto &o : all)
        if (o.names() != unit.names() && p.isSet(o))
            return true;
    return false;
}

std::optional<Scenario> ScenarioOptions::scenario(const QCommandLineParser &p, QString *error) const
{
    const Catalog &catalog = Catalog::builtIn();
    std::optional<Scenario> none;
    auto fail = [error, &none](const QString &message) {
        *error = message;
        return none;
    };
    // Whole numbers from min to max; names the flag on failure.
    auto integer = [&p](const QCommandLineOption &o, std::int64_t min, std::int64_t max,
                        std::int64_t *out, QString *err) {
        bool ok = false;
        const qlonglong v = p.value(o).toLongLong(&ok);
        if (!ok || v < min || v > max) {
            *err = QStringLiteral("--%1 must be a whole number from %2 to %3 (got '%4')")
                       .arg(o.names().first())
                       .arg(min)
                       .arg(max)
                       .arg(p.value(o));
            return false;
        }
        *out = v;
        return true;
    };
    auto onOff = [&p](const QCommandLineOption &o, bool *out, QString *err) {
        const QString v = p.value(o).toLower();
        if (v != QStringLiteral("on") && v != QStringLiteral("off")) {
            *err = QStringLiteral("--%1 must be on or off (got '%2')")
                       .arg(o.names().first(), p.value(o));
            return false;
        }
        *out = v == QStringLiteral("on");
        return true;
    };

    Scenario s;
    const bool inline_ =
        p.isSet(layers) || p.isSet(hidden) || p.isSet(ffn) || p.isSet(heads) || p.isSet(vocab);
    if (int(p.isSet(model)) + int(p.isSet(params)) + int(inline_) + int(p.isSet(hfConfig)) > 1)
        return fail(QStringLiteral("--model, --params, --hf-config and an inline architecture "
                                   "(--layers ...) are exclusive; give one"));
    if (p.isSet(hfConfig)) {
        QFile file(p.value(hfConfig));
        if (!file.open(QIODevice::ReadOnly))
            return fail(QStringLiteral("--hf-config: cannot read '%1'").arg(p.value(hfConfig)));
        QString why;
        auto m = modelFromHfConfig(file.readAll(), &why);
        if (!m)
            return fail(QStringLiteral("--hf-config: ") + why);
        s.model = std::move(*m);
    } else if (p.isSet(params)) {
        const auto n = parseParameterCount(p.value(params));
        if (!n)
            return fail(QStringLiteral("--params must be a positive parameter count below 1e14, "
                                       "like 70e9 or 70B (got '%1')")
                            .arg(p.value(params)));
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
        if (!integer(layers, 1, 100000, &v, error))
            return none;
        a.layers = int(v);
        if (!integer(hidden, 1, 1000000, &a.hidden, error) ||
            !integer(ffn, 1, 10000000, &a.ffn, error) || !integer(heads, 1, 100000, &v, error))
            return none;
        a.heads = int(v);
        a.kvHeads = a.heads;
        if (p.isSet(kvHeads)) {
            if (!integer(kvHeads, 1, 100000, &v, error))
                return none;
            a.kvHeads = int(v);
        }
        if (!integer(vocab, 1, 100000000, &a.vocab, error))
            return none;
        a.tiedEmbeddings = p.isSet(tied);
        a.gatedMlp = !p.isSet(plainMlp);
        if (const std::string e = validateArchitecture(a); !e.empty())
            return fail(QStringLiteral("inline architecture: ") + QString::fromStdString(e));
        s.model.id = "inline";
        s.model.architecture = a;
        s.model.displayName = "Inline " + formatParameters(parameterCount(a)) + " architecture";
        s.model.source = "given on the command line";
    } else {
        const QString id = p.isSet(model) ? p.value(model) : QStringLiteral("llama3-70b");
        const Model *m = catalog.model(id.toStdString());
        if (!m)
            return fail(QStringLiteral("--model: unknown model '%1' (known: %2)")
                            .arg(id, ids(catalog.models())));
        s.model = *m;
    }

    const Recipe *r = catalog.recipe(p.value(recipe).toStdString());
    if (!r)
        return fail(QStringLiteral("--recipe: unknown recipe '%1' (known: %2)")
                        .arg(p.value(recipe), ids(catalog.recipes())));
    s.recipe = *r;
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

    Layout &l = s.layout;
    std::int64_t v = 0;
    if (!integer(tp, 1, 65536, &v, error))
        return none;
    l.tensorParallel = int(v);
    if (!integer(pp, 1, 65536, &v, error))
        return none;
    l.pipelineParallel = int(v);
    if (!integer(cp, 1, 65536, &v, error))
        return none;
    l.contextParallel = int(v);
    if (!integer(ep, 1, 65536, &v, error))
        return none;
    l.expertParallel = int(v);
    if (p.isSet(dp)) {
        std::int64_t d = 0;
        if (!integer(dp, 1, maxGpus, &d, error))
            return none;
        const std::int64_t world = d * l.modelParallel();
        if (p.isSet(gpus) && p.value(gpus).toLongLong() != world)
            return fail(QStringLiteral("--gpus (%1) disagrees with --dp x --tp x --pp x --cp (%2)")
                            .arg(p.value(gpus))
                            .arg(world));
        l.gpus = world;
    } else {
        l.gpus = 8;
        if (p.isSet(gpus) && !integer(gpus, 1, maxGpus, &l.gpus, error))
            return none;
    }
    if (l.gpus > maxGpus)
        return fail(QStringLiteral("world size %1 exceeds %2 GPUs").arg(l.gpus).arg(maxGpus));
    if (p.isSet(strategy) && p.isSet(zero) && p.value(strategy) != p.value(zero))
        return fail(QStringLiteral("--strategy and --zero disagree; give one"));
    const QString stageText = p.isSet(zero)       ? p.value(zero)
                              : p.isSet(strategy) ? p.value(strategy)
                                                  : QStringLiteral("ddp");
    const auto z = parseZeroStage(stageText.toStdString());
    if (!z)
        return fail(QStringLiteral("--%1: unknown strategy '%2' (known: ddp, zero1, zero2, zero3, "
                                   "or 0..3)")
                        .arg(p.isSet(zero) ? QStringLiteral("zero") : QStringLiteral("strategy"),
                             stageText));
    l.zeroStage = *z;
    if (!integer(hsdpShard, 0, maxGpus, &l.hsdpShardSize, error) ||
        !integer(gpusPerNode, 1, 1024, &l.gpusPerNode, error))
        return none;
    const auto off = parseOffload(p.value(offload).toStdString());
    if (!off)
        return fail(QStringLiteral("--offload: unknown value '%1' (known: none, optimizer, "
                                   "optimizer+params)")
                        .arg(p.value(offload)));
    l.offload = *off;
    l.allowUnevenStages = p.isSet(unevenStages);

    Training &t = s.training;
    if (!integer(mbs, 1, 65536, &t.microBatchSize, error) ||
        !integer(seq, 1, 16777216, &t.sequenceLength, error))
        return none;
    if (p.isSet(microbatches) && p.isSet(gradAccum) && p.value(microbatches) != p.value(gradAccum))
        return fail(QStringLiteral("--microbatches and --grad-accum disagree; give one"));
    if (p.isSet(microbatches) && !integer(microbatches, 1, 65536, &t.microBatches, error))
        return none;
    if (p.isSet(gradAccum) && !integer(gradAccum, 1, 65536, &t.microBatches, error))
        return none;
    const auto rc = parseRecompute(p.value(recompute).toLower().toStdString());
    if (!rc)
        return fail(QStringLiteral("--recompute: unknown level '%1' (known: none, selective, full)")
                        .arg(p.value(recompute)));
    t.recompute = *rc;
    if (!onOff(flashAttention, &t.flashAttention, error) ||
        !onOff(sequenceParallel, &t.sequenceParallel, error) ||
        !onOff(fp32Logits, &t.fp32Logits, error))
        return none;
    const auto lk = parseLossKernel(p.value(loss).toLower().toStdString());
    if (!lk)
        return fail(
            QStringLiteral("--loss: unknown kernel '%1' (known: fused, eager)").arg(p.value(loss)));
    t.lossKernel = *lk;
    const auto sched = parsePipelineSchedule(p.value(schedule).toLower().toStdString());
    if (!sched)
        return fail(QStringLiteral("--schedule: unknown schedule '%1' (known: gpipe, 1f1b, "
                                   "interleaved, zb-h1)")
                        .arg(p.value(schedule)));
    t.schedule = *sched;
    t.chunks = t.schedule == PipelineSchedule::Interleaved1F1B ? 2 : 1;
    if (p.isSet(chunks)) {
        if (!integer(chunks, 1, 64, &v, error))
            return none;
        t.chunks = int(v);
    }

    Overheads &o = s.overheads;
    if (!integer(cudaContextMib, 0, 1000000, &v, error))
        return none;
    o.cudaContextBytes = v * 1024 * 1024;
    if (!integer(fragmentation, 0, 100, &v, error))
        return none;
    o.fragmentationPercent = int(v);
    if (!integer(gatheredUnits, 1, 2, &v, error))
        return none;
    o.gatheredUnits = int(v);
    if (!integer(hostRamGb, 0, 1000000000, &v, error))
        return none;
    o.hostRamBytesPerNode = v * 1'000'000'000;
    s.modelStatesOnly = p.isSet(modelStatesOnly);

    const Gpu *g = catalog.gpu(p.value(gpu).toStdString());
    if (!g)
        return fail(QStringLiteral("--gpu: unknown GPU '%1' (known: %2)")
                        .arg(p.value(gpu), ids(catalog.gpus())));
    s.gpu = *g;
    if (const std::string e = validate(s); !e.empty())
        return fail(QString::fromStdString(e));
    return s;
}

std::optional<ByteUnit> ScenarioOptions::byteUnit(const QCommandLineParser &p, QString *error) const
{
    const QString u = p.value(unit).toLower();
    if (u == QStringLiteral("gb"))
        return ByteUnit::GB;
    if (u == QStringLiteral("gib"))
        return ByteUnit::GiB;
    *error = QStringLiteral("--unit must be gb or gib (got '%1')").arg(p.value(unit));
    return std::nullopt;
}

int runReportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Per-GPU training memory for a model and layout."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("report"), QStringLiteral("the subcommand"));
    const ScenarioOptions options;
    options.addTo(p);
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    p.addOption(json);

    auto fail = [&err](const QString &message) {
        err << "shardscope report: " << message << "\n";
        err.flush();
        return 2;
    };
    if (!p.parse(args))
        return fail(p.errorText());
    if (p.isSet(QStringLiteral("help"))) {
        out << p.helpText();
        out.flush();
        return 0;
    }
    if (p.positionalArguments().size() > 1)
        return fail(QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().at(1)));
    QString error;
    const auto s = options.scenario(p, &error);
    if (!s)
        return fail(error);
    const auto unit = options.byteUnit(p, &error);
    if (!unit)
        return fail(error);
    const MemoryReport report = estimate(*s);
    if (!report.valid())
        return fail(QStringLiteral("cannot estimate: ") + QString::fromStdString(report.error));
    if (p.isSet(json))
        out << QJsonDocument(reportToJson(*s, report)).toJson(QJsonDocument::Indented);
    else
        printText(*s, report, *unit, out);
    out.flush();
    return 0;
}

} // namespace shardscope
