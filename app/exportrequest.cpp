#include "exportrequest.h"

#include "inputfile.h"

#include <QCommandLineParser>
#include <QRegularExpression>

namespace shardscope {

std::variant<ExportRequest, int> parseExportArguments(const QStringList &args,
                                                      const ExportChoices &choices,
                                                      QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(
        p, QStringLiteral("export"),
        QStringLiteral("Render a chart to a PNG, SVG or PDF slide, or to one self-contained HTML "
                       "page (the chart as SVG, its numbers and the command line that "
                       "reproduces it), without a window."),
        options);
    const QCommandLineOption chart =
        valueOption("chart", choices.chartIds + QStringLiteral(" (default memory)."), "name",
                    QStringLiteral("memory"));
    const QCommandLineOption outFile =
        valueOption("out", QStringLiteral("Output file: .png, .svg, .pdf or .html."), "file");
    const QCommandLineOption format = valueOption(
        "format",
        QStringLiteral("png, svg, pdf or html (default: from --out's suffix). html writes one "
                       "self-contained page: the chart as SVG, the numbers behind it and the "
                       "command lines that reproduce it."),
        "format");
    const QCommandLineOption size =
        valueOption("size", QStringLiteral("WIDTHxHEIGHT in pixels (default 1920x1080)."), "size",
                    QStringLiteral("1920x1080"));
    const QCommandLineOption title =
        valueOption("title", QStringLiteral("Title line (default: the verdict)."), "text");
    const QCommandLineOption caption = valueOption(
        "caption", QStringLiteral("Caption line (default: the settings; empty for none)."), "text");
    const QCommandLineOption sweep = sweepAxisOption(QStringLiteral("the sweep chart"));
    p.addOptions({chart, outFile, format, size, title, caption, sweep});

    auto fail = [&err](const QString &message) {
        return subcommandError(err, QStringLiteral("export"), message, 2);
    };
    if (const auto done = startSubcommand(p, args, QStringLiteral("export"), out, err))
        return *done;

    // What to draw: --scenario FILE, with any scenario flags given beside it applied over it.
    QString error;
    ExportRequest r;
    const auto loaded = options.document(p, &error, true, &r.notes);
    if (!loaded)
        return fail(error);
    r.doc = *loaded;
    r.chart = p.value(chart);
    if (!choices.isChart(r.chart))
        return fail(QStringLiteral("--chart must be %1 (got '%2')").arg(choices.chartIds, r.chart));

    // Where and how big.
    if (!p.isSet(outFile) || p.value(outFile).isEmpty())
        return fail(QStringLiteral("--out FILE is required (a .png, .svg, .pdf or .html file)"));
    r.file = p.value(outFile);
    const QString suffix = r.file.mid(r.file.lastIndexOf(u'.') + 1).toLower();
    const bool htmlName = r.file.contains(u'.') &&
                          (suffix == QStringLiteral("html") || suffix == QStringLiteral("htm"));
    if (p.isSet(format)) {
        r.format = p.value(format).toLower();
        static const QStringList formats{QStringLiteral("png"), QStringLiteral("svg"),
                                         QStringLiteral("pdf"), QStringLiteral("html")};
        if (!formats.contains(r.format))
            return fail(QStringLiteral("--format must be png, svg, pdf or html (got '%1')")
                            .arg(p.value(format)));
        if (r.format != QStringLiteral("html") && (!choices.isFormat(r.file) || suffix != r.format))
            return fail(QStringLiteral("--out must end in .%1 for --format %1 (got '%2')")
                            .arg(r.format, r.file));
    } else if (htmlName) {
        r.format = QStringLiteral("html");
    } else if (choices.isFormat(r.file)) {
        r.format = suffix;
    } else {
        return fail(
            QStringLiteral("--out must end in .png, .svg, .pdf or .html (got '%1')").arg(r.file));
    }
    if (argumentLosesBytes(r.file))
        return fail(QStringLiteral("--out '%1' is not valid UTF-8, so it would be written under "
                                   "another name; choose a UTF-8 file name")
                        .arg(r.file));
    static const QRegularExpression sizePattern(QStringLiteral("^(\\d{1,5})x(\\d{1,5})$"));
    const auto m = sizePattern.match(p.value(size).toLower());
    r.size = m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
    if (r.size.width() < choices.minWidth || r.size.height() < choices.minHeight ||
        r.size.width() > choices.maxSide || r.size.height() > choices.maxSide)
        return fail(QStringLiteral("--size must be WIDTHxHEIGHT from %1x%2 to %3x%3 (got '%4')")
                        .arg(choices.minWidth)
                        .arg(choices.minHeight)
                        .arg(choices.maxSide)
                        .arg(p.value(size)));
    QString axisError;
    const auto parsedAxis = sweepAxisValue(p, sweep, &axisError);
    if (!parsedAxis)
        return fail(axisError);
    r.sweep = *parsedAxis;
    if (p.isSet(title))
        r.title = p.value(title);
    if (p.isSet(caption))
        r.caption = p.value(caption);
    return r;
}

ExportChoices standInExportChoices()
{
    ExportChoices c;
    c.chartIds = QStringLiteral("memory, timeline");
    c.isChart = [](const QString &id) {
        return id == QLatin1String("memory") || id == QLatin1String("timeline");
    };
    c.isFormat = [](const QString &file) {
        return file.endsWith(QLatin1String(".png")) || file.endsWith(QLatin1String(".svg")) ||
               file.endsWith(QLatin1String(".pdf"));
    };
    return c;
}

} // namespace shardscope
