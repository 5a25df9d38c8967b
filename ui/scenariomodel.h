#pragma once

#include "catalog.h"
#include "estimate.h"
#include "format.h"

#include <QObject>

namespace shardscope {

/// Owns the current Scenario and its MemoryReport; the single source of truth
/// every view redraws from. Each setter recomputes the report (microseconds:
/// see tests/bench) and emits changed() once. Settings exist here once, so two
/// controls for the same value cannot disagree.
class ScenarioModel : public QObject
{
    Q_OBJECT
public:
    /// Starts on Llama 3 70B, 64 x H100 SXM 80GB, DDP, mixed-precision Adam.
    explicit ScenarioModel(const Catalog &catalog, QObject *parent = nullptr);

    const Catalog &catalog() const { return m_catalog; }
    const Scenario &scenario() const { return m_scenario; }
    const MemoryReport &report() const { return m_report; }
    ByteUnit unit() const { return m_unit; }
    /// True when the model comes from the size slider (scaled shape), not a preset.
    bool modelIsScaled() const { return m_scaled; }

    /// Selects a model preset by id; unknown ids are ignored.
    void setModelPreset(const std::string &id);
    /// Uses scaledArchitecture(parameters): a Llama-style shape near that count.
    void setScaledModel(std::int64_t parameters);
    void setGpus(std::int64_t gpus);
    void setZeroStage(ZeroStage stage);
    /// Selects a GPU from the catalog by id; unknown ids are ignored.
    void setGpu(const std::string &id);
    /// Selects a recipe preset by id; unknown ids are ignored.
    void setRecipe(const std::string &id);
    /// Replaces the bytes per parameter (the recipe becomes "custom" unless they match a preset).
    void setRecipeBytes(std::int64_t weights, std::int64_t gradients, std::int64_t master,
                        std::int64_t optimizer);
    void setUnit(ByteUnit unit);
    /// Counts model states only (the ZeRO paper's Figure 1 accounting) or everything.
    void setModelStatesOnly(bool on);
    /// Applies `change(Scenario &)` and recomputes once: the one way to edit any
    /// other setting (layout degrees, training, overheads) without a setter each.
    template <typename F> void edit(F &&change)
    {
        change(m_scenario);
        recompute();
    }
    /// Replaces everything at once (one changed() signal).
    void setScenario(const Scenario &s, bool scaled = false);

signals:
    /// The scenario or unit changed; report() is already up to date.
    void changed();

private:
    void recompute();

    const Catalog &m_catalog;
    Scenario m_scenario;
    MemoryReport m_report;
    ByteUnit m_unit = ByteUnit::GB;
    bool m_scaled = false;
};

} // namespace shardscope
