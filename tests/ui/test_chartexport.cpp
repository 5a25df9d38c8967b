// Exporting charts for slides: exact PNG sizes, SVG and PDF that parse, the title and
// caption drawn and removed again, slide-sized type, the clipboard, and the caption text.
#include "../svgimage.h"
#include "../testsupport.h"
#include "catalog.h"
#include "chartexport.h"
#include "comparechart.h"
#include "estimate.h"
#include "memorychart.h"
#include "palette.h"
#include "session.h"
#include "timelinepanel.h"
#include "timelineview.h"

#include <QClipboard>
#include <QFile>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QLabel>
#include <QLocale>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QVBoxLayout>
#include <QXmlStreamReader>
#include <qcustomplot.h>

using namespace shardscope;

namespace {

using test::llama70bPipeline;
using test::plain70bStates;

QByteArray fileBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The memory chart of `s` exported to a `size` slide `name` (its ending picks PNG, SVG or
/// PDF) in a fresh folder, titled `title` and captioned with the settings: the file's
/// bytes, or empty with `*error` saying why.
QByteArray exportedSlide(const Scenario &s, const char *name, QSize size, const QString &title,
                         QString *error)
{
    MemoryChart chart;
    chart.setReport(s, estimate(s), ByteUnit::GB);
    QTemporaryDir dir;
    const QString file = dir.filePath(QLatin1String(name));
    if (!exportPlot(chart.plot(), file, {size, title, scenarioCaption(s)}, error))
        return {};
    return fileBytes(file);
}

/// Pixels of `image` within `tolerance` of `colour` in each channel.
int countColour(const QImage &image, const QColor &colour, int tolerance = 6)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x)
            if (std::abs(qRed(line[x]) - colour.red()) <= tolerance &&
                std::abs(qGreen(line[x]) - colour.green()) <= tolerance &&
                std::abs(qBlue(line[x]) - colour.blue()) <= tolerance)
                ++n;
    }
    return n;
}

/// Dark pixels in rows [y0, y1): text drawn there.
int inkInRows(const QImage &image, int y0, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = 0; x < image.width(); ++x)
            if (qGray(image.pixel(x, y)) < 100)
                ++n;
    return n;
}

} // namespace

class TestChartExport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void pngHasExactSize_data();
    void pngHasExactSize();
    void titleCaptionAndColours();
    void layoutRestoredAfterExport();
    void slideSizedType();
    void svgParses();
    void pdfIsPdf();
    void compareChartExports();
    void widgetExport();
    void widgetPlotsStayVector();
    void timelineSlideIsVector();
    void clipboard();
    void refusesBadNamesAndSizes();
    void caption();
};

void TestChartExport::pngHasExactSize_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1080p") << QSize(1920, 1080);
    QTest::newRow("4K") << QSize(3840, 2160);
    QTest::newRow("odd") << QSize(1001, 777);
    QTest::newRow("small") << QSize(640, 400);
}

