#include "settings.h"

#include "framework.h"
#include "inputlimits.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>

namespace shardscope {

namespace {

/// A whole number written in decimal or in scientific notation that names one exactly,
/// as DeepSpeed configs write element counts ("5e8", "2.5e8", "1E9"): its value, or
/// nullopt for anything else (a fraction such as "1.5e0", a negative exponent, a sign,
/// or more than int64 holds).
std::optional<std::int64_t> wholeNumber(std::string_view text)
{
    std::int64_t v = 0;
    const char *first = text.data(), *last = text.data() + text.size();
    const auto [end, ec] = std::from_chars(first, last, v);
    if (ec == std::errc() && end == last && !text.empty())
        return v;
    const std::size_t e = text.find_first_of("eE");
    if (e == std::string_view::npos || e == 0 || e + 1 >= text.size())
        return std::nullopt;
    const std::string_view mantissa = text.substr(0, e), exponent = text.substr(e + 1);
    const std::size_t point = mantissa.find('.');
    const std::string_view whole = mantissa.substr(0, point);
    std::string_view fraction =
        point == std::string_view::npos ? std::string_view() : mantissa.substr(point + 1);
    while (!fraction.empty() && fraction.back() == '0')
        fraction.remove_suffix(1);
    int power = 0;
    const std::errc pec =
        std::from_chars(exponent.data(), exponent.data() + exponent.size(), power).ec;
    const auto digits = [](std::string_view d) {
        return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    // All digits, so from_chars reads the whole exponent or fails on overflow.
    if (whole.empty() || !digits(whole) || !digits(fraction) || !digits(exponent) ||
        pec != std::errc() || power < int(fraction.size()) || power > 18)
        return std::nullopt;
    std::int64_t value = 0;
    for (const std::string_view part : {whole, fraction})
        for (const char c : part) {
            if (value > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10)
                return std::nullopt;
            value = value * 10 + (c - '0');
        }
    for (int i = int(fraction.size()); i < power; ++i) {
        if (value > std::numeric_limits<std::int64_t>::max() / 10)
            return std::nullopt;
        value *= 10;
    }
    return value;
}

constexpr std::int64_t mib = 1024 * 1024;
constexpr std::int64_t gb = 1'000'000'000;

template <typename Enum, std::optional<Enum> (*Parse)(std::string_view)>
std::optional<std::int64_t> parseEnum(std::string_view text)
{
    if (const auto e = Parse(text))
        return std::int64_t(*e);
    return std::nullopt;
}

// Choice ids come from each enum's own id function, so they cannot drift.
const std::array<std::string_view, 4> strategyIds = {
    zeroStageId(ZeroStage::Ddp), zeroStageId(ZeroStage::Zero1), zeroStageId(ZeroStage::Zero2),
    zeroStageId(ZeroStage::Zero3)};
const std::array<std::string_view, 3> offloadIds = {offloadId(Offload::None),
                                                    offloadId(Offload::Optimizer),
                                                    offloadId(Offload::OptimizerAndParams)};
const std::array<std::string_view, 3> fsdpReshardIds = {fsdpReshardId(FsdpReshard::Default),
                                                        fsdpReshardId(FsdpReshard::Always),
                                                        fsdpReshardId(FsdpReshard::Never)};
const std::array<std::string_view, 3> recomputeIds = {
    recomputeId(Recompute::None), recomputeId(Recompute::Selective), recomputeId(Recompute::Full)};
const std::array<std::string_view, 2> lossIds = {lossKernelId(LossKernel::Fused),
                                                 lossKernelId(LossKernel::Eager)};
const std::array<std::string_view, 2> normIds = {normKernelId(NormKernel::Fused),
                                                 normKernelId(NormKernel::Eager)};
const std::array<std::string_view, 4> scheduleIds = {
    pipelineScheduleId(PipelineSchedule::GPipe), pipelineScheduleId(PipelineSchedule::OneFOneB),
    pipelineScheduleId(PipelineSchedule::Interleaved1F1B),
    pipelineScheduleId(PipelineSchedule::ZeroBubbleH1)};
const std::array<std::string_view, 3> fp8Ids = {
    fp8RecipeId(Fp8Recipe::Off), fp8RecipeId(Fp8Recipe::Delayed), fp8RecipeId(Fp8Recipe::Mxfp8)};
const std::array<std::string_view, 4> baseFormatIds = {
    baseFormatId(BaseFormat::Bf16), baseFormatId(BaseFormat::Fp16), baseFormatId(BaseFormat::Int8),
    baseFormatId(BaseFormat::Nf4)};

/// The 128 ids of lora_targets, index = LoraTarget bits: "none", "q", "k", "q,k", ...,
/// "all-linear" for all seven.
const std::array<std::string, 128> &loraTargetTexts()
{
    static const std::array<std::string, 128> t = [] {
        std::array<std::string, 128> out;
        for (int mask = 0; mask < 128; ++mask) {
            if (mask == 0)
                out[0] = "none";
            else if (mask == LoraAllLinear)
                out[std::size_t(mask)] = "all-linear";
            else
                for (int k = 0; k < 7; ++k)
                    if (mask & (1 << k))
                        out[std::size_t(mask)]
                            .append(out[std::size_t(mask)].empty() ? "" : ",")
                            .append(loraTargetNames[std::size_t(k)]);
        }
        return out;
    }();
    return t;
}

const std::array<std::string_view, 128> &loraTargetIds()
{
    static const std::array<std::string_view, 128> ids = [] {
        std::array<std::string_view, 128> out;
        for (std::size_t i = 0; i < out.size(); ++i)
            out[i] = loraTargetTexts()[i];
        return out;
    }();
    return ids;
}

/// "q,v", "v, q", "all-linear" (also "all"), "none": the LoraTarget bits; nullopt for
/// an unknown name.
std::optional<std::int64_t> parseLoraTargets(std::string_view text)
{
    if (text == "all-linear" || text == "all")
        return LoraAllLinear;
    if (text == "none")
        return 0;
    std::int64_t mask = 0;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        std::string_view name = text.substr(0, comma);
        while (!name.empty() && name.front() == ' ')
            name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ')
            name.remove_suffix(1);
        // PEFT's module names too: q_proj, gate_proj, ...
        if (name.size() > 5 && name.substr(name.size() - 5) == "_proj")
            name.remove_suffix(5);
        const auto it = std::find(loraTargetNames.begin(), loraTargetNames.end(), name);
        if (it == loraTargetNames.end())
            return std::nullopt;
        mask |= std::int64_t(1) << (it - loraTargetNames.begin());
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
    }
    return mask == 0 ? std::nullopt : std::optional<std::int64_t>(mask);
}

constexpr std::array<std::string_view, 4> activationByteValues = {"1", "2", "4", "8"};

/// ASCII lower case: ids, on/off and labels are ASCII.
std::string lowered(std::string_view t)
{
    std::string out(t);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); });
    return out;
}

