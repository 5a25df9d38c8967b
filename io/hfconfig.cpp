#include "hfconfig.h"

#include "format.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QSet>
#include <algorithm>
#include <cmath>
#include <utility>

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
    bool mixtureOfExperts;    ///< the family reads routed experts (else expert fields refuse)
};

// Defaults from each transformers configuration_*.py (src/transformers/models/<type>/):
// every class here defaults tie_word_embeddings to False except GemmaConfig,
// Gemma2Config and Gemma3TextConfig (True); LlamaConfig, Phi3Config, Olmo2Config,
// DeepseekV2Config and DeepseekV3Config set num_key_value_heads = num_attention_heads
// when it is None (GPTNeoXConfig has no such field: always multi-head), the others
// default it to a fixed number, so it is required there; Gemma's head_dim defaults to
// 256 and Llama4TextConfig's to 128, not hidden / heads; Qwen3Config's and (older)
// Qwen3MoeConfig's to 128 while newer Qwen3MoeConfig has none (hidden / heads), so it
// is required for both. OlmoeConfig and GraniteMoeConfig (untied by default) set
// num_key_value_heads = num_attention_heads when it is None.
constexpr Family families[] = {
    {"llama", "LlamaForCausalLM", "Llama", false, true, false, false},
    {"mistral", "MistralForCausalLM", "Mistral", false, false, false, false},
    {"mixtral", "MixtralForCausalLM", "Mixtral", false, false, false, true},
    {"qwen2", "Qwen2ForCausalLM", "Qwen2", false, false, false, false},
    {"qwen2_moe", "Qwen2MoeForCausalLM", "Qwen2-MoE", false, false, false, true},
    {"gemma", "GemmaForCausalLM", "Gemma", true, false, true, false},
    {"gemma2", "Gemma2ForCausalLM", "Gemma 2", true, false, true, false},
    {"gemma3_text", "Gemma3ForCausalLM", "Gemma 3", true, false, true, false},
    {"qwen3", "Qwen3ForCausalLM", "Qwen3", false, false, true, false},
    {"qwen3_moe", "Qwen3MoeForCausalLM", "Qwen3-MoE", false, false, true, true},
    {"olmo2", "Olmo2ForCausalLM", "OLMo 2", false, true, false, false},
    {"phi3", "Phi3ForCausalLM", "Phi-3", false, true, false, false},
    {"gpt_neox", "GPTNeoXForCausalLM", "GPT-NeoX", false, true, false, false},
    {"llama4_text", "Llama4ForCausalLM", "Llama 4", false, false, true, true},
    {"deepseek_v2", "DeepseekV2ForCausalLM", "DeepSeek-V2", false, true, false, true},
    {"deepseek_v3", "DeepseekV3ForCausalLM", "DeepSeek-V3", false, true, false, true},
    {"olmoe", "OlmoeForCausalLM", "OLMoE", false, true, false, true},
    {"granitemoe", "GraniteMoeForCausalLM", "Granite-MoE", false, true, false, true},
};

/// Any other decoder: read from the standard fields as a Llama-shaped model, its
/// assumptions listed in the model's source (genericAssumptions). LlamaConfig's defaults:
/// untied, num_key_value_heads = heads and head_dim = hidden / heads when absent.
constexpr Family genericFamily = {"", "", "Generic decoder", false, true, false, false};

/// Everything a generic decoder assumes, in one sentence for the model's source: %1 is
/// its MLP and %2 what it says of experts (genericDense or genericMixtral).
constexpr const char *genericAssumptions =
    "read as a generic Llama-shaped decoder from the standard fields, assuming: %1; "
    "ordinary attention with Q, K, V and O projections (num_key_value_heads = "
    "num_attention_heads and head_dim = hidden_size / num_attention_heads when absent); "
    "RMSNorm weights only, 2 per block and a final norm; no q/k norms; %2; biases on every "
    "linear layer only when attention_bias and mlp_bias are both true, else none; rotary "
    "positions (no position table); an output head unless tie_word_embeddings (default "
    "false); any other field is ignored";
constexpr const char *genericDense[] = {
    "a gated (SwiGLU) MLP of gate, up and down projections intermediate_size wide in every "
    "block",
    "no mixture of experts"};
/// The MoE block of transformers' modeling_mixtral.py (MixtralSparseMoeBlock): a router
/// Linear(hidden, num_local_experts, bias=False) and that many gated experts
/// intermediate_size wide, in every block.
constexpr const char *genericMixtral[] = {
    "a Mixtral-style mixture of experts in every block: num_local_experts gated (SwiGLU) "
    "experts of gate, up and down projections intermediate_size wide, num_experts_per_tok "
    "of them per token, and a router of hidden_size x num_local_experts weights without "
    "bias",
    "no shared experts and no dense blocks"};

/// The fields that give a config experts, in the order a refusal names them: transformers'
/// Mixtral, Qwen2/3-MoE, OLMoE, Granite-MoE(-Shared), DeepSeek, Llama 4 and other MoE
/// config classes. A dense family or a generic decoder never reads them silently.
constexpr const char *expertFields[] = {
    "num_local_experts",         "num_experts",
    "n_routed_experts",          "moe_num_experts",
    "num_experts_per_tok",       "moe_topk",
    "moe_intermediate_size",     "shared_expert_intermediate_size",
    "shared_intermediate_size",  "n_shared_experts",
    "num_shared_experts",        "decoder_sparse_step",
    "mlp_only_layers",           "moe_layer_freq",
    "first_k_dense_replace",     "moe_layers",
    "interleave_moe_layer_step", "expert_interval",
};

