#include "launchconfigread.h"

#include "catalog.h"
#include "inputlimits.h"
#include "qtext.h"
#include "settings.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <toml++/toml.h>
#include <yaml-cpp/yaml.h>

namespace shardscope {

namespace {

/// The largest number read from a file, 10^15: beyond every setting's range, and small
/// enough that a degree times a pipeline size or a layer count plus two cannot overflow.
constexpr std::int64_t maxReadNumber = 1'000'000'000'000'000;

/// a x b, or nullopt when it would overflow 64 bits.
std::optional<std::int64_t> product(std::int64_t a, std::int64_t b)
{
    std::int64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out))
        return std::nullopt;
    return out;
}

/// The reader's state: the result so far and the file's name for notes.
struct Reading
{
    LaunchConfigRead out;

    void note(const QString &text) { out.notes << text; }
    void set(const char *key, std::int64_t v) { out.patch.insert(QLatin1String(key), qint64(v)); }
    void set(const char *key, const char *id) { out.patch.insert(QLatin1String(key), id); }
    void set(const char *key, bool v) { out.patch.insert(QLatin1String(key), v); }
};

/// A whole number from text ("8", "5e8", "500000000"), or nullopt.
std::optional<std::int64_t> wholeNumber(const QString &text)
{
    bool ok = false;
    const qlonglong v = text.trimmed().toLongLong(&ok);
    if (ok)
        return v >= -maxReadNumber && v <= maxReadNumber ? std::optional<std::int64_t>(v)
                                                         : std::nullopt;
    const double d = text.trimmed().toDouble(&ok);
    if (ok && std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= double(maxReadNumber))
        return std::int64_t(d);
    return std::nullopt;
}

/// "true"/"yes"/"on" or "false"/"no"/"off" (YAML 1.1's booleans, as PyYAML reads them).
std::optional<bool> truth(const QString &text)
{
    const QString t = text.trimmed().toLower();
    if (t == u"true" || t == u"yes" || t == u"on")
        return true;
    if (t == u"false" || t == u"no" || t == u"off")
        return false;
    return std::nullopt;
}

/// A value the reader ignores, as a note: "KEY: VALUE WHY; ignored".
QString ignored(const QString &key, const QString &value, const QString &why)
{
    return QStringLiteral("%1: '%2' %3; ignored.").arg(key, oneLineText(value), why);
}

/// The line (from 1) of byte `offset` in `bytes`.
int lineAt(const QByteArray &bytes, qsizetype offset)
{
    return int(bytes.left(std::clamp<qsizetype>(offset, 0, bytes.size())).count('\n')) + 1;
}

// ---- DeepSpeed JSON --------------------------------------------------------------------

/// A whole number >= `min` under `key` of `o`: "auto" (the Hugging Face Trainer fills it in)
/// and anything else are notes. `path` names the key in notes.
std::optional<std::int64_t> dsNumber(Reading &r, const QJsonObject &o, const char *key,
                                     const QString &path, std::int64_t min = 1)
{
    const QString k = QLatin1String(key);
    if (!o.contains(k))
        return std::nullopt;
    const QJsonValue v = o.value(k);
    if (v.isString() && v.toString() == u"auto") {
        r.note(QStringLiteral("%1 is \"auto\" (the Hugging Face Trainer fills it in): the "
                              "default or the flag is used.")
                   .arg(path));
        return std::nullopt;
    }
    const QString text = v.isString()   ? v.toString()
                         : v.isDouble() ? QString::number(v.toDouble(), 'g', 17)
                         : v.isBool()   ? QString(v.toBool() ? "true" : "false")
                                        : QStringLiteral("(not a number)");
    const std::optional<std::int64_t> n =
        v.isDouble() || v.isString() ? wholeNumber(text) : std::nullopt;
    if (!n || *n < min) {
        r.note(ignored(path, text, QStringLiteral("is not a whole number from %1").arg(min)));
        return std::nullopt;
    }
    return n;
}

/// An offload block's device: "cpu" and "nvme" offload, "none" does not.
std::optional<bool> dsOffloadDevice(Reading &r, const QJsonObject &zero, const char *block)
{
    const QString k = QLatin1String(block);
    if (!zero.contains(k))
        return std::nullopt;
    const QString device = zero.value(k).toObject().value(QStringLiteral("device")).toString();
    if (device == u"cpu")
        return true;
    if (device == u"nvme") {
        r.note(QStringLiteral("zero_optimization.%1 to NVMe is counted as CPU offload (host "
                              "RAM).")
                   .arg(k));
        return true;
    }
    if (device == u"none" || device.isEmpty())
        return false;
    r.note(ignored(QStringLiteral("zero_optimization.%1.device").arg(k), device,
                   QStringLiteral("is not none, cpu or nvme")));
    return std::nullopt;
}

void readZeroOptimization(Reading &r, const QJsonObject &root)
{
    const QJsonObject zero = root.value(QStringLiteral("zero_optimization")).toObject();
    static const char *const stages[] = {"ddp", "zero1", "zero2", "zero3"};
    std::int64_t stage = 0; // DeepSpeed's default: no ZeRO
    if (const auto s = dsNumber(r, zero, "stage", QStringLiteral("zero_optimization.stage"), 0)) {
        if (*s <= 3)
            stage = *s;
        else
            r.note(ignored(QStringLiteral("zero_optimization.stage"), QString::number(*s),
                           QStringLiteral("is not 0 to 3")));
    }
    r.set("strategy", stages[stage]);
    const auto optimizer = dsOffloadDevice(r, zero, "offload_optimizer");
    const auto param = dsOffloadDevice(r, zero, "offload_param");
    if (param.value_or(false)) {
        r.set("offload", "optimizer+params");
        if (!optimizer.value_or(false))
            r.note(QStringLiteral("offload_param without offload_optimizer is counted as both "
                                  "offloaded (the engine has no parameter-only offload)."));
    } else if (optimizer || param) {
        r.set("offload", optimizer.value_or(false) ? "optimizer" : "none");
    } else {
        r.set("offload", "none");
    }
    const QString z = QStringLiteral("zero_optimization.");
    if (const auto n = dsNumber(r, zero, "mics_shard_size", z + "mics_shard_size"))
        r.set("hsdp_shard", *n);
    if (const auto n = dsNumber(r, zero, "reduce_bucket_size", z + "reduce_bucket_size"))
        r.set("zero_bucket_elements", *n);
    if (const auto n = dsNumber(r, zero, "stage3_prefetch_bucket_size",
                                z + "stage3_prefetch_bucket_size", 0)) {
        r.set("gathered_units", std::int64_t(*n > 0 ? 2 : 1));
        if (*n > 0)
            r.set("stage3_prefetch_elements", *n);
    }
    if (const auto n =
            dsNumber(r, zero, "stage3_max_live_parameters", z + "stage3_max_live_parameters", 0))
        r.set("stage3_max_live_parameters", *n);
    if (const auto n = dsNumber(r, zero, "stage3_param_persistence_threshold",
                                z + "stage3_param_persistence_threshold", 0))
        r.set("stage3_persistence_threshold", *n);
    if (const auto n =
            dsNumber(r, zero, "stage3_max_reuse_distance", z + "stage3_max_reuse_distance", 0))
        r.set("stage3_max_reuse_distance", *n);
    if (const auto n = dsNumber(r, zero, "sub_group_size", z + "sub_group_size"))
        r.set("sub_group_elements", *n);
}