std::optional<std::int64_t> parseStrategy(std::string_view t)
{
    if (const auto z = parseZeroStage(lowered(t)))
        return std::int64_t(*z);
    return std::nullopt;
}

Setting integer(std::string_view key, std::string_view flag, std::string_view label,
                std::string_view help, std::int64_t min, std::int64_t max,
                std::int64_t (*get)(const Scenario &), void (*set)(Scenario &, std::int64_t),
                std::string_view displayUnit = {}, std::int64_t scale = 1)
{
    Setting s;
    s.key = key;
    s.flag = flag;
    s.label = label;
    s.help = help;
    s.kind = SettingKind::Integer;
    s.min = min;
    s.max = max;
    s.displayUnit = displayUnit;
    s.scale = scale;
    s.get = get;
    s.set = set;
    return s;
}

Setting boolean(std::string_view key, std::string_view flag, std::string_view label,
                std::string_view help, bool isSwitch, std::int64_t (*get)(const Scenario &),
                void (*set)(Scenario &, std::int64_t))
{
    Setting s = integer(key, flag, label, help, 0, 1, get, set);
    s.kind = SettingKind::Boolean;
    s.isSwitch = isSwitch;
    return s;
}

Setting choice(std::string_view key, std::string_view flag, std::string_view label,
               std::string_view help, std::span<const std::string_view> ids,
               std::optional<std::int64_t> (*parse)(std::string_view),
               std::int64_t (*get)(const Scenario &), void (*set)(Scenario &, std::int64_t))
{
    Setting s = integer(key, flag, label, help, 0, std::int64_t(ids.size()) - 1, get, set);
    s.kind = SettingKind::Choice;
    s.choices = ids;
    s.parseChoice = parse;
    return s;
}

// Field accessors: captureless lambdas, so the table is plain data.
#define SHARDSCOPE_FIELD(expr, type)                                                               \
    [](const Scenario &sc) { return std::int64_t(sc.expr); },                                      \
        [](Scenario &sc, std::int64_t v) { sc.expr = type(v); }

