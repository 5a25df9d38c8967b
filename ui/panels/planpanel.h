#pragma once

#include "chartview.h"
#include "launchconfig.h"
#include "planjob.h"
#include "planner.h"

#include <QPointer>
#include <QString>
#include <QWidget>
#include <vector>

class QCheckBox;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QTableView;
class QTimer;
class QToolButton;

namespace shardscope {

class PlanTableModel;
class WrapRow;
class Session;

/// The Plan tab (README.md "Plan"): which layouts of the session's model fit its GPU type at its
/// GPU count (or a range), fastest first, from the engine's planner (core/planner.h).
///
/// It plans the session's model, recipe, GPU, overheads and training flags at the
/// session's sequence length, over the session's GPU count (or the "GPU range" when
/// checked), for a global batch in tokens that follows m × b × d × s of the session's
/// layout until the user edits it (always a multiple of s, at least s). The search space
/// is PlanRequest's default with t up to the GPUs per node, as `shardscope plan` does.
///
/// - A line above the table: candidates evaluated, skipped by the exact bound, fitting,
///   and how long the plan took.
/// - The ranked table (PlanTableModel, sortable by any column); clicking or activating a
///   row loads that layout into the session (candidateScenario()), so the memory view
///   shows it. "Export launch config…" writes the chosen row through io/launchconfig.h.
/// - The chart: memory per GPU against step time for every fitting candidate, the Pareto
///   frontier (the fastest layout for a given memory: no other fitting layout is both
///   faster and smaller), the capacity line and the chosen row.
///
/// When it plans: LazyRefresh decides when the panel hears of a change (on screen, or
/// when next shown); the plan itself runs only when its inputs changed (loading a row
/// does not re-plan), 150 ms after the last change (a slider drag plans once, when it
/// rests), on a worker thread (QThread::create; plan() is a pure function of a copied
/// request; the Session's PlanJob), so a plan of seconds never blocks the window. One plan runs at
/// a time; a change during a run cancels it (PlanRequest::cancel) and starts the latest inputs when
/// it ends. While it runs the summary says "Planning… N of M layouts" and "Cancel plan"
/// stops it; closing the window stops it at once. An invalid scenario, a
/// model without an architecture or a search with no fitting layout shows a one-line
/// message instead of the table and the points; nothing shows NaN.
class PlanPanel : public ChartView
{
    Q_OBJECT
public:
    /// Delay between the session's last change and the plan, milliseconds.
    static constexpr int restMilliseconds = 150;

    /// Builds the panel on `session` (not owned; must outlive the panel). Plans when first
    /// shown, or on refresh() / planNow().
    explicit PlanPanel(Session *session, QWidget *parent = nullptr);
    /// Cancels a plan still running on the session's worker thread.
    ~PlanPanel() override;

    /// Reads the session: re-displays at once when the plan's inputs are unchanged (the
    /// unit, the chosen row), else schedules a plan restMilliseconds from now on the worker
    /// thread (or shows the message of invalid inputs at once). What LazyRefresh calls.
    void refresh();
    /// Plans the current inputs now, on the calling thread, and shows the result (tests,
    /// screenshots); waits for a worker plan first.
    void planNow();
    /// True while a plan is scheduled or running.
    bool isPlanning() const;
    /// Stops the plan running on the worker thread at its next layout (core/planner.h
    /// PlanRequest::cancel); the panel then says how far it got. Nothing when none runs.
    void cancelPlan();
    /// "Cancel plan", shown while a plan runs on the worker thread.
    QPushButton *cancelButton() const { return m_cancelButton; }

    /// The request the panel plans for the session's current state (its error, if any,
    /// is in inputError()).
    PlanRequest request() const;
    /// Why the current inputs cannot be planned ("Cannot plan: ..."); empty when they can.
    QString inputError() const;
    /// The last result shown (candidatesEvaluated, fitting in plan()'s order).
    const PlanResult &result() const { return m_result; }

