#include "hfconfig.h"

#include "format.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <algorithm>
#include <cmath>

namespace shardscope {

namespace {

/// One supported family: its `model_type`, the `architectures` class that implies it,
/// and how its transformers config class defaults the fields that change the count.
struct Family
{
    const char *modelType;
    const char *architecture;
    const char *displayName;
    bool tiedByDefault;       ///< the config class's tie_word_embeddings default
    bool kvHeadsDefaultHeads; ///< num_key_value_heads may be absent (then = heads)
    bool headDimRequired;     ///< head_dim's class default is not hidden / heads
};

// Defaults from each transformers configuration_*.py: LlamaConfig, MistralConfig,
// MixtralConfig, Qwen2Config and DeepseekV3Config default tie_word_embeddings to
// False, GemmaConfig and Gemma2Config to True; LlamaConfig and DeepseekV3Config set
// num_key_value_heads = num_attention_heads when it is None, the others default it to
// a fixed number, so it is required there; Gemma's head_dim defaults to 256.
constexpr Family families[] = {
    {"llama", "LlamaForCausalLM", "Llama", false, true, false},
    {"mistral", "MistralForCausalLM", "Mistral", false, false, false},
    {"mixtral", "MixtralForCausalLM", "Mixtral", false, false, false},
    {"qwen2", "Qwen2ForCausalLM", "Qwen2", false, false, false},
    {"gemma", "GemmaForCausalLM", "Gemma", true, false, true},
    {"gemma2", "Gemma2ForCausalLM", "Gemma 2", true, false, true},
    {"deepseek_v3", "DeepseekV3ForCausalLM", "DeepSeek-V3", false, true, false},
};

/// Reads fields of one config object, collecting every missing and malformed one.
class Fields
{
public:
    explicit Fields(const QJsonObject &o) : m_o(o) {}

    /// A positive whole number (0 allowed when `allowZero`). Absent or null: the
    /// default when `optional`, else recorded as missing.
    std::int64_t integer(const char *key, bool optional = false, std::int64_t def = 0,
                         bool allowZero = false)
    {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) {
            if (!optional)
                m_missing << QLatin1String(key);
            return def;
        }
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d < (allowZero ? 0 : 1) || d > 1e12 || d != std::floor(d)) {
            m_malformed << QStringLiteral("%1 must be a %2 whole number")
                               .arg(QLatin1String(key), allowZero ? QStringLiteral("non-negative")
                                                                  : QStringLiteral("positive"));
            return def;
        }
        return std::int64_t(d);
    }

    /// A count that fits an int field (at most 1,000,000).
    int count(const char *key, bool optional = false, int def = 0, bool allowZero = false)
    {
        return int(std::min<std::int64_t>(integer(key, optional, def, allowZero), 1'000'000));
    }

    /// A boolean; absent or null gives `def`.
    bool boolean(const char *key, bool def)
    {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull())
            return def;
        if (!v.isBool()) {
            m_malformed << QStringLiteral("%1 must be true or false").arg(QLatin1String(key));
            return def;
        }
        return v.toBool();
    }

    /// True when `key` is present with a non-null value.
    bool has(const char *key) const
    {
        const QJsonValue v = m_o.value(QLatin1String(key));
        return !v.isUndefined() && !v.isNull();
    }

    /// Records a field whose value the model cannot represent.
    void unsupported(const QString &what) { m_malformed << what; }

    /// "missing a, b; c must be ..." or empty when every field was read.
    QString problems() const
    {
        QStringList parts;
        if (!m_missing.isEmpty())
            parts << QStringLiteral("missing ") + m_missing.join(QStringLiteral(", "));
        parts << m_malformed;
        return parts.join(QStringLiteral("; "));
    }

private:
    const QJsonObject &m_o;
    QStringList m_missing, m_malformed;
};

const Family *findFamily(const QJsonObject &o, QString *modelType)
{
    *modelType = o.value(QLatin1String("model_type")).toString();
    const QJsonArray archs = o.value(QLatin1String("architectures")).toArray();
    for (const Family &f : families) {
        if (!modelType->isEmpty()) {
            if (*modelType == QLatin1String(f.modelType))
                return &f;
            continue;
        }
        for (const QJsonValue &a : archs)
            if (a.toString() == QLatin1String(f.architecture)) {
                *modelType = QLatin1String(f.modelType);
                return &f;
            }
    }
    return nullptr;
}

/// The last path component of `_name_or_path`, lowercased: "Qwen/Qwen2.5-7B" -> "qwen2.5-7b".
QString repositoryName(const QJsonObject &o)
{
    const QString path = o.value(QLatin1String("_name_or_path")).toString().trimmed();
    return path.section(u'/', -1).trimmed();
}

} // namespace

QStringList supportedHfModelTypes()
{
    QStringList out;
    for (const Family &f : families)
        out << QLatin1String(f.modelType);
    return out;
}

