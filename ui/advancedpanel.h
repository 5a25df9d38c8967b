#pragma once

#include "scenariomodel.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace shardscope {

/// The settings behind the three headline controls: parallel layout (t, p, c,
/// HSDP, offload), how a step runs (micro-batch, sequence, micro-batches,
/// recomputation, FlashAttention, sequence parallel, logits, loss kernel, schedule)
/// and the
/// buffer overheads. Reads and writes only the ScenarioModel; shown collapsed
/// under the headline controls.
class AdvancedPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AdvancedPanel(ScenarioModel *model, QWidget *parent = nullptr);

    QSpinBox *tensorParallel() const { return m_tp; }
    QSpinBox *pipelineParallel() const { return m_pp; }
    QSpinBox *contextParallel() const { return m_cp; }
    QSpinBox *microBatchSize() const { return m_mbs; }
    QComboBox *sequenceLength() const { return m_seq; }
    QSpinBox *microBatches() const { return m_microBatches; }
    QComboBox *recompute() const { return m_recompute; }
    QComboBox *schedule() const { return m_schedule; }
    /// Cross-entropy kernel: fused (Megatron) or eager PyTorch (LossKernel).
    QComboBox *lossKernel() const { return m_loss; }
    QComboBox *offload() const { return m_offload; }
    QCheckBox *flashAttention() const { return m_flash; }
    QCheckBox *sequenceParallel() const { return m_sp; }
    /// One line describing the layout, e.g. "64 GPUs = d 2 × t 8 × p 4 × c 1".
    QLabel *layoutLabel() const { return m_layoutLabel; }

private:
    void sync();
    /// Sets a parallel degree and keeps the world size = d x t x p x c with d unchanged.
    void setDegree(int which, int value);

    ScenarioModel *m_model;
    QSpinBox *m_tp, *m_pp, *m_cp, *m_hsdp, *m_gpusPerNode;
    QComboBox *m_offload;
    QCheckBox *m_uneven;
    QSpinBox *m_mbs;
    QComboBox *m_seq;
    QSpinBox *m_microBatches;
    QComboBox *m_recompute, *m_schedule, *m_loss;
    QSpinBox *m_chunks;
    QCheckBox *m_flash, *m_sp, *m_fp32Logits;
    QSpinBox *m_contextMib, *m_fragmentation, *m_gatheredUnits, *m_hostRamGb;
    QLabel *m_layoutLabel;
};

} // namespace shardscope
