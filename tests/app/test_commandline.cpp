// "Copy as command line" (io/commandline.h): the words it writes, read back through the
// parser every subcommand and the window use (ScenarioOptions, app/reportcommand.h), give
// the same scenario, setting by setting, over scenarios drawn from the settings table; and
// the quoted line means the same words to a POSIX shell.
#include "../settingdraw.h"
#include "catalog.h"
#include "commandline.h"
#include "defaults.h"
#include "estimate.h"
#include "launchconfig.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "settings.h"

#include <QCommandLineParser>
#include <QProcess>
#include <QTest>
#include <random>

using namespace shardscope;

namespace {

/// Parses `words` (program first) with ScenarioOptions, as `shardscope report` does but
/// without the layout check (drawn scenarios may be impossible layouts; the flags are what
/// is checked here).
std::optional<ScenarioDocument> parse(const QStringList &words, QString *error)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    options.addTo(p);
    if (!p.parse(words)) {
        *error = p.errorText();
        return std::nullopt;
    }
    return options.document(p, error, false);
}

/// Every field of an architecture, in declaration order (core/model.h), for comparing.
std::vector<std::int64_t> shapeFields(const Architecture &a)
{
    return {a.layers,
            a.hidden,
            a.ffn,
            a.heads,
            a.kvHeads,
            a.vocab,
            a.headDim,
            a.tiedEmbeddings,
            a.gatedMlp,
            a.linearBiases,
            a.layerNormBias,
            a.qkvBiases,
            a.normsPerLayer,
            a.positionEmbeddings,
            a.experts,
            a.activeExperts,
            a.expertFfn,
            a.sharedExperts,
            a.denseLayers,
            a.routerBias,
            a.moeLayerStep,
            a.qLoraRank,
            a.kvLoraRank,
            a.qkRopeHeadDim,
            a.qkNopeHeadDim,
            a.vHeadDim,
            std::int64_t(a.qkNorm)};
}

/// Fails the current test unless `back` holds `s`'s model shape (or plain count), recipe
/// bytes, GPU, every settings-table value and `unit`; `line` names the case.
void verifySame(const Scenario &s, ByteUnit unit, const ScenarioDocument &back, const QString &line)
{
    const Scenario &b = back.scenario;
    QVERIFY2(s.model.architecture.has_value() == b.model.architecture.has_value(),
             qPrintable(line));
    if (s.model.architecture)
        QVERIFY2(shapeFields(*s.model.architecture) == shapeFields(*b.model.architecture),
                 qPrintable(line));
    else
        QVERIFY2(s.model.plainParameters == b.model.plainParameters, qPrintable(line));
    QVERIFY2(s.model.parameters() == b.model.parameters(), qPrintable(line));
    QVERIFY2(s.recipe.weightBytes == b.recipe.weightBytes &&
                 s.recipe.gradientBytes == b.recipe.gradientBytes &&
                 s.recipe.masterWeightBytes == b.recipe.masterWeightBytes &&
                 s.recipe.optimizerBytes == b.recipe.optimizerBytes,
             qPrintable(line));
    QVERIFY2(s.gpu.id == b.gpu.id && s.gpu.usableBytes() == b.gpu.usableBytes(), qPrintable(line));
    for (const Setting &setting : settings())
        QVERIFY2(setting.get(s) == setting.get(b),
                 qPrintable(QStringLiteral("%1: %2 %3 read back as %4")
                                .arg(line, QString::fromUtf8(setting.key.data(),
                                                             qsizetype(setting.key.size())))
                                .arg(setting.get(s))
                                .arg(setting.get(b))));
    QVERIFY2(back.unit == unit, qPrintable(line));
}

/// Raw mt19937_64 output mapped to ranges by `%`, as tests/core/test_equivalence.cpp draws.
struct Draw
{
    std::mt19937_64 engine{20261207};

    std::uint64_t below(std::uint64_t n) { return engine() % n; }
    bool oneIn(std::uint64_t n) { return below(n) == 0; }
};

/// A value of table setting `s` drawn as test::drawSettingValue draws it, then rounded to
/// whole display units, which is what the window's editors and scenario flags hold.
std::int64_t drawShownSettingValue(const Setting &s, std::int64_t current, Draw &d)
{
    const std::int64_t v = test::drawSettingValue(s, current, d);
    const std::int64_t shown = std::clamp(v / s.scale, s.displayMin(), s.displayMax());
    return shown * s.scale;
}

