#include "exportcommand.h"

#include "chartexport.h"
#include "chartregistry.h"
#include "exportrequest.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "session.h"

#include <QApplication>
#include <QCoreApplication>
#include <memory>
#include <variant>

namespace shardscope {

int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    // The arguments, checked without drawing (app/exportrequest.h).
    ExportChoices choices;
    choices.chartIds = chartIdList();
    choices.isChart = [](const QString &id) { return findChart(id) != nullptr; };
    choices.isFormat = [](const QString &file) { return exportFormatFor(file).has_value(); };
    choices.minSide = minExportSide;
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
