// `shardscope plan`: ranked layouts as a table or JSON, GPU ranges, objectives and
// one-line refusals (app/plancommand.h).
#include "plancommand.h"
#include "runcommand.h"
#include "settings.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace shardscope;
using shardscope::test::Run;
using shardscope::test::verifyRefusal;

namespace {

/// `shardscope plan ...`, run in-process.
const shardscope::test::Subcommand planCli{runPlanCommand, "plan"};

} // namespace

class TestPlanCommand : public QObject
{
    Q_OBJECT
private slots:
    void jsonListsFittingLayoutsFastestFirst()
    {
        const QJsonObject o =
            planCli.json({"--model", "llama3-70b", "--gpus", "64", "--gpu", "h100-sxm-80gb",
                          "--seq", "8192", "--max-mbs", "2", "--top", "0"});
        QVERIFY(o.value("candidates_evaluated").toInteger() > 0);
        const QJsonArray layouts = o.value("layouts").toArray();
        QCOMPARE(layouts.size(), qsizetype(o.value("fitting").toInteger()));
        QVERIFY(!layouts.isEmpty());
        double last = 0;
        for (const QJsonValue &v : layouts) {
            const QJsonObject l = v.toObject();
            for (const char *k : {"dp", "tp", "pp", "cp", "ep", "strategy", "micro_batch_size",
                                  "microbatches", "recompute", "schedule", "chunks", "offload",
                                  "peak_bytes", "step_seconds", "mfu", "tokens_per_second"})
                QVERIFY2(l.contains(QLatin1String(k)), k);
            // 64 GPUs = d x t x p x c, and the 4M-token batch (512 sequences of 8192)
            // = m x b x d.
            QCOMPARE(l.value("dp").toInteger() * l.value("tp").toInteger() *
                         l.value("pp").toInteger() * l.value("cp").toInteger(),
                     qint64(64));
            QCOMPARE(l.value("microbatches").toInteger() * l.value("micro_batch_size").toInteger() *
                         l.value("dp").toInteger(),
                     qint64(512));
            // Fits an H100 80GB: 81,559 MiB = 85,520,809,984 bytes as its driver reports.
            QVERIFY(l.value("peak_bytes").toInteger() <= 85'520'809'984LL);
            const double step = l.value("step_seconds").toDouble();
            QVERIFY(step >= last);
            last = step;
            QVERIFY(l.value("mfu").toDouble() > 0 && l.value("mfu").toDouble() < 1);
        }
    }

    void jsonEchoesEverySetting()
    {
        // "inputs": the scenario the search starts from, every settings-table entry by
        // its key (the searched degrees and batch are each layout's own).
        const QJsonObject o =
            planCli.json({"--model", "llama3-8b", "--gpus", "8", "--gpu", "h100-sxm-80gb",
                          "--nic-latency-ns", "7000", "--top", "1"});
        const QJsonObject in = o["inputs"].toObject();
        QCOMPARE(in.size(), qsizetype(settings().size()));
        for (const Setting &s : settings())
            QVERIFY2(in.contains(QString::fromUtf8(s.key.data(), qsizetype(s.key.size()))),
                     s.key.data());
        QCOMPARE(in["gpus"].toInteger(), 8LL);
        QCOMPARE(in["nic_latency_ns"].toInteger(), 7000LL);
        QCOMPARE(in["seq"].toInteger(), 4096LL);
        QCOMPARE(in["nvlink_latency_ns"].toInteger(), 1000LL); // the default
    }

    void rangeAndFewestGpus()
    {
        const QJsonObject o =
            planCli.json({"--model", "llama3-8b", "--gpus", "8-16", "--seq", "8192", "--max-mbs",
                          "1", "--objective", "fewest-gpus", "--top", "0"});
        QCOMPARE(o.value("min_gpus").toInteger(), qint64(8));
        QCOMPARE(o.value("max_gpus").toInteger(), qint64(16));
        const QJsonArray layouts = o.value("layouts").toArray();
        QVERIFY(!layouts.isEmpty());
        qint64 last = 0;
        for (const QJsonValue &v : layouts) {
            const qint64 g = v.toObject().value("gpus").toInteger();
            QVERIFY(g >= 8 && g <= 16);
            QVERIFY(g >= last);
            last = g;
        }
        // 8B with ZeRO-3 fits on 8 H100s, so the fewest-GPU answer starts at 8.
        QCOMPARE(layouts.first().toObject().value("gpus").toInteger(), qint64(8));
    }

    void maxCandidatesRefusesAHugeSearch()
    {
        // Llama 3 8B on 1-64 GPUs, b up to 4 searches 51,840 candidates (the JSON's
        // evaluated + pruned + slower): one fewer as the limit is refused before any estimate, in
        // one line with exit status 2; the default limit refuses a 1,024-layer model over
        // every count up to 1,048,576 GPUs at once.
        const QStringList small = {"--model", "llama3-8b", "--gpus", "1-64", "--max-mbs", "4"};
        const QJsonObject o = planCli.json(small);
        const qint64 space = o.value("candidates_evaluated").toInteger() +
                             o.value("candidates_pruned").toInteger() +
                             o.value("candidates_slower").toInteger();
        QCOMPARE(space, qint64(51840));
        verifyRefusal(planCli(small + QStringList{"--max-candidates", QString::number(space - 1)}),
                      QStringLiteral("shardscope plan: the search has more than 51839 layouts "
                                     "(--max-candidates)"));
        const QJsonObject atLimit =
            planCli.json(small + QStringList{"--max-candidates", QString::number(space)});
        QCOMPARE(atLimit.value("fitting").toInteger(), o.value("fitting").toInteger());
        verifyRefusal(planCli({"--layers", "1024", "--hidden", "1024", "--heads", "8", "--kv-heads",
                               "8", "--ffn", "4096", "--vocab", "32000", "--gpus", "1-1048576"}),
                      QStringLiteral("shardscope plan: the search has more than 2000000 layouts"));
        verifyRefusal(planCli(small + QStringList{"--max-candidates", "-1"}),
                      QStringLiteral("shardscope plan: --max-candidates"));
    }

    void progressGoesToStandardErrorOnly()
    {
        // --progress reports on standard error ("planned N of M layouts...", the last line
        // the whole space); standard output is byte for byte what it is without it.
        const QStringList args = {"--model", "llama3-8b", "--gpus", "1-64", "--max-mbs", "4"};
        const QRegularExpression progressLine(
            QStringLiteral("^planned [0-9]+ of 51840 layouts\\.\\.\\.$"));
        for (const QStringList &extra : {QStringList{}, QStringList{"--json"}}) {
            const Run quiet = planCli(args + extra);
            const Run loud = planCli(args + extra + QStringList{"--progress"});
            QCOMPARE(quiet.code, 0);
            QCOMPARE(loud.code, 0);
            // Without the flag progress shows only on a terminal or past a second of
            // search (a sanitizer build takes that long): nothing else reaches stderr.
            for (const QString &line : quiet.err.split(u'\n', Qt::SkipEmptyParts))
                QVERIFY2(progressLine.match(line).hasMatch(), qPrintable(line));
            QCOMPARE(loud.out, quiet.out);
            QVERIFY2(loud.err.endsWith(QStringLiteral("planned 51840 of 51840 layouts...\n")),
                     qPrintable(loud.err));
        }
    }

    void tableTakesTheUnit()
    {
        // --unit gib: the peak column in GiB (2^30 bytes), the JSON's bytes / 2^30 to one
        // decimal; GB (1e9) by default. A new user's pass found the flag accepted and
        // ignored.
        const QStringList args{"--model", "llama3-8b", "--gpus", "8", "--top", "1"};
        const qint64 peak = planCli.json(args)["layouts"][0]["peak_bytes"].toInteger();
        for (const bool gib : {false, true}) {
            const Run r = planCli(gib ? args + QStringList{"--unit", "gib"} : args);
            QCOMPARE(r.code, 0);
            const QStringList lines = r.out.split(u'\n', Qt::SkipEmptyParts);
            QVERIFY2(
                lines[1].contains(gib ? QStringLiteral("peak GiB") : QStringLiteral("peak GB")),
                qPrintable(lines[1]));
            const double shown = double(peak) / (gib ? 1073741824.0 : 1e9);
            QVERIFY2(lines[2].contains(u' ' + QString::number(shown, 'f', 1) + u' '),
                     qPrintable(lines[2]));
        }
    }

    void tableShowsTopN()
    {
        const Run r =
            planCli({"--model", "llama3-8b", "--gpus", "8", "--seq", "8192", "--top", "3"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("candidates fit")), qPrintable(r.out));
        const QStringList lines = r.out.split(u'\n', Qt::SkipEmptyParts);
        // Summary, header, 3 rows, "... more", why #1 beats #2.
        QCOMPARE(lines.size(), qsizetype(7));
        QVERIFY(lines[2].trimmed().startsWith(QStringLiteral("1 ")));
        QVERIFY(lines[5].startsWith(QStringLiteral("...")));
        QVERIFY2(lines[6].startsWith(QStringLiteral("Why #1 beats #2 by ")), qPrintable(r.out));
        // The JSON says the same.
        const QJsonObject o =
            planCli.json({"--model", "llama3-8b", "--gpus", "8", "--seq", "8192", "--top", "3"});
        QCOMPARE(o.value("why").toString(), lines[6]);
        QVERIFY(o.value("fixes").toArray().isEmpty());
    }

    void nothingFitsSaysWhatWould()
    {
        // Llama 3 70B under DDP on one H100: 70.6e9 parameters x 16 B = 1.13 TB of states on
        // every GPU. Each change alone that fits is listed with its fastest layout: more
        // GPUs (t x p shard DDP's states too), other strategies (with CPU offload), a
        // leaner recipe cannot bring 1.13 TB under 81 GB on one GPU.
        const QStringList args{"--model", "llama3-70b",    "--gpus",     "1",
                               "--gpu",   "h100-sxm-80gb", "--strategy", "ddp"};
        const Run r = planCli(args);
        QCOMPARE(r.code, 0);
        QVERIFY2(
            r.out.contains(QStringLiteral("Nothing fits. Each of these changes alone would:\n")),
            qPrintable(r.out));
        static const QRegularExpression gpus(
            QStringLiteral("\n  (\\d+) GPUs \\(--gpus \\1\\): ddp, "));
        const auto m = gpus.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        // That count fits, and with DDP it is the first of the slider's counts to.
        const QJsonObject at = planCli.json({"--model", "llama3-70b", "--gpus", m.captured(1),
                                             "--gpu", "h100-sxm-80gb", "--strategy", "ddp"});
        QVERIFY(at.value("fitting").toInteger() > 0);
        const QJsonArray fixes = planCli.json(args)["fixes"].toArray();
        QVERIFY(!fixes.isEmpty());
        QCOMPARE(fixes[0].toObject()["flags"].toString(),
                 QStringLiteral("--gpus ") + m.captured(1));
        QCOMPARE(fixes[0].toObject()["layout"].toObject()["gpus"].toInteger(),
                 m.captured(1).toLongLong());
    }

    void constraintsRestrictTheSearch()
    {
        // Korthikanti et al. 2022's GPT-3 175B layout family on 1,024 A100s: given t 2,
        // p 16, ZeRO-1 and the interleaved schedule, every listed layout has exactly
        // those, and v 6 (96 layers / 16 stages = 6 per stage) is among them.
        const QJsonObject o = planCli.json({"--model",
                                            "gpt3-175b",
                                            "--gpu",
                                            "a100-80gb",
                                            "--gpus",
                                            "1024",
                                            "--seq",
                                            "2048",
                                            "--global-batch-tokens",
                                            "3145728",
                                            "--flash-attention",
                                            "off",
                                            "--tp",
                                            "2",
                                            "--pp",
                                            "16",
                                            "--strategy",
                                            "zero1",
                                            "--schedule",
                                            "interleaved",
                                            "--top",
                                            "0"});
        const QJsonArray layouts = o.value("layouts").toArray();
        QVERIFY(!layouts.isEmpty());
        bool v6 = false;
        for (const QJsonValue &v : layouts) {
            const QJsonObject l = v.toObject();
            QCOMPARE(l.value("tp").toInteger(), qint64(2));
            QCOMPARE(l.value("pp").toInteger(), qint64(16));
            QCOMPARE(l.value("strategy").toString(), QStringLiteral("zero1"));
            QCOMPARE(l.value("schedule").toString(), QStringLiteral("interleaved"));
            QCOMPARE(l.value("stage_split").toString(), QStringLiteral("even"));
            v6 = v6 || l.value("chunks").toInteger() == 6;
        }
        QVERIFY(v6);
        // A comma list: two strategies, nothing else.
        const QJsonArray two = planCli
                                   .json({"--model", "llama3-8b", "--gpus", "8", "--strategy",
                                          "zero1,zero3", "--top", "0"})
                                   .value("layouts")
                                   .toArray();
        QVERIFY(!two.isEmpty());
        for (const QJsonValue &v : two) {
            const QString z = v.toObject().value("strategy").toString();
            QVERIFY2(z == QStringLiteral("zero1") || z == QStringLiteral("zero3"), qPrintable(z));
        }
    }

    void headroomKeepsRoomOnTheCard()
    {
        // The headroom is taken from the H100's usable 81,559 MiB = 85,520,809,984 bytes
        // (85,520,809,984 / 100 = 855,208,099 per percent, rounded down):
        // --headroom-percent 10 keeps every peak at most 85,520,809,984 - 8,552,080,990
        // = 76,968,728,994 bytes; the default 5% at most 85,520,809,984 - 4,276,040,495
        // = 81,244,769,489; 0 allows the whole card.
        for (const auto &[percent, limit] :
             {std::pair{"10", 76'968'728'994LL}, std::pair{"0", 85'520'809'984LL}}) {
            const QJsonObject o =
                planCli.json({"--model", "llama3-70b", "--gpus", "64", "--seq", "8192", "--max-mbs",
                              "2", "--top", "0", "--headroom-percent", percent});
            QCOMPARE(o.value("headroom_percent").toInteger(), QString(percent).toLongLong());
            QCOMPARE(o.value("capacity_bytes").toInteger(), 85'520'809'984LL);
            QCOMPARE(o.value("datasheet_bytes").toInteger(), 80'000'000'000LL);
            QVERIFY(!o.value("layouts").toArray().isEmpty());
            for (const QJsonValue &v : o.value("layouts").toArray())
                QVERIFY(v.toObject().value("peak_bytes").toInteger() <= limit);
        }
        const QJsonObject defaults =
            planCli.json({"--model", "llama3-70b", "--gpus", "64", "--seq", "8192", "--top", "0"});
        QCOMPARE(defaults.value("headroom_percent").toInteger(), qint64(5));
        for (const QJsonValue &v : defaults.value("layouts").toArray())
            QVERIFY(v.toObject().value("peak_bytes").toInteger() <= 81'244'769'489LL);
    }

    void contradictionsAreRefused()
    {
        verifyRefusal(
            planCli({"--model", "llama3-70b", "--strategy", "ddp", "--offload", "optimizer"}),
            QStringLiteral("shardscope plan: --offload optimizer needs ZeRO-1"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--pp", "1", "--schedule", "zb-h1"}),
                      QStringLiteral("shardscope plan: --schedule needs pipeline stages"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--schedule", "1f1b", "--chunks", "3"}),
                      QStringLiteral("shardscope plan: --chunks needs the interleaved schedule"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--grad-accum", "4"}),
                      QStringLiteral("shardscope plan: --grad-accum is set by the search"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--strategy", "zero1,zero9"}),
                      QStringLiteral("shardscope plan: --strategy: unknown value 'zero9'"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--tp", "0"}),
                      QStringLiteral("shardscope plan: --tp: unknown value '0'"));
        verifyRefusal(planCli({"--model", "llama3-70b", "--headroom-percent", "95"}),
                      QStringLiteral("shardscope plan: "));
    }

    void refusesBadArguments()
    {
        for (const QStringList &args :
             {QStringList{"--gpus", "64-8"}, QStringList{"--objective", "cheapest"},
              QStringList{"--global-batch-tokens", "1000", "--seq", "4096"},
              QStringList{"--top", "-1"}, QStringList{"--params", "70B"}}) {
            verifyRefusal(planCli(args), QStringLiteral("shardscope plan: "));
        }
    }

    void exportConfigWritesARankedRow()
    {
        // Llama 3 8B on 8 H100s under ZeRO-1 (Megatron's distributed optimizer), 1F1B
        // or interleaved when pipelined: the Megatron arguments of row 1 and of row 2
        // carry that row's degrees and batch, as the JSON lists them.
        const QStringList search{"--model",    "llama3-8b",        "--gpus",     "8",
                                 "--gpu",      "h100-sxm-80gb",    "--strategy", "zero1",
                                 "--schedule", "1f1b,interleaved", "--max-mbs",  "2"};
        const QJsonArray rows =
            planCli.json(search + QStringList{"--top", "0"})["layouts"].toArray();
        QVERIFY(rows.size() >= 2);
        for (const int n : {1, 2}) {
            const QJsonObject l = rows[n - 1].toObject();
            QStringList args = search + QStringList{"--export-config", "megatron"};
            if (n > 1)
                args << "--row" << QString::number(n);
            const Run r = planCli(args);
            QCOMPARE(r.code, 0);
            QVERIFY2(r.out.startsWith(QStringLiteral("# Exported by shardscope export-config: "
                                                     "Llama 3 8B, 8 x NVIDIA H100 SXM 80GB, "
                                                     "ZeRO-1,")),
                     qPrintable(r.out));
            const QStringList lines = r.out.split(u'\n');
            auto has = [&lines](const char *flag, qint64 value) {
                return lines.contains(
                    QStringLiteral("    --%1 %2").arg(QLatin1String(flag)).arg(value));
            };
            QVERIFY(has("tensor-model-parallel-size", l["tp"].toInteger()));
            QVERIFY(has("pipeline-model-parallel-size", l["pp"].toInteger()));
            QVERIFY(has("context-parallel-size", l["cp"].toInteger()));
            QVERIFY(has("expert-model-parallel-size", l["ep"].toInteger()));
            QVERIFY(has("micro-batch-size", l["micro_batch_size"].toInteger()));
            // 4M tokens of 4096 = 1024 sequences = b m d.
            QCOMPARE(l["micro_batch_size"].toInteger() * l["microbatches"].toInteger() *
                         l["dp"].toInteger(),
                     qint64(1024));
            QVERIFY(has("global-batch-size", 1024));
            QVERIFY(lines.contains(QStringLiteral("    --use-distributed-optimizer")));
            const QString recompute = l["recompute"].toString();
            QCOMPARE(
                lines.contains(QStringLiteral("    --recompute-granularity %1").arg(recompute)),
                recompute != QStringLiteral("none"));
            QCOMPARE(
                !lines.filter(QStringLiteral("--num-layers-per-virtual-pipeline-stage")).isEmpty(),
                l["schedule"].toString() == QStringLiteral("interleaved") &&
                    l["pp"].toInteger() > 1);
            QVERIFY(r.err.startsWith(QStringLiteral("note: ")));
        }
        // A row past the ten the table lists by default (plan keeps only --top rows, and
        // the export keeps rows 1 to --row instead): row 12 is the JSON's twelfth.
        QVERIFY(rows.size() >= 12);
        const QJsonObject twelfth = rows[11].toObject();
        const QStringList l12 =
            planCli(search + QStringList{"--export-config", "megatron", "--row", "12"})
                .out.split(u'\n');
        QVERIFY(l12.contains(
            QStringLiteral("    --tensor-model-parallel-size %1").arg(twelfth["tp"].toInteger())));
        QVERIFY(l12.contains(QStringLiteral("    --pipeline-model-parallel-size %1")
                                 .arg(twelfth["pp"].toInteger())));
        QVERIFY(l12.contains(QStringLiteral("    --micro-batch-size %1")
                                 .arg(twelfth["micro_batch_size"].toInteger())));
        // --out: the same text in the file, written atomically; nothing on stdout.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("args.sh"));
        const Run toStdout =
            planCli(search + QStringList{"--export-config", "megatron", "--row", "2"});
        const Run toFile = planCli(
            search + QStringList{"--export-config", "megatron", "--row", "2", "--out", path});
        QCOMPARE(toFile.code, 0);
        QVERIFY(toFile.out.isEmpty());
        QCOMPARE(QString::fromUtf8(shardscope::test::readFile(path)), toStdout.out);
        // Every format of the top row: DeepSpeed's JSON has its data-parallel batch.
        const Run ds = planCli(search + QStringList{"--export-config", "deepspeed"});
        QCOMPARE(ds.code, 0);
        const QJsonObject dsJson = QJsonDocument::fromJson(ds.out.toUtf8()).object();
        QCOMPARE(dsJson["train_batch_size"].toInteger(), qint64(1024));
        QCOMPARE(dsJson["zero_optimization"].toObject()["stage"].toInt(), 1);
        QCOMPARE(dsJson["train_micro_batch_size_per_gpu"].toInteger(),
                 rows[0].toObject()["micro_batch_size"].toInteger());
    }

    void exportConfigRefusals()
    {
        const QStringList search{"--model",       "llama3-8b",  "--gpus", "8",         "--gpu",
                                 "h100-sxm-80gb", "--strategy", "zero1",  "--max-mbs", "1",
                                 "--pp",          "1"};
        const qsizetype fitting =
            planCli.json(search + QStringList{"--top", "0"})["fitting"].toInteger();
        QVERIFY(fitting > 0);
        verifyRefusal(
            planCli(search + QStringList{"--export-config", "megatron", "--row",
                                         QString::number(fitting + 1)}),
            QStringLiteral("shardscope plan: --row %1: only %2 layouts fit (rows 1 to %2)")
                .arg(fitting + 1)
                .arg(fitting));
        verifyRefusal(planCli(search + QStringList{"--export-config", "megatron", "--row", "0"}),
                      QStringLiteral("shardscope plan: --row must be a whole number from 1"));
        // Nothing fits: Llama 3 70B's 140 GB of bf16 weights on one 80 GB card, unsharded.
        verifyRefusal(planCli({"--model", "llama3-70b", "--gpus", "1", "--gpu", "h100-sxm-80gb",
                               "--strategy", "ddp", "--export-config", "megatron"}),
                      QStringLiteral("shardscope plan: --export-config: no layout fits, so there "
                                     "is no row to export"));
        verifyRefusal(planCli(search + QStringList{"--export-config", "nemo"}),
                      QStringLiteral("shardscope plan: --export-config: unknown format 'nemo' "
                                     "(known: deepspeed, accelerate, torchtitan, megatron)"));
        verifyRefusal(planCli(search + QStringList{"--row", "2"}),
                      QStringLiteral("shardscope plan: --row needs --export-config FORMAT"));
        verifyRefusal(planCli(search + QStringList{"--out", "x.sh"}),
                      QStringLiteral("shardscope plan: --out needs --export-config FORMAT"));
        // A row the format cannot express: ZeRO-1 in torchtitan.
        verifyRefusal(planCli(search + QStringList{"--export-config", "torchtitan"}),
                      QStringLiteral("shardscope plan: --export-config torchtitan, row 1: "
                                     "torchtitan has no ZeRO-1"));
    }

    void noLayoutToTrySaysWhy()
    {
        // Review finding F5: 720,720 = 2^4 x 3^2 x 5 x 7 x 11 x 13 GPUs and 1,024 sequences
        // per step (4,194,304 tokens / 4,096): d must divide 1,024, so d <= 16 and t x p x c
        // >= 45,045, past every limit. No candidate at all, and the output says why.
        const Run r = planCli({"--model", "llama3-70b", "--gpus", "720720"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(QStringLiteral("0 of 0 candidates fit")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral(
                     "No layout to try: the data-parallel size d = GPUs / (t x p x c) must "
                     "divide the global batch of 1024 sequences (4194304 tokens / s 4096)")),
                 qPrintable(r.out));
        QVERIFY(!r.out.contains(QStringLiteral("Nothing fits.")));
    }

    void repeatedFlagsAreRefused()
    {
        // Review finding F13: a subcommand's own flag given twice was silently the last one
        // ("--top 3 --top 5" listed 5 rows); the scenario flags were refused already.
        verifyRefusal(planCli({"--top", "3", "--top", "5"}),
                      QStringLiteral("shardscope plan: --top is given 2 times; give it once"));
        verifyRefusal(planCli({"--json", "--max-candidates", "10", "--json"}),
                      QStringLiteral("shardscope plan: --json is given 2 times; give it once"));
        verifyRefusal(planCli({"--gpus", "8", "--gpus", "16", "--gpus", "32"}),
                      QStringLiteral("shardscope plan: --gpus is given 3 times; give it once"));
    }
};

QTEST_GUILESS_MAIN(TestPlanCommand)
#include "test_plancommand.moc"
