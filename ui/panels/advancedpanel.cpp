#include "advancedpanel.h"

#include "qtext.h"
#include "settingeditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QVBoxLayout>

namespace shardscope {

AdvancedPanel::AdvancedPanel(Session *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    // One group box of table settings; check boxes span the row, the rest are labelled.
    auto group = [this, layout](const QString &title, std::initializer_list<const char *> keys,
                                QLabel *header = nullptr) {
        auto *box = new QGroupBox(title);
        auto *form = new QFormLayout(box);
        // A label too long to stand beside its field in the column goes above it, so the
        // expanded panel never scrolls sideways.
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        if (header)
            form->addRow(header);
        for (const char *key : keys) {
            const Setting *setting = settingByKey(key);
            Q_ASSERT(setting);
            auto *editor = new SettingEditor(*setting, m_session, this);
            m_editors.push_back(editor);
            if (setting->key == "hsdp_shard")
                qobject_cast<QSpinBox *>(editor->widget())
                    ->setSpecialValueText(QStringLiteral("off (shard over all)"));
            if (setting->kind == SettingKind::Boolean)
                form->addRow(editor->widget());
            else
                form->addRow(toQString(setting->label), editor->widget());
        }
        layout->addWidget(box);
    };

    m_layoutLabel = new QLabel;
    m_layoutLabel->setWordWrap(true);
    group(QStringLiteral("Parallel layout"),
          {"tp", "pp", "cp", "ep", "hsdp_shard", "offload", "gpus_per_node", "uneven_stages",
           "balanced_stages"},
          m_layoutLabel);
    group(QStringLiteral("Training step"),
          {"mbs", "seq", "microbatches", "recompute", "schedule", "chunks", "activation_bytes",
           "fp8", "sequence_parallel", "dropout", "activation_offload", "paged_optimizer"});
    group(QStringLiteral("Kernels and switches"),
          {"flash_attention", "loss_kernel", "norm_kernel", "fp32_logits", "loss_chunks",
           "torch_compile", "optimizer_in_backward", "use_cache"});
    group(QStringLiteral("Buffers and host"),
          {"cuda_context_bytes", "ddp_bucket_bytes", "zero_bucket_elements", "gathered_units",
           "fragmentation_percent", "host_ram_bytes_per_node"});
    group(QStringLiteral("Framework and fine-tuning"),
          {"framework", "fsdp_reshard_after_forward", "lora_rank", "lora_alpha", "lora_targets",
           "base_format", "lora_dropout", "fp32_unquantized", "stage3_prefetch_elements",
           "stage3_max_live_parameters", "stage3_persistence_threshold",
           "stage3_max_reuse_distance", "sub_group_elements"});
    group(QStringLiteral("Cluster and speed"),
          {"nic_bytes_per_second", "nics_per_node", "host_link_bytes_per_second",
           "compute_efficiency_percent", "nvlink_latency_ns", "nic_latency_ns",
           "price_cents_per_gpu_hour", "token_budget"});

    connect(m_session, &Session::changed, this, &AdvancedPanel::sync);
    sync();
}

QWidget *AdvancedPanel::editor(std::string_view key) const
{
    for (const SettingEditor *e : m_editors)
        if (e->setting().key == key)
            return e->widget();
    return nullptr;
}

QSpinBox *AdvancedPanel::tensorParallel() const
{
    return qobject_cast<QSpinBox *>(editor("tp"));
}

QSpinBox *AdvancedPanel::pipelineParallel() const
{
    return qobject_cast<QSpinBox *>(editor("pp"));
}

QComboBox *AdvancedPanel::lossKernel() const
{
    return qobject_cast<QComboBox *>(editor("loss_kernel"));
}

void AdvancedPanel::sync()
{
    const Scenario &s = m_session->scenario();
    const Layout &l = s.layout;
    const Training &t = s.training;
    for (SettingEditor *e : m_editors)
        e->sync(s);
    if (QWidget *chunks = editor("chunks"))
        chunks->setEnabled(t.schedule == PipelineSchedule::Interleaved1F1B);
    if (QWidget *ep = editor("ep"))
        ep->setEnabled(s.model.architecture && s.model.architecture->isMoe());
    const QLocale en(QLocale::English);
    const bool divisible = l.modelParallel() > 0 && l.gpus % l.modelParallel() == 0;
    m_layoutLabel->setText(
        divisible ? QStringLiteral("%1 GPUs = d %2 × t %3 × p %4 × c %5; global batch %6 sequences")
                        .arg(en.toString(qlonglong(l.gpus)))
                        .arg(l.dataParallel())
                        .arg(l.tensorParallel)
                        .arg(l.pipelineParallel)
                        .arg(l.contextParallel)
                        .arg(en.toString(qlonglong(t.globalBatch(l.dataParallel()))))
                  : QStringLiteral("%1 GPUs is not a multiple of t × p × c = %2")
                        .arg(l.gpus)
                        .arg(l.modelParallel()));
}

} // namespace shardscope
