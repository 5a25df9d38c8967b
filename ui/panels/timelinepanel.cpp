#include "timelinepanel.h"

#include "chartparts.h"
#include "defaults.h"
#include "estimate.h"
#include "lazyrefresh.h"
#include "session.h"
#include "settingeditor.h"
#include "stagememorychart.h"
#include "timelineview.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace shardscope {

namespace {

constexpr int scrubSteps = 10000;
constexpr int halvesSpacing = 20; ///< pixels between the settings' halves side by side
constexpr double speeds[] = {0.25, 0.5, 1, 2, 4, 8};

QString percent(double fraction)
{
    if (!std::isfinite(fraction))
        return QStringLiteral("–");
    return QString::number(fraction * 100, 'f', 1) + QLatin1Char('%');
}

/// The playhead readout: "t = 12.0 of 21" in time units, or with `secondsPerUnit` > 0
/// "t = 3.21 of 6.89 s" (two decimals under 10 s, one under 1,000 s, else none).
QString timeReadout(double time, double end, double secondsPerUnit)
{
    if (secondsPerUnit > 0) {
        const double e = end * secondsPerUnit;
        const int decimals = e < 10 ? 2 : e < 1000 ? 1 : 0;
        return QStringLiteral("t = %1 of %2 s")
            .arg(time * secondsPerUnit, 0, 'f', decimals)
            .arg(e, 0, 'f', decimals);
    }
    return QStringLiteral("t = %1 of %2").arg(time, 0, 'f', 1).arg(QString::number(end, 'g', 6));
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

/// The closed form of a schedule's bubble and the explanation lines (rich text).
struct Explanation
{
    QString shareLine;
    QString overIdealLine;
};

Explanation explain(const ScheduleParams &sp, const Timeline &t)
{
    // The closed forms are the engine's (bubbleClosedForm, docs/pipeline.md).
    const BubbleClosedForm f = bubbleClosedForm(sp);
    const QString shareFormula =
        QString::fromUtf8(f.shareFormula.data(), qsizetype(f.shareFormula.size()));
    const QString overFormula =
        QString::fromUtf8(f.overIdealFormula.data(), qsizetype(f.overIdealFormula.size()));
    const QString source = QString::fromUtf8(f.source.data(), qsizetype(f.source.size()));
    const long long num = f.idle, shareDen = f.shareDenominator, overDen = f.overIdealDenominator;
    const double shareClosed = f.share();
    const double overClosed = f.overIdeal();
    const bool agrees =
        close(shareClosed, t.bubbleFraction) && close(overClosed, t.bubbleOverIdeal);

    Explanation e;
    if (agrees) {
        e.shareLine = QStringLiteral("= %1 = %2/%3: idle share of p × step time")
                          .arg(shareFormula)
                          .arg(num)
                          .arg(shareDen);
        e.overIdealLine = QStringLiteral("<b>%1</b> over ideal compute = %2 = %3/%4 (%5)")
                              .arg(percent(t.bubbleOverIdeal), overFormula)
                              .arg(num)
                              .arg(overDen)
                              .arg(source);
    } else {
        e.shareLine = QStringLiteral("measured on the simulated schedule: idle share of p × "
                                     "step time (%1 = %2 does not hold here)")
                          .arg(shareFormula, percent(shareClosed));
        e.overIdealLine =
            QStringLiteral("<b>%1</b> over ideal compute, measured (%2 = %3 "
                           "assumes %4)")
                .arg(percent(t.bubbleOverIdeal), overFormula, percent(overClosed), source);
    }
    return e;
}

} // namespace

TimelinePanel::TimelinePanel(Session *session, QWidget *parent)
    : ChartView(parent), m_session(session)
{
    setFocusPolicy(Qt::StrongFocus);

    // Schedule settings: the settings table's editors (ranges, tooltips and edits the
    // Advanced panel's), named "timeline:<key>" beside its "setting:<key>".
    const auto tableEditor = [this](const char *key) {
        auto *editor = new SettingEditor(*settingByKey(key), m_session, this);
        editor->widget()->setParent(this);
        editor->widget()->setObjectName(QStringLiteral("timeline:") + QLatin1String(key));
        m_editors.push_back(editor);
        return editor->widget();
    };
    m_schedule = qobject_cast<QComboBox *>(tableEditor("schedule"));
    m_stages = qobject_cast<QSpinBox *>(tableEditor("pp"));
    m_microBatches = qobject_cast<QSpinBox *>(tableEditor("microbatches"));
    m_chunks = qobject_cast<QSpinBox *>(tableEditor("chunks"));
    Q_ASSERT(m_schedule && m_stages && m_microBatches && m_chunks);

    // Playback.
    m_stepBack = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekBackward),
                                 QStringLiteral("Step"), this);
    m_stepBack->setToolTip(QStringLiteral("Back one operation boundary (Left arrow)"));
    m_stepBack->setAccessibleName(QStringLiteral("Step back"));
    m_play = new QPushButton(this);
    m_play->setToolTip(QStringLiteral("Play / pause (Space)"));
    m_stepForward = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward),
                                    QStringLiteral("Step"), this);
    m_stepForward->setToolTip(QStringLiteral("Forward one operation boundary (Right arrow)"));
    m_stepForward->setAccessibleName(QStringLiteral("Step forward"));
    m_speed = new QComboBox(this);
    for (double s : speeds)
        m_speed->addItem(QStringLiteral("%1×").arg(s), s);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(
        QStringLiteral("Playback speed: 1× = %1 forward passes per second").arg(unitsPerSecond));
    m_time = new QLabel(this);
    for (QWidget *w : {static_cast<QWidget *>(m_play), static_cast<QWidget *>(m_stepBack),
                       static_cast<QWidget *>(m_stepForward)})
        w->setFocusPolicy(Qt::NoFocus);

    // Two groups, side by side when the panel is wide enough and stacked when it is not
    // (resizeEvent), so a 1600-pixel window shows the whole row without scrolling; the
    // settings themselves in two halves, one above the other where even they are too wide
    // (presentation type at 1280 x 720).
    m_settingsRow = new QWidget(this);
    m_playbackRow = new QWidget(this);
    m_settingsHalves = {new QWidget(m_settingsRow), new QWidget(m_settingsRow)};
    m_settingsLayout = new QBoxLayout(QBoxLayout::LeftToRight, m_settingsRow);
    m_settingsLayout->setContentsMargins(0, 0, 0, 0);
    m_settingsLayout->setSpacing(halvesSpacing);
    auto *first = new QHBoxLayout(m_settingsHalves[0]);
    auto *second = new QHBoxLayout(m_settingsHalves[1]);
    auto *playback = new QHBoxLayout(m_playbackRow);
    m_playbackLayout = playback;
    for (QHBoxLayout *row : {first, second, playback}) {
        row->setContentsMargins(0, 0, 0, 0);
        row->setSpacing(8);
    }
    const auto addLabelled = [&](QHBoxLayout *row, const QString &text, QWidget *w) {
        auto *label = new QLabel(text, this);
        label->setBuddy(w);
        m_controlLabels.push_back(label);
        row->addWidget(label);
        row->addWidget(w);
        return label;
    };
    addLabelled(first, QStringLiteral("&Schedule"), m_schedule);
    first->addSpacing(12);
    addLabelled(first, QStringLiteral("Stages &p"), m_stages);
    first->addStretch(1);
    addLabelled(second, QStringLiteral("Micro-batches &m"), m_microBatches);
    second->addSpacing(12);
    m_chunksLabel = addLabelled(second, QStringLiteral("Chunks &v"), m_chunks);
    second->addStretch(1);
    m_settingsLayout->addWidget(m_settingsHalves[0]);
    m_settingsLayout->addWidget(m_settingsHalves[1]);
    m_settingsLayout->addStretch(1);
    playback->addWidget(m_stepBack);
    playback->addWidget(m_play);
    playback->addWidget(m_stepForward);
    addLabelled(playback, QStringLiteral("Spee&d"), m_speed);
    playback->addSpacing(8);
    playback->addWidget(m_time);
    playback->addStretch(1);
    m_controls = new QBoxLayout(QBoxLayout::LeftToRight);
    m_controls->setSpacing(4);
    m_controls->addWidget(m_settingsRow, 1);
    m_controls->addWidget(m_playbackRow);

    // The bubble in large type with its formula beside it.
    m_bubble = new QLabel(this);
    // Its one line does not bound the panel's width: arrangeControls() breaks it in two.
    m_bubble->setMinimumWidth(1);
    m_formula = new QLabel(this);
    m_formula->setTextFormat(Qt::RichText);
    m_formula->setWordWrap(true);
    m_bubbleRow = new QBoxLayout(QBoxLayout::LeftToRight);
    m_bubbleRow->setSpacing(24);
    m_bubbleRow->addWidget(m_bubble);
    m_bubbleRow->addWidget(m_formula, 1);

    m_error = new QLabel(this);
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: white; background: #B3261E; padding: 6px;"));
    m_error->setVisible(false);

    m_view = new TimelineView(this);
    m_memory = new StageMemoryChart(this);

    // The scrub slider spans the plots' time axis.
    m_scrub = new QSlider(Qt::Horizontal, this);
    m_scrub->setRange(0, scrubSteps);
    m_scrub->setFocusPolicy(Qt::NoFocus);
    m_scrub->setToolTip(QStringLiteral("Scrub through the step"));
    auto *scrubRow = new QHBoxLayout;
    scrubRow->setContentsMargins(TimelineView::leftMargin - 10, 0, TimelineView::rightMargin - 10,
                                 0);
    scrubRow->addWidget(m_scrub);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 6);
    layout->setSpacing(4);
    layout->addLayout(m_controls);
    layout->addLayout(m_bubbleRow);
    layout->addWidget(m_error);
    // The memory chart under the timeline labels the time axis both share; the scrub bar
    // runs under those numbers (under the timeline's own when the memory chart is out).
    layout->addWidget(m_view, 5);
    layout->addWidget(m_memory, 3);
    layout->addLayout(scrubRow);
    // Only the wider group bounds the panel's width (arrangeControls() stacks them);
    // explicit minimums stop the side-by-side layout from adding the two together.
    m_settingsRow->setMinimumWidth(1);
    m_playbackRow->setMinimumWidth(1);
    applyStyle();

    m_timer = new QTimer(this);
    m_timer->setTimerType(Qt::PreciseTimer);
    m_timer->setInterval(1000 / 60);
    connect(m_timer, &QTimer::timeout, this, [this] {
        const double seconds = double(m_clock.nsecsElapsed()) / 1e9;
        m_clock.restart();
        advance(seconds);
    });

    // Controls write to the model only (the table editors above included); the model's
    // changed() redraws everything.
    connect(m_play, &QPushButton::clicked, this, &TimelinePanel::togglePlay);
    connect(m_stepBack, &QPushButton::clicked, this, &TimelinePanel::stepBack);
    connect(m_stepForward, &QPushButton::clicked, this, &TimelinePanel::stepForward);
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0)
            m_speedFactor = m_speed->itemData(index).toDouble();
    });
    connect(m_scrub, &QSlider::valueChanged, this,
            [this](int value) { setPlayhead(double(value) / scrubSteps * m_timeline.makespan); });
    connect(m_view, &TimelineView::seekRequested, this, [this](double time) {
        pause();
        setPlayhead(time);
        setFocus(Qt::MouseFocusReason);
    });
    new LazyRefresh(this, m_session, [this] { refresh(); });

    updatePlaybackControls();
    refresh();
}

