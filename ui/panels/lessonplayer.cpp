#include "lessonplayer.h"

#include "scenariochangecommand.h"
#include "scenariochanges.h"
#include "session.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <limits>

namespace shardscope {

LessonPlayer::LessonPlayer(Session *session, AsOneChange asOneChange, QWidget *parent)
    : QWidget(parent), m_session(session), m_asOneChange(std::move(asOneChange))
{
    QStringList errors;
    m_lessons = builtInLessons(&errors);
    m_loadErrors = errors.join(QStringLiteral("; "));
    // The lesson bar: the way through the steps and the title on top, the sentence and
    // what the step changed below, across the whole bar. The buttons keep one size in
    // the top row, so repeated clicks on Next land on Next whatever a step's text.
    setObjectName(QStringLiteral("lessonBar"));
    auto *lessonLayout = new QVBoxLayout(this);
    lessonLayout->setContentsMargins(0, 0, 0, 4);
    lessonLayout->setSpacing(2);
    m_lessonPrev = new QPushButton(QStringLiteral("◀ Back"));
    m_lessonNext = new QPushButton(QStringLiteral("Next ▶"));
    m_lessonEnd = new QPushButton(QStringLiteral("End lesson"));
    m_lessonPrev->setToolTip(QStringLiteral("Previous step (Left, PageUp or Backspace)"));
    m_lessonNext->setToolTip(QStringLiteral("Next step (Right, PageDown or Space)"));
    m_lessonEnd->setToolTip(QStringLiteral("Leave the lesson (Escape)"));
    m_lessonName = new QLabel;
    m_lessonTitle = new QLabel;
    m_lessonLabel = new QLabel;
    m_lessonChanges = new QLabel;
    m_lessonChanges->setObjectName(QStringLiteral("lessonChanges"));
    m_lessonLabel->setWordWrap(true);
    m_lessonName->setWordWrap(true); // a long title must not widen the window
    m_lessonTitle->setWordWrap(true);
    m_lessonChanges->setWordWrap(true);
    setTypeScale(1.0);
    auto *top = new QHBoxLayout;
    top->setSpacing(8);
    top->addWidget(m_lessonPrev, 0, Qt::AlignTop);
    top->addWidget(m_lessonNext, 0, Qt::AlignTop);
    // The lesson's name beside the buttons; the step's title on a row of its own, the
    // bar's full width, so a long one wraps instead of being cut by the buttons' height.
    top->addWidget(m_lessonName, 1, Qt::AlignVCenter);
    top->addWidget(m_lessonEnd, 0, Qt::AlignTop);
    lessonLayout->addLayout(top);
    lessonLayout->addWidget(m_lessonTitle);
    lessonLayout->addWidget(m_lessonLabel);
    lessonLayout->addWidget(m_lessonChanges);
    setVisible(false);
    connect(m_lessonPrev, &QPushButton::clicked, this, [this] { stepLesson(-1); });
    connect(m_lessonNext, &QPushButton::clicked, this, [this] { stepLesson(+1); });
    connect(m_lessonEnd, &QPushButton::clicked, this, &LessonPlayer::endLesson);
}

void LessonPlayer::startLesson(int index)
{
    if (index < 0 || index >= int(m_lessons.size()))
        return;
    const bool wasRunning = m_lesson >= 0;
    m_lesson = index;
    m_lessonStep = 0;
    setVisible(true);
    // The presenter keys, whatever has focus: see eventFilter().
    qApp->installEventFilter(this);
    applyLessonStep();
    if (!wasRunning)
        emit runningChanged(true);
}

void LessonPlayer::setTypeScale(double scale)
{
    const auto sized = [scale](QFont f, double points) {
        f.setPointSizeF(points * scale);
        return f;
    };
    QFont text = sized(m_lessonLabel->font(), 15);
    text.setBold(false);
    m_lessonLabel->setFont(text);
    text.setBold(true);
    m_lessonTitle->setFont(text);
    m_lessonName->setFont(sized(m_lessonName->font(), 12));
    QFont changes = sized(m_lessonChanges->font(), 13);
    changes.setItalic(true);
    m_lessonChanges->setFont(changes);
    // The buttons keep one size whatever their label, so repeated clicks land on Next.
    const QFont buttonFont = sized(m_lessonPrev->font(), 13);
    QSize buttonSize(0, 0);
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd}) {
        b->setFont(buttonFont);
        b->setMinimumSize(0, 0);
        b->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
        buttonSize = buttonSize.expandedTo(b->sizeHint());
    }
    buttonSize = buttonSize.expandedTo(QSize(int(120 * scale), int(40 * scale)));
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd})
        b->setFixedSize(buttonSize);
}

