#pragma once

#include "gpu.h"
#include "model.h"
#include "recipe.h"

#include <QByteArray>
#include <QString>
#include <optional>
#include <string_view>
#include <vector>

namespace shardscope {

/// The presets the explorer offers: models, training recipes and GPUs.
///
/// Loaded from the JSON files in resources/data (compiled in as Qt resources
/// under :/shardscope/data/). The catalog is data; the engine never reads files.
class Catalog
{
public:
    /// Parses the three JSON documents. A GPU's speeds ("bf16_tflops", "fp8_tflops",
    /// "memory_gbps", "nvlink_gbps" unidirectional, "speed_source"; core/gpu.h) are
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

    /// Lookup by id (case-sensitive); nullptr when absent.
    const Model *model(std::string_view id) const;
    const Recipe *recipe(std::string_view id) const;
    const Gpu *gpu(std::string_view id) const;

private:
    std::vector<Model> m_models;
    std::vector<Recipe> m_recipes;
    std::vector<Gpu> m_gpus;
};

} // namespace shardscope