/// A scenario as the window can hold one: a catalog model, the size slider's scaled shape or
/// a plain count; a catalog recipe (or custom bytes) and GPU; then each settings-table row
/// with probability 1/4 set to a drawn value through applySettings().
Scenario drawScenario(Draw &d)
{
    const Catalog &catalog = Catalog::builtIn();
    Scenario s = defaultScenario();
    const std::uint64_t pick = d.below(catalog.models().size() + 2);
    if (pick < catalog.models().size()) {
        s.model = catalog.models()[pick];
    } else if (pick == catalog.models().size()) {
        s.model.id = "scaled";
        s.model.displayName = "scaled";
        s.model.architecture =
            scaledArchitecture(std::int64_t(1'000'000 + d.below(3'000'000'000'000)));
    } else {
        s.model = Model{};
        s.model.id = "custom";
        s.model.plainParameters = std::int64_t(1 + d.below(99'000'000'000'000));
    }
    if (d.oneIn(6))
        s.recipe = Recipe{"custom",
                          "Custom",
                          "",
                          std::int64_t(d.below(65)),
                          std::int64_t(d.below(65)),
                          std::int64_t(d.below(65)),
                          std::int64_t(1 + d.below(64))};
    else
        s.recipe = catalog.recipes()[d.below(catalog.recipes().size())];
    s.gpu = catalog.gpus()[d.below(catalog.gpus().size())];
    std::vector<SettingValue> values;
    for (const Setting &setting : settings())
        if (d.oneIn(4))
            values.push_back({&setting, drawShownSettingValue(setting, setting.get(s), d)});
    applySettings(s, values);
    return s;
}

} // namespace

class TestCommandLine : public QObject
{
    Q_OBJECT
private slots:
    /// The starting scenario is the five headline flags and nothing else.
    void defaultsAreTheHeadline()
    {
        const CommandLine line = reportCommandLine(defaultScenario(), ByteUnit::GB);
        QCOMPARE(line.text(), QStringLiteral("shardscope report --model llama3-70b --gpu "
                                             "h100-sxm-80gb --recipe mixed-adam --gpus 64 "
                                             "--strategy ddp"));
        QVERIFY(line.notes.isEmpty());
    }

    /// A changed setting adds its flag in display units, and the window's view its flags.
    void changesAndView()
    {
        Scenario s = defaultScenario();
        s.layout.zeroStage = ZeroStage::Zero3;
        s.layout.gpus = 512;
        s.layout.tensorParallel = 8;
        s.training.sequenceLength = 8192;
        s.overheads.cudaContextBytes = 1024LL * 1024 * 1024; // 1,024 MiB
        s.modelStatesOnly = true;
        const CommandLine line = windowCommandLine(
            s, ByteUnit::GiB, {QStringLiteral("sweep"), true, QStringLiteral("seq")});
        QCOMPARE(line.text(), QStringLiteral("shardscope --model llama3-70b --gpu h100-sxm-80gb "
                                             "--recipe mixed-adam --gpus 512 --strategy zero3 "
                                             "--tp 8 --seq 8192 --cuda-context-mib 1024 "
                                             "--model-states-only --unit gib --view sweep "
                                             "--present --sweep seq"));
        QVERIFY(line.notes.isEmpty());
    }

    void quoting_data()
    {
        QTest::addColumn<QString>("word");
        QTest::addColumn<QString>("quoted");
        QTest::newRow("plain") << QStringLiteral("llama3-70b") << QStringLiteral("llama3-70b");
        QTest::newRow("path") << QStringLiteral("out/a_b.html") << QStringLiteral("out/a_b.html");
        QTest::newRow("empty") << QString() << QStringLiteral("''");
        QTest::newRow("space") << QStringLiteral("a b") << QStringLiteral("'a b'");
        QTest::newRow("quote") << QStringLiteral("it's") << QStringLiteral("'it'\\''s'");
        QTest::newRow("markup") << QStringLiteral("x<&>y.html") << QStringLiteral("'x<&>y.html'");
        QTest::newRow("substitution")
            << QStringLiteral("$(rm -rf ~)`id`") << QStringLiteral("'$(rm -rf ~)`id`'");
        QTest::newRow("non-ASCII") << QStringLiteral("モデル") << QStringLiteral("'モデル'");
    }
    void quoting()
    {
        QFETCH(QString, word);
        QFETCH(QString, quoted);
        QCOMPARE(shellQuoted(word), quoted);
    }

