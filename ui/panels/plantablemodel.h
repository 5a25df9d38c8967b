#pragma once

#include "format.h"
#include "planner.h"

#include <QAbstractTableModel>
#include <vector>

namespace shardscope {

/// The planner's fitting layouts as a table (the Plan tab's ranked list): one row per
/// PlanCandidate of a PlanResult, columns as `shardscope plan --json` names its fields
/// (dp, tp, pp, cp, ep, strategy, micro-batch size, micro-batches, recompute, schedule,
/// chunks, offload, peak bytes per GPU, step seconds, MFU, tokens per second), plus the
/// rank: the candidate's place in plan()'s order (fastest first, core/planner.h).
///
/// Sortable by any column (sort(): stable, ties keep the rank order; persistent indexes,
/// so the view's selection, follow their rows). Qt::DisplayRole is the text shown, peak
/// memory in the display unit; Qt::UserRole the number sorted by (bytes, seconds, a
/// fraction for MFU; +infinity for a step that could not be timed). A step without a
/// time shows "–", never NaN.
class PlanTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// The columns, left to right.
    enum Column
    {
        Rank,
        DataParallel,
        TensorParallel,
        PipelineParallel,
        ContextParallel,
        ExpertParallel,
        Strategy,
        MicroBatchSize,
        MicroBatches,
        RecomputeColumn,
        Schedule,
        Chunks,
        OffloadColumn,
        PeakMemory,
        StepSeconds,
        Mfu,
        TokensPerSecond,
        ColumnCount
    };

    explicit PlanTableModel(QObject *parent = nullptr);

    /// Shows `fitting` (plan()'s order: rank 1 is fitting[0]) with memory in `unit`, in
    /// rank order (a model reset; the last sort is not reapplied).
    void setCandidates(std::vector<PlanCandidate> fitting, ByteUnit unit);
    /// Changes the display unit of the peak-memory column (no re-sort needed: bytes sort).
    void setUnit(ByteUnit unit);
    /// Empties the table.
    void clear();

    /// The candidate in table row `row` (after any sort); null out of range.
    const PlanCandidate *candidateAt(int row) const;
    /// Rank (1 = fastest, plan()'s order) of the candidate in table row `row`; 0 out of range.
    int rankAt(int row) const;
    /// The table row that shows the candidate of rank `rank`; -1 when none does.
    int rowOfRank(int rank) const;
    /// All candidates in rank order (plan()'s order).
    const std::vector<PlanCandidate> &candidates() const { return m_candidates; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    /// Column titles (short, as the command line prints them) and, as tooltips, what each
    /// column means.
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    /// The number column `column` of `c` sorts by (see the class comment).
    static double sortKey(const PlanCandidate &c, int rank, int column);
    /// The text column `column` of `c` shows, memory in `unit`.
    static QString cellText(const PlanCandidate &c, int rank, int column, ByteUnit unit);

private:
    std::vector<PlanCandidate> m_candidates; ///< rank order
    std::vector<int> m_order;                ///< table row -> index into m_candidates
    ByteUnit m_unit = ByteUnit::GB;
};

} // namespace shardscope
