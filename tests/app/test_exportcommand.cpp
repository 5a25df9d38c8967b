// `shardscope export`, in-process: files of the requested size and format from a
// scenario file or the scenario flags, and one-line errors (exit 2) naming the argument.
#include "chartexport.h"
#include "chartregistry.h"
#include "exportcommand.h"
#include "runcommand.h"
#include "scenariofile.h"
#include "session.h"
#include "timelinepanel.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLocale>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>

using namespace shardscope;

namespace {
using test::Run;
using test::verifyRefusal;

Run run(const QStringList &args)
{
    return test::runCommand(runExportCommand, "export", args);
}

/// Checks that run `r` succeeded, printing nothing on standard error, and wrote a `size`
/// picture to `png` that is no blank page: more than `leastColours` distinct colours among
/// every `step`-th pixel both ways. A failed check fails the test.
void verifyPicture(const Run &r, const QString &png, QSize size, int step, int leastColours)
{
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const QImage image(png);
    QCOMPARE(image.size(), size);
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += step)
        for (int x = 0; x < image.width(); x += step)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > leastColours, qPrintable(QString::number(colours.size())));
}

} // namespace

class TestExportCommand : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void memoryFromFlags();
    void compareFromScenarioFile();
    void svgAndPdf();
    void unitAndTitle();
    void timelineExports();
    void timelineSlideHasNoControls();
    void sweepAlongEachAxis();
    void everyRegisteredChart_data();
    void everyRegisteredChart();
    void badArguments_data();
    void badArguments();
    void unwritableOutput();

private:
    QTemporaryDir m_dir;
};

void TestExportCommand::memoryFromFlags()
{
    const QString file = m_dir.filePath(QStringLiteral("ddp.png"));
    const Run r = run({"--params", "70e9", "--gpus", "64", "--strategy", "ddp",
                       "--model-states-only", "--out", file});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("wrote %1 (1920x1080)\n").arg(file));
    QCOMPARE(QImage(file).size(), QSize(1920, 1080));
    QVERIFY(QFile(file).size() > 10'000);
}

