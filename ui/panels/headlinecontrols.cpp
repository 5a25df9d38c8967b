#include "headlinecontrols.h"

#include "advancedpanel.h"
#include "defaults.h"
#include "lazyrefresh.h"
#include "qtext.h"
#include "session.h"
#include "settingeditor.h"
#include "settings.h"
#include "wraplabel.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

namespace shardscope {

namespace {

/// "1 GPU", "64 GPUs": the GPU box's suffix for `value`, set only when the plural changes
/// (a new suffix re-writes the field, and typing 16 over 1 must keep its cursor).
void setGpuSuffix(QSpinBox *spin, int value)
{
    const QString suffix = value == 1 ? QStringLiteral(" GPU") : QStringLiteral(" GPUs");
    if (spin->suffix() != suffix)
        spin->setSuffix(suffix);
}

/// Selects the item whose data is `id`. An id not in the list (a custom recipe or GPU
/// from a file or a lesson) selects a trailing item with data `customId`, added once and
/// showing `name` (or `customText` when the name is empty), so the box never names a
/// preset the scenario does not use.
void selectOrShowCustom(QComboBox *combo, const QString &id, const QString &name,
                        const QString &customId, const QString &customText)
{
    int index = id == customId ? -1 : combo->findData(id);
    if (index < 0) {
        index = combo->findData(customId);
        if (index < 0) {
            combo->addItem(QString(), customId);
            index = combo->count() - 1;
        }
        combo->setItemText(index, name.isEmpty() ? customText : name);
    }
    combo->setCurrentIndex(index);
}

constexpr double logMinParams = 8.0;          // 1e8 = 0.1B
const double logMaxParams = std::log10(2e12); // 2T

QString count(std::int64_t n)
{
    return QLocale(QLocale::English).toString(qlonglong(n));
}

} // namespace

int HeadlineControls::tuningKind(const Catalog &catalog, const Scenario &s)
{
    const auto &presets = catalog.fineTuningPresets();
    for (std::size_t i = 0; i < presets.size(); ++i) {
        bool match = true;
        for (const SettingValue &v : presets[i].values) {
            if (v.setting->key == "lora_rank")
                match = match && (v.value == 0) == (v.setting->get(s) == 0);
            else if (v.setting->key == "base_format")
                match = match && v.value == v.setting->get(s);
        }
        if (match)
            return int(i);
    }
    return -1;
}

int HeadlineControls::modelSliderPosition(std::int64_t parameters)
{
    const double l = std::log10(std::max<double>(double(parameters), 1.0));
    const double f = (l - logMinParams) / (logMaxParams - logMinParams);
    return int(std::lround(std::clamp(f, 0.0, 1.0) * modelSliderSteps));
}

std::int64_t HeadlineControls::modelSliderParameters(int position)
{
    const double f = double(std::clamp(position, 0, modelSliderSteps)) / modelSliderSteps;
    return std::int64_t(
        std::llround(std::pow(10.0, logMinParams + f * (logMaxParams - logMinParams))));
}

HeadlineControls::HeadlineControls(Session *session, QWidget *parent)
    : QWidget(parent), m_session(session)
{
    const Catalog &catalog = m_session->catalog();
    auto *layout = new QVBoxLayout(this);
    QFont big = font();
    big.setPointSizeF(12);
    setFont(big);

    // Model: preset list plus a log-scale size slider.
    auto *modelBox = new QGroupBox(QStringLiteral("Model"));
    auto *modelForm = new QVBoxLayout(modelBox);
    m_modelCombo = new QComboBox;
    for (const Model &m : catalog.models())
        m_modelCombo->addItem(toQString(m.displayName), toQString(m.id));
    m_modelCombo->addItem(QStringLiteral("Scaled from the size slider"), QStringLiteral("scaled"));
    // Models from a file or the command line (their name replaces this text).
    m_modelCombo->addItem(QStringLiteral("Custom model"), QStringLiteral("custom"));
    m_modelSlider = new QSlider(Qt::Horizontal);
    m_modelSlider->setRange(0, modelSliderSteps);
    m_modelSlider->setPageStep(25);
    m_modelSlider->setToolTip(QStringLiteral("Model size, log scale from 0.1B to 2T parameters"));
    m_modelSlider->setAccessibleName(QStringLiteral("Model size")); // its value: redraw()
    m_modelSize = new WrapLabel; // "46.7B parameters, 12.9B active" wraps in presentation
    QFont sizeFont = big;
    sizeFont.setPointSizeF(16);
    sizeFont.setBold(true);
    m_modelSize->setFont(sizeFont);
    m_modelInfo = new WrapLabel;
    modelForm->addWidget(m_modelCombo);
    modelForm->addWidget(m_modelSize);
    modelForm->addWidget(m_modelSlider);
    auto *ends = new QHBoxLayout;
    ends->addWidget(new QLabel(QStringLiteral("0.1B")));
    ends->addStretch();
    ends->addWidget(new QLabel(QStringLiteral("2T")));
    modelForm->addLayout(ends);
    modelForm->addWidget(m_modelInfo);
    m_secondaryControls << m_modelInfo;
    layout->addWidget(modelBox);

    connect(m_modelCombo, &QComboBox::activated, this, [this](int index) {
        const QString id = m_modelCombo->itemData(index).toString();
        if (id == QStringLiteral("custom"))
            return; // already the current model
        if (id == QStringLiteral("scaled"))
            m_session->setScaledModel(modelSliderParameters(m_modelSlider->value()));
        else
            m_session->setModelPreset(id.toStdString());
    });
    connect(m_modelSlider, &QSlider::valueChanged, this,
            [this](int pos) { m_session->setScaledModel(modelSliderParameters(pos)); });
    connect(m_modelSlider, &QSlider::sliderReleased, this, &HeadlineControls::syncModelInfo);

    // GPUs: count slider + exact spin box, and the card.
    auto *gpuBox = new QGroupBox(QStringLiteral("GPUs"));
    auto *gpuForm = new QVBoxLayout(gpuBox);
    m_gpuSlider = new QSlider(Qt::Horizontal);
    m_gpuCounts = gpuSliderCounts();
    m_gpuSlider->setRange(0, int(m_gpuCounts.size()) - 1);
    m_gpuSlider->setPageStep(2);
    m_gpuSlider->setToolTip(QStringLiteral("GPU count, 1 to %1 (the box takes up to %2)")
                                .arg(QLocale(QLocale::English).toString(maxGpuSliderCount))
                                .arg(QLocale(QLocale::English).toString(qlonglong(maxGpus))));
    m_gpuSlider->setAccessibleName(QStringLiteral("GPU count")); // its value: redraw()
    m_gpuSpin = new QSpinBox;
    const Setting &gpusSetting = *settingByKey("gpus");
    m_gpuSpin->setRange(int(gpusSetting.displayMin()), int(gpusSetting.displayMax()));
    m_gpuSpin->setObjectName(QStringLiteral("setting:gpus"));
    m_gpuSpin->setToolTip(
        QString::fromUtf8(gpusSetting.help.data(), qsizetype(gpusSetting.help.size())));
    m_gpuSpin->setGroupSeparatorShown(true);
    m_gpuSpin->setSuffix(QStringLiteral(" GPUs"));
    // "1 GPU", "64 GPUs": the suffix follows the count (only when the plural changes, so
    // typing 16 over 1 keeps the cursor where it was).
    connect(m_gpuSpin, &QSpinBox::valueChanged, m_gpuSpin,
            [spin = m_gpuSpin](int value) { setGpuSuffix(spin, value); });
    m_gpuSpin->setAccessibleName(QStringLiteral("GPUs"));
    m_gpuSpin->setMinimumWidth(140);
    auto *countRow = new QHBoxLayout;
    countRow->addWidget(m_gpuSlider, 1);
    countRow->addWidget(m_gpuSpin);
    gpuForm->addLayout(countRow);
    m_gpuCombo = new QComboBox;
    for (const Gpu &g : catalog.gpus())
        m_gpuCombo->addItem(toQString(g.name), toQString(g.id));
    gpuForm->addWidget(m_gpuCombo);
    layout->addWidget(gpuBox);

    connect(m_gpuSlider, &QSlider::valueChanged, this, [this](int pos) {
        const int last = int(m_gpuCounts.size()) - 1;
        m_session->setGpus(m_gpuCounts[std::size_t(std::clamp(pos, 0, last))]);
    });
    connect(m_gpuSpin, &QSpinBox::valueChanged, this, [this](int v) { m_session->setGpus(v); });
    connect(m_gpuCombo, &QComboBox::activated, this, [this](int index) {
        m_session->setGpu(m_gpuCombo->itemData(index).toString().toStdString());
    });

    // Strategy: segmented buttons, big enough for a projector.
    auto *strategyBox = new QGroupBox(QStringLiteral("Strategy (data parallel)"));
    strategyBox->setObjectName(QStringLiteral("setting:strategy"));
    auto *strategyRow = new QHBoxLayout(strategyBox);
    m_strategy = new QButtonGroup(this);
    for (int z = 0; z <= 3; ++z) {
        auto *b = new QPushButton(z == 3 ? QStringLiteral("ZeRO-3\n/ FSDP")
                                         : QString::fromUtf8(zeroStageName(ZeroStage(z)).data()));
        b->setCheckable(true);
        b->setMinimumHeight(52);
        static const char *tips[] = {
            "DDP: every GPU keeps a full copy of weights, gradients and optimizer states",
            "ZeRO-1: optimizer states (and fp32 master weights) sharded over the GPUs",
            "ZeRO-2: gradients sharded too (FSDP SHARD_GRAD_OP)",
            "ZeRO-3 / FSDP FULL_SHARD: weights sharded too; gathered layer by layer"};
        b->setToolTip(QString::fromLatin1(tips[z]));
        b->setAccessibleName(b->text().replace(u'\n', u' ')); // "ZeRO-3 / FSDP"
        m_strategy->addButton(b, z);
        strategyRow->addWidget(b);
    }
    layout->addWidget(strategyBox);
    connect(m_strategy, &QButtonGroup::idClicked, this,
            [this](int id) { m_session->setZeroStage(ZeroStage(id)); });

    // What trains: every parameter, LoRA adapters on a bf16 base, or QLoRA on NF4 (the
    // running example of the teaching notes is a fine-tune). The advanced panel edits
    // rank, targets and format one by one.
    auto *tuningBox = new QGroupBox(QStringLiteral("Fine-tuning"));
    tuningBox->setObjectName(QStringLiteral("fineTuning"));
    auto *tuningRow = new QHBoxLayout(tuningBox);
    m_tuning = new QButtonGroup(this);
    const auto &presets = catalog.fineTuningPresets();
    for (std::size_t i = 0; i < presets.size(); ++i) {
        auto *b = new QPushButton(toQString(presets[i].name));
        b->setCheckable(true);
        b->setMinimumHeight(40);
        b->setToolTip(toQString(presets[i].help));
        m_tuning->addButton(b, int(i));
        tuningRow->addWidget(b);
    }
    layout->addWidget(tuningBox);
    connect(m_tuning, &QButtonGroup::idClicked, this, [this](int id) {
        const Catalog &c = m_session->catalog();
        if (id == tuningKind(c, m_session->scenario()))
            return; // keeps a rank or targets set in the advanced panel
        m_session->edit([&c, id](Scenario &sc) {
            applyFineTuningPreset(c, c.fineTuningPresets()[std::size_t(id)], sc);
        });
    });

    // What one micro-batch holds: sequence length and micro-batch size, the two settings
    // activations grow with (lessons 5 and 6 turn them), in front and in presentation too.
    // The settings table's editors: the Advanced panel's ranges, tooltips and edits.
    auto *batchBox = new QGroupBox(QStringLiteral("Batch"));
    batchBox->setObjectName(QStringLiteral("batch"));
    auto *batchForm = new QFormLayout(batchBox);
    for (const char *key : {"seq", "mbs"}) {
        auto *editor = new SettingEditor(*settingByKey(key), m_session, this);
        editor->widget()->setObjectName(QStringLiteral("headline:") + QLatin1String(key));
        // The field takes the column's width, not its longest value's (16,777,216 tokens
        // would widen the column past a 1280 x 720 projector's).
        editor->widget()->setMinimumWidth(110);
        editor->widget()->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
        batchForm->addRow(toQString(editor->setting().label), editor->widget());
        m_editors.push_back(editor);
    }
    layout->addWidget(batchBox);

    // Recipe: preset plus editable bytes per parameter.
    auto *recipeBox = new QGroupBox(QStringLiteral("Training recipe (bytes per parameter)"));
    auto *recipeForm = new QFormLayout(recipeBox);
    m_recipeCombo = new QComboBox;
    for (const Recipe &r : catalog.recipes())
        m_recipeCombo->addItem(toQString(r.displayName), toQString(r.id));
    m_recipeCombo->addItem(QStringLiteral("Custom"), QStringLiteral("custom"));
    recipeForm->addRow(m_recipeCombo);
    const char *names[] = {"Weights", "Gradients", "Master weights", "Optimizer states"};
    for (int i = 0; i < 4; ++i) {
        m_recipeBytes[i] = new QSpinBox;
        m_recipeBytes[i]->setRange(0, 64);
        m_recipeBytes[i]->setSuffix(QStringLiteral(" B"));
        recipeForm->addRow(QString::fromLatin1(names[i]), m_recipeBytes[i]);
        connect(m_recipeBytes[i], &QSpinBox::valueChanged, this, [this] {
            m_session->setRecipeBytes(m_recipeBytes[0]->value(), m_recipeBytes[1]->value(),
                                      m_recipeBytes[2]->value(), m_recipeBytes[3]->value());
        });
    }
    layout->addWidget(recipeBox);
    m_secondaryControls << recipeBox;
    connect(m_recipeCombo, &QComboBox::activated, this, [this](int index) {
        m_session->setRecipe(m_recipeCombo->itemData(index).toString().toStdString());
    });

    // Unit switch.
    auto *unitBox = new QGroupBox(QStringLiteral("Unit and accounting"));
    auto *unitLayout = new QVBoxLayout(unitBox);
    auto *unitRow = new QHBoxLayout;
    unitLayout->addLayout(unitRow);
    m_unit = new QButtonGroup(this);
    const char *unitTips[] = {"GB = 10^9 bytes, as vendors and papers count",
                              "GiB = 2^30 bytes, as drivers and nvidia-smi count"};
    for (int u = 0; u < 2; ++u) {
        auto *b = new QPushButton(toQString(unitName(ByteUnit(u))));
        b->setCheckable(true);
        b->setToolTip(QString::fromLatin1(unitTips[u]));
        m_unit->addButton(b, u);
        unitRow->addWidget(b);
    }
    m_statesOnly = new QCheckBox(QStringLiteral("Model states only (ZeRO paper)"));
    m_statesOnly->setObjectName(QStringLiteral("setting:model_states_only"));
    m_statesOnly->setToolTip(QStringLiteral(
        "Count weights, gradients, master weights and optimizer states only, as the ZeRO "
        "paper's Figure 1 and the teaching notes do. Off: activations and buffers too."));
    unitLayout->addWidget(m_statesOnly);
    layout->addWidget(unitBox);
    m_secondaryControls << unitBox;
    connect(m_unit, &QButtonGroup::idClicked, this,
            [this](int id) { m_session->setUnit(ByteUnit(id)); });
    connect(m_statesOnly, &QCheckBox::toggled, this,
            [this](bool on) { m_session->setModelStatesOnly(on); });

    // Advanced settings, collapsed so the headline controls stay in front.
    auto *more = new QToolButton;
    more->setText(QStringLiteral("Advanced: layout, training step, buffers"));
    more->setCheckable(true);
    more->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    more->setArrowType(Qt::RightArrow);
    more->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    m_advanced = new AdvancedPanel(m_session);
    m_advanced->setVisible(false);
    connect(more, &QToolButton::toggled, this, [this, more](bool on) {
        more->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        m_advanced->setVisible(on);
    });
    layout->addWidget(more);
    layout->addWidget(m_advanced);
    m_secondaryControls << more;

    // Long preset names must not widen the panel: combos elide instead (their popups
    // show every item whole). 10 characters keep the expanded advanced settings, label
    // beside field, inside the column at the presentation font.
    for (QComboBox *combo : findChildren<QComboBox *>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(10);
    }
    layout->addStretch();
    new LazyRefresh(this, m_session, [this] { sync(); });
    sync();
}

void HeadlineControls::setPresentation(bool on)
{
    for (QWidget *w : m_secondaryControls)
        w->setVisible(!on);
    if (on)
        m_advanced->setVisible(false);
}

bool HeadlineControls::dragging() const
{
    return m_modelSlider->isSliderDown() || m_gpuSlider->isSliderDown();
}

void HeadlineControls::applyLook(bool isDark, double pointSize)
{
    QFont panelFont = font();
    panelFont.setPointSizeF(pointSize);
    setFont(panelFont);
    // The strategy and unit buttons: the selected one filled with Okabe-Ito blue (light
    // theme) or sky blue (dark), the others the plain face, so the choice reads from the
    // back of a room: WCAG 2.1 contrast between the faces, selected against unselected,
    // 5.0:1 light (#0072B2 on #FAFAFA) and 5.9:1 dark (#56B4E9 on #2B2E35); the labels
    // on them 5.2:1 (white on blue) and 9.1:1 (black on sky blue). Focus: a dashed edge.
    struct Colors
    {
        const char *face, *text, *edge, *hover, *selected, *selectedText, *selectedEdge, *focus;
    };
    static const Colors light{"#FAFAFA", "#1A1A1A", "#8A8A8A", "#E3EEF6",
                              "#0072B2", "#FFFFFF", "#004F7C", "#1A1A1A"};
    static const Colors darkColors{"#2B2E35", "#EEEEEE", "#70757F", "#363A43",
                                   "#56B4E9", "#000000", "#A8D8F5", "#EEEEEE"};
    const Colors &c = isDark ? darkColors : light;
    const QString css =
        QStringLiteral("QPushButton { background-color: %1; color: %2; border: 1px solid %3; "
                       "border-radius: 6px; padding: 4px 4px; }"
                       "QPushButton:hover:!checked { background-color: %4; }"
                       "QPushButton:checked { background-color: %5; color: %6; "
                       "border: 2px solid %7; }"
                       "QPushButton:focus { border: 2px dashed %8; }")
            .arg(QLatin1String(c.face), QLatin1String(c.text), QLatin1String(c.edge),
                 QLatin1String(c.hover), QLatin1String(c.selected), QLatin1String(c.selectedText),
                 QLatin1String(c.selectedEdge), QLatin1String(c.focus));
    // A style sheet stops the panel's font reaching the button: give its size here.
    const QString size = QStringLiteral("QPushButton { font-size: %1pt; }").arg(pointSize);
    for (QButtonGroup *group : {m_strategy, m_tuning, m_unit})
        for (QAbstractButton *b : group->buttons())
            b->setStyleSheet(size + css);
}

void HeadlineControls::syncInputs()
{
    const Scenario &s = m_session->scenario();
    const QSignalBlocker b1(m_modelCombo), b2(m_modelSlider), b3(m_gpuSlider), b4(m_gpuSpin),
        b5(m_gpuCombo), b6(m_recipeCombo);
    const QString modelId =
        m_session->modelIsScaled() ? QStringLiteral("scaled") : toQString(s.model.id);
    int modelIndex = m_modelCombo->findData(modelId);
    if (modelIndex < 0 || modelId == QStringLiteral("custom")) {
        modelIndex = m_modelCombo->findData(QStringLiteral("custom"));
        m_modelCombo->setItemText(
            modelIndex,
            toQString(s.model.displayName.empty() ? "Custom model" : s.model.displayName));
    }
    m_modelCombo->setCurrentIndex(modelIndex);
    if (!m_modelSlider->isSliderDown() && !m_session->modelIsScaled())
        m_modelSlider->setValue(modelSliderPosition(s.model.parameters()));
    m_gpuSpin->setValue(int(std::min<std::int64_t>(s.layout.gpus, m_gpuSpin->maximum())));
    setGpuSuffix(m_gpuSpin, m_gpuSpin->value()); // its valueChanged() is blocked here
    const std::int64_t multiple =
        std::min<std::int64_t>(s.layout.modelParallel(), maxGpuSliderCount);
    if (m_gpuCounts.front() != multiple) {
        m_gpuCounts = gpuSliderCounts(multiple);
        m_gpuSlider->setRange(0, int(m_gpuCounts.size()) - 1);
    }
    if (!m_gpuSlider->isSliderDown())
        m_gpuSlider->setValue(int(nearestGpuSliderIndex(m_gpuCounts, s.layout.gpus)));
    selectOrShowCustom(m_gpuCombo, toQString(s.gpu.id), toQString(s.gpu.name),
                       QStringLiteral("custom-gpu"), QStringLiteral("Custom GPU"));
    selectOrShowCustom(m_recipeCombo, toQString(s.recipe.id), toQString(s.recipe.displayName),
                       QStringLiteral("custom"), QStringLiteral("Custom"));
    const std::int64_t bytes[] = {s.recipe.weightBytes, s.recipe.gradientBytes,
                                  s.recipe.masterWeightBytes, s.recipe.optimizerBytes};
    for (int i = 0; i < 4; ++i) {
        const QSignalBlocker b(m_recipeBytes[i]);
        m_recipeBytes[i]->setValue(int(bytes[i]));
    }
    if (auto *button = m_tuning->button(tuningKind(m_session->catalog(), s))) {
        button->setChecked(true);
    } else if (QAbstractButton *checked = m_tuning->checkedButton()) {
        // No preset describes the scenario (an fp16 base with rank 0, say): none checked.
        m_tuning->setExclusive(false);
        checked->setChecked(false);
        m_tuning->setExclusive(true);
    }
    if (auto *button = m_strategy->button(int(s.layout.zeroStage)))
        button->setChecked(true);
    if (auto *button = m_unit->button(int(m_session->unit())))
        button->setChecked(true);
    {
        const QSignalBlocker b(m_statesOnly);
        m_statesOnly->setChecked(s.modelStatesOnly);
    }
}

void HeadlineControls::sync()
{
    syncInputs();
    const Scenario &s = m_session->scenario();
    for (SettingEditor *e : m_editors)
        e->sync(s);

    m_modelSize->setText(s.model.architecture && s.model.architecture->isMoe()
                             // No-break spaces: a narrow column breaks after the comma.
                             ? QStringLiteral("%1\u00a0parameters, %2\u00a0active")
                                   .arg(toQString(formatParameters(s.model.parameters())),
                                        toQString(formatParameters(s.model.activeParameters())))
                             : QStringLiteral("%1 parameters")
                                   .arg(toQString(formatParameters(s.model.parameters()))));
    // The description follows the model slider when it is let go, not at every step of
    // a drag: it wraps over five lines, and measuring, relaying and repainting it was a
    // fifth of a drag step (2.9 M of 14.9 M instructions at 1,024 GPUs, callgrind,
    // tests/bench BM_SliderToReplot). The parameter count above it follows every step.
    // Only the slider's own scaled model waits: a preset, a file or an undo that lands
    // while it is held (or a slider that lost its grab) is described at once.
    if (!m_modelSlider->isSliderDown() || !m_session->modelIsScaled())
        syncModelInfo();
    // What a screen reader says for the sliders (their positions are only steps).
    m_modelSlider->setAccessibleDescription(m_modelSize->text());
    m_gpuSlider->setAccessibleDescription(
        s.layout.gpus == 1 ? QStringLiteral("1 GPU")
                           : QStringLiteral("%1 GPUs").arg(count(s.layout.gpus)));
}

void HeadlineControls::syncModelInfo()
{
    const Scenario &s = m_session->scenario();
    QString info;
    if (m_session->modelIsScaled()) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("Scaled Llama-style shape, not a published model: %1 layers, "
                              "hidden %2, FFN %3, %4 heads (%5 KV), vocabulary %6. "
                              "Exactly %7 parameters.")
                   .arg(a.layers)
                   .arg(count(a.hidden), count(a.ffn))
                   .arg(a.heads)
                   .arg(a.kvHeads)
                   .arg(count(a.vocab), count(s.model.parameters()));
    } else if (s.model.architecture && s.model.architecture->isMoe()) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("Mixture of experts: %1 layers, hidden %2, %3 routed experts (%4 "
                              "active per token, FFN %5) plus %6 shared: exactly %7 parameters, "
                              "%8 active per token. Source: %9")
                   .arg(a.layers)
                   .arg(count(a.hidden))
                   .arg(a.experts)
                   .arg(a.activeExperts)
                   .arg(count(a.effectiveExpertFfn()))
                   .arg(a.sharedExperts)
                   .arg(count(s.model.parameters()), count(s.model.activeParameters()),
                        toQString(s.model.source));
    } else if (s.model.architecture) {
        const Architecture &a = *s.model.architecture;
        info = QStringLiteral("%1 layers, hidden %2, FFN %3, %4 heads (%5 KV), vocabulary %6: "
                              "exactly %7 parameters. Source: %8")
                   .arg(a.layers)
                   .arg(count(a.hidden), count(a.ffn))
                   .arg(a.heads)
                   .arg(a.kvHeads)
                   .arg(count(a.vocab), count(s.model.parameters()), toQString(s.model.source));
    } else {
        info = QStringLiteral("A plain count of %1 parameters (no architecture). Source: %2")
                   .arg(count(s.model.parameters()), toQString(s.model.source));
    }
    m_modelInfo->setText(info);
}

} // namespace shardscope
