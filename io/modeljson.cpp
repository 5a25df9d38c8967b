#include "modeljson.h"

#include <QJsonValue>
#include <algorithm>

namespace shardscope {

bool readJsonInt(const QJsonObject &o, const char *key, std::int64_t *out, QString *error,
                 const QString &where, bool required)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined()) {
        if (required)
            *error = where + QStringLiteral(": missing \"%1\"").arg(QLatin1String(key));
        return !required;
    }
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d < 0 || d > 9007199254740992.0 || d != double(std::int64_t(d))) {
        *error =
            where +
            QStringLiteral(": \"%1\" must be a non-negative whole number").arg(QLatin1String(key));
        return false;
    }
    *out = std::int64_t(d);
    return true;
}

std::optional<Model> modelFromJson(const QJsonObject &o, const QString &where, QString *error)
{
    Model model;
    Model *m = &model;
    m->id = o.value(QLatin1String("id")).toString().toStdString();
    m->displayName = o.value(QLatin1String("name")).toString().toStdString();
    m->source = o.value(QLatin1String("source")).toString().toStdString();
    if (m->id.empty() || m->displayName.empty()) {
        *error = where + QStringLiteral(": needs \"id\" and \"name\"");
        return std::nullopt;
    }
    if (o.contains(QLatin1String("parameters"))) {
        if (!readJsonInt(o, "parameters", &m->plainParameters, error, where))
            return std::nullopt;
        return model;
    }
    Architecture a;
    std::int64_t layers = 0, heads = 0, kv = 0, headDim = 0;
    if (!readJsonInt(o, "layers", &layers, error, where) ||
        !readJsonInt(o, "hidden", &a.hidden, error, where) ||
        !readJsonInt(o, "ffn", &a.ffn, error, where) ||
        !readJsonInt(o, "heads", &heads, error, where) ||
        !readJsonInt(o, "kv_heads", &kv, error, where) ||
        !readJsonInt(o, "vocab", &a.vocab, error, where) ||
        !readJsonInt(o, "head_dim", &headDim, error, where, false))
        return std::nullopt;
    a.layers = int(std::min<std::int64_t>(layers, 1'000'000));
    a.heads = int(std::min<std::int64_t>(heads, 1'000'000));
    a.kvHeads = int(std::min<std::int64_t>(kv, 1'000'000));
    a.headDim = headDim;
    a.tiedEmbeddings = o.value(QLatin1String("tied")).toBool(false);
    a.gatedMlp = o.value(QLatin1String("gated_mlp")).toBool(true);
    a.linearBiases = o.value(QLatin1String("linear_biases")).toBool(false);
    a.layerNormBias = o.value(QLatin1String("layernorm_bias")).toBool(false);
    a.qkvBiases = o.value(QLatin1String("qkv_biases")).toBool(false);
    a.routerBias = o.value(QLatin1String("router_bias")).toBool(false);
    // "qk_norm": absent (none), "per_head" (Qwen3, Gemma 3) or "full" (OLMo 2).
    if (const QJsonValue qk = o.value(QLatin1String("qk_norm")); !qk.isUndefined()) {
        const QString kind = qk.toString();
        if (kind == QLatin1String("per_head")) {
            a.qkNorm = QkNorm::PerHead;
        } else if (kind == QLatin1String("full")) {
            a.qkNorm = QkNorm::Full;
        } else if (kind != QLatin1String("none")) {
            *error = where + QStringLiteral(": \"qk_norm\" must be \"none\", \"per_head\" or "
                                            "\"full\"");
            return std::nullopt;
        }
    }
    // Optional whole numbers (absent: the dense, ordinary-attention default).
    std::int64_t norms = a.normsPerLayer, experts = 0, active = 0, shared = 0, dense = 0,
                 moeStep = a.moeLayerStep;
    if (!readJsonInt(o, "norms_per_layer", &norms, error, where, false) ||
        !readJsonInt(o, "position_embeddings", &a.positionEmbeddings, error, where, false) ||
        !readJsonInt(o, "experts", &experts, error, where, false) ||
        !readJsonInt(o, "active_experts", &active, error, where, false) ||
        !readJsonInt(o, "expert_ffn", &a.expertFfn, error, where, false) ||
        !readJsonInt(o, "shared_experts", &shared, error, where, false) ||
        !readJsonInt(o, "dense_layers", &dense, error, where, false) ||
        !readJsonInt(o, "moe_layer_step", &moeStep, error, where, false) ||
        !readJsonInt(o, "q_lora_rank", &a.qLoraRank, error, where, false) ||
        !readJsonInt(o, "kv_lora_rank", &a.kvLoraRank, error, where, false) ||
        !readJsonInt(o, "qk_rope_head_dim", &a.qkRopeHeadDim, error, where, false) ||
        !readJsonInt(o, "qk_nope_head_dim", &a.qkNopeHeadDim, error, where, false) ||
        !readJsonInt(o, "v_head_dim", &a.vHeadDim, error, where, false))
        return std::nullopt;
    auto small = [](std::int64_t v) { return int(std::min<std::int64_t>(v, 1'000'000)); };
    a.normsPerLayer = small(norms);
    a.experts = small(experts);
    a.activeExperts = small(active);
    a.sharedExperts = small(shared);
    a.denseLayers = small(dense);
    a.moeLayerStep = small(moeStep);
    if (const std::string e = validateArchitecture(a); !e.empty()) {
        *error = where + QStringLiteral(": ") + QString::fromStdString(e);
        return std::nullopt;
    }
    m->architecture = a;
    return model;
}