/// Layout: the settings table's rows, appended to `v`.
void layoutSettings(std::vector<Setting> &v)
{
    v.push_back(integer("gpus", "gpus", "GPUs",
                        "World size: GPUs in all, d x t x p x c (or give --dp).", 1, maxGpus,
                        SHARDSCOPE_FIELD(layout.gpus, std::int64_t)));
    v.push_back(integer("tp", "tp", "Tensor parallel t",
                        "Tensor-parallel degree: each layer's matrices split t ways "
                        "(Shoeybi et al. 2019); keep it inside one NVLink node.",
                        1, maxParallelDegree, SHARDSCOPE_FIELD(layout.tensorParallel, int)));
    v.push_back(integer("pp", "pp", "Pipeline stages p",
                        "Pipeline-parallel stages: the layers split into p stages.", 1,
                        maxPipelineStages, SHARDSCOPE_FIELD(layout.pipelineParallel, int)));
    v.push_back(integer("cp", "cp", "Context parallel c",
                        "Context-parallel degree: the sequence split c ways (ring "
                        "attention).",
                        1, maxParallelDegree, SHARDSCOPE_FIELD(layout.contextParallel, int)));
    v.push_back(integer("ep", "ep", "Expert parallel e",
                        "Expert-parallel degree for a mixture-of-experts model, inside the "
                        "data x context ranks.",
                        1, maxParallelDegree, SHARDSCOPE_FIELD(layout.expertParallel, int)));
    v.push_back(choice("strategy", "strategy", "Strategy",
                       "How model states are sharded over data-parallel ranks: DDP, ZeRO-1, "
                       "ZeRO-2, ZeRO-3 / FSDP (also 0..3, fsdp; alias --zero).",
                       strategyIds, parseStrategy, SHARDSCOPE_FIELD(layout.zeroStage, ZeroStage)));
    v.push_back(integer("hsdp_shard", "hsdp-shard", "HSDP shard group",
                        "HSDP shard-group size: shard within groups of this many ranks, "
                        "replicate across them; 0 shards over all data x context ranks.",
                        0, maxGpus, SHARDSCOPE_FIELD(layout.hsdpShardSize, std::int64_t)));
    v.push_back(choice("offload", "offload", "CPU offload",
                       "What moves to host RAM: none, the optimizer (ZeRO-Offload), or the "
                       "optimizer and ZeRO-3 parameters (ZeRO-Infinity).",
                       offloadIds, parseEnum<Offload, parseOffload>,
                       SHARDSCOPE_FIELD(layout.offload, Offload)));
    v.push_back(choice("framework", "framework", "Framework",
                       "Whose allocations to follow: generic (the textbook accounting), "
                       "deepspeed, fsdp2 (PyTorch FSDP2 / torchtitan) or megatron "
                       "(Megatron-Core, distributed optimizer); docs/frameworks.md.",
                       frameworkIds(), parseEnum<Framework, parseFramework>,
                       SHARDSCOPE_FIELD(layout.framework, Framework)));
    v.push_back(choice("fsdp_reshard_after_forward", "fsdp-reshard-after-forward",
                       "FSDP re-shard after forward",
                       "FSDP2 (--framework fsdp2) under ZeRO-3: default re-shards each unit's "
                       "parameters after its forward except under pipeline parallelism, always "
                       "re-shards, never keeps them gathered until the backward (torchtitan's "
                       "fsdp_reshard_after_forward; docs/frameworks.md).",
                       fsdpReshardIds, parseEnum<FsdpReshard, parseFsdpReshard>,
                       SHARDSCOPE_FIELD(layout.fsdpReshard, FsdpReshard)));
    v.push_back(boolean("uneven_stages", "uneven-stages", "Allow uneven pipeline stages",
                        "Allow layers not divisible by pipeline stages (the first L mod p "
                        "stages take one more).",
                        true, SHARDSCOPE_FIELD(layout.allowUnevenStages, bool)));
    v.push_back(boolean("balanced_stages", "balanced-stages", "Balanced stages (Llama 3)",
                        "Count the embedding and the output head as a layer each: the first "
                        "and last pipeline stage hold one layer fewer (Llama 3; needs p "
                        "dividing L + 2).",
                        true, SHARDSCOPE_FIELD(layout.balancedStages, bool)));
    v.push_back(integer("gpus_per_node", "gpus-per-node", "GPUs per node",
                        "GPUs per node, for host RAM per node (a DGX H100 has 8).", 1,
                        maxGpusPerNode, SHARDSCOPE_FIELD(layout.gpusPerNode, std::int64_t)));
}

