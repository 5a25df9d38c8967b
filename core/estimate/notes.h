#pragma once

// Stage 7, the report's notes: one sentence per caveat that changes how its numbers
// read (what is not modelled, which framework profile or FP8 implementation produced
// them, what LoRA trains, what a paged optimizer moved, how MoE experts are placed).
// Whether the report fits is verdict.h's, from the finished report.

#include "activationstage.h"
#include "context.h"
#include "format.h"
#include "memoryreport.h"

#include <charconv>
#include <string>

namespace shardscope::stages {

/// The report's notes from `count` on are unused: the next note reuses the string at
/// `count` (and its storage) when there is one.
inline std::string &nextNote(MemoryReport &report, std::size_t &count)
{
    if (report.notes.size() <= count)
        report.notes.emplace_back();
    return report.notes[count++];
}

/// Appends the decimal digits of `v` to `out` (no allocation once it has room).
inline void appendNumber(std::string &out, std::int64_t v)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out.append(digits, end);
}

/// The note an FP8 recipe adds to the report: which implementation produced the numbers
/// (Transformer Engine, or torchao under the fsdp2 profile) and what it changes.
inline const char *fp8Note(Fp8Implementation implementation, Fp8Recipe r)
{
    if (implementation == Fp8Implementation::TorchaoFloat8)
        return r == Fp8Recipe::Delayed
                   ? "FP8: torchao Float8, tensorwise scaling, with FSDP2's FP8 all-gather "
                     "(the linear weights gathered in 1 byte; saved inputs stay in the "
                     "activation dtype; docs/frameworks.md)."
                   : "FP8: torchao MXFP8 (FP8 matmuls only: weights are gathered and inputs "
                     "saved in high precision; docs/frameworks.md).";
    return r == Fp8Recipe::Delayed
               ? "FP8: Transformer Engine delayed scaling (an FP8 copy and transpose of each "
                 "linear weight, the amax history, the linear layers' inputs saved in FP8; "
                 "docs/frameworks.md)."
               : "FP8: Transformer Engine MXFP8 block scaling (row- and column-wise FP8 copies "
                 "of each linear weight with one E8M0 scale per 32 values, the linear layers' "
                 "inputs saved in MXFP8; docs/frameworks.md).";
}

/// torch.compile's measured effect on peak memory, as a range: beyond the compiled loss
/// (ActivationSettings::compiledLoss) and the fused RMSNorm (NormKernel::Fused in place of
/// Eager) the engine counts nothing for it. Eager against
/// compiled peaks, same runs otherwise: TorchTitan Table 1 82.4 -> 77.0
/// GiB (-6.6%) and Table 3 67.0 -> 62.0 GiB (-7.5%) (Liang et al., ICLR 2025; Llama 3.1
/// 8B, FSDP, op-level selective checkpointing, eager loss); torchtune README
/// "Optimization flags" (commit 1814feb) 60.0 -> 51.0 GiB (-15.0%; Llama 3.2 3B, no
/// checkpointing, the loss compiled too). docs/frameworks.md "Memory-saving switches".
inline constexpr const char *torchCompileNote =
    "torch.compile: counted are its loss (the upcast and log-softmax fused, so an eager "
    "loss's backward holds just its input's gradient) and its fused RMSNorms (an eager "
    "norm's fp32 copy gone); the rest of what compile saves is not. Measured, it lowered eager "
    "peaks by 6.6% to 15.0% (TorchTitan Tables 1 and 3: "
    "82.4 to 77.0 and 67.0 to 62.0 GiB; torchtune's Llama 3.2 3B ladder: 60.0 to 51.0 "
    "GiB); docs/frameworks.md.";

/// The notes of the memory-saving switches that are on (docs/frameworks.md "Memory-saving
/// switches"): chunked cross-entropy, optimizer step in backward, use_cache (and when it
/// adds nothing), torch.compile's measured range, and an eager norm kernel (and when it
/// changes nothing).
[[gnu::noinline]] inline void switchNotes(const EstimateContext &x, MemoryReport &report,
                                          std::size_t &count)
{
    const Training &tr = x.s.training;
    if (tr.lossChunks > 1) {
        std::string &note = nextNote(report, count);
        note.assign("Chunked cross-entropy: logits kept in the activation dtype, upcast one of ");
        appendNumber(note, tr.lossChunks);
        note.append(" chunks at a time (torchtune CEWithChunkedOutputLoss, its loss compiled).");
    }
    if (tr.optimizerInBackward)
        nextNote(report, count)
            .assign("Optimizer step in backward: one parameter's gradient at a time, the "
                    "largest (torchtune optimizer_in_bwd).");
    if (tr.useCache)
        nextNote(report, count)
            .assign(trainingCacheBytes(*x.arch, tr, x.t, x.tokensPerRank) == 0
                        ? "use_cache: adds nothing here: the attention saves the cache's own "
                          "keys and values (a fused kernel, or as many KV heads as heads), "
                          "or gradient checkpointing turns it off (Hugging Face "
                          "transformers; docs/frameworks.md)."
                        : "use_cache: each layer's cache keeps its unexpanded keys and values "
                          "beside the expanded copies eager attention saves (Hugging Face "
                          "transformers DynamicCache; docs/frameworks.md).");
    if (tr.torchCompile)
        nextNote(report, count).assign(torchCompileNote);
    if (tr.normKernel == NormKernel::Eager)
        nextNote(report, count)
            .assign(tr.torchCompile
                        ? "Norm kernel eager: no effect under torch.compile, which fuses each "
                          "RMSNorm into one kernel that keeps its input (docs/activations.md "
                          "\"Eager RMSNorm\")."
                    : x.arch->layerNormBias
                        ? "Norm kernel eager: no effect on a LayerNorm model (nn.LayerNorm runs "
                          "its native kernel in eager PyTorch too)."
                        : "Eager RMSNorm: each norm keeps an fp32 copy of its input, and the "
                          "normalized tensor while its weight trains, where a fused kernel "
                          "keeps its input (Hugging Face and torchtune RMSNorm; "
                          "docs/activations.md).");
}