/// A generic decoder reads experts only from Mixtral's own two fields
/// (MixtralConfig: num_local_experts, num_experts_per_tok).
constexpr const char *mixtralStyleFields[] = {"num_local_experts", "num_experts_per_tok"};

/// The expert fields of `o` holding something (not null, false, 0, "", [] or {}), each as
/// "key = value" with the value in compact JSON, in expertFields order.
QStringList presentExpertFields(const QJsonObject &o)
{
    QStringList out;
    for (const char *key : expertFields) {
        const QJsonValue v = o.value(QLatin1String(key));
        const bool empty =
            v.isUndefined() || v.isNull() || (v.isBool() && !v.toBool()) ||
            (v.isDouble() && v.toDouble() == 0) || (v.isString() && v.toString().isEmpty()) ||
            (v.isArray() && v.toArray().isEmpty()) || (v.isObject() && v.toObject().isEmpty());
        if (empty)
            continue;
        QString text;
        if (v.isDouble())
            text = QString::number(v.toDouble(), 'g', 15);
        else if (v.isBool())
            text = QStringLiteral("true");
        else if (v.isString())
            text = QLatin1Char('"') + v.toString() + QLatin1Char('"');
        else
            text = QString::fromUtf8(
                (v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject()))
                    .toJson(QJsonDocument::Compact));
        if (text.size() > 40)
            text = text.left(37) + QStringLiteral("...");
        out << QLatin1String(key) + QStringLiteral(" = ") + text;
    }
    return out;
}

/// True when the expert fields `present` (presentExpertFields) are Mixtral's two alone,
/// with num_local_experts among them: a generic decoder reads them as Mixtral's MoE block.
bool mixtralStyle(const QStringList &present)
{
    bool experts = false;
    for (const QString &p : present) {
        const QString key = p.section(QLatin1Char(' '), 0, 0);
        if (key == QLatin1String(mixtralStyleFields[0]))
            experts = true;
        else if (key != QLatin1String(mixtralStyleFields[1]))
            return false;
    }
    return experts;
}

/// A vision-language wrapper whose language model is one of the families above: its
/// fields sit in `text_config` (or, for Qwen2-VL's original files, at the top level).
struct Wrapper
{
    const char *modelType;
    const char *architecture;
    const char *textType; ///< the language model's family; nullptr: text_config's model_type
    bool flatAllowed;     ///< without text_config the top-level object is the text config
};

// LlavaConfig / LlavaNextConfig build text_config from its own model_type, "llama" when
// absent (configuration_llava.py); Qwen2VLConfig, Qwen2_5_VLConfig, Llama4Config and
// Gemma3Config have one fixed text model (Qwen2-style decoder, Llama4TextConfig,
// Gemma3TextConfig).
constexpr Wrapper wrappers[] = {
    {"llava", "LlavaForConditionalGeneration", nullptr, false},
    {"llava_next", "LlavaNextForConditionalGeneration", nullptr, false},
    {"qwen2_vl", "Qwen2VLForConditionalGeneration", "qwen2", true},
    {"qwen2_5_vl", "Qwen2_5_VLForConditionalGeneration", "qwen2", true},
    {"llama4", "Llama4ForConditionalGeneration", "llama4_text", false},
    {"gemma3", "Gemma3ForConditionalGeneration", "gemma3_text", false},
};

/// A family recognised but refused: its parameters need a feature Architecture lacks.
struct Unmodelled
{
    const char *modelType;
    const char *architecture;
    const char *reason;
};

constexpr Unmodelled unmodelled[] = {
    {"mllama", "MllamaForConditionalGeneration",
     "the cross-attention layers of Llama 3.2 Vision (cross_attention_layers) are not modelled"},
};

/// The config class defaults of a text model that a wrapper's nested text_config may
/// leave out: transformers' PretrainedConfig.to_diff_dict drops a nested config's values
/// that equal its class defaults, so llava-hf/llava-1.5-7b-hf's text_config holds only
/// vocab_size of the fields below, and google/gemma-3-27b-it's leaves out vocab_size.
/// Values from LlamaConfig, MistralConfig and Gemma3TextConfig (configuration_gemma3.py).
struct NestedDefaults
{
    const char *modelType;
    const char *configClass;
    std::int64_t vocab, hidden, intermediate, layers, heads,
        kvHeads;          ///< kvHeads 0: = heads
    std::int64_t headDim; ///< 0: hidden / heads, not filled
};

constexpr NestedDefaults nestedDefaults[] = {
    {"llama", "LlamaConfig", 32000, 4096, 11008, 32, 32, 0, 0},
    {"mistral", "MistralConfig", 32000, 4096, 14336, 32, 32, 8, 0},
    {"gemma3_text", "Gemma3TextConfig", 262208, 2304, 9216, 26, 8, 4, 256},
};

/// The longest model_type read, characters.
constexpr qsizetype maxModelTypeLength = 256;

/// Reads fields of one config object, collecting every missing and malformed one.
class Fields
{
public:
    /// `scope` prefixes the missing list ("text_config " for a wrapper's nested config).
    Fields(const QJsonObject &o, QString scope) : m_o(o), m_scope(std::move(scope)) {}

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

