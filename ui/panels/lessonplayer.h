#pragma once

#include "lesson.h"

#include <QWidget>
#include <functional>
#include <vector>

class QKeyEvent;
class QLabel;
class QPushButton;

namespace shardscope {

class Session;

/// Runs the built-in lessons (resources/lessons, docs/lessons.md) like slides: the
/// lesson bar itself (Back and Next in fixed places, the lesson's title, the step's
/// sentence, and what the step changed), hidden while no lesson runs.
///
/// Each step writes its scenario into the Session as one undoable change and asks for
/// its view (viewRequested). While a lesson runs, the presenter keys (Right, PageDown,
/// Space / Left, PageUp, Backspace / Home, End / Escape) step it whatever widget of the
/// window has focus: the player filters the application's key events.
class LessonPlayer : public QWidget
{
    Q_OBJECT
public:
    /// Runs a change of the session as one undo step (ScenarioHistory::asOneChange).
    using AsOneChange = std::function<void(const std::function<void()> &)>;

    /// Loads builtInLessons(); loadErrors() says what failed to load.
    LessonPlayer(Session *session, AsOneChange asOneChange, QWidget *parent = nullptr);

    /// Starts a lesson at its first step (index into lessons()); ignored out of range.
    void startLesson(int index);
    /// Steps the running lesson by +1 / -1; returns false at either end or with none.
    bool stepLesson(int delta);
    /// Goes to step `step` of the running lesson, clamped to its steps.
    void goToLessonStep(int step);
    /// Leaves the lesson; the settings stay where the last step put them.
    void endLesson();

    /// Type size of the bar: 1 is 15 pt sentences, 13 pt buttons; presentation mode
    /// passes 1.6 (24 pt, 32 px at 96 dpi, for the back of a room), 1 on a short screen (the bars
    /// need the height).
    void setTypeScale(double scale);
    /// The point size of the step's sentence now.
    double sentencePointSize() const;

    /// The built-in lessons, in menu order.
    const std::vector<Lesson> &lessons() const { return m_lessons; }
    /// "" when every lesson loaded, else the reasons, joined by "; ".
    QString loadErrors() const { return m_loadErrors; }
    /// The running lesson's index, or -1.
    int lesson() const { return m_lesson; }
    /// The running lesson's step (0 with none).
    int lessonStep() const { return m_lessonStep; }
    /// The step's sentence ("" with no lesson running).
    QString lessonText() const;
    /// What the last step changed, compared with the screen before it: "Changed:
    /// Sequence length → 8,192 tokens" or "No settings changed." ("" with none running).
    QString lessonChangesText() const;

    /// The presenter keys (installed on the application while a lesson runs): for any
    /// widget of this window, before the widget or a shortcut sees them (digits still
    /// type). Plain keys only: Ctrl+Home and the like stay the widget's.
    bool eventFilter(QObject *watched, QEvent *event) override;

signals:
    /// The step shows this view (its own, or the one the last step chose).
    void viewRequested(shardscope::LessonView view);
    /// A lesson started (true) or ended (false).
    void runningChanged(bool running);

private:
    bool handleLessonKey(QKeyEvent *event);
    void applyLessonStep();

    Session *m_session;
    AsOneChange m_asOneChange;
    std::vector<Lesson> m_lessons;
    QString m_loadErrors;
    int m_lesson = -1;
    int m_lessonStep = 0;
    QLabel *m_lessonName = nullptr;  ///< the lesson's title
    QLabel *m_lessonTitle = nullptr; ///< "Step 2 of 7: 8,192 tokens"
    QLabel *m_lessonLabel = nullptr;
    QLabel *m_lessonChanges = nullptr; ///< "Changed: ..." under the sentence
    QPushButton *m_lessonPrev = nullptr;
    QPushButton *m_lessonNext = nullptr;
    QPushButton *m_lessonEnd = nullptr;
};

} // namespace shardscope
