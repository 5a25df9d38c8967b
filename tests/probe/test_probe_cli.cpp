// shardscope-probe end to end: the executable run through QProcess against the
// fake NVML libraries (exit codes, one JSON document per line).

#include "../testfiles.h"
#include "calibration.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using shardscope::test::writeFile;

namespace {

struct Run
{
    int exitCode = -1;
    QList<QByteArray> lines; ///< stdout, one entry per line
    QByteArray errors;       ///< stderr
    QJsonObject first() const
    {
        return lines.isEmpty() ? QJsonObject{} : QJsonDocument::fromJson(lines.first()).object();
    }
};

// Runs the probe; a run still going after `limitMs` is killed and reported
// with exitCode -1.
Run runProbe(const QStringList &args, const QString &library,
             const QList<QPair<QString, QString>> &env = {}, int limitMs = 60000)
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove(QStringLiteral("FAKE_NVML_FAIL"));
    e.remove(QStringLiteral("FAKE_NVML_GPUS"));
    e.remove(QStringLiteral("FAKE_NVML_COUNT_FAILS_AFTER"));
    e.insert(QStringLiteral("SHARDSCOPE_NVML_LIBRARY"), library);
    for (const auto &[k, v] : env)
        e.insert(k, v);
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(PROBE_EXE), args);
    Run r;
    if (!p.waitForFinished(limitMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    const QByteArray out = p.readAllStandardOutput();
    r.lines = out.split('\n');
    while (!r.lines.isEmpty() && r.lines.last().isEmpty())
        r.lines.removeLast();
    r.errors = p.readAllStandardError();
    return r;
}

bool isJsonObject(const QByteArray &line)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    return error.error == QJsonParseError::NoError && doc.isObject();
}

// Checks that run `r` exited with `exitCode` and printed one JSON document of `schema`.
void verifyOneDocument(const Run &r, int exitCode, const QString &schema)
{
    QCOMPARE(r.exitCode, exitCode);
    QCOMPARE(r.lines.size(), 1);
    QVERIFY(isJsonObject(r.lines.first()));
    QCOMPARE(r.first().value(QStringLiteral("schema")).toString(), schema);
}

// Checks that run `r` exited with `exitCode` and printed one JSON document: an error
// with `code` and the message `error`.
void verifyErrorDocument(const Run &r, int exitCode, const QString &code, const QString &error)
{
    QCOMPARE(r.exitCode, exitCode);
    QCOMPARE(r.lines.size(), 1);
    QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(), code);
    QCOMPARE(r.first().value(QStringLiteral("error")).toString(), error);
}

const QString kFake = QStringLiteral(FAKE_NVML_PATH);

// What Qt prints when a QNetworkReply is given a second error (finding 7).
constexpr char kQtDoubleError[] = "must only be called once";

// stderr split into lines, without the empty piece after the final newline.
QList<QByteArray> stderrLines(const Run &r)
{
    QList<QByteArray> lines = r.errors.split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

} // namespace

class TestProbeCli : public QObject
{
    Q_OBJECT

private slots:
    void jsonSample()
    {
        const Run r = runProbe({QStringLiteral("--json")}, kFake);
        verifyOneDocument(r, 0, QStringLiteral("shardscope-probe/1"));
        const QJsonObject doc = r.first();
        QCOMPARE(doc.value(QStringLiteral("nvml_memory_api")).toString(), QStringLiteral("v2"));
        const QJsonArray gpus = doc.value(QStringLiteral("gpus")).toArray();
        QCOMPARE(gpus.size(), 2);
        QCOMPARE(gpus.at(0).toObject().value(QStringLiteral("total_bytes")).toInteger(),
                 85520809984LL);
        QCOMPARE(gpus.at(0).toObject().value(QStringLiteral("free_bytes")).toInteger(),
                 74229743616LL);
    }

