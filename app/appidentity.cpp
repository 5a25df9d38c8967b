#include "appidentity.h"

#include <QCoreApplication>
#include <QString>

namespace shardscope {

namespace {

QtMessageHandler qtHandler = nullptr; // Qt's own, as qInstallMessageHandler returned it

void filterQtNotices(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")))
        return;
    // The offscreen platform's notice on every timeline or PDF export: nothing to act on.
    if (message.contains(QLatin1String("does not support propagateSizeHints()")))
        return;
    if (qtHandler)
        qtHandler(type, context, message);
}

} // namespace

void setApplicationIdentity(const char *version)
{
    QCoreApplication::setOrganizationName(QStringLiteral("ShardScope"));
    QCoreApplication::setOrganizationDomain(QStringLiteral("shardscope.io"));
    QCoreApplication::setApplicationName(QStringLiteral("ShardScope"));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(version));
}

void installQtNoticeFilter()
{
    qtHandler = qInstallMessageHandler(filterQtNotices);
}

} // namespace shardscope
