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

    /// Adds a lesson (one a teacher wrote, from a file) after the others; returns its
    /// index into lessons().
    int addLesson(Lesson lesson);
    /// Starts a lesson at its first step (index into lessons()); ignored out of range.
    void startLesson(int index);
    /// Steps the running lesson by +1 / -1; returns false at either end or with none.
    bool stepLesson(int delta);
    /// Goes to step `step` of the running lesson, clamped to its steps.
    void goToLessonStep(int step);
    /// Leaves the lesson; the settings stay where the last step put them.
    void endLesson();

    /// Type size of the bar: 1 is 15 pt sentences, step titles and "Changed:" lines, 13 pt
    /// buttons; presentation mode passes 1.6 (24 pt, 32 px at 96 dpi, for the back of a
    /// room), 1.2 on a short screen (18 pt, 24 px at 96 dpi at 1280x720; see setCompact()).
    void setTypeScale(double scale);
    /// The point size of the step's sentence now.
    double sentencePointSize() const;
    /// A short screen in presentation (1280x720): the step's title takes the lesson's
    /// name's place beside the buttons (the name becomes its tooltip), the buttons keep
    /// their normal size, and "Changed:" is one line, elided, whole in its tooltip, so the
    /// bar's larger type leaves the tabs their room.
    void setCompact(bool compact);
    /// The bar's three lines of text: the step's title (beside the buttons when compact),
    /// its sentence, "Changed:".
    QLabel *stepTitleLabel() const { return m_compact ? m_lessonName : m_lessonTitle; }
    QLabel *sentenceLabel() const { return m_lessonLabel; }
    QLabel *changesLabel() const { return m_lessonChanges; }

    /// The lesson a teacher is writing by doing it ("Add this view as a lesson step"):
    /// no steps until the first is added.
    const Lesson &draft() const { return m_draft; }
    /// Adds the window's current settings as the draft's next step: its "set" holds the
    /// keys that differ from the draft's previous step (lessonStepPatch(); the default
    /// scenario before the first), with `title`, `text` (one sentence) and `view`. False
    /// plus `*error` (the loader's message, naming the step and field) when the step
    /// would not load back; the draft is then unchanged.
    bool addDraftStep(const QString &title, const QString &text, LessonView view, QString *error);
    /// Writes the draft as a lesson file titled `title` (saveLessonFile(), atomic). False
    /// plus `*error` with no steps or when the file cannot be written.
    bool saveDraft(const QString &path, const QString &title, QString *error);

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
    /// type). Plain keys only: Ctrl+Home and the like stay the widget's. A text field or
    /// spin box with focus keeps its editing keys (Backspace, arrows, Home, End, Space,
    /// Escape); only PageUp and PageDown, which clickers send, step the lesson there.
    bool eventFilter(QObject *watched, QEvent *event) override;

signals:
    /// The step shows this view (its own, or the one the last step chose).
    void viewRequested(shardscope::LessonView view);
    /// A lesson started (true) or ended (false).
    void runningChanged(bool running);

protected:
    /// Elides "Changed:" again for the new width (compact only).
    void resizeEvent(QResizeEvent *event) override;

private:
    /// The fonts and the buttons' size for m_scale and m_compact.
    void applyFonts();
    /// The step's title, the lesson's name and "Changed:" for m_compact and the width.
    void showTexts();
    bool handleLessonKey(QObject *watched, QKeyEvent *event);
    void applyLessonStep();

    Session *m_session;
    AsOneChange m_asOneChange;
    std::vector<Lesson> m_lessons;
    Lesson m_draft;         ///< draft()
    double m_scale = 1;     ///< setTypeScale()
    bool m_compact = false; ///< setCompact()
    QString m_changesFull;  ///< "Changed: ..." in full (the label may show it elided)
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