/// Training step: the settings table's rows, appended to `v`.
void trainingSettings(std::vector<Setting> &v)
{
    v.push_back(integer("mbs", "mbs", "Micro-batch size",
                        "Micro-batch size b, sequences per micro-batch.", 1, maxMicroBatchSize,
                        SHARDSCOPE_FIELD(training.microBatchSize, std::int64_t), "sequences"));
    v.push_back(integer("seq", "seq", "Sequence length", "Sequence length s, tokens.", 1,
                        maxSequenceLength, SHARDSCOPE_FIELD(training.sequenceLength, std::int64_t),
                        "tokens"));
    v.push_back(integer("microbatches", "microbatches", "Micro-batches m",
                        "Micro-batches per step m (gradient accumulation; alias "
                        "--grad-accum); global batch = m x b x d.",
                        1, maxMicroBatches, SHARDSCOPE_FIELD(training.microBatches, std::int64_t)));
    v.push_back(choice("recompute", "recompute", "Recomputation",
                       "Activation recomputation: none keeps every tensor; selective "
                       "recomputes the attention core (Korthikanti et al. 2022); full keeps "
                       "only each layer's input.",
                       recomputeIds, parseEnum<Recompute, parseRecompute>,
                       SHARDSCOPE_FIELD(training.recompute, Recompute)));
    v.push_back(boolean("flash_attention", "flash-attention", "FlashAttention",
                        "Fused attention: no stored s x s scores (Dao et al. 2022).", false,
                        SHARDSCOPE_FIELD(training.flashAttention, bool)));
    v.push_back(boolean("sequence_parallel", "sequence-parallel", "Sequence parallel",
                        "Megatron sequence parallelism with t > 1: norms and dropout split "
                        "t ways (Korthikanti et al. 2022).",
                        false, SHARDSCOPE_FIELD(training.sequenceParallel, bool)));
    v.push_back(boolean("fp32_logits", "fp32-logits", "fp32 logits",
                        "Logits kept in fp32 for the loss, else in the activation dtype.", false,
                        SHARDSCOPE_FIELD(training.fp32Logits, bool)));
    v.push_back(choice("loss_kernel", "loss", "Loss kernel",
                       "Cross-entropy kernel: fused (Megatron's vocab-parallel loss, one "
                       "logits buffer) or eager (PyTorch F.cross_entropy, two more "
                       "logits-sized tensors in its backward).",
                       lossIds, parseEnum<LossKernel, parseLossKernel>,
                       SHARDSCOPE_FIELD(training.lossKernel, LossKernel)));
    v.push_back(choice("norm_kernel", "norm-kernel", "Norm kernel",
                       "RMSNorm kernel: fused (Transformer Engine, Apex, Liger or torch.compile: "
                       "keeps its input) or eager (Hugging Face and torchtune RMSNorm in eager "
                       "PyTorch: keeps an fp32 copy of its input and, when its weight trains, "
                       "the normalized tensor). No effect on LayerNorm models or under "
                       "torch.compile.",
                       normIds, parseEnum<NormKernel, parseNormKernel>,
                       SHARDSCOPE_FIELD(training.normKernel, NormKernel)));
    v.push_back(boolean("dropout", "dropout", "Dropout masks",
                        "Dropout on: its masks are stored for the backward (GPT-3 trained "
                        "with dropout; Llama-style models use none).",
                        false, SHARDSCOPE_FIELD(training.dropout, bool)));
    Setting act = integer("activation_bytes", "activation-bytes", "Activation bytes",
                          "Bytes per activation element: 2 for bf16/fp16, 4 for fp32, 1 "
                          "for fp8.",
                          1, 8, SHARDSCOPE_FIELD(training.activationBytes, std::int64_t), "bytes");
    act.choices = activationByteValues;
    v.push_back(act);
    v.push_back(choice("schedule", "schedule", "Pipeline schedule",
                       "Pipeline schedule: gpipe, 1f1b, interleaved (1F1B with v chunks) or "
                       "zb-h1 (zero bubble; docs/pipeline.md).",
                       scheduleIds, parseEnum<PipelineSchedule, parsePipelineSchedule>,
                       SHARDSCOPE_FIELD(training.schedule, PipelineSchedule)));
    v.push_back(integer("chunks", "chunks", "Chunks v (interleaved)",
                        "Model chunks per stage v for interleaved 1F1B (2 when the schedule "
                        "is set without it).",
                        1, maxModelChunks, SHARDSCOPE_FIELD(training.chunks, int)));
}

