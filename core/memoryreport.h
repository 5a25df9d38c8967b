#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

/// Bytes one GPU holds, by component. Exact integers; rounding is for display only.
struct ComponentBytes
{
    std::int64_t weights = 0;         ///< working (bf16) weights resident on the GPU
    std::int64_t gradients = 0;       ///< gradients resident on the GPU
    std::int64_t masterWeights = 0;   ///< fp32 master copy
    std::int64_t optimizerStates = 0; ///< optimizer moments (Adam m and v)
    std::int64_t activations = 0;     ///< stored activations (0 until modelled)
    std::int64_t buffers = 0;         ///< CUDA context, buckets, fragmentation (0 until modelled)

    /// Sum of all components, bytes.
    std::int64_t total() const
    {
        return weights + gradients + masterWeights + optimizerStates + activations + buffers;
    }
    /// Weights + gradients + master weights + optimizer states, bytes.
    std::int64_t modelStates() const
    {
        return weights + gradients + masterWeights + optimizerStates;
    }
};

/// The components in drawing order (bottom of a stacked bar first).
enum class Component
{
    Weights,
    Gradients,
    MasterWeights,
    OptimizerStates,
    Activations,
    Buffers
};
inline constexpr int componentCount = 6;

/// Bytes of one component.
std::int64_t componentValue(const ComponentBytes &b, Component c);
/// Display name: "Weights", "Gradients", "Master weights", ...
std::string componentName(Component c);
/// JSON key: "weights", "gradients", "master_weights", "optimizer_states", ...
std::string componentKey(Component c);

/// What makes up ComponentBytes::buffers, bytes per GPU.
struct BufferBytes
{
    std::int64_t cudaContext = 0;          ///< CUDA context, workspaces, kernels
    std::int64_t communicationBuckets = 0; ///< DDP gradient bucket or ZeRO reduce bucket
    std::int64_t gatheredUnits = 0; ///< ZeRO-3 / FSDP unsharded layer(s) and one unit's gradient
    std::int64_t fragmentation = 0; ///< allocator reserve
};

/// What makes up ComponentBytes::activations, bytes per GPU at the stage's peak.
struct ActivationBytes
{
    std::int64_t layers = 0; ///< stored layer activations of every micro-batch in flight
    /// One layer's backward working set: the layer recomputed (recompute on), and under a
    /// quantized LoRA base bitsandbytes' dequantized copy of its largest weight.
    std::int64_t workingSet = 0;
    std::int64_t embedding = 0; ///< first stage: embedding dropout mask
    std::int64_t output = 0;    ///< last stage: final norm and logits
    /// Last stage: the eager loss backward's two extra logits-sized tensors, one
    /// micro-batch at a time (lossBackwardBytes); 0 with a fused loss.
    std::int64_t lossBackward = 0;
    /// What the backward holds for a moment beyond the kept sets, the part of the total
    /// that is neither layers, embedding nor output: the larger of the loss's backward
    /// and a recomputed block's working set less the one micro-batch's output (final
    /// norm and logits) that the head's backward frees before any block of that
    /// micro-batch is recomputed. They are never held together, so the total is
    /// layers + embedding + output + transient, not the sum of every field.
    std::int64_t transient = 0;
};

/// Bytes one GPU sends per training step, by collective (ring algorithms,
/// docs/architecture.md "Communication per GPU per step"). Each is the per-GPU traffic of the
/// collective.
struct CommunicationBytes
{
    std::int64_t dataParallel = 0;     ///< gradient all-reduce, or ZeRO-3 gathers + reduce-scatter
    std::int64_t tensorParallel = 0;   ///< all-reduces (or all-gather + reduce-scatter) per layer
    std::int64_t pipelineParallel = 0; ///< activations and their gradients to neighbour stages
    std::int64_t contextParallel = 0;  ///< ring-attention key/value exchange
    /// Mixture of experts with e > 1: token dispatch and combine all-to-alls.
    std::int64_t expertParallel = 0;
    /// Sum over collectives, bytes.
    std::int64_t total() const
    {
        return dataParallel + tensorParallel + pipelineParallel + contextParallel + expertParallel;
    }
};

