#include "exportcommand.h"

#include "chartexport.h"
#include "chartregistry.h"
#include "commandline.h"
#include "exportrequest.h"
#include "htmlexport.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "session.h"

#include <QApplication>
#include <QCoreApplication>
#include <memory>
#include <variant>

namespace shardscope {

namespace {

/// The window's tab (--view) that shows chart `chart`: the stage chart is on the pipeline
/// tab and the step-time bar under the memory bars.
QString viewOfChart(const QString &chart)
{
    if (chart == QStringLiteral("stages"))
        return QStringLiteral("timeline");
    if (chart == QStringLiteral("steptime"))
        return QStringLiteral("memory");
    return chart;
}

} // namespace

int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    // The arguments, checked without drawing (app/exportrequest.h).
    ExportChoices choices;
    choices.chartIds = chartIdList();
    choices.isChart = [](const QString &id) { return findChart(id) != nullptr; };
    choices.isFormat = [](const QString &file) { return exportFormatFor(file).has_value(); };
    choices.minWidth = minExportWidth;
    choices.minHeight = minExportHeight;
    choices.maxSide = maxExportSide;
    auto parsed = parseExportArguments(args, choices, out, err);
    if (const int *code = std::get_if<int>(&parsed))
        return *code;
    const ExportRequest &request = std::get<ExportRequest>(parsed);
    const ScenarioDocument &doc = request.doc;
    const ChartEntry *entry = findChart(request.chart);
    const QString &file = request.file;
    auto fail = [&err](const QString &message, int code = 2) {
        return subcommandError(err, QStringLiteral("export"), message, code);
    };
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return fail(QStringLiteral("export needs a QApplication"));
    QString error;
    printNotes(err, request.notes); // what a --launch-config could not say
    ExportOptions o;
    o.size = request.size;

    // The chart as the window draws it, from a Session of its own (ui/charts/chartregistry.h).
    Session session(Catalog::builtIn());
    session.setScenario(doc.scenario);
    session.setUnit(doc.unit);
    session.setSweepAxis(request.sweep);
    o.caption = request.caption.value_or(scenarioCaption(doc.scenario));
    o.title = request.title ? *request.title : entry->slideTitle(session);
    if (request.format == QStringLiteral("html")) {
        // The page: the chart as SVG, its numbers, and the lines that reproduce it.
        const QString axis = toQString(sweepAxisId(request.sweep));
        const QString chart = entry->id;
        const CommandLine window = windowCommandLine(
            doc.scenario, doc.unit,
            {viewOfChart(chart), false, chart == QStringLiteral("sweep") ? axis : QString()});
        CommandLine again = exportCommandLine(doc.scenario, doc.unit, chart,
                                              chart == QStringLiteral("sweep") ? axis : QString(),
                                              QStringLiteral("html"), file);
        if (request.title)
            again.words << QStringLiteral("--title") << *request.title;
        if (request.caption)
            again.words << QStringLiteral("--caption") << *request.caption;
        const QList<QPair<QString, QString>> commands{
            {QStringLiteral("Open this view in ShardScope"), window.text()},
            {QStringLiteral("Print the report of these settings as text"),
             reportCommandLine(doc.scenario, doc.unit).text()},
            {QStringLiteral("Write this page again"), again.text()}};
        if (!exportHtml(*entry, &session, o, commands, window.notes, file, &error))
            return fail(error, 1);
        out << QStringLiteral("wrote %1\n").arg(terminalText(file));
        out.flush();
        return 0;
    }
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