    /// A count that fits an int field: at most 1,000,000, a larger one is recorded as
    /// malformed by name (it was clamped silently, so "num_attention_heads": 1e12 read
    /// as 1,000,000 heads).
    int count(const char *key, bool optional = false, int def = 0, bool allowZero = false)
    {
        const std::int64_t n = integer(key, optional, def, allowZero);
        if (n > 1'000'000) {
            m_malformed << QStringLiteral("%1 must be at most 1000000 (got %2)")
                               .arg(QLatin1String(key))
                               .arg(n);
            return def;
        }
        return int(n);
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

    /// A list of layer indices in [0, layers); absent or null gives nullopt.
    std::optional<QList<int>> layerList(const char *key, int layers)
    {
        const QJsonValue v = m_o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull())
            return std::nullopt;
        QList<int> out;
        bool ok = v.isArray();
        for (const QJsonValue &e : v.toArray()) {
            const double d = e.toDouble(-1);
            ok = ok && e.isDouble() && d >= 0 && d < layers && d == std::floor(d);
            if (ok)
                out << int(d);
        }
        if (!ok) {
            m_malformed << QStringLiteral("%1 must be a list of layer indices below %2")
                               .arg(QLatin1String(key))
                               .arg(layers);
            return std::nullopt;
        }
        return out;
    }

    /// Records a field whose value the model cannot represent.
    void unsupported(const QString &what) { m_malformed << what; }

    /// "missing a, b; c must be ..." or empty when every field was read.
    QString problems() const
    {
        QStringList parts;
        if (!m_missing.isEmpty())
            parts << m_scope + QStringLiteral("missing ") + m_missing.join(QStringLiteral(", "));
        parts << m_malformed;
        return parts.join(QStringLiteral("; "));
    }

private:
    const QJsonObject &m_o;
    QString m_scope;
    QStringList m_missing, m_malformed;
};

/// The entry of `table` named by `type`, or, when `type` is empty, by an
/// `architectures` class.
template <typename T, std::size_t N>
const T *lookup(const T (&table)[N], const QString &type, const QJsonArray &archs)
{
    for (const T &t : table) {
        if (!type.isEmpty()) {
            if (type == QLatin1String(t.modelType))
                return &t;
            continue;
        }
        for (const QJsonValue &a : archs)
            if (a.toString() == QLatin1String(t.architecture))
                return &t;
    }
    return nullptr;
}

/// What the file is: its family (or the reason it is refused) and the object the
/// language model's fields are read from.
struct Resolved
{
    QString label; ///< the file's model_type (or the one its architectures imply)
    QString type;  ///< the language model's model_type
    const Family *family = nullptr;
    const Unmodelled *unmodelled = nullptr;
    const Wrapper *wrapper = nullptr;
    bool nested = false;   ///< fields come from text_config
    QJsonObject text;      ///< the language model's config
    QStringList defaulted; ///< text_config fields filled from the class defaults
    QString defaultsClass; ///< the class those defaults come from
};

Resolved resolve(const QJsonObject &o)
{
    Resolved r;
    const QString type = o.value(QLatin1String("model_type")).toString();
    const QJsonArray archs = o.value(QLatin1String("architectures")).toArray();
    r.label = type;
    r.text = o;
    r.type = type;
    r.wrapper = lookup(wrappers, type, archs);
    if (r.wrapper) {
        r.label = QLatin1String(r.wrapper->modelType);
        const QJsonValue tc = o.value(QLatin1String("text_config"));
        if (tc.isObject()) {
            r.nested = true;
            r.text = tc.toObject();
            const QString inner = r.text.value(QLatin1String("model_type")).toString();
            r.type = r.wrapper->textType ? QLatin1String(r.wrapper->textType)
                                         : (inner.isEmpty() ? QStringLiteral("llama") : inner);
            // Llama4Config and the llava configs keep tie_word_embeddings at the top.
            const QLatin1String tie("tie_word_embeddings");
            if (!r.text.contains(tie) && o.contains(tie))
                r.text.insert(tie, o.value(tie));
            for (const NestedDefaults &d : nestedDefaults) {
                if (r.type != QLatin1String(d.modelType))
                    continue;
                const std::pair<const char *, std::int64_t> fields[] = {
                    {"vocab_size", d.vocab},
                    {"hidden_size", d.hidden},
                    {"intermediate_size", d.intermediate},
                    {"num_hidden_layers", d.layers},
                    {"num_attention_heads", d.heads},
                    {"num_key_value_heads", d.kvHeads},
                    {"head_dim", d.headDim}};
                for (const auto &[key, value] : fields) {
                    if (value == 0 || r.text.contains(QLatin1String(key)))
                        continue;
                    r.text.insert(QLatin1String(key), double(value));
                    r.defaulted << QLatin1String(key);
                }
                r.defaultsClass = QLatin1String(d.configClass);
            }
        } else if (r.wrapper->flatAllowed) {
            r.type = QLatin1String(r.wrapper->textType);
        } else {
            r.type.clear(); // reported as a missing text_config
            return r;
        }
        r.family = lookup(families, r.type, {});
        r.unmodelled = r.family ? nullptr : lookup(unmodelled, r.type, {});
        return r;
    }
    r.family = lookup(families, type, archs);
    r.unmodelled = r.family ? nullptr : lookup(unmodelled, type, archs);
    if (type.isEmpty()) {
        if (r.family)
            r.label = r.type = QLatin1String(r.family->modelType);
        else if (r.unmodelled)
            r.label = r.type = QLatin1String(r.unmodelled->modelType);
    }
    return r;
}

/// The last path component of `_name_or_path`, lowercased: "Qwen/Qwen2.5-7B" -> "qwen2.5-7b".
QString repositoryName(const QJsonObject &o)
{
    const QString path = o.value(QLatin1String("_name_or_path")).toString().trimmed();
    return path.section(u'/', -1).trimmed();
}

