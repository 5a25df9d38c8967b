#include "htmlexport.h"

#include "chartregistry.h"
#include "format.h"
#include "qtext.h"
#include "reporttable.h"
#include "scenariofile.h"
#include "session.h"

#include <QLocale>
#include <QSaveFile>
#include <algorithm>

namespace shardscope {

namespace {

const QString dash = QStringLiteral("–");

QString unitText(ByteUnit unit)
{
    return QString::fromStdString(unitName(unit));
}

/// Bytes in `unit` with one decimal, as ReportTable::text() writes a byte column.
QString bytesCell(std::int64_t bytes, ByteUnit unit)
{
    return QString::number(double(bytes) / double(unitBytes(unit)), 'f', 1);
}

NumbersText reportNumbers(const Session &session)
{
    const ByteUnit unit = session.unit();
    const MemoryReport &r = session.report();
    NumbersText n;
    if (!r.valid()) {
        n.caption = toQString(r.error);
        return n;
    }
    const ReportTable t = reportTable(session.scenario(), r, unit);
    const QString capacity = QStringLiteral("Capacity (%1)").arg(unitText(unit));
    n.caption = unit == ByteUnit::GB ? QStringLiteral("Per GPU, in GB (10^9 bytes), by group of "
                                                      "GPUs that hold the same bytes")
                                     : QStringLiteral("Per GPU, in GiB (2^30 bytes), by group of "
                                                      "GPUs that hold the same bytes");
    // The total's column is 9: the capacity goes right after it.
    for (int c = 0; c < ReportTable::columnCount; ++c) {
        n.headers << t.headers.value(c);
        if (c == 9)
            n.headers << capacity;
    }
    for (std::size_t row = 0; row < t.values.size(); ++row) {
        QStringList cells;
        for (int c = 0; c < ReportTable::columnCount; ++c) {
            cells << t.text(row, c);
            if (c == 9)
                cells << bytesCell(r.capacityBytes, unit);
        }
        n.rows << cells;
    }
    return n;
}

NumbersText compareNumbers(const Session &session)
{
    const ByteUnit unit = session.unit();
    const QString u = unitText(unit);
    NumbersText n;
    n.caption = QStringLiteral("The busiest GPU under each strategy, in %1").arg(u);
    n.headers << QStringLiteral("Strategy");
    for (int c = 0; c < componentCount; ++c)
        n.headers << QStringLiteral("%1 (%2)").arg(toQString(componentName(Component(c))), u);
    n.headers << QStringLiteral("Total (%1)").arg(u) << QStringLiteral("Capacity (%1)").arg(u)
              << QStringLiteral("Fits") << QStringLiteral("Adjusted");
    for (const StrategyVariant &v : session.comparison()) {
        QStringList cells{toQString(zeroStageName(v.scenario.layout.zeroStage))};
        const GpuGroup *peak = v.report.valid() ? v.report.peakGroup() : nullptr;
        for (int c = 0; c < componentCount; ++c)
            cells << (peak ? bytesCell(componentValue(peak->bytes, Component(c)), unit) : dash);
        cells << (peak ? bytesCell(peak->totalBytes(), unit) : dash)
              << (v.report.valid() ? bytesCell(v.report.capacityBytes, unit) : dash)
              << (v.report.valid()
                      ? (v.report.fits() ? QStringLiteral("yes") : QStringLiteral("no"))
                      : toQString(v.report.error));
        QStringList adjusted;
        for (const std::string &a : v.adjustments)
            adjusted << toQString(a);
        cells << (adjusted.isEmpty() ? dash : adjusted.join(QStringLiteral(", ")));
        n.rows << cells;
    }
    return n;
}

NumbersText sweepNumbers(const Session &session)
{
    const ByteUnit unit = session.unit();
    const QString u = unitText(unit);
    const StrategySweep &sweep = session.sweep();
    NumbersText n;
    n.caption = QStringLiteral("Peak memory of the busiest GPU, in %1").arg(u);
    n.headers << toQString(sweepAxisTitle(sweep.axis));
    for (const ZeroStage z : {ZeroStage::Ddp, ZeroStage::Zero1, ZeroStage::Zero2, ZeroStage::Zero3})
        n.headers << QStringLiteral("%1 (%2)").arg(toQString(zeroStageName(z)), u);
    n.headers << QStringLiteral("Capacity (%1)").arg(u);
    const QLocale english(QLocale::English);
    for (std::size_t i = 0; i < sweep.values.size(); ++i) {
        QStringList cells{english.toString(qlonglong(sweep.values[i]))};
        for (const auto &peaks : sweep.peakBytes)
            cells << (i < peaks.size() && peaks[i] ? bytesCell(*peaks[i], unit) : dash);
        cells << bytesCell(sweep.capacityBytes, unit);
        n.rows << cells;
    }
    return n;
}

NumbersText stepTimeNumbers(const Session &session)
{
    const StepTime &t = session.stepTime();
    NumbersText n;
    if (!t.valid()) {
        n.caption = toQString(t.error);
        return n;
    }
    n.caption = QStringLiteral("One training step");
    n.headers << QStringLiteral("Part") << QStringLiteral("Value");
    const auto seconds = [](double s) { return QString::number(s, 'f', 3); };
    const std::pair<const char *, double> parts[] = {{"Forward (s)", t.forwardSeconds},
                                                     {"Backward (s)", t.backwardSeconds},
                                                     {"Recompute (s)", t.recomputeSeconds},
                                                     {"Pipeline bubble (s)", t.bubbleSeconds},
                                                     {"Optimizer (s)", t.optimizerSeconds},
                                                     {"CPU offload (s)", t.offloadSeconds},
                                                     {"Step (s)", t.stepSeconds}};
    for (const auto &[name, value] : parts)
        n.rows << QStringList{QString::fromLatin1(name), seconds(value)};
    const QLocale english(QLocale::English);
    n.rows << QStringList{QStringLiteral("MFU"), QString::number(t.mfu * 100, 'f', 1) + u'%'};
    n.rows << QStringList{QStringLiteral("Tokens per second"),
                          english.toString(t.tokensPerSecond, 'f', 0)};
    return n;
}

QString escaped(const QString &text)
{
    return text.toHtmlEscaped();
}

/// The <svg> element of an SVG document: what follows its XML prolog and doctype.
QByteArray svgElement(const QByteArray &document)
{
    const qsizetype start = document.indexOf("<svg");
    return start < 0 ? QByteArray() : document.mid(start).trimmed();
}

const char *const styleSheet =
    "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "margin:2em auto;max-width:1200px;padding:0 1em;color:#1a1a1a;background:#fff}"
    "h1{font-size:1.6em;margin-bottom:.2em}"
    ".caption{color:#555;margin-top:0}"
    "figure{margin:1em 0}"
    "figure svg{width:100%;height:auto;border:1px solid #ddd}"
    "table{border-collapse:collapse;margin:1em 0;font-variant-numeric:tabular-nums}"
    "caption{text-align:left;color:#555;padding-bottom:.3em}"
    "th,td{border:1px solid #ccc;padding:.25em .6em}"
    "td{text-align:right}td:first-child{text-align:left}"
    "th{background:#f3f3f3}"
    "pre{background:#f6f6f6;border:1px solid #ddd;padding:.6em;white-space:pre-wrap;"
    "word-break:break-all}"
    ".notes{color:#8a4b00}";

} // namespace

NumbersText chartNumbers(const QString &chartId, const Session &session)
{
    const QString id = chartId.toLower();
    if (id == QStringLiteral("compare"))
        return compareNumbers(session);
    if (id == QStringLiteral("sweep"))
        return sweepNumbers(session);
    if (id == QStringLiteral("steptime"))
        return stepTimeNumbers(session);
    return reportNumbers(session); // memory, stages, timeline: the report's groups
}

QByteArray htmlDocument(const HtmlSlide &slide)
{
    QString h;
    h += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                        "<meta name=\"viewport\" content=\"width=device-width, "
                        "initial-scale=1\"/>\n");
    h += QStringLiteral("<meta name=\"generator\" content=\"ShardScope\"/>\n");
    h += QStringLiteral("<title>%1</title>\n").arg(escaped(slide.title));
    h += QStringLiteral("<style>%1</style>\n</head>\n<body>\n").arg(QLatin1String(styleSheet));
    h += QStringLiteral("<h1>%1</h1>\n").arg(escaped(slide.title));
    if (!slide.caption.isEmpty())
        h += QStringLiteral("<p class=\"caption\">%1</p>\n").arg(escaped(slide.caption));
    QByteArray out = h.toUtf8();
    out += "<figure>\n";
    out += svgElement(slide.svg);
    out += "\n</figure>\n";