/// `root[key].enabled`: true or false (absent: false), or nullopt for "auto" (a note).
std::optional<bool> dsEnabled(Reading &r, const QJsonObject &root, const char *key)
{
    const QJsonValue v = root.value(QLatin1String(key)).toObject().value(QStringLiteral("enabled"));
    if (v.isString() && v.toString() == u"auto") {
        r.note(QStringLiteral("%1.enabled is \"auto\": the recipe's precision is kept.")
                   .arg(QLatin1String(key)));
        return std::nullopt;
    }
    return v.toBool(false);
}

std::optional<LaunchConfigRead> readDeepSpeed(const QByteArray &bytes, const QString &name,
                                              QString *error)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("%1: line %2: %3")
                     .arg(name)
                     .arg(lineAt(bytes, pe.offset))
                     .arg(pe.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("%1: a DeepSpeed config is a JSON object").arg(name);
        return std::nullopt;
    }
    const QJsonObject root = doc.object();
    // Every DeepSpeed config sets one of these (config-json.md): without one it is some
    // other JSON, and reading it as an empty DeepSpeed config would change nothing.
    bool deepSpeedKey = false;
    for (const char *key : {"train_batch_size", "train_micro_batch_size_per_gpu",
                            "gradient_accumulation_steps", "zero_optimization", "bf16", "fp16"})
        deepSpeedKey = deepSpeedKey || root.contains(QLatin1String(key));
    if (!deepSpeedKey) {
        *error = QStringLiteral("%1: not a DeepSpeed config (none of train_batch_size, "
                                "train_micro_batch_size_per_gpu, gradient_accumulation_steps, "
                                "zero_optimization, bf16, fp16)")
                     .arg(name);
        return std::nullopt;
    }
    Reading r;
    r.out.format = LaunchFormat::DeepSpeed;
    r.set("framework", "deepspeed");
    const auto mbs = dsNumber(r, root, "train_micro_batch_size_per_gpu",
                              QStringLiteral("train_micro_batch_size_per_gpu"));
    const auto accumulation = dsNumber(r, root, "gradient_accumulation_steps",
                                       QStringLiteral("gradient_accumulation_steps"));
    const auto global = dsNumber(r, root, "train_batch_size", QStringLiteral("train_batch_size"));
    if (mbs)
        r.set("mbs", *mbs);
    if (accumulation)
        r.set("microbatches", *accumulation);
    // train_batch_size = micro-batch x accumulation x data-parallel size (config-json.md
    // "Batch Size Related Parameters"): the one that is missing follows from the others.
    if (global && mbs && accumulation) {
        const auto perRank = product(*mbs, *accumulation);
        if (perRank && *global % *perRank == 0)
            r.out.dataParallel = *global / *perRank;
        else
            r.note(QStringLiteral("train_batch_size %1 is not a multiple of micro-batch x "
                                  "accumulation (%2 x %3): the GPU count is the default's or "
                                  "the flag's.")
                       .arg(*global)
                       .arg(*mbs)
                       .arg(*accumulation));
    } else if (global && !accumulation) {
        r.out.globalBatch = *global;
    } else if (!global) {
        r.note(QStringLiteral("No train_batch_size: the GPU count is the default's or the "
                              "flag's."));
    }
    if (global && accumulation && !mbs)
        r.note(QStringLiteral("No train_micro_batch_size_per_gpu: the default's or the flag's "
                              "micro-batch is used."));
    readZeroOptimization(r, root);
    const auto bf16 = dsEnabled(r, root, "bf16"), fp16 = dsEnabled(r, root, "fp16");
    if (fp16.value_or(false))
        r.note(QStringLiteral("fp16 is counted with the 2-byte weights of bf16 (its loss "
                              "scaler's few bytes are not)."));
    if (bf16.value_or(false) || fp16.value_or(false))
        r.out.weightBytes = 2;
    else if (bf16 && fp16)
        r.out.weightBytes = 4; // neither enabled: DeepSpeed trains in fp32
    if (root.contains(QStringLiteral("activation_checkpointing")))
        r.note(QStringLiteral("activation_checkpointing configures deepspeed.checkpointing; "
                              "whether the model recomputes is set in the training script."));
    r.note(QStringLiteral("A DeepSpeed config has no tensor, pipeline, context or expert "
                          "parallel size, sequence length or activation recomputation: those "
                          "are the defaults' or the flags'."));
    return r.out;
}

// ---- Accelerate YAML -------------------------------------------------------------------

/// The scalar text under `key` of map `m`, or nullopt (absent, null, or not a scalar: a
/// note).
std::optional<QString> yamlText(Reading &r, const YAML::Node &m, const char *key,
                                const QString &path)
{
    if (!m.IsMap())
        return std::nullopt;
    const YAML::Node n = m[key];
    if (!n || n.IsNull())
        return std::nullopt;
    if (!n.IsScalar()) {
        r.note(QStringLiteral("%1 is not a single value; ignored.").arg(path));
        return std::nullopt;
    }
    return QString::fromStdString(n.Scalar());
}

std::optional<std::int64_t> yamlNumber(Reading &r, const YAML::Node &m, const char *key,
                                       const QString &path, std::int64_t min = 1)
{
    const auto t = yamlText(r, m, key, path);
    if (!t)
        return std::nullopt;
    if (*t == u"auto") {
        r.note(QStringLiteral("%1 is \"auto\": the default or the flag is used.").arg(path));
        return std::nullopt;
    }
    const auto n = wholeNumber(*t);
    if (!n || *n < min) {
        r.note(ignored(path, *t, QStringLiteral("is not a whole number from %1").arg(min)));
        return std::nullopt;
    }
    return n;
}

