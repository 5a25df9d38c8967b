#include "planpanel.h"

#include "chartparts.h"
#include "estimate.h"
#include "inputlimits.h"
#include "lazyrefresh.h"
#include "planexplain.h"
#include "planjob.h"
#include "plantablemodel.h"
#include "plotwidget.h"
#include "scenariofile.h"
#include "session.h"
#include "wraprow.h"

#include <QCheckBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#include <qcustomplot.h>

namespace shardscope {

namespace {

/// The frontier's legend name in full; fitText() shortens it to "Pareto frontier".
QString frontierName()
{
    return QStringLiteral("Fastest for its memory (Pareto frontier)");
}

/// True when `c` describes the layout and batch `l`, `t` run (the fields the planner
/// searches).
bool sameLayout(const PlanCandidate &c, const Layout &l, const Training &t)
{
    const Layout &a = c.layout;
    const Training &b = c.training;
    return a.gpus == l.gpus && a.tensorParallel == l.tensorParallel &&
           a.pipelineParallel == l.pipelineParallel && a.contextParallel == l.contextParallel &&
           a.expertParallel == l.expertParallel && a.zeroStage == l.zeroStage &&
           a.hsdpShardSize == l.hsdpShardSize && a.offload == l.offload &&
           a.allowUnevenStages == l.allowUnevenStages && a.balancedStages == l.balancedStages &&
           b.microBatchSize == t.microBatchSize && b.microBatches == t.microBatches &&
           b.recompute == t.recompute && b.schedule == t.schedule && b.chunks == t.chunks &&
           b.sequenceLength == t.sequenceLength;
}

/// Okabe-Ito colours (Okabe and Ito 2008): blue for the layouts, vermillion for the
/// frontier; on a dark canvas their light variants, sky blue and orange.
QColor pointsColor(const ChartStyle &st)
{
    return st.isDark() ? QColor(0x56, 0xB4, 0xE9) : QColor(0x00, 0x72, 0xB2);
}

QColor frontierColor(const ChartStyle &st)
{
    return st.isDark() ? QColor(0xE6, 0x9F, 0x00) : QColor(0xD5, 0x5E, 0x00);
}

/// Counts with thousands separators, as formatBytes() writes bytes ("2,097,152").
QLocale countLocale()
{
    QLocale l(QLocale::English, QLocale::UnitedStates);
    l.setNumberOptions(QLocale::DefaultNumberOptions);
    return l;
}

QString number(std::int64_t v)
{
    return countLocale().toString(qlonglong(v));
}

/// The largest multiple of `step` a QSpinBox holds.
int spinMaximum(std::int64_t step)
{
    const std::int64_t s = std::max<std::int64_t>(1, step);
    return int(std::max<std::int64_t>(s, INT_MAX / s * s));
}

} // namespace

PlanPanel::PlanPanel(Session *session, QWidget *parent)
    : ChartView(parent), m_session(session), m_job(&session->planJob())
{
    m_rest = new QTimer(this);
    m_rest->setSingleShot(true);
    m_rest->setInterval(restMilliseconds);
    connect(m_rest, &QTimer::timeout, this, [this] {
        // A hidden tab of a shown window plans when it is next shown.
        if (window()->isVisible() && !isVisible()) {
            m_deferred = true;
            return;
        }
        if (!job().isRunning())
            startWorker(); // else the running plan's end starts the latest inputs
        else if (job().runningKey() != m_latest.key)
            cancelPlan(); // outdated: end it now, and its end starts the latest
    });
    connect(&job(), &PlanJob::progressed, this, &PlanPanel::showProgress);
    connect(&job(), &PlanJob::finished, this, &PlanPanel::planFinished);

    // Controls: the global batch, the GPU range, the export.
    m_batchLabel = new QLabel(QStringLiteral("Global &batch"), this);
    m_batch = new QSpinBox(this);
    m_batch->setLocale(countLocale());
    m_batch->setGroupSeparatorShown(true);
    m_batch->setSuffix(QStringLiteral(" tokens"));
    m_batch->setAccelerated(true);
    m_batch->setToolTip(QStringLiteral(
        "Tokens per training step, a multiple of the sequence length s. Follows m × b × d × s "
        "of the memory view's layout until you edit it."));
    m_batchLabel->setBuddy(m_batch);
    m_batchReset = new QToolButton(this);
    m_batchReset->setText(QStringLiteral("From layout"));
    m_batchReset->setToolTip(QStringLiteral("Use m × b × d × s of the memory view's layout again"));
    m_range = new QCheckBox(QStringLiteral("GPU &range"), this);
    m_range->setToolTip(QStringLiteral(
        "Plan every GPU count from the first to the second box, not only the memory view's"));
    m_minGpus = new QSpinBox(this);
    m_maxGpus = new QSpinBox(this);
    for (QSpinBox *box : {m_minGpus, m_maxGpus}) {
        box->setRange(1, int(std::min<std::int64_t>(maxGpus, INT_MAX)));
        box->setLocale(countLocale());
        box->setGroupSeparatorShown(true);
        box->setEnabled(false);
    }
    m_toLabel = new QLabel(QStringLiteral("to"), this);
    m_export = new QPushButton(QStringLiteral("&Export launch config…"), this);
    m_export->setToolTip(QStringLiteral(
        "Write the chosen row as a DeepSpeed, Accelerate (FSDP), torchtitan or Megatron-LM "
        "config, as "
        "`shardscope export-config` does"));
    m_export->setEnabled(false);

    // Three groups on one row, or on two where the tab is narrow (presentation type at
    // 1280 x 720): the batch, the GPU range, the export at the right.
    auto group = [](std::initializer_list<QWidget *> widgets) {
        auto *box = new QWidget;
        auto *row = new QHBoxLayout(box);
        row->setContentsMargins(0, 0, 0, 0);
        row->setSpacing(8);
        for (QWidget *w : widgets)
            row->addWidget(w);
        return box;
    };
    m_controls = new WrapRow(8, this);
    m_controls->addGroup(group({m_batchLabel, m_batch, m_batchReset}));
    m_controls->addGroup(group({m_range, m_minGpus, m_toLabel, m_maxGpus}));
    m_controls->addTrailingGroup(m_export);

    m_summary = new QLabel(this);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true); // large type in a narrow window takes two lines
    m_cancelButton = new QPushButton(QStringLiteral("&Cancel plan"), this);
    m_cancelButton->setToolTip(QStringLiteral("Stop the search running now"));
    m_cancelButton->setVisible(false);
    connect(m_cancelButton, &QPushButton::clicked, this, &PlanPanel::cancelPlan);
    auto *summaryRow = new QHBoxLayout;
    summaryRow->setSpacing(8);
    summaryRow->addWidget(m_summary, 1);
    summaryRow->addWidget(m_cancelButton, 0, Qt::AlignTop);
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: white; background: #B3261E; padding: 6px;"));
    m_message->setVisible(false);

