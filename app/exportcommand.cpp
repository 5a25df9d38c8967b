#include "exportcommand.h"

#include "chartexport.h"
#include "chartregistry.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "session.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>
#include <memory>

namespace shardscope {

int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(
        p, QStringLiteral("export"),
        QStringLiteral("Render a chart to a PNG, SVG or PDF slide, without a window."), options);
    const QCommandLineOption chart =
        valueOption("chart", chartIdList() + QStringLiteral(" (default memory)."), "name",
                    QStringLiteral("memory"));
    const QCommandLineOption outFile =
        valueOption("out", QStringLiteral("Output file: .png, .svg or .pdf."), "file");
    const QCommandLineOption size =
        valueOption("size", QStringLiteral("WIDTHxHEIGHT in pixels (default 1920x1080)."), "size",
                    QStringLiteral("1920x1080"));
    const QCommandLineOption title =
        valueOption("title", QStringLiteral("Title line (default: the verdict)."), "text");
    const QCommandLineOption caption = valueOption(
        "caption", QStringLiteral("Caption line (default: the settings; empty for none)."), "text");
    p.addOptions({chart, outFile, size, title, caption});

    auto fail = [&err](const QString &message, int code = 2) {
        return subcommandError(err, QStringLiteral("export"), message, code);
    };
    if (const auto done = startSubcommand(p, args, QStringLiteral("export"), out, err))
        return *done;
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return fail(QStringLiteral("export needs a QApplication"));

    // What to draw.
    QString error;
    // --scenario FILE, with any scenario flags given beside it applied over it.
    QStringList notes;
    const auto loaded = options.document(p, &error, true, &notes);
    if (!loaded)
        return fail(error);
    printNotes(err, notes); // what a --launch-config could not say
    const ScenarioDocument doc = *loaded;
    const ChartEntry *entry = findChart(p.value(chart));
    if (!entry)
        return fail(
            QStringLiteral("--chart must be %1 (got '%2')").arg(chartIdList(), p.value(chart)));

    // Where and how big.
    if (!p.isSet(outFile) || p.value(outFile).isEmpty())
        return fail(QStringLiteral("--out FILE is required (a .png, .svg or .pdf file)"));
    const QString file = p.value(outFile);
    if (!exportFormatFor(file))
        return fail(QStringLiteral("--out must end in .png, .svg or .pdf (got '%1')").arg(file));
    static const QRegularExpression sizePattern(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    const auto m = sizePattern.match(p.value(size).toLower());
    ExportOptions o;
    o.size = m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
    if (o.size.width() < minExportSide || o.size.height() < minExportSide ||
        o.size.width() > maxExportSide || o.size.height() > maxExportSide)
        return fail(QStringLiteral("--size must be WIDTHxHEIGHT from %1x%1 to %2x%2 (got '%3')")
                        .arg(minExportSide)
                        .arg(maxExportSide)
                        .arg(p.value(size)));

    // The chart as the window draws it, from a Session of its own (ui/charts/chartregistry.h).
    Session session(Catalog::builtIn());
    session.setScenario(doc.scenario);
    session.setUnit(doc.unit);
    o.caption = p.isSet(caption) ? p.value(caption) : scenarioCaption(doc.scenario);
    o.title = p.isSet(title) ? p.value(title) : entry->slideTitle(session);
    const std::unique_ptr<ChartView> view =
        makeOffscreenChart(*entry, &session, exportLayoutSize(o.size));
    const bool ok = view->exportSlide(file, o, &error);
    if (!ok)
        return fail(error, 1);
    out << QStringLiteral("wrote %1 (%2x%3)\n")
               .arg(terminalText(file))
               .arg(o.size.width())
               .arg(o.size.height());
    out.flush();
    return 0;
}

} // namespace shardscope
