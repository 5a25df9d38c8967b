// terminalText() (io/qtext.h): the one filter of every text ShardScope prints.
#include "qtext.h"

#include <QTest>

using namespace shardscope;

class TestQText : public QObject
{
    Q_OBJECT

private slots:
    void escapes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("one");
        QTest::addColumn<QString>("many");
        QTest::newRow("plain") << QStringLiteral("Llama 3 70B, 100% \\ /")
                               << QStringLiteral("Llama 3 70B, 100% \\ /")
                               << QStringLiteral("Llama 3 70B, 100% \\ /");
        // Review finding F9: the review's name "org/\e[2J\e[31mEVIL\a".
        QTest::newRow("escape sequences") << QStringLiteral("\x1b[2J\x1b[31mEVIL\x07")
                                          << QStringLiteral("\\x1b[2J\\x1b[31mEVIL\\x07")
                                          << QStringLiteral("\\x1b[2J\\x1b[31mEVIL\\x07");
        QTest::newRow("lines") << QStringLiteral("a\nb\tc\rd") << QStringLiteral("a\\nb\\tc\\rd")
                               << QStringLiteral("a\nb\tc\\rd");
        QTest::newRow("DEL and NUL")
            << (QStringLiteral("x\x7f") + QChar(0)) << QStringLiteral("x\\x7f\\x00")
            << QStringLiteral("x\\x7f\\x00");
        // C1 CSI, the line separator, the right-to-left override and an isolate.
        QTest::newRow("unicode controls")
            << QStringLiteral(u"\u009b2J \u2028 \u202eevil\u2066 H100 \u00e9")
            << QStringLiteral(u"\\u009b2J \\u2028 \\u202eevil\\u2066 H100 \u00e9")
            << QStringLiteral(u"\\u009b2J \\u2028 \\u202eevil\\u2066 H100 \u00e9");
    }

    void escapes()
    {
        QFETCH(QString, text);
        QFETCH(QString, one);
        QFETCH(QString, many);
        QCOMPARE(terminalText(text), one);
        QCOMPARE(terminalText(text, TextLines::Many), many);
    }
};

QTEST_APPLESS_MAIN(TestQText)
#include "test_qtext.moc"
