#include "plantablemodel.h"

#include "chartparts.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace shardscope {

namespace {

/// Counts with thousands separators, as formatBytes() writes bytes.
QString count(double v)
{
    QLocale l(QLocale::English, QLocale::UnitedStates);
    l.setNumberOptions(QLocale::DefaultNumberOptions);
    return l.toString(qlonglong(std::llround(v)));
}

constexpr double infinity = std::numeric_limits<double>::infinity();

const char *const titles[PlanTableModel::ColumnCount] = {
    "#",         "dp",       "tp", "pp",      "cp",       "ep",       "Strategy", "mbs",     "m",
    "Recompute", "Schedule", "v",  "Offload", "Peak/GPU", "Step (s)", "MFU",      "Tokens/s"};

const char *const tips[PlanTableModel::ColumnCount] = {
    "Rank by step time (1 = fastest)",
    "d, data-parallel degree: GPUs / (t × p × c)",
    "t, tensor-parallel degree (Shoeybi et al. 2019)",
    "p, pipeline stages",
    "c, context-parallel degree (ring attention)",
    "e, expert-parallel degree (MoE models)",
    "How model states are sharded over the data-parallel ranks (ZeRO stage, FSDP, HSDP)",
    "b, micro-batch size: sequences per micro-batch",
    "m, micro-batches per step (gradient accumulation); global batch = m × b × d sequences",
    "Activation recomputation",
    "Pipeline schedule (– with one stage)",
    "v, model chunks per stage (interleaved 1F1B)",
    "What CPU offload moves to host memory",
    "Peak memory of the busiest GPU",
    "Training step time, seconds (docs/steptime.md)",
    "Model FLOPs utilisation, recomputation excluded (Chowdhery et al. 2022, appendix B)",
    "Tokens trained per second, the whole cluster"};

QString strategyText(const Layout &l)
{
    if (l.zeroStage == ZeroStage::Zero3 && l.hsdpShardSize > 0)
        return QStringLiteral("HSDP, shard %1").arg(l.hsdpShardSize);
    return toQString(zeroStageName(l.zeroStage));
}

/// A rank order for choices: the enum's own order, HSDP after plain ZeRO-3.
double strategyKey(const Layout &l)
{
    return double(int(l.zeroStage)) + (l.hsdpShardSize > 0 ? 0.5 : 0.0);
}

} // namespace

PlanTableModel::PlanTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void PlanTableModel::setCandidates(std::vector<PlanCandidate> fitting, ByteUnit unit)
{
    beginResetModel();
    m_candidates = std::move(fitting);
    m_order.resize(m_candidates.size());
    std::iota(m_order.begin(), m_order.end(), 0);
    m_unit = unit;
    endResetModel();
}

void PlanTableModel::setUnit(ByteUnit unit)
{
    if (unit == m_unit)
        return;
    m_unit = unit;
    if (!m_candidates.empty())
        emit dataChanged(index(0, PeakMemory), index(rowCount() - 1, PeakMemory));
    emit headerDataChanged(Qt::Horizontal, PeakMemory, PeakMemory);
}

void PlanTableModel::clear()
{
    setCandidates({}, m_unit);
}

const PlanCandidate *PlanTableModel::candidateAt(int row) const
{
    if (row < 0 || row >= int(m_order.size()))
        return nullptr;
    return &m_candidates[std::size_t(m_order[std::size_t(row)])];
}

int PlanTableModel::rankAt(int row) const
{
    if (row < 0 || row >= int(m_order.size()))
        return 0;
    return m_order[std::size_t(row)] + 1;
}

int PlanTableModel::rowOfRank(int rank) const
{
    const auto it = std::find(m_order.begin(), m_order.end(), rank - 1);
    return it == m_order.end() ? -1 : int(it - m_order.begin());
}

int PlanTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_order.size());
}

int PlanTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double PlanTableModel::sortKey(const PlanCandidate &c, int rank, int column)
{
    const Layout &l = c.layout;
    const Training &t = c.training;
    const bool timed = c.time.valid();
    switch (column) {
    case Rank:
        return rank;
    case DataParallel:
        return double(l.dataParallel());
    case TensorParallel:
        return l.tensorParallel;
    case PipelineParallel:
        return l.pipelineParallel;
    case ContextParallel:
        return l.contextParallel;
    case ExpertParallel:
        return l.expertParallel;
    case Strategy:
        return strategyKey(l);
    case MicroBatchSize:
        return double(t.microBatchSize);
    case MicroBatches:
        return double(t.microBatches);
    case RecomputeColumn:
        return double(int(t.recompute));
    case Schedule:
        return l.pipelineParallel > 1 ? double(int(t.schedule)) : -1.0;
    case Chunks:
        return t.chunks;
    case OffloadColumn:
        return double(int(l.offload));
    case PeakMemory:
        return double(c.peakBytes);
    case StepSeconds:
        return timed ? c.time.stepSeconds : infinity;
    case Mfu:
        return timed ? c.time.mfu : -infinity;
    case TokensPerSecond:
        return timed ? c.time.tokensPerSecond : -infinity;
    default:
        return 0;
    }
}

QString PlanTableModel::cellText(const PlanCandidate &c, int rank, int column, ByteUnit unit)
{
    const Layout &l = c.layout;
    const Training &t = c.training;
    const bool timed = c.time.valid() && std::isfinite(c.time.stepSeconds);
    const QString none = QStringLiteral("–");
    switch (column) {
    case Strategy:
        return strategyText(l);
    case RecomputeColumn:
        return toQString(recomputeId(t.recompute));
    case Schedule:
        if (l.pipelineParallel <= 1)
            return none;
        return toQString(pipelineScheduleName(t.schedule));
    case OffloadColumn:
        return l.offload == Offload::None ? none : toQString(offloadId(l.offload));
    case PeakMemory:
        return toQString(formatBytes(c.peakBytes, unit));
    case StepSeconds:
        return timed ? QString::number(c.time.stepSeconds, 'f', 3) : none;
    case Mfu:
        return timed && std::isfinite(c.time.mfu) ? QString::number(100 * c.time.mfu, 'f', 1) + u'%'
                                                  : none;
    case TokensPerSecond:
        return timed && std::isfinite(c.time.tokensPerSecond) ? count(c.time.tokensPerSecond)
                                                              : none;
    default:
        return count(sortKey(c, rank, column));
    }
}

QVariant PlanTableModel::data(const QModelIndex &index, int role) const
{
    const PlanCandidate *c = candidateAt(index.row());
    if (!c || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const int rank = rankAt(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return cellText(*c, rank, index.column(), m_unit);
    case Qt::UserRole:
        return sortKey(*c, rank, index.column());
    case Qt::TextAlignmentRole: {
        const int col = index.column();
        const bool text =
            col == Strategy || col == RecomputeColumn || col == Schedule || col == OffloadColumn;
        return int((text ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    }
    case Qt::ToolTipRole:
        if (index.column() == StepSeconds && !c->time.valid())
            return QString::fromStdString(c->time.error);
        return {};
    default:
        return {};
    }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        if (section == PeakMemory)
            return QStringLiteral("Peak/GPU (%1)").arg(toQString(unitName(m_unit)));
        return QString::fromUtf8(titles[section]);
    }
    if (role == Qt::ToolTipRole)
        return QString::fromUtf8(tips[section]);
    return {};
}

void PlanTableModel::sort(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= ColumnCount)
        return;
    emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> ranks; // the candidate each persistent index pointed at
    ranks.reserve(std::size_t(before.size()));
    for (const QModelIndex &i : before)
        ranks.push_back(rankAt(i.row()));

    // From rank order each time, stably: ties keep the rank order either way.
    std::iota(m_order.begin(), m_order.end(), 0);
    std::vector<double> keys(m_candidates.size());
    for (std::size_t i = 0; i < m_candidates.size(); ++i)
        keys[i] = sortKey(m_candidates[i], int(i) + 1, column);
    std::stable_sort(m_order.begin(), m_order.end(), [&keys, order](int a, int b) {
        return order == Qt::AscendingOrder ? keys[std::size_t(a)] < keys[std::size_t(b)]
                                           : keys[std::size_t(a)] > keys[std::size_t(b)];
    });

    QModelIndexList after;
    after.reserve(before.size());
    for (qsizetype i = 0; i < before.size(); ++i)
        after << index(rowOfRank(ranks[std::size_t(i)]), before[i].column());
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

} // namespace shardscope