void TimelinePanel::restyle()
{
    applyPanelStyle(this, chartStyle());
    applyStyle();
}

void TimelinePanel::beginSlide()
{
    // A slide shows the bubble, the schedule and the memory line, not live controls.
    m_controlsBeforeSlide = m_controlsShown;
    setControlsShown(false);
}

void TimelinePanel::endSlide()
{
    setControlsShown(m_controlsBeforeSlide);
}

void TimelinePanel::applyStyle()
{
    const ChartStyle &st = chartStyle();
    // Compact, the charts' type steps down (presentation's 1.5 to 1.2), as the window's
    // verdict and tabs do on a short screen: two charts with their legends and a time axis
    // fit a 720-pixel screen's tab only so.
    ChartStyle charts = st;
    if (m_compact)
        charts.fontScale = std::min(st.fontScale, compactChartScale);
    m_view->setChartStyle(charts);
    m_memory->setChartStyle(charts);
    // Compact controls 10 pt, at most 12 pt in presentation type: the settings on one row.
    QFont controlFont = st.font(font(), 13);
    if (m_compact)
        controlFont.setPointSizeF(10 * std::min(st.fontScale, 1.2));
    for (QLabel *label : m_controlLabels)
        label->setFont(controlFont);
    for (QWidget *w : {static_cast<QWidget *>(m_schedule), static_cast<QWidget *>(m_stages),
                       static_cast<QWidget *>(m_microBatches), static_cast<QWidget *>(m_chunks),
                       static_cast<QWidget *>(m_play), static_cast<QWidget *>(m_stepBack),
                       static_cast<QWidget *>(m_stepForward), static_cast<QWidget *>(m_speed),
                       static_cast<QWidget *>(m_time)})
        w->setFont(controlFont);
    const int icon = int(16 * st.fontScale);
    for (QPushButton *b : {m_stepBack, m_play, m_stepForward})
        b->setIconSize(QSize(icon, icon));
    m_play->setMinimumWidth(int(120 * (m_compact ? std::min(st.fontScale, 1.2) : st.fontScale)));
    // Compact, the step buttons are their icons (their tooltips and names say the rest), so
    // that the bubble figure fits at the end of the row.
    m_stepBack->setText(m_compact ? QString() : QStringLiteral("Step"));
    m_stepForward->setText(m_compact ? QString() : QStringLiteral("Step"));
    m_bubble->setFont(st.font(font(), m_compact ? 18 : 30, true));
    m_formula->setFont(st.font(font(), 15));
    m_formula->setVisible(!m_compact);
    m_bubble->setToolTip(m_compact ? m_formula->text() : QString());
    m_error->setFont(st.font(font(), 15, true));
    // Minimum heights: the legend row and the time axis grow with the type (about 110 px
    // at 1x; 50 px for the timeline's legend and bare axis line under which the memory
    // chart labels the time), over rows of 100 px for the stages and 80 px for the memory
    // lines, 60 and 70 px in compact type. The rest of the tab goes 5 : 3 to them, 2 : 3
    // in compact type (the memory axis' second number needs the height).
    m_memory->setMinimumHeight(int(110 * charts.fontScale) + (m_compact ? 70 : 80));
    if (auto *box = qobject_cast<QBoxLayout *>(layout())) {
        box->setStretchFactor(m_view, m_compact ? 2 : 5);
        box->setStretchFactor(m_memory, 3);
    }
    updateChartVisibility();

    updateMinimumWidth();
    arrangeControls();
}

