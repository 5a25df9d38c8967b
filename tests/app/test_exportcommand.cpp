// `shardscope export`, in-process: files of the requested size and format from a
// scenario file or the scenario flags, and one-line errors (exit 2) naming the argument.
#include "../svgimage.h"
#include "chartexport.h"
#include "chartregistry.h"
#include "commandline.h"
#include "compare.h"
#include "estimate.h"
#include "exportcommand.h"
#include "hfconfig.h"
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
#include <QXmlStreamReader>

using namespace shardscope;

namespace {
using test::Run;
using test::verifyRefusal;

Run run(const QStringList &args)
{
    return test::runCommand(runExportCommand, "export", args);
}

/// One row per registered chart id (chartIds()), in an "id" column: the rows of the
/// tests that export every chart.
void addChartIdRows()
{
    QTest::addColumn<QString>("id");
    for (const QString &id : chartIds())
        QTest::newRow(qPrintable(id)) << id;
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

/// What an HTML page holds, read with an XML parser (the page is well-formed XML).
struct Page
{
    QString error;           ///< the parser's complaint; empty when well-formed
    QStringList elements;    ///< every element's name, in order
    QStringList attributes;  ///< every attribute's name
    QStringList references;  ///< the value of every href, src or xlink:href
    QString caption;         ///< the text of <p class="caption">
    QList<QStringList> rows; ///< the <td> texts of each <tbody> row
    QStringList commands;    ///< the text of each <pre><code>
    QByteArray svg;          ///< the bytes of the <svg> element, as written
};

Page readPage(const QByteArray &html)
{
    Page page;
    QXmlStreamReader xml(html);
    bool inBody = false, inCaption = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const QString name = xml.name().toString();
            page.elements << name;
            for (const QXmlStreamAttribute &a : xml.attributes()) {
                page.attributes << a.name().toString();
                if (a.name() == QLatin1String("href") || a.name() == QLatin1String("src"))
                    page.references << a.value().toString();
            }
            if (name == QLatin1String("tbody"))
                inBody = true;
            else if (name == QLatin1String("tr") && inBody)
                page.rows << QStringList();
            else if (name == QLatin1String("td") && inBody)
                page.rows.last() << xml.readElementText(QXmlStreamReader::IncludeChildElements);
            else if (name == QLatin1String("code"))
                page.commands << xml.readElementText();
            else if (name == QLatin1String("p") &&
                     xml.attributes().value(QLatin1String("class")) == QLatin1String("caption"))
                inCaption = true;
        } else if (xml.isCharacters() && inCaption) {
            page.caption += xml.text().toString();
        } else if (xml.isEndElement()) {
            inBody = inBody && xml.name() != QLatin1String("tbody");
            inCaption = inCaption && xml.name() != QLatin1String("p");
        }
    }
    if (xml.hasError())
        page.error = xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber());
    const qsizetype start = html.indexOf("<svg"), end = html.indexOf("</svg>");
    if (start >= 0 && end > start)
        page.svg = html.mid(start, end + 6 - start);
    return page;
}

/// Checks what every page must be: well-formed, one <svg> that QSvgRenderer draws (not
/// blank), and nothing that loads from elsewhere or runs.
void verifySelfContained(const Page &page)
{
    QVERIFY2(page.error.isEmpty(), qPrintable(page.error));
    QCOMPARE(page.elements.count(QStringLiteral("svg")), 1);
    for (const char *banned : {"script", "link", "img", "iframe", "object", "embed", "a"})
        QVERIFY2(!page.elements.contains(QLatin1String(banned)), banned);
    for (const char *banned : {"onload", "onclick", "onerror"})
        QVERIFY2(!page.attributes.contains(QLatin1String(banned)), banned);
    // The timeline panel's slide holds its widgets as an embedded picture: inline data only.
    for (const QString &reference : page.references)
        QVERIFY2(reference.startsWith(QLatin1String("data:image/")),
                 qPrintable(reference.left(80)));
    const QImage image = test::svgOnWhite(page.svg, QSize(960, 540), QImage::Format_ARGB32);
    QVERIFY2(!image.isNull(), "QSvgRenderer cannot read the page's <svg>");
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 4)
        for (int x = 0; x < image.width(); x += 4)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 4, qPrintable(QString::number(colours.size())));
    // SHARDSCOPE_HTML_SVG_PNG=FILE keeps the picture, to look at.
    if (const QString keep = qEnvironmentVariable("SHARDSCOPE_HTML_SVG_PNG"); !keep.isEmpty())
        image.save(keep);
}

