#include "oomdialog.h"

#include "session.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace shardscope {

OomDialog::OomDialog(const Session &session, QWidget *parent) : QDialog(parent), m_session(session)
{
    setWindowTitle(QStringLiteral("Explain an out-of-memory message"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        QStringLiteral("Paste PyTorch's \"CUDA out of memory\" message, or the traceback or log "
                       "around it. It is set against the scenario in the window."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_message = new QPlainTextEdit(this);
    m_message->setObjectName(QStringLiteral("oom:message"));
    m_message->setPlaceholderText(
        QStringLiteral("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ..."));
    m_message->setFont(fixed);
    m_message->setMaximumHeight(QFontMetrics(fixed).lineSpacing() * 7);
    layout->addWidget(m_message);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *explainButton =
        buttons->addButton(QStringLiteral("&Explain"), QDialogButtonBox::ActionRole);
    explainButton->setObjectName(QStringLiteral("oom:explain"));
    explainButton->setDefault(true);
    connect(explainButton, &QPushButton::clicked, this, &OomDialog::explain);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    m_result = new QPlainTextEdit(this);
    m_result->setObjectName(QStringLiteral("oom:result"));
    m_result->setReadOnly(true);
    m_result->setFont(fixed);
    m_result->setPlaceholderText(QStringLiteral("The explanation appears here."));
    layout->addWidget(m_result, 1);
    layout->addWidget(buttons);
    resize(960, 640);
}

void OomDialog::setMessage(const QString &text)
{
    m_message->setPlainText(text);
}

void OomDialog::explain()
{
    m_result->setPlainText(m_session.explainOomMessage(m_message->toPlainText()));
}

QString OomDialog::resultText() const
{
    return m_result->toPlainText();
}

} // namespace shardscope