    // The ranked table.
    m_model = new PlanTableModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSortIndicator(PlanTableModel::Rank, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    m_table->setAccessibleName(QStringLiteral("Layouts that fit, fastest first"));
    // What a row achieves first, then the layout that achieves it: the step, MFU and peak
    // columns beside the rank, on screen in a narrow tab without sideways scrolling (the
    // model's columns keep their order; only the view's sections move).
    int section = 1;
    for (const int column :
         {PlanTableModel::StepSeconds, PlanTableModel::Mfu, PlanTableModel::PeakMemory})
        m_table->horizontalHeader()->moveSection(m_table->horizontalHeader()->visualIndex(column),
                                                 section++);

    // The chart: points, frontier, the chosen row, the capacity line.
    m_plot = new PlotWidget(this);
    m_plot->setMinimumSize(360, 240); // x the style's type size (applyStyle())
    m_points = m_plot->addGraph();
    m_points->setName(QStringLiteral("Fitting layout"));
    m_points->setLineStyle(QCPGraph::lsNone);
    m_frontier = m_plot->addGraph();
    m_frontier->setName(frontierName());
    m_frontier->setLineStyle(QCPGraph::lsStepLeft);
    m_selected = m_plot->addGraph();
    m_selected->setName(QStringLiteral("Chosen row"));
    m_selected->setLineStyle(QCPGraph::lsNone);
    for (QCPGraph *g : {m_points, m_frontier, m_selected})
        g->setSelectable(QCP::stNone);
    m_capacityLine = new QCPItemStraightLine(m_plot);
    m_capacityLine->setVisible(false); // drawChart() places and shows it once points exist
    m_capacityLabel = addCapacityLabel(m_plot, Qt::AlignRight | Qt::AlignBottom);
    m_capacityLabel->setVisible(false);
    m_plotMessage = addPlotMessage(m_plot);
    m_plot->xAxis->setLabel(QStringLiteral("Step time (s)"));
    setMemoryAxis(m_plot->yAxis, 0, 1, 1.12, m_unit);
    placeLegendAbove(m_plot, 3, 24);
    adoptPlot(m_plot, Slide::Plot);

    m_split = new QSplitter(Qt::Vertical, this);
    QSplitter *split = m_split;
    split->addWidget(m_table);
    split->addWidget(m_plot);
    split->setChildrenCollapsible(false);
    connect(split, &QSplitter::splitterMoved, this, [this] { m_splitDragged = true; });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(10, 8, 10, 6);
    layout->setSpacing(6);
    layout->addWidget(m_controls);
    layout->addLayout(summaryRow);
    layout->addWidget(m_message);
    layout->addWidget(split, 1);

    connect(m_batch, &QSpinBox::valueChanged, this, [this] {
        m_batchFollows = false;
        refresh();
    });
    connect(m_batch, &QSpinBox::editingFinished, this, [this] {
        // Snap to the multiple of s the plan uses.
        const QSignalBlocker block(m_batch);
        m_batch->setValue(int(request().globalBatchTokens));
    });
    connect(m_batchReset, &QToolButton::clicked, this, [this] {
        m_batchFollows = true;
        refresh();
    });
    connect(m_range, &QCheckBox::toggled, this, [this](bool on) {
        if (on) {
            const QSignalBlocker b1(m_minGpus), b2(m_maxGpus);
            const int n = int(std::clamp<std::int64_t>(m_session->scenario().layout.gpus, 1,
                                                       m_maxGpus->maximum()));
            m_minGpus->setValue(std::max(1, n / 2));
            m_maxGpus->setValue(n);
        }
        refresh();
    });
    connect(m_minGpus, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_maxGpus, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_table, &QTableView::clicked, this,
            [this](const QModelIndex &index) { loadRow(index.row()); });
    connect(m_table, &QTableView::activated, this,
            [this](const QModelIndex &index) { loadRow(index.row()); });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this] { updateSelectedPoint(); });
    connect(m_export, &QPushButton::clicked, this, &PlanPanel::chooseExportFile);

    new LazyRefresh(this, m_session, [this] { refresh(); });
    applyStyle();
    syncControls();
}

