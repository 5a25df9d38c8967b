#pragma once

#include "gpu.h"
#include "model.h"
#include "recipe.h"
#include "settings.h"

#include <QByteArray>
#include <QString>
#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {

/// A fine-tuning preset (recipes.json "fine_tuning"): the window's Full, LoRA and QLoRA
/// buttons. Applying it sets `values` through applySettings and, when `recipeId` is not
/// empty, the recipe of that id.
struct FineTuningPreset
{
    std::string id;                   ///< "qlora"
    std::string name;                 ///< the button's text, "QLoRA"
    std::string help;                 ///< the button's tooltip, with its source
    std::string recipeId;             ///< a recipe of the catalog, or empty to keep the recipe
    std::vector<SettingValue> values; ///< settings-table values, checked
};

/// The presets the explorer offers: models, training recipes and GPUs.
///
/// Loaded from the JSON files in resources/data (compiled in as Qt resources
/// under :/shardscope/data/). The catalog is data; the engine never reads files.
class Catalog
{
public:
    /// Parses the three JSON documents (recipes.json also holds the fine-tuning presets,
    /// optional: without them the catalog has none). A GPU's speeds ("bf16_tflops", "fp8_tflops",
    /// "mxfp8_tflops", "memory_gbps", "nvlink_gbps" unidirectional, "speed_source"; core/gpu.h) are
    /// optional: a file without them loads with 0 (unknown). On a malformed document returns
    /// nullopt and sets `*error` to a message naming the file and the entry at fault.
    static std::optional<Catalog> fromJson(const QByteArray &models, const QByteArray &recipes,
                                           const QByteArray &gpus, QString *error);

    /// The catalog compiled into the binary. Never fails for a shipped build
    /// (tests/core/test_catalog.cpp loads it); aborts with a message if it does.
    static const Catalog &builtIn();

    const std::vector<Model> &models() const { return m_models; }
    const std::vector<Recipe> &recipes() const { return m_recipes; }
    const std::vector<Gpu> &gpus() const { return m_gpus; }
    const std::vector<FineTuningPreset> &fineTuningPresets() const { return m_fineTuning; }

    /// Lookup by id (case-sensitive); nullptr when absent.
    const Model *model(std::string_view id) const;
    const Recipe *recipe(std::string_view id) const;
    const Gpu *gpu(std::string_view id) const;

private:
    /// Reads recipes.json's optional "fine_tuning" presets into `c` (its recipes read
    /// already); false plus `*err` naming the entry and the setting at fault.
    static bool readFineTuningPresets(const QByteArray &recipes, Catalog &c, QString *err);

    std::vector<Model> m_models;
    std::vector<Recipe> m_recipes;
    std::vector<Gpu> m_gpus;
    std::vector<FineTuningPreset> m_fineTuning;
};

/// Applies preset `p` of `catalog` to `s`: its setting values, then its recipe (when it
/// names one). A preset without a recipe keeps the scenario's, except that a recipe
/// another preset names (QLoRA's) returns to the catalog's first recipe, so leaving
/// QLoRA for a full fine-tune does not keep QLoRA's 12 B/param recipe.
void applyFineTuningPreset(const Catalog &catalog, const FineTuningPreset &p, Scenario &s);

} // namespace shardscope
