#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <optional>

namespace shardscope {

/// `bytes` read as a JSON document whose top level is an object: the first check of every
/// JSON input file (scenario files, lessons). On failure nullopt, with `*error` one line:
/// "<where>: not valid JSON (<why> at byte <n>)", or "<where>: <notAnObject>" for a
/// document whose top level is an array or a value.
std::optional<QJsonObject> jsonObjectFromBytes(const QByteArray &bytes, const QString &where,
                                               const QString &notAnObject, QString *error);

} // namespace shardscope