/// Fine-tuning (LoRA / QLoRA): the settings table's rows, appended to `v`.
void fineTuningSettings(std::vector<Setting> &v)
{
    v.push_back(integer("lora_rank", "lora-rank", "LoRA rank",
                        "LoRA rank r: adapters of r x (in + out) per targeted matrix train, "
                        "the base is frozen (Hu et al. 2021); 0 trains every parameter.",
                        0, maxLoraRank, SHARDSCOPE_FIELD(fineTuning.loraRank, int)));
    v.push_back(integer("lora_alpha", "lora-alpha", "LoRA alpha",
                        "LoRA scaling alpha (the update is scaled by alpha / r; no memory "
                        "effect; PEFT's default 8, QLoRA's 16).",
                        1, maxLoraRank, SHARDSCOPE_FIELD(fineTuning.loraAlpha, int)));
    Setting targets =
        choice("lora_targets", "lora-targets", "LoRA targets",
               "Matrices LoRA adapts: a comma list of q, k, v, o, gate, up, "
               "down, or all-linear (PEFT target_modules; default q,v).",
               loraTargetIds(), parseLoraTargets, SHARDSCOPE_FIELD(fineTuning.loraTargets, int));
    targets.rangeText = "a comma list of q, k, v, o, gate, up, down, or all-linear";
    v.push_back(targets);
    v.push_back(choice("base_format", "base-format", "Frozen base format",
                       "Storage of the frozen LoRA base's matrices: bf16, fp16, int8 "
                       "(LLM.int8) or nf4 (QLoRA 4-bit NormalFloat, double quantization).",
                       baseFormatIds, parseEnum<BaseFormat, parseBaseFormat>,
                       SHARDSCOPE_FIELD(fineTuning.baseFormat, BaseFormat)));
    v.push_back(boolean("lora_dropout", "lora-dropout", "LoRA dropout",
                        "LoRA dropout above 0 (PEFT lora_dropout; QLoRA's runs 0.1 or "
                        "0.05): each adapted matrix keeps its dropout mask and dropped input "
                        "for the backward.",
                        false, SHARDSCOPE_FIELD(fineTuning.loraDropout, bool)));
    v.push_back(boolean("fp32_unquantized", "fp32-unquantized", "Unquantized base in fp32",
                        "PEFT prepare_model_for_kbit_training on an int8 or nf4 base: the "
                        "embedding, head and norms are cast to fp32.",
                        false, SHARDSCOPE_FIELD(fineTuning.fp32Unquantized, bool)));
}

/// Buffers and host: the settings table's rows, appended to `v`.
void bufferSettings(std::vector<Setting> &v)
{
    v.push_back(integer("cuda_context_bytes", "cuda-context-mib", "CUDA context",
                        "CUDA context, cuBLAS/NCCL workspaces and kernels per GPU.", 0,
                        maxBufferSize, SHARDSCOPE_FIELD(overheads.cudaContextBytes, std::int64_t),
                        "MiB", mib));
    v.push_back(integer("ddp_bucket_bytes", "ddp-bucket-mib", "DDP bucket",
                        "DDP gradient bucket (PyTorch DistributedDataParallel "
                        "bucket_cap_mb, 25 MiB).",
                        0, maxBufferSize, SHARDSCOPE_FIELD(overheads.ddpBucketBytes, std::int64_t),
                        "MiB", mib));
    v.push_back(integer("zero_bucket_elements", "zero-bucket-elements", "ZeRO reduce bucket",
                        "ZeRO-1/2 gradient reduce bucket in elements (DeepSpeed "
                        "reduce_bucket_size, 5e8).",
                        0, maxBufferSize,
                        SHARDSCOPE_FIELD(overheads.zeroBucketElements, std::int64_t), "elements"));
    v.push_back(integer("gathered_units", "gathered-units", "FSDP gathered units",
                        "ZeRO-3 / FSDP layers gathered at once: 1, or 2 with prefetch.", 1, 2,
                        SHARDSCOPE_FIELD(overheads.gatheredUnits, int)));
    v.push_back(
        integer("stage3_prefetch_elements", "stage3-prefetch-elements", "ZeRO-3 prefetch bucket",
                "DeepSpeed ZeRO-3 parameters fetched ahead of use, elements "
                "(stage3_prefetch_bucket_size, 5e7); deepspeed framework only.",
                0, maxBufferSize, SHARDSCOPE_FIELD(overheads.stage3PrefetchElements, std::int64_t),
                "elements"));
    v.push_back(integer(
        "stage3_max_live_parameters", "stage3-max-live-parameters", "ZeRO-3 max live parameters",
        "DeepSpeed ZeRO-3 cap on gathered parameters alive at once, elements "
        "(stage3_max_live_parameters, 1e9); deepspeed framework only.",
        0, maxBufferSize, SHARDSCOPE_FIELD(overheads.stage3MaxLiveParameters, std::int64_t),
        "elements"));
    v.push_back(integer("stage3_persistence_threshold", "stage3-persistence-threshold",
                        "ZeRO-3 persistence threshold",
                        "DeepSpeed ZeRO-3: parameters of at most this many elements stay "
                        "whole on every GPU (stage3_param_persistence_threshold, 1e5).",
                        0, maxBufferSize,
                        SHARDSCOPE_FIELD(overheads.stage3PersistenceThreshold, std::int64_t),
                        "elements"));
    v.push_back(integer(
        "stage3_max_reuse_distance", "stage3-max-reuse-distance", "ZeRO-3 max reuse distance",
        "DeepSpeed ZeRO-3: a gathered parameter used again within this many "
        "elements is kept, so the last blocks stay gathered from the forward "
        "into the backward (stage3_max_reuse_distance, 1e9).",
        0, maxBufferSize, SHARDSCOPE_FIELD(overheads.stage3MaxReuseDistance, std::int64_t),
        "elements"));
    v.push_back(integer("sub_group_elements", "sub-group-elements", "ZeRO-3 sub-group",
                        "DeepSpeed ZeRO-3 optimizer sub-group whose fp32 gradient exists at "
                        "once, elements (sub_group_size, 1e9).",
                        1, maxBufferSize,
                        SHARDSCOPE_FIELD(overheads.subGroupElements, std::int64_t), "elements"));
    v.push_back(integer("fragmentation_percent", "fragmentation-percent", "Fragmentation",
                        "Allocator fragmentation reserve, percent of everything else.", 0, 100,
                        SHARDSCOPE_FIELD(overheads.fragmentationPercent, int), "%"));
    v.push_back(integer("host_ram_bytes_per_node", "host-ram-gb", "Host RAM per node",
                        "Host RAM per node, for CPU offload (a DGX H100 has 2 TB).", 0,
                        maxHostRamBytes,
                        SHARDSCOPE_FIELD(overheads.hostRamBytesPerNode, std::int64_t), "GB", gb));
}

