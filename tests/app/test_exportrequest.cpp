// `shardscope export`'s argument handling without drawing (app/exportrequest.h): what
// is accepted, the one-line refusals, and a file name that is not valid UTF-8.
#include "exportrequest.h"
#include "inputfile.h"
#include "runcommand.h"

#include <QTest>

using namespace shardscope;

namespace {

// parseExportArguments() on "shardscope export <rest>": the run and, when accepted, the request.
test::Run parse(const QStringList &rest, std::optional<ExportRequest> *request = nullptr)
{
    return test::runCommand(
        [request](const QStringList &args, QTextStream &out, QTextStream &err) {
            auto parsed = parseExportArguments(args, standInExportChoices(), out, err);
            if (auto *r = std::get_if<ExportRequest>(&parsed)) {
                if (request)
                    *request = *r;
                return 0;
            }
            return std::get<int>(parsed);
        },
        "export", rest);
}

} // namespace

class TestExportRequest : public QObject
{
    Q_OBJECT
private slots:
    void cleanup() { registerRawArguments(0, nullptr); }

    void acceptsAChart()
    {
        std::optional<ExportRequest> r;
        const test::Run run = parse({"--model", "llama3-8b", "--gpus", "8", "--chart", "timeline",
                                     "--out", "t.svg", "--size", "640X480", "--caption", ""},
                                    &r);
        QCOMPARE(run.code, 0);
        QVERIFY(run.err.isEmpty());
        QVERIFY(r);
        QCOMPARE(r->chart, QStringLiteral("timeline"));
        QCOMPARE(r->file, QStringLiteral("t.svg"));
        QCOMPARE(r->size, QSize(640, 480));
        QCOMPARE(r->doc.scenario.layout.gpus, 8);
        QVERIFY(!r->title);
        QCOMPARE(r->caption, std::optional<QString>(QString()));
    }

    /// The page format: from --format html whatever the name, or from an .html name.
    void htmlFormat_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("format");
        QTest::newRow("html name") << QStringList{"--out", "a.HTML"} << QStringLiteral("html");
        QTest::newRow("htm name") << QStringList{"--out", "a.htm"} << QStringLiteral("html");
        QTest::newRow("flag, any name")
            << QStringList{"--out", "page", "--format", "html"} << QStringLiteral("html");
        QTest::newRow("flag agrees")
            << QStringList{"--out", "a.pdf", "--format", "PDF"} << QStringLiteral("pdf");
        QTest::newRow("suffix") << QStringList{"--out", "a.svg"} << QStringLiteral("svg");
    }
    void htmlFormat()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, format);
        std::optional<ExportRequest> r;
        const test::Run run = parse(args, &r);
        QCOMPARE(run.code, 0);
        QVERIFY(r);
        QCOMPARE(r->format, format);
    }

    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown chart")
            << QStringList{"--chart", "pie", "--out", "x.png"}
            << QStringLiteral("shardscope export: --chart must be memory, timeline (got 'pie')");
        QTest::newRow("no --out") << QStringList{}
                                  << QStringLiteral("shardscope export: --out FILE is required "
                                                    "(a .png, .svg, .pdf or .html file)");
        QTest::newRow("other type")
            << QStringList{"--out", "x.gif"}
            << QStringLiteral(
                   "shardscope export: --out must end in .png, .svg, .pdf or .html (got 'x.gif')");
        QTest::newRow("unknown format")
            << QStringList{"--out", "x.png", "--format", "jpeg"}
            << QStringLiteral(
                   "shardscope export: --format must be png, svg, pdf or html (got 'jpeg')");
        QTest::newRow("format against suffix")
            << QStringList{"--out", "x.svg", "--format", "png"}
            << QStringLiteral(
                   "shardscope export: --out must end in .png for --format png (got 'x.svg')");
        QTest::newRow("size too large")
            << QStringList{"--out", "x.png", "--size", "99999x480"}
            << QStringLiteral("shardscope export: --size must be WIDTHxHEIGHT from 480x320 to "
                              "8192x8192 (got '99999x480')");
        // Narrower than 480 the memory chart's legend overlaps its bars (chartexport.h).
        QTest::newRow("size too narrow")
            << QStringList{"--out", "x.png", "--size", "479x1080"}
            << QStringLiteral("shardscope export: --size must be WIDTHxHEIGHT from 480x320 to "
                              "8192x8192 (got '479x1080')");
        QTest::newRow("size not a size")
            << QStringList{"--out", "x.png", "--size", "1e308x1"}
            << QStringLiteral("shardscope export: --size must be WIDTHxHEIGHT from 480x320 to "
                              "8192x8192 (got '1e308x1')");
        QTest::newRow("bad flag") << QStringList{"--out", "x.png", "--gpus", "-1"}
                                  << QStringLiteral("shardscope export: --gpus");
    }

    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        test::verifyRefusal(parse(args), message);
    }

    // Review finding F13: `export --out $'bad-\xff.svg'` wrote "bad-\xef\xbf\xbd.svg" (the
    // name decoded to U+FFFD and encoded back as UTF-8) and reported it written. Now
    // a name that is not valid UTF-8 is refused by name; a UTF-8 name with a real
    // U+FFFD in it is still fine.
    void refusesAnOutNameThatIsNotUtf8()
    {
        char program[] = "shardscope", sub[] = "export", flag[] = "--out", bad[] = "bad-\xff.svg";
        char *argv[] = {program, sub, flag, bad};
        registerRawArguments(4, argv);
        const QString decoded = QString::fromLocal8Bit(bad);
        test::verifyRefusal(parse({"--out", decoded}),
                            QStringLiteral("shardscope export: --out '%1' is not valid UTF-8, so "
                                           "it would be written under another name; choose a "
                                           "UTF-8 file name")
                                .arg(decoded));

        char good[] = "good-\xef\xbf\xbd.svg"; // U+FFFD itself, in UTF-8
        char *argv2[] = {program, sub, flag, good};
        registerRawArguments(4, argv2);
        std::optional<ExportRequest> r;
        QCOMPARE(parse({"--out", QString::fromUtf8(good)}, &r).code, 0);
        QCOMPARE(r->file, QString::fromUtf8(good));
    }
};

QTEST_GUILESS_MAIN(TestExportRequest)
#include "test_exportrequest.moc"