/// The blocks with experts as Architecture expresses them: a dense prefix, then every
/// step-th block (isMoeLayer: the last block of each step), none missing at the end.
struct MoePattern
{
    int denseLayers = 0;
    int step = 1;
};

/// The MoePattern that puts experts in exactly the blocks `moe` (sorted, distinct, not
/// empty) of `layers`, or nullopt when none does. The spacing of the listed blocks (one
/// block: the smallest step that leaves no MoE block missing after it), then the dense
/// prefix before the first step.
std::optional<MoePattern> moePattern(const QList<int> &moe, int layers)
{
    const int spacing = moe.size() > 1 ? moe[1] - moe[0] : layers - moe[0];
    const int dense = moe[0] - spacing + 1;
    bool fits = spacing >= 1 && dense >= 0 && layers - 1 - moe.back() < spacing;
    for (int i = 1; fits && i < moe.size(); ++i)
        fits = moe[i] - moe[i - 1] == spacing;
    if (!fits)
        return std::nullopt;
    return MoePattern{dense, spacing};
}

/// Llama 4's MoE blocks: `moe_layers`, else every `interleave_moe_layer_step`-th block,
/// range(step - 1, num_hidden_layers, step) (transformers configuration_llama4.py,
/// Llama4TextConfig.__post_init__; Llama4TextDecoderLayer builds Llama4TextMoe where
/// layer_idx is in moe_layers). Sets experts, dense blocks and the MoE step when the
/// blocks form a MoePattern.
void readLlama4Experts(Fields &f, Architecture &a, std::int64_t intermediate)
{
    const int step = f.count("interleave_moe_layer_step", true, 1);
    const std::optional<QList<int>> listed = f.layerList("moe_layers", std::max(a.layers, 1));
    QList<int> moe;
    if (listed) {
        moe = *listed;
        std::sort(moe.begin(), moe.end());
        moe.erase(std::unique(moe.begin(), moe.end()), moe.end());
    } else {
        for (int l = step - 1; l < a.layers; l += step)
            moe << l;
    }
    const int experts = f.count("num_local_experts");
    const int active = f.count("num_experts_per_tok");
    if (moe.isEmpty())
        return; // every block dense, intermediate_size_mlp wide
    const std::optional<MoePattern> pattern = moePattern(moe, a.layers);
    if (!pattern) { // only a listed moe_layers can miss: the step's range always fits
        f.unsupported(QStringLiteral("this dense/MoE layer pattern (moe_layers) is not "
                                     "modelled, only a dense prefix, then every n-th block"));
        return;
    }
    a.experts = experts;
    a.activeExperts = active;
    a.expertFfn = intermediate; // Llama4TextExperts: expert_dim = intermediate_size
    a.sharedExperts = 1;        // Llama4TextMoe.shared_expert: one intermediate_size MLP
    a.denseLayers = pattern->denseLayers;
    a.moeLayerStep = pattern->step;
}

/// Why the file `o` (resolved as `r`) is no known family, for the generic decoder's
/// message: "unsupported model_type 'x' (XForCausalLM)", "unsupported architectures
/// ..." or "no model_type or architectures".
QString unknownFamilyReason(const QJsonObject &o, const Resolved &r)
{
    QStringList archs;
    for (const QJsonValue &a : o.value(QLatin1String("architectures")).toArray())
        archs << a.toString();
    return r.wrapper ? QStringLiteral("unsupported text_config model_type '%1'").arg(r.type)
           : r.type.isEmpty()
               ? (archs.isEmpty()
                      ? QStringLiteral("no model_type or architectures")
                      : QStringLiteral("unsupported architectures %1").arg(archs.join(u',')))
               : QStringLiteral("unsupported model_type '%1'%2")
                     .arg(r.type, archs.isEmpty() ? QString()
                                                  : QStringLiteral(" (%1)").arg(archs.join(u',')));
}

/// The fields every family shares, read in this order: width, intermediate_size (into
/// `intermediate`; Llama 4's dense MLP is intermediate_size_mlp), layers, heads, KV
/// heads, vocabulary, tied embeddings, and the head size where the family has one.
Architecture readCommonFields(Fields &f, const Family &family, const QString &t, bool deepseek,
                              std::int64_t &intermediate)
{
    const bool neox = t == QLatin1String("gpt_neox");
    const bool llama4 = t == QLatin1String("llama4_text");
    Architecture a;
    a.hidden = f.integer("hidden_size");
    intermediate = f.integer("intermediate_size");
    a.ffn = llama4 ? f.integer("intermediate_size_mlp") : intermediate;
    a.layers = f.count("num_hidden_layers");
    a.heads = f.count("num_attention_heads");
    // GPTNeoXAttention: one fused query_key_value of 3 x hidden, always multi-head.
    a.kvHeads = neox ? 0 : f.count("num_key_value_heads", family.kvHeadsDefaultHeads, 0);
    a.vocab = f.integer("vocab_size");
    a.tiedEmbeddings = f.boolean("tie_word_embeddings", family.tiedByDefault);
    // Every family but GPT-NeoX (GPTNeoXMLP: dense_h_to_4h, dense_4h_to_h) has a gated
    // MLP: gate, up, down (SwiGLU or GeGLU). Phi3MLP fuses gate and up into one
    // gate_up_proj of 2 x intermediate_size and Phi3Attention Q, K and V into one qkv_proj
    // of (heads + 2 kv heads) x head_dim: the same counts as the separate matrices.
    a.gatedMlp = !neox;
    if (a.kvHeads == 0)
        a.kvHeads = a.heads;
    // GPTNeoXAttention uses hidden / heads and DeepSeek's MLA its own head sizes.
    if (!deepseek && !neox)
        a.headDim = f.integer("head_dim", !family.headDimRequired, 0);
    return a;
}

