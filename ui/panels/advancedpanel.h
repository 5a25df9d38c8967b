#pragma once

#include "session.h"

#include <QWidget>
#include <string_view>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;

namespace shardscope {

class SettingEditor;

/// The settings behind the headline controls, one control per settings-table entry
/// (core/settings.h) so every limit is the table's: the parallel layout (t, p, c, e,
/// HSDP, offload, GPUs per node, uneven stages), how a step runs (micro-batch,
/// sequence, micro-batches, recomputation, schedule, chunks, loss kernel, activation
/// bytes, FlashAttention, sequence parallel, logits, dropout) and the buffers (CUDA
/// context, DDP and ZeRO buckets, gathered units, fragmentation, host RAM). Reads and
/// writes only the Session; shown collapsed under the headline controls.
class AdvancedPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AdvancedPanel(Session *session, QWidget *parent = nullptr);

    /// The control of the setting with this scenario-file key, or nullptr when the
    /// panel has none (gpus, strategy and model_states_only are headline controls).
    QWidget *editor(std::string_view key) const;
    QSpinBox *tensorParallel() const;
    QSpinBox *pipelineParallel() const;
    QComboBox *lossKernel() const;
    /// "64 GPUs = d 8 x t 8 x p 1 x c 1; global batch ..." or why the layout is invalid.
    QLabel *layoutLabel() const { return m_layoutLabel; }

private:
    void sync();

    Session *m_session;
    std::vector<SettingEditor *> m_editors;
    QLabel *m_layoutLabel;
};

} // namespace shardscope