std::optional<bool> yamlBool(Reading &r, const YAML::Node &m, const char *key, const QString &path)
{
    const auto t = yamlText(r, m, key, path);
    if (!t)
        return std::nullopt;
    const auto b = truth(*t);
    if (!b)
        r.note(ignored(path, *t, QStringLiteral("is not true or false")));
    return b;
}

/// Accelerate's FSDP plugin (accelerate/utils/dataclasses.py FullyShardedDataParallelPlugin;
/// sharding strategies by name or by torch's ShardingStrategy number 1-5).
void readFsdpPlugin(Reading &r, const YAML::Node &fsdp, std::optional<std::int64_t> processes,
                    std::optional<std::int64_t> machines)
{
    const QString f = QStringLiteral("fsdp_config.");
    r.set("framework", "fsdp2");
    bool hybrid = false;
    const auto version = yamlNumber(r, fsdp, "fsdp_version", f + "fsdp_version");
    if (version == 2) {
        // FSDP2 (fully_shard): reshard_after_forward true is FULL_SHARD, false SHARD_GRAD_OP.
        const auto reshard =
            yamlBool(r, fsdp, "fsdp_reshard_after_forward", f + "fsdp_reshard_after_forward");
        r.set("strategy", reshard.value_or(true) ? "zero3" : "zero2");
    } else if (const auto s =
                   yamlText(r, fsdp, "fsdp_sharding_strategy", f + "fsdp_sharding_strategy")) {
        const QString t = s->toUpper();
        if (t == u"FULL_SHARD" || t == u"1")
            r.set("strategy", "zero3");
        else if (t == u"SHARD_GRAD_OP" || t == u"2")
            r.set("strategy", "zero2");
        else if (t == u"NO_SHARD" || t == u"3")
            r.set("strategy", "ddp");
        else if (t == u"HYBRID_SHARD" || t == u"4" || t == u"HYBRID_SHARD_ZERO2" || t == u"5") {
            hybrid = true;
            r.set("strategy", t == u"HYBRID_SHARD" || t == u"4" ? "zero3" : "zero2");
        } else
            r.note(ignored(f + "fsdp_sharding_strategy", *s,
                           QStringLiteral("is not NO_SHARD, SHARD_GRAD_OP, FULL_SHARD, "
                                          "HYBRID_SHARD or HYBRID_SHARD_ZERO2")));
    } else {
        r.set("strategy", "zero3"); // FullyShardedDataParallelPlugin's default, FULL_SHARD
    }
    if (hybrid) {
        // HYBRID_SHARD shards within a node and replicates across nodes.
        if (processes && *processes % machines.value_or(1) == 0)
            r.set("hsdp_shard", *processes / machines.value_or(1));
        else
            r.note(QStringLiteral("Hybrid sharding without num_processes a multiple of "
                                  "num_machines: the shard group is the default's or "
                                  "--hsdp-shard's."));
    }
    if (const auto o = yamlBool(r, fsdp, "fsdp_offload_params", f + "fsdp_offload_params"))
        r.set("offload", *o ? "optimizer+params" : "none");
    if (const auto ac =
            yamlBool(r, fsdp, "fsdp_activation_checkpointing", f + "fsdp_activation_checkpointing"))
        r.set("recompute", *ac ? "full" : "none");
    else
        r.note(QStringLiteral("No fsdp_activation_checkpointing: recomputation is the "
                              "default's or the flag's."));
    if (const auto p = yamlText(r, fsdp, "fsdp_backward_prefetch", f + "fsdp_backward_prefetch")) {
        const QString t = p->toUpper();
        if (t == u"NO_PREFETCH")
            r.set("gathered_units", std::int64_t(1));
        else if (t == u"BACKWARD_PRE" || t == u"BACKWARD_POST")
            r.set("gathered_units", std::int64_t(2));
        else
            r.note(ignored(f + "fsdp_backward_prefetch", *p,
                           QStringLiteral("is not BACKWARD_PRE, BACKWARD_POST or NO_PREFETCH")));
    }
}

/// Accelerate's DeepSpeed plugin (accelerate/utils/dataclasses.py DeepSpeedPlugin).
void readDeepSpeedPlugin(Reading &r, const YAML::Node &ds)
{
    const QString d = QStringLiteral("deepspeed_config.");
    r.set("framework", "deepspeed");
    if (const auto file = yamlText(r, ds, "deepspeed_config_file", d + "deepspeed_config_file"))
        r.note(QStringLiteral("deepspeed_config_file '%1' is not read here: read it with "
                              "--launch-config for its batch and ZeRO settings.")
                   .arg(oneLineText(*file)));
    static const char *const stages[] = {"ddp", "zero1", "zero2", "zero3"};
    if (const auto s = yamlNumber(r, ds, "zero_stage", d + "zero_stage", 0)) {
        if (*s <= 3)
            r.set("strategy", stages[*s]);
        else
            r.note(ignored(d + "zero_stage", QString::number(*s), QStringLiteral("is not 0 to 3")));
    }
    auto offloads = [&](const char *key) {
        const auto t = yamlText(r, ds, key, d + QLatin1String(key));
        if (!t)
            return false;
        if (*t == u"cpu" || *t == u"nvme")
            return true;
        if (*t != u"none")
            r.note(ignored(d + QLatin1String(key), *t, QStringLiteral("is not none, cpu or nvme")));
        return false;
    };
    const bool optimizer = offloads("offload_optimizer_device");
    const bool param = offloads("offload_param_device");
    r.set("offload", param ? "optimizer+params" : optimizer ? "optimizer" : "none");
    if (const auto m =
            yamlNumber(r, ds, "gradient_accumulation_steps", d + "gradient_accumulation_steps"))
        r.set("microbatches", *m);
}