void TimelinePanel::updateMinimumWidth()
{
    // The time readout as wide as its widest text, at the end of the step ("t = 753.0 of
    // 753"), so that it does not jump while playing and widens the panel no more.
    const double end = m_timeline.valid() ? std::max(0.0, m_timeline.makespan) : 0;
    m_time->setMinimumWidth(
        QFontMetrics(m_time->font())
            .horizontalAdvance(timeReadout(end, end, m_view->secondsPerUnit())) +
        4);
    // The panel is as wide as the widest control group at this size.
    const int widest = std::max({m_settingsHalves[0]->minimumSizeHint().width(),
                                 m_settingsHalves[1]->minimumSizeHint().width(),
                                 m_playbackRow->minimumSizeHint().width()});
    const QMargins margins = layout()->contentsMargins();
    setMinimumWidth(widest + margins.left() + margins.right());
}

void TimelinePanel::refresh()
{
    // Runs when the Session changed and the panel is on screen (LazyRefresh).
    syncControls();
    const Scenario &s = m_session->scenario();
    const ScheduleParams params = m_session->scheduleParameters();
    if (!m_haveTimeline || !(params == m_params)) {
        m_params = params;
        m_haveTimeline = true;
        m_timeline = m_session->timeline(); // the Session simulates the schedule
        m_boundaries.clear();
        for (const StageTimeline &st : m_timeline.stages)
            for (const PipelineOp &op : st.ops) {
                m_boundaries.push_back(op.start);
                m_boundaries.push_back(op.end);
            }
        m_boundaries.push_back(0);
        std::sort(m_boundaries.begin(), m_boundaries.end());
        m_boundaries.erase(std::unique(m_boundaries.begin(), m_boundaries.end()),
                           m_boundaries.end());
        m_view->setTimeline(m_timeline);
        updateMinimumWidth(); // the time readout's digits
        if (!m_timeline.valid() || m_timeline.makespan <= 0)
            pause();
    }
    // Seconds on the time axes when the step can be timed (core/steptime.h).
    const double perUnit = secondsPerTimelineUnit(m_session->stepTime(), params.microBatches);
    if (perUnit != m_view->secondsPerUnit()) {
        m_view->setSecondsPerUnit(perUnit);
        m_memory->setSecondsPerUnit(perUnit);
        updateMinimumWidth(); // the readout's digits
    }
    m_memory->setData(s, m_session->report(), m_timeline, m_session->unit());
    m_memory->setMeasuredTrace(m_session->measuredTrace(), m_session->measuredTraceLabel());
    setPlayhead(m_view->playhead());

    QString error;
    if (!m_timeline.valid())
        error = QStringLiteral("Cannot schedule: ") + QString::fromStdString(m_timeline.error);
    else if (!m_session->report().valid())
        error =
            QStringLiteral("Memory engine: ") + QString::fromStdString(m_session->report().error);
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    // An impossible layout shows its one message, not empty plots with broken axes.
    m_drawable = error.isEmpty();
    updateChartVisibility();
    updateBubbleText();
    updatePlaybackControls();
}