    void legacyLibraryReportsV1()
    {
        const Run r = runProbe({QStringLiteral("--json")}, QStringLiteral(FAKE_NVML_LEGACY_PATH));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.first().value(QStringLiteral("nvml_memory_api")).toString(),
                 QStringLiteral("v1"));
    }

    void watchPrintsOneDocumentPerLine()
    {
        const Run r = runProbe({QStringLiteral("--watch"), QStringLiteral("10"),
                                QStringLiteral("--count"), QStringLiteral("3")},
                               kFake);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.lines.size(), 3);
        qint64 last = 0;
        for (const QByteArray &line : r.lines) {
            QVERIFY2(isJsonObject(line), line.constData());
            const QJsonObject doc = QJsonDocument::fromJson(line).object();
            QCOMPARE(doc.value(QStringLiteral("gpus")).toArray().size(), 2);
            const qint64 t = doc.value(QStringLiteral("timestamp_ms")).toInteger();
            QVERIFY(t >= last);
            last = t;
        }
    }

    void watchStopsOnAFailureMidway()
    {
        const Run r =
            runProbe({QStringLiteral("--watch"), QStringLiteral("10"), QStringLiteral("--count"),
                      QStringLiteral("5")},
                     kFake, {{QStringLiteral("FAKE_NVML_COUNT_FAILS_AFTER"), QStringLiteral("2")}});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.lines.size(), 3);
        const QJsonObject last = QJsonDocument::fromJson(r.lines.last()).object();
        QCOMPARE(last.value(QStringLiteral("error_code")).toString(), QStringLiteral("nvml_error"));
    }

    // An error document is one line with its error_code and a message; nothing to show
    // exits 0, an NVML call failing after initialisation exits 1 (docs/probe.md, "Error
    // codes and exit codes").
    void errorDocuments_data()
    {
        QTest::addColumn<QString>("library");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("code");
        QTest::addColumn<int>("nvmlReturn"); // 0: no nvml_return key
        QTest::newRow("missing library exits 0")
            << QStringLiteral("/nonexistent/libnvml.so") << QString() << QString() << 0
            << QStringLiteral("nvml_not_found") << 0;
        QTest::newRow("missing symbol exits 0")
            << QStringLiteral(FAKE_NVML_NOINIT_PATH) << QString() << QString() << 0
            << QStringLiteral("symbol_missing") << 0;
        QTest::newRow("NVML error exits 1")
            << kFake << QStringLiteral("FAKE_NVML_FAIL") << QStringLiteral("count") << 1
            << QStringLiteral("nvml_error") << 999;
        QTest::newRow("no GPU exits 0")
            << kFake << QStringLiteral("FAKE_NVML_GPUS") << QStringLiteral("0") << 0
            << QStringLiteral("no_gpus") << 0;
    }

    void errorDocuments()
    {
        QFETCH(QString, library);
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(int, exitCode);
        QFETCH(QString, code);
        QFETCH(int, nvmlReturn);
        QList<QPair<QString, QString>> env;
        if (!variable.isEmpty())
            env << qMakePair(variable, value);
        const Run r = runProbe({QStringLiteral("--json")}, library, env);
        QCOMPARE(r.exitCode, exitCode);
        QCOMPARE(r.lines.size(), 1);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(), code);
        QVERIFY(!r.first().value(QStringLiteral("error")).toString().isEmpty());
        QCOMPARE(r.first().value(QStringLiteral("nvml_return")).toInt(), nvmlReturn);
    }

    // Review finding F8: text a driver library prints to stdout landed before the JSON
    // document, so a reader of the stream saw garbage first. It now goes to stderr and
    // stdout holds the one document.
    void driverOutputStaysOffStdout()
    {
        const Run r = runProbe({QStringLiteral("--json")}, kFake,
                               {{QStringLiteral("FAKE_NVML_FAIL"), QStringLiteral("chatty")}});
        verifyOneDocument(r, 0, QStringLiteral("shardscope-probe/1"));
        QCOMPARE(r.first().value(QStringLiteral("gpus")).toArray().size(), 2);
        QVERIFY2(r.errors.contains("fake driver: NVRM version banner\n"), r.errors.constData());
    }

    // Review finding F8: a driver whose nvmlInit_v2 never returns hung the probe for good.
    // --timeout bounds it (10 s without), the error document is printed and the probe
    // exits although the call is still blocked on its thread.
    void hangingInitEndsWithAnError()
    {
        const Run r = runProbe(
            {QStringLiteral("--json"), QStringLiteral("--timeout"), QStringLiteral("1500")}, kFake,
            {{QStringLiteral("FAKE_NVML_FAIL"), QStringLiteral("init_hang")}});
        verifyErrorDocument(
            r, 1, QStringLiteral("nvml_timeout"),
            QStringLiteral("NVML did not answer in 1.5 s: nvmlInit_v2 (%1) is still running; "
                           "the driver or a GPU may be hung (nvidia-smi would wait too)")
                .arg(kFake));
    }

    void textOutputWithoutJson()
    {
        const Run r = runProbe({}, kFake);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.lines.size() >= 3);
        QVERIFY(r.lines.first().contains("550.54.15"));
        QVERIFY(r.lines.at(1).contains("NVIDIA H100 80GB HBM3"));
    }

    void badUsageExitsTwo_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--bogus")};
        QTest::newRow("watch not a number")
            << QStringList{QStringLiteral("--watch"), QStringLiteral("abc")};
        QTest::newRow("watch zero") << QStringList{QStringLiteral("--watch"), QStringLiteral("0")};
        QTest::newRow("count without watch")
            << QStringList{QStringLiteral("--count"), QStringLiteral("3")};
        QTest::newRow("rank without calibrate")
            << QStringList{QStringLiteral("--rank"), QStringLiteral("1")};
        QTest::newRow("positional") << QStringList{QStringLiteral("extra")};
        QTest::newRow("calibrate with watch")
            << QStringList{QStringLiteral("--calibrate"), QStringLiteral("x.json"),
                           QStringLiteral("--watch"), QStringLiteral("10")};
        QTest::newRow("prometheus not http")
            << QStringList{QStringLiteral("--prometheus"), QStringLiteral("ftp://host/")};
        QTest::newRow("missing value") << QStringList{QStringLiteral("--watch")};
        QTest::newRow("calibrate with timeout")
            << QStringList{QStringLiteral("--calibrate"), QStringLiteral("x.json"),
                           QStringLiteral("--timeout"), QStringLiteral("10")};
    }

    void badUsageExitsTwo()
    {
        QFETCH(QStringList, args);
        const Run r = runProbe(args, kFake);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(!r.errors.isEmpty());
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(), QStringLiteral("usage"));
    }

    void calibrateWithoutCudaOrRefused()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("big.json"));
        // 80 GiB of weights: more than the fake GPU 0 has free (74229743616 bytes).
        QVERIFY(writeFile(path, R"({"rank": 0, "bytes": {"weights": 85899345920}})"));

        const Run r = runProbe({QStringLiteral("--calibrate"), path}, kFake);
        QCOMPARE(r.lines.size(), 1);
        const QJsonObject doc = r.first();
        QCOMPARE(doc.value(QStringLiteral("schema")).toString(),
                 QStringLiteral("shardscope-probe-calibration/1"));
        QCOMPARE(r.exitCode, 1);
        if (!shardscope::probe::calibrationAvailable()) {
            QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                     QStringLiteral("calibration_not_built"));
            QCOMPARE(doc.value(QStringLiteral("error")).toString(),
                     QStringLiteral("calibration not built: CUDA toolkit not found at build time"));
            return;
        }
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("calibration_refused"));
        const QString message = doc.value(QStringLiteral("error")).toString();
        QVERIFY2(message.contains(QStringLiteral("has 74229743616 bytes free")),
                 qPrintable(message));
        QVERIFY2(message.contains(QStringLiteral("needs 86436216832 bytes")), qPrintable(message));
    }

    void calibrateBadScenarioExitsTwo()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built");
        const Run r =
            runProbe({QStringLiteral("--calibrate"), QStringLiteral("/nonexistent.json")}, kFake);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("scenario_invalid"));
    }

    // Review finding F13: a scenario whose name is not valid UTF-8 was "No such file or
    // directory" (the name decoded to U+FFFD and re-encoded). Now the raw bytes are
    // opened: the file is read and refused for what it holds. QProcess cannot pass
    // such bytes, so a shell does.
    void calibrateOpensANonUtf8Name()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray name = QFile::encodeName(dir.path()) + "/name-\xff\xfe.json";
        {
            QFile f(QFile::decodeName(name));
            const int fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            QVERIFY(fd >= 0);
            QVERIFY(f.open(fd, QIODevice::WriteOnly, QFileDevice::AutoCloseHandle));
            QCOMPARE(f.write("[1, 2]"), qint64(6));
        }
        QProcess p;
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("SHARDSCOPE_NVML_LIBRARY"), kFake);
        e.insert(QStringLiteral("SCENARIO_DIR"), dir.path());
        p.setProcessEnvironment(e);
        p.start(QStringLiteral("/bin/sh"),
                {QStringLiteral("-c"),
                 QStringLiteral("exec \"$0\" --calibrate \"$SCENARIO_DIR/$(printf "
                                "'name-\\377\\376.json')\""),
                 QStringLiteral(PROBE_EXE)});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        const QJsonObject doc = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("scenario_invalid"));
        // Read, then refused for its content ([1, 2] is no report).
        QCOMPARE(doc.value(QStringLiteral("error")).toString(),
                 QStringLiteral("Invalid calibration scenario: the document is not a JSON object"));
    }

    // Finding 1: the scenario reader takes at most 16 MiB from a regular file;
    // /dev/zero, a FIFO (which would block in open) and an oversized file are
    // refused at once with one JSON error line.
    void calibrateRefusesUnboundedFiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("dev zero") << QStringLiteral("zero")
                                  << QStringLiteral("/dev/zero is a character device, not a "
                                                    "regular file");
        QTest::newRow("fifo") << QStringLiteral("fifo")
                              << QStringLiteral("scenario.fifo is a FIFO, not a regular file");
        // 16 MiB + 1 byte: 16777217 bytes.
        QTest::newRow("oversized sparse file")
            << QStringLiteral("huge")
            << QStringLiteral("huge.json is 16777217 bytes, more than the 16777216-byte (16 MiB) "
                              "limit");
        QTest::newRow("directory")
            << QStringLiteral("dir") << QStringLiteral(" is a directory, not a regular file");
    }

    void calibrateRefusesUnboundedFiles()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built (the file is not read)");
        QFETCH(QString, kind);
        QFETCH(QString, mentions);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString path;
        if (kind == QLatin1String("zero")) {
            path = QStringLiteral("/dev/zero");
        } else if (kind == QLatin1String("fifo")) {
            path = dir.filePath(QStringLiteral("scenario.fifo"));
            QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("huge")) {
            path = dir.filePath(QStringLiteral("huge.json"));
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize((16LL << 20) + 1)); // sparse: no blocks written
        } else {
            path = dir.path();
        }
        QElapsedTimer clock;
        clock.start();
        const Run r = runProbe({QStringLiteral("--calibrate"), path}, kFake, {}, 10000);
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        verifyOneDocument(r, 2, QStringLiteral("shardscope-probe-calibration/1"));
        const QJsonObject doc = r.first();
        QCOMPARE(doc.value(QStringLiteral("error_code")).toString(),
                 QStringLiteral("scenario_invalid"));
        const QString message = doc.value(QStringLiteral("error")).toString();
        QVERIFY2(message.startsWith(QStringLiteral("Invalid calibration scenario: ")),
                 qPrintable(message));
        QVERIFY2(message.contains(mentions), qPrintable(message));
        QVERIFY(!r.errors.contains(kQtDoubleError));
    }

    // Finding 3: 4 x 2^62 + 1 MiB wraps a 64-bit sum to 1 MiB, which passed the
    // free-memory refusal; the parser now refuses the plan, naming the field.
    void calibrateOverflowingPlanIsInvalid()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built (the file is not read)");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("wrap.json"));
        QVERIFY(writeFile(
            path, R"({"bytes": {"weights": 4611686018427387904, "gradients": 4611686018427387904,
                    "master_weights": 4611686018427387904,
                    "optimizer_states": 4611686018427387904, "activations": 1048576}})"));
        const Run r = runProbe({QStringLiteral("--calibrate"), path}, kFake);
        // 2^62 + 2^62 = 2^63 > 2^63 - 1 already at the second component.
        verifyErrorDocument(
            r, 2, QStringLiteral("scenario_invalid"),
            QStringLiteral("Invalid calibration scenario: the sizes in \"bytes\" add up to "
                           "more than 9223372036854775807 bytes at \"gradients\""));
    }

    // Finding 5: a newline or an escape sequence in an argument must not span
    // lines or reach the terminal: stderr keeps its two lines, stdout its one.
    void controlCharactersAreEscaped_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("option value")
            << QStringList{QStringLiteral("--watch"), QStringLiteral("1\n\x1b[2J")}
            << QStringLiteral("--watch needs an integer >= 1, not '1\\n\\x1b[2J'");
        QTest::newRow("positional") << QStringList{QStringLiteral("a\nb\x1b[2J")}
                                    << QStringLiteral("unexpected argument 'a\\nb\\x1b[2J'");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("--x\r\n\x1b[2J")}
                                        << QStringLiteral("Unknown option 'x\\r\\n\\x1b[2J'.");
    }

    void controlCharactersAreEscaped()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Run r = runProbe(args, kFake);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.lines.size(), 1);
        QVERIFY(!r.lines.first().contains('\x1b'));
        QCOMPARE(r.first().value(QStringLiteral("error_code")).toString(), QStringLiteral("usage"));
        QCOMPARE(r.first().value(QStringLiteral("error")).toString(), message);
        const QList<QByteArray> lines = stderrLines(r);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines.at(0), QByteArray("shardscope-probe: ") + message.toUtf8());
        QCOMPARE(lines.at(1), QByteArray("Try 'shardscope-probe --help'."));
        QVERIFY(!r.errors.contains('\x1b'));
        QVERIFY(!r.errors.contains('\r'));
        QVERIFY(!r.errors.contains(kQtDoubleError));
    }

    void controlCharactersInAFileNameAreEscaped()
    {
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built (the file is not read)");
        const Run r = runProbe(
            {QStringLiteral("--calibrate"), QStringLiteral("/nonexistent/a\nb\x1b[2J.json")},
            kFake);
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.lines.size(), 1);
        QVERIFY(!r.lines.first().contains('\x1b'));
        const QString error = r.first().value(QStringLiteral("error")).toString();
        QVERIFY2(
            error.startsWith(QStringLiteral(
                "Invalid calibration scenario: cannot read /nonexistent/a\\nb\\x1b[2J.json: ")),
            qPrintable(error));
        for (const QChar c : error)
            QVERIFY2(c.unicode() >= 0x20, qPrintable(error));
    }

    // The helpers behind findings 4 and 5 (probe/probeerror.h).
    void escapesControlCharacters()
    {
        using shardscope::probe::escapeControlCharacters;
        QCOMPARE(escapeControlCharacters(QStringLiteral("plain text, 100% (ok) \\ /")),
                 QStringLiteral("plain text, 100% (ok) \\ /"));
        QCOMPARE(escapeControlCharacters(QStringLiteral("a\nb\r\tc")),
                 QStringLiteral("a\\nb\\r\\tc"));
        QCOMPARE(escapeControlCharacters(QStringLiteral("\x1b[2J\x07\x7f")),
                 QStringLiteral("\\x1b[2J\\x07\\x7f"));
        QCOMPARE(escapeControlCharacters(QString(QChar(0))), QStringLiteral("\\x00"));
        // C1 CSI (U+009B) and the Unicode line separator; other non-ASCII text stays.
        QCOMPARE(escapeControlCharacters(QStringLiteral(u"\u009b2J \u2028 H100 \u00e9")),
                 QStringLiteral(u"\\u009b2J \\u2028 H100 \u00e9"));
        // Review finding F9: the right-to-left override reorders what a reader sees.
        QCOMPARE(escapeControlCharacters(QStringLiteral(u"GPU \u202eevil\u2066")),
                 QStringLiteral(u"GPU \\u202eevil\\u2066"));
    }

    void redactsCredentials()
    {
        using namespace shardscope::probe;
        QCOMPARE(redactCredentials(QStringLiteral("http://user:secret@host:9400/api?q=1")),
                 QStringLiteral("http://user:***@host:9400/api?q=***"));
        QCOMPARE(redactCredentials(
                     QStringLiteral("Error transferring https://u:p%40ss@h/x - server replied: "
                                    "Bad Gateway; see http://a:b@c")),
                 QStringLiteral("Error transferring https://u:***@h/x - server replied: "
                                "Bad Gateway; see http://a:***@c"));
        // The password runs to the last '@' of the authority.
        QCOMPARE(redactCredentials(QStringLiteral("not 'http://user:p@ss@host/'")),
                 QStringLiteral("not 'http://user:***@host/'"));
        QCOMPARE(redactCredentials(QStringLiteral("not 'user:secret@host'")),
                 QStringLiteral("not 'user:***@host'"));
        // Nothing to hide: unchanged.
        for (const char *kept : {"http://host:9400/path", "mail a@b.c", "Error: x@y",
                                 "nvml error: Unknown Error (NVML error 999)"}) {
            QCOMPARE(redactCredentials(QString::fromLatin1(kept)), QString::fromLatin1(kept));
        }
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("http://user:secret@127.0.0.1:9090/p"))),
                 QStringLiteral("http://user:***@127.0.0.1:9090/p"));
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("http://127.0.0.1:9090"))),
                 QStringLiteral("http://127.0.0.1:9090"));
        QCOMPARE(printableText(QStringLiteral("http://u:s@h/\n")),
                 QStringLiteral("http://u:***@h/\\n"));
    }

    // The bad-input review's F4: malformed URLs, tokens in the user name,
    // the query string or the fragment. Each expected string is worked by hand
    // from the rule in probeerror.h: "://" to the last '@' is user information.
    void redactsMalformedUrlsAndTokens_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("shown");
        auto row = [](const char *name, const char *typed, const char *shown) {
            QTest::newRow(name) << QString::fromLatin1(typed) << QString::fromLatin1(shown);
        };
        row("slash in password", "http://alice:pa/S3cretPW@127.0.0.1:9/good",
            "http://alice:***@127.0.0.1:9/good");
        row("question mark", "http://alice:pa?S3cretPW@127.0.0.1:9/",
            "http://alice:***@127.0.0.1:9/");
        row("hash", "http://alice:pa#S3cretPW@127.0.0.1:9/", "http://alice:***@127.0.0.1:9/");
        row("at sign", "http://alice:pa@S3cretPW@127.0.0.1:9/", "http://alice:***@127.0.0.1:9/");
        row("bad port", "http://alice:S3cretPW@127.0.0.1:999999/good",
            "http://alice:***@127.0.0.1:999999/good");
        row("bad ipv6 host", "http://alice:S3cretPW@[::1/good", "http://alice:***@[::1/good");
        row("token as user", "http://S3cretPW@127.0.0.1:9/", "http://***@127.0.0.1:9/");
        row("slash in user", "http://al/ice:S3cretPW@h/", "http://***@h/");
        row("query token", "http://127.0.0.1:9/?token=S3cretPW&x=1&S3cretPW",
            "http://127.0.0.1:9/?token=***&x=***&***");
        row("fragment", "http://127.0.0.1:9/p#S3cretPW", "http://127.0.0.1:9/p#***");
        row("no scheme", "alice:S3cretPW@host:9090", "alice:***@host:9090");
        row("already redacted", "http://alice:***@h/?q=***#***", "http://alice:***@h/?q=***#***");
    }

    void redactsMalformedUrlsAndTokens()
    {
        using namespace shardscope::probe;
        QFETCH(QString, typed);
        QFETCH(QString, shown);
        QCOMPARE(redactUrlText(typed), shown);
        // The same URL inside free text, e.g. Qt's error strings.
        QCOMPARE(redactCredentials(QStringLiteral("Cannot reach '") + typed +
                                   QStringLiteral("': refused")),
                 QStringLiteral("Cannot reach '") + shown + QStringLiteral("': refused"));
        QVERIFY(!printableText(typed).contains(QLatin1String("S3cretPW")));
        // Through QUrl's parse, when it parses at all.
        const QUrl parsed(typed, QUrl::TolerantMode);
        QVERIFY2(!redactedUrl(parsed).contains(QLatin1String("S3cretPW")),
                 qPrintable(redactedUrl(parsed)));
    }

    void redactsParsedUrls()
    {
        using shardscope::probe::redactedUrl;
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("http://TOKEN@h:9090/p"))),
                 QStringLiteral("http://***@h:9090/p"));
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("https://h/p?token=abc&query=up#frag"))),
                 QStringLiteral("https://h/p?token=***&query=***#***"));
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("https://h/p?TOKEN"))),
                 QStringLiteral("https://h/p?***=***"));
        // host "al", the password in the path: caught by the text rule.
        QCOMPARE(redactedUrl(QUrl(QStringLiteral("http://al/ice:S3cretPW@h/"))),
                 QStringLiteral("http://***@h/"));
    }

    void calibrateWithoutAUsableCudaDevice()
    {
        // The fake GPUs exist only for NVML: CUDA either has no driver here or
        // no device on the fake PCI bus. Either way: a clean error, no crash.
        // (On a machine whose real GPU sits on the fake's bus it calibrates 1 MiB.)
        if (!shardscope::probe::calibrationAvailable())
            QSKIP("calibration not built");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("small.json"));
        QVERIFY(writeFile(path, R"({"bytes": {"weights": 1048576}})"));
        const Run r = runProbe(
            {QStringLiteral("--calibrate"), path, QStringLiteral("--rank"), QStringLiteral("0")},
            kFake);
        QCOMPARE(r.lines.size(), 1);
        const QJsonObject doc = r.first();
        if (r.exitCode == 0) {
            QCOMPARE(doc.value(QStringLiteral("components")).toArray().size(), 6);
            return;
        }
        QCOMPARE(r.exitCode, 1);
        const QString code = doc.value(QStringLiteral("error_code")).toString();
        QVERIFY2(code == QLatin1String("cuda_error") ||
                     code == QLatin1String("cuda_device_not_found"),
                 qPrintable(code));
    }
};

QTEST_GUILESS_MAIN(TestProbeCli)
#include "test_probe_cli.moc"