/// Linear biases, norms per block and query/key norms of Llama, Gemma, Qwen2, Qwen3,
/// OLMo 2, OLMoE and Granite-MoE (a generic decoder is read as Llama).
void readBiasesAndNorms(Fields &f, Architecture &a, const QString &t, bool generic)
{
    if (generic || t == QLatin1String("llama") || t.startsWith(QLatin1String("gemma"))) {
        // LlamaAttention / GemmaAttention put attention_bias on q, k, v and o; LlamaMLP
        // puts mlp_bias on gate, up and down. Only "all or none" is modelled (a generic
        // decoder is read as Llama).
        const bool attention = f.boolean("attention_bias", false);
        const bool mlp = f.boolean("mlp_bias", false);
        if (attention != mlp)
            f.unsupported(QStringLiteral("attention_bias without mlp_bias (or the reverse) is "
                                         "not modelled"));
        a.linearBiases = attention && mlp;
    }
    if (t == QLatin1String("qwen2"))
        a.qkvBiases = true; // Qwen2Attention: q_proj, k_proj, v_proj with bias, o_proj without
    // Gemma2DecoderLayer and Gemma3DecoderLayer: input, post-attention, pre- and
    // post-feed-forward RMSNorms.
    if (t == QLatin1String("gemma2") || t == QLatin1String("gemma3_text"))
        a.normsPerLayer = 4;
    // modeling_gemma3.py Gemma3Attention: q_norm and k_norm = Gemma3RMSNorm(head_dim).
    if (t == QLatin1String("gemma3_text"))
        a.qkNorm = QkNorm::PerHead;
    const bool olmoe = t == QLatin1String("olmoe");
    if (olmoe || t == QLatin1String("granitemoe")) {
        // OlmoeAttention and GraniteMoeAttention are LlamaAttention (modular_olmoe.py,
        // modular_granitemoe.py): attention_bias on q, k, v and o; their experts have no
        // biases. OlmoeAttention adds q_norm = OlmoeRMSNorm(hidden) and k_norm =
        // OlmoeRMSNorm(hidden / heads x kv heads) over the whole projections: OLMo 2's
        // QkNorm::Full, the same count while head_dim is hidden / heads.
        if (f.boolean("attention_bias", false))
            f.unsupported(QStringLiteral("attention_bias (biases on Q, K, V and O without MLP "
                                         "biases) is not modelled"));
        if (olmoe) {
            a.qkNorm = QkNorm::Full;
            if (a.headDim > 0 && a.heads > 0 && a.headDim * a.heads != a.hidden)
                f.unsupported(QStringLiteral("head_dim %1 other than hidden_size / "
                                             "num_attention_heads is not modelled (q_norm is "
                                             "hidden_size wide)")
                                  .arg(a.headDim));
        }
    }
    const bool qwen3 = t == QLatin1String("qwen3") || t == QLatin1String("qwen3_moe");
    if (qwen3 || t == QLatin1String("olmo2")) {
        // modeling_qwen3.py Qwen3Attention (and Qwen3MoeAttention): q_norm and k_norm =
        // Qwen3RMSNorm(head_dim), shared by all heads. modeling_olmo2.py Olmo2Attention:
        // q_norm = Olmo2RMSNorm(heads x head_dim), k_norm = Olmo2RMSNorm(kv heads x
        // head_dim), over the whole projections; Olmo2DecoderLayer has only the
        // post_attention_layernorm and post_feedforward_layernorm (no pre-norms): two
        // hidden-wide norms as Llama's. Both put attention_bias on q, k, v and o and none
        // on the MLP.
        a.qkNorm = qwen3 ? QkNorm::PerHead : QkNorm::Full;
        if (f.boolean("attention_bias", false))
            f.unsupported(QStringLiteral("attention_bias (biases on Q, K, V and O without MLP "
                                         "biases) is not modelled"));
    }
}

/// Qwen2-MoE's and Qwen3-MoE's dense blocks: Qwen2MoeDecoderLayer and
/// Qwen3MoeDecoderLayer (modeling_qwen2_moe.py, modeling_qwen3_moe.py) hold the sparse
/// block where layer_idx is not in mlp_only_layers and (layer_idx + 1) is a multiple of
/// decoder_sparse_step, else a dense MLP intermediate_size wide. Sets the dense prefix and
/// MoE step when those blocks form a MoePattern (decoder_sparse_step 2: blocks 1, 3, 5,
/// ...; mlp_only_layers [0, 1]: a dense prefix of 2); any other layout is refused naming
/// the fields. `sharedExpertGate` (Qwen2-MoE): the gate is counted as a norm of every
/// block, so Qwen2-MoE is read only with experts in every block.
void readSparseBlocks(Fields &f, Architecture &a, bool sharedExpertGate)
{
    const int step = f.count("decoder_sparse_step", true, 1);
    const std::optional<QList<int>> mlpOnly = f.layerList("mlp_only_layers", std::max(a.layers, 1));
    QSet<int> dense;
    if (mlpOnly)
        dense = QSet<int>(mlpOnly->begin(), mlpOnly->end());
    QList<int> moe;
    for (int l = step - 1; l < a.layers; l += step)
        if (!dense.contains(l))
            moe << l;
    if (moe.size() == a.layers)
        return; // every block sparse
    QStringList fields;
    if (step != 1)
        fields << QStringLiteral("decoder_sparse_step %1").arg(step);
    if (mlpOnly && !mlpOnly->isEmpty())
        fields << QStringLiteral("mlp_only_layers");
    const QString named = fields.join(QStringLiteral(", "));
    if (sharedExpertGate) {
        f.unsupported(QStringLiteral("dense blocks among MoE blocks (%1) are not modelled for "
                                     "Qwen2-MoE: its shared_expert_gate is only in the MoE "
                                     "blocks")
                          .arg(named));
        return;
    }
    if (moe.isEmpty()) {
        f.unsupported(QStringLiteral("%1 leaves no MoE block").arg(named));
        return;
    }
    const std::optional<MoePattern> pattern = moePattern(moe, a.layers);
    if (!pattern) {
        f.unsupported(QStringLiteral("this dense/MoE layer pattern (%1) is not modelled, only "
                                     "a dense prefix, then every n-th block")
                          .arg(named));
        return;
    }
    a.denseLayers = pattern->denseLayers;
    a.moeLayerStep = pattern->step;
}