void TimelinePanel::updateChartVisibility()
{
    const bool memory = m_drawable && m_memoryShown;
    m_view->setVisible(m_drawable);
    m_memory->setVisible(memory);
    m_scrub->setVisible(m_drawable && m_controlsShown);
    m_view->setTimeAxisLabelled(!memory);
    const double scale = m_view->chartStyle().fontScale;
    m_view->setMinimumHeight(int((memory ? 50 : 110) * scale) + (m_compact ? 60 : 100));
}

void TimelinePanel::setMemoryChartShown(bool shown)
{
    if (shown == m_memoryShown)
        return;
    m_memoryShown = shown;
    updateChartVisibility();
}

void TimelinePanel::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    applyStyle();
}

void TimelinePanel::setScheduleSettingsShown(bool shown)
{
    if (shown == m_settingsShown)
        return;
    m_settingsShown = shown;
    m_settingsRow->setVisible(shown && m_controlsShown);
    layout()->activate();
}

void TimelinePanel::setControlsShown(bool shown)
{
    m_controlsShown = shown;
    m_settingsRow->setVisible(shown && m_settingsShown);
    m_playbackRow->setVisible(shown);
    m_scrub->setVisible(shown && m_drawable);
    arrangeControls(); // the bubble figure leaves the playback row for a slide
    layout()->activate();
}

