// WrapLabel (ui/widgets/wraplabel.h): its heights for a width are QLabel's own, and a new text,
// font or margin is measured again instead of answered from the memo.
#include "wraplabel.h"

#include <QTest>

using namespace shardscope;

class TestWrapLabel : public QObject
{
    Q_OBJECT
private slots:
    void heightsAreQLabels();
    void forgetsOnEveryChange();
};

namespace {

const QString shortText = QStringLiteral("Fits: 17.5 GB of 80 GB per GPU");
const QString longText = QStringLiteral(
    "Scaled Llama-style shape, not a published model: 85 layers, hidden 9,088, FFN 24,320, "
    "71 heads (1 KV), vocabulary 128,256. Exactly 71,234,567,890 parameters.");

/// What a plain word-wrapped QLabel with the same settings answers.
int qlabelHeight(const WrapLabel &like, int width)
{
    QLabel plain(like.text());
    plain.setWordWrap(true);
    plain.setFont(like.font());
    plain.setMargin(like.margin());
    plain.setIndent(like.indent());
    plain.setAlignment(like.alignment());
    plain.setContentsMargins(like.contentsMargins());
    return plain.heightForWidth(width);
}

} // namespace

void TestWrapLabel::heightsAreQLabels()
{
    WrapLabel label(longText);
    QVERIFY(label.wordWrap());
    QVERIFY(label.hasHeightForWidth());
    // More widths than the memo holds (four), each asked twice, in an order that evicts.
    int narrow = 0, wide = 0;
    for (int round = 0; round < 2; ++round)
        for (const int width : {120, 200, 297, 332, 388, 600, 1400}) {
            const int h = label.heightForWidth(width);
            QCOMPARE(h, qlabelHeight(label, width));
            if (width == 120)
                narrow = h;
            if (width == 1400)
                wide = h;
        }
    // The long sentence takes more lines at 120 pixels than on one 1,400-pixel line.
    QVERIFY2(narrow > 2 * wide, qPrintable(QStringLiteral("%1 vs %2").arg(narrow).arg(wide)));
}

void TestWrapLabel::forgetsOnEveryChange()
{
    // An empty memo answers no width, not even the -1 a layout may pass ("any width").
    WrapLabel blank;
    QCOMPARE(blank.heightForWidth(-1), qlabelHeight(blank, -1));

    WrapLabel label(shortText);
    const int width = 200;
    const int shortHeight = label.heightForWidth(width);
    QCOMPARE(shortHeight, qlabelHeight(label, width));

    label.setText(longText); // a new text at a width already in the memo
    const int longHeight = label.heightForWidth(width);
    QCOMPARE(longHeight, qlabelHeight(label, width));
    QVERIFY(longHeight > shortHeight);

    QFont big = label.font();
    big.setPointSizeF(big.pointSizeF() * 2);
    label.setFont(big);
    const int bigHeight = label.heightForWidth(width);
    QCOMPARE(bigHeight, qlabelHeight(label, width));
    QVERIFY(bigHeight > longHeight);

    // A margin on every side: 24 pixels more height, and 24 fewer for the text's lines.
    label.setMargin(12);
    const int marginHeight = label.heightForWidth(width);
    QCOMPARE(marginHeight, qlabelHeight(label, width));
    QVERIFY(marginHeight >= bigHeight + 24);

    // Top and bottom only: the same lines, 12 pixels taller.
    label.setContentsMargins(0, 5, 0, 7);
    QCOMPARE(label.heightForWidth(width), marginHeight + 12);
}

QTEST_MAIN(TestWrapLabel)
#include "test_wraplabel.moc"
