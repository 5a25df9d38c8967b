#include "scenariomodel.h"

namespace shardscope {

ScenarioModel::ScenarioModel(const Catalog &catalog, QObject *parent)
    : QObject(parent), m_catalog(catalog)
{
    const Model *m = catalog.model("llama3-70b");
    m_scenario.model = m ? *m : catalog.models().front();
    const Recipe *r = catalog.recipe("mixed-adam");
    m_scenario.recipe = r ? *r : catalog.recipes().front();
    const Gpu *g = catalog.gpu("h100-sxm-80gb");
    m_scenario.gpu = g ? *g : catalog.gpus().front();
    m_scenario.layout.gpus = 64;
    m_scenario.layout.zeroStage = ZeroStage::Ddp;
    m_report = estimate(m_scenario);
}

void ScenarioModel::recompute()
{
    m_report = estimate(m_scenario);
    emit changed();
}

void ScenarioModel::setModelPreset(const std::string &id)
{
    if (const Model *m = m_catalog.model(id)) {
        m_scenario.model = *m;
        m_scaled = false;
        recompute();
    }
}

void ScenarioModel::setScaledModel(std::int64_t parameters)
{
    Model m;
    m.architecture = scaledArchitecture(parameters);
    m.id = "scaled";
    m.displayName = "Scaled Llama-style " + formatParameters(m.parameters());
    m.source = "shape scaled from the size slider (core/model.h scaledArchitecture), not a "
               "published model";
    m_scenario.model = m;
    m_scaled = true;
    recompute();
}

void ScenarioModel::setGpus(std::int64_t gpus)
{
    if (gpus == m_scenario.layout.gpus)
        return;
    m_scenario.layout.gpus = gpus;
    recompute();
}

void ScenarioModel::setZeroStage(ZeroStage stage)
{
    if (stage == m_scenario.layout.zeroStage)
        return;
    m_scenario.layout.zeroStage = stage;
    recompute();
}

void ScenarioModel::setGpu(const std::string &id)
{
    if (const Gpu *g = m_catalog.gpu(id)) {
        m_scenario.gpu = *g;
        recompute();
    }
}

void ScenarioModel::setRecipe(const std::string &id)
{
    if (const Recipe *r = m_catalog.recipe(id)) {
        m_scenario.recipe = *r;
        recompute();
    }
}

void ScenarioModel::setRecipeBytes(std::int64_t weights, std::int64_t gradients,
                                   std::int64_t master, std::int64_t optimizer)
{
    Recipe r;
    r.id = "custom";
    r.displayName = "Custom";
    r.source = "edited by hand";
    r.weightBytes = weights;
    r.gradientBytes = gradients;
    r.masterWeightBytes = master;
    r.optimizerBytes = optimizer;
    for (const Recipe &preset : m_catalog.recipes()) {
        if (preset.weightBytes == weights && preset.gradientBytes == gradients &&
            preset.masterWeightBytes == master && preset.optimizerBytes == optimizer) {
            r = preset;
            break;
        }
    }
    m_scenario.recipe = r;
    recompute();
}

void ScenarioModel::setUnit(ByteUnit unit)
{
    if (unit == m_unit)
        return;
    m_unit = unit;
    emit changed();
}

void ScenarioModel::setModelStatesOnly(bool on)
{
    if (on == m_scenario.modelStatesOnly)
        return;
    m_scenario.modelStatesOnly = on;
    recompute();
}

void ScenarioModel::setScenario(const Scenario &s, bool scaled)
{
    m_scenario = s;
    m_scaled = scaled;
    recompute();
}

} // namespace shardscope
