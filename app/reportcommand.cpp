#include "reportcommand.h"

#include "catalog.h"
#include "estimate.h"
#include "format.h"
#include "reportjson.h"

#include <QCommandLineParser>
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
    out << QStringLiteral("%1: %2 parameters, %3 (%4 B/param)\n")
               .arg(QString::fromStdString(s.model.displayName.empty() ? "model"
                                                                       : s.model.displayName))
               .arg(r.parameters)
               .arg(QString::fromStdString(s.recipe.id))
               .arg(s.recipe.totalBytesPerParameter());
    out << QStringLiteral("%1 x %2, %3\n")
               .arg(s.layout.gpus)
               .arg(QString::fromStdString(s.gpu.name))
               .arg(QString::fromUtf8(zeroStageName(s.layout.zeroStage).data()));
    for (const auto &g : r.groups) {
        out << QStringLiteral("%1 (%2 GPUs from rank %3):\n")
                   .arg(QString::fromStdString(g.label))
                   .arg(g.gpuCount)
                   .arg(g.firstRank);
        for (int c = 0; c < componentCount; ++c)
            out << QStringLiteral("  %1 %2\n")
                       .arg(QString::fromStdString(componentName(Component(c))), -18)
                       .arg(fmt(componentValue(g.bytes, Component(c))), 12);
        out << QStringLiteral("  %1 %2\n")
                   .arg(QStringLiteral("Total"), -18)
                   .arg(fmt(g.totalBytes()), 12);
    }
    out << QString::fromStdString(verdictText(s, r, unit)) << "\n";
}

} // namespace

ScenarioOptions::ScenarioOptions()
    : model(QStringLiteral("model"),
            QStringLiteral("Model preset id (%1; default llama3-70b).")
                .arg(ids(Catalog::builtIn().models())),
            QStringLiteral("id"), QStringLiteral("llama3-70b")),
      params(QStringLiteral("params"),
             QStringLiteral("Plain parameter count instead of --model, e.g. 70e9 or 70B."),
             QStringLiteral("count")),
      gpus(QStringLiteral("gpus"), QStringLiteral("Number of GPUs (default 8)."),
           QStringLiteral("n"), QStringLiteral("8")),
      strategy(QStringLiteral("strategy"),
               QStringLiteral("ddp, zero1, zero2 or zero3 (default ddp)."), QStringLiteral("name"),
               QStringLiteral("ddp")),
      gpu(QStringLiteral("gpu"),
          QStringLiteral("GPU id (%1; default h100-sxm-80gb).").arg(ids(Catalog::builtIn().gpus())),
          QStringLiteral("id"), QStringLiteral("h100-sxm-80gb")),
      recipe(QStringLiteral("recipe"),
             QStringLiteral("Recipe id (%1; default mixed-adam).")
                 .arg(ids(Catalog::builtIn().recipes())),
             QStringLiteral("id"), QStringLiteral("mixed-adam")),
      unit(QStringLiteral("unit"), QStringLiteral("gb (1e9 bytes, default) or gib (2^30)."),
           QStringLiteral("unit"), QStringLiteral("gb"))
{
}

void ScenarioOptions::addTo(QCommandLineParser &p) const
{
    p.addOptions({model, params, gpus, strategy, gpu, recipe, unit});
}

std::optional<Scenario> ScenarioOptions::scenario(const QCommandLineParser &p, QString *error) const
{
    const Catalog &catalog = Catalog::builtIn();
    auto fail = [error](const QString &message) {
        *error = message;
        return std::nullopt;
    };
    Scenario s;
    if (p.isSet(model) && p.isSet(params))
        return fail(QStringLiteral("--model and --params are exclusive; give one"));
    if (p.isSet(params)) {
        const auto n = parseParameterCount(p.value(params));
        if (!n)
            return fail(QStringLiteral("--params must be a positive parameter count below 1e14, "
                                       "like 70e9 or 70B (got '%1')")
                            .arg(p.value(params)));
        s.model.id = "custom";
        s.model.displayName = formatParameters(*n) + " (plain count)";
        s.model.plainParameters = *n;
    } else {
        const QString id = p.value(model);
        const Model *m = catalog.model(id.toStdString());
        if (!m)
            return fail(QStringLiteral("--model: unknown model '%1' (known: %2)")
                            .arg(id, ids(catalog.models())));
        s.model = *m;
    }
    bool ok = false;
    s.layout.gpus = p.value(gpus).toLongLong(&ok);
    if (!ok || s.layout.gpus < 1 || s.layout.gpus > maxGpus)
        return fail(QStringLiteral("--gpus must be a whole number from 1 to %1 (got '%2')")
                        .arg(maxGpus)
                        .arg(p.value(gpus)));
    const auto z = parseZeroStage(p.value(strategy).toStdString());
    if (!z)
        return fail(QStringLiteral("--strategy: unknown strategy '%1' (known: ddp, zero1, zero2, "
                                   "zero3)")
                        .arg(p.value(strategy)));
    s.layout.zeroStage = *z;
    const Gpu *g = catalog.gpu(p.value(gpu).toStdString());
    if (!g)
        return fail(QStringLiteral("--gpu: unknown GPU '%1' (known: %2)")
                        .arg(p.value(gpu), ids(catalog.gpus())));
    s.gpu = *g;
    const Recipe *r = catalog.recipe(p.value(recipe).toStdString());
    if (!r)
        return fail(QStringLiteral("--recipe: unknown recipe '%1' (known: %2)")
                        .arg(p.value(recipe), ids(catalog.recipes())));
    s.recipe = *r;
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
    if (p.isSet(json))
        out << QJsonDocument(reportToJson(*s, report)).toJson(QJsonDocument::Indented);
    else
        printText(*s, report, *unit, out);
    out.flush();
    return 0;
}

} // namespace shardscope
