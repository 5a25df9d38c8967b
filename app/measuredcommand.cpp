#include "measuredcommand.h"

#include "estimate.h"
#include "format.h"
#include "jsonvalues.h"
#include "measurement.h"
#include "qtext.h"
#include "reportcommand.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

namespace shardscope {

namespace {

QJsonObject measuredJson(const Measurement &m)
{
    QJsonObject o{{"source", QString::fromStdString(measurementSourceKey(m.source))},
                  {"reserved_bytes", bytesOrNull(m.reservedBytes)},
                  {"allocated_bytes", bytesOrNull(m.allocatedBytes)},
                  {"peak_allocated_bytes", bytesOrNull(m.peakAllocatedBytes)},
                  {"peak_reserved_bytes", bytesOrNull(m.peakReservedBytes)},
                  {"peak_used_bytes", bytesOrNull(m.peakUsedBytes)},
                  {"samples", qint64(m.samples)}};
    if (!m.categories.empty()) {
        QJsonObject c;
        for (const MeasuredCategory &cat : m.categories)
            c.insert(QString::fromStdString(cat.name), qint64(cat.bytes));
        o.insert("categories", c);
    }
    QJsonArray gpus;
    for (const MeasuredGpu &g : m.gpus) {
        QJsonObject j{{"index", g.index}};
        auto put = [&j](const char *key, const std::optional<std::int64_t> &v) {
            if (v)
                j.insert(QLatin1String(key), qint64(*v));
        };
        put("reserved_bytes", g.reservedBytes);
        put("allocated_bytes", g.allocatedBytes);
        put("peak_allocated_bytes", g.peakAllocatedBytes);
        put("peak_reserved_bytes", g.peakReservedBytes);
        put("peak_used_bytes", g.peakUsedBytes);
        put("total_bytes", g.totalBytes);
        if (m.source == MeasurementSource::NvidiaSmiCsv)
            j.insert("samples", qint64(g.samples));
        gpus.append(j);
    }
    o.insert("gpus", gpus);
    if (!m.trace.empty()) {
        QJsonArray seconds, bytes;
        for (const MeasuredPoint &p : m.trace) {
            seconds.append(p.seconds);
            bytes.append(qint64(p.bytes));
        }
        o.insert("trace", QJsonObject{{"gpu", m.traceGpu},
                                      {"points", qint64(m.trace.size())},
                                      {"seconds", seconds},
                                      {"bytes", bytes}});
    }
    return o;
}

QJsonObject predictedJson(const MemoryReport &report)
{
    const GpuGroup *g = report.peakGroup();
    QJsonObject components;
    for (int c = 0; c < componentCount; ++c)
        components.insert(QString::fromStdString(componentKey(Component(c))),
                          qint64(componentValue(g->bytes, Component(c))));
    const QJsonObject buffers{{"cuda_context", qint64(g->buffers.cudaContext)},
                              {"communication_buckets", qint64(g->buffers.communicationBuckets)},
                              {"gathered_units", qint64(g->buffers.gatheredUnits)},
                              {"fragmentation", qint64(g->buffers.fragmentation)}};
    return {{"group", QString::fromStdString(g->label)},
            {"peak_bytes", qint64(report.peakBytes())},
            {"capacity_bytes", qint64(report.capacityBytes)},
            {"components", components},
            {"buffers", buffers}};
}

/// "+1.23 GB" / "-0.40 GB": the gap with its sign.
QString signedBytes(std::int64_t bytes, ByteUnit unit)
{
    const QString magnitude = QString::fromStdString(formatBytes(bytes < 0 ? -bytes : bytes, unit));
    return (bytes < 0 ? QStringLiteral("-") : QStringLiteral("+")) + magnitude;
}

/// "a+b+c".
QString joined(const std::vector<std::string> &items)
{
    QStringList names;
    for (const std::string &s : items)
        names.append(QString::fromStdString(s));
    return names.join(QLatin1Char('+'));
}

QString bytesText(std::int64_t bytes, ByteUnit unit)
{
    return QString::fromStdString(formatBytes(bytes, unit));
}

void printText(const QString &file, const Measurement &m, const MemoryReport &report,
               const MeasurementGap &gap, ByteUnit unit, QTextStream &out)
{
    out << "Measured: " << file << " (" << QString::fromStdString(measurementSourceKey(m.source));
    if (!m.gpus.empty()) // the profiler's timeline is one device's, unnamed
        out << ", " << m.gpus.size() << (m.gpus.size() == 1 ? " GPU" : " GPUs");
    out << ")\n";
    out << "Predicted: " << bytesText(report.peakBytes(), unit) << " per GPU at the peak ("
        << QString::fromStdString(gap.group) << ")\n\n";
    out << QStringLiteral("%1 %2 %3 %4  %5\n")
               .arg(QStringLiteral("measure"), -16)
               .arg(QStringLiteral("measured"), 12)
               .arg(QStringLiteral("predicted"), 12)
               .arg(QStringLiteral("gap"), 12)
               .arg(QStringLiteral("predicted covers"));
    for (const MeasuredComparison &c : gap.comparisons)
        out << QStringLiteral("%1 %2 %3 %4  %5\n")
                   .arg(QString::fromStdString(c.measure), -16)
                   .arg(bytesText(c.measuredBytes, unit), 12)
                   .arg(bytesText(c.predictedBytes, unit), 12)
                   .arg(signedBytes(c.gapBytes(), unit), 12)
                   .arg(QString::fromStdString(c.covers));
    if (!gap.categories.empty()) {
        out << "\nBy category at the measured peak (profiler categories -> components):\n";
        for (const CategoryGap &c : gap.categories)
            out << QStringLiteral("%1 %2 %3 %4  %5 -> %6\n")
                       .arg(QString::fromStdString(c.key), -16)
                       .arg(bytesText(c.measuredBytes, unit), 12)
                       .arg(bytesText(c.predictedBytes, unit), 12)
                       .arg(signedBytes(c.gapBytes(), unit), 12)
                       .arg(joined(c.categories), joined(c.components));
    }
    if (gap.comparisons.empty())
        out << "(the file holds no figure to compare)\n";
}

} // namespace

int runMeasuredCommand(const QStringList &args, QTextStream &out, QTextStream &err)
{
    QCommandLineParser p;
    const ScenarioOptions options;
    describeSubcommand(p, QStringLiteral("measured"),
                       QStringLiteral("Measured GPU memory (a PyTorch memory snapshot, a profiler "
                                      "memory timeline or an nvidia-smi CSV log) beside the "
                                      "prediction for the scenario."),
                       options);
    p.addPositionalArgument(QStringLiteral("file"),
                            QStringLiteral("snapshot .pickle, timeline .json or nvidia-smi .csv"));
    const QCommandLineOption json(QStringLiteral("json"), QStringLiteral("Print JSON."));
    p.addOption(json);
    const QString name = QStringLiteral("measured");
    auto fail = [&err, &name](const QString &message) {
        return subcommandError(err, name, message);
    };
    if (const auto done = startSubcommand(p, args, name, out, err, 2))
        return *done;
    if (p.positionalArguments().size() < 2)
        return fail(QStringLiteral("give the measurement FILE (shardscope measured FILE "
                                   "[scenario flags])"));
    const QString path = p.positionalArguments().at(1);
    QString error;
    const auto doc = options.document(p, &error);
    if (!doc)
        return fail(error);
    const auto measurement = readMeasurementFile(path, &error);
    if (!measurement)
        return fail(error);
    const MemoryReport report = estimate(doc->scenario);
    if (!report.valid())
        return fail(QStringLiteral("cannot estimate: ") + QString::fromStdString(report.error));
    const MeasurementGap gap = compareMeasurement(*measurement, report);
    const QString file = QFileInfo(path).fileName();
    if (p.isSet(json)) {
        QJsonArray comparisons;
        for (const MeasuredComparison &c : gap.comparisons)
            comparisons.append(QJsonObject{{"measure", QString::fromStdString(c.measure)},
                                           {"measured_bytes", qint64(c.measuredBytes)},
                                           {"predicted_bytes", qint64(c.predictedBytes)},
                                           {"gap_bytes", qint64(c.gapBytes())},
                                           {"predicted_covers", QString::fromStdString(c.covers)}});
        QJsonArray categories;
        for (const CategoryGap &c : gap.categories)
            categories.append(QJsonObject{{"key", QString::fromStdString(c.key)},
                                          {"profiler_categories", stringArray(c.categories)},
                                          {"components", stringArray(c.components)},
                                          {"measured_bytes", qint64(c.measuredBytes)},
                                          {"predicted_bytes", qint64(c.predictedBytes)},
                                          {"gap_bytes", qint64(c.gapBytes())}});
        const QJsonObject o{{"file", file},
                            {"measured", measuredJson(*measurement)},
                            {"predicted", predictedJson(report)},
                            {"comparisons", comparisons},
                            {"gap_by_category", categories}};
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        QString text;
        QTextStream buffer(&text);
        printText(file, *measurement, report, gap, doc->unit, buffer);
        buffer.flush();
        out << terminalText(text, TextLines::Many);
    }
    out.flush();
    return 0;
}

} // namespace shardscope
