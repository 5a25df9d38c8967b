#pragma once

#include "model.h"

#include <QJsonObject>
#include <QString>
#include <optional>

namespace shardscope {

/// Reads a non-negative whole-number field `key` of `o` into `*out`. JSON numbers
/// are doubles, so values must be whole and at most 2^53. A missing optional field
/// leaves `*out` alone and succeeds. On failure sets `*error` to
/// "<where>: \"key\" must be a non-negative whole number" (or "missing \"key\"").
bool readJsonInt(const QJsonObject &o, const char *key, std::int64_t *out, QString *error,
                 const QString &where, bool required = true);

/// A model from its JSON object, as written in resources/data/models.json and in
/// scenario files: { "id", "name", "source", and either "parameters" (a plain
/// count) or the architecture fields "layers", "hidden", "ffn", "heads",
/// "kv_heads", "vocab", optional "head_dim", "tied", "gated_mlp",
/// "linear_biases", "layernorm_bias", and (optional, default 0 / false / 2)
/// "qkv_biases", "norms_per_layer", "position_embeddings", mixture-of-experts
/// "experts", "active_experts", "expert_ffn", "shared_experts", "dense_layers",
/// "moe_layer_step" (default 1), "router_bias", and latent-attention "q_lora_rank", "kv_lora_rank",
/// "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim", and "qk_norm" ("none",
/// "per_head" or "full"; absent means none) (core/model.h's
/// Architecture fields; docs/models.md). Files without the optional fields stay
/// valid. nullopt plus `*error` naming `where` and the field when malformed or
/// invalid (validateArchitecture).
std::optional<Model> modelFromJson(const QJsonObject &o, const QString &where, QString *error);

/// The inverse of modelFromJson: modelFromJson(modelToJson(m)) reproduces m.
QJsonObject modelToJson(const Model &m);

} // namespace shardscope