QJsonObject modelToJson(const Model &m)
{
    QJsonObject o{{"id", QString::fromStdString(m.id)},
                  {"name", QString::fromStdString(m.displayName)},
                  {"source", QString::fromStdString(m.source)}};
    if (!m.architecture) {
        o.insert("parameters", qint64(m.plainParameters));
        return o;
    }
    const Architecture &a = *m.architecture;
    o.insert("layers", a.layers);
    o.insert("hidden", qint64(a.hidden));
    o.insert("ffn", qint64(a.ffn));
    o.insert("heads", a.heads);
    o.insert("kv_heads", a.kvHeads);
    o.insert("vocab", qint64(a.vocab));
    if (a.headDim > 0)
        o.insert("head_dim", qint64(a.headDim));
    o.insert("tied", a.tiedEmbeddings);
    o.insert("gated_mlp", a.gatedMlp);
    o.insert("linear_biases", a.linearBiases);
    o.insert("layernorm_bias", a.layerNormBias);
    // Fields beyond the dense Llama-style block, written only when set, so dense
    // models keep the v1 form.
    const Architecture plain;
    if (a.qkvBiases)
        o.insert("qkv_biases", true);
    if (a.normsPerLayer != plain.normsPerLayer)
        o.insert("norms_per_layer", a.normsPerLayer);
    const std::pair<const char *, std::int64_t> optional[] = {
        {"position_embeddings", a.positionEmbeddings},
        {"experts", a.experts},
        {"active_experts", a.activeExperts},
        {"expert_ffn", a.expertFfn},
        {"shared_experts", a.sharedExperts},
        {"dense_layers", a.denseLayers},
        {"q_lora_rank", a.qLoraRank},
        {"kv_lora_rank", a.kvLoraRank},
        {"qk_rope_head_dim", a.qkRopeHeadDim},
        {"qk_nope_head_dim", a.qkNopeHeadDim},
        {"v_head_dim", a.vHeadDim}};
    for (const auto &[key, value] : optional)
        if (value != 0)
            o.insert(QLatin1String(key), qint64(value));
    if (a.moeLayerStep != plain.moeLayerStep)
        o.insert("moe_layer_step", a.moeLayerStep);
    if (a.routerBias)
        o.insert("router_bias", true);
    if (a.qkNorm == QkNorm::PerHead)
        o.insert("qk_norm", QStringLiteral("per_head"));
    else if (a.qkNorm == QkNorm::Full)
        o.insert("qk_norm", QStringLiteral("full"));
    return o;
}

} // namespace shardscope