PlanPanel::~PlanPanel()
{
    // QWidget's destructor deletes the children after this one has run: a focused spin box
    // then loses its focus and emits editingFinished into what is by then only a QWidget.
    // No child's signal reaches the panel from here on.
    for (QObject *child : findChildren<QObject *>())
        disconnect(child, nullptr, this, nullptr);
    // Nobody will show the running plan: stop it (the Session, if it is still there, owns
    // the job and joins its thread; the worker reads nothing of this panel).
    if (m_job)
        m_job->cancel();
}

PlanJob &PlanPanel::job() const
{
    return *m_job;
}

void PlanPanel::joinWorker()
{
    job().discard();
    m_cancelButton->setVisible(false);
}

std::int64_t PlanPanel::scenarioBatchTokens() const
{
    const Scenario &s = m_session->scenario();
    const std::int64_t seq = std::max<std::int64_t>(1, s.training.sequenceLength);
    const std::int64_t d = std::max<std::int64_t>(1, s.layout.dataParallel());
    // m x b x d sequences, at least one; a huge product is clamped to what the box holds.
    const double sequences = double(std::max<std::int64_t>(1, s.training.microBatches)) *
                             double(std::max<std::int64_t>(1, s.training.microBatchSize)) *
                             double(d);
    const double most = double(spinMaximum(seq) / seq);
    return std::int64_t(std::clamp(sequences, 1.0, most)) * seq;
}

PlanRequest PlanPanel::request() const
{
    return currentInputs().request;
}

QString PlanPanel::inputError() const
{
    return currentInputs().error;
}

PlanPanel::Inputs PlanPanel::currentInputs() const
{
    const Scenario &s = m_session->scenario();
    Inputs in;
    PlanRequest &q = in.request;
    q.base = s;
    if (m_range->isChecked()) {
        q.minGpus = m_minGpus->value();
        q.maxGpus = m_maxGpus->value();
    } else {
        q.minGpus = q.maxGpus = s.layout.gpus;
    }
    // As `shardscope plan`: when nothing fits, the single changes that would (a leaner
    // recipe among the catalog's).
    q.explainNothingFits = true;
    q.recipes = m_session->catalog().recipes();
    // As `shardscope plan`: t up to the GPUs per node.
    q.maxTensorParallel =
        int(std::clamp<std::int64_t>(s.layout.gpusPerNode, 1, std::int64_t(maxParallelDegree)));
    const std::int64_t seq = s.training.sequenceLength;
    if (m_batchFollows || seq < 1) {
        q.globalBatchTokens = scenarioBatchTokens();
    } else {
        // The box's value to the nearest multiple of s, at least s.
        const std::int64_t sequences =
            std::max<std::int64_t>(1, std::llround(double(m_batch->value()) / double(seq)));
        q.globalBatchTokens = sequences * seq;
    }

    // What plan() reads, in one fingerprint: the scenario with the searched fields
    // fixed (every setting is in a scenario file), the GPU's speeds, and the bounds.
    Scenario fixed = s;
    fixed.layout.gpus = q.minGpus;
    fixed.layout.tensorParallel = fixed.layout.pipelineParallel = fixed.layout.contextParallel =
        fixed.layout.expertParallel = 1;
    fixed.layout.zeroStage = ZeroStage::Ddp;
    fixed.layout.hsdpShardSize = 0;
    fixed.layout.offload = Offload::None;
    fixed.layout.allowUnevenStages = false; // the planner sets both per p
    fixed.layout.balancedStages = false;
    fixed.training.microBatchSize = fixed.training.microBatches = 1;
    fixed.training.recompute = Recompute::None;
    fixed.training.schedule = PipelineSchedule::OneFOneB;
    fixed.training.chunks = 1;
    fixed.modelStatesOnly = false;
    in.key = QJsonDocument(scenarioToJson(fixed, ByteUnit::GB)).toJson(QJsonDocument::Compact);
    in.key += QStringLiteral("|%1 %2 %3 %4 %5|%6 %7 %8 %9 %10")
                  .arg(q.minGpus)
                  .arg(q.maxGpus)
                  .arg(q.globalBatchTokens)
                  .arg(q.maxTensorParallel)
                  .arg(q.maxMicroBatchSize)
                  .arg(s.gpu.bf16FlopsPerSecond, 0, 'g', 17)
                  .arg(s.gpu.fp8FlopsPerSecond, 0, 'g', 17)
                  .arg(s.gpu.mxfp8FlopsPerSecond, 0, 'g', 17)
                  .arg(s.gpu.memoryBytesPerSecond, 0, 'g', 17)
                  .arg(s.gpu.nvlinkBytesPerSecond, 0, 'g', 17)
                  .toUtf8();

    // Refusals, each one line naming the input.
    if (!s.model.architecture) {
        in.error = QStringLiteral("Cannot plan: %1 has no architecture (a plain parameter count "
                                  "has no layers to split); choose a model preset")
                       .arg(s.model.displayName.empty() ? QStringLiteral("the model")
                                                        : toQString(s.model.displayName));
        return in;
    }
    // The scenario at t = p = c = 1 must estimate: a bad recipe, sequence length or
    // overhead is the scenario's error, not the planner's.
    const MemoryReport r = estimate(fixed);
    if (!r.valid()) {
        in.error = QStringLiteral("Cannot plan: ") + QString::fromStdString(r.error);
        return in;
    }
    in.capacityBytes = r.capacityBytes;
    return in;
}

