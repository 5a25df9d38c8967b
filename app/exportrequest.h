#pragma once

#include "reportcommand.h"
#include "scenariofile.h"
#include "sweep.h"

#include <QSize>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <functional>
#include <optional>
#include <variant>

namespace shardscope {

/// What `shardscope export` draws and where, once its arguments are checked.
struct ExportRequest
{
    ScenarioDocument doc; ///< --scenario and the scenario flags over it
    QString chart;        ///< --chart: a registered chart id
    QString file;         ///< --out: a name ExportChoices::isFormat accepts, or any for html
    /// What to write: "png", "svg" or "pdf" (the --out suffix, which --format must agree
    /// with), or "html" (--format html or an .html / .htm --out: one self-contained page).
    QString format;
    QSize size;                     ///< --size in pixels, each side within the choices' bounds
    std::optional<QString> title;   ///< --title when given (else the chart's own)
    std::optional<QString> caption; ///< --caption when given, possibly empty (else the settings)
    QStringList notes; ///< what a --launch-config could not say or set, one sentence each
    SweepAxis sweep = SweepAxis::Gpus; ///< --sweep: what the sweep chart varies
};

/// What `export` accepts. The program passes the chart layer's registry and file
/// formats (ui/charts/chartregistry.h, chartexport.h); the fuzzer passes stand-ins, so
/// the argument handling is checked without Widgets.
struct ExportChoices
{
    QString chartIds;                              ///< "memory, ..." for help and errors
    std::function<bool(const QString &)> isChart;  ///< a registered chart id
    std::function<bool(const QString &)> isFormat; ///< a file name export can write
    int minWidth = 480;                            ///< narrowest --size, pixels
    int minHeight = 320;                           ///< lowest --size, pixels
    int maxSide = 8192;                            ///< largest --size side, pixels
};

/// Stand-ins for the chart layer, for checking the argument handling without Widgets (the
/// fuzzer and tests/app/test_exportrequest.cpp): two charts, "memory" and "timeline", and
/// the file types .png, .svg and .pdf.
ExportChoices standInExportChoices();

/// Parses and checks `shardscope export` arguments (args[0] the program, args[1]
/// "export") without drawing anything. Returns the request, or the exit code to end
/// with: 0 after --help or --version (printed to `out`), 2 after a one-line error on
/// `err` ("shardscope export: ..."): a parse error or stray argument, a bad scenario or
/// flag, an unknown --chart, --out missing, of another type (without --format html), a
/// --format other than png, svg, pdf or html or one the --out suffix disagrees with, or
/// --out not valid UTF-8 (a
/// name Qt would write under another name, review finding F13), a --size outside the bounds, a
/// --sweep other than gpus, seq, mbs or time.
std::variant<ExportRequest, int> parseExportArguments(const QStringList &args,
                                                      const ExportChoices &choices,
                                                      QTextStream &out, QTextStream &err);

} // namespace shardscope
