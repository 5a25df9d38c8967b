#include "plancommand.h"

#include "activations.h"
#include "catalog.h"
#include "format.h"
#include "inputlimits.h"
#include "launchconfig.h"
#include "layout.h"
#include "planexplain.h"
#include "planner.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "schedule.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <unistd.h>

namespace shardscope {

namespace {

/// Takes a range "A-B" out of --gpus (which the settings table reads as one count):
/// `args` gets A in its place, `*lo` and `*hi` the bounds. Returns false with `*error`
/// for a malformed or reversed range; a plain count is left to the table.
bool takeGpuRange(QStringList &args, std::int64_t *lo, std::int64_t *hi, QString *error)
{
    static const QRegularExpression range(QStringLiteral("^(\\d+)-(\\d+)$"));
    for (qsizetype i = 0; i < args.size(); ++i) {
        QString value;
        bool inline_ = false;
        if (args[i] == QStringLiteral("--gpus") && i + 1 < args.size()) {
            value = args[i + 1];
        } else if (args[i].startsWith(QStringLiteral("--gpus="))) {
            value = args[i].mid(7);
            inline_ = true;
        } else {
            continue;
        }
        const auto m = range.match(value);
        if (!m.hasMatch())
            continue;
        bool ok1 = false, ok2 = false;
        *lo = m.captured(1).toLongLong(&ok1);
        *hi = m.captured(2).toLongLong(&ok2);
        if (!ok1 || !ok2 || *lo < 1 || *hi > maxGpus || *lo > *hi) {
            *error = QStringLiteral("--gpus range must be A-B with 1 <= A <= B <= %1 (got '%2')")
                         .arg(maxGpus)
                         .arg(value);
            return false;
        }
        const QString first = QString::number(*lo);
        if (inline_)
            args[i] = QStringLiteral("--gpus=") + first;
        else
            args[i + 1] = first;
        return true;
    }
    return true;
}

/// The searched settings `plan` takes as constraints: each flag's comma list of values.
struct Constraints
{
    QStringList strategy, recompute, schedule, offload, tp, pp, cp, ep, mbs, chunks;
};

/// Takes the constraint flags (--strategy, --recompute, --schedule, --offload, --tp, --pp,
/// --cp, --ep, --mbs, --chunks; "--flag v" or "--flag=v", v a comma list) out of `args`,
/// so the scenario parser never sees them; refuses the flags the search sets from the
/// global batch (--grad-accum, --microbatches, --dp). False with `error` on a refusal.
bool takeConstraints(QStringList &args, Constraints *c, QString *error)
{
    const struct
    {
        const char *flag;
        QStringList Constraints::*list;
    } flags[] = {{"strategy", &Constraints::strategy},
                 {"recompute", &Constraints::recompute},
                 {"schedule", &Constraints::schedule},
                 {"offload", &Constraints::offload},
                 {"tp", &Constraints::tp},
                 {"pp", &Constraints::pp},
                 {"cp", &Constraints::cp},
                 {"ep", &Constraints::ep},
                 {"mbs", &Constraints::mbs},
                 {"chunks", &Constraints::chunks}};
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        for (const char *setBySearch : {"grad-accum", "microbatches", "dp"}) {
            const QString f = QStringLiteral("--") + QLatin1String(setBySearch);
            if (a == f || a.startsWith(f + u'=')) {
                *error = QStringLiteral("%1 is set by the search from --global-batch-tokens; "
                                        "give that instead")
                             .arg(f);
                return false;
            }
        }
        for (const auto &fl : flags) {
            const QString f = QStringLiteral("--") + QLatin1String(fl.flag);
            QString value;
            if (a == f && i + 1 < args.size()) {
                value = args[i + 1];
                args.remove(i, 2);
            } else if (a.startsWith(f + u'=')) {
                value = a.mid(f.size() + 1);
                args.remove(i, 1);
            } else {
                continue;
            }
            --i;
            const QStringList values = value.split(u',', Qt::SkipEmptyParts);
            if (values.isEmpty()) {
                *error = QStringLiteral("%1 needs a value or a comma list").arg(f);
                return false;
            }
            (c->*fl.list) += values;
            break;
        }
    }
    return true;
}

/// Fills the request's searched sets from `c`, each value checked by the engine's own
/// parser; a value it does not know, or a combination no layout can meet, is refused
/// in one line naming the flags.
bool applyConstraints(const Constraints &c, PlanRequest *q, QString *error)
{
    auto fail = [error](const QString &m) {
        *error = m;
        return false;
    };
    auto each = [&](const QStringList &values, const char *flag, auto parse, auto &out) {
        for (const QString &v : values) {
            const auto parsed = parse(v.trimmed().toStdString());
            if (!parsed) {
                *error = QStringLiteral("--%1: unknown value '%2'").arg(QLatin1String(flag), v);
                return false;
            }
            if (std::find(out.begin(), out.end(), *parsed) == out.end())
                out.push_back(*parsed);
        }
        return true;
    };
    auto degree = [](std::string_view text) -> std::optional<int> {
        bool ok = false;
        const int v = QString::fromUtf8(text.data(), qsizetype(text.size())).toInt(&ok);
        return ok && v >= 1 && v <= maxParallelDegree ? std::optional<int>(v) : std::nullopt;
    };
    if (!c.strategy.isEmpty()) {
        q->strategies.clear();
        if (!each(c.strategy, "strategy", parseZeroStage, q->strategies))
            return false;
    }
    if (!c.recompute.isEmpty()) {
        q->recomputes.clear();
        if (!each(c.recompute, "recompute", parseRecompute, q->recomputes))
            return false;
    }
    if (!c.schedule.isEmpty()) {
        q->schedules.clear();
        if (!each(c.schedule, "schedule", parsePipelineSchedule, q->schedules))
            return false;
    }
    if (!each(c.offload, "offload", parseOffload, q->offloads) ||
        !each(c.tp, "tp", degree, q->tensorParallelDegrees) ||
        !each(c.pp, "pp", degree, q->pipelineParallelDegrees) ||
        !each(c.cp, "cp", degree, q->contextParallelDegrees) ||
        !each(c.ep, "ep", degree, q->expertParallelDegrees) ||
        !each(c.mbs, "mbs", degree, q->microBatchSizes) ||
        !each(c.chunks, "chunks", degree, q->interleavedChunks))
        return false;
    // Contradictions no layout can meet.
    const auto &z = q->strategies;
    const bool onlyDdp = z.size() == 1 && z.front() == ZeroStage::Ddp;
    const bool zero3 = std::find(z.begin(), z.end(), ZeroStage::Zero3) != z.end();
    const auto &o = q->offloads;
    if (!o.empty() && std::find(o.begin(), o.end(), Offload::None) == o.end()) {
        if (onlyDdp)
            return fail(QStringLiteral("--offload %1 needs ZeRO-1 or above, but --strategy "
                                       "allows only ddp")
                            .arg(c.offload.join(u',')));
        const bool onlyParams = o.size() == 1 && o.front() == Offload::OptimizerAndParams;
        if (onlyParams && !zero3)
            return fail(QStringLiteral("--offload optimizer+params needs ZeRO-3, which --strategy "
                                       "leaves out"));
    }
    const auto &ps = q->pipelineParallelDegrees;
    const bool onlyOneStage = ps.size() == 1 && ps.front() == 1;
    if (onlyOneStage && !c.schedule.isEmpty())
        return fail(QStringLiteral("--schedule needs pipeline stages, but --pp is 1"));
    if (!c.chunks.isEmpty() && std::find(q->schedules.begin(), q->schedules.end(),
                                         PipelineSchedule::Interleaved1F1B) == q->schedules.end())
        return fail(QStringLiteral("--chunks needs the interleaved schedule, which --schedule "
                                   "leaves out"));
    return true;
}

QString scheduleText(const Training &t, int p)
{
    if (p == 1)
        return QStringLiteral("-");
    QString s = toQString(pipelineScheduleId(t.schedule));
    if (t.schedule == PipelineSchedule::Interleaved1F1B)
        s += QStringLiteral(" v%1").arg(t.chunks);
    return s;
}

/// Writes the launch config of the ranked layout `row` (1-based) of `r` in `format`
/// (io/launchconfig.h) to `path`, or to `out` when `path` is empty; the config's notes
/// go to `err` as "note: ..." lines. Returns the exit code: 0, 2 with one line when no
/// layout fits, `row` is past the list or the format cannot express the layout, 1 when
/// `path` cannot be written.
int exportRow(const PlanRequest &q, const PlanResult &r, std::int64_t row, LaunchFormat format,
              const QString &path, QTextStream &out, QTextStream &err)
{
    const QString name = QStringLiteral("plan");
    if (r.fittingCount == 0)
        return subcommandError(err, name,
                               QStringLiteral("--export-config: no layout fits, so there is no "
                                              "row to export"));
    if (row > r.fittingCount || row > std::int64_t(r.fitting.size()))
        return subcommandError(err, name,
                               QStringLiteral("--row %1: only %2 layouts fit (rows 1 to %2)")
                                   .arg(row)
                                   .arg(r.fittingCount));
    const PlanCandidate &c = r.fitting[std::size_t(row - 1)];
    QString error;
    const auto config =
        exportLaunchConfig(candidateScenario(q.base, c.layout, c.training), format, &error);
    if (!config)
        return subcommandError(err, name,
                               QStringLiteral("--export-config %1, row %2: %3")
                                   .arg(launchFormatId(format))
                                   .arg(row)
                                   .arg(error));
    if (path.isEmpty()) {
        out << QString::fromUtf8(config->text);
        out.flush();
    } else if (!writeBytesAtomically(path, config->text, &error)) {
        return subcommandError(err, name, error, 1);
    }
    for (const QString &note : config->notes)
        err << "note: " << note << "\n";
    err.flush();
    return 0;
}

} // namespace

