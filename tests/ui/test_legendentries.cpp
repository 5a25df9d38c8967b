// Legend entries that remember their size (ui/charts/chartparts.h addToLegend(),
// useMeasuredLegendEntries()): the same entries in the same cells as QCustomPlot's, and
// sizes that are QCustomPlot's own, following a renamed plottable and a new font.
#include "chartparts.h"
#include "palette.h"

#include <QTest>
#include <qcustomplot.h>

using namespace shardscope;

class TestLegendEntries : public QObject
{
    Q_OBJECT
private slots:
    void swappedInPlace();
    void sizesFollowNameAndFont();
};

namespace {

/// QCustomPlot's own answer for `plottable` in `legend`: a plain entry's size.
QSize plainSize(QCPLegend *legend, QCPAbstractPlottable *plottable)
{
    QCPPlottableLegendItem plain(legend, plottable);
    plain.setFont(legend->font());
    return static_cast<const QCPLayoutElement &>(plain).minimumOuterSizeHint();
}

} // namespace

void TestLegendEntries::swappedInPlace()
{
    QCustomPlot plot;
    placeLegendAbove(&plot, 4, 12);
    const QStringList names{QStringLiteral("Weights"), QStringLiteral("Gradients"),
                            QStringLiteral("Optimizer states")};
    QList<QCPGraph *> graphs;
    for (const QString &name : names) {
        QCPGraph *g = plot.addGraph(); // QCustomPlot lists it with a plain entry
        g->setName(name);
        graphs << g;
    }
    QCOMPARE(plot.legend->itemCount(), 3);
    plot.legend->item(1)->setSelectable(false);
    const QSize before = plot.legend->item(2)->minimumOuterSizeHint();
    plot.replot(); // placeLegendAbove() swaps the plain entries before the layout
    QCOMPARE(plot.legend->itemCount(), 3);
    for (int i = 0; i < 3; ++i) {
        auto *item = qobject_cast<QCPPlottableLegendItem *>(plot.legend->item(i));
        QVERIFY(item);
        QCOMPARE(item->plottable(), graphs[i]); // same order, same plottables
        QCOMPARE(item->font(), plot.legend->font());
    }
    QVERIFY(!plot.legend->item(1)->selectable());
    QCOMPARE(plot.legend->item(2)->minimumOuterSizeHint(), before);
    // addToLegend() does not list a plottable twice.
    addToLegend(graphs[0]);
    QCOMPARE(plot.legend->itemCount(), 3);
}

void TestLegendEntries::sizesFollowNameAndFont()
{
    QCustomPlot plot;
    placeLegendAbove(&plot, 4, 12);
    plot.setAutoAddPlottableToLegend(false);
    QCPGraph *g = plot.addGraph();
    g->setName(QStringLiteral("GPU"));
    addToLegend(g);
    QCPAbstractLegendItem *entry = plot.legend->item(0);
    QVERIFY(entry);
    const QSize shortName = entry->minimumOuterSizeHint();
    QCOMPARE(shortName, plainSize(plot.legend, g));
    QCOMPARE(entry->minimumOuterSizeHint(), shortName); // asked again: the same

    g->setName(QStringLiteral("Fastest for its memory (Pareto frontier)"));
    const QSize longName = entry->minimumOuterSizeHint();
    QCOMPARE(longName, plainSize(plot.legend, g));
    QVERIFY(longName.width() > 3 * shortName.width());

    QFont big = plot.legend->font();
    big.setPointSizeF(big.pointSizeF() * 2);
    plot.legend->setFont(big); // QCPLegend passes it to every entry
    const QSize bigFont = entry->minimumOuterSizeHint();
    QCOMPARE(bigFont, plainSize(plot.legend, g));
    QVERIFY(bigFont.width() > longName.width());

    plot.legend->setIconSize(40, 60); // taller than the text: the icon sets the height
    QCOMPARE(entry->minimumOuterSizeHint(), plainSize(plot.legend, g));
    QCOMPARE(entry->minimumOuterSizeHint().height(), 60);
}

QTEST_MAIN(TestLegendEntries)
#include "test_legendentries.moc"
