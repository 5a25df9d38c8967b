#include "advancedpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <list>

namespace shardscope {

namespace {

QSpinBox *spin(int min, int max, const QString &suffix = {})
{
    auto *s = new QSpinBox;
    s->setRange(min, max);
    s->setSuffix(suffix);
    s->setGroupSeparatorShown(true);
    return s;
}

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace

AdvancedPanel::AdvancedPanel(ScenarioModel *model, QWidget *parent)
    : QWidget(parent), m_model(model)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    // Parallel layout.
    auto *par = new QGroupBox(QStringLiteral("Parallel layout"));
    auto *pf = new QFormLayout(par);
    m_layoutLabel = new QLabel;
    m_layoutLabel->setWordWrap(true);
    pf->addRow(m_layoutLabel);
    m_tp = spin(1, 64);
    m_tp->setToolTip(QStringLiteral("Tensor parallel t: each layer's matrices split t ways "
                                    "(Megatron-LM); keep inside one NVLink node"));
    m_pp = spin(1, 256);
    m_pp->setToolTip(QStringLiteral("Pipeline parallel p: layers split into p stages"));
    m_cp = spin(1, 64);
    m_cp->setToolTip(QStringLiteral("Context parallel c: the sequence split c ways"));
    m_hsdp = spin(0, 16384);
    m_hsdp->setSpecialValueText(QStringLiteral("off (shard over all)"));
    m_hsdp->setToolTip(QStringLiteral("HSDP shard-group size: shard within groups of this many "
                                      "ranks, replicate across groups"));
    m_offload = new QComboBox;
    m_offload->addItem(QStringLiteral("none"), int(Offload::None));
    m_offload->addItem(QStringLiteral("optimizer → CPU"), int(Offload::Optimizer));
    m_offload->addItem(QStringLiteral("optimizer + params → CPU"),
                       int(Offload::OptimizerAndParams));
    m_uneven = new QCheckBox(QStringLiteral("allow uneven pipeline stages"));
    m_gpusPerNode = spin(1, 64);
    pf->addRow(QStringLiteral("Tensor parallel t"), m_tp);
    pf->addRow(QStringLiteral("Pipeline stages p"), m_pp);
    pf->addRow(QStringLiteral("Context parallel c"), m_cp);
    pf->addRow(QStringLiteral("HSDP shard group"), m_hsdp);
    pf->addRow(QStringLiteral("CPU offload"), m_offload);
    pf->addRow(QStringLiteral("GPUs per node"), m_gpusPerNode);
    pf->addRow(m_uneven);
    layout->addWidget(par);