void TimelinePanel::syncControls()
{
    const Scenario &s = m_session->scenario();
    for (SettingEditor *e : m_editors)
        e->sync(s);
    const bool interleaved = s.training.schedule == PipelineSchedule::Interleaved1F1B;
    m_chunks->setEnabled(interleaved);
    m_chunksLabel->setEnabled(interleaved);
}

void TimelinePanel::updateBubbleText()
{
    if (!m_timeline.valid() || m_timeline.stages.empty()) {
        m_bubbleLine = QStringLiteral("Bubble: no schedule");
        m_bubble->setText(m_bubbleLine);
        m_formula->setText(QString());
        m_bubble->setToolTip(QString());
        arrangeControls();
        return;
    }
    m_bubbleLine = QStringLiteral("Bubble %1 of the step").arg(percent(m_timeline.bubbleFraction));
    m_bubble->setText(m_bubbleLine);
    const Explanation e = explain(m_params, m_timeline);
    m_formula->setText(e.shareLine + QStringLiteral("<br>") + e.overIdealLine);
    m_bubble->setToolTip(m_compact ? m_formula->text() : QString());
    arrangeControls(); // the new text may need another line
}

void TimelinePanel::updatePlaybackControls()
{
    const bool playing = isPlaying();
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(playing ? QStringLiteral("Pause") : QStringLiteral("Play"));
    const bool any = m_timeline.valid() && m_timeline.makespan > 0;
    for (QWidget *w : {static_cast<QWidget *>(m_play), static_cast<QWidget *>(m_stepBack),
                       static_cast<QWidget *>(m_stepForward), static_cast<QWidget *>(m_scrub)})
        w->setEnabled(any);
}