    h.clear();
    const NumbersText &n = slide.numbers;
    h += QStringLiteral("<h2>Numbers</h2>\n<table>\n<caption>%1</caption>\n")
             .arg(escaped(n.caption));
    if (!n.headers.isEmpty()) {
        h += QStringLiteral("<thead><tr>");
        for (const QString &header : n.headers)
            h += QStringLiteral("<th>%1</th>").arg(escaped(header));
        h += QStringLiteral("</tr></thead>\n");
    }
    h += QStringLiteral("<tbody>\n");
    for (const QStringList &row : n.rows) {
        h += QStringLiteral("<tr>");
        for (const QString &cell : row)
            h += QStringLiteral("<td>%1</td>").arg(escaped(cell));
        h += QStringLiteral("</tr>\n");
    }
    h += QStringLiteral("</tbody>\n</table>\n");
    if (!slide.commands.isEmpty()) {
        h += QStringLiteral("<h2>Reproduce it</h2>\n");
        for (const auto &[label, command] : slide.commands)
            h += QStringLiteral("<p>%1:</p>\n<pre><code>%2</code></pre>\n")
                     .arg(escaped(label), escaped(command));
    }
    if (!slide.notes.isEmpty()) {
        h += QStringLiteral("<ul class=\"notes\">\n");
        for (const QString &note : slide.notes)
            h += QStringLiteral("<li>%1</li>\n").arg(escaped(note));
        h += QStringLiteral("</ul>\n");
    }
    h += QStringLiteral("</body>\n</html>\n");
    out += h.toUtf8();
    return out;
}

bool exportHtml(const ChartEntry &entry, Session *session, const ExportOptions &options,
                const QList<QPair<QString, QString>> &commands, const QStringList &notes,
                const QString &fileName, QString *error)
{
    const std::unique_ptr<ChartView> view =
        makeOffscreenChart(entry, session, exportLayoutSize(options.size));
    HtmlSlide slide;
    slide.title = options.title;
    slide.caption = options.caption;
    // The page shows the title and caption as text; the picture holds the chart alone.
    ExportOptions bare = options;
    bare.title.clear();
    bare.caption.clear();
    slide.svg = view->slideSvg(bare);
    if (svgElement(slide.svg).isEmpty()) {
        *error = QStringLiteral("cannot draw the %1 chart as SVG").arg(entry.id);
        return false;
    }
    slide.numbers = chartNumbers(entry.id, *session);
    slide.commands = commands;
    slide.notes = notes;
    return writeBytesAtomically(fileName, htmlDocument(slide), error);
}

} // namespace shardscope
