// WrapRow (ui/widgets/wraprow.h): control groups on one row while their size hints fit, on more
// rows when not, the trailing group at the right end of the last row, and no width asked
// of the window.
#include "widgettest.h"
#include "wraprow.h"

#include <QLabel>
#include <QTest>
#include <QVBoxLayout>

using namespace shardscope;

class TestWrapRow : public QObject
{
    Q_OBJECT
private slots:
    void oneRowWhenTheyFit();
    void wrapsWhereTheyDoNot();
    void aNewFontArrangesAgain();
};

namespace {

/// A group whose size hint is exactly `width` x 30 pixels.
class Block : public QWidget
{
public:
    explicit Block(int width) : m_width(width) {}
    QSize sizeHint() const override { return {m_width, 30}; }
    QSize minimumSizeHint() const override { return sizeHint(); }
    void setWidth(int width)
    {
        m_width = width;
        updateGeometry();
    }

private:
    int m_width;
};

/// Groups of 300, 200 and 150 pixels, 10 apart: 300 + 10 + 200 + 10 + 150 = 670 in a row,
/// in a window whose layout gives the row its whole width (as the Plan tab's does).
struct Row
{
    QWidget window;
    WrapRow *row = new WrapRow(10);
    Block *a = new Block(300);
    Block *b = new Block(200);
    Block *c = new Block(150);
    Row()
    {
        auto *layout = new QVBoxLayout(&window);
        layout->setContentsMargins(0, 0, 0, 0);
        layout->addWidget(row);
        layout->addStretch(1);
        row->addGroup(a);
        row->addGroup(b);
        row->addTrailingGroup(c);
    }
    void showAt(int width)
    {
        QVERIFY(test::shownAt(window, QSize(width, 200)));
        resize(width);
    }
    /// The window `width` pixels wide, laid out.
    void resize(int width)
    {
        window.resize(width, 200);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
    }
};

} // namespace

void TestWrapRow::oneRowWhenTheyFit()
{
    Row r;
    r.showAt(800);
    QCOMPARE(r.row->rowCount(), 1);
    QCOMPARE(r.row->sizeHint().height(), 30);
    QCOMPARE(r.a->geometry(), QRect(0, 0, 300, 30));
    QCOMPARE(r.b->geometry(), QRect(310, 0, 200, 30));
    // The trailing group ends at the right edge: 800 - 150 = 650.
    QCOMPARE(r.c->geometry(), QRect(650, 0, 150, 30));
    // Exactly 670 pixels still hold all three.
    r.resize(670);
    QCOMPARE(r.row->rowCount(), 1);
    // The row asks for no width: it never widens what holds it.
    QCOMPARE(r.row->sizePolicy().horizontalPolicy(), QSizePolicy::Ignored);
    QCOMPARE(r.window.minimumSizeHint().width(), 0);
}

void TestWrapRow::wrapsWhereTheyDoNot()
{
    Row r;
    // 669 pixels: 300 + 10 + 200 = 510 on the first row, the 150 on a second.
    r.showAt(669);
    QCOMPARE(r.row->rowCount(), 2);
    QCOMPARE(r.row->rowOf(r.a), 0);
    QCOMPARE(r.row->rowOf(r.b), 0);
    QCOMPARE(r.row->rowOf(r.c), 1);
    // Two rows of 30, 10 apart.
    QCOMPARE(r.row->sizeHint().height(), 70);
    QCOMPARE(r.b->geometry(), QRect(310, 0, 200, 30));
    QCOMPARE(r.c->geometry(), QRect(669 - 150, 40, 150, 30));
    // 400 pixels: each group alone (300 + 10 + 200 > 400, 200 + 10 + 150 = 360 fits).
    r.resize(400);
    QCOMPARE(r.row->rowCount(), 2);
    QCOMPARE(r.row->rowOf(r.b), 1);
    QCOMPARE(r.row->rowOf(r.c), 1);
    // 250 pixels: three rows; a group wider than the row keeps a row of its own.
    r.resize(250);
    QCOMPARE(r.row->rowCount(), 3);
    QCOMPARE(r.row->rowOf(r.a), 0);
    QCOMPARE(r.row->sizeHint().height(), 110);
    // Wide again: one row.
    r.resize(1000);
    QCOMPARE(r.row->rowCount(), 1);
    QCOMPARE(r.row->rowOf(r.c), 0);
    QCOMPARE(r.row->rowOf(nullptr), -1);
}

void TestWrapRow::aNewFontArrangesAgain()
{
    // Larger type widens a group without resizing the row (presentation mode).
    Row r;
    r.showAt(700);
    QCOMPARE(r.row->rowCount(), 1);
    r.b->setWidth(260); // 300 + 10 + 260 + 10 + 150 = 730 > 700
    QCoreApplication::processEvents();
    QCOMPARE(r.row->rowCount(), 2);
    QCOMPARE(r.row->rowOf(r.c), 1);
    r.b->setWidth(200);
    QCoreApplication::processEvents();
    QCOMPARE(r.row->rowCount(), 1);
}

QTEST_MAIN(TestWrapRow)
#include "test_wraprow.moc"