std::optional<Model> modelFromHfConfig(const QByteArray &json, QString *error)
{
    QString local;
    QString *err = error ? error : &local;
    err->clear();
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *err = QStringLiteral("config.json: %1 at offset %2").arg(pe.errorString()).arg(pe.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *err = QStringLiteral("config.json: expected a JSON object");
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    QString type;
    const Family *family = findFamily(o, &type);
    if (!family) {
        QStringList archs;
        for (const QJsonValue &a : o.value(QLatin1String("architectures")).toArray())
            archs << a.toString();
        const QString what =
            type.isEmpty()
                ? (archs.isEmpty()
                       ? QStringLiteral("no model_type or architectures")
                       : QStringLiteral("unsupported architectures %1").arg(archs.join(u',')))
                : QStringLiteral("unsupported model_type '%1'%2")
                      .arg(type, archs.isEmpty() ? QString()
                                                 : QStringLiteral(" (%1)").arg(archs.join(u',')));
        *err = QStringLiteral("config.json: %1; supported: %2")
                   .arg(what, supportedHfModelTypes().join(QStringLiteral(", ")));
        return std::nullopt;
    }

    Fields f(o);
    Architecture a;
    a.hidden = f.integer("hidden_size");
    a.ffn = f.integer("intermediate_size");
    a.layers = f.count("num_hidden_layers");
    a.heads = f.count("num_attention_heads");
    a.kvHeads = f.count("num_key_value_heads", family->kvHeadsDefaultHeads, 0);
    a.vocab = f.integer("vocab_size");
    a.tiedEmbeddings = f.boolean("tie_word_embeddings", family->tiedByDefault);
    a.gatedMlp = true; // every supported family: SwiGLU or GeGLU (gate, up, down)
    if (a.kvHeads == 0)
        a.kvHeads = a.heads;
    const QString &t = type;
    const bool deepseek = t == QLatin1String("deepseek_v3");
    if (!deepseek)
        a.headDim = f.integer("head_dim", !family->headDimRequired, 0);

    if (t == QLatin1String("llama") || t.startsWith(QLatin1String("gemma"))) {
        // LlamaAttention / GemmaAttention put attention_bias on q, k, v and o; LlamaMLP
        // puts mlp_bias on gate, up and down. Only "all or none" is modelled.
        const bool attention = f.boolean("attention_bias", false);
        const bool mlp = f.boolean("mlp_bias", false);
        if (attention != mlp)
            f.unsupported(QStringLiteral("attention_bias without mlp_bias (or the reverse) is "
                                         "not modelled"));
        a.linearBiases = attention && mlp;
    }
    if (t == QLatin1String("qwen2"))
        a.qkvBiases = true; // Qwen2Attention: q_proj, k_proj, v_proj with bias, o_proj without
    if (t == QLatin1String("gemma2"))
        a.normsPerLayer = 4; // input, post-attention, pre- and post-feed-forward RMSNorms
    if (t == QLatin1String("mixtral")) {
        a.experts = f.count("num_local_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = a.ffn; // MixtralBlockSparseTop2MLP uses intermediate_size
    }
    int mtp = 0;
    if (deepseek) {
        a.experts = f.count("n_routed_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = f.integer("moe_intermediate_size");
        a.sharedExperts = f.count("n_shared_experts", false, 0, true);
        a.denseLayers = f.count("first_k_dense_replace", false, 0, true);
        a.routerBias = true; // DeepseekV3TopkRouter registers e_score_correction_bias
        // q_lora_rank must be given; null means one full-rank q_proj.
        if (!o.contains(QLatin1String("q_lora_rank")))
            f.integer("q_lora_rank");
        a.qLoraRank = f.integer("q_lora_rank", true, 0);
        a.kvLoraRank = f.integer("kv_lora_rank");
        a.qkRopeHeadDim = f.integer("qk_rope_head_dim");
        a.qkNopeHeadDim = f.integer("qk_nope_head_dim");
        a.vHeadDim = f.integer("v_head_dim");
        a.kvHeads = a.heads; // MLA: one key and value head per query head
        if (f.boolean("attention_bias", false))
            f.unsupported(QStringLiteral("attention_bias on latent attention is not modelled"));
        if (f.integer("moe_layer_freq", true, 1) != 1)
            f.unsupported(QStringLiteral("moe_layer_freq other than 1 is not modelled"));
        mtp = f.count("num_nextn_predict_layers", true, 0, true);
    }

    const QString where = QStringLiteral("config.json (%1)").arg(t);
    if (const QString p = f.problems(); !p.isEmpty()) {
        *err = where + QStringLiteral(": ") + p;
        return std::nullopt;
    }
    if (const std::string e = validateArchitecture(a); !e.empty()) {
        *err = where + QStringLiteral(": ") + QString::fromStdString(e);
        return std::nullopt;
    }

    Model m;
    const QString repo = repositoryName(o);
    const std::string count = formatParameters(parameterCount(a));
    m.id = (repo.isEmpty() ? QStringLiteral("hf-") + t : repo.toLower()).toStdString();
    m.displayName = repo.isEmpty()
                        ? std::string(family->displayName) + " " + count + " (config.json)"
                        : repo.toStdString();
    m.source = "Hugging Face config.json, model_type " + t.toStdString() + " (" +
               family->architecture + ")";
    if (mtp > 0)
        m.source += "; its " + std::to_string(mtp) +
                    " multi-token-prediction module(s) (num_nextn_predict_layers) are not "
                    "counted, as in the published total";
    m.architecture = a;
    return m;
}

} // namespace shardscope