void PlanPanel::syncControls()
{
    const Scenario &s = m_session->scenario();
    const std::int64_t seq = std::max<std::int64_t>(1, s.training.sequenceLength);
    {
        const QSignalBlocker block(m_batch);
        m_batch->setRange(int(std::min<std::int64_t>(seq, spinMaximum(seq))), spinMaximum(seq));
        m_batch->setSingleStep(int(std::min<std::int64_t>(seq, INT_MAX)));
        if (m_batchFollows)
            m_batch->setValue(int(scenarioBatchTokens()));
    }
    m_batchReset->setEnabled(!m_batchFollows);
    const bool range = m_range->isChecked();
    m_minGpus->setEnabled(range);
    m_maxGpus->setEnabled(range);
    m_toLabel->setEnabled(range);
    if (!range) {
        const QSignalBlocker b1(m_minGpus), b2(m_maxGpus);
        const int n = int(std::clamp<std::int64_t>(s.layout.gpus, 1, m_maxGpus->maximum()));
        m_minGpus->setValue(n);
        m_maxGpus->setValue(n);
    }
}

bool PlanPanel::isPlanning() const
{
    return m_rest->isActive() || job().isRunning() || m_deferred;
}

void PlanPanel::refresh()
{
    syncControls();
    m_latest = currentInputs();
    if (!m_latest.error.isEmpty()) {
        m_rest->stop();
        m_deferred = false;
        showMessage(m_latest.error, m_latest.key);
        return;
    }
    if (m_latest.key == m_shownKey) {
        m_rest->stop();
        m_deferred = false;
        redraw();
        return;
    }
    m_summary->setText(QStringLiteral("Planning…"));
    m_summary->setVisible(true);
    if (m_latest.key == job().runningKey()) {
        m_rest->stop(); // already on its way
        return;
    }
    m_rest->start(); // restarted by every change: plans once the session rests
}

void PlanPanel::planNow()
{
    m_rest->stop();
    m_deferred = false;
    joinWorker();
    syncControls();
    m_latest = currentInputs();
    if (!m_latest.error.isEmpty()) {
        showMessage(m_latest.error, m_latest.key);
        return;
    }
    QElapsedTimer clock;
    clock.start();
    PlanResult r = plan(m_latest.request);
    showResult(std::move(r), m_latest, double(clock.nsecsElapsed()) / 1e6);
}

void PlanPanel::startWorker()
{
    if (job().isRunning() || !m_latest.error.isEmpty() || m_latest.key == m_shownKey)
        return;
    job().start(m_latest.request, m_latest.key);
    m_cancelButton->setVisible(true);
}

void PlanPanel::cancelPlan()
{
    job().cancel();
}

void PlanPanel::showProgress(qint64 done, qint64 total)
{
    m_summary->setText(
        QStringLiteral("Planning… %1 of %2 layouts").arg(number(done), number(total)));
    m_summary->setVisible(true);
}

void PlanPanel::planFinished(const QByteArray &key, const PlanResult &result, double milliseconds)
{
    m_cancelButton->setVisible(false);
    if (key == m_latest.key && m_latest.error.isEmpty()) {
        if (result.cancelled) {
            // Cancelled by the user: say how far it got; a change of input plans again.
            showMessage(QStringLiteral("Plan cancelled after %1 of %2 layouts; change an input "
                                       "to plan again")
                            .arg(number(result.candidatesEvaluated + result.candidatesPruned +
                                        result.candidatesSlower),
                                 number(result.candidates)),
                        key);
            return;
        }
        showResult(result, m_latest, milliseconds);
        return;
    }
    // The inputs moved on while it ran: plan the latest, unless the rest timer will.
    if (!m_rest->isActive() && !m_deferred)
        startWorker();
}

