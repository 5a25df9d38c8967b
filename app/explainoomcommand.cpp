#include "explainoomcommand.h"

#include "estimate.h"
#include "inputfile.h"
#include "jsonvalues.h"
#include "plancommand.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonDocument>

namespace shardscope {

QJsonObject oomExplanationJson(const OomMessage &m, const OomExplanation &e)
{
    QJsonArray processes;
    for (const OomProcess &p : m.otherProcesses)
        processes.append(QJsonObject{{"pid", qint64(p.pid)}, {"bytes", qint64(p.bytes)}});
    const QJsonObject oom{
        {"wording", toQString(oomWordingId(m.wording))},
        {"device", m.device >= 0 ? QJsonValue(m.device) : QJsonValue(QJsonValue::Null)},
        {"tried_to_allocate_bytes", bytesOrNull(m.triedToAllocateBytes)},
        {"total_capacity_bytes", bytesOrNull(m.totalCapacityBytes)},
        {"free_bytes", bytesOrNull(m.freeBytes)},
        {"in_use_bytes", bytesOrNull(m.inUseBytes)},
        {"allocated_by_pytorch_bytes", bytesOrNull(m.allocatedByPytorchBytes)},
        {"reserved_unallocated_bytes", bytesOrNull(m.reservedUnallocatedBytes)},
        {"reserved_bytes", bytesOrNull(m.reservedBytes)},
        {"allowed_bytes", bytesOrNull(m.allowedBytes)},
        {"private_pool_bytes", bytesOrNull(m.privatePoolBytes)},
        {"other_processes", processes},
        {"messages_found", m.messagesFound},
        {"notes", stringArray(m.notes)}};
    const ComponentBytes &p = e.predicted;
    const QJsonObject prediction{{"peak_bytes", qint64(e.predictedPeakBytes)},
                                 {"capacity_bytes", qint64(e.predictedCapacityBytes)},
                                 {"weights_bytes", qint64(p.weights)},
                                 {"gradients_bytes", qint64(p.gradients)},
                                 {"master_weights_bytes", qint64(p.masterWeights)},
                                 {"optimizer_states_bytes", qint64(p.optimizerStates)},
                                 {"activations_bytes", qint64(p.activations)},
                                 {"buffers_bytes", qint64(p.buffers)},
                                 {"measured_bytes", bytesOrNull(e.measuredBytes)},
                                 {"measured_demand_bytes", bytesOrNull(e.measuredDemandBytes)}};
    const QJsonObject verdict{{"cause", toQString(oomCauseId(e.cause))},
                              {"text", toQString(e.verdict)},
                              {"advice", stringArray(e.advice)},
                              {"notes", stringArray(e.notes)}};
    QJsonArray suggestions;
    for (const OomSuggestion &g : e.suggestions) {
        QJsonObject o = planCandidateJson(g.candidate);
        o.insert("changes", stringArray(g.changes));
        suggestions.append(o);
    }
    return QJsonObject{{"oom", oom},
                       {"prediction", prediction},
                       {"verdict", verdict},
                       {"headroom_percent", e.headroomPercent},
                       {"suggestions", suggestions}};
}

int runExplainOomCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    const QString name = QStringLiteral("explain-oom");
    auto fail = [&err, &name](const QString &message) {
        return subcommandError(err, name, message);
    };
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(
        p, name,
        QStringLiteral("Explains PyTorch's \"CUDA out of memory\" message against the scenario "
                       "the flags describe: which part is over, and the layouts with the fewest "
                       "changed settings that fit."),
        options);
    const QCommandLineOption message = valueOption(
        "message", QStringLiteral("The out-of-memory message (or a traceback holding it)."),
        "text");
    const QCommandLineOption messageFile = valueOption(
        "message-file",
        QStringLiteral("A file holding the message: a log or traceback is fine (16 MiB at most)."),
        "file");
    const QCommandLineOption suggestions = valueOption(
        "suggestions",
        QStringLiteral("How many fitting layouts to suggest (default 3; 0: none, no search)."),
        "n");
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    p.addOptions({message, messageFile, suggestions, json});
    if (const auto done = startSubcommand(p, args, name, out, err))
        return *done;
    if (p.isSet(message) == p.isSet(messageFile))
        return fail(QStringLiteral("give the message with --message TEXT or --message-file FILE "
                                   "(one of them)"));
    QString error;
    std::int64_t keep = 3;
    if (p.isSet(suggestions) && !wholeNumberOption(p, suggestions, 0, 100, &keep, &error))
        return fail(error);
    QByteArray text;
    if (p.isSet(message)) {
        text = p.value(message).toUtf8();
    } else {
        const auto bytes = readInputFile(p.value(messageFile), &error);
        if (!bytes)
            return fail(error);
        text = *bytes;
    }
    const OomParse parse = parseOomMessage(std::string_view(text.constData(), text.size()));
    if (!parse.valid())
        return fail(QString::fromStdString(parse.error));
    const auto doc = options.document(p, &error);
    if (!doc)
        return fail(error);
    const Scenario &s = doc->scenario;
    const MemoryReport report = estimate(s);
    if (!report.valid())
        return fail(QStringLiteral("cannot estimate: ") + QString::fromStdString(report.error));
    const OomExplanation e =
        explainOom(*parse.message, s, report, doc->unit, keep > 0, std::size_t(keep));
    if (p.isSet(json)) {
        QJsonObject o = oomExplanationJson(*parse.message, e);
        o.insert("model", QString::fromStdString(s.model.id));
        o.insert("gpu", QString::fromStdString(s.gpu.id));
        o.insert("inputs", settingsToJson(s));
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        // The message and names come from outside: escaped on the way out.
        out << terminalText(toQString(oomExplanationText(*parse.message, e, s, doc->unit)),
                            TextLines::Many);
    }
    out.flush();
    return 0;
}

} // namespace shardscope