/// One decimal in GB, as the page's byte columns show it.
QString gb(std::int64_t bytes)
{
    return QString::number(double(bytes) / 1e9, 'f', 1);
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
    void htmlPageOfMemory();
    void htmlPageOfCompare();
    void htmlPageOfEveryChart_data();
    void htmlPageOfEveryChart();
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
    addChartIdRows();
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

/// The memory page of a model whose name (from a config.json) and file name hold markup:
/// one well-formed page, the report's bytes in the table, and the command lines escaped,
/// each reading back as the line that reproduces the view.
void TestExportCommand::htmlPageOfMemory()
{
    QByteArray config =
        test::readFile(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/io/data/llama-3.1-405b.json"));
    config.replace("\"architectures\"", "\"_name_or_path\": \"org/x<&>y\", \"architectures\"");
    const QString configFile = m_dir.filePath(QStringLiteral("config.json"));
    {
        QFile f(configFile);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(config);
    }
    const QString file = m_dir.filePath(QStringLiteral("page <&>'s.html"));
    const Run r = run({"--hf-config", configFile, "--gpus", "1024", "--tp", "8", "--pp", "2",
                       "--strategy", "zero1", "--out", file});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QCOMPARE(r.out, QStringLiteral("wrote %1\n").arg(file));
    const QByteArray html = test::readFile(file);
    const Page page = readPage(html);
    verifySelfContained(page);
    QVERIFY(!html.contains("x<&>y"));
    QVERIFY(html.contains("x&lt;&amp;&gt;y"));
    QVERIFY2(page.caption.startsWith(QStringLiteral("x<&>y (")), qPrintable(page.caption));

    // The table: one row per stage group, the report's bytes in GB with one decimal.
    QString why;
    Scenario s = defaultScenario();
    s.model = *modelFromHfConfig(config, &why);
    s.layout.gpus = 1024;
    s.layout.tensorParallel = 8;
    s.layout.pipelineParallel = 2;
    s.layout.zeroStage = ZeroStage::Zero1;
    const MemoryReport report = estimate(s);
    QVERIFY(report.valid());
    QCOMPARE(page.rows.size(), qsizetype(report.groups.size()));
    for (std::size_t g = 0; g < report.groups.size(); ++g) {
        const QStringList &row = page.rows[qsizetype(g)];
        const ComponentBytes &b = report.groups[g].bytes;
        QCOMPARE(row.mid(3, 8),
                 (QStringList{gb(b.weights), gb(b.gradients), gb(b.masterWeights),
                              gb(b.optimizerStates), gb(b.activations), gb(b.buffers),
                              gb(b.total()), gb(report.capacityBytes)}));
    }

    // The command lines, escaped in the page and read back as written.
    QCOMPARE(page.commands.size(), 3);
    const CommandLine window =
        windowCommandLine(s, ByteUnit::GB, {QStringLiteral("memory"), false, QString()});
    QCOMPARE(page.commands[0], window.text());
    QVERIFY2(page.commands[0].startsWith(QStringLiteral("shardscope --layers 126 --hidden 16384")),
             qPrintable(page.commands[0]));
    QCOMPARE(page.commands[1], reportCommandLine(s, ByteUnit::GB).text());
    QVERIFY2(page.commands[2].contains(
                 QStringLiteral("--format html --out '%1'")
                     .arg(QString(file).replace(QStringLiteral("'"), QStringLiteral("'\\''")))),
             qPrintable(page.commands[2]));
    QVERIFY(html.contains("&lt;&amp;&gt;'\\''s.html"));
}

/// --format html with any name; the compare page's rows are the four strategies' busiest
/// GPUs.
void TestExportCommand::htmlPageOfCompare()
{
    const QString file = m_dir.filePath(QStringLiteral("compare-page"));
    const Run r = run({"--model", "llama3-70b", "--gpus", "64", "--chart", "compare", "--format",
                       "html", "--out", file});
    QCOMPARE(r.code, 0);
    const Page page = readPage(test::readFile(file));
    verifySelfContained(page);
    Scenario s = defaultScenario();
    const auto variants = compareStrategies(s);
    QCOMPARE(page.rows.size(), 4);
    const QStringList names{"DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3 / FSDP"};
    for (int k = 0; k < 4; ++k) {
        const MemoryReport &v = variants[std::size_t(k)].report;
        QCOMPARE(page.rows[k].value(0), names[k]);
        QCOMPARE(page.rows[k].value(7), gb(v.peakBytes()));
        QCOMPARE(page.rows[k].value(9), v.fits() ? QStringLiteral("yes") : QStringLiteral("no"));
    }
    // DDP's 1,120 GB of model states overflow an 80 GB card; ZeRO-3's 17.5 GB fit.
    QCOMPARE(page.rows[0].value(9), QStringLiteral("no"));
    QCOMPARE(page.rows[3].value(9), QStringLiteral("yes"));
    QVERIFY(page.commands.value(0).endsWith(QStringLiteral("--view compare")));
}

void TestExportCommand::htmlPageOfEveryChart_data()
{
    addChartIdRows();
}

void TestExportCommand::htmlPageOfEveryChart()
{
    QFETCH(QString, id);
    const QString file = m_dir.filePath(id + QStringLiteral(".html"));
    const Run r = run({"--model", "llama3-70b", "--gpus", "64", "--tp", "8", "--pp", "4",
                       "--strategy", "zero1", "--chart", id, "--out", file});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const Page page = readPage(test::readFile(file));
    verifySelfContained(page);
    QVERIFY(!page.rows.isEmpty());
    for (const QStringList &row : page.rows)
        QVERIFY(!row.isEmpty());
}

void TestExportCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("no out") << QStringList{"--gpus", "8"} << "--out FILE is required";
    QTest::newRow("bad suffix") << QStringList{"--out", "a.jpg"}
                                << "--out must end in .png, .svg, .pdf or .html (got 'a.jpg')";
    QTest::newRow("bad chart") << QStringList{"--chart", "pie", "--out", "a.png"}
                               << "--chart must be memory, compare, timeline, stages, steptime or "
                                  "sweep (got 'pie')";
    QTest::newRow("bad sweep") << QStringList{"--chart", "sweep", "--sweep", "tp", "--out", "a.png"}
                               << "--sweep must be gpus, seq, mbs or time (got 'tp')";
    QTest::newRow("bad size") << QStringList{"--size", "1920by1080", "--out", "a.png"}
                              << "--size must be WIDTHxHEIGHT from 480x320 to 8192x8192";
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