/// Cluster and speed (step time only; core/steptime.h): the settings table's rows, appended to `v`.
void clusterSettings(std::vector<Setting> &v)
{
    v.push_back(integer("nic_bytes_per_second", "nic-gbps", "NIC bandwidth",
                        "Bandwidth of one NIC, one direction, for collectives that leave "
                        "a node (InfiniBand NDR: 400 Gb/s).",
                        125'000'000, maxLinkBytesPerSecond,
                        SHARDSCOPE_FIELD(throughput.nicBytesPerSecond, std::int64_t), "Gb/s",
                        125'000'000));
    v.push_back(integer("nics_per_node", "nics-per-node", "NICs per node",
                        "NICs per node; a node's cross-node traffic spreads over all of "
                        "them (0: one per GPU, as in a DGX H100).",
                        0, maxNicsPerNode, SHARDSCOPE_FIELD(throughput.nicsPerNode, std::int64_t),
                        "NICs"));
    v.push_back(integer("host_link_bytes_per_second", "host-link-gbs", "Host link per GPU",
                        "Host link per GPU, one direction, for CPU offload traffic (PCIe "
                        "5.0 x16: 63 GB/s).",
                        gb, maxLinkBytesPerSecond,
                        SHARDSCOPE_FIELD(throughput.hostLinkBytesPerSecond, std::int64_t), "GB/s",
                        gb));
    v.push_back(integer("compute_efficiency_percent", "efficiency-percent", "Compute efficiency",
                        "Share of the GPU's dense peak matmuls sustain; 0: calibrated per GPU "
                        "family (A100 73%, H100 60%; docs/steptime.md).",
                        0, 100, SHARDSCOPE_FIELD(throughput.computeEfficiencyPercent, int), "%"));
    v.push_back(integer("nvlink_latency_ns", "nvlink-latency-ns", "NVLink step latency",
                        "Latency of one ring step inside a node (NCCL tuning model, about "
                        "1 us).",
                        0, maxLatencyNanoseconds,
                        SHARDSCOPE_FIELD(throughput.nvlinkLatencyNanoseconds, std::int64_t), "ns"));
    v.push_back(integer("nic_latency_ns", "nic-latency-ns", "NIC step latency",
                        "Latency of one ring step across nodes (NCCL tuning model, about "
                        "5 us).",
                        0, maxLatencyNanoseconds,
                        SHARDSCOPE_FIELD(throughput.nicLatencyNanoseconds, std::int64_t), "ns"));
    v.push_back(integer("price_cents_per_gpu_hour", "price-cents", "Price per GPU-hour",
                        "Rental price in US cents per GPU-hour for the cost to train; 0 "
                        "leaves the run unpriced.",
                        0, maxPriceCentsPerGpuHour,
                        SHARDSCOPE_FIELD(throughput.priceCentsPerGpuHour, std::int64_t), "cents"));
    v.push_back(integer("token_budget", "token-budget-b", "Token budget",
                        "Tokens to train for the time to train, in billions (Llama 3 405B: "
                        "15.6T, Dubey et al. 2024).",
                        0, maxTokenBudget, SHARDSCOPE_FIELD(throughput.tokenBudget, std::int64_t),
                        "B tokens", gb));
    v.push_back(boolean("model_states_only", "model-states-only", "Model states only",
                        "Count weights, gradients, master weights and optimizer states only, "
                        "as the ZeRO paper's Figure 1 does.",
                        true, SHARDSCOPE_FIELD(modelStatesOnly, bool)));
}