std::optional<LaunchConfigRead> readAccelerate(const QByteArray &bytes, const QString &name,
                                               QString *error)
{
    YAML::Node root;
    try {
        root = YAML::Load(bytes.toStdString());
    } catch (const YAML::Exception &e) {
        *error = QStringLiteral("%1: line %2: %3")
                     .arg(name)
                     .arg(e.mark.line + 1)
                     .arg(QString::fromStdString(e.msg));
        return std::nullopt;
    }
    if (!root.IsMap()) {
        *error = QStringLiteral("%1: an Accelerate config is a YAML mapping of keys").arg(name);
        return std::nullopt;
    }
    Reading r;
    r.out.format = LaunchFormat::Accelerate;
    const auto type = yamlText(r, root, "distributed_type", QStringLiteral("distributed_type"));
    if (!type) {
        *error = QStringLiteral("%1: no distributed_type (an Accelerate config names FSDP, "
                                "DEEPSPEED or MULTI_GPU)")
                     .arg(name);
        return std::nullopt;
    }
    const auto processes = yamlNumber(r, root, "num_processes", QStringLiteral("num_processes"));
    const auto machines = yamlNumber(r, root, "num_machines", QStringLiteral("num_machines"));
    if (processes)
        r.set("gpus", *processes);
    if (processes && machines && *machines > 1 && *processes % *machines == 0)
        r.set("gpus_per_node", *processes / *machines);
    const QString t = type->toUpper();
    if (t == u"FSDP") {
        readFsdpPlugin(r, root["fsdp_config"], processes, machines);
    } else if (t == u"DEEPSPEED") {
        readDeepSpeedPlugin(r, root["deepspeed_config"]);
    } else if (t == u"MULTI_GPU") {
        r.set("strategy", "ddp");
    } else {
        r.note(ignored(QStringLiteral("distributed_type"), *type,
                       QStringLiteral("is not FSDP, DEEPSPEED or MULTI_GPU: the layout is the "
                                      "default's or the flags'")));
    }
    if (const auto p = yamlText(r, root, "mixed_precision", QStringLiteral("mixed_precision"))) {
        if (*p == u"bf16" || *p == u"fp16")
            r.out.weightBytes = 2;
        else if (*p == u"no")
            r.out.weightBytes = 4;
        else
            r.note(ignored(QStringLiteral("mixed_precision"), *p,
                           QStringLiteral("is not no, fp16 or bf16 (give --fp8 for FP8)")));
    }
    r.note(QStringLiteral("An Accelerate config has no micro-batch, gradient accumulation "
                          "(outside its DeepSpeed plugin), sequence length or model parallel "
                          "size: those are the defaults' or the flags'."));
    return r.out;
}

// ---- torchtitan TOML -------------------------------------------------------------------

/// The value under `key` of `t`, or nullptr where `t` (a table the file may lack) or the
/// key is missing.
const toml::node *tomlNode(const toml::table *t, const char *key)
{
    return t ? t->get(key) : nullptr;
}

/// An integer under `key` of `t`; a value of another type is a note.
std::optional<std::int64_t> tomlNumber(Reading &r, const toml::table *t, const char *key,
                                       const QString &path, std::int64_t min = 1)
{
    const toml::node *n = tomlNode(t, key);
    if (!n)
        return std::nullopt;
    const auto v = n->value<std::int64_t>();
    if (!n->is_integer() || !v || *v < min || *v > maxReadNumber) {
        r.note(QStringLiteral("%1 is not a whole number from %2; ignored.").arg(path).arg(min));
        return std::nullopt;
    }
    return v;
}

/// The value of toml type `T` under `key` of `t` (toml::node::is<T>), or nullopt: absent,
/// or of another type (a note that it is not `what`).
template <typename T>
std::optional<T> tomlValue(Reading &r, const toml::table *t, const char *key, const QString &path,
                           const char *what)
{
    const toml::node *n = tomlNode(t, key);
    if (!n)
        return std::nullopt;
    if (!n->is<T>()) {
        r.note(QStringLiteral("%1 is not %2; ignored.").arg(path, QLatin1String(what)));
        return std::nullopt;
    }
    return n->value<T>();
}

/// A string under `key` of `t`; a value of another type is a note.
std::optional<QString> tomlText(Reading &r, const toml::table *t, const char *key,
                                const QString &path)
{
    const auto text = tomlValue<std::string>(r, t, key, path, "a string");
    return text ? std::optional(QString::fromStdString(*text)) : std::nullopt;
}

/// A boolean under `key` of `t`; a value of another type is a note.
std::optional<bool> tomlBool(Reading &r, const toml::table *t, const char *key, const QString &path)
{
    return tomlValue<bool>(r, t, key, path, "true or false");
}

/// The [parallelism] data-parallel mesh: strategy, HSDP group and data-parallel degree.
void titanMeshRead(Reading &r, const toml::table *par, std::int64_t c)
{
    const QString p = QStringLiteral("parallelism.");
    const std::int64_t replicate =
        tomlNumber(r, par, "data_parallel_replicate_degree", p + "data_parallel_replicate_degree")
            .value_or(1);
    std::int64_t shard = -1; // torchtitan's default: the ranks left over
    if (const auto s = tomlNumber(r, par, "data_parallel_shard_degree",
                                  p + "data_parallel_shard_degree", -1)) {
        if (*s == 0)
            r.note(p + QStringLiteral("data_parallel_shard_degree 0 is read as -1 (the rest)."));
        else
            shard = *s;
    }
    const auto reshard =
        tomlText(r, par, "fsdp_reshard_after_forward", p + "fsdp_reshard_after_forward");
    const bool never = reshard && *reshard == u"never";
    if (reshard && !parseFsdpReshard(reshard->toStdString()))
        r.note(ignored(p + "fsdp_reshard_after_forward", *reshard,
                       QStringLiteral("is not default, always or never")));
    // FSDP2 runs over dp_shard x cp when either is above 1 (torchtitan parallel_dims.py):
    // reshard "never" keeps the gathered weights to the backward, ZeRO-2's memory.
    const bool sharded = shard == -1 || shard > 1 || c > 1;
    if (sharded) {
        r.set("strategy", never ? "zero2" : "zero3");
        if (!never && reshard && parseFsdpReshard(reshard->toStdString()))
            r.set("fsdp_reshard_after_forward",
                  reshard->toStdString() == "always" ? "always" : "default");
        if (replicate > 1 && shard > 0)
            r.set("hsdp_shard", product(shard, c).value_or(maxReadNumber));
        else if (replicate > 1)
            r.out.hsdpReplicas = replicate;
    } else {
        r.set("strategy", "ddp");
    }
    if (shard > 0)
        r.out.dataParallel = product(replicate, shard).value_or(maxReadNumber);
    else
        r.note(QStringLiteral("data_parallel_shard_degree -1 (the rest): the GPU count is the "
                              "default's or the flag's."));
}