QJsonObject planCandidateJson(const PlanCandidate &c)
{
    const Layout &l = c.layout;
    const Training &t = c.training;
    QJsonObject o{{"gpus", qint64(l.gpus)},
                  {"dp", qint64(l.dataParallel())},
                  {"tp", l.tensorParallel},
                  {"pp", l.pipelineParallel},
                  {"cp", l.contextParallel},
                  {"ep", l.expertParallel},
                  {"strategy", toQString(zeroStageId(l.zeroStage))},
                  {"hsdp_shard", qint64(l.hsdpShardSize)},
                  {"micro_batch_size", qint64(t.microBatchSize)},
                  {"microbatches", qint64(t.microBatches)},
                  {"recompute", toQString(recomputeId(t.recompute))},
                  {"schedule", toQString(pipelineScheduleId(t.schedule))},
                  {"chunks", t.chunks},
                  {"offload", toQString(offloadId(l.offload))},
                  {"peak_bytes", qint64(c.peakBytes)},
                  {"stage_split", l.balancedStages      ? QStringLiteral("balanced")
                                  : l.allowUnevenStages ? QStringLiteral("uneven")
                                                        : QStringLiteral("even")}};
    if (c.time.valid()) {
        o.insert("step_seconds", c.time.stepSeconds);
        o.insert("mfu", c.time.mfu);
        o.insert("hfu", c.time.hfu);
        o.insert("tokens_per_second", c.time.tokensPerSecond);
    } else {
        o.insert("step_error", QString::fromStdString(c.time.error));
    }
    return o;
}

