#include "reporttable.h"

#include <QLocale>

namespace shardscope {

namespace {

const char *const componentHeaders[] = {"Weights",          "Gradients",   "Master weights",
                                        "Optimizer states", "Activations", "Buffers"};

QString rankRange(const GpuGroup &g)
{
    if (g.gpuCount == 1)
        return QStringLiteral("GPU %1").arg(g.firstRank);
    return QStringLiteral("GPU %1–%2").arg(g.firstRank).arg(g.firstRank + g.gpuCount - 1);
}

QString csvField(const QString &s)
{
    if (!s.contains(u',') && !s.contains(u'"') && !s.contains(u'\n'))
        return s;
    QString q = s;
    q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' + q + u'"';
}

} // namespace

bool ReportTable::isByteColumn(int column)
{
    return (column >= 3 && column <= 9) || column == 11;
}

QString ReportTable::text(std::size_t row, int column) const
{
    if (column == 0)
        return rankLabels[row];
    const std::int64_t v = values[row][std::size_t(column)];
    if (isByteColumn(column))
        return QString::number(double(v) / unitBytes(unit), 'f', 1);
    if (column == 10)
        return QString::number(double(v) / 10.0, 'f', 1) + u'%';
    return QLocale(QLocale::English).toString(qlonglong(v));
}

ReportTable reportTable(const Scenario &s, const MemoryReport &r, ByteUnit unit)
{
    ReportTable t;
    t.unit = unit;
    t.capacityBytes = r.capacityBytes;
    const QString u = QString::fromStdString(unitName(unit));
    t.headers << QStringLiteral("GPUs") << QStringLiteral("Count") << QStringLiteral("Stage");
    for (const char *h : componentHeaders)
        t.headers << QStringLiteral("%1 (%2)").arg(QLatin1String(h), u);
    t.headers << QStringLiteral("Total (%1)").arg(u)
              << QStringLiteral("Of %1").arg(QString::fromStdString(s.gpu.shortName))
              << QStringLiteral("Host offload (%1)").arg(u);
    if (!r.valid())
        return t;
    for (const GpuGroup &g : r.groups) {
        std::vector<std::int64_t> row(ReportTable::columnCount, 0);
        row[1] = g.gpuCount;
        row[2] = g.pipelineStage;
        for (int c = 0; c < componentCount; ++c)
            row[std::size_t(3 + c)] = componentValue(g.bytes, Component(c));
        row[9] = g.totalBytes();
        // Per mille, rounded half up; capacity 0 (a custom card) shows 0.
        row[10] = r.capacityBytes > 0
                      ? std::int64_t((long double)g.totalBytes() * 1000 / r.capacityBytes + 0.5L)
                      : 0;
        row[11] = g.hostBytes;
        t.values.push_back(std::move(row));
        t.rankLabels.push_back(rankRange(g));
    }
    return t;
}

QString toCsv(const ReportTable &t)
{
    QStringList header;
    for (int c = 0; c < ReportTable::columnCount; ++c) {
        QString h = t.headers.value(c);
        if (ReportTable::isByteColumn(c))
            h = h.left(h.lastIndexOf(u'(')) + QStringLiteral("(bytes)");
        else if (c == 10)
            h += QStringLiteral(" (fraction)");
        header << csvField(h);
    }
    QString out = header.join(u',') + QStringLiteral("\r\n");
    for (std::size_t r = 0; r < t.values.size(); ++r) {
        QStringList fields{csvField(t.rankLabels[r])};
        for (int c = 1; c < ReportTable::columnCount; ++c) {
            const std::int64_t v = t.values[r][std::size_t(c)];
            fields << (c == 10 ? QString::number(double(v) / 1000.0, 'f', 3) : QString::number(v));
        }
        out += fields.join(u',') + QStringLiteral("\r\n");
    }
    return out;
}

QString toMarkdown(const ReportTable &t)
{
    QString out =
        QStringLiteral("| ") + t.headers.join(QStringLiteral(" | ")) + QStringLiteral(" |\n|");
    for (int c = 0; c < ReportTable::columnCount; ++c)
        out += c == 0 ? QStringLiteral("---|") : QStringLiteral("---:|");
    out += u'\n';
    for (std::size_t r = 0; r < t.values.size(); ++r) {
        QStringList cells;
        for (int c = 0; c < ReportTable::columnCount; ++c)
            cells << t.text(r, c).replace(u'|', QStringLiteral("\\|"));
        out += QStringLiteral("| ") + cells.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
    }
    return out;
}

} // namespace shardscope