/// [parallelism] pipeline settings: the schedule, its micro-batch and virtual stages.
void titanPipelineRead(Reading &r, const toml::table *par, std::int64_t pp)
{
    const QString p = QStringLiteral("parallelism.");
    const auto less = tomlNumber(r, par, "pipeline_parallel_first_stage_less_layers",
                                 p + "pipeline_parallel_first_stage_less_layers", 0);
    const auto lastLess = tomlNumber(r, par, "pipeline_parallel_last_stage_less_layers",
                                     p + "pipeline_parallel_last_stage_less_layers", 0);
    if (less && lastLess) {
        if (*less == *lastLess && *less <= 1)
            r.set("balanced_stages", *less == 1);
        else
            r.note(QStringLiteral("Stages with %1 and %2 layers fewer are not read: the "
                                  "estimate splits plainly or balanced (1 and 1).")
                       .arg(*less)
                       .arg(*lastLess));
    }
    if (pp <= 1)
        return;
    const auto schedule =
        tomlText(r, par, "pipeline_parallel_schedule", p + "pipeline_parallel_schedule");
    const QString s = schedule.value_or(QStringLiteral("1F1B")); // torchtitan's default
    if (s == u"1F1B")
        r.set("schedule", "1f1b");
    else if (s == u"GPipe")
        r.set("schedule", "gpipe");
    else if (s == u"Interleaved1F1B") {
        r.set("schedule", "interleaved");
        if (const auto n = tomlNumber(r, par, "pipeline_parallel_layers_per_stage",
                                      p + "pipeline_parallel_layers_per_stage"))
            r.out.layersPerVirtualStage = *n;
        else
            r.note(QStringLiteral("Interleaved1F1B without pipeline_parallel_layers_per_stage: "
                                  "2 chunks per stage, or --chunks."));
    } else
        r.note(ignored(p + "pipeline_parallel_schedule", s,
                       QStringLiteral("has no schedule in the estimate (1F1B, GPipe, "
                                      "Interleaved1F1B)")));
}