void PlanPanel::showMessage(const QString &message, const QByteArray &key)
{
    m_shownKey = key;
    m_result = PlanResult{};
    m_result.error = message.toStdString();
    m_chosenRank = 0;
    m_model->clear();
    m_message->setText(message);
    m_message->setVisible(true);
    m_summary->setText(QString());
    m_summary->setVisible(false);
    m_export->setEnabled(false);
    drawChart();
    emit planned();
}

void PlanPanel::showResult(PlanResult result, const Inputs &inputs, double milliseconds)
{
    m_result = std::move(result);
    m_shownKey = inputs.key;
    m_shownRequest = inputs.request;
    m_capacityBytes = inputs.capacityBytes;
    m_unit = m_session->unit();
    if (!m_result.valid()) {
        showMessage(QStringLiteral("Cannot plan: ") + QString::fromStdString(m_result.error),
                    inputs.key);
        return;
    }
    const PlanRequest &q = inputs.request;
    const QString gpus = q.minGpus == q.maxGpus
                             ? number(q.minGpus)
                             : QStringLiteral("%1–%2").arg(number(q.minGpus), number(q.maxGpus));
    const QString what =
        QStringLiteral("%1 on %2 × %3, %4 tokens per step, s %5")
            .arg(toQString(q.base.model.displayName), gpus, toQString(q.base.gpu.name),
                 number(q.globalBatchTokens), number(q.base.training.sequenceLength));
    const std::int64_t fit = std::int64_t(m_result.fitting.size());
    // The headroom every row keeps: its peak at most (100 - N)% of the card's usable bytes.
    const std::int64_t limit =
        q.base.gpu.usableBytes() - q.base.gpu.usableBytes() / 100 * q.headroomPercent;
    m_summary->setText(QStringLiteral("%1: %2 candidates evaluated (%3 more skipped by the exact "
                                      "model-states bound), %4 fit with %6% headroom (peak at "
                                      "most %7); planned in %5 ms")
                           .arg(what, number(m_result.candidatesEvaluated),
                                number(m_result.candidatesPruned), number(fit))
                           .arg(milliseconds, 0, 'f', milliseconds < 10 ? 1 : 0)
                           .arg(q.headroomPercent)
                           .arg(toQString(formatBytes(limit, m_unit))));
    // Why the first row ranks above the second, on hover (the line stays short).
    m_summary->setToolTip(m_result.fitting.size() >= 2
                              ? toQString(whyFirstText(m_result.fitting[0], m_result.fitting[1]))
                              : QString());
    m_summary->setVisible(true);

    m_model->setCandidates(m_result.fitting, m_unit);
    // The chosen row: the session's own layout when the plan holds it.
    m_chosenRank = 0;
    const Scenario &s = m_session->scenario();
    for (std::size_t i = 0; i < m_result.fitting.size(); ++i)
        if (sameLayout(m_result.fitting[i], s.layout, s.training)) {
            m_chosenRank = int(i) + 1;
            break;
        }
    // Re-apply the header's sort (a reset shows rank order).
    const QHeaderView *header = m_table->horizontalHeader();
    m_model->sort(header->sortIndicatorSection(), header->sortIndicatorOrder());
    // Side by side, the rows' numbers widen the columns: the table keeps its four first
    // columns on screen unless the splitter was dragged.
    if (m_compact && m_splitPlaced && !m_splitDragged)
        placeSplit();

    if (m_result.fitting.empty()) {
        // What would fit: each single change the planner found (more GPUs, no headroom,
        // a leaner recipe, ...), with its fastest layout.
        QString text = toQString(nothingFitsText(m_result.fixes, m_unit)).trimmed();
        text.replace(0, int(std::string_view("Nothing fits").size()),
                     QStringLiteral("Nothing fits %1 × %2 at %3 tokens per step")
                         .arg(gpus, toQString(q.base.gpu.name), number(q.globalBatchTokens)));
        m_message->setText(text);
        m_message->setVisible(true);
    } else {
        m_message->setVisible(false);
        m_message->setText(QString());
    }
    m_export->setEnabled(!m_result.fitting.empty());
    redraw();
    emit planned();
}

void PlanPanel::redraw()
{
    if (m_session->unit() != m_unit) {
        m_unit = m_session->unit();
        m_model->setUnit(m_unit);
    }
    // The session now runs one of the rows (a row was loaded, or its layout set by hand).
    const Scenario &s = m_session->scenario();
    const int chosen = m_model->rowOfRank(m_chosenRank);
    const PlanCandidate *c = m_model->candidateAt(chosen);
    if (!c || !sameLayout(*c, s.layout, s.training)) {
        for (std::size_t i = 0; i < m_result.fitting.size(); ++i)
            if (sameLayout(m_result.fitting[i], s.layout, s.training)) {
                m_chosenRank = int(i) + 1;
                break;
            }
    }
    {
        const QSignalBlocker block(m_table->selectionModel());
        const int row = m_model->rowOfRank(m_chosenRank);
        if (row >= 0) {
            m_table->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                       QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        } else {
            m_table->selectionModel()->clear();
        }
    }
    drawChart();
}