void TestExportCommand::compareFromScenarioFile()
{
    Scenario s = defaultScenario();
    s.layout.gpus = 64;
    s.layout.zeroStage = ZeroStage::Zero3;
    const QString scenario = m_dir.filePath(QStringLiteral("s.json"));
    QString error;
    QVERIFY(saveScenarioFile(scenario, s, ByteUnit::GB, &error));
    const QString file = m_dir.filePath(QStringLiteral("cmp.png"));
    const Run r =
        run({"--scenario", scenario, "--chart", "compare", "--out", file, "--size", "3840x2160"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QCOMPARE(QImage(file).size(), QSize(3840, 2160));
}

void TestExportCommand::svgAndPdf()
{
    const QString svg = m_dir.filePath(QStringLiteral("m.svg"));
    const QString pdf = m_dir.filePath(QStringLiteral("m.pdf"));
    QCOMPARE(run({"--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "4", "--strategy",
                  "zero1", "--recompute", "selective", "--out", svg})
                 .code,
             0);
    const QByteArray bytes = test::readFile(svg);
    QVERIFY(bytes.contains("<svg"));
    QVERIFY(bytes.contains("viewBox=\"0 0 1920 1080\""));
    // Title defaults to the verdict, the caption to the settings.
    QVERIFY(bytes.contains("Fits: 37.3 GB of 85.5 GB usable per GPU"));
    QVERIFY(bytes.contains("t 8, p 4, d 2"));
    QCOMPARE(run({"--params", "70e9", "--gpus", "8", "--strategy", "zero3", "--out", pdf}).code, 0);
    QVERIFY(test::readFile(pdf).startsWith("%PDF"));
}

void TestExportCommand::unitAndTitle()
{
    Scenario s = defaultScenario();
    s.layout.gpus = 64;
    s.layout.zeroStage = ZeroStage::Zero3;
    s.modelStatesOnly = true;
    const QString scenario = m_dir.filePath(QStringLiteral("gib.json"));
    QString error;
    QVERIFY(saveScenarioFile(scenario, s, ByteUnit::GiB, &error));
    const QString svg = m_dir.filePath(QStringLiteral("gib.svg"));
    QCOMPARE(
        run({"--scenario", scenario, "--out", svg, "--title", "My slide", "--caption", ""}).code,
        0);
    const QByteArray bytes = test::readFile(svg);
    QVERIFY(bytes.contains("My slide"));
    QVERIFY(bytes.contains("GiB")); // the file's unit
    QVERIFY(!bytes.contains("model states only"));
    // --unit overrides the file's unit.
    QCOMPARE(run({"--scenario", scenario, "--out", svg, "--unit", "gb"}).code, 0);
    QVERIFY(!test::readFile(svg).contains("GiB)"));
}

void TestExportCommand::timelineExports()
{
    const QString png = m_dir.filePath(QStringLiteral("t.png"));
    const Run r = run({"--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "4", "--chart",
                       "timeline", "--out", png, "--size", "1920x1080"});
    // Not a blank page: the blocks bring many distinct colours.
    verifyPicture(r, png, QSize(1920, 1080), 7, 20);
}

void TestExportCommand::timelineSlideHasNoControls()
{
    // A timeline panel as the window builds it (the registry's), on the scenario the
    // command line is given in a file.
    Session session(Catalog::builtIn());
    session.edit([](Scenario &s) {
        s.layout.tensorParallel = 8;
        s.layout.pipelineParallel = 4;
    });
    const QString scenario = m_dir.filePath(QStringLiteral("pipeline.json"));
    QString error;
    QVERIFY(saveScenarioFile(scenario, session.scenario(), ByteUnit::GB, &error));
    const ExportOptions o{QSize(1280, 720), QStringLiteral("T"), QStringLiteral("C")};
    const std::unique_ptr<ChartView> view = makeOffscreenChart(
        *findChart(QStringLiteral("timeline")), &session, exportLayoutSize(o.size));
    auto *panel = static_cast<TimelinePanel *>(view.get());
    QVERIFY(panel->controlsShown());
    QVERIFY(panel->playButton()->isVisibleTo(panel));
    QVERIFY(panel->speedCombo()->isVisibleTo(panel));

    // Its slide is the panel with the live controls hidden, which come back afterwards.
    const QImage withControls = renderWidget(panel, o);
    const QImage slide = view->renderSlide(o);
    QVERIFY(panel->controlsShown());
    QVERIFY(panel->playButton()->isVisibleTo(panel));
    panel->setControlsShown(false);
    const QImage withoutControls = renderWidget(panel, o);
    panel->setControlsShown(true);
    QVERIFY(slide != withControls);
    QCOMPARE(slide, withoutControls);

    // The command line draws the same picture.
    const QString png = m_dir.filePath(QStringLiteral("pipeline.png"));
    QCOMPARE(run({"--scenario", scenario, "--chart", "timeline", "--out", png, "--size", "1280x720",
                  "--title", "T", "--caption", "C"})
                 .code,
             0);
    QCOMPARE(QImage(png).convertToFormat(slide.format()), slide);
}

void TestExportCommand::sweepAlongEachAxis()
{
    // The four strategies against the GPU count by default, the sequence length or the
    // micro-batch size with --sweep: the title and the axis say which.
    const QString svg = m_dir.filePath(QStringLiteral("sweep.svg"));
    Run r = run({"--model", "llama3-70b", "--chart", "sweep", "--out", svg, "--size", "1280x720"});
    QCOMPARE(r.code, 0);
    QByteArray bytes = test::readFile(svg);
    QVERIFY(bytes.contains("memory per GPU against the number of GPUs"));
    QVERIFY(bytes.contains("Number of GPUs"));
    for (const char *name : {"DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP", "16,384", "this scenario"})
        QVERIFY2(bytes.contains(name), name);
    r = run({"--model", "llama3-70b", "--chart", "sweep", "--sweep", "seq", "--out", svg});
    QCOMPARE(r.code, 0);
    bytes = test::readFile(svg);
    QVERIFY(bytes.contains("memory per GPU against sequence length"));
    QVERIFY(bytes.contains("128k"));
    r = run({"--model", "llama3-70b", "--chart", "sweep", "--sweep", "mbs", "--out", svg});
    QCOMPARE(r.code, 0);
    QVERIFY(test::readFile(svg).contains("against micro-batch size"));
}

void TestExportCommand::everyRegisteredChart_data()
{
    QTest::addColumn<QString>("id");
    for (const QString &id : chartIds())
        QTest::newRow(qPrintable(id)) << id;
}

void TestExportCommand::everyRegisteredChart()
{
    QFETCH(QString, id);
    const QString png = m_dir.filePath(id + QStringLiteral(".png"));
    const Run r = run({"--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "4", "--chart",
                       id.toUpper(), "--out", png, "--size", "1280x720"});
    // Not a blank page: bars, lines or blocks in several colours beside the ink.
    verifyPicture(r, png, QSize(1280, 720), 5, 8);
}

void TestExportCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no out") << QStringList{"--gpus", "8"} << "--out FILE is required";
    QTest::newRow("bad suffix") << QStringList{"--out", "a.jpg"}
                                << "--out must end in .png, .svg or .pdf (got 'a.jpg')";
    QTest::newRow("bad chart") << QStringList{"--chart", "pie", "--out", "a.png"}
                               << "--chart must be memory, compare, timeline, stages, steptime or "
                                  "sweep (got 'pie')";
    QTest::newRow("bad sweep") << QStringList{"--chart", "sweep", "--sweep", "tp", "--out", "a.png"}
                               << "--sweep must be gpus, seq or mbs (got 'tp')";
    QTest::newRow("bad size") << QStringList{"--size", "1920by1080", "--out", "a.png"}
                              << "--size must be WIDTHxHEIGHT from 320x320 to 8192x8192";
    QTest::newRow("tiny size") << QStringList{"--size", "10x10", "--out", "a.png"}
                               << "--size must be WIDTHxHEIGHT";
    QTest::newRow("bad flag") << QStringList{"--gpus", "0", "--out", "a.png"}
                              << "--gpus must be a whole number from 1";
    QTest::newRow("unknown option") << QStringList{"--colour", "red"} << "Unknown option 'colour'";
    // Flags beside --scenario override it; the file is still read first.
    QTest::newRow("flags over a missing file")
        << QStringList{"--scenario", "s.json", "--gpus", "8", "--out", "a.png"}
        << "--scenario: s.json: cannot open";
    QTest::newRow("missing file") << QStringList{"--scenario", "/no/such.json", "--out", "a.png"}
                                  << "--scenario: such.json: cannot open";
}

void TestExportCommand::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    verifyRefusal(run(args), QStringLiteral("shardscope export: ") + message);
}

void TestExportCommand::unwritableOutput()
{
    const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema": "shardscope-scenario", "version": 1, "model": "plain-70b", "gpus": -1})");
    f.close();
    Run r = run({"--scenario", bad, "--out", "a.png"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("bad.json: \"gpus\" must be a whole number")),
             qPrintable(r.err));
    r = run({"--params", "70e9", "--out", m_dir.filePath(QStringLiteral("no/dir/a.png"))});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.startsWith(QStringLiteral("shardscope export: cannot write ")));
}

QTEST_MAIN(TestExportCommand)
#include "test_exportcommand.moc"
