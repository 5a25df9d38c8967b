#include "exportcommand.h"

#include "chartexport.h"
#include "comparechart.h"
#include "estimate.h"
#include "format.h"
#include "memorychart.h"
#include "qtext.h"
#include "reportcommand.h"
#include "scenariofile.h"
#include "session.h"
#include "timelinepanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <memory>

namespace shardscope {

namespace {

/// The timeline view to export for `s`: THE ONE PLACE the timeline hooks in. Return
/// the timeline panel (ui/timelinepanel.h), sized and set to `s`, once it can be built
/// without the main window; while this returns nullptr, `--chart timeline` exits 2
/// with "timeline export is not available yet".
std::unique_ptr<QWidget> makeTimelineWidget(const Scenario &s, ByteUnit unit, QSize logicalSize)
{
    auto holder = std::make_unique<QWidget>();
    auto *model = new Session(Catalog::builtIn(), holder.get());
    model->setScenario(s);
    model->setUnit(unit);
    auto *panel = new TimelinePanel(model, holder.get());
    auto *layout = new QVBoxLayout(holder.get());
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(panel);
    holder->resize(logicalSize);
    holder->setAttribute(Qt::WA_DontShowOnScreen); // laid out and polished, never on a screen
    holder->show();
    QCoreApplication::processEvents();
    panel->setPlayhead(panel->timeline().makespan); // the whole step
    QCoreApplication::processEvents();
    return holder;
}

} // namespace

int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(
        p, QStringLiteral("export"),
        QStringLiteral("Render a chart to a PNG, SVG or PDF slide, without a window."), options);
    const QCommandLineOption chart =
        valueOption("chart", QStringLiteral("memory (default), compare or timeline."), "name",
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
    const auto loaded = options.document(p, &error);
    if (!loaded)
        return fail(error);
    const ScenarioDocument doc = *loaded;
    const QString chartName = p.value(chart).toLower();
    if (chartName != QLatin1String("memory") && chartName != QLatin1String("compare") &&
        chartName != QLatin1String("timeline"))
        return fail(QStringLiteral("--chart must be memory, compare or timeline (got '%1')")
                        .arg(p.value(chart)));

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

    const Scenario &s = doc.scenario;
    const MemoryReport report = estimate(s);
    o.caption = p.isSet(caption) ? p.value(caption) : scenarioCaption(s);
    if (p.isSet(title))
        o.title = p.value(title);
    else if (chartName == QLatin1String("compare"))
        o.title = QStringLiteral("DDP, ZeRO-1, ZeRO-2 and ZeRO-3 on %1 × %2")
                      .arg(s.layout.gpus)
                      .arg(QString::fromStdString(s.gpu.shortName));
    else if (chartName == QLatin1String("timeline"))
        o.title = QStringLiteral("%1 pipeline, %2 stages, %3 micro-batches")
                      .arg(toQString(pipelineScheduleName(s.training.schedule)))
                      .arg(s.layout.pipelineParallel)
                      .arg(s.training.microBatches);
    else
        o.title = QString::fromStdString(verdictText(s, report, doc.unit));

    // Draw it.
    const QSize logical = exportLayoutSize(o.size);
    bool ok = false;
    if (chartName == QLatin1String("memory")) {
        MemoryChart view;
        view.resize(logical);
        view.setReport(s, report, doc.unit);
        ok = exportPlot(view.plot(), file, o, &error);
    } else if (chartName == QLatin1String("compare")) {
        CompareChart view;
        view.resize(logical);
        view.setScenario(s, doc.unit);
        ok = exportPlot(view.plot(), file, o, &error);
    } else {
        const std::unique_ptr<QWidget> view = makeTimelineWidget(s, doc.unit, logical);
        if (!view)
            return fail(QStringLiteral("timeline export is not available yet"));
        ok = exportWidget(view.get(), file, o, &error);
    }
    if (!ok)
        return fail(error, 1);
    out << QStringLiteral("wrote %1 (%2x%3)\n").arg(file).arg(o.size.width()).arg(o.size.height());
    out.flush();
    return 0;
}

} // namespace shardscope