std::optional<LaunchConfigRead> readTorchtitan(const QByteArray &bytes, const QString &name,
                                               QString *error)
{
    toml::table root;
    try {
        root = toml::parse(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    } catch (const toml::parse_error &e) {
        *error =
            QStringLiteral("%1: line %2: %3")
                .arg(name)
                .arg(e.source().begin.line)
                .arg(QString::fromUtf8(e.description().data(), qsizetype(e.description().size())));
        return std::nullopt;
    }
    Reading r;
    r.out.format = LaunchFormat::Torchtitan;
    r.set("framework", "fsdp2");
    const toml::table *par = root["parallelism"].as_table();
    const toml::table *training = root["training"].as_table();
    const QString p = QStringLiteral("parallelism.");
    std::int64_t tp = 1, pp = 1, cp = 1;
    const std::pair<const char *, const char *> degrees[] = {{"tensor_parallel_degree", "tp"},
                                                             {"pipeline_parallel_degree", "pp"},
                                                             {"context_parallel_degree", "cp"},
                                                             {"expert_parallel_degree", "ep"}};
    for (const auto &[key, setting] : degrees) {
        const std::int64_t v = tomlNumber(r, par, key, p + QLatin1String(key)).value_or(1);
        r.set(setting, v); // absent: torchtitan's default 1
        if (setting == std::string_view("tp"))
            tp = v;
        else if (setting == std::string_view("pp"))
            pp = v;
        else if (setting == std::string_view("cp"))
            cp = v;
    }
    if (tp > 1)
        r.set("sequence_parallel", true); // torchtitan's tensor parallelism always uses it
    titanMeshRead(r, par, cp);
    titanPipelineRead(r, par, pp);

    const QString t = QStringLiteral("training.");
    auto local = tomlNumber(r, training, "local_batch_size", t + "local_batch_size");
    if (!local)
        local = tomlNumber(r, training, "batch_size", t + "batch_size"); // older torchtitan
    const auto global =
        tomlNumber(r, training, "global_batch_size", t + "global_batch_size", -1).value_or(-1);
    if (local && pp > 1) {
        // local_batch_size is split into micro-batches of pipeline_parallel_microbatch_size.
        const std::int64_t b = tomlNumber(r, par, "pipeline_parallel_microbatch_size",
                                          p + "pipeline_parallel_microbatch_size")
                                   .value_or(1);
        r.set("mbs", b);
        if (*local % b == 0)
            r.set("microbatches", *local / b);
        else
            r.note(QStringLiteral("local_batch_size %1 is not a multiple of the pipeline "
                                  "micro-batch %2: micro-batches are the default's.")
                       .arg(*local)
                       .arg(b));
    } else if (local) {
        r.set("mbs", *local);
        if (global > 0)
            r.out.globalBatch = global; // gradient accumulation = global / (local x d)
        else
            r.set("microbatches", std::int64_t(1));
    } else {
        r.note(QStringLiteral("No training.local_batch_size: the batch is the default's or the "
                              "flags'."));
    }
    if (const auto s = tomlNumber(r, training, "seq_len", t + "seq_len"))
        r.set("seq", *s);
    if (const auto d =
            tomlText(r, training, "mixed_precision_param", t + "mixed_precision_param")) {
        if (*d == u"bfloat16")
            r.out.weightBytes = 2;
        else if (*d == u"float32")
            r.out.weightBytes = 4;
        else
            r.note(ignored(t + "mixed_precision_param", *d,
                           QStringLiteral("is not bfloat16 or float32")));
    }
    if (const auto o = tomlBool(r, training, "enable_cpu_offload", t + "enable_cpu_offload"))
        r.set("offload", *o ? "optimizer+params" : "none");
    const toml::table *ac = root["activation_checkpoint"].as_table();
    if (const auto mode = tomlText(r, ac, "mode", QStringLiteral("activation_checkpoint.mode"))) {
        if (const auto rc = parseRecompute(mode->toStdString()))
            r.out.patch.insert(QStringLiteral("recompute"), toQString(recomputeId(*rc)));
        else
            r.note(ignored(QStringLiteral("activation_checkpoint.mode"), *mode,
                           QStringLiteral("is not none, selective or full")));
    } else {
        r.note(QStringLiteral("No activation_checkpoint.mode: recomputation is the default's "
                              "or the flag's."));
    }
    // FP8: [model] converters (quantize.linear.float8 or .mx, or the older float8 / mx).
    if (const toml::array *conv = root["model"]["converters"].as_array()) {
        for (const toml::node &c : *conv) {
            const QString id = QString::fromStdString(c.value_or(std::string()));
            if (id == u"float8" || id.endsWith(u".float8"))
                r.set("fp8", "delayed");
            else if (id == u"mx" || id.endsWith(u".mx"))
                r.set("fp8", "mxfp8");
        }
    }
    if (root["model"]["name"] || root["model"]["flavor"])
        r.note(QStringLiteral("[model] name and flavor are not read: the model is --model's, "
                              "--hf-config's or the default's."));
    return r.out;
}

// ---- Megatron-LM arguments -------------------------------------------------------------

/// Megatron-LM arguments that take a value (megatron/training/arguments.py); any other
/// --flag is a switch unless a word that is no flag follows it.
bool megatronTakesValue(const QString &flag)
{
    static const QStringList valued = {"tensor-model-parallel-size",
                                       "pipeline-model-parallel-size",
                                       "context-parallel-size",
                                       "expert-model-parallel-size",
                                       "num-layers-per-virtual-pipeline-stage",
                                       "num-virtual-stages-per-pipeline-rank",
                                       "micro-batch-size",
                                       "global-batch-size",
                                       "recompute-granularity",
                                       "recompute-method",
                                       "recompute-num-layers",
                                       "seq-length",
                                       "num-layers",
                                       "num-distributed-optimizer-instances",
                                       "optimizer-offload-fraction",
                                       "fp8-format",
                                       "fp8-recipe"};
    return valued.contains(flag);
}

std::optional<LaunchConfigRead> readMegatron(const QByteArray &bytes, const QString &name,
                                             QString *error)
{
    QString why;
    const auto words = shellWords(QString::fromUtf8(bytes), &why);
    if (!words) {
        *error = name + QStringLiteral(": ") + why;
        return std::nullopt;
    }
    // The arguments, flag -> value (argparse: the last one given wins).
    QHash<QString, QString> args;
    for (qsizetype i = 0; i < words->size(); ++i) {
        const QString &w = words->at(i);
        if (!w.startsWith(QStringLiteral("--")) || w.size() < 3)
            continue;
        const qsizetype eq = w.indexOf(u'=');
        if (eq > 0) {
            args.insert(w.mid(2, eq - 2), w.mid(eq + 1));
            continue;
        }
        const QString flag = w.mid(2);
        if (megatronTakesValue(flag) && i + 1 < words->size() &&
            !words->at(i + 1).startsWith(QStringLiteral("--")))
            args.insert(flag, words->at(++i));
        else
            args.insert(flag, QString());
    }
    Reading r;
    r.out.format = LaunchFormat::Megatron;
    r.set("framework", "megatron");
    auto number = [&](const char *flag, std::int64_t min = 1) -> std::optional<std::int64_t> {
        const QString f = QLatin1String(flag);
        if (!args.contains(f))
            return std::nullopt;
        const auto n = wholeNumber(args.value(f));
        if (!n || *n < min) {
            r.note(ignored(QStringLiteral("--") + f, args.value(f),
                           QStringLiteral("is not a whole number from %1 (variables are not "
                                          "expanded)")
                               .arg(min)));
            return std::nullopt;
        }
        return n;
    };
    auto has = [&](const char *flag) { return args.contains(QLatin1String(flag)); };
    auto text = [&](const char *flag) { return args.value(QLatin1String(flag)); };
    const std::int64_t tp = number("tensor-model-parallel-size").value_or(1);
    const std::int64_t pp = number("pipeline-model-parallel-size").value_or(1);
    r.set("tp", tp);
    r.set("pp", pp);
    r.set("cp", number("context-parallel-size").value_or(1));
    r.set("ep", number("expert-model-parallel-size").value_or(1));
    if (tp > 1)
        r.set("sequence_parallel", has("sequence-parallel"));
    const bool balanced =
        has("account-for-embedding-in-pipeline-split") && has("account-for-loss-in-pipeline-split");
    if (pp > 1) {
        r.set("balanced_stages", balanced);
        r.set("schedule", "1f1b");
        if (const auto n = number("num-layers-per-virtual-pipeline-stage")) {
            r.set("schedule", "interleaved");
            r.out.layersPerVirtualStage = *n;
        } else if (const auto v = number("num-virtual-stages-per-pipeline-rank")) {
            if (*v > 1) {
                r.set("schedule", "interleaved");
                r.set("chunks", *v);
            }
        }
    }
    if (const auto layers = number("num-layers"))
        r.out.splitLayers = *layers + (balanced ? 2 : 0);
    r.set("strategy", has("use-distributed-optimizer") ? "zero1" : "ddp");
    if (const auto k = number("num-distributed-optimizer-instances"); k && *k > 1)
        r.out.optimizerInstances = *k;
    r.set("offload", has("optimizer-cpu-offload") ? "optimizer" : "none");
    if (has("optimizer-cpu-offload") && has("optimizer-offload-fraction") &&
        text("optimizer-offload-fraction").toDouble() != 1.0)
        r.note(QStringLiteral("--optimizer-offload-fraction %1 is counted as the whole optimizer "
                              "offloaded.")
                   .arg(oneLineText(text("optimizer-offload-fraction"))));
    if (const auto b = number("micro-batch-size"))
        r.set("mbs", *b);
    if (const auto g = number("global-batch-size"))
        r.out.globalBatch = *g;
    else
        r.note(QStringLiteral("No --global-batch-size: gradient accumulation is the default's or "
                              "the flag's."));
    if (const auto s = number("seq-length"))
        r.set("seq", *s);
    // Megatron-LM recomputes nothing unless --recompute-granularity is given.
    const QString granularity = text("recompute-granularity");
    if (!has("recompute-granularity"))
        r.set("recompute", "none");
    else if (granularity == u"selective" || granularity == u"full")
        r.out.patch.insert(QStringLiteral("recompute"), granularity);
    else
        r.note(ignored(QStringLiteral("--recompute-granularity"), granularity,
                       QStringLiteral("is not full or selective")));
    if (granularity == u"full" &&
        (text("recompute-method") != u"uniform" || number("recompute-num-layers").value_or(1) != 1))
        r.note(QStringLiteral("Full recomputation is counted per layer (--recompute-method "
                              "uniform --recompute-num-layers 1)."));
    r.out.weightBytes = has("bf16") || has("fp16") ? 2 : 4;
    if (has("fp8-format")) {
        const QString recipe = has("fp8-recipe") ? text("fp8-recipe") : QStringLiteral("delayed");
        if (recipe == u"delayed" || recipe == u"mxfp8")
            r.out.patch.insert(QStringLiteral("fp8"), recipe);
        else
            r.note(ignored(QStringLiteral("--fp8-recipe"), recipe,
                           QStringLiteral("is not delayed or mxfp8")));
    }
    if (has("num-layers") || has("hidden-size"))
        r.note(QStringLiteral("The model's shape arguments (--num-layers, --hidden-size, ...) are "
                              "not read: the model is --model's, --hf-config's or the "
                              "default's."));
    r.note(QStringLiteral("Megatron-LM's arguments do not hold the GPU count (torchrun's): it "
                          "is the default's or --gpus'."));
    return r.out;
}

/// Megatron-LM arguments that mark a text as a Megatron launch script.
bool looksLikeMegatron(const QByteArray &bytes)
{
    for (const char *flag :
         {"--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--micro-batch-size",
          "--global-batch-size", "--use-distributed-optimizer", "--context-parallel-size"})
        if (bytes.contains(flag))
            return true;
    return false;
}

/// The setting whose scenario-file key is `key`, as its flag ("--tp"), for notes.
QString flagOf(const QString &key)
{
    const Setting *s = settingByKey(key.toStdString());
    return s ? QStringLiteral("--") + toQString(s->flag) : key;
}

} // namespace

