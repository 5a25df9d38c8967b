#pragma once

// The checks behind validate() (docs/architecture.md "Validation"): impossible layouts and
// out-of-range settings are refused with a one-line reason naming the input, never
// rounded. Each function returns true when its inputs pass, else false with the reason
// in `error`, which is built only on a refusal: a valid scenario allocates nothing. The
// estimate runs them in this order, the activation figures' own check between
// checkScenario() and checkOverheads().

#include "estimate.h"
#include "intmath.h"
#include "schedule.h"

#include <string>
#include <utility>

namespace shardscope::stages {

/// Writes a refusal's `reason` into `error` and returns false.
template <typename Reason> bool refuse(std::string &error, Reason &&reason)
{
    error = std::forward<Reason>(reason);
    return false;
}

/// Decimal text of `v` (a refusal's numbers).
inline std::string str(std::int64_t v)
{
    return std::to_string(v);
}

/// A recipe's byte counts are each 0 .. 64 and add up to at least one byte per parameter
/// (validateRecipe() is empty exactly then).
inline bool recipeInRange(const Recipe &r)
{
    // 1 or 0 per field, and'ed without a branch for each.
    const auto inRange = [](std::int64_t v) { return unsigned(v >= 0 && v <= 64); };
    return (inRange(r.weightBytes) & inRange(r.gradientBytes) & inRange(r.masterWeightBytes) &
            inRange(r.optimizerBytes)) != 0 &&
           r.totalBytesPerParameter() > 0;
}

/// What validate() says of the FP8 and activation-offload settings (empty when valid).
inline std::string checkFp8AndOffload(const Scenario &s, bool hasArchitecture)
{
    const Training &t = s.training;
    if (t.fp8 != Fp8Recipe::Off) {
        if (!hasArchitecture)
            return "fp8 needs the model's architecture (a plain parameter count has no linear "
                   "layers)";
        if (s.fineTuning.enabled())
            return "fp8 with LoRA is not modelled: turn fp8 off or the LoRA rank to 0";
    }
    if (t.activationOffload) {
        if (!hasArchitecture)
            return "activation offload needs the model's architecture (a plain parameter "
                   "count has no layers)";
        // megatron/core/transformer/transformer_config.py lines 1891-1894.
        if (s.layout.pipelineParallel > 1)
            return "activation offload is modelled without pipeline parallelism (p = 1), as "
                   "Megatron-Core allows it";
    }
    return {};
}

/// What validate() says of an optimizer step in backward (empty when valid): it is
/// modelled as torchtune's optimizer_in_bwd runs it, on a model with layer shapes, one
/// micro-batch per step (recipes/full_finetune_single_device.py lines 153-156 at
/// 1814feb: "Gradient accumulation is not supported with optimizer in bwd"), every
/// parameter trained (torchtune's LoRA recipes have no optimizer_in_bwd), no ZeRO
/// sharding over more than one rank and no CPU offload.
inline std::string checkOptimizerInBackward(bool hasArchitecture, const Scenario &s)
{
    const Layout &l = s.layout;
    if (!hasArchitecture)
        return "optimizer step in backward needs the model's architecture (its largest "
               "parameter)";
    if (s.training.microBatches > 1)
        return "optimizer step in backward needs one micro-batch per step (torchtune refuses "
               "gradient accumulation with optimizer_in_bwd)";
    if (s.fineTuning.enabled())
        return "optimizer step in backward with LoRA is not modelled: turn one of them off";
    if (l.zeroStage != ZeroStage::Ddp && l.dataParallel() * l.contextParallel > 1)
        return "optimizer step in backward is modelled without ZeRO sharding: use DDP or one "
               "data-parallel rank";
    if (l.offload != Offload::None)
        return "optimizer step in backward with CPU offload is not modelled";
    return {};
}

/// The GPU count and the parallel degrees: each in range, t x p x c dividing the GPUs,
/// and the layers dividing into the p stages (evenly, unevenly when allowed, or
/// balanced: p dividing L + 2). Tensor and pipeline parallelism need an architecture.
[[gnu::always_inline]] inline bool checkDegrees(const std::optional<Architecture> &arch,
                                                const Layout &l, std::string &error)
{
    if (l.gpus < 1)
        return refuse(error, "gpus must be at least 1 (got " + str(l.gpus) + ")");
    if (l.gpus > maxGpus)
        return refuse(error, "gpus must be at most " + str(maxGpus) + " (got " + str(l.gpus) + ")");
    // 1 or 0 per degree: all four in one branch; the first bad one is named below it.
    const auto degreeInRange = [](int v) { return unsigned(v >= 1 && v <= maxParallelDegree); };
    if ((degreeInRange(l.tensorParallel) & degreeInRange(l.pipelineParallel) &
         degreeInRange(l.contextParallel) & degreeInRange(l.expertParallel)) == 0) [[unlikely]] {
        const std::pair<const char *, int> degrees[] = {{"tensor parallel", l.tensorParallel},
                                                        {"pipeline parallel", l.pipelineParallel},
                                                        {"context parallel", l.contextParallel},
                                                        {"expert parallel", l.expertParallel}};
        for (const auto &[name, v] : degrees)
            if (!degreeInRange(v))
                return refuse(error, std::string(name) + " size must be between 1 and " +
                                         str(maxParallelDegree) + " (got " + str(v) + ")");
    }
    if (remainder(l.gpus, l.modelParallel()) != 0)
        return refuse(error, "gpus (" + str(l.gpus) + ") is not divisible by t x p x c (" +
                                 str(l.tensorParallel) + " x " + str(l.pipelineParallel) + " x " +
                                 str(l.contextParallel) + " = " + str(l.modelParallel()) + ")");
    if (!arch && (l.tensorParallel > 1 || l.pipelineParallel > 1))
        return refuse(
            error, "tensor and pipeline parallelism need an architecture: a plain parameter count "
                   "cannot be split by layer");
    if (arch) {
        if (l.pipelineParallel > arch->layers)
            return refuse(error, "pipeline stages (" + str(l.pipelineParallel) +
                                     ") exceed layers (" + str(arch->layers) + ")");
        if (l.balancedStages) {
            if (l.pipelineParallel > 1 &&
                remainder(std::int64_t(arch->layers) + 2, l.pipelineParallel) != 0)
                return refuse(error, "balanced stages need p dividing layers + 2 (" +
                                         str(std::int64_t(arch->layers) + 2) +
                                         "; got p = " + str(l.pipelineParallel) + ")");
        } else if (remainder(arch->layers, l.pipelineParallel) != 0 && !l.allowUnevenStages)
            return refuse(
                error, "layers (" + str(arch->layers) + ") are not divisible by pipeline stages (" +
                           str(l.pipelineParallel) + "); allow uneven stages or change p");
    }
    return true;
}

/// How model states are sharded: an HSDP shard size dividing the d x c ranks (and not
/// with DDP), expert parallelism on a MoE model dividing its experts, the d x c ranks
/// and the shard size, and Megatron-Core's distributed optimizer (ZeRO-1 at most).
[[gnu::always_inline]] inline bool checkSharding(const std::optional<Architecture> &arch,
                                                 const Layout &l, std::string &error)
{
    // d x c; the degrees are positive here, so dataParallel() is gpus / (t p c).
    const std::int64_t dc = quotient(l.gpus, l.modelParallel()) * l.contextParallel;
    if (l.hsdpShardSize < 0 || (l.hsdpShardSize > 0 && remainder(dc, l.hsdpShardSize) != 0))
        return refuse(error, "HSDP shard size (" + str(l.hsdpShardSize) +
                                 ") must divide the data x context parallel ranks (" + str(dc) +
                                 ")");
    if (l.hsdpShardSize > 0 && l.zeroStage == ZeroStage::Ddp)
        return refuse(error, "HSDP shards model states: pick ZeRO-1, 2 or 3");
    if (const int e = l.expertParallel; e > 1) {
        // Megatron-Core carves the expert-parallel group out of the data (and, folded,
        // context) parallel ranks: expert data parallel = world / (t x e x p).
        if (!arch || !arch->isMoe())
            return refuse(error, "expert parallelism needs a mixture-of-experts model");
        if (remainder(arch->experts, e) != 0)
            return refuse(error, "experts (" + str(arch->experts) +
                                     ") are not divisible by expert parallel size (" + str(e) +
                                     ")");
        if (remainder(dc, e) != 0)
            return refuse(error, "expert parallel size (" + str(e) +
                                     ") must divide the data x context parallel ranks (" + str(dc) +
                                     ")");
        if (l.hsdpShardSize > 0 && remainder(l.hsdpShardSize, e) != 0)
            return refuse(error, "expert parallel size (" + str(e) +
                                     ") must divide the HSDP shard size (" + str(l.hsdpShardSize) +
                                     ")");
    }
    if (const FrameworkProfile &f = frameworkProfile(l.framework); l.zeroStage > f.highestZeroStage)
        return refuse(error, std::string(f.id) + ": " + std::string(f.zeroStageRefusal));
    return true;
}

/// LoRA (alpha, rank, targets; dense models with ordinary attention at t = 1), CPU
/// offload (ZeRO-1 or higher; parameters with ZeRO-3 only), GPUs per node, FP8 and
/// activation offload.
[[gnu::always_inline]] inline bool
checkFineTuningAndOffload(const std::optional<Architecture> &arch, const Scenario &s,
                          std::string &error)
{
    const Layout &l = s.layout;
    if (s.fineTuning.loraAlpha < 1 || s.fineTuning.loraAlpha > maxLoraRank)
        return refuse(error, "LoRA alpha must be between 1 and " + str(maxLoraRank) + " (got " +
                                 str(s.fineTuning.loraAlpha) + ")");
    if (const FineTuning &f = s.fineTuning; f.loraRank != 0 || f.baseFormat != BaseFormat::Bf16) {
        if (f.loraRank < 0 || f.loraRank > maxLoraRank)
            return refuse(error, "LoRA rank must be between 0 and " + str(maxLoraRank) + " (got " +
                                     str(f.loraRank) + ")");
        if (f.loraRank == 0)
            return refuse(error, "base format " + std::string(baseFormatId(f.baseFormat)) +
                                     " is for a frozen base: set a LoRA rank");
        if (f.loraTargets <= 0 || f.loraTargets > LoraAllLinear)
            return refuse(error,
                          "LoRA targets must name at least one of q, k, v, o, gate, up, down");
        if (!arch)
            return refuse(error,
                          "LoRA needs the model's architecture (a plain parameter count has no "
                          "matrices to adapt)");
        if (arch->isMoe() || arch->usesLatentAttention())
            return refuse(error, "LoRA is modelled for dense models with ordinary attention only");
        if (l.tensorParallel > 1)
            return refuse(error, "LoRA is modelled without tensor parallelism (t = 1)");
        const char *narrowest = "";
        if (const std::int64_t limit = loraRankLimit(*arch, f.loraTargets, &narrowest);
            f.loraRank > limit)
            return refuse(error, "LoRA rank (" + str(f.loraRank) +
                                     ") exceeds the narrowest targeted matrix (" + narrowest +
                                     ", " + str(limit) + " wide): at most " + str(limit));
    }
    if (l.offload != Offload::None && l.zeroStage == ZeroStage::Ddp)
        return refuse(error, "CPU offload needs ZeRO stage 1 or higher (DeepSpeed ZeRO-Offload)");
    if (l.offload == Offload::OptimizerAndParams && l.zeroStage != ZeroStage::Zero3)
        return refuse(
            error,
            "offloading parameters needs ZeRO-3 / FSDP (only sharded weights can live on the "
            "host)");
    if (l.gpusPerNode < 1 || l.gpusPerNode > maxGpusPerNode)
        return refuse(error, "GPUs per node must be between 1 and " + str(maxGpusPerNode) +
                                 " (got " + str(l.gpusPerNode) + ")");
    if (s.training.fp8 != Fp8Recipe::Off || s.training.activationOffload) [[unlikely]]
        if (auto e = checkFp8AndOffload(s, arch.has_value()); !e.empty())
            return refuse(error, e);
    return true;
}

/// The training settings: micro-batch size, sequence length, micro-batches and chunks in
/// range, and with p > 1 a schedule that validateSchedule() accepts, whose v chunks
/// divide every stage's layers.
[[gnu::always_inline]] inline bool checkTraining(const std::optional<Architecture> &arch,
                                                 const Scenario &s, std::string &error)
{
    const Layout &l = s.layout;
    const Training &t = s.training;
    if (t.microBatchSize < 1 || t.microBatchSize > maxMicroBatchSize)
        return refuse(error, "micro-batch size must be between 1 and " + str(maxMicroBatchSize) +
                                 " (got " + str(t.microBatchSize) + ")");
    if (t.sequenceLength < 1 || t.sequenceLength > maxSequenceLength)
        return refuse(error, "sequence length must be between 1 and " + str(maxSequenceLength) +
                                 " (got " + str(t.sequenceLength) + ")");
    if (t.microBatches < 1 || t.microBatches > maxMicroBatches)
        return refuse(error, "micro-batches per step must be between 1 and " +
                                 str(maxMicroBatches) + " (got " + str(t.microBatches) + ")");
    if (t.chunks < 1 || t.chunks > maxModelChunks)
        return refuse(error, "chunks must be between 1 and " + str(maxModelChunks) + " (got " +
                                 str(t.chunks) + ")");
    if (t.lossChunks < 1 || t.lossChunks > maxLossChunks)
        return refuse(error, "loss chunks must be between 1 and " + str(maxLossChunks) + " (got " +
                                 str(t.lossChunks) + ")");
    if (t.optimizerInBackward) [[unlikely]]
        if (auto e = checkOptimizerInBackward(arch.has_value(), s); !e.empty())
            return refuse(error, e);
    if (l.pipelineParallel > 1) {
        ScheduleParams sp;
        sp.schedule = t.schedule;
        sp.stages = l.pipelineParallel;
        sp.microBatches = int(t.microBatches);
        sp.chunks = t.chunks;
        if (auto e = validateSchedule(sp); !e.empty())
            return refuse(error, "pipeline: " + e);
        const int v = scheduleParams(s).chunks;
        if (arch && l.balancedStages && l.pipelineParallel > 1) {
            // Every full stage's k = (L + 2) / p layers split into v chunks; the two short
            // stages lose one layer from their end chunk.
            const std::int64_t k = quotient(std::int64_t(arch->layers) + 2, l.pipelineParallel);
            if (remainder(k, v) != 0)
                return refuse(error, "balanced stages of " + str(k) +
                                         " layer slots are not divisible by "
                                         "chunks (" +
                                         str(v) + ")");
        } else if (arch) {
            // Stage by stage from 0, as stageLayerCount places them: the first L % p
            // stages hold L / p + 1 layers, the others L / p; the first stage whose
            // count v does not divide is named.
            const int base = int(quotient(arch->layers, l.pipelineParallel));
            const int extra = int(remainder(arch->layers, l.pipelineParallel));
            for (const int layers : {extra > 0 ? base + 1 : base, base})
                if (remainder(layers, v) != 0)
                    return refuse(error, "layers per stage (" + str(layers) +
                                             ") are not divisible by chunks (" + str(v) + ")");
        }
    }
    return true;
}

/// Every check before the activation figures', in validate()'s order: the prepared
/// model's own reason, the recipe, checkDegrees, checkSharding,
/// checkFineTuningAndOffload and checkTraining.
[[gnu::always_inline]] inline bool checkScenario(const PreparedModel &prepared, const Scenario &s,
                                                 std::string &error)
{
    // The model's own checks (architecture, then the count bounds) come first.
    if (!prepared.error.empty()) [[unlikely]]
        return refuse(error, prepared.error);
    const auto &arch = prepared.architecture;
    if (!recipeInRange(s.recipe)) [[unlikely]]
        return refuse(error, "recipe: " + validateRecipe(s.recipe));
    return checkDegrees(arch, s.layout, error) && checkSharding(arch, s.layout, error) &&
           checkFineTuningAndOffload(arch, s, error) && checkTraining(arch, s, error);
}

/// The buffers (Overheads) and the GPU's capacity, the checks after the activation
/// figures'.
[[gnu::always_inline]] inline bool checkOverheads(const Scenario &s, std::string &error)
{
    const Overheads &o = s.overheads;
    if (o.cudaContextBytes < 0 || o.cudaContextBytes > maxBufferSize)
        return refuse(error, "CUDA context bytes must be between 0 and 1e12");
    if (o.ddpBucketBytes < 0 || o.ddpBucketBytes > maxBufferSize)
        return refuse(error, "DDP bucket bytes must be between 0 and 1e12");
    if (o.zeroBucketElements < 0 || o.zeroBucketElements > maxBufferSize)
        return refuse(error, "ZeRO bucket elements must be between 0 and 1e12");
    if (o.gatheredUnits < 1 || o.gatheredUnits > 2)
        return refuse(error,
                      "gathered FSDP units must be 1 or 2 (got " + str(o.gatheredUnits) + ")");
    if (o.fragmentationPercent < 0 || o.fragmentationPercent > 100)
        return refuse(error, "fragmentation reserve must be between 0 and 100 percent (got " +
                                 str(o.fragmentationPercent) + ")");
    if (o.stage3PrefetchElements < 0 || o.stage3PrefetchElements > maxBufferSize)
        return refuse(error, "ZeRO-3 prefetch bucket elements must be between 0 and 1e12");
    if (o.stage3MaxLiveParameters < 0 || o.stage3MaxLiveParameters > maxBufferSize)
        return refuse(error, "ZeRO-3 max live parameters must be between 0 and 1e12");
    if (o.stage3PersistenceThreshold < 0 || o.stage3PersistenceThreshold > maxBufferSize)
        return refuse(error, "ZeRO-3 persistence threshold must be between 0 and 1e12");
    if (o.stage3MaxReuseDistance < 0 || o.stage3MaxReuseDistance > maxBufferSize)
        return refuse(error, "ZeRO-3 max reuse distance must be between 0 and 1e12");
    if (o.subGroupElements < 1 || o.subGroupElements > maxBufferSize)
        return refuse(error, "ZeRO sub-group elements must be between 1 and 1e12");
    if (o.hostRamBytesPerNode < 0 || o.hostRamBytesPerNode > maxHostRamBytes)
        return refuse(error,
                      "host RAM per node must be between 0 and " + str(maxHostRamBytes) + " bytes");
    if (s.gpu.capacityBytes <= 0)
        return refuse(error, "gpu capacity must be positive");
    return true;
}

} // namespace shardscope::stages