int runPlanCommand(const QStringList &argsIn, QTextStream &out, QTextStream &err)
{
    const QString name = QStringLiteral("plan");
    auto fail = [&err, &name](const QString &message) {
        return subcommandError(err, name, message);
    };
    QStringList args = argsIn;
    std::int64_t lo = 0, hi = 0;
    QString error;
    Constraints constraints;
    const bool help =
        args.contains(QStringLiteral("--help")) || args.contains(QStringLiteral("-h"));
    if (!takeGpuRange(args, &lo, &hi, &error) ||
        (!help && !takeConstraints(args, &constraints, &error)))
        return fail(error);

    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(
        p, name,
        QStringLiteral("Layouts that fit a model on a GPU type, ranked by step time.\n"
                       "--gpus takes a count or a range A-B. The searched settings are "
                       "searched unless given: --strategy, --recompute, --schedule, "
                       "--offload, --tp, --pp, --cp, --ep, --mbs and --chunks restrict the "
                       "search to their values (a comma list, e.g. --strategy zero1,zero3); "
                       "the micro-batch count follows from --global-batch-tokens."),
        options);
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    const QCommandLineOption top = valueOption(
        "top", QStringLiteral("Layouts to list, fastest first (0: all). Default 10."), "n");
    const QCommandLineOption objective =
        valueOption("objective",
                    QStringLiteral("fastest (by step time, default) or fewest-gpus (by GPU "
                                   "count, then step time)."),
                    "goal");
    const QCommandLineOption batch =
        valueOption("global-batch-tokens",
                    QStringLiteral("Global batch in tokens per step, a multiple of --seq (default "
                                   "4,194,304 = 4M, Llama 3's initial batch, Dubey et al. 2024)."),
                    "tokens");
    const QCommandLineOption maxTp =
        valueOption("max-tp",
                    QStringLiteral("Largest tensor-parallel degree searched (powers of two; "
                                   "default GPUs per node)."),
                    "t");
    const QCommandLineOption maxPp =
        valueOption("max-pp",
                    QStringLiteral("Largest pipeline degree searched (divisors of the layers; "
                                   "default all)."),
                    "p");
    const QCommandLineOption maxCp =
        valueOption("max-cp",
                    QStringLiteral("Largest context-parallel degree searched (powers of two; "
                                   "default 1)."),
                    "c");
    const QCommandLineOption maxEp = valueOption(
        "max-ep",
        QStringLiteral("Largest expert-parallel degree searched (divisors of the experts; "
                       "default all)."),
        "e");
    const QCommandLineOption maxMbs = valueOption(
        "max-mbs", QStringLiteral("Largest micro-batch size searched (powers of two; default 8)."),
        "b");
    const QCommandLineOption maxChunks = valueOption(
        "max-chunks",
        QStringLiteral("Largest interleaving degree v searched (every v that divides the "
                       "layers per stage; default 8)."),
        "v");
    const QCommandLineOption headroom = valueOption(
        "headroom-percent",
        QStringLiteral("Keep only layouts whose busiest GPU holds at most (100 - N)% of the "
                       "card (default 5: 4 GB of an 80 GB card for what no estimate sees)."),
        "N");
    const QCommandLineOption maxCandidates = valueOption(
        "max-candidates",
        QStringLiteral("Refuse (exit status 2, before searching) a search of more than N "
                       "layouts (default 2,000,000, about 10 s; 0: no limit)."),
        "N");
    const QCommandLineOption progress(
        QStringLiteral("progress"),
        QStringLiteral("Report progress on standard error (by default only when it is a "
                       "terminal or the search takes over a second); standard output is "
                       "the same."));
    const QCommandLineOption exportConfig = valueOption(
        "export-config",
        QStringLiteral("Write the launch config of a ranked layout (the first unless --row) "
                       "instead of the list: deepspeed, accelerate, torchtitan or megatron."),
        "format");
    const QCommandLineOption row = valueOption(
        "row", QStringLiteral("The ranked layout --export-config writes, 1 for the first."), "n");
    const QCommandLineOption outFile = valueOption(
        "out",
        QStringLiteral("File --export-config writes (default: standard output, in place of "
                       "the list)."),
        "file");
    p.addOptions({json, top, objective, batch, maxTp, maxPp, maxCp, maxEp, maxMbs, maxChunks,
                  headroom, maxCandidates, progress, exportConfig, row, outFile});
    if (const auto done = startSubcommand(p, args, name, out, err))
        return *done;
    std::optional<LaunchFormat> format;
    std::int64_t rowNumber = 1;
    if (p.isSet(exportConfig)) {
        format = parseLaunchFormat(p.value(exportConfig));
        if (!format)
            return fail(QStringLiteral("--export-config: unknown format '%1' (known: deepspeed, "
                                       "accelerate, torchtitan, megatron)")
                            .arg(p.value(exportConfig)));
        if (p.isSet(row) && !wholeNumberOption(p, row, 1, 1'000'000'000, &rowNumber, &error))
            return fail(error);
    } else if (p.isSet(row) || p.isSet(outFile)) {
        return fail(QStringLiteral("%1 needs --export-config FORMAT")
                        .arg(p.isSet(row) ? QStringLiteral("--row") : QStringLiteral("--out")));
    }

    QStringList notes;
    const auto doc = options.document(p, &error, false, &notes);
    if (!doc)
        return fail(error);
    printNotes(err, notes); // what a --launch-config could not say
    PlanRequest q;
    q.base = doc->scenario;
    if (lo > 0) {
        q.minGpus = lo;
        q.maxGpus = hi;
    } else {
        q.minGpus = q.maxGpus = q.base.layout.gpus;
    }
    q.maxTensorParallel = int(std::min<std::int64_t>(q.base.layout.gpusPerNode, 65536));
    auto number = [&p](const QCommandLineOption &o, std::int64_t min, std::int64_t max,
                       std::int64_t *outValue, QString *why) {
        if (!p.isSet(o))
            return true;
        return wholeNumberOption(p, o, min, max, outValue, why);
    };
    std::int64_t topN = 10, t = q.maxTensorParallel, pp = 0, c = 1, e = 0,
                 mbs = q.maxMicroBatchSize, tokens = q.globalBatchTokens, v = q.maxChunks, room = 5,
                 limit = 2'000'000;
    if (!number(top, 0, 1'000'000'000, &topN, &error) ||
        !number(maxCandidates, 0, std::int64_t(1) << 50, &limit, &error) ||
        !number(maxTp, 1, maxParallelDegree, &t, &error) ||
        !number(maxPp, 1, maxPipelineStages, &pp, &error) ||
        !number(maxCp, 1, maxParallelDegree, &c, &error) ||
        !number(maxEp, 1, maxParallelDegree, &e, &error) ||
        !number(maxMbs, 1, maxMicroBatchSize, &mbs, &error) ||
        !number(batch, 1, std::int64_t(1) << 50, &tokens, &error) ||
        !number(maxChunks, 1, 1024, &v, &error) || !number(headroom, 0, 90, &room, &error))
        return fail(error);
    q.maxChunks = int(v);
    q.headroomPercent = int(room);
    if (!applyConstraints(constraints, &q, &error))
        return fail(error);
    q.maxTensorParallel = int(t);
    q.maxPipelineParallel = int(pp);
    q.maxContextParallel = int(c);
    q.maxExpertParallel = int(e);
    q.maxMicroBatchSize = mbs;
    q.globalBatchTokens = tokens;
    const QString goal = p.isSet(objective) ? p.value(objective) : QStringLiteral("fastest");
    if (goal != QStringLiteral("fastest") && goal != QStringLiteral("fewest-gpus"))
        return fail(
            QStringLiteral("--objective must be fastest or fewest-gpus (got '%1')").arg(goal));

    q.objective =
        goal == QStringLiteral("fewest-gpus") ? PlanObjective::FewestGpus : PlanObjective::Fastest;
    q.keep = topN; // only the rows shown are kept (and timed, where they may rank)
    if (format)    // --export-config lists nothing: rows 1 to --row are all it needs
        q.keep = rowNumber;
    q.maxCandidates = limit;
    // When nothing fits: the single changes that would (more GPUs, no headroom, a full
    // search of a restricted setting, a leaner recipe of the built-in catalog).
    q.explainNothingFits = !format; // an export only needs its row
    q.recipes = Catalog::builtIn().recipes();
    // Progress on standard error, at most four lines a second: from the start with
    // --progress or on a terminal, else once the search has run a second.
    const auto *errFile = qobject_cast<const QFile *>(err.device());
    const bool always =
        p.isSet(progress) || (errFile && errFile->handle() >= 0 && isatty(errFile->handle()));
    QElapsedTimer clock;
    clock.start();
    qint64 lastLine = -1000;
    q.progress = [&](std::int64_t done, std::int64_t total) {
        const qint64 now = clock.elapsed();
        const bool last = done == total;
        if ((!always && now < 1000) || (now - lastLine < 250 && !(last && lastLine >= 0)))
            return;
        lastLine = now;
        err << QStringLiteral("planned %1 of %2 layouts...\n").arg(done).arg(total);
        err.flush();
    };
    PlanResult r = plan(q);
    if (r.overLimit)
        return fail(QStringLiteral("the search has more than %1 layouts (--max-candidates): "
                                   "narrow --gpus or the searched degrees (--max-pp, --max-mbs, "
                                   "--tp, ...), or raise --max-candidates")
                        .arg(limit));
    if (!r.valid())
        return fail(QString::fromStdString(r.error));
    const std::size_t shown = r.fitting.size(); // the first --top of r.fittingCount
    if (format) {
        const QString path = p.isSet(outFile) ? p.value(outFile) : QString();
        if (p.isSet(outFile) && path.isEmpty())
            return fail(QStringLiteral("--out needs a file name"));
        return exportRow(q, r, rowNumber, *format, path, out, err);
    }

    if (p.isSet(json)) {
        QJsonArray layouts;
        for (std::size_t i = 0; i < shown; ++i)
            layouts.append(planCandidateJson(r.fitting[i]));
        QJsonArray fixes; // nothing fits: the single changes that would
        for (const PlanFix &f : r.fixes)
            fixes.append(QJsonObject{{"change", toQString(f.change)},
                                     {"flags", toQString(f.flags)},
                                     {"layout", planCandidateJson(f.best)}});
        const QJsonObject o{
            {"model", QString::fromStdString(q.base.model.id)},
            {"gpu", QString::fromStdString(q.base.gpu.id)},
            // What headroom_percent and each layout's fit are measured
            // against, beside the figure the card is sold as.
            {"capacity_bytes", qint64(q.base.gpu.usableBytes())},
            {"datasheet_bytes", qint64(q.base.gpu.capacityBytes)},
            {"min_gpus", qint64(q.minGpus)},
            {"max_gpus", qint64(q.maxGpus)},
            {"global_batch_tokens", qint64(q.globalBatchTokens)},
            {"sequence_length", qint64(q.base.training.sequenceLength)},
            {"objective", goal},
            {"headroom_percent", q.headroomPercent},
            {"candidates_evaluated", qint64(r.candidatesEvaluated)},
            {"candidates_pruned", qint64(r.candidatesPruned)},
            // Skipped unestimated, slower than the kept rows: "fitting"
            // counts the estimated only (exact with --top 0).
            {"candidates_slower", qint64(r.candidatesSlower)},
            {"fitting", qint64(r.fittingCount)},
            // The scenario the search starts from, every table setting by
            // its key; each layout gives the degrees and batch it chose.
            {"inputs", settingsToJson(q.base)},
            {"layouts", layouts},
            // Why the first row ranks above the second (two rows or more).
            {"why", shown >= 2 ? toQString(whyFirstText(r.fitting[0], r.fitting[1])) : QString()},
            {"fixes", fixes}};
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
        out.flush();
        return 0;
    }

    const QString gpus = q.minGpus == q.maxGpus
                             ? QString::number(q.minGpus)
                             : QStringLiteral("%1-%2").arg(q.minGpus).arg(q.maxGpus);
    // Names come from files (a config.json, a scenario's gpu.name): escaped on the way out.
    // Layouts slower than the kept rows are skipped unestimated, so their fits are not
    // counted: the count is then a floor ("at least"), exact with --top 0.
    const QString slower =
        r.candidatesSlower > 0
            ? QStringLiteral(", %1 by the step-time bound as slower than the top %2")
                  .arg(r.candidatesSlower)
                  .arg(q.keep)
            : QString();
    out << QStringLiteral("%1 on %2 x %3, %4 tokens per step, s %5: %6%7 of %8 candidates fit "
                          "with %9% headroom (%10 skipped by the model-states bound%11)\n")
               .arg(terminalText(QString::fromStdString(q.base.model.displayName)), gpus,
                    terminalText(QString::fromStdString(q.base.gpu.name)))
               .arg(q.globalBatchTokens)
               .arg(q.base.training.sequenceLength)
               .arg(r.candidatesSlower > 0 ? QStringLiteral("at least ") : QString())
               .arg(r.fittingCount)
               .arg(r.candidates)
               .arg(q.headroomPercent)
               .arg(r.candidatesPruned)
               .arg(slower);
    if (r.candidates == 0 && !r.cancelled) {
        // No layout to try at all (review finding F5: 720,720 GPUs printed "Nothing fits."
        // with no reason): d = GPUs / (t x p x c) must divide the global batch's sequences.
        const qint64 sequences = q.base.training.sequenceLength > 0
                                     ? q.globalBatchTokens / q.base.training.sequenceLength
                                     : 0;
        out << QStringLiteral("No layout to try: the data-parallel size d = GPUs / (t x p x c) "
                              "must divide the global batch of %1 sequences (%2 tokens / s %3), "
                              "with t, p and c within their limits, and no such split of %4 "
                              "GPUs exists. Try a GPU count with more factors of 2, or another "
                              "--global-batch-tokens.\n")
                   .arg(sequences)
                   .arg(q.globalBatchTokens)
                   .arg(q.base.training.sequenceLength)
                   .arg(gpus);
        out.flush();
        return 0;
    }
    if (shown == 0) {
        out << terminalText(toQString(nothingFitsText(r.fixes, doc->unit)), TextLines::Many);
        out.flush();
        return 0;
    }
    out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12 %13 %14 %15 %16 %17\n")
               .arg(QStringLiteral("#"), 3)
               .arg(QStringLiteral("gpus"), 6)
               .arg(QStringLiteral("dp"), 5)
               .arg(QStringLiteral("tp"), 3)
               .arg(QStringLiteral("pp"), 3)
               .arg(QStringLiteral("cp"), 3)
               .arg(QStringLiteral("ep"), 3)
               .arg(QStringLiteral("strategy"), -8)
               .arg(QStringLiteral("mbs"), 4)
               .arg(QStringLiteral("m"), 5)
               .arg(QStringLiteral("recompute"), -9)
               .arg(QStringLiteral("schedule"), -14)
               .arg(QStringLiteral("offload"), -16)
               .arg(QStringLiteral("peak %1").arg(toQString(unitName(doc->unit))), 8)
               .arg(QStringLiteral("free"), 6)
               .arg(QStringLiteral("step s"), 9)
               .arg(QStringLiteral("MFU"), 6);
    for (std::size_t i = 0; i < shown; ++i) {
        const PlanCandidate &cand = r.fitting[i];
        const Layout &l = cand.layout;
        const Training &tr = cand.training;
        const QString step = cand.time.valid() ? QString::number(cand.time.stepSeconds, 'f', 3)
                                               : QStringLiteral("?");
        const QString mfu = cand.time.valid() ? QString::number(100 * cand.time.mfu, 'f', 1) + u'%'
                                              : QStringLiteral("?");
        const double capacity = double(q.base.gpu.usableBytes());
        const QString free =
            capacity > 0
                ? QString::number(100 * (capacity - double(cand.peakBytes)) / capacity, 'f', 1) +
                      u'%'
                : QStringLiteral("?");
        out << QStringLiteral("%1 %2 %3 %4 %5 %6 %7 %8 %9 %10 %11 %12 %13 %14 %15 %16 %17\n")
                   .arg(qulonglong(i + 1), 3)
                   .arg(l.gpus, 6)
                   .arg(l.dataParallel(), 5)
                   .arg(l.tensorParallel, 3)
                   .arg(l.pipelineParallel, 3)
                   .arg(l.contextParallel, 3)
                   .arg(l.expertParallel, 3)
                   .arg(toQString(zeroStageId(l.zeroStage)) +
                            (l.hsdpShardSize > 0 ? QStringLiteral("/%1").arg(l.hsdpShardSize)
                                                 : QString()),
                        -8)
                   .arg(tr.microBatchSize, 4)
                   .arg(tr.microBatches, 5)
                   .arg(toQString(recomputeId(tr.recompute)), -9)
                   .arg(scheduleText(tr, l.pipelineParallel), -14)
                   .arg(toQString(offloadId(l.offload)), -16)
                   .arg(QString::number(double(cand.peakBytes) / unitBytes(doc->unit), 'f', 1), 8)
                   .arg(free, 6)
                   .arg(step, 9)
                   .arg(mfu, 6);
    }
    if (std::int64_t(shown) < r.fittingCount)
        out << QStringLiteral("... %1 more (--top 0 lists all)\n")
                   .arg(r.fittingCount - std::int64_t(shown));
    if (!r.fitting.front().time.valid())
        out << terminalText(QString::fromStdString(r.fitting.front().time.error)) << "\n";
    else if (shown >= 2)
        out << terminalText(toQString(whyFirstText(r.fitting[0], r.fitting[1]))) << "\n";
    out.flush();
    return 0;
}

} // namespace shardscope