/// FP8 training and activation offload (docs/frameworks.md): the settings table's rows, appended to
/// `v`.
void fp8AndOffloadSettings(std::vector<Setting> &v)
{
    v.push_back(choice("fp8", "fp8", "FP8 training",
                       "FP8 linear layers: off, delayed (Transformer Engine delayed "
                       "scaling; torchao tensorwise with FP8 all-gather under fsdp2) or "
                       "mxfp8 (MXFP8 block scaling); docs/frameworks.md.",
                       fp8Ids, parseEnum<Fp8Recipe, parseFp8Recipe>,
                       SHARDSCOPE_FIELD(training.fp8, Fp8Recipe)));
    v.push_back(boolean("activation_offload", "activation-offload", "Activation offload",
                        "Offload saved activations to host RAM: all but the last two layers "
                        "(Transformer Engine CPU offload, Megatron-Core "
                        "--cpu-offloading-num-layers L - 2); needs p = 1.",
                        false, SHARDSCOPE_FIELD(training.activationOffload, bool)));
    v.push_back(boolean("paged_optimizer", "paged-optimizer", "Paged optimizer",
                        "Optimizer states in CUDA unified memory (bitsandbytes paged AdamW, "
                        "QLoRA): what does not fit on the GPU is paged to host RAM "
                        "(tensors of 100,000 elements or more).",
                        true, SHARDSCOPE_FIELD(training.pagedOptimizer, bool)));
}

/// The memory-saving switches frameworks expose (docs/frameworks.md "Memory-saving
/// switches"): the settings table's rows, appended to `v`.
void memorySavingSettings(std::vector<Setting> &v)
{
    v.push_back(integer("loss_chunks", "loss-chunks", "Loss chunks",
                        "Chunked cross-entropy: the loss runs over this many chunks, logits "
                        "kept in the activation dtype and upcast one chunk at a time "
                        "(torchtune CEWithChunkedOutputLoss: 8); 1 keeps whole logits.",
                        1, maxLossChunks, SHARDSCOPE_FIELD(training.lossChunks, int)));
    v.push_back(boolean("optimizer_in_backward", "optimizer-in-backward",
                        "Optimizer step in backward",
                        "Step each parameter as its gradient arrives and free it (torchtune "
                        "optimizer_in_bwd): one gradient, the largest, at a time. Needs m = 1, "
                        "no LoRA, no ZeRO over several ranks.",
                        true, SHARDSCOPE_FIELD(training.optimizerInBackward, bool)));
    v.push_back(boolean("use_cache", "use-cache", "use_cache while training",
                        "Hugging Face use_cache left on in training: each layer's DynamicCache "
                        "keeps its keys and values; extra only beside eager attention with "
                        "fewer KV heads than heads (docs/frameworks.md).",
                        true, SHARDSCOPE_FIELD(training.useCache, bool)));
    v.push_back(boolean("torch_compile", "torch-compile", "torch.compile",
                        "torch.compile on: fuses the loss's upcast and log-softmax and an eager "
                        "RMSNorm (both counted); the report states the measured range, 6.6% "
                        "to 15.0% lower peaks (TorchTitan, torchtune).",
                        true, SHARDSCOPE_FIELD(training.torchCompile, bool)));
}

const std::vector<Setting> &table()
{
    static const std::vector<Setting> t = [] {
        std::vector<Setting> v;
        layoutSettings(v);
        trainingSettings(v);
        fineTuningSettings(v);
        bufferSettings(v);
        clusterSettings(v);
        fp8AndOffloadSettings(v);
        memorySavingSettings(v);
        return v;
    }();
    return t;
}

#undef SHARDSCOPE_FIELD

std::string withSeparators(std::int64_t v)
{
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return v < 0 ? "-" + out : out;
}

std::string joinOr(std::span<const std::string_view> items)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            out += i + 1 == items.size() ? " or " : ", ";
        out += items[i];
    }
    return out;
}

} // namespace

std::span<const Setting> settings()
{
    return table();
}

const Setting *settingByKey(std::string_view key)
{
    for (const Setting &s : table())
        if (s.key == key)
            return &s;
    return nullptr;
}

