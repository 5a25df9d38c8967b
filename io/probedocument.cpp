#include "probedocument.h"

#include "probeschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace shardscope {

namespace {

const QString schemaName = QString(probeschema::id);

/// The start of a line, printable, for quoting garbage in a one-line message.
QString excerpt(const QByteArray &line)
{
    constexpr qsizetype maxChars = 60;
    QString s = QString::fromUtf8(line.left(maxChars * 4)).simplified();
    for (QChar &c : s) {
        if (!c.isPrint())
            c = u'?';
    }
    const bool cut = s.size() > maxChars;
    s.truncate(maxChars);
    return QStringLiteral("\"%1%2\"").arg(s, cut ? QStringLiteral("…") : QString());
}

/// A non-negative integer member; false when absent, null, fractional or negative.
bool readCount(const QJsonObject &o, const QString &key, qint64 *out)
{
    const QJsonValue v = o.value(key);
    if (!v.isDouble())
        return false;
    const qint64 i = v.toInteger(-1);
    if (i < 0 || double(i) != v.toDouble())
        return false;
    *out = i;
    return true;
}

QString badDocument(const QString &what)
{
    return QStringLiteral("shardscope-probe printed a malformed reading: %1").arg(what);
}

std::variant<ProbeGpu, QString> parseGpu(const QJsonValue &value, qsizetype position)
{
    if (!value.isObject())
        return badDocument(QStringLiteral("gpus[%1] is not an object").arg(position));
    const QJsonObject o = value.toObject();
    ProbeGpu gpu;
    qint64 index = 0;
    if (!readCount(o, QString(probeschema::index), &index) || index > 1'000'000)
        return badDocument(QStringLiteral("gpus[%1] has no valid index").arg(position));
    gpu.index = int(index);
    gpu.name = o.value(QString(probeschema::name)).toString();
    gpu.uuid = o.value(QString(probeschema::uuid)).toString();
    gpu.pciBusId = o.value(QString(probeschema::pciBusId)).toString();
    const struct
    {
        const char *key;
        qint64 *out;
    } sizes[] = {{"total_bytes", &gpu.totalBytes},
                 {"used_bytes", &gpu.usedBytes},
                 {"free_bytes", &gpu.freeBytes}};
    for (const auto &s : sizes) {
        if (!readCount(o, QString::fromLatin1(s.key), s.out))
            return badDocument(QStringLiteral("GPU %1 has no valid %2")
                                   .arg(gpu.index)
                                   .arg(QString::fromLatin1(s.key)));
    }
    const QJsonValue reserved = o.value(QString(probeschema::reservedBytes));
    if (!reserved.isNull() && !reserved.isUndefined()) {
        qint64 r = 0;
        if (!readCount(o, QString(probeschema::reservedBytes), &r))
            return badDocument(QStringLiteral("GPU %1 has no valid reserved_bytes").arg(gpu.index));
        gpu.reservedBytes = r;
    }
    for (const QJsonValue &p : o.value(QString(probeschema::processes)).toArray()) {
        const QJsonObject po = p.toObject();
        ProbeProcess process;
        if (!readCount(po, QString(probeschema::pid), &process.pid))
            return badDocument(
                QStringLiteral("GPU %1 lists a process without a pid").arg(gpu.index));
        qint64 used = 0;
        if (readCount(po, QString(probeschema::usedBytes), &used))
            process.usedBytes = used;
        gpu.processes.push_back(process);
    }
    gpu.processesError = o.value(QString(probeschema::processesError)).toString().simplified();
    return gpu;
}

} // namespace

std::variant<ProbeSample, QString> parseProbeLine(const QByteArray &line)
{
    const QByteArray trimmed = line.trimmed();
    if (trimmed.isEmpty())
        return QStringLiteral("shardscope-probe printed an empty line");
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(trimmed, &error);
    if (error.error != QJsonParseError::NoError)
        return QStringLiteral("shardscope-probe printed something that is not JSON: %1")
            .arg(excerpt(trimmed));
    if (!doc.isObject())
        return QStringLiteral("shardscope-probe printed JSON that is not a reading: %1")
            .arg(excerpt(trimmed));
    const QJsonObject o = doc.object();
    const QJsonValue schema = o.value(QString(probeschema::schema));
    if (!schema.isString())
        return QStringLiteral("shardscope-probe printed JSON without the schema %1: %2")
            .arg(schemaName, excerpt(trimmed));
    if (schema.toString() != schemaName)
        return QStringLiteral("shardscope-probe printed schema \"%1\", expected %2")
            .arg(schema.toString().left(60), schemaName);
    if (o.contains(QString(probeschema::error))) {
        QString message = o.value(QString(probeschema::error)).toString().simplified();
        if (message.isEmpty())
            message = QStringLiteral("shardscope-probe reported an error (%1)")
                          .arg(o.value(QString(probeschema::errorCode)).toString());
        return message;
    }

    ProbeSample sample;
    sample.source = o.value(QString(probeschema::source)).toString();
    sample.timestampMs = o.value(QString(probeschema::timestampMs)).toInteger();
    sample.driverVersion = o.value(QString(probeschema::driverVersion)).toString();
    sample.memoryApi = o.value(QString(probeschema::memoryApi)).toString();
    const QJsonValue gpus = o.value(QString(probeschema::gpus));
    if (!gpus.isArray())
        return badDocument(QStringLiteral("no gpus list"));
    const QJsonArray list = gpus.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        auto gpu = parseGpu(list.at(i), i);
        if (auto *message = std::get_if<QString>(&gpu))
            return *message;
        sample.gpus.push_back(std::move(std::get<ProbeGpu>(gpu)));
    }
    return sample;
}

} // namespace shardscope
