#pragma once

#include <QDialog>
#include <QString>

class QPlainTextEdit;

namespace shardscope {

class Session;

/// Tools > Explain an out-of-memory message: a box to paste PyTorch's "CUDA out of
/// memory" message (or the traceback around it) and, on Explain, what
/// Session::explainOomMessage() says of it against the window's scenario: the message's
/// numbers, which part is over and the fewest changes that fit (docs/measurements.md
/// "Explaining an OOM message"). Draws only; the Session computes. Children are named
/// "oom:message", "oom:explain" and "oom:result" for tests.
class OomDialog : public QDialog
{
    Q_OBJECT
public:
    explicit OomDialog(const Session &session, QWidget *parent = nullptr);

    /// Puts `text` in the paste box (as a paste would).
    void setMessage(const QString &text);
    /// Shows the explanation of the paste box's text, or the one line why none was read.
    void explain();
    /// What the result box shows.
    QString resultText() const;

private:
    const Session &m_session;
    QPlainTextEdit *m_message = nullptr;
    QPlainTextEdit *m_result = nullptr;
};

} // namespace shardscope