    /// The ranked table's model.
    PlanTableModel *tableModel() const { return m_model; }
    /// The ranked table.
    QTableView *tableView() const { return m_table; }
    /// The chart of memory per GPU against step time.
    /// The fitting candidates' points (step seconds, memory in display units).
    QCPGraph *pointsGraph() const { return m_points; }
    /// The Pareto frontier (step seconds ascending, memory non-increasing).
    QCPGraph *frontierGraph() const { return m_frontier; }
    /// The chosen row's point (empty when no row is chosen).
    QCPGraph *selectedGraph() const { return m_selected; }
    /// The capacity line across the chart.
    QCPItemStraightLine *capacityLine() const { return m_capacityLine; }
    /// The one-line message shown instead of the table (invalid input, nothing fits);
    /// empty when the table shows layouts.
    QString messageText() const;
    /// The line above the table: "N candidates evaluated ... F fit ... in T ms".
    QString summaryText() const;
    /// The global batch control, tokens (a multiple of s).
    QSpinBox *batchTokensSpin() const { return m_batch; }
    /// "GPU range" on: plan over [min, max] instead of the session's GPU count.
    QCheckBox *rangeCheck() const { return m_range; }
    QSpinBox *minGpusSpin() const { return m_minGpus; }
    QSpinBox *maxGpusSpin() const { return m_maxGpus; }
    /// Opens the file dialog and exports the chosen row.
    QPushButton *exportButton() const { return m_export; }
    /// The row of the batch, GPU range and export controls (two rows in a narrow tab).
    WrapRow *controlsRow() const { return m_controls; }
    /// The capacity line's label on the chart.
    QCPItemText *capacityLabel() const { return m_capacityLabel; }
    /// The chart's message ("No layout fits"), hidden while there are points.
    QCPItemText *plotMessage() const { return m_plotMessage; }

    /// Candidates on the Pareto frontier of `fitting` (timed ones only), as indexes into
    /// it in ascending step time: each is strictly smaller than every faster one. Exact:
    /// no fitting candidate is both faster and no larger (or no slower and smaller).
    static std::vector<int> paretoFrontier(const std::vector<PlanCandidate> &fitting);

    /// Rank (1 = fastest) of the chosen row, 0 when none is chosen.
    int chosenRank() const { return m_chosenRank; }
    /// Loads the candidate in table row `row` into the session (session->edit() with
    /// candidateScenario()) and makes it the chosen row. Ignores rows out of range.
    void loadRow(int row);
    /// Writes the chosen row (the first row when none is chosen) as a launch config in
    /// `format` to `path` (atomically). False with a one-line `*error` when no row exists,
    /// the exporter refuses the layout, or the file cannot be written.
    bool exportLaunchConfig(const QString &path, LaunchFormat format, QString *error);

    /// Side-by-side type for a short screen in presentation type (a 1280 x 720
    /// projector): the table left of the chart instead of above it, and the chart's type
    /// stepped down to compactChartScale, so that the controls, at least three rows and the
    /// whole chart fit the tab without scrolling. MainWindow sets it with its other
    /// short-screen choices.
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    /// The largest type scale of the chart and the table in compact type (presentation's
    /// 1.5 steps down to it, as the Pipeline tab's charts do).
    static constexpr double compactChartScale = 1.2;