QString TimelinePanel::bubbleText() const
{
    return m_bubbleLine;
}

QString TimelinePanel::formulaText() const
{
    return plainTextOf(m_formula->text());
}

QString TimelinePanel::errorText() const
{
    return m_error->text();
}

QString TimelinePanel::timeText() const
{
    return m_time->text();
}

bool TimelinePanel::isPlaying() const
{
    return m_timer->isActive();
}

void TimelinePanel::play()
{
    if (!m_timeline.valid() || m_timeline.makespan <= 0)
        return;
    if (m_playhead >= m_timeline.makespan)
        setPlayhead(0);
    m_clock.start();
    m_timer->start();
    updatePlaybackControls();
}

void TimelinePanel::pause()
{
    m_timer->stop();
    updatePlaybackControls();
}

void TimelinePanel::togglePlay()
{
    if (isPlaying())
        pause();
    else
        play();
}

void TimelinePanel::stepForward()
{
    pause();
    auto it = std::upper_bound(m_boundaries.begin(), m_boundaries.end(), m_playhead + 1e-9);
    setPlayhead(it == m_boundaries.end() ? m_timeline.makespan : *it);
}

void TimelinePanel::stepBack()
{
    pause();
    auto it = std::lower_bound(m_boundaries.begin(), m_boundaries.end(), m_playhead - 1e-9);
    setPlayhead(it == m_boundaries.begin() ? 0 : *(it - 1));
}

void TimelinePanel::setSpeed(double factor)
{
    if (!std::isfinite(factor))
        return;
    m_speedFactor = std::clamp(factor, speeds[0], speeds[std::size(speeds) - 1]);
    const QSignalBlocker block(m_speed);
    int best = 0;
    for (int i = 0; i < m_speed->count(); ++i)
        if (std::abs(m_speed->itemData(i).toDouble() - m_speedFactor) <
            std::abs(m_speed->itemData(best).toDouble() - m_speedFactor))
            best = i;
    m_speed->setCurrentIndex(best);
}

void TimelinePanel::advance(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return;
    const double next = m_playhead + seconds * m_speedFactor * unitsPerSecond;
    if (next >= m_timeline.makespan) {
        setPlayhead(m_timeline.makespan);
        pause();
    } else {
        setPlayhead(next);
    }
}

void TimelinePanel::setPlayhead(double time)
{
    const double end = m_timeline.valid() ? std::max(0.0, m_timeline.makespan) : 0;
    m_playhead = std::isfinite(time) ? std::clamp(time, 0.0, end) : 0;
    m_view->setPlayhead(m_playhead);
    m_memory->setPlayhead(m_playhead);
    {
        const QSignalBlocker block(m_scrub);
        m_scrub->setValue(end > 0 ? int(std::lround(m_playhead / end * scrubSteps)) : 0);
    }
    m_time->setText(timeReadout(m_playhead, end, m_view->secondsPerUnit()));
}

void TimelinePanel::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Space:
        togglePlay();
        break;
    case Qt::Key_Left:
        stepBack();
        break;
    case Qt::Key_Right:
        stepForward();
        break;
    case Qt::Key_Home:
        pause();
        setPlayhead(0);
        break;
    case Qt::Key_End:
        pause();
        setPlayhead(m_timeline.makespan);
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelinePanel::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    arrangeControls();
}