std::vector<int> PlanPanel::paretoFrontier(const std::vector<PlanCandidate> &fitting)
{
    std::vector<int> timed;
    for (std::size_t i = 0; i < fitting.size(); ++i)
        if (fitting[i].time.valid() && std::isfinite(fitting[i].time.stepSeconds))
            timed.push_back(int(i));
    // Fastest first; among equal times the smallest first, so it alone can enter.
    std::stable_sort(timed.begin(), timed.end(), [&fitting](int a, int b) {
        const PlanCandidate &x = fitting[std::size_t(a)], &y = fitting[std::size_t(b)];
        if (x.time.stepSeconds != y.time.stepSeconds)
            return x.time.stepSeconds < y.time.stepSeconds;
        return x.peakBytes < y.peakBytes;
    });
    std::vector<int> frontier;
    std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
    for (int i : timed) {
        const std::int64_t bytes = fitting[std::size_t(i)].peakBytes;
        if (bytes < smallest) {
            frontier.push_back(i);
            smallest = bytes;
        }
    }
    return frontier;
}

void PlanPanel::drawChart()
{
    const double scale = unitBytes(m_unit);
    const std::vector<PlanCandidate> &fit = m_result.fitting;
    QVector<double> keys, values;
    double slowest = 0, largest = 0;
    for (const PlanCandidate &c : fit) {
        if (!c.time.valid() || !std::isfinite(c.time.stepSeconds))
            continue; // cannot be placed on a time axis
        keys << c.time.stepSeconds;
        values << double(c.peakBytes) / scale;
        slowest = std::max(slowest, c.time.stepSeconds);
        largest = std::max(largest, double(c.peakBytes) / scale);
    }
    m_points->setData(keys, values);
    QVector<double> fk, fv;
    for (int i : paretoFrontier(fit)) {
        fk << fit[std::size_t(i)].time.stepSeconds;
        fv << double(fit[std::size_t(i)].peakBytes) / scale;
    }
    m_frontier->setData(fk, fv, true);
    updateSelectedPoint();

    const bool any = !keys.isEmpty();
    const double capacity = double(m_capacityBytes) / scale;
    // An empty chart shows its message alone, not a line over nothing.
    m_capacityLine->setVisible(m_capacityBytes > 0 && any);
    m_capacityLabel->setVisible(m_capacityBytes > 0 && any);
    if (m_capacityBytes > 0) {
        placeHorizontalLine(m_capacityLine, capacity);
        m_capacityText =
            capacityText(m_session->scenario().gpu, m_unit, true) + QStringLiteral(" capacity");
        m_capacityLabel->setText(m_capacityText);
        m_capacityLabel->position->setCoords(1.0, capacity);
    }
    m_top = largest;
    m_capacity = m_capacityBytes > 0 ? capacity : 0;
    setMemoryAxis(m_plot->yAxis, largest, m_capacity, m_headroom, m_unit);
    if (m_plot->yAxis->range().upper <= 0)
        m_plot->yAxis->setRange(0, 1);
    m_plot->xAxis->setRange(0, any ? slowest * 1.06 : 1);

    if (!m_result.valid())
        m_plotMessage->setText(QStringLiteral("No layouts to draw"));
    else if (fit.empty())
        m_plotMessage->setText(QStringLiteral("No layout fits"));
    else if (!any)
        m_plotMessage->setText(QStringLiteral("Step time unknown: ") +
                               QString::fromStdString(fit.front().time.error));
    m_plotMessage->setVisible(!any);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlanPanel::fitText()
{
    QRect area = m_plot->axisRect()->rect();
    if (!plotLaidOut())
        return;
    bool changed = false;
    // The frontier's whole name where the legend's three entries, as wide as it, fit on
    // one row; else "Pareto frontier", which keeps the legend to one row in most plots.
    const QString full = frontierName();
    if (QCPPlottableLegendItem *item = m_plot->legend->itemWithPlottable(m_frontier)) {
        const QFontMetrics fm(item->font());
        auto textWidth = [&fm](const QString &t) {
            return fm.boundingRect(0, 0, 0, 0, Qt::TextDontClip, t).width();
        };
        const QCPLayoutElement *cell = item; // minimumOuterSizeHint() is public here
        const int wholeEntry =
            cell->minimumOuterSizeHint().width() - textWidth(m_frontier->name()) + textWidth(full);
        const QMargins lm = m_plot->legend->margins();
        const int oneRow = 3 * wholeEntry + 2 * m_plot->legend->columnSpacing();
        const QString name = oneRow <= m_plot->viewport().width() - lm.left() - lm.right()
                                 ? full
                                 : QStringLiteral("Pareto frontier");
        if (m_frontier->name() != name) {
            m_frontier->setName(name);
            changed = true;
        }
    }
    const int wrap = m_plot->legend->wrap();
    fitLegendColumns(m_plot, 3); // also for exports, which emit no beforeReplot
    if (fitValueTicks(m_plot->yAxis) || m_plot->legend->wrap() != wrap || changed) {
        relayoutPlot(m_plot);
        area = m_plot->axisRect()->rect();
    }
    // Headroom above the line for its label and the line's pen, in the height the legend
    // and the x axis leave.
    const double labelHeight =
        m_capacityLabel->visible()
            ? textBox(m_capacityLabel->font(), m_capacityText, m_capacityLabel->padding()).height()
            : 0;
    const double need = labelHeight + capacityPen(chartStyle()).widthF() + 2;
    const double headroom = headroomFor(need, area.height(), 1.12);
    if (std::abs(headroom - m_headroom) > 1e-3) {
        m_headroom = headroom;
        setMemoryAxis(m_plot->yAxis, m_top, m_capacity, m_headroom, m_unit);
        if (m_plot->yAxis->range().upper <= 0)
            m_plot->yAxis->setRange(0, 1);
        fitValueTicks(m_plot->yAxis);
        relayoutPlot(m_plot); // new tick labels may be wider
        area = m_plot->axisRect()->rect();
    }
    // Axis titles no longer than their sides: "GB per GPU" on a short plot.
    const bool y = fitAxisTitle(m_plot->yAxis, memoryAxisTitles(m_unit));
    if (fitAxisTitle(m_plot->xAxis, {QStringLiteral("Step time (s)"), QStringLiteral("s")}) || y)
        relayoutPlot(m_plot);
    if (clearAxisCorner(m_plot))
        relayoutPlot(m_plot);
    // The capacity label inside the axis rect: without " capacity" where the whole is
    // wider, then the line's value alone ("85.5 GB usable") where that is still too wide.
    if (m_capacityLabel->visible()) {
        area = m_plot->axisRect()->rect();
        QString shown = m_capacityText;
        const auto tooWide = [&] {
            return textBox(m_capacityLabel->font(), shown, m_capacityLabel->padding()).width() >
                   area.width();
        };
        if (tooWide())
            shown.chop(QStringLiteral(" capacity").size());
        if (const qsizetype colon = shown.indexOf(QStringLiteral(": ")); tooWide() && colon > 0)
            shown = shown.mid(colon + 2);
        if (m_capacityLabel->text() != shown)
            m_capacityLabel->setText(shown);
    }
}

void PlanPanel::updateSelectedPoint()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    const PlanCandidate *c = current.isValid() ? m_model->candidateAt(current.row()) : nullptr;
    if (!c)
        c = m_model->candidateAt(m_model->rowOfRank(m_chosenRank));
    if (c && c->time.valid() && std::isfinite(c->time.stepSeconds))
        m_selected->setData({c->time.stepSeconds}, {double(c->peakBytes) / unitBytes(m_unit)});
    else
        m_selected->data()->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlanPanel::loadRow(int row)
{
    const PlanCandidate *c = m_model->candidateAt(row);
    if (!c)
        return;
    m_chosenRank = m_model->rankAt(row);
    const Layout layout = c->layout;
    const Training training = c->training;
    {
        const QSignalBlocker block(m_table->selectionModel());
        m_table->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                   QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
    }
    updateSelectedPoint();
    // A click that also activates (single-click styles) loads once.
    const Scenario &now = m_session->scenario();
    if (sameLayout(*c, now.layout, now.training))
        return;
    // One changed() signal; the plan's inputs stay the same, so it does not plan again.
    m_session->edit([&](Scenario &s) { s = candidateScenario(s, layout, training); });
}

bool PlanPanel::exportLaunchConfig(const QString &path, LaunchFormat format, QString *error)
{
    const int row = std::max(0, m_model->rowOfRank(m_chosenRank));
    const PlanCandidate *c = m_model->candidateAt(row);
    if (!c) {
        *error = QStringLiteral("no layout to export: the plan has no fitting row");
        return false;
    }
    const Scenario s = candidateScenario(m_shownRequest.base, c->layout, c->training);
    const auto config = shardscope::exportLaunchConfig(s, format, error);
    if (!config) {
        *error = QStringLiteral("%1: %2").arg(launchFormatId(format), *error);
        return false;
    }
    const QByteArray text = config->text;
    return writeFileAtomically(
        path, [&text](QSaveFile &f) { return f.write(text) == text.size(); }, error);
}

void PlanPanel::chooseExportFile()
{
    struct Choice
    {
        LaunchFormat format;
        QString filter;
    };
    const Choice choices[] = {
        {LaunchFormat::DeepSpeed, QStringLiteral("DeepSpeed config (*.json)")},
        {LaunchFormat::Accelerate, QStringLiteral("Accelerate FSDP config (*.yaml)")},
        {LaunchFormat::Torchtitan, QStringLiteral("torchtitan job config (*.toml)")},
        {LaunchFormat::Megatron, QStringLiteral("Megatron-LM arguments (*.sh)")}};
    QStringList filters;
    for (const Choice &c : choices)
        filters << c.filter;
    QString selected = filters.front();
    const QString path = QFileDialog::getSaveFileName(
        this, QStringLiteral("Export launch config"), QStringLiteral("launch.json"),
        filters.join(QStringLiteral(";;")), &selected);
    if (path.isEmpty())
        return;
    LaunchFormat format = LaunchFormat::DeepSpeed;
    for (const Choice &c : choices)
        if (c.filter == selected)
            format = c.format;
    QString error;
    if (!exportLaunchConfig(path, format, &error))
        QMessageBox::warning(this, QStringLiteral("Export launch config"), error);
}

QString PlanPanel::messageText() const
{
    return m_message->text();
}

QString PlanPanel::summaryText() const
{
    return m_summary->text();
}

int PlanPanel::heightForWidth(int width) const
{
    return layout() ? layout()->totalMinimumHeightForWidth(width) : QWidget::heightForWidth(width);
}

void PlanPanel::placeSplit()
{
    // The table 45 % of the height, the chart the rest. Side by side, the table as wide as
    // its rank, step, MFU and peak columns with a vertical scroll bar (at most 55 % of the
    // width), the chart the rest.
    layout()->activate();
    if (m_split->orientation() == Qt::Vertical) {
        const int h = m_split->height();
        m_split->setSizes({h * 9 / 20, h - h * 9 / 20});
        return;
    }
    const int w = m_split->width();
    QHeaderView *header = m_table->horizontalHeader();
    header->resizeSections(QHeaderView::ResizeToContents); // in the type just set
    const int last = header->logicalIndex(3);              // the fourth section: the peak
    const int needed = header->sectionPosition(last) + header->sectionSize(last) +
                       m_table->verticalScrollBar()->sizeHint().width() +
                       2 * m_table->frameWidth() + 4;
    const int table = std::clamp(needed, w * 2 / 5, w * 11 / 20);
    m_split->setSizes({table, w - table});
}

void PlanPanel::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    m_split->setOrientation(compact ? Qt::Horizontal : Qt::Vertical);
    applyStyle();
    if (m_splitPlaced)
        placeSplit();
    updateGeometry(); // the tab's scroll area sizes the panel by heightForWidth()
}

void PlanPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_splitPlaced) {
        m_splitPlaced = true;
        placeSplit();
    }
    if (m_deferred) {
        m_deferred = false;
        if (!job().isRunning())
            startWorker();
    } else if (m_shownKey.isEmpty() && !isPlanning()) {
        refresh(); // the first time on screen
    }
}

void PlanPanel::restyle()
{
    const ChartStyle &style = chartStyle();
    applyPanelStyle(this, style);
    applyStyle();
}

void PlanPanel::applyStyle()
{
    // Compact, the type steps down to compactChartScale (see setCompact()).
    ChartStyle st = chartStyle();
    if (m_compact)
        st.fontScale = std::min(st.fontScale, compactChartScale);
    const QFont controls = st.font(font(), 12);
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_batchLabel, m_batch, m_batchReset, m_range, m_minGpus,
                                          m_maxGpus, m_toLabel, m_export, m_summary})
        w->setFont(controls);
    m_message->setFont(st.font(font(), 13, true));
    m_table->setFont(st.font(font(), 11));
    m_table->horizontalHeader()->setFont(st.font(font(), 11, true));
    // In large type, never fewer than the three fastest rows on screen (the header, three
    // rows of the table's font, the sideways scroll bar); the normal type's table keeps
    // Qt's minimum, so the whole tab fits a 1280 x 720 window without scrolling.
    const int rowHeight = QFontMetrics(m_table->font()).height() + 8;
    m_table->setMinimumHeight(
        st.fontScale > 1
            ? QFontMetrics(m_table->horizontalHeader()->font()).height() + 10 + 3 * rowHeight +
                  m_table->horizontalScrollBar()->sizeHint().height() + 2 * m_table->frameWidth()
            : 0);

    applyAxisStyle(m_plot, st, font());
    // Room for the legend, the axes and a readable field in large type; beside the table
    // (compact), the chart is as tall as the table's three rows allow on a short screen.
    m_plot->setMinimumHeight(int(std::lround((m_compact ? 200 : 240) * st.fontScale)));
    m_plot->setMinimumWidth(m_compact ? 300 : 360);
    styleLegend(m_plot, st, font(), 13, QSize(28, 20));
    const QColor points = pointsColor(st);
    QColor fill = points;
    fill.setAlpha(150);
    m_points->setPen(QPen(points, 1.2 * st.lineScale));
    m_points->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, points, fill, 7 * st.lineScale));
    const QColor frontier = frontierColor(st);
    m_frontier->setPen(QPen(frontier, 2.5 * st.lineScale));
    m_frontier->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, frontier, frontier, 9 * st.lineScale));
    m_selected->setPen(QPen(st.ink, 3 * st.lineScale));
    m_selected->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                QPen(st.ink, 2.5 * st.lineScale), Qt::NoBrush,
                                                15 * st.lineScale));
    m_capacityLine->setPen(capacityPen(st));
    styleCapacityLabel(m_capacityLabel, st, font());
    styleMessage(m_plotMessage, st, font());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace shardscope
