#pragma once

#include "recipe.h"

#include <QList>
#include <QWidget>
#include <cstdint>
#include <vector>

class QButtonGroup;
class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace shardscope {

class AdvancedPanel;
class SettingEditor;
class Catalog;
class Session;
struct Scenario;

/// The window's left column: the headline controls (model preset and log-scale size
/// slider, GPU count slider and box, GPU card, strategy and fine-tuning buttons, sequence length
/// and micro-batch size), the recipe's bytes per parameter, the unit and accounting switches, and
/// the collapsed AdvancedPanel.
///
/// Every control writes to the Session; sync() (run by LazyRefresh after each change)
/// puts every control back to the Session's values, so two controls for one setting
/// cannot disagree. Sliders track while dragged.
class HeadlineControls : public QWidget
{
    Q_OBJECT
public:
    explicit HeadlineControls(Session *session, QWidget *parent = nullptr);

    /// Slider position (0..modelSliderSteps) for a parameter count on the log scale
    /// 1e8 .. 2e12, and back.
    static int modelSliderPosition(std::int64_t parameters);
    static std::int64_t modelSliderParameters(int position);
    static constexpr int modelSliderSteps = 1000;
    /// The fine-tuning button (index into catalog.fineTuningPresets()) that describes `s`:
    /// the first preset whose LoRA rank is zero exactly when `s`'s is and whose
    /// base_format is `s`'s, so a rank or targets edited in the advanced panel keeps its
    /// button; -1 when none does.
    static int tuningKind(const Catalog &catalog, const Scenario &s);
    QButtonGroup *fineTuningButtons() const { return m_tuning; }

    QSlider *modelSlider() const { return m_modelSlider; }
    QSlider *gpuSlider() const { return m_gpuSlider; }
    QSpinBox *gpuSpin() const { return m_gpuSpin; }
    QButtonGroup *strategyButtons() const { return m_strategy; }
    QComboBox *modelCombo() const { return m_modelCombo; }
    QComboBox *gpuCombo() const { return m_gpuCombo; }
    QComboBox *recipeCombo() const { return m_recipeCombo; }
    QLabel *modelInfoLabel() const { return m_modelInfo; }
    AdvancedPanel *advancedPanel() const { return m_advanced; }
    QCheckBox *modelStatesOnlyBox() const { return m_statesOnly; }

    /// Presentation mode shows only the headline controls (model, GPUs, strategy,
    /// fine-tuning, batch); the recipe, unit, model description and advanced settings come
    /// back when it ends.
    void setPresentation(bool on);
    /// The panel's type size (points) and the strategy and unit buttons' colours for the
    /// light or dark theme (WCAG contrast of the selected face: 5.0:1 light, 5.9:1 dark).
    void applyLook(bool dark, double pointSize);
    /// True while the model or GPU slider is held down (a drag is one undo step).
    bool dragging() const;
    /// Puts every control, the size line and the model description back to the
    /// Session's values without writing to it. While the model slider is held the
    /// description waits, and follows when the slider is released.
    void sync();

private:
    void syncInputs();
    /// The model description under the size slider, from the Session's model.
    void syncModelInfo();

    Session *m_session;
    QComboBox *m_modelCombo = nullptr;
    QSlider *m_modelSlider = nullptr;
    QLabel *m_modelSize = nullptr;
    QLabel *m_modelInfo = nullptr;
    QSlider *m_gpuSlider = nullptr;
    QSpinBox *m_gpuSpin = nullptr;
    QButtonGroup *m_strategy = nullptr;
    QButtonGroup *m_tuning = nullptr; ///< full fine-tune / LoRA / QLoRA
    QComboBox *m_gpuCombo = nullptr;
    QComboBox *m_recipeCombo = nullptr;
    QSpinBox *m_recipeBytes[4] = {};
    QButtonGroup *m_unit = nullptr;
    QCheckBox *m_statesOnly = nullptr;
    AdvancedPanel *m_advanced = nullptr;
    std::vector<std::int64_t> m_gpuCounts;  ///< what the GPU slider steps through now
    QList<QWidget *> m_secondaryControls;   ///< hidden in presentation mode
    std::vector<SettingEditor *> m_editors; ///< sequence length and micro-batch size
};

} // namespace shardscope