    // Training step.
    auto *step = new QGroupBox(QStringLiteral("Training step"));
    auto *sf = new QFormLayout(step);
    m_mbs = spin(1, 1024);
    m_seq = new QComboBox;
    for (int s : {512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072})
        m_seq->addItem(QLocale(QLocale::English).toString(s), s);
    m_microBatches = spin(1, 4096);
    m_microBatches->setToolTip(QStringLiteral("Micro-batches per step m (gradient accumulation); "
                                              "global batch = m × micro-batch × d"));
    m_recompute = new QComboBox;
    m_recompute->addItem(QStringLiteral("none"), int(Recompute::None));
    m_recompute->addItem(QStringLiteral("selective"), int(Recompute::Selective));
    m_recompute->addItem(QStringLiteral("full"), int(Recompute::Full));
    m_recompute->setToolTip(QStringLiteral("Activation recomputation: none keeps every tensor; "
                                           "selective recomputes the attention core; full "
                                           "keeps only each layer's input"));
    m_schedule = new QComboBox;
    for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
                   PipelineSchedule::Interleaved1F1B, PipelineSchedule::ZeroBubbleH1})
        m_schedule->addItem(qs(pipelineScheduleName(s)), int(s));
    m_chunks = spin(1, 16);
    m_flash = new QCheckBox(QStringLiteral("FlashAttention (no s × s scores)"));
    m_sp = new QCheckBox(QStringLiteral("sequence parallel (with t > 1)"));
    m_fp32Logits = new QCheckBox(QStringLiteral("fp32 logits for the loss"));
    m_loss = new QComboBox;
    m_loss->addItem(QStringLiteral("fused (Megatron)"), int(LossKernel::Fused));
    m_loss->addItem(QStringLiteral("eager PyTorch"), int(LossKernel::Eager));
    m_loss->setToolTip(QStringLiteral(
        "Cross-entropy kernel. Fused: the gradient overwrites the kept logits (Megatron's "
        "vocab-parallel loss). Eager: F.cross_entropy holds two more logits-sized tensors "
        "during its backward."));
    sf->addRow(QStringLiteral("Micro-batch size"), m_mbs);
    sf->addRow(QStringLiteral("Sequence length"), m_seq);
    sf->addRow(QStringLiteral("Micro-batches m"), m_microBatches);
    sf->addRow(QStringLiteral("Recomputation"), m_recompute);
    sf->addRow(QStringLiteral("Pipeline schedule"), m_schedule);
    sf->addRow(QStringLiteral("Chunks v (interleaved)"), m_chunks);
    sf->addRow(QStringLiteral("Loss kernel"), m_loss);
    sf->addRow(m_flash);
    sf->addRow(m_sp);
    sf->addRow(m_fp32Logits);
    layout->addWidget(step);

    // Buffers.
    auto *buf = new QGroupBox(QStringLiteral("Buffers and host"));
    auto *bf = new QFormLayout(buf);
    m_contextMib = spin(0, 16384, QStringLiteral(" MiB"));
    m_contextMib->setToolTip(QStringLiteral("CUDA context, cuBLAS/NCCL workspaces and kernels"));
    m_fragmentation = spin(0, 100, QStringLiteral(" %"));
    m_fragmentation->setToolTip(QStringLiteral("Allocator fragmentation reserve"));
    m_gatheredUnits = spin(1, 2);
    m_gatheredUnits->setToolTip(QStringLiteral("ZeRO-3 / FSDP layers gathered at once (2 with "
                                               "prefetch)"));
    m_hostRamGb = spin(0, 100000, QStringLiteral(" GB"));
    bf->addRow(QStringLiteral("CUDA context"), m_contextMib);
    bf->addRow(QStringLiteral("Fragmentation"), m_fragmentation);
    bf->addRow(QStringLiteral("FSDP gathered units"), m_gatheredUnits);
    bf->addRow(QStringLiteral("Host RAM per node"), m_hostRamGb);
    layout->addWidget(buf);

    auto intEdit = [this](QSpinBox *box, auto apply) {
        connect(box, &QSpinBox::valueChanged, this,
                [this, apply](int v) { m_model->edit([&](Scenario &s) { apply(s, v); }); });
    };
    connect(m_tp, &QSpinBox::valueChanged, this, [this](int v) { setDegree(0, v); });
    connect(m_pp, &QSpinBox::valueChanged, this, [this](int v) { setDegree(1, v); });
    connect(m_cp, &QSpinBox::valueChanged, this, [this](int v) { setDegree(2, v); });
    intEdit(m_hsdp, [](Scenario &s, int v) { s.layout.hsdpShardSize = v; });
    intEdit(m_gpusPerNode, [](Scenario &s, int v) { s.layout.gpusPerNode = v; });
    intEdit(m_mbs, [](Scenario &s, int v) { s.training.microBatchSize = v; });
    intEdit(m_microBatches, [](Scenario &s, int v) { s.training.microBatches = v; });
    intEdit(m_chunks, [](Scenario &s, int v) { s.training.chunks = v; });
    intEdit(m_contextMib,
            [](Scenario &s, int v) { s.overheads.cudaContextBytes = std::int64_t(v) << 20; });
    intEdit(m_fragmentation, [](Scenario &s, int v) { s.overheads.fragmentationPercent = v; });
    intEdit(m_gatheredUnits, [](Scenario &s, int v) { s.overheads.gatheredUnits = v; });
    intEdit(m_hostRamGb, [](Scenario &s, int v) {
        s.overheads.hostRamBytesPerNode = std::int64_t(v) * 1'000'000'000;
    });
    connect(m_seq, &QComboBox::activated, this, [this](int i) {
        const int v = m_seq->itemData(i).toInt();
        m_model->edit([v](Scenario &s) { s.training.sequenceLength = v; });
    });
    connect(m_offload, &QComboBox::activated, this, [this](int i) {
        const auto o = Offload(m_offload->itemData(i).toInt());
        m_model->edit([o](Scenario &s) { s.layout.offload = o; });
    });
    connect(m_recompute, &QComboBox::activated, this, [this](int i) {
        const auto r = Recompute(m_recompute->itemData(i).toInt());
        m_model->edit([r](Scenario &s) { s.training.recompute = r; });
    });
    connect(m_loss, &QComboBox::activated, this, [this](int i) {
        const auto k = LossKernel(m_loss->itemData(i).toInt());
        m_model->edit([k](Scenario &s) { s.training.lossKernel = k; });
    });
    connect(m_schedule, &QComboBox::activated, this, [this](int i) {
        const auto p = PipelineSchedule(m_schedule->itemData(i).toInt());
        m_model->edit([p](Scenario &s) {
            s.training.schedule = p;
            if (p == PipelineSchedule::Interleaved1F1B && s.training.chunks < 2)
                s.training.chunks = 2;
            if (p != PipelineSchedule::Interleaved1F1B)
                s.training.chunks = 1;
        });
    });
    auto boolEdit = [this](QCheckBox *box, auto apply) {
        connect(box, &QCheckBox::toggled, this,
                [this, apply](bool on) { m_model->edit([&](Scenario &s) { apply(s, on); }); });
    };
    boolEdit(m_uneven, [](Scenario &s, bool on) { s.layout.allowUnevenStages = on; });
    boolEdit(m_flash, [](Scenario &s, bool on) { s.training.flashAttention = on; });
    boolEdit(m_sp, [](Scenario &s, bool on) { s.training.sequenceParallel = on; });
    boolEdit(m_fp32Logits, [](Scenario &s, bool on) { s.training.fp32Logits = on; });

    connect(m_model, &ScenarioModel::changed, this, &AdvancedPanel::sync);
    sync();
}

