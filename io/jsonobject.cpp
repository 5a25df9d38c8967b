#include "jsonobject.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace shardscope {

std::optional<QJsonObject> jsonObjectFromBytes(const QByteArray &bytes, const QString &where,
                                               const QString &notAnObject, QString *error)
{
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parse);
    if (parse.error != QJsonParseError::NoError) {
        *error = where + QStringLiteral(": not valid JSON (%1 at byte %2)")
                             .arg(parse.errorString())
                             .arg(parse.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = where + QStringLiteral(": ") + notAnObject;
        return std::nullopt;
    }
    return doc.object();
}

} // namespace shardscope