void TestChartExport::pngHasExactSize()
{
    QFETCH(QSize, size);
    QString error;
    const QByteArray bytes = exportedSlide(plain70bStates(64, ZeroStage::Ddp), "slide.png", size,
                                           QStringLiteral("DDP"), &error);
    QVERIFY2(!bytes.isEmpty(), qPrintable(error));
    QCOMPARE(QImage::fromData(bytes).size(), size);
    // Non-trivial: a drawn chart compresses to far more than a blank page.
    QVERIFY(bytes.size() > 10'000);
}

void TestChartExport::titleCaptionAndColours()
{
    MemoryChart chart;
    const Scenario s = plain70bStates(64, ZeroStage::Ddp);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    const QSize size(1920, 1080);
    const QImage plain = renderPlot(chart.plot(), {size, QString(), QString()});
    const QImage titled =
        renderPlot(chart.plot(), {size, QStringLiteral("Overflows"), scenarioCaption(s)});
    QCOMPARE(titled.size(), size);
    // The title is a band of text at the top, the caption one at the bottom: both
    // bands have text and differ from the undecorated rendering there.
    QVERIFY(inkInRows(titled, 0, 60) > 2000);
    QVERIFY(inkInRows(titled, 1030, 1080) > 1000);
    QVERIFY(plain.copy(0, 0, 1920, 60) != titled.copy(0, 0, 1920, 60));
    QVERIFY(plain.copy(0, 1030, 1920, 50) != titled.copy(0, 1030, 1920, 50));
    // Every component drawn is in its legend colour (Okabe-Ito, ui/charts/palette.h).
    for (Component c : {Component::Weights, Component::Gradients, Component::MasterWeights,
                        Component::OptimizerStates})
        QVERIFY2(countColour(titled, componentColor(c)) > 2000,
                 qPrintable(QString::fromStdString(componentName(c))));
    QCOMPARE(countColour(titled, componentColor(Component::Activations), 2), 0);
}

void TestChartExport::layoutRestoredAfterExport()
{
    MemoryChart chart;
    const Scenario s = plain70bStates(8, ZeroStage::Zero3);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    QCustomPlot *plot = chart.plot();
    const int rows = plot->plotLayout()->rowCount();
    const int elements = plot->plotLayout()->elementCount();
    const int items = plot->itemCount();
    plot->xAxis->setSelectableParts(QCPAxis::spAxis);
    plot->xAxis->setSelectedParts(QCPAxis::spAxis);
    QVERIFY(plot->selectedAxes().size() == 1);
    QString error;
    QTemporaryDir dir;
    QVERIFY(exportPlot(plot, dir.filePath(QStringLiteral("a.pdf")),
                       {QSize(1920, 1080), QStringLiteral("T"), QStringLiteral("C")}, &error));
    QCOMPARE(plot->plotLayout()->rowCount(), rows);
    QCOMPARE(plot->plotLayout()->elementCount(), elements);
    QCOMPARE(plot->itemCount(), items);
    // Exports never show a selection.
    QVERIFY(plot->selectedAxes().isEmpty());
}

void TestChartExport::slideSizedType()
{
    MemoryChart chart;
    const QSize size(1920, 1080);
    QCOMPARE(exportScale(size), 1.5);
    QCOMPARE(exportLayoutSize(size), QSize(1280, 720));
    QCOMPARE(exportLayoutSize(QSize(3840, 2160)), QSize(1280, 720));
    QCOMPARE(exportLayoutSize(QSize(640, 400)), QSize(640, 400));
    // Axis tick labels and titles are at least 20 px tall on a 1080p slide.
    const QImage device(1, 1, QImage::Format_ARGB32_Premultiplied);
    for (const QFont &f :
         {chart.plot()->xAxis->tickLabelFont(), chart.plot()->yAxis->labelFont()}) {
        const double px = f.pointSizeF() * device.logicalDpiY() / 72.0 * exportScale(size);
        QVERIFY2(px >= 20, qPrintable(QString::number(px)));
    }
}

void TestChartExport::svgParses()
{
    QString error;
    const QByteArray bytes = exportedSlide(plain70bStates(64, ZeroStage::Zero3), "slide.svg",
                                           QSize(1920, 1080), QStringLiteral("Fits"), &error);
    QVERIFY2(!bytes.isEmpty(), qPrintable(error));
    QVERIFY(bytes.size() > 10'000);
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd() && !xml.isStartElement())
        xml.readNext();
    QCOMPARE(xml.name().toString(), QStringLiteral("svg"));
    QVERIFY(!xml.attributes().value(QStringLiteral("width")).isEmpty());
    QVERIFY(!xml.attributes().value(QStringLiteral("height")).isEmpty());
    QCOMPARE(xml.attributes().value(QStringLiteral("viewBox")).toString(),
             QStringLiteral("0 0 1920 1080"));
    while (!xml.atEnd())
        xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    // The text is real text (vector), including the caption and the bars' totals.
    QVERIFY(bytes.contains("17.5 GB"));
    QVERIFY(bytes.contains("model states only"));
    QSvgRenderer renderer(bytes);
    QVERIFY(renderer.isValid());
    QCOMPARE(renderer.viewBox(), QRect(0, 0, 1920, 1080));
}

void TestChartExport::pdfIsPdf()
{
    QString error;
    const QByteArray bytes = exportedSlide(llama70bPipeline(), "slide.pdf", QSize(1920, 1080),
                                           QStringLiteral("Stages"), &error);
    QVERIFY2(!bytes.isEmpty(), qPrintable(error));
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY(bytes.size() > 5'000);
    // A 16:9 page: 1280 x 720 px at 96 dpi = 960 x 540 pt.
    QVERIFY(bytes.contains("/MediaBox [0 0 960.000000 540.000000]"));
}

void TestChartExport::compareChartExports()
{
    CompareChart chart;
    chart.setScenario(plain70bStates(64, ZeroStage::Zero3), ByteUnit::GB);
    QTemporaryDir dir;
    QString error;
    for (const char *name : {"c.png", "c.svg", "c.pdf"})
        QVERIFY2(exportPlot(chart.plot(), dir.filePath(QLatin1String(name)),
                            {QSize(3840, 2160), QStringLiteral("Strategies"), QStringLiteral("x")},
                            &error),
                 qPrintable(error));
    const QImage image(dir.filePath(QStringLiteral("c.png")));
    QCOMPARE(image.size(), QSize(3840, 2160));
    QVERIFY(countColour(image, componentColor(Component::OptimizerStates)) > 10'000);
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("c.svg"))).contains("293.1 GB"));
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("c.pdf"))).startsWith("%PDF"));
}