std::optional<QStringList> shellWords(const QString &text, QString *error)
{
    QStringList words;
    QString word;
    bool inWord = false; // a word has started (an empty '' is a word)
    int line = 1;
    const qsizetype n = text.size();
    auto end = [&] {
        if (inWord)
            words << word;
        word.clear();
        inWord = false;
    };
    for (qsizetype i = 0; i < n; ++i) {
        const QChar c = text[i];
        if (c == u'\n')
            ++line;
        if (c == u'\\') {
            if (i + 1 < n && text[i + 1] == u'\n') { // a continuation
                ++i;
                ++line;
                continue;
            }
            if (i + 1 < n) {
                word += text[++i];
                inWord = true;
            }
            continue;
        }
        if (c == u'\'') {
            const qsizetype close = text.indexOf(u'\'', i + 1);
            if (close < 0) {
                *error = QStringLiteral("line %1: unterminated ' quote").arg(line);
                return std::nullopt;
            }
            const QString quoted = text.mid(i + 1, close - i - 1);
            line += int(quoted.count(u'\n'));
            word += quoted;
            inWord = true;
            i = close;
            continue;
        }
        if (c == u'$' && i + 1 < n && text[i + 1] == u'\'') {
            // ANSI-C quoting: \xHH bytes, \n \t \r \\ \' \" escapes.
            const int start = line;
            QByteArray bytes;
            qsizetype j = i + 2;
            for (; j < n && text[j] != u'\''; ++j) {
                QChar d = text[j];
                if (d == u'\n')
                    ++line;
                if (d != u'\\' || j + 1 >= n) {
                    bytes += QString(d).toUtf8();
                    continue;
                }
                d = text[++j];
                if (d == u'x') {
                    int value = 0, digits = 0;
                    while (digits < 2 && j + 1 < n && isxdigit(text[j + 1].toLatin1())) {
                        value = value * 16 + QString(text[++j]).toInt(nullptr, 16);
                        ++digits;
                    }
                    if (digits > 0)
                        bytes += char(value);
                    else
                        bytes += "\\x"; // bash keeps a \x with no hex digit as it is
                } else if (d == u'n') {
                    bytes += '\n';
                } else if (d == u't') {
                    bytes += '\t';
                } else if (d == u'r') {
                    bytes += '\r';
                } else if (d == u'\\' || d == u'\'' || d == u'"') {
                    bytes += char(d.toLatin1());
                } else {
                    bytes += '\\';
                    bytes += QString(d).toUtf8();
                }
            }
            if (j >= n) {
                *error = QStringLiteral("line %1: unterminated $' quote").arg(start);
                return std::nullopt;
            }
            word += QString::fromUtf8(bytes);
            inWord = true;
            i = j;
            continue;
        }
        if (c == u'"') {
            const int start = line;
            qsizetype j = i + 1;
            for (; j < n && text[j] != u'"'; ++j) {
                if (text[j] == u'\n')
                    ++line;
                if (text[j] == u'\\' && j + 1 < n) {
                    const QChar d = text[j + 1];
                    if (d == u'\n') {
                        ++j;
                        ++line;
                        continue;
                    }
                    if (d == u'\\' || d == u'"' || d == u'$' || d == u'`') {
                        word += d;
                        ++j;
                        continue;
                    }
                }
                word += text[j];
            }
            if (j >= n) {
                *error = QStringLiteral("line %1: unterminated \" quote").arg(start);
                return std::nullopt;
            }
            inWord = true;
            i = j;
            continue;
        }
        if (c == u'#' && !inWord) { // a comment to the end of the line
            while (i + 1 < n && text[i + 1] != u'\n')
                ++i;
            continue;
        }
        if (c.isSpace() || c == u'(' || c == u')' || c == u';' || c == u'&' || c == u'|' ||
            c == u'<' || c == u'>') {
            end();
            continue;
        }
        word += c;
        inWord = true;
    }
    end();
    return words;
}

std::optional<LaunchFormat> detectLaunchFormat(const QByteArray &bytes, const QString &fileName)
{
    const QString lower = fileName.toLower();
    if (lower.endsWith(u".json"))
        return LaunchFormat::DeepSpeed;
    if (lower.endsWith(u".yaml") || lower.endsWith(u".yml"))
        return LaunchFormat::Accelerate;
    if (lower.endsWith(u".toml"))
        return LaunchFormat::Torchtitan;
    if (lower.endsWith(u".sh") || lower.endsWith(u".args") || lower.endsWith(u".txt") ||
        lower.endsWith(u".bash"))
        return LaunchFormat::Megatron;
    const QByteArray t = bytes.trimmed();
    if (t.startsWith('{'))
        return LaunchFormat::DeepSpeed;
    if (looksLikeMegatron(bytes))
        return LaunchFormat::Megatron;
    static const QRegularExpression yamlKey(QStringLiteral("^distributed_type\\s*:"),
                                            QRegularExpression::MultilineOption);
    if (yamlKey.match(QString::fromUtf8(bytes)).hasMatch())
        return LaunchFormat::Accelerate;
    static const QRegularExpression tomlTable(
        QStringLiteral("^\\s*\\[(parallelism|training|activation_checkpoint)\\]"),
        QRegularExpression::MultilineOption);
    if (tomlTable.match(QString::fromUtf8(bytes)).hasMatch())
        return LaunchFormat::Torchtitan;
    return std::nullopt;
}

