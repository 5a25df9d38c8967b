// The one input reader (io/inputfile.h) and every entry point that uses it: each
// refuses endless or non-regular inputs in one line and within a moment, never
// reading more than the limit.
#include "inputfile.h"
#include "lesson.h"
#include "scenariofile.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace shardscope;

class TestInputFile : public QObject
{
    Q_OBJECT
private slots:
    void readsASmallFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("a.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"x\": 1}");
        f.close();
        QString error;
        QCOMPARE(readInputFile(path, &error), std::optional<QByteArray>("{\"x\": 1}"));
    }

    void refusesEndlessAndOversizedInputs_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("/dev/zero") << "zero"
                                   << "zero: not a regular file (a directory, pipe or device "
                                      "cannot be read as an input)";
        QTest::newRow("fifo") << "fifo"
                              << "fifo: not a regular file (a directory, pipe or device cannot "
                                 "be read as an input)";
        QTest::newRow("directory") << "dir"
                                   << "dir: not a regular file (a directory, pipe or device "
                                      "cannot be read as an input)";
        // A sparse 2 GiB file: 2,147,483,648 bytes, none of them read.
        QTest::newRow("2 GiB") << "big"
                               << "big: larger than 16 MiB (2147483648 bytes)";
        QTest::newRow("missing") << "missing"
                                 << "missing: cannot open (No such file or directory)";
    }

    void refusesEndlessAndOversizedInputs()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QString path = dir.filePath(kind);
        if (kind == QLatin1String("zero")) {
            path = dir.filePath(QStringLiteral("zero"));
            QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
        } else if (kind == QLatin1String("fifo")) {
            QCOMPARE(mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        } else if (kind == QLatin1String("dir")) {
            QVERIFY(QDir().mkpath(path));
        } else if (kind == QLatin1String("big")) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(2LL * 1024 * 1024 * 1024));
        }
        QElapsedTimer timer;
        timer.start();
        QString error;
        QVERIFY(!readInputFile(path, &error));
        QCOMPARE(error, message);
        // Every entry point says the same, within a moment (a FIFO would hang forever).
        QVERIFY(!loadScenarioFile(path, &error));
        QCOMPARE(error, message);
        QVERIFY(!loadLessonFile(path, &error));
        QCOMPARE(error, message);
        QVERIFY(timer.elapsed() < 5000);
    }

    void refusesAFileOneByteOverTheLimit()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("edge.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(101, ' '));
        f.close();
        QString error;
        QVERIFY(readInputFile(path, &error, 101));
        QVERIFY(!readInputFile(path, &error, 100));
        QCOMPARE(error, QStringLiteral("edge.json: larger than 100 bytes (101 bytes)"));
    }
};

QTEST_APPLESS_MAIN(TestInputFile)
#include "test_inputfile.moc"
