#pragma once

// Stage 2, model states (docs/architecture.md "Model states"): the weights, gradients,
// master weights and optimizer states one GPU of a pipeline stage holds, by ZeRO stage
// (Rajbhandari et al. 2020, section 5 and Figure 1), with a framework profile's fp32
// gradients (docs/frameworks.md), LoRA's frozen base, CPU offload (host.h) and
// Transformer Engine's FP8 weight copies.

#include "context.h"
#include "host.h"
#include "memoryreport.h"
#include "stageplan.h"

#include <algorithm>

namespace shardscope::stages {

/// The ZeRO table (Rajbhandari et al. 2020, Figure 1) for one GPU: `psi` parameters
/// before sharding, `shard` of them after (ceil(psi / D) over the shard group D), the
/// recipe's bytes per parameter w, g, master m and optimizer o:
///   DDP     psi (w + g + m + o)
///   ZeRO-1  psi (w + g) + shard (m + o)
///   ZeRO-2  psi w + shard (g + m + o)
///   ZeRO-3  shard (w + g + m + o)
/// Bytes; activations and buffers are left 0. A 70B model with mixed-precision Adam
/// (2 + 2 + 4 + 8 = 16 bytes per parameter) holds 1,120 GB per GPU under DDP.
inline ComponentBytes zeroStates(std::int64_t psi, std::int64_t shard, ZeroStage z, const Recipe &r)
{
    ComponentBytes b;
    b.weights = (z == ZeroStage::Zero3 ? shard : psi) * r.weightBytes;
    b.gradients = (z >= ZeroStage::Zero2 ? shard : psi) * r.gradientBytes;
    b.masterWeights = (z >= ZeroStage::Zero1 ? shard : psi) * r.masterWeightBytes;
    b.optimizerStates = (z >= ZeroStage::Zero1 ? shard : psi) * r.optimizerBytes;
    return b;
}

/// What trains on one GPU of a stage, and what it holds frozen.
struct Trained
{
    std::int64_t perGpu = 0; ///< parameters before sharding (psi of zeroStates)
    std::int64_t shard = 0;  ///< their ZeRO shard
    /// The frozen base's weights under LoRA, bytes (sharded under ZeRO-3); else 0.
    std::int64_t frozenBytes = 0;
};

/// Bytes per parameter of a frozen LoRA base's parameters that are not block matrices
/// (embedding, head, norms): 2 (bf16), or 4 when PEFT's prepare_model_for_kbit_training
/// casts them to fp32 on an int8 or nf4 base (FineTuning::fp32Unquantized;
/// src/peft/utils/other.py lines 204-209: "cast all non INT8 parameters to fp32").
inline std::int64_t unquantizedBaseBytes(const FineTuning &ft)
{
    const bool kbit = ft.baseFormat == BaseFormat::Int8 || ft.baseFormat == BaseFormat::Nf4;
    return kbit && ft.fp32Unquantized ? 4 : 2;
}

/// What trains on stage `g`: every parameter, sharded over the shard group (routed
/// experts over the expert shard group), or with LoRA the stage's adapters, whose states
/// follow the recipe; the frozen base then adds its weights only (block matrices in the
/// base format, norms, embedding and head in bf16, or fp32 under
/// unquantizedBaseBytes()), sharded under ZeRO-3 (docs/frameworks.md "Fine-tuning").
[[gnu::always_inline]] inline Trained trainedParameters(const EstimateContext &x,
                                                        const StageShare &share, const GpuGroup &g)
{
    const std::int64_t psi = share.dense + share.experts;
    Trained t{psi,
              shardElements(share.dense, x.shardGroup) +
                  (share.experts > 0 ? shardElements(share.experts, x.expertShardGroup) : 0),
              0};
    if (x.lora) {
        t.perGpu = g.layerCount * x.loraPerBlock;
        t.shard = shardElements(t.perGpu, x.shardGroup);
        const std::int64_t base =
            g.layerCount * x.frozen.linearBytes +
            (psi - g.layerCount * x.frozen.linearElements) * unquantizedBaseBytes(x.s.fineTuning);
        t.frozenBytes =
            x.z == ZeroStage::Zero3 && !x.wholeWeights ? shardElements(base, x.shardGroup) : base;
    }
    return t;
}

/// A framework profile's gradients in place of the recipe's (docs/frameworks.md), when
/// the recipe's gradients are narrower than fp32 and it keeps master weights: DeepSpeed
/// ZeRO keeps an fp32 copy of its gradient partition for the optimizer, ZeRO-1/2 the
/// whole shard (stage_1_and_2.py, the .grad of single_partition_of_fp32_groups), ZeRO-3
/// one sub-group's at a time (stage3.py, fp32_partitioned_groups_flat[sub_group_id].grad);
/// Megatron-Core keeps fp32 main gradients in the full grad buffer on every data-parallel
/// rank (param_and_grad_buffer.py; theoretical_memory_usage.py's 18 or 6 + 12 / d).
/// `gradients` is the recipe's figure, bytes.
inline void frameworkGradients(Fp32GradientPolicy policy, ZeroStage z, const Recipe &r,
                               const Trained &t, std::int64_t subGroupElements,
                               std::int64_t &gradients)
{
    if (policy == Fp32GradientPolicy::RecipeOnly || r.gradientBytes >= 4 ||
        r.masterWeightBytes <= 0)
        return;
    if (policy == Fp32GradientPolicy::PartitionCopy && z != ZeroStage::Ddp)
        gradients += (z == ZeroStage::Zero3 ? std::min(t.shard, subGroupElements) : t.shard) * 4;
    else if (policy == Fp32GradientPolicy::FullMainGradBuffer)
        gradients = t.perGpu * 4;
}

/// Bytes per gradient element in FSDP2's reduce dtype: fp32 under a mixed-precision
/// recipe (one with master weights; torchtitan's mixed_precision_reduce "float32",
/// torchtitan/config/configs.py), else the recipe's gradient bytes.
inline std::int64_t reduceGradientBytes(const Recipe &r)
{
    return r.masterWeightBytes > 0 ? std::max<std::int64_t>(r.gradientBytes, 4) : r.gradientBytes;
}

/// FSDP2's gathered state on one GPU (EstimateContext::wholeWeights, wholeGradients;
/// FrameworkProfile::fsdp2Resharding), on the GPU whatever CPU offload keeps on the host:
/// whole weights are the `perGpu` parameters in the recipe's weight bytes (the gathered
/// parameters a unit computes with, kept), whole gradients the `perGpu` unsharded
/// gradients accumulated in the reduce dtype (reduceGradientBytes()). Under pipeline
/// parallelism both hold: a 70B stage of 20 layers on t 8 holds about 2 + 4 bytes per
/// parameter whole and 12 / d sharded, where ZeRO-3 alone would hold 16 / d.
inline void wholeStates(bool wholeWeights, bool wholeGradients, std::int64_t perGpu,
                        const Recipe &r, ComponentBytes &b)
{
    if (wholeWeights)
        b.weights = perGpu * r.weightBytes;
    if (wholeGradients)
        b.gradients = perGpu * reduceGradientBytes(r);
}

/// Linear-layer weight elements of one prepared block on one GPU of t tensor ranks
/// holding `routedExperts` / e routed experts: the matrices split t ways (with their
/// column-parallel biases), without norms, replicated biases and the router.
inline std::int64_t linearElementsPerRank(const PreparedModel::Block &b, int routedExperts, int t,
                                          int e)
{
    return shardElements(b.split, t) +
           (routedExperts == 0 ? 0 : quotient(routedExperts, e) * shardElements(b.expertSplit, t));
}

/// Transformer Engine's FP8 weight copies of `blocks` identical blocks of `linear`
/// linear elements each on one GPU, bytes: the row-wise copy and the column-wise one
/// (delayed scaling on Hopper keeps the transpose, float8_tensor.py lines 423-427;
/// MXFP8 keeps both directions with their scales, mxfp8_tensor.py lines 83-93), 2 x
/// fp8TensorBytes per block. The copy is made for the weights a GPU computes with, so
/// it is whole under every ZeRO stage: cached across micro-batches when Megatron-Core
/// passes is_first_microbatch (module/linear.py lines 1958-1960, 2068-2071), else saved
/// for the backward with each layer (wt_save, line 643) until the stage's backward.
inline std::int64_t fp8WeightCopyBytes(Fp8Recipe r, std::int64_t blocks, std::int64_t linear)
{
    return blocks * 2 * fp8TensorBytes(r, linear);
}

/// The model-states stage's per-scenario part, FP8 (docs/frameworks.md "FP8 training"):
/// linear elements per block on one GPU, kind 0 dense, kind 1 MoE, for Transformer
/// Engine's weight copies, and the ones torchao's FP8 all-gather converts (the
/// nn.Linear modules only: routed experts are grouped GEMMs).
[[gnu::always_inline]] inline void planFp8Weights(EstimateContext &x)
{
    if (!x.teFp8 && !x.fsdpFloat8) [[likely]]
        return;
    if (x.denseBlocks > 0) {
        x.fp8Linear[0] = linearElementsPerRank(x.prepared.dense, 0, x.t, x.e);
        x.float8Gathered[0] = shardElements(x.prepared.dense.split, x.t);
    }
    if (x.moe) {
        x.fp8Linear[1] = linearElementsPerRank(x.prepared.moe, x.arch->experts, x.t, x.e);
        x.float8Gathered[1] = shardElements(x.prepared.moe.split, x.t);
    }
}

/// The model-states stage's per-scenario part, fine-tuning: the report's trainable
/// parameters (every one, or the LoRA adapters of all layers), and under LoRA the
/// adapters per block, their pageable part and the frozen block's bytes. validate()
/// allows LoRA for dense blocks with t = 1 only.
[[gnu::always_inline]] inline void planFineTuning(EstimateContext &x, MemoryReport &report)
{
    report.trainableParameters = x.prepared.parameters;
    if (!x.lora)
        return;
    const FineTuning &ft = x.s.fineTuning;
    const Architecture &a = *x.arch;
    x.loraPerBlock = loraLayerParameterCount(a, ft.loraRank, ft.loraTargets);
    if (x.pagedOptimizer) [[unlikely]]
        x.pageablePerBlock =
            loraLayerParameterCount(a, ft.loraRank, ft.loraTargets, pagedOptimizerMinElements);
    x.frozen = frozenBlock(a, ft.baseFormat);
    report.trainableParameters = std::int64_t(a.layers) * x.loraPerBlock;
}

/// The largest parameter tensor one GPU of stage `g` trains, elements: the widest block
/// matrix split t ways (largestLinearElements(), and one routed expert's matrix of a MoE
/// model), or on the first and last stage the vocab-parallel embedding or head.
inline std::int64_t largestParameterElements(const EstimateContext &x, const GpuGroup &g)
{
    const Architecture &a = *x.arch;
    const auto split = [&](std::int64_t n) { return quotient(n + x.t - 1, x.t); };
    std::int64_t largest = split(largestLinearElements(a));
    if (a.isMoe())
        largest = std::max(largest, split(a.effectiveExpertFfn() * a.hidden));
    if (g.holdsEmbedding || g.holdsOutputHead)
        largest = std::max(largest, x.vocabPerRank);
    return largest;
}

/// Gradients under an optimizer step in backward (torchtune optimizer_in_bwd,
/// torchtune/training/memory.py lines 236-242 at 1814feb: a post-accumulate-grad hook
/// per parameter runs its optimizer's step() and zero_grad(), which frees the
/// gradient): at most one parameter's gradient is alive at once, the largest
/// (largestParameterElements()) at the bytes per element the gradients had, never more
/// than `gradients` itself. Llama 3.2 3B (tied 128,256 x 3,072 embedding), bf16:
/// 394,002,432 x 2 = 788,004,864 bytes. Validation refuses it with more than one
/// micro-batch, LoRA, ZeRO over several ranks and CPU offload
/// (checkOptimizerInBackward()).
inline std::int64_t gradientsInBackward(std::int64_t gradients, std::int64_t perGpu,
                                        std::int64_t largest)
{
    if (perGpu <= 0)
        return gradients;
    const std::int64_t bytesPerElement = quotient(gradients + perGpu - 1, perGpu);
    return std::min(gradients, largest * bytesPerElement);
}

/// Model states of one GPU of stage `g` (planned by planStage into `share`) into
/// g.bytes: the ZeRO table over what trains, the frozen base, the framework's fp32
/// gradients, CPU offload to host RAM (g.hostBytes), and Transformer Engine's FP8
/// weight copies and recipe state (4 FP8 GEMMs a block: linear_qkv, linear_proj,
/// linear_fc1, linear_fc2 in Megatron-Core's TE layer spec), which stay on the GPU.
/// Returns the parameters that train on the GPU before sharding (the buckets' size).
[[gnu::always_inline]] inline std::int64_t modelStates(const EstimateContext &x,
                                                       const StageShare &share, GpuGroup &g)
{
    const Recipe &r = x.s.recipe;
    const Trained t = trainedParameters(x, share, g);
    ComponentBytes &b = g.bytes;
    b = zeroStates(t.perGpu, t.shard, x.z, r);
    b.weights += t.frozenBytes;
    frameworkGradients(x.profile->fp32Gradients, x.z, r, t, x.s.overheads.subGroupElements,
                       b.gradients);
    offloadModelStates(x.offload, x.z, b, g.hostBytes);
    if (x.wholeWeights || x.wholeGradients) [[unlikely]] {
        wholeStates(x.wholeWeights, x.wholeGradients, t.perGpu, r, b);
        if (x.wholeWeights)
            b.weights += t.frozenBytes; // whole too (trainedParameters)
    }
    if (x.s.training.optimizerInBackward) [[unlikely]]
        b.gradients = gradientsInBackward(b.gradients, t.perGpu, largestParameterElements(x, g));
    if (x.teFp8) [[unlikely]]
        b.weights += fp8WeightCopyBytes(x.fp8, share.blocks[0], x.fp8Linear[0]) +
                     fp8WeightCopyBytes(x.fp8, share.blocks[1], x.fp8Linear[1]) +
                     fp8RecipeStateBytes(x.fp8, 4 * std::int64_t(g.layerCount));
    return t.perGpu;
}

} // namespace shardscope::stages
