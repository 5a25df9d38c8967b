#pragma once

#include "model.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace shardscope {

/// A model from a Hugging Face `config.json` (the file next to the weights on the
/// Hub), for the families whose parameter layout ShardScope models exactly:
/// `model_type` llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, gemma3_text,
/// qwen3, qwen3_moe, olmo2, phi3, gpt_neox, llama4_text, deepseek_v2, deepseek_v3, olmoe
/// and granitemoe (or, without `model_type`, the matching `architectures` entry such as
/// "Qwen2ForCausalLM"), and the language model of the vision-language wrappers llava,
/// llava_next, qwen2_vl, qwen2_5_vl, llama4 and gemma3 (its `text_config`; Qwen2-VL's
/// original files keep the text fields at the top level). For a wrapper only the
/// language model is counted and the model's `source` says so; a nested text_config
/// that leaves out fields equal to LlamaConfig's, MistralConfig's or Gemma3TextConfig's
/// defaults (transformers' to_diff_dict does) takes those defaults, named in the source.
/// Any other `model_type` (or `architectures` class, or a wrapper's text model) is read
/// as a generic Llama-shaped decoder from the standard fields hidden_size,
/// intermediate_size, num_hidden_layers, num_attention_heads, vocab_size and the
/// optional num_key_value_heads, head_dim, tie_word_embeddings, attention_bias and
/// mlp_bias; the model's `source` lists every assumption in one note (SwiGLU MLP,
/// RMSNorm, 2 norms per block, no q/k norms, no experts, ...). Expert fields are never
/// read as a dense model: a generic decoder whose only expert fields are Mixtral's
/// num_local_experts and num_experts_per_tok is read with a Mixtral-style MoE block in
/// every block (said in the note); any other expert field on a generic decoder or a dense
/// family refuses the file naming it (docs/models.md).
///
/// Reads hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
/// num_key_value_heads, head_dim, vocab_size, tie_word_embeddings, attention_bias /
/// mlp_bias (Llama, Gemma), Qwen2's fixed Q/K/V biases, Gemma 2's and Gemma 3's four
/// norms per block; the per-head q_norm / k_norm of Qwen3, Qwen3-MoE and Gemma 3 and
/// OLMo 2's and OLMoE's whole-width ones (Architecture::qkNorm); Qwen3-MoE's num_experts,
/// num_experts_per_tok and moe_intermediate_size; Qwen2-MoE's and Qwen3-MoE's
/// decoder_sparse_step and mlp_only_layers (dense blocks as a dense prefix, then every
/// n-th block; Qwen2-MoE only all-sparse); OLMoE's num_experts / num_experts_per_tok;
/// Granite-MoE's and Mixtral's num_local_experts /
/// num_experts_per_tok; Qwen2-MoE's num_experts, moe_intermediate_size,
/// shared_expert_intermediate_size (a multiple of the expert size: that many shared experts),
/// qkv_bias and its shared_expert_gate (counted as a third hidden-wide norm, the same count);
/// Phi-3's fused qkv_proj and gate_up_proj (counted as the separate matrices); GPT-NeoX's
/// LayerNorms and biases; Llama 4's intermediate_size_mlp, routed and shared experts and moe_layers
/// / interleave_moe_layer_step; DeepSeek-V2/V3's n_routed_experts, num_experts_per_tok,
/// moe_intermediate_size, n_shared_experts, first_k_dense_replace, V3's router
/// correction bias, and MLA ranks q_lora_rank, kv_lora_rank, qk_rope_head_dim,
/// qk_nope_head_dim, v_head_dim. A field the transformers config class defaults in a
/// way that matters (Gemma's tied embeddings, Llama's num_key_value_heads = heads)
/// takes that default when absent; docs/models.md lists them. DeepSeek's
/// multi-token-prediction modules (num_nextn_predict_layers) are not counted, as in the
/// published 671B; the model's `source` says so.
///
/// The count matches each family's published total to the parameter
/// (tests/io/test_hfconfig.cpp). On failure returns nullopt and sets `*error` to one
/// line: a JSON syntax error with its offset; an unknown family without the standard
/// fields ("config.json (gpt2): unsupported model_type 'gpt2' (GPT2LMHeadModel); as a
/// generic decoder: missing hidden_size, ...; supported: ..."); expert fields that are
/// not read ("config.json (deepseek_v32): model_type 'deepseek_v32' has n_routed_experts =
/// 256 but is not a known mixture-of-experts family ..."); a recognised family whose layout
/// Architecture cannot express (Llama 3.2 Vision's cross-attention, interleaved
/// dense/MoE blocks as in Llama 4 Maverick, attention biases without MLP biases), for example
/// "config.json (llama4): interleaved dense/MoE layers (interleave_moe_layer_step 2) are not
/// modelled"; or every missing and every malformed field at once, for example
/// "config.json (mixtral): missing num_local_experts, num_experts_per_tok".
std::optional<Model> modelFromHfConfig(const QByteArray &json, QString *error);

/// The `model_type` values modelFromHfConfig reads, in the order of its messages: the
/// language-model families, then the vision-language wrappers.
QStringList supportedHfModelTypes();

} // namespace shardscope