/// The routed (and shared) experts of Qwen3-MoE, Mixtral, OLMoE, Granite-MoE and
/// Qwen2-MoE. True when the
/// blocks hold Qwen2-MoE's shared_expert_gate, counted as a third hidden-wide norm.
bool readMoeFamilies(Fields &f, Architecture &a, const QString &t)
{
    if (t == QLatin1String("qwen3_moe")) {
        // modeling_qwen3_moe.py Qwen3MoeSparseMoeBlock: a router gate Linear(hidden,
        // num_experts, bias=False) and num_experts experts moe_intermediate_size wide;
        // no shared expert (unlike Qwen2-MoE).
        a.experts = f.count("num_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = f.integer("moe_intermediate_size");
        readSparseBlocks(f, a, false);
    }
    if (t == QLatin1String("mixtral")) {
        a.experts = f.count("num_local_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = a.ffn; // MixtralBlockSparseTop2MLP uses intermediate_size
    }
    if (t == QLatin1String("olmoe")) {
        // modular_olmoe.py: every OlmoeDecoderLayer holds an OlmoeSparseMoeBlock, a router
        // gate Linear(hidden, num_experts, bias=False) and num_experts OlmoeMLP experts
        // (GemmaMLP: gate, up and down intermediate_size wide); no shared expert.
        // OlmoeConfig defaults num_experts to 64 and num_experts_per_tok to 8.
        a.experts = f.count("num_experts", true, 64);
        a.activeExperts = f.count("num_experts_per_tok", true, 8);
        a.expertFfn = a.ffn;
    }
    if (t == QLatin1String("granitemoe")) {
        // modular_granitemoe.py: every GraniteMoeDecoderLayer holds a GraniteMoeMoE,
        // input_linear (num_local_experts x 2 intermediate_size x hidden: gate and up
        // fused), output_linear (num_local_experts x hidden x intermediate_size) and a
        // JetMoeTopKGating router Linear(hidden, num_local_experts, bias=False): the
        // counts of Mixtral's gated experts. GraniteMoeConfig defaults num_local_experts
        // to 8 and num_experts_per_tok to 2. Its embedding, residual, attention and logits
        // multipliers are scalars from the config, not weights.
        a.experts = f.count("num_local_experts", true, 8);
        a.activeExperts = f.count("num_experts_per_tok", true, 2);
        a.expertFfn = a.ffn;
    }
    bool sharedExpertGate = false;
    if (t == QLatin1String("qwen2_moe")) {
        // modular_qwen2_moe.py: Qwen2MoeAttention biases q, k, v when qkv_bias (default
        // true); Qwen2MoeSparseMoeBlock holds a router num_experts x hidden, the experts
        // moe_intermediate_size wide, one shared_expert of shared_expert_intermediate_size
        // and a shared_expert_gate Linear(hidden, 1, bias=False).
        a.qkvBiases = f.boolean("qkv_bias", true);
        a.experts = f.count("num_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = f.integer("moe_intermediate_size");
        const std::int64_t shared = f.integer("shared_expert_intermediate_size");
        if (a.expertFfn > 0 && shared > 0) {
            if (shared % a.expertFfn != 0)
                f.unsupported(QStringLiteral("shared_expert_intermediate_size %1 is not a "
                                             "multiple of moe_intermediate_size %2")
                                  .arg(shared)
                                  .arg(a.expertFfn));
            else
                a.sharedExperts = int(std::min<std::int64_t>(shared / a.expertFfn, 1'000'000));
        }
        // The shared_expert_gate's hidden weights per block are exactly one more
        // hidden-wide RMSNorm's; both are tiny vectors kept whole on every tensor rank.
        a.normsPerLayer = 3;
        sharedExpertGate = true;
        readSparseBlocks(f, a, true);
    }
    return sharedExpertGate;
}

/// GPT-NeoX's LayerNorms and biases; Llama 4's attention biases and MoE blocks.
void readNeoxAndLlama4(Fields &f, Architecture &a, const QString &t, std::int64_t intermediate)
{
    const bool neox = t == QLatin1String("gpt_neox");
    const bool llama4 = t == QLatin1String("llama4_text");
    if (neox) {
        // modular_gpt_neox.py: LayerNorms with bias (two per block and a final one),
        // biases on both MLP matrices always and on query_key_value and dense when
        // attention_bias (default true), untied embed_in and embed_out. The parallel
        // residual (use_parallel_residual) does not change the count.
        a.layerNormBias = true;
        if (!f.boolean("attention_bias", true))
            f.unsupported(QStringLiteral("attention_bias false (MLP biases without attention "
                                         "biases) is not modelled"));
        a.linearBiases = true;
    }
    if (llama4) {
        // modeling_llama4.py: Llama4TextAttention biases q, k, v and o only with
        // attention_bias; its qk_norm (use_qk_norm) is an L2 norm without weights.
        if (f.boolean("attention_bias", false))
            f.unsupported(QStringLiteral("attention_bias (biases on Q, K, V and O without MLP "
                                         "biases) is not modelled"));
        if (a.layers > 0)
            readLlama4Experts(f, a, intermediate);
    }
}

/// DeepSeek V2 / V3: routed and shared experts, dense first blocks, the router bias and
/// multi-head latent attention. Returns num_nextn_predict_layers (the multi-token
/// prediction modules, which the published totals leave out).
int readDeepseek(Fields &f, Architecture &a, const QJsonObject &text, const QString &t)
{
    a.experts = f.count("n_routed_experts");
    a.activeExperts = f.count("num_experts_per_tok");
    a.expertFfn = f.integer("moe_intermediate_size");
    a.sharedExperts = f.count("n_shared_experts", false, 0, true);
    a.denseLayers = f.count("first_k_dense_replace", false, 0, true);
    // DeepseekV3TopkRouter registers e_score_correction_bias; DeepseekV2Moe's gate is
    // a plain Linear(hidden, n_routed_experts, bias=False) (modular_deepseek_v2.py).
    a.routerBias = t == QLatin1String("deepseek_v3");
    // q_lora_rank must be given; null means one full-rank q_proj.
    if (!text.contains(QLatin1String("q_lora_rank")))
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
    return f.count("num_nextn_predict_layers", true, 0, true);
}

/// Why a file with expert fields is not read, or empty: a dense family (transformers
/// would build a dense model and drop them, so the file is no such model) or a generic
/// decoder whose expert fields are not Mixtral's two alone ("model_type 'x' has
/// num_experts = 64 but is not a known mixture-of-experts family ..."); names the first
/// field that cannot be read. Sets `*mixtral` when a generic decoder reads Mixtral-style
/// experts.
QString expertFieldsRefusal(const Resolved &r, const Family &family, bool generic, bool *mixtral)
{
    *mixtral = false;
    if (family.mixtureOfExperts)
        return {};
    const QStringList present = presentExpertFields(r.text);
    if (present.isEmpty())
        return {};
    if (!generic)
        return QStringLiteral("%1, but %2 (%3) has no mixture of experts, so it is not read as "
                              "a dense model")
            .arg(present.first(), QLatin1String(family.displayName),
                 QLatin1String(family.architecture));
    if (mixtralStyle(present)) {
        *mixtral = true;
        return {};
    }
    QString first;
    for (const QString &p : present) {
        const QString key = p.section(QLatin1Char(' '), 0, 0);
        if (key != QLatin1String(mixtralStyleFields[0]) &&
            key != QLatin1String(mixtralStyleFields[1])) {
            first = p;
            break;
        }
    }
    if (first.isEmpty()) // num_experts_per_tok without num_local_experts
        first = present.first();
    QStringList archs;
    for (const QJsonValue &v : r.text.value(QLatin1String("architectures")).toArray())
        archs << v.toString();
    const QString subject = r.wrapper ? QStringLiteral("text_config model_type '%1'").arg(r.type)
                            : !r.type.isEmpty() ? QStringLiteral("model_type '%1'").arg(r.type)
                            : !archs.isEmpty()
                                ? QStringLiteral("architectures %1").arg(archs.join(u','))
                                : QStringLiteral("a config without model_type");
    return QStringLiteral("%1 has %2 but is not a known mixture-of-experts family (a generic "
                          "decoder reads experts only from Mixtral's num_local_experts and "
                          "num_experts_per_tok), so it is not read as a dense model; "
                          "supported: %3")
        .arg(subject, first, supportedHfModelTypes().join(QStringLiteral(", ")));
}

/// The Model of an architecture read from the file `o` (resolved as `r`, read as
/// `family`): its id and display name (from _name_or_path, else the family), and a
/// source line saying what was read and what was assumed or left out.
Model describeModel(const QJsonObject &o, const Resolved &r, const Family &family,
                    const Architecture &a, bool generic, bool sharedExpertGate, int mtp)
{
    const QString &t = r.type;
    Model m;
    const QString repo = repositoryName(o);
    const std::string count = formatParameters(parameterCount(a));
    const QString label = r.label.isEmpty() ? QStringLiteral("generic") : r.label;
    m.id = (repo.isEmpty() ? QStringLiteral("hf-") + label : repo.toLower()).toStdString();
    m.displayName = repo.isEmpty()
                        ? std::string(family.displayName) +
                              (generic && !t.isEmpty() ? " (" + t.toStdString() + ")" : "") +
                              (r.wrapper ? " (text)" : "") + " " + count + " (config.json)"
                        : repo.toStdString();
    QStringList archs;
    for (const QJsonValue &v : o.value(QLatin1String("architectures")).toArray())
        archs << v.toString();
    const std::string architecture = r.wrapper ? std::string(r.wrapper->architecture)
                                     : generic ? archs.join(u',').toStdString()
                                               : std::string(family.architecture);
    m.source = "Hugging Face config.json, model_type " +
               (r.label.isEmpty() ? std::string("(none)") : r.label.toStdString()) +
               (architecture.empty() ? std::string() : " (" + architecture + ")");
    if (r.wrapper)
        m.source += "; only the language model (" + t.toStdString() +
                    ") is counted, not the vision encoder and projector (vision_config)";
    if (!r.defaulted.isEmpty())
        m.source += "; text_config leaves out " +
                    r.defaulted.join(QStringLiteral(", ")).toStdString() + ", taken from the " +
                    r.defaultsClass.toStdString() + " defaults";
    if (sharedExpertGate)
        m.source += "; each block's shared_expert_gate (hidden x 1) is counted as a third "
                    "hidden-wide norm";
    if (generic) {
        const char *const *mlp = a.isMoe() ? genericMixtral : genericDense;
        m.source += std::string("; ") + (r.wrapper ? "its text_config is" : "it is") +
                    " no family read exactly, so it is " +
                    QString::fromLatin1(genericAssumptions)
                        .arg(QLatin1String(mlp[0]), QLatin1String(mlp[1]))
                        .toStdString();
    }
    if (mtp > 0)
        m.source += "; its " + std::to_string(mtp) +
                    " multi-token-prediction module(s) (num_nextn_predict_layers) are not "
                    "counted, as in the published total";
    m.architecture = a;
    return m;
}

} // namespace

QStringList supportedHfModelTypes()
{
    QStringList out;
    for (const Family &f : families)
        out << QLatin1String(f.modelType);
    for (const Wrapper &w : wrappers)
        if (w.textType == nullptr || lookup(families, QLatin1String(w.textType), {}))
            out << QLatin1String(w.modelType);
    return out;
}

std::optional<Model> modelFromHfConfig(const QByteArray &json, QString *error)
{
    QString local;
    QString *err = error ? error : &local;
    err->clear();
    if (json.trimmed().isEmpty()) {
        *err = QStringLiteral("config.json: the file is empty, expected a JSON object");
        return std::nullopt;
    }
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        // Qt 6.4 takes no value but an object or array at the top ("null", "5").
        *err = QStringLiteral("config.json: expected a JSON object: %1 at offset %2")
                   .arg(pe.errorString())
                   .arg(pe.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *err = QStringLiteral("config.json: expected a JSON object");
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    // A model_type is a short identifier ("llama", "qwen2_moe"); a long one is refused
    // before it is echoed (a 15 MiB one made a 31 MB error line).
    for (const QJsonObject &scope : {o, o.value(QLatin1String("text_config")).toObject()}) {
        const QString type = scope.value(QLatin1String("model_type")).toString();
        if (type.size() > maxModelTypeLength) {
            *err = QStringLiteral("config.json: model_type is %1 characters long, more than the "
                                  "%2 of any model family")
                       .arg(type.size())
                       .arg(maxModelTypeLength);
            return std::nullopt;
        }
    }
    const Resolved r = resolve(o);
    const QString where = QStringLiteral("config.json (%1)").arg(r.label);
    if (r.wrapper && r.type.isEmpty()) {
        const QJsonValue text = o.value(QLatin1String("text_config"));
        *err = where + (text.isUndefined() || text.isNull()
                            ? QStringLiteral(": missing text_config")
                            : QStringLiteral(": text_config is not an object"));
        return std::nullopt;
    }
    if (r.unmodelled) {
        *err = where + QStringLiteral(": ") + QLatin1String(r.unmodelled->reason);
        return std::nullopt;
    }
    const Family *family = r.family;
    // Why the file is no known family ("unsupported model_type 'x'"); empty for a known
    // one. Such a file is read as a generic decoder when its standard fields are there.
    QString unknown;
    if (!family) {
        unknown = unknownFamilyReason(o, r);
        family = &genericFamily;
    }
    const bool generic = !unknown.isEmpty();
    // One line for a failure: a known family's problem, or why a generic decoder could
    // not be read (with the families read exactly).
    auto failure = [&](const QString &problem) {
        if (!generic)
            return where + QStringLiteral(": ") + problem;
        return (r.wrapper || !r.label.isEmpty() ? where : QStringLiteral("config.json")) +
               QStringLiteral(": %1; as a generic decoder: %2; supported: %3")
                   .arg(unknown, problem, supportedHfModelTypes().join(QStringLiteral(", ")));
    };

    bool mixtral = false;
    if (const QString refused = expertFieldsRefusal(r, *family, generic, &mixtral);
        !refused.isEmpty()) {
        *err = (r.wrapper || !r.label.isEmpty() ? where : QStringLiteral("config.json")) +
               QStringLiteral(": ") + refused;
        return std::nullopt;
    }

    const QJsonObject &text = r.text;
    Fields f(text, r.nested ? QStringLiteral("text_config ") : QString());
    const QString &t = r.type;
    const bool deepseek = !generic && t.startsWith(QLatin1String("deepseek_v"));
    std::int64_t intermediate = 0;
    Architecture a = readCommonFields(f, *family, t, deepseek, intermediate);
    readBiasesAndNorms(f, a, t, generic);
    if (mixtral) {
        // genericMixtral: MixtralSparseMoeBlock's experts, intermediate_size wide.
        a.experts = f.count("num_local_experts");
        a.activeExperts = f.count("num_experts_per_tok");
        a.expertFfn = a.ffn;
    }
    const bool sharedExpertGate = readMoeFamilies(f, a, t);
    readNeoxAndLlama4(f, a, t, intermediate);
    const int mtp = deepseek ? readDeepseek(f, a, text, t) : 0;

    if (const QString p = f.problems(); !p.isEmpty()) {
        *err = failure(p);
        return std::nullopt;
    }
    if (const std::string e = validateArchitecture(a); !e.empty()) {
        *err = failure(QString::fromStdString(e));
        return std::nullopt;
    }
    return describeModel(o, r, *family, a, generic, sharedExpertGate, mtp);
}

} // namespace shardscope
