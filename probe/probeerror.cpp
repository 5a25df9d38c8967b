#include "probeerror.h"

#include <QDateTime>
#include <QJsonArray>

namespace shardscope::probe {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

void addError(QJsonObject &doc, const ProbeError &error)
{
    doc.insert(QStringLiteral("error"), error.message);
    doc.insert(QStringLiteral("error_code"), error.code);
    if (error.nvmlReturn != 0)
        doc.insert(QStringLiteral("nvml_return"), error.nvmlReturn);
}

QJsonObject errorDocument(const QString &source, const ProbeError &error)
{
    QJsonObject doc{{QStringLiteral("schema"), QString::fromUtf16(probeSchema)},
                    {QStringLiteral("source"), source},
                    {QStringLiteral("timestamp_ms"), nowMs()},
                    {QStringLiteral("gpus"), QJsonArray{}}};
    addError(doc, error);
    return doc;
}

} // namespace shardscope::probe