double LessonPlayer::sentencePointSize() const
{
    return m_lessonLabel->font().pointSizeF();
}

bool LessonPlayer::stepLesson(int delta)
{
    if (m_lesson < 0)
        return false;
    const int next = m_lessonStep + delta;
    if (next < 0 || next >= int(m_lessons[std::size_t(m_lesson)].steps.size()))
        return false;
    m_lessonStep = next;
    applyLessonStep();
    return true;
}

void LessonPlayer::goToLessonStep(int step)
{
    if (m_lesson < 0)
        return;
    const int last = int(m_lessons[std::size_t(m_lesson)].steps.size()) - 1;
    step = std::clamp(step, 0, last);
    if (step == m_lessonStep)
        return;
    m_lessonStep = step;
    applyLessonStep();
}

void LessonPlayer::endLesson()
{
    const bool wasRunning = m_lesson >= 0;
    m_lesson = -1;
    setVisible(false);
    qApp->removeEventFilter(this);
    if (wasRunning)
        emit runningChanged(false);
}

QString LessonPlayer::lessonText() const
{
    return m_lesson < 0 ? QString() : m_lessonLabel->text();
}

QString LessonPlayer::lessonChangesText() const
{
    return m_lesson < 0 ? QString() : m_lessonChanges->text();
}

bool LessonPlayer::handleLessonKey(QKeyEvent *event)
{
    // Plain keys only (a keypad's PageDown too): Ctrl+Home and the like stay the widget's.
    if ((event->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false;
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
        if (event->type() == QEvent::KeyPress)
            stepLesson(+1);
        return true;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
    case Qt::Key_Backspace:
        if (event->type() == QEvent::KeyPress)
            stepLesson(-1);
        return true;
    case Qt::Key_Home:
        if (event->type() == QEvent::KeyPress)
            goToLessonStep(0);
        return true;
    case Qt::Key_End:
        if (event->type() == QEvent::KeyPress)
            goToLessonStep(std::numeric_limits<int>::max());
        return true;
    case Qt::Key_Escape:
        if (event->type() == QEvent::KeyPress)
            endLesson();
        return true;
    default:
        return false;
    }
}

bool LessonPlayer::eventFilter(QObject *watched, QEvent *event)
{
    const QEvent::Type type = event->type();
    if (m_lesson >= 0 && (type == QEvent::KeyPress || type == QEvent::ShortcutOverride)) {
        // Keys for this window's widgets only: a file dialog, a menu or a combo box's
        // open list keep theirs. Taking the ShortcutOverride keeps shortcuts (Escape's
        // leave-full-screen) from firing; taking the KeyPress keeps the focused widget
        // (a spin box's cursor, a slider's Home, the tab bar's arrows) from acting too.
        auto *widget = qobject_cast<QWidget *>(watched);
        if (widget && widget->window() == window() &&
            handleLessonKey(static_cast<QKeyEvent *>(event))) {
            event->accept();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void LessonPlayer::applyLessonStep()
{
    const Lesson &lesson = m_lessons[std::size_t(m_lesson)];
    const LessonStep &step = lesson.steps[std::size_t(m_lessonStep)];
    const ScenarioDocument doc = lessonDocument(lesson, m_lessonStep);
    // What the step changes on screen, named: with the advanced settings hidden the
    // sentence alone would not say that the sequence length or the offload moved.
    const ScenarioSnapshot before = ScenarioSnapshot::of(*m_session);
    m_asOneChange([this, &doc] {
        m_session->setUnit(doc.unit);
        m_session->setScenario(doc.scenario);
    });
    m_lessonChanges->setText(
        changesSentence(scenarioChanges(before.scenario, before.unit, doc.scenario, doc.unit)));
    emit viewRequested(lessonViewAt(lesson, m_lessonStep));
    m_lessonName->setText(lesson.title);
    m_lessonTitle->setText(QStringLiteral("Step %1 of %2: %3")
                               .arg(m_lessonStep + 1)
                               .arg(lesson.steps.size())
                               .arg(step.title));
    m_lessonLabel->setText(step.text);
}

} // namespace shardscope
