#include "lessonplayer.h"

#include "defaults.h"
#include "scenariochangecommand.h"
#include "scenariochanges.h"
#include "session.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QResizeEvent>
#include <QTextEdit>
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

int LessonPlayer::addLesson(Lesson lesson)
{
    m_lessons.push_back(std::move(lesson));
    return int(m_lessons.size()) - 1;
}

bool LessonPlayer::addDraftStep(const QString &title, const QString &text, LessonView view,
                                QString *error)
{
    const int index = int(m_draft.steps.size());
    const ScenarioDocument base = index == 0 ? ScenarioDocument{defaultScenario(), ByteUnit::GB}
                                             : lessonDocument(m_draft, index - 1);
    LessonStep step;
    step.title = title.trimmed();
    step.text = text.trimmed();
    step.view = view;
    step.patch = lessonStepPatch(base, {m_session->scenario(), m_session->unit()});
    Lesson next = m_draft;
    next.title = next.title.isEmpty() ? QStringLiteral("Draft") : next.title;
    next.steps.push_back(step);
    // The loader is the judge: a step that would not load back is not added.
    const QByteArray json = QJsonDocument(lessonToJson(next)).toJson();
    if (!lessonFromJson(json, QStringLiteral("the new lesson"), error))
        return false;
    m_draft.steps.push_back(std::move(step));
    return true;
}

bool LessonPlayer::saveDraft(const QString &path, const QString &title, QString *error)
{
    if (m_draft.steps.empty()) {
        *error = QStringLiteral("No steps yet: add one with Lessons > Add this view as a "
                                "lesson step");
        return false;
    }
    if (title.trimmed().isEmpty()) {
        *error = QStringLiteral("A lesson needs a title");
        return false;
    }
    m_draft.title = title.trimmed();
    m_draft.id = QFileInfo(path).completeBaseName().section(u'.', 0, 0);
    return saveLessonFile(path, m_draft, error);
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
    m_scale = scale;
    applyFonts();
}

void LessonPlayer::setCompact(bool compact)
{
    m_compact = compact;
    m_lessonTitle->setVisible(!compact);
    // Elided to the bar's width, the line must not ask for its text's width either.
    m_lessonChanges->setWordWrap(!compact);
    m_lessonChanges->setSizePolicy(compact ? QSizePolicy::Ignored : QSizePolicy::Preferred,
                                   QSizePolicy::Preferred);
    applyFonts();
    showTexts();
}

void LessonPlayer::applyFonts()
{
    const double scale = m_scale;
    const auto sized = [](QFont f, double points) {
        f.setPointSizeF(points);
        return f;
    };
    QFont text = sized(m_lessonLabel->font(), 15 * scale);
    text.setBold(false);
    m_lessonLabel->setFont(text);
    text.setBold(true);
    m_lessonTitle->setFont(text);
    // Compact: the name's place shows the step's title, in the title's type.
    m_lessonName->setFont(m_compact ? text : sized(m_lessonName->font(), 12 * scale));
    QFont changes = sized(m_lessonChanges->font(), 15 * scale);
    changes.setItalic(true);
    m_lessonChanges->setFont(changes);
    // The buttons keep one size whatever their label, so repeated clicks land on Next;
    // on a short screen at their normal size, which leaves the title room beside them.
    const double buttonScale = m_compact ? 1.0 : scale;
    const QFont buttonFont = sized(m_lessonPrev->font(), 13 * buttonScale);
    QSize buttonSize(0, 0);
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd}) {
        b->setFont(buttonFont);
        b->setMinimumSize(0, 0);
        b->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
        buttonSize = buttonSize.expandedTo(b->sizeHint());
    }
    buttonSize = buttonSize.expandedTo(
        QSize(int((m_compact ? 100 : 120) * buttonScale), int(40 * buttonScale)));
    for (QPushButton *b : {m_lessonPrev, m_lessonNext, m_lessonEnd})
        b->setFixedSize(buttonSize);
    showTexts();
}

void LessonPlayer::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (m_compact)
        showTexts();
}

void LessonPlayer::showTexts()
{
    if (m_lesson < 0)
        return;
    const Lesson &lesson = m_lessons[std::size_t(m_lesson)];
    const LessonStep &step = lesson.steps[std::size_t(m_lessonStep)];
    const QString stepTitle = QStringLiteral("Step %1 of %2: %3")
                                  .arg(m_lessonStep + 1)
                                  .arg(lesson.steps.size())
                                  .arg(step.title);
    m_lessonTitle->setText(stepTitle);
    m_lessonName->setText(m_compact ? stepTitle : lesson.title);
    m_lessonName->setToolTip(m_compact ? lesson.title : QString());
    const int width = m_lessonChanges->contentsRect().width();
    const bool elide = m_compact && width > 0;
    m_lessonChanges->setText(
        elide ? m_lessonChanges->fontMetrics().elidedText(m_changesFull, Qt::ElideRight, width)
              : m_changesFull);
    m_lessonChanges->setToolTip(elide ? m_changesFull : QString());
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
    m_session->setLessonStep(nullptr, 0);
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
    return m_lesson < 0 ? QString() : m_changesFull;
}

namespace {

/// True for widgets that edit text: a line edit (a spin box's or an editable combo's
/// too), a spin box, a text edit.
bool editsText(const QObject *o)
{
    return qobject_cast<const QLineEdit *>(o) || qobject_cast<const QAbstractSpinBox *>(o) ||
           qobject_cast<const QTextEdit *>(o) || qobject_cast<const QPlainTextEdit *>(o);
}

} // namespace

bool LessonPlayer::handleLessonKey(QObject *watched, QKeyEvent *event)
{
    // Plain keys only (a keypad's PageDown too): Ctrl+Home and the like stay the widget's.
    if ((event->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false;
    // In a text field the editing keys edit (Backspace deletes a typed digit, Home goes
    // to the start of the line); PageUp and PageDown, what clickers send, still step. The
    // focus decides, not `watched`: a key the field ignores (Escape) goes on to its
    // parents, and must not end the lesson there.
    const QObject *focus = QApplication::focusWidget();
    if ((editsText(watched) || editsText(focus)) && event->key() != Qt::Key_PageUp &&
        event->key() != Qt::Key_PageDown)
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
            handleLessonKey(watched, static_cast<QKeyEvent *>(event))) {
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
    // The lesson and step first: the chart's scale and ghost follow the same changed().
    m_session->setLessonStep(&lesson, m_lessonStep);
    m_asOneChange([this, &doc] {
        m_session->setUnit(doc.unit);
        m_session->setScenario(doc.scenario);
    });
    m_changesFull =
        changesSentence(scenarioChanges(before.scenario, before.unit, doc.scenario, doc.unit));
    emit viewRequested(lessonViewAt(lesson, m_lessonStep));
    showTexts();
    m_lessonLabel->setText(step.text);
}

} // namespace shardscope