    /// The least height, pixels, at which the panel's layout holds its controls, summary,
    /// table and chart at `width` (QLayout::totalMinimumHeightForWidth). The tab's scroll
    /// area sizes the panel by it: the panel fills the tab where that fits and scrolls
    /// only where it does not, instead of asking for its children's preferred heights.
    int heightForWidth(int width) const override;

signals:
    /// A plan's result (or the message of invalid inputs) is now on screen.
    void planned();

protected:
    void showEvent(QShowEvent *event) override;

private:
    /// What the panel plans: the request, a fingerprint of everything plan() reads, and
    /// the reason it cannot plan (empty when it can).
    struct Inputs
    {
        PlanRequest request;
        QByteArray key;
        QString error;
        std::int64_t capacityBytes = 0; ///< the card's usable bytes, as estimate() checks it
    };
    Inputs currentInputs() const;
    /// The session's m × b × d × s (d at least 1), rounded to a multiple of s.
    std::int64_t scenarioBatchTokens() const;
    void syncControls();
    void startWorker();
    /// The session's plan job has planned `done` of `total` layouts.
    void showProgress(qint64 done, qint64 total);
    /// The session's plan job ended the plan of `key` with `result` after `milliseconds`.
    void planFinished(const QByteArray &key, const PlanResult &result, double milliseconds);
    /// The session's plan job (Session::planJob()).
    PlanJob &job() const;
    void showResult(PlanResult result, const Inputs &inputs, double milliseconds);
    void showMessage(const QString &message, const QByteArray &key);
    /// Cancels the session's plan job and drops its result.
    void joinWorker();
    /// Redraws table unit, chart and highlight from m_result (no planning).
    void redraw();
    void drawChart();
    /// Fits the chart's text to its pixels after each layout: value ticks spaced for
    /// their font, axis titles no longer than their axes, "0" clear at the corner, the
    /// frontier's legend name and the capacity label short enough, and headroom above
    /// the line for that label.
    void fitText() override;
    /// Styles the plot, the controls and the labels in chartStyle().
    void restyle() override;
    void updateSelectedPoint();
    void applyStyle();
    /// Shares the splitter: the table 45 % of its length, the chart the rest.
    void placeSplit();
    void chooseExportFile();

    Session *m_session;
    bool m_compact = false;  ///< setCompact()
    QPointer<PlanJob> m_job; ///< the session's (Session::planJob()); null once it is gone
    PlanResult m_result;
    PlanRequest m_shownRequest; ///< the request of what is on screen
    QByteArray m_shownKey;      ///< inputs of what is on screen
    Inputs m_latest;            ///< the inputs last read from the session
    bool m_deferred = false;    ///< the rest ended while the panel was a hidden tab
    QTimer *m_rest = nullptr;
    bool m_batchFollows = true; ///< the batch follows the scenario until edited
    int m_chosenRank = 0;
    ByteUnit m_unit = ByteUnit::GB;
    std::int64_t m_capacityBytes = 0; ///< capacity of what is on screen

    WrapRow *m_controls = nullptr; ///< the batch, the GPU range and the export
    QLabel *m_summary = nullptr;
    QLabel *m_message = nullptr;
    QLabel *m_batchLabel = nullptr;
    QSpinBox *m_batch = nullptr;
    QToolButton *m_batchReset = nullptr;
    QCheckBox *m_range = nullptr;
    QSpinBox *m_minGpus = nullptr;
    QSpinBox *m_maxGpus = nullptr;
    QLabel *m_toLabel = nullptr;
    QPushButton *m_export = nullptr;
    QPushButton *m_cancelButton = nullptr;
    PlanTableModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QSplitter *m_split = nullptr;
    bool m_splitPlaced = false;  ///< the splitter got its shares (first show)
    bool m_splitDragged = false; ///< the user moved the splitter: placeSplit() no more
    QCustomPlot *m_plot = nullptr;
    QCPGraph *m_points = nullptr;
    QCPGraph *m_frontier = nullptr;
    QCPGraph *m_selected = nullptr;
    QCPItemStraightLine *m_capacityLine = nullptr;
    QCPItemText *m_capacityLabel = nullptr;
    QCPItemText *m_plotMessage = nullptr;
    double m_top = 0;         ///< the tallest point, in m_unit
    double m_capacity = 0;    ///< the capacity line, in m_unit
    double m_headroom = 1.12; ///< the memory axis' top over the larger of the two
    QString m_capacityText;   ///< the label in full ("H100 80 GB: 85.5 GB usable capacity")
};

} // namespace shardscope
