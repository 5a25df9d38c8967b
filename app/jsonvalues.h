#pragma once

// JSON values the commands' --json output shares (explain-oom, measured).

#include <QJsonArray>
#include <QJsonValue>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

/// A byte count as a JSON number, or null when it is not known.
inline QJsonValue bytesOrNull(const std::optional<std::int64_t> &bytes)
{
    return bytes ? QJsonValue(qint64(*bytes)) : QJsonValue(QJsonValue::Null);
}

/// Engine strings (UTF-8) as a JSON array of strings, in order.
inline QJsonArray stringArray(const std::vector<std::string> &items)
{
    QJsonArray a;
    for (const std::string &s : items)
        a.append(QString::fromStdString(s));
    return a;
}

} // namespace shardscope
