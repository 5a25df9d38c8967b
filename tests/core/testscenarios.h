#pragma once

// Models, recipes and scenarios the core tests share, built without the catalog (core
// tests link the engine alone). Each model cites the config or paper it copies; the
// parameter counts quoted are checked in tests/core/test_model.cpp and test_moe.cpp.

#include "scenario.h"

namespace shardscope::test {

/// A dense decoder of the Llama layout (RMSNorm, SwiGLU, no biases, untied): `layers`
/// blocks of width `hidden`, MLP inner size `ffn`, `heads` query and `kvHeads` key/value
/// heads, a `vocab`-token vocabulary (the config.json fields num_hidden_layers,
/// hidden_size, intermediate_size, num_attention_heads, num_key_value_heads, vocab_size).
inline Architecture dense(int layers, std::int64_t hidden, std::int64_t ffn, int heads, int kvHeads,
                          std::int64_t vocab)
{
    return {layers, hidden, ffn, heads, kvHeads, vocab};
}

/// Llama 2 7B (meta-llama/Llama-2-7b-hf config.json): 32 layers, h 4096, f 11008,
/// 32 heads, V 32000; 6,738,415,616 parameters.
inline Architecture llama2_7b()
{
    return dense(32, 4096, 11008, 32, 32, 32000);
}

/// Llama 3 8B / Llama 3.1 8B (meta-llama/Llama-3.1-8B config.json): 32 layers, h 4096,
/// f 14336, 32 heads, 8 KV heads, V 128256; 8,030,261,248 parameters.
inline Architecture llama3_8b()
{
    return dense(32, 4096, 14336, 32, 8, 128256);
}

/// Llama 3 70B (meta-llama/Meta-Llama-3-70B config.json): 80 layers, h 8192, f 28672,
/// 64 heads, 8 KV heads, V 128256; 70,553,706,496 parameters.
inline Architecture llama3_70b()
{
    return dense(80, 8192, 28672, 64, 8, 128256);
}

/// LLaMA 65B (Touvron et al. 2023, Table 2: 80 layers, width 8192, 64 heads; the
/// released params.json gives ffn 22016): 65,285,660,672 parameters.
inline Architecture llama65b()
{
    return dense(80, 8192, 22016, 64, 64, 32000);
}

/// LLaMA 33B (Touvron et al. 2023, Table 2: 60 layers, width 6656, 52 heads; ffn 17920):
/// 32,528,943,616 parameters.
inline Architecture llama33b()
{
    return dense(60, 6656, 17920, 52, 52, 32000);
}

/// The GPT-2 block layout (Radford et al. 2019; HF GPT2Model): LayerNorm with biases,
/// biases on every linear layer, a plain GELU MLP and tied embeddings, with the shape
/// given here (no position table: set positionEmbeddings where a test models it).
inline Architecture gpt2Layout(int layers, std::int64_t hidden, int heads, std::int64_t vocab)
{
    Architecture a = dense(layers, hidden, 4 * hidden, heads, heads, vocab);
    a.tiedEmbeddings = true;
    a.gatedMlp = false;
    a.linearBiases = true;
    a.layerNormBias = true;
    return a;
}

/// GPT-3 175B (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads,
/// d_ff = 4 d_model) in the GPT-2 layout, with GPT-2's 50,257-token vocabulary.
inline Architecture gpt3_175b()
{
    return gpt2Layout(96, 12288, 96, 50257);
}

/// Mixtral 8x7B v0.1, config.json (mistralai/Mixtral-8x7B-v0.1): hidden 4096,
/// intermediate 14336, 32 layers, 32 heads, 8 KV heads, vocab 32000, 8 local experts,
/// 2 per token, untied.
inline Architecture mixtral8x7b()
{
    Architecture a = dense(32, 4096, 14336, 32, 8, 32000);
    a.experts = 8;
    a.activeExperts = 2;
    a.expertFfn = 14336;
    return a;
}

/// Bytes per parameter of a recipe with no name: working weights `w`, gradients `g`,
/// master copy `m`, optimizer moments `o` (the fields of core/recipe.h).
inline Recipe recipeBytes(std::int64_t w, std::int64_t g, std::int64_t m, std::int64_t o)
{
    return Recipe{"", "", "", w, g, m, o};
}

/// Mixed-precision AdamW: 2 + 2 + 4 + 8 = 16 bytes per parameter (Rajbhandari et al.
/// 2020, ZeRO, section 3.1: K = 12 plus 2 + 2 for fp16 weights and gradients).
inline Recipe mixedAdam()
{
    return Recipe{"mixed-adam", "Mixed", "", 2, 2, 4, 8};
}

/// No CUDA context, no DDP or ZeRO buckets and no fragmentation reserve, for the
/// comparisons against estimators that count model states and activations alone.
inline Overheads noOverheads()
{
    return Overheads{.cudaContextBytes = 0,
                     .ddpBucketBytes = 0,
                     .zeroBucketElements = 0,
                     .fragmentationPercent = 0};
}

/// `gpus` GPUs of 80 GB (80e9 bytes, H100 SXM) at ZeRO stage `z` with mixed-precision
/// AdamW and the Scenario defaults otherwise; no model yet.
inline Scenario h100s(std::int64_t gpus, ZeroStage z)
{
    Scenario s;
    s.recipe = mixedAdam();
    s.gpu.capacityBytes = 80'000'000'000;
    s.layout.gpus = gpus;
    s.layout.zeroStage = z;
    return s;
}

/// `a` on h100s(gpus, z) with tensor parallel `t` and pipeline parallel `p`.
inline Scenario onH100s(const Architecture &a, std::int64_t gpus, ZeroStage z = ZeroStage::Ddp,
                        int t = 1, int p = 1)
{
    Scenario s = h100s(gpus, z);
    s.model.architecture = a;
    s.layout.tensorParallel = t;
    s.layout.pipelineParallel = p;
    return s;
}

/// A model of `parameters` counted plainly (no architecture) on h100s(gpus, z), model
/// states only: the setting of the ZeRO paper's Figure 1 and of the verdict examples.
inline Scenario plainModelStates(std::int64_t parameters, std::int64_t gpus,
                                 ZeroStage z = ZeroStage::Ddp)
{
    Scenario s = h100s(gpus, z);
    s.model.plainParameters = parameters;
    s.modelStatesOnly = true;
    return s;
}

/// Llama 2 7B on `gpus` H100s (80 GB) with mixed-precision AdamW (2 + 2 + 4 + 8 bytes
/// per parameter) and the Scenario defaults otherwise, named as the window names it.
inline Scenario llama7bOnH100(std::int64_t gpus)
{
    Scenario s = onH100s(llama2_7b(), gpus);
    s.model.id = "llama7b";
    s.gpu.id = "h100";
    s.gpu.name = s.gpu.shortName = "H100";
    return s;
}

} // namespace shardscope::test
