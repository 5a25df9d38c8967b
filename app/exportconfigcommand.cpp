#include "exportconfigcommand.h"

#include "launchconfig.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"

#include <QCommandLineParser>

namespace shardscope {

int runExportConfigCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(p, QStringLiteral("export-config"),
                       QStringLiteral("Write the layout as a DeepSpeed, Accelerate (FSDP), "
                                      "torchtitan or Megatron-LM launch config."),
                       options);
    const QCommandLineOption format = valueOption(
        "format", QStringLiteral("deepspeed, accelerate, torchtitan or megatron."), "name");
    const QCommandLineOption outFile =
        valueOption("out", QStringLiteral("File to write (default: standard output)."), "file");
    p.addOptions({format, outFile});

    auto fail = [&err](const QString &message, int code = 2) {
        return subcommandError(err, QStringLiteral("export-config"), message, code);
    };
    if (const auto done = startSubcommand(p, args, QStringLiteral("export-config"), out, err))
        return *done;
    if (!p.isSet(format))
        return fail(
            QStringLiteral("--format is required: deepspeed, accelerate, torchtitan or megatron"));
    const auto f = parseLaunchFormat(p.value(format));
    if (!f)
        return fail(QStringLiteral("--format: unknown format '%1' (known: deepspeed, accelerate, "
                                   "torchtitan, megatron)")
                        .arg(p.value(format)));
    QString error;
    QStringList readNotes; // what a --launch-config could not say
    const auto s = options.scenario(p, &error, &readNotes);
    if (!s)
        return fail(error);
    printNotes(err, readNotes);
    const auto config = exportLaunchConfig(*s, *f, &error);
    if (!config)
        return fail(QStringLiteral("%1: %2").arg(launchFormatId(*f), error));
    if (p.isSet(outFile)) {
        if (!writeBytesAtomically(p.value(outFile), config->text, &error))
            return fail(error, 1);
    } else {
        out << terminalText(QString::fromUtf8(config->text), TextLines::Many);
        out.flush();
    }
    for (const QString &note : config->notes)
        err << "note: " << terminalText(note) << "\n";
    err.flush();
    return 0;
}

} // namespace shardscope