void TimelinePanel::arrangeControls()
{
    // The panel may be narrower than both groups side by side: stack them then.
    const int settings = m_settingsHalves[0]->minimumSizeHint().width() + halvesSpacing +
                         m_settingsHalves[1]->minimumSizeHint().width();
    const int playback = m_playbackRow->minimumSizeHint().width();
    const QMargins margins = layout()->contentsMargins();
    const int room = width() - margins.left() - margins.right();
    const bool sideBySide = room >= settings + playback + m_controls->spacing() + 24;
    m_controls->setDirection(sideBySide ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    const bool settingsInOneRow = room >= settings;
    m_settingsLayout->setDirection(settingsInOneRow ? QBoxLayout::LeftToRight
                                                    : QBoxLayout::TopToBottom);
    m_settingsLayout->setSpacing(settingsInOneRow ? halvesSpacing : 4);

    // Compact, the bubble figure ends the playback row where it fits there ("Bubble 27.3% of
    // the step", else "Bubble 27.3%"): a 720-pixel screen's tab gives its own row to the
    // charts. A slide, without the playback row, has it on its own row.
    const QFontMetrics bubbleMetrics(m_bubble->font());
    const QString shortBubble = m_bubbleLine.section(QStringLiteral(" of "), 0, 0);
    const bool inRow = m_bubble->parentWidget() == m_playbackRow;
    int playbackAlone = 0; // the playback controls' width, without the figure
    for (int i = 0; i < m_playbackLayout->count(); ++i) {
        QLayoutItem *item = m_playbackLayout->itemAt(i);
        if (item->spacerItem())
            playbackAlone += item->sizeHint().width();
        else if (item->widget() != m_bubble && !item->isEmpty())
            playbackAlone += item->minimumSize().width() + m_playbackLayout->spacing();
    }
    const int free =
        (sideBySide ? room - settings - m_controls->spacing() : room) - playbackAlone - 8;
    QString rowText;
    if (m_compact && m_controlsShown) {
        if (bubbleMetrics.horizontalAdvance(m_bubbleLine) <= free)
            rowText = m_bubbleLine;
        else if (bubbleMetrics.horizontalAdvance(shortBubble) <= free)
            rowText = shortBubble;
    }
    const bool bubbleInRow = !rowText.isEmpty();
    if (bubbleInRow != inRow) {
        if (bubbleInRow) {
            m_bubbleRow->removeWidget(m_bubble);
            m_playbackLayout->addWidget(m_bubble); // after the row's stretch: at its end
        } else {
            m_playbackLayout->removeWidget(m_bubble);
            m_bubbleRow->insertWidget(0, m_bubble);
        }
        m_bubble->show();
    }
    if (bubbleInRow) {
        if (m_bubble->text() != rowText)
            m_bubble->setText(rowText);
        return;
    }

    // The formula beside the bubble figure, or under it where that is less tall (large
    // type in a narrow panel), and never squeezed below the height its lines need.
    // QLabel's height for a width is at least its minimum height: measure without it, or a
    // narrow panel's (a restyle while hidden) would stay the formula's height.
    m_formula->setMinimumHeight(0);
    const auto formulaHeight = [this](int width) {
        return std::max(0, m_formula->heightForWidth(width)); // -1: no text yet
    };
    // The bubble figure on one line where it fits, else on two (presentation type in a
    // 1280-pixel window: "Bubble 49.8%" over "of the step").
    QString bubble = m_bubbleLine;
    if (QFontMetrics(m_bubble->font()).horizontalAdvance(bubble) > room)
        bubble.replace(QStringLiteral(" of "), QStringLiteral("\nof "));
    if (m_bubble->text() != bubble)
        m_bubble->setText(bubble);
    const int bubbleWidth = m_bubble->sizeHint().width();
    const int bubbleHeight = m_bubble->sizeHint().height();
    const int besideWidth = std::max(1, room - bubbleWidth - m_bubbleRow->spacing());
    const int beside = std::max(bubbleHeight, formulaHeight(besideWidth));
    const int under = bubbleHeight + m_bubbleRow->spacing() + formulaHeight(room);
    const bool formulaBeside = beside <= under;
    m_bubbleRow->setDirection(formulaBeside ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
    m_formula->setMinimumHeight(formulaHeight(formulaBeside ? besideWidth : room));
}

void TimelinePanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    arrangeControls();
}

void TimelinePanel::hideEvent(QHideEvent *event)
{
    pause();
    QWidget::hideEvent(event);
}

} // namespace shardscope