void TestChartExport::widgetExport()
{
    // Any widget, e.g. the timeline panel: a plain coloured one stands in.
    QLabel widget(QStringLiteral("timeline"));
    widget.setAutoFillBackground(true);
    QPalette pal = widget.palette();
    pal.setColor(QPalette::Window, QColor(0x00, 0x72, 0xB2));
    widget.setPalette(pal);
    widget.resize(800, 450);
    const ExportOptions o{QSize(1920, 1080), QStringLiteral("Timeline"), QStringLiteral("caption")};
    const QImage image = renderWidget(&widget, o);
    QCOMPARE(image.size(), QSize(1920, 1080));
    // Scaled to fit between the title and caption bands.
    QVERIFY(countColour(image, QColor(0x00, 0x72, 0xB2)) > 1920 * 1080 / 2);
    QTemporaryDir dir;
    QString error;
    for (const char *name : {"w.png", "w.svg", "w.pdf"})
        QVERIFY2(exportWidget(&widget, dir.filePath(QLatin1String(name)), o, &error),
                 qPrintable(error));
    QCOMPARE(QImage(dir.filePath(QStringLiteral("w.png"))).size(), QSize(1920, 1080));
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("w.svg"))).contains("<svg"));
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("w.pdf"))).startsWith("%PDF"));
}

void TestChartExport::widgetPlotsStayVector()
{
    // A panel like the timeline's: a label over a QCustomPlot. Rendered as a widget the
    // plot would paint its cached pixmap (review finding: the timeline PDF was a raster);
    // exported, the PDF holds no image wider than a hatch brush's 8 x 8 tile and the SVG
    // no <image> at all, with the plot's axis label as text.
    QWidget panel;
    auto *layout = new QVBoxLayout(&panel);
    layout->addWidget(new QLabel(QStringLiteral("Bubble 12%")));
    auto *plot = new QCustomPlot;
    plot->addGraph()->setData({0, 1, 2}, {1, 3, 2});
    plot->xAxis->setLabel(QStringLiteral("vectoraxislabel"));
    layout->addWidget(plot);
    panel.resize(800, 450);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    plot->replot();
    QTemporaryDir dir;
    QString error;
    const ExportOptions o{QSize(1920, 1080), QStringLiteral("Timeline"), QString()};
    QVERIFY2(exportWidget(&panel, dir.filePath(QStringLiteral("p.pdf")), o, &error),
             qPrintable(error));
    QVERIFY2(exportWidget(&panel, dir.filePath(QStringLiteral("p.svg")), o, &error),
             qPrintable(error));
    const QByteArray pdf = fileBytes(dir.filePath(QStringLiteral("p.pdf")));
    QVERIFY(pdf.startsWith("%PDF"));
    static const QRegularExpression width(QStringLiteral("/Width (\\d+)"));
    for (auto m = width.globalMatch(QString::fromLatin1(pdf)); m.hasNext();) {
        const int w = m.next().captured(1).toInt();
        QVERIFY2(w <= 8, qPrintable(QStringLiteral("a %1 px wide image in the PDF").arg(w)));
    }
    const QByteArray svg = fileBytes(dir.filePath(QStringLiteral("p.svg")));
    QVERIFY(svg.contains("<svg"));
    QVERIFY(!svg.contains("<image"));
    QVERIFY(svg.contains("vectoraxislabel"));
    QVERIFY(svg.contains("Bubble 12%"));
}