/// The notes of settings that change nothing in this scenario, or describe a run its card
/// cannot do: FP8 on a card whose catalog entry has a BF16 but no FP8 peak (no FP8 tensor
/// cores: A100, V100, MI250X; the memory is shown as if it ran), MXFP8 on one with an FP8
/// but no MXFP8 peak (no block-scaled tensor cores: Hopper, Ada, MI300X), LoRA dropout or fp32
/// unquantized weights without the LoRA (on a k-bit base) they act on, and a pipeline
/// schedule or chunk count with one pipeline stage. Rare: out of line.
[[gnu::noinline]] inline void ineffectiveSettingNotes(const EstimateContext &x,
                                                      MemoryReport &report, std::size_t &count)
{
    const Gpu &g = x.s.gpu;
    if (x.fp8 != Fp8Recipe::Off && g.fp8FlopsPerSecond <= 0 && g.bf16FlopsPerSecond > 0) {
        std::string &note = nextNote(report, count);
        note.assign("FP8 on ");
        note.append(g.name.empty() ? std::string_view("this card") : std::string_view(g.name));
        note.append(": the catalog gives it no FP8 peak (fp8_tflops 0), as for a card without "
                    "FP8 tensor cores (they came with NVIDIA Ada and Hopper, AMD MI300); the "
                    "memory shown is what FP8 would hold, and the step is not timed.");
    } else if (x.fp8 == Fp8Recipe::Mxfp8 && g.mxfp8FlopsPerSecond <= 0 && g.fp8FlopsPerSecond > 0) {
        std::string &note = nextNote(report, count);
        note.assign("MXFP8 on ");
        note.append(g.name.empty() ? std::string_view("this card") : std::string_view(g.name));
        note.append(": the catalog gives it no MXFP8 peak (mxfp8_tflops 0), as for a card "
                    "without block-scaled tensor cores (they came with NVIDIA Blackwell, AMD "
                    "MI355X; Transformer Engine and torchao refuse MXFP8 before them); the "
                    "memory shown is what MXFP8 would hold, and the step is not timed.");
    }
    const FineTuning &ft = x.s.fineTuning;
    if (ft.loraDropout && !x.lora)
        nextNote(report, count)
            .assign("LoRA dropout: no effect without LoRA (rank 0): nothing is dropped.");
    if (ft.fp32Unquantized &&
        !(x.lora && (ft.baseFormat == BaseFormat::Int8 || ft.baseFormat == BaseFormat::Nf4)))
        nextNote(report, count)
            .assign("fp32 unquantized: no effect without LoRA on an int8 or nf4 base (PEFT "
                    "prepare_model_for_kbit_training casts the embedding, head and norms to "
                    "fp32 only beside quantized weights).");
    const Training &tr = x.s.training;
    if (x.p == 1 && (tr.schedule != PipelineSchedule::OneFOneB || tr.chunks != 1))
        nextNote(report, count)
            .assign("Pipeline schedule and chunks: no effect with one pipeline stage (p 1).");
}

/// False when ineffectiveSettingNotes() has nothing to write: a cheaper superset of its
/// conditions, checked inline, so the common scenario pays one test per setting and no
/// call.
[[gnu::always_inline]] inline bool hasIneffectiveSetting(const EstimateContext &x)
{
    const FineTuning &ft = x.s.fineTuning;
    return (x.fp8 != Fp8Recipe::Off && x.s.gpu.fp8FlopsPerSecond <= 0) ||
           (x.fp8 == Fp8Recipe::Mxfp8 && x.s.gpu.mxfp8FlopsPerSecond <= 0) || ft.loraDropout ||
           ft.fp32Unquantized ||
           (x.p == 1 &&
            (x.s.training.schedule != PipelineSchedule::OneFOneB || x.s.training.chunks != 1));
}