    /// The quoted line gives bash back exactly the words, whatever they hold.
    void shellReadsTheSameWords()
    {
        const QStringList words{QStringLiteral("plain"),
                                QStringLiteral("it's"),
                                QStringLiteral("a\nb"),
                                QStringLiteral("$HOME `id` \\ \" ; | & * ? [x] ~ #"),
                                QString(),
                                QStringLiteral("'''"),
                                QStringLiteral("-dash")};
        QStringList quoted;
        for (const QString &w : words)
            quoted << shellQuoted(w);
        QProcess sh;
        sh.start(
            QStringLiteral("bash"),
            {QStringLiteral("-c"),
             QStringLiteral("for a in %1; do printf '%s\\0' \"$a\"; done").arg(quoted.join(u' '))});
        QVERIFY(sh.waitForFinished(10000));
        QCOMPARE(sh.exitCode(), 0);
        QByteArray out = sh.readAllStandardOutput();
        QVERIFY(out.endsWith('\0'));
        out.chop(1);
        QStringList back;
        for (const QByteArray &part : out.split('\0'))
            back << QString::fromUtf8(part);
        QCOMPARE(back, words);
    }

    /// 3,000 drawn scenarios: each line parses back to the same scenario, with no notes.
    void drawnScenariosRoundTrip()
    {
        Draw d;
        int valid = 0;
        for (int i = 0; i < 3000; ++i) {
            const Scenario s = drawScenario(d);
            const ByteUnit unit = d.oneIn(3) ? ByteUnit::GiB : ByteUnit::GB;
            const CommandLine line = reportCommandLine(s, unit);
            QVERIFY2(line.notes.isEmpty(), qPrintable(line.notes.join(u' ')));
            QString error;
            const auto back = parse(line.words.mid(0, 1) + line.words.mid(2), &error);
            QVERIFY2(back, qPrintable(line.text() + QStringLiteral(": ") + error));
            verifySame(s, unit, *back, line.text());
            if (QTest::currentTestFailed())
                return;
            valid += validate(s).empty();
        }
        // The draws reach valid scenarios too, not only refusals.
        QVERIFY2(valid > 300, qPrintable(QString::number(valid)));
    }

    /// Every catalog model reads back as itself, by id.
    void everyPresetByIdRoundTrips()
    {
        for (const Model &m : Catalog::builtIn().models()) {
            Scenario s = defaultScenario();
            s.model = m;
            const CommandLine line = windowCommandLine(s, ByteUnit::GB, {});
            QCOMPARE(line.words.mid(1, 2),
                     (QStringList{QStringLiteral("--model"), QString::fromStdString(m.id)}));
            QString error;
            const auto back = parse(line.words, &error);
            QVERIFY2(back, qPrintable(error));
            QCOMPARE(back->scenario.model.displayName, m.displayName);
            verifySame(s, ByteUnit::GB, *back, line.text());
        }
    }

    /// What the flags cannot say is a note, and the line holds the nearest they can.
    void unstatedValuesAreNotes()
    {
        Scenario s = defaultScenario();
        s.gpu.id = "my-card";
        s.gpu.name = "My <card>";
        s.overheads.cudaContextBytes = 1000; // not a whole MiB
        Model deepseek = *Catalog::builtIn().model("deepseek-v3");
        deepseek.id = "edited";
        s.model = deepseek;
        const CommandLine line = reportCommandLine(s, ByteUnit::GB);
        QCOMPARE(line.notes.size(), 3);
        QVERIFY2(line.notes[0].contains(QStringLiteral("multi-head latent attention")),
                 qPrintable(line.notes[0]));
        QVERIFY2(line.notes[1].startsWith(QStringLiteral("The GPU My <card> is not in the "
                                                         "catalog; the command line uses the "
                                                         "catalog's h100-sxm-80gb")),
                 qPrintable(line.notes[1]));
        QCOMPARE(line.notes[2], QStringLiteral("CUDA context is 1,000 bytes, not a whole number "
                                               "of MiB; the command line says 0 MiB."));
        QVERIFY(line.words.contains(QStringLiteral("--layers")));
        QString error;
        QVERIFY2(parse(line.words.mid(0, 1) + line.words.mid(2), &error), qPrintable(error));
    }

    /// The size slider's shape (not a preset) is given inline and reads back exactly.
    void scaledModelIsInline()
    {
        Scenario s = defaultScenario();
        s.model.id = "scaled";
        s.model.architecture = scaledArchitecture(7'000'000'000);
        const CommandLine line = windowCommandLine(s, ByteUnit::GB, {});
        const Architecture &a = *s.model.architecture;
        QCOMPARE(line.words.mid(1, 8),
                 (QStringList{QStringLiteral("--layers"), QString::number(a.layers),
                              QStringLiteral("--hidden"), QString::number(a.hidden),
                              QStringLiteral("--ffn"), QString::number(a.ffn),
                              QStringLiteral("--heads"), QString::number(a.heads)}));
        QString error;
        const auto back = parse(line.words, &error);
        QVERIFY2(back, qPrintable(error));
        verifySame(s, ByteUnit::GB, *back, line.text());
    }
};

QTEST_GUILESS_MAIN(TestCommandLine)
#include "test_commandline.moc"