void TestChartExport::timelineSlideIsVector()
{
    // The Pipeline tab's slide (`shardscope export --chart timeline`), ZB-H1 so that the
    // W blocks' hatch shows too: its blocks are cached pixmaps on screen, drawn as shapes
    // in an export, and the hatches as lines. Neither the PDF nor the SVG holds an image,
    // and the SVG drawn back shows as much of micro-batch 1's backward colour as the PNG
    // export (within 10%).
    Session session(Catalog::builtIn());
    session.edit([](Scenario &s) {
        s.layout.pipelineParallel = 4;
        s.training.microBatches = 8;
        s.training.schedule = PipelineSchedule::ZeroBubbleH1;
    });
    TimelinePanel panel(&session);
    panel.resize(1280, 720);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTest::qWait(200); // the deferred redraws
    QTemporaryDir dir;
    QString error;
    const ExportOptions o{QSize(1920, 1080), QStringLiteral("Timeline"), QString()};
    for (const char *name : {"t.pdf", "t.svg", "t.png"})
        QVERIFY2(panel.exportSlide(dir.filePath(QLatin1String(name)), o, &error),
                 qPrintable(error));
    const QByteArray pdf = fileBytes(dir.filePath(QStringLiteral("t.pdf")));
    QVERIFY(pdf.startsWith("%PDF"));
    QVERIFY(!pdf.contains("/Subtype /Image"));
    const QByteArray svg = fileBytes(dir.filePath(QStringLiteral("t.svg")));
    QVERIFY(!svg.contains("<image"));
    const QImage drawn =
        test::svgOnWhite(svg, QSize(1920, 1080), QImage::Format_ARGB32_Premultiplied);
    QVERIFY2(!drawn.isNull(), "QSvgRenderer cannot read the slide's SVG");
    if (const QByteArray out = qgetenv("SHARDSCOPE_TEST_OUT"); !out.isEmpty())
        drawn.save(QString::fromLocal8Bit(out) + QStringLiteral("/timeline-svg.png"));
    const QImage png(dir.filePath(QStringLiteral("t.png")));
    if (const QByteArray out = qgetenv("SHARDSCOPE_TEST_OUT"); !out.isEmpty())
        png.save(QString::fromLocal8Bit(out) + QStringLiteral("/timeline.png"));
    const QColor blue = TimelineView::microBatchColor(0);
    const int expected = countColour(png, blue), got = countColour(drawn, blue);
    QVERIFY2(expected > 5000, qPrintable(QString::number(expected)));
    QVERIFY2(std::abs(got - expected) < expected / 10,
             qPrintable(QStringLiteral("%1 against %2").arg(got).arg(expected)));
}

void TestChartExport::clipboard()
{
    MemoryChart chart;
    const Scenario s = plain70bStates(64, ZeroStage::Zero3);
    chart.setReport(s, estimate(s), ByteUnit::GB);
    chart.copySlide({QSize(1920, 1080), QStringLiteral("T"), QString()});
    QCOMPARE(QGuiApplication::clipboard()->image().size(), QSize(1920, 1080));
    // A panel chart's slide is the whole panel, without its live controls, which come back.
    Session session(Catalog::builtIn());
    TimelinePanel panel(&session);
    panel.resize(900, 600);
    panel.copySlide({QSize(1280, 720), QString(), QString()});
    QCOMPARE(QGuiApplication::clipboard()->image().size(), QSize(1280, 720));
    QVERIFY(panel.controlsShown());
}

void TestChartExport::refusesBadNamesAndSizes()
{
    MemoryChart chart;
    QTemporaryDir dir;
    QString error;
    QVERIFY(!exportPlot(chart.plot(), dir.filePath(QStringLiteral("a.jpg")), {}, &error));
    QCOMPARE(error, QStringLiteral("a.jpg: the file name must end in .png, .svg or .pdf"));
    QVERIFY(!exportPlot(chart.plot(), dir.filePath(QStringLiteral("a.png")),
                        {QSize(100, 50), QString(), QString()}, &error));
    QVERIFY(error.startsWith(QStringLiteral("export size 100x50 is outside")));
    QVERIFY(
        !exportPlot(chart.plot(), dir.filePath(QStringLiteral("no/such/dir/a.png")), {}, &error));
    QVERIFY(error.startsWith(QStringLiteral("cannot write ")));
    QCOMPARE(exportFormatFor(QStringLiteral("x.SVG")), ExportFormat::Svg);
    QCOMPARE(exportFormatFor(QStringLiteral("x.pdf")), ExportFormat::Pdf);
    QVERIFY(!exportFormatFor(QStringLiteral("png")));
}

void TestChartExport::caption()
{
    QCOMPARE(scenarioCaption(plain70bStates(64, ZeroStage::Zero3)),
             QStringLiteral("70B params (plain count) · 64 × H100 80 GB · d 64 · ZeRO-3 / FSDP · "
                            "Mixed-precision AdamW, 16 B/param · model states only"));
    QCOMPARE(scenarioCaption(llama70bPipeline()),
             QStringLiteral("Llama 3 70B (70.6B params) · 64 × H100 80 GB · t 8, p 4, d 2 · "
                            "ZeRO-1 · Mixed-precision AdamW, 16 B/param · b 1, s 4096, m 16, "
                            "1F1B, selective recompute"));
    Scenario s = plain70bStates(8, ZeroStage::Zero3);
    s.gpu = *Catalog::builtIn().gpu("a100-40gb");
    s.layout.offload = Offload::Optimizer;
    s.recipe = Recipe{"custom", "Custom", "", 2, 2, 0, 8};
    QCOMPARE(scenarioCaption(s),
             QStringLiteral("70B params (plain count) · 8 × A100 40GB · d 8 · ZeRO-3 / FSDP + "
                            "optimizer offload · Custom, 12 B/param · model states only"));
}

QTEST_MAIN(TestChartExport)
#include "test_chartexport.moc"