const Setting *settingByFlag(std::string_view flag)
{
    for (const Setting &s : table())
        if (s.flag == flag)
            return &s;
    return nullptr;
}

std::string settingRangeText(const Setting &s)
{
    switch (s.kind) {
    case SettingKind::Boolean:
        return "on or off";
    case SettingKind::Choice:
        if (!s.rangeText.empty())
            return std::string(s.rangeText);
        return "one of: " + joinOr(s.choices);
    case SettingKind::Integer:
        break;
    }
    if (!s.choices.empty())
        return joinOr(s.choices);
    return withSeparators(s.displayMin()) + " to " + withSeparators(s.displayMax());
}

std::string checkSettingValue(const Setting &s, std::int64_t value)
{
    bool ok = value >= s.min && value <= s.max;
    if (ok && s.kind == SettingKind::Integer && !s.choices.empty())
        ok =
            std::find(s.choices.begin(), s.choices.end(), std::to_string(value)) != s.choices.end();
    if (ok)
        return {};
    switch (s.kind) {
    case SettingKind::Boolean:
        return "must be on or off (got " + std::to_string(value) + ")";
    case SettingKind::Choice:
        return "must be " + settingRangeText(s) + " (got " + std::to_string(value) + ")";
    case SettingKind::Integer:
        break;
    }
    if (!s.choices.empty())
        return "must be " + settingRangeText(s) + " (got " + std::to_string(value) + ")";
    // In storage units (bytes, elements), as a scenario file writes them.
    return "must be a whole number from " + std::to_string(s.min) + " to " + std::to_string(s.max) +
           " (got " + std::to_string(value) + ")";
}

std::optional<std::int64_t> parseSettingText(const Setting &s, std::string_view text,
                                             std::string *error)
{
    std::string quoted; // built by append: GCC 12's -O3 -Wrestrict misfires on "'" + text
    quoted.append("'").append(text).append("'");
    switch (s.kind) {
    case SettingKind::Boolean: {
        const std::string lower = lowered(text);
        if (lower == "on")
            return 1;
        if (lower == "off")
            return 0;
        *error = "must be on or off (got " + quoted + ")";
        return std::nullopt;
    }
    case SettingKind::Choice: {
        const std::string lower = lowered(text);
        if (const auto v = s.parseChoice(lower))
            return *v;
        const std::string noun = lowered(s.label);
        std::string known(s.rangeText);
        if (known.empty())
            for (std::string_view c : s.choices)
                known += (known.empty() ? "" : ", ") + std::string(c);
        *error = "unknown " + noun + " " + quoted + " (known: " + known + ")";
        return std::nullopt;
    }
    case SettingKind::Integer:
        break;
    }
    const std::optional<std::int64_t> parsed = wholeNumber(text);
    const bool whole = parsed.has_value();
    const std::int64_t v = parsed.value_or(0);
    const std::int64_t lo = s.displayMin(), hi = s.displayMax();
    if (!whole || v < lo || v > hi ||
        (!s.choices.empty() && checkSettingValue(s, v * s.scale) != "")) {
        if (!s.choices.empty())
            *error = "must be " + settingRangeText(s) + " (got " + quoted + ")";
        else
            *error = "must be a whole number from " + std::to_string(lo) + " to " +
                     std::to_string(hi) + (s.displayUnit.empty() ? "" : " ") +
                     std::string(s.displayUnit) + " (got " + quoted + ")";
        return std::nullopt;
    }
    return v * s.scale; // |v| <= max / scale, so no overflow
}

std::string settingText(const Setting &s, std::int64_t value)
{
    switch (s.kind) {
    case SettingKind::Boolean:
        return value ? "on" : "off";
    case SettingKind::Choice:
        return value >= 0 && value < std::int64_t(s.choices.size())
                   ? std::string(s.choices[std::size_t(value)])
                   : std::to_string(value);
    case SettingKind::Integer:
        break;
    }
    if (s.scale != 1 && value % s.scale == 0)
        return std::to_string(value / s.scale);
    return std::to_string(value);
}

int defaultChunks(PipelineSchedule s)
{
    return s == PipelineSchedule::Interleaved1F1B ? 2 : 1;
}

void applySettings(Scenario &s, std::span<const SettingValue> values)
{
    bool schedule = false, chunks = false;
    for (const SettingValue &v : values) {
        v.setting->set(s, v.value);
        schedule = schedule || v.setting->key == "schedule";
        chunks = chunks || v.setting->key == "chunks";
    }
    if (schedule && !chunks)
        s.training.chunks = defaultChunks(s.training.schedule);
}

} // namespace shardscope