std::optional<LaunchConfigRead> readLaunchConfig(const QByteArray &bytes, const QString &fileName,
                                                 QString *error)
{
    QString local;
    QString *err = error ? error : &local;
    const QString name = oneLineText(fileName);
    const auto format = detectLaunchFormat(bytes, fileName);
    if (!format) {
        *err = QStringLiteral("%1: not a launch config (a DeepSpeed .json, an Accelerate .yaml, "
                              "a torchtitan .toml or Megatron-LM arguments in a .sh or .args "
                              "file)")
                   .arg(name);
        return std::nullopt;
    }
    switch (*format) {
    case LaunchFormat::DeepSpeed:
        return readDeepSpeed(bytes, name, err);
    case LaunchFormat::Accelerate:
        return readAccelerate(bytes, name, err);
    case LaunchFormat::Torchtitan:
        return readTorchtitan(bytes, name, err);
    case LaunchFormat::Megatron:
        return readMegatron(bytes, name, err);
    }
    return std::nullopt;
}

bool applyLaunchConfig(const LaunchConfigRead &read, const QString &fileName,
                       const LaunchOverrides &flags, ScenarioDocument *doc, QStringList *notes,
                       QString *error)
{
    const QStringList &keysFromFlags = flags.keys;
    const bool recipeFromFlags = flags.recipe;
    const QString name = oneLineText(fileName);
    *notes << read.notes;
    auto fromFlags = [&keysFromFlags](const char *key) {
        return keysFromFlags.contains(QLatin1String(key));
    };
    QJsonObject patch;
    for (auto it = read.patch.begin(); it != read.patch.end(); ++it) {
        if (keysFromFlags.contains(it.key())) {
            const QJsonValue v = it.value();
            *notes << QStringLiteral("%1 overrides the file's %2 %3.")
                          .arg(flagOf(it.key()), it.key(),
                               v.isString() ? v.toString()
                               : v.isBool() ? QString(v.toBool() ? "on" : "off")
                                            : QString::number(v.toInteger()));
            continue;
        }
        patch.insert(it.key(), it.value());
    }
    const auto next = applyScenarioPatch(*doc, patch, name, error, {}, false);
    if (!next)
        return false;
    *doc = *next;
    Scenario &s = doc->scenario;
    Layout &l = s.layout;
    if (flags.dataParallel) {
        const std::int64_t mp = l.modelParallel();
        if (mp > 0 && *flags.dataParallel <= maxGpus / mp)
            l.gpus = *flags.dataParallel * mp; // checked again, with its message, by --dp
    } else if (read.dataParallel && !fromFlags("gpus")) {
        const std::int64_t mp = l.modelParallel();
        if (mp > 0 && *read.dataParallel <= maxGpus / mp)
            l.gpus = *read.dataParallel * mp;
        else
            *notes << QStringLiteral("Data parallel %1 x t p c is over %2 GPUs: the GPU count is "
                                     "the default's.")
                          .arg(*read.dataParallel)
                          .arg(maxGpus);
    }
    const std::int64_t dc = l.dataParallel() * l.contextParallel;
    for (const auto &groups : {read.hsdpReplicas, read.optimizerInstances}) {
        if (!groups || fromFlags("hsdp_shard"))
            continue;
        if (dc > 0 && dc % *groups == 0 && dc / *groups < dc)
            l.hsdpShardSize = dc / *groups;
        else
            *notes << QStringLiteral("%1 replicas do not divide d x c = %2 ranks: sharding over "
                                     "all of them.")
                          .arg(*groups)
                          .arg(dc);
    }
    Training &t = s.training;
    if (read.globalBatch && !fromFlags("microbatches") &&
        !read.patch.contains(QStringLiteral("microbatches"))) {
        const std::int64_t bd = t.microBatchSize * l.dataParallel();
        if (bd > 0 && *read.globalBatch % bd == 0 && *read.globalBatch / bd <= maxMicroBatches)
            t.microBatches = *read.globalBatch / bd;
        else
            *notes << QStringLiteral("Global batch %1 is not a multiple of micro-batch x data "
                                     "parallel (%2 x %3): gradient accumulation stays %4.")
                          .arg(*read.globalBatch)
                          .arg(t.microBatchSize)
                          .arg(l.dataParallel())
                          .arg(t.microBatches);
    }
    if (read.layersPerVirtualStage && !fromFlags("chunks") && !fromFlags("schedule") &&
        l.pipelineParallel > 1) {
        const std::int64_t layers = read.splitLayers ? *read.splitLayers
                                    : s.model.architecture
                                        ? s.model.architecture->layers + (l.balancedStages ? 2 : 0)
                                        : 0;
        const std::int64_t perStage =
            std::int64_t(l.pipelineParallel) * *read.layersPerVirtualStage;
        if (layers > 0 && layers % perStage == 0 && layers / perStage <= maxModelChunks) {
            const std::int64_t v = layers / perStage;
            t.schedule = v > 1 ? PipelineSchedule::Interleaved1F1B : PipelineSchedule::OneFOneB;
            t.chunks = int(v);
        } else {
            *notes << QStringLiteral("%1 layers do not split into %2 stages of %3 layers: %4 "
                                     "chunks per stage.")
                          .arg(layers)
                          .arg(l.pipelineParallel)
                          .arg(*read.layersPerVirtualStage)
                          .arg(t.chunks);
        }
    }
    if (read.weightBytes && !recipeFromFlags && s.recipe.weightBytes != *read.weightBytes) {
        const char *id = *read.weightBytes == 2 ? "mixed-adam" : "fp32-adam";
        if (const Recipe *r = Catalog::builtIn().recipe(id)) {
            s.recipe = *r;
            *notes << QStringLiteral("The file trains with %1-byte weights: recipe %2.")
                          .arg(*read.weightBytes)
                          .arg(QLatin1String(id));
        }
    }
    return true;
}

} // namespace shardscope