/// The notes written before the stages run, in this order: what is not modelled (model
/// states only, or a plain parameter count), the framework profile, the FP8
/// implementation, settings without effect (ineffectiveSettingNotes), activation offload, the
/// memory-saving switches (switchNotes), and what LoRA trains (planFineTuning() has set
/// report.trainableParameters). `count` notes are in use (nextNote).
[[gnu::always_inline]] inline void openingNotes(const EstimateContext &x, MemoryReport &report,
                                                std::size_t &count)
{
    if (x.statesOnly)
        nextNote(report, count)
            .assign("Model states only: activations and buffers are not counted.");
    else if (!x.hasArch)
        nextNote(report, count)
            .assign("Activations and FSDP gathered units are not modelled: a plain "
                    "parameter count has no layer shapes.");
    if (const FrameworkProfile &f = *x.profile; !f.note.empty()) {
        std::string &note = nextNote(report, count);
        note.assign(f.note);
        if (x.s.training.recompute == Recompute::Selective &&
            f.selective == SelectivePolicy::OpLevel && !f.selectiveNote.empty())
            note.append(" ").append(f.selectiveNote);
    }
    if (x.fp8 != Fp8Recipe::Off)
        nextNote(report, count).assign(fp8Note(x.profile->fp8, x.fp8));
    if (hasIneffectiveSetting(x)) [[unlikely]]
        ineffectiveSettingNotes(x, report, count);
    if (x.activationOffload && x.activationsModelled)
        nextNote(report, count)
            .assign("Activation offload: the saved activations of all but the last two layers "
                    "are in host RAM (Transformer Engine CPU offload; docs/frameworks.md); "
                    "their host-link traffic is not timed.");
    const Training &tr = x.s.training;
    if ((tr.lossChunks > 1 || tr.optimizerInBackward || tr.useCache || tr.torchCompile ||
         tr.normKernel == NormKernel::Eager) &&
        x.activationsModelled) [[unlikely]]
        switchNotes(x, report, count);
    if (x.lora) {
        const FineTuning &ft = x.s.fineTuning;
        std::string &note = nextNote(report, count);
        note.assign("LoRA rank ");
        appendNumber(note, ft.loraRank);
        note.append(": ");
        note.append(formatParameters(report.trainableParameters));
        note.append(" of ");
        note.append(formatParameters(report.parameters));
        note.append(" parameters train; the base is frozen in ");
        note.append(baseFormatId(ft.baseFormat));
        note.append(x.z == ZeroStage::Zero3
                        ? " (data-parallel traffic: the adapters' gradients, and the frozen base "
                          "gathered for each forward and backward under ZeRO-3)."
                        : " (data-parallel traffic: the adapters' gradients only).");
    }
}

/// The notes written after the stages: what the paged optimizer moved (`mostPaged`
/// bytes on the busiest GPU; the report's groups are complete), and for a MoE model how
/// many routed experts each GPU holds and over how many ranks their states are sharded.
[[gnu::always_inline]] inline void closingNotes(const EstimateContext &x, std::int64_t mostPaged,
                                                MemoryReport &report, std::size_t &count)
{
    if (x.pagedOptimizer) [[unlikely]] {
        std::string &note = nextNote(report, count);
        if (mostPaged > 0) {
            note.assign("Paged optimizer: ");
            note.append(formatBytes(mostPaged, ByteUnit::GB));
            note.append(" of optimizer states per GPU paged to host RAM at most (bitsandbytes "
                        "paged AdamW in CUDA unified memory, QLoRA section 3); the paging "
                        "traffic is not timed.");
        } else if (report.peakBytes() > report.capacityBytes) {
            note.assign("Paged optimizer: nothing to page: bitsandbytes keeps the optimizer "
                        "states of tensors under 100,000 elements on the GPU, and offloaded "
                        "states are in host RAM already.");
        } else {
            note.assign("Paged optimizer: the optimizer states fit on the GPU, so nothing is "
                        "paged (bitsandbytes pages only when GPU memory runs out).");
        }
    }
    if (x.offload != Offload::None && x.profile->offloadHostBufferPercent != 100) [[unlikely]] {
        std::string &note = nextNote(report, count);
        note.assign("Host RAM: ");
        note.append(formatBytes(report.hostBytesPerNode, ByteUnit::GB));
        note.append(" per node as DeepSpeed's own estimator counts it: ");
        note.append(x.z < ZeroStage::Zero3
                        ? "each rank's fp32 model copy at load or the offloaded states, "
                          "whichever is larger,"
                        : "the offloaded states");
        note.append(" with its ");
        appendNumber(note, x.profile->offloadHostBufferPercent);
        note.append("% buffer allowance (estimate_zero2/3_model_states_mem_needs, "
                    "docs/frameworks.md).");
    }
    if (x.moe) {
        const Architecture &a = *x.arch;
        std::string &note = nextNote(report, count);
        note.assign(x.prepared.moeNotePrefix);
        appendNumber(note, quotient(a.experts, x.e));
        note.append(" of ");
        appendNumber(note, a.experts);
        note.append(" routed experts per MoE layer, ");
        if (x.expertShardGroup > 1) {
            note.append("their states sharded over ");
            appendNumber(note, x.expertShardGroup);
            note.append(" ranks.");
        } else {
            note.append("their states not sharded.");
        }
    }
}

} // namespace shardscope::stages
