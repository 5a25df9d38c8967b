#include "probeerror.h"

#include "probeschema.h"

#include <QDateTime>
#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>

namespace shardscope::probe {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString escapeControlCharacters(const QString &text)
{
    auto isControl = [](char16_t u) {
        return u < 0x20 || (u >= 0x7f && u <= 0x9f) || u == 0x2028 || u == 0x2029;
    };
    if (std::none_of(text.cbegin(), text.cend(), [&](QChar c) { return isControl(c.unicode()); }))
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (!isControl(u))
            out += c;
        else if (u == u'\n')
            out += QLatin1String("\\n");
        else if (u == u'\r')
            out += QLatin1String("\\r");
        else if (u == u'\t')
            out += QLatin1String("\\t");
        else if (u <= 0x7f)
            out += QStringLiteral("\\x%1").arg(uint(u), 2, 16, QLatin1Char('0'));
        else
            out += QStringLiteral("\\u%1").arg(uint(u), 4, 16, QLatin1Char('0'));
    }
    return out;
}

QString redactCredentials(const QString &text)
{
    if (!text.contains(QLatin1Char('@')))
        return text;
    // 1: what precedes the user info (a scheme, or the start, a space, a quote or
    // a bracket); 2: the user name; the password runs from the first ':' to the
    // last '@' before '/', '?', '#' or white space.
    static const QRegularExpression re(
        QStringLiteral(R"((^|[\s'"(<\[]|[A-Za-z][A-Za-z0-9+.\-]*://)([^/?#\s@:'"]*):[^/?#\s]*@)"));
    QString out = text;
    out.replace(re, QStringLiteral("\\1\\2:***@"));
    return out;
}

QString redactedUrl(const QUrl &url)
{
    if (url.password().isEmpty())
        return url.toString();
    QUrl shown = url;
    shown.setPassword(QStringLiteral("***"));
    return shown.toString();
}

QString printableText(const QString &text)
{
    return escapeControlCharacters(redactCredentials(text));
}

void addError(QJsonObject &doc, const ProbeError &error)
{
    doc.insert(QString(probeschema::error), printableText(error.message));
    doc.insert(QString(probeschema::errorCode), error.code);
    if (error.nvmlReturn != 0)
        doc.insert(QStringLiteral("nvml_return"), error.nvmlReturn);
}

QJsonObject errorDocument(const QString &source, const ProbeError &error)
{
    QJsonObject doc{{QString(probeschema::schema), QString(probeschema::id)},
                    {QString(probeschema::source), source},
                    {QString(probeschema::timestampMs), nowMs()},
                    {QString(probeschema::gpus), QJsonArray{}}};
    addError(doc, error);
    return doc;
}

} // namespace shardscope::probe