void AdvancedPanel::setDegree(int which, int value)
{
    m_model->edit([which, value](Scenario &s) {
        Layout &l = s.layout;
        const std::int64_t d = std::max<std::int64_t>(1, l.dataParallel());
        if (which == 0)
            l.tensorParallel = value;
        else if (which == 1)
            l.pipelineParallel = value;
        else
            l.contextParallel = value;
        l.gpus = std::min<std::int64_t>(d * l.modelParallel(), 16384);
    });
}

void AdvancedPanel::sync()
{
    const Scenario &s = m_model->scenario();
    const Layout &l = s.layout;
    const Training &t = s.training;
    const Overheads &o = s.overheads;
    const QList<QObject *> widgets = {m_tp,
                                      m_pp,
                                      m_cp,
                                      m_hsdp,
                                      m_gpusPerNode,
                                      m_offload,
                                      m_uneven,
                                      m_mbs,
                                      m_seq,
                                      m_microBatches,
                                      m_recompute,
                                      m_schedule,
                                      m_chunks,
                                      m_flash,
                                      m_sp,
                                      m_fp32Logits,
                                      m_contextMib,
                                      m_fragmentation,
                                      m_gatheredUnits,
                                      m_hostRamGb,
                                      m_loss};
    std::list<QSignalBlocker> blockers; // node-based: blockers are not movable
    for (QObject *w : widgets)
        blockers.emplace_back(w);
    m_tp->setValue(l.tensorParallel);
    m_pp->setValue(l.pipelineParallel);
    m_cp->setValue(l.contextParallel);
    m_hsdp->setValue(int(l.hsdpShardSize));
    m_gpusPerNode->setValue(int(l.gpusPerNode));
    m_offload->setCurrentIndex(m_offload->findData(int(l.offload)));
    m_uneven->setChecked(l.allowUnevenStages);
    m_mbs->setValue(int(t.microBatchSize));
    int seqIndex = m_seq->findData(int(t.sequenceLength));
    if (seqIndex < 0) {
        m_seq->addItem(QLocale(QLocale::English).toString(qlonglong(t.sequenceLength)),
                       int(t.sequenceLength));
        seqIndex = m_seq->count() - 1;
    }
    m_seq->setCurrentIndex(seqIndex);
    m_microBatches->setValue(int(t.microBatches));
    m_recompute->setCurrentIndex(m_recompute->findData(int(t.recompute)));
    m_schedule->setCurrentIndex(m_schedule->findData(int(t.schedule)));
    m_chunks->setValue(t.chunks);
    m_chunks->setEnabled(t.schedule == PipelineSchedule::Interleaved1F1B);
    m_flash->setChecked(t.flashAttention);
    m_sp->setChecked(t.sequenceParallel);
    m_fp32Logits->setChecked(t.fp32Logits);
    m_loss->setCurrentIndex(m_loss->findData(int(t.lossKernel)));
    m_contextMib->setValue(int(o.cudaContextBytes >> 20));
    m_fragmentation->setValue(o.fragmentationPercent);
    m_gatheredUnits->setValue(o.gatheredUnits);
    m_hostRamGb->setValue(int(o.hostRamBytesPerNode / 1'000'000'000));
    const bool divisible = l.modelParallel() > 0 && l.gpus % l.modelParallel() == 0;
    m_layoutLabel->setText(
        divisible ? QStringLiteral("%1 GPUs = d %2 × t %3 × p %4 × c %5; global batch %6 sequences")
                        .arg(QLocale(QLocale::English).toString(qlonglong(l.gpus)))
                        .arg(l.dataParallel())
                        .arg(l.tensorParallel)
                        .arg(l.pipelineParallel)
                        .arg(l.contextParallel)
                        .arg(QLocale(QLocale::English)
                                 .toString(qlonglong(t.globalBatch(l.dataParallel()))))
                  : QStringLiteral("%1 GPUs is not a multiple of t × p × c = %2")
                        .arg(l.gpus)
                        .arg(l.modelParallel()));
}

} // namespace shardscope
