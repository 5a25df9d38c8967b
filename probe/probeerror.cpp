#include "probeerror.h"

#include "controltext.h"
#include "probeschema.h"

#include <QDateTime>
#include <QJsonArray>
#include <QRegularExpression>
#include <QUrlQuery>
#include <algorithm>

namespace shardscope::probe {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString escapeControlCharacters(const QString &text)
{
    return escapedControls(text, false);
}

namespace {

// True for a character that ends a URL inside free text.
bool endsUrlToken(QChar c)
{
    return c.isSpace() || c == QLatin1Char('\'') || c == QLatin1Char('"') ||
           c == QLatin1Char('<') || c == QLatin1Char('>');
}

// `query` ("a=1&b" without the '?') with every value replaced by "***"; an item
// without '=' (a bare token) becomes "***" as a whole.
QString redactQueryText(QStringView query)
{
    QString out;
    const QList<QStringView> items = query.split(QLatin1Char('&'));
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += QLatin1Char('&');
        const QStringView item = items.at(i);
        if (item.isEmpty())
            continue;
        const qsizetype eq = item.indexOf(QLatin1Char('='));
        out +=
            eq < 0 ? QStringLiteral("***") : item.left(eq + 1).toString() + QStringLiteral("***");
    }
    return out;
}

} // namespace

QString redactUrlText(const QString &url)
{
    const qsizetype schemeEnd = url.indexOf(QLatin1String("://"));
    const qsizetype authority = schemeEnd < 0 ? 0 : schemeEnd + 3;
    QString out = url.left(authority);
    qsizetype hostStart = authority;
    const qsizetype at = url.lastIndexOf(QLatin1Char('@'));
    if (at >= authority) {
        // Everything up to the last '@' is user information. A plain user name
        // before a ':' is kept; anything else (a token as the user name, or a
        // name that a '/', '?', '#' or '[' shows to be malformed) is hidden.
        const QStringView userInfo = QStringView(url).sliced(authority, at - authority);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        const QStringView user = colon < 0 ? QStringView() : userInfo.left(colon);
        const bool plainUser =
            !user.isEmpty() && std::none_of(user.begin(), user.end(), [](QChar c) {
                return QStringView(u"/?#[]@").contains(c);
            });
        out += plainUser ? user.toString() + QStringLiteral(":***@") : QStringLiteral("***@");
        hostStart = at + 1;
    }
    const QStringView rest = QStringView(url).sliced(hostStart);
    const qsizetype hash = rest.indexOf(QLatin1Char('#'));
    const QStringView beforeFragment = hash < 0 ? rest : rest.left(hash);
    const qsizetype question = beforeFragment.indexOf(QLatin1Char('?'));
    if (question < 0) {
        out += beforeFragment;
    } else {
        out += beforeFragment.left(question + 1);
        out += redactQueryText(beforeFragment.sliced(question + 1));
    }
    if (hash >= 0)
        out += hash + 1 < rest.size() ? QStringLiteral("#***") : QStringLiteral("#");
    return out;
}

QString redactCredentials(const QString &text)
{
    static const QRegularExpression scheme(QStringLiteral(R"([A-Za-z][A-Za-z0-9+.\-]*://)"));
    QString out;
    qsizetype done = 0;
    for (QRegularExpressionMatchIterator it = scheme.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedStart() < done)
            continue; // inside a URL already redacted
        qsizetype end = m.capturedEnd();
        while (end < text.size() && !endsUrlToken(text.at(end)))
            ++end;
        out += QStringView(text).sliced(done, m.capturedStart() - done);
        out += redactUrlText(text.sliced(m.capturedStart(), end - m.capturedStart()));
        done = end;
    }
    out += QStringView(text).sliced(done);
    if (!out.contains(QLatin1Char('@')))
        return out;
    // A bare "user:password@host" at the start or after a space, quote or
    // bracket: the password runs from the first ':' to the last '@' before
    // '/', '?', '#' or white space.
    static const QRegularExpression bare(
        QStringLiteral(R"((^|[\s'"(<\[])([^/?#\s@:'"*]+):[^/?#\s]*@)"));
    out.replace(bare, QStringLiteral("\\1\\2:***@"));
    return out;
}

QString redactedUrl(const QUrl &url)
{
    if (!url.isValid())
        return redactUrlText(url.toString());
    QUrl shown = url;
    if (!url.password().isEmpty())
        shown.setPassword(QStringLiteral("***"));
    else if (!url.userName().isEmpty())
        shown.setUserName(QStringLiteral("***")); // a token given as the user name
    if (url.hasQuery()) {
        QUrlQuery query(url);
        QList<std::pair<QString, QString>> items = query.queryItems(QUrl::FullyEncoded);
        for (auto &[key, value] : items) {
            if (value.isEmpty())
                key = QStringLiteral("***"); // a bare "?TOKEN"
            value = QStringLiteral("***");
        }
        query.setQueryItems(items);
        shown.setQuery(query);
    }
    if (url.hasFragment())
        shown.setFragment(QStringLiteral("***"));
    // A tolerant parse may have put a password in the path ("http://al/ice:pw@h/" is
    // host "al"): the text rule catches what the parser did not see as credentials.
    return redactUrlText(shown.toString());
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