/// A set of GPUs that hold exactly the same bytes (ranks firstRank .. firstRank+gpuCount-1):
/// one pipeline stage (all its data, tensor and context parallel ranks).
struct GpuGroup
{
    std::string label;          ///< e.g. "all 64 GPUs" or "stage 0 (layers 0-19)"
    std::int64_t firstRank = 0; ///< global rank of the first GPU in the group
    std::int64_t gpuCount = 0;  ///< how many GPUs hold these bytes
    int pipelineStage = 0;      ///< 0-based stage index
    int firstLayer = 0; ///< first transformer layer on the stage (0 without an architecture)
    int layerCount = 0; ///< transformer layers on the stage
    bool holdsEmbedding = false;       ///< token embedding lives here (first stage)
    bool holdsOutputHead = false;      ///< final norm and output head live here (last stage)
    std::int64_t parametersPerGpu = 0; ///< parameters one GPU owns before ZeRO sharding
    /// Parameters (elements) of the largest ZeRO-3 / FSDP unit this stage gathers at
    /// once, per GPU (the largest layer or the vocabulary matrix); 0 when nothing is
    /// gathered (not ZeRO-3, one rank per shard group, no architecture, model states
    /// only). buffers.gatheredUnits = (gathered units + 1) x this x the compute dtype.
    /// Launch-config exporters read it (DeepSpeed stage3_prefetch_bucket_size).
    std::int64_t gatheredUnitParameters = 0;
    int peakInFlight = 1; ///< micro-batch chunks whose activations are held at the peak
    /// Micro-batches whose embedding-side tensors the first stage holds at its peak
    /// (embeddingInFlightBound; 0 on other stages).
    int embeddingInFlight = 0;
    /// Micro-batches whose logits the last stage holds at its peak (headInFlightBound;
    /// 0 on other stages).
    int outputInFlight = 0;
    /// Layer activation bytes one (micro-batch, chunk) set holds on this stage.
    std::int64_t chunkActivationBytes = 0;
    /// Bytes one micro-batch's embedding-side tensors hold (first stage; else 0).
    std::int64_t embeddingBytesPerMicroBatch = 0;
    /// Bytes one micro-batch's final norm and logits hold (last stage; else 0).
    std::int64_t outputBytesPerMicroBatch = 0;
    /// One micro-batch's activations on this stage without interleaving, bytes. Memory at
    /// a moment with k sets, k_e embedding sets and k_o logits sets in flight = total -
    /// activations.layers - embedding - output + k x chunkActivationBytes + k_e x
    /// embeddingBytesPerMicroBatch + k_o x outputBytesPerMicroBatch (the timeline view
    /// draws it).
    std::int64_t activationBytesPerMicroBatch() const
    {
        return chunkActivationBytes + embeddingBytesPerMicroBatch + outputBytesPerMicroBatch;
    }
    ComponentBytes bytes;             ///< per GPU
    BufferBytes buffers;              ///< breakdown of bytes.buffers
    ActivationBytes activations;      ///< breakdown of bytes.activations
    std::int64_t hostBytes = 0;       ///< bytes per GPU offloaded to host RAM
    CommunicationBytes communication; ///< per GPU per training step

    std::int64_t totalBytes() const { return bytes.total(); }
};

/// What every GPU holds for one scenario (output of estimate()).
struct MemoryReport
{
    std::string error;           ///< non-empty when the scenario was invalid; nothing else is set
    std::int64_t parameters = 0; ///< total model parameters
    /// Parameters that train: the LoRA adapters when fine-tuning with LoRA, else all of
    /// them (= parameters).
    std::int64_t trainableParameters = 0;
    /// Per-GPU capacity the report is checked against, bytes: Gpu::usableBytes() (the
    /// driver-reported total where known, else the datasheet figure).
    std::int64_t capacityBytes = 0;
    std::vector<GpuGroup> groups;      ///< every GPU belongs to exactly one group
    bool activationsModelled = false;  ///< false for plain parameter counts (no shape)
    std::vector<std::string> notes;    ///< caveats shown with the report (one sentence each)
    std::int64_t hostBytesPerNode = 0; ///< offloaded bytes per node (GPUs per node x per GPU)
    std::int64_t hostCapacityBytesPerNode = 0; ///< host RAM per node setting

    bool valid() const { return error.empty(); }
    /// Largest per-GPU total over all groups, bytes.
    std::int64_t peakBytes() const;
    /// capacity - peak: positive is free room, negative is overflow (bytes).
    std::int64_t headroomBytes() const { return capacityBytes - peakBytes(); }
    /// True when every GPU's total is at most the capacity and offload fits host RAM.
    bool fits() const { return valid() && peakBytes() <= capacityBytes && hostFits(); }
    /// Sum of gpuCount over groups.
    std::int64_t gpuCount() const;
    /// The group with the largest total (first on ties); nullptr when invalid.
    const GpuGroup *peakGroup() const;
    /// True when the offloaded bytes fit the host RAM per node.
    bool hostFits() const { return hostBytesPerNode <= hostCapacityBytesPerNode; }
};

} // namespace shardscope
