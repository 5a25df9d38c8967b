#pragma once

#include "model.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>

namespace shardscope {

/// A model from a Hugging Face `config.json` (the file next to the weights on the
/// Hub), for the families whose parameter layout ShardScope models exactly:
/// `model_type` llama, mistral, mixtral, qwen2, gemma, gemma2 and deepseek_v3 (or,
/// without `model_type`, the matching `architectures` entry such as
/// "Qwen2ForCausalLM").
///
/// Reads hidden_size, intermediate_size, num_hidden_layers, num_attention_heads,
/// num_key_value_heads, head_dim, vocab_size, tie_word_embeddings, attention_bias /
/// mlp_bias (Llama, Gemma), Qwen2's fixed Q/K/V biases, Gemma 2's four norms per
/// block; Mixtral's num_local_experts / num_experts_per_tok; DeepSeek-V3's
/// n_routed_experts, num_experts_per_tok, moe_intermediate_size, n_shared_experts,
/// first_k_dense_replace, router correction bias, and MLA ranks q_lora_rank,
/// kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim. A field the
/// transformers config class defaults in a way that matters (Gemma's tied
/// embeddings, Llama's num_key_value_heads = heads) takes that default when absent;
/// docs/models.md lists them. DeepSeek's multi-token-prediction modules
/// (num_nextn_predict_layers) are not counted, as in the published 671B; the model's
/// `source` says so.
///
/// The count matches each family's published total to the parameter
/// (tests/io/test_hfconfig.cpp). On failure returns nullopt and sets `*error` to one
/// line: a JSON syntax error with its offset; "unsupported model_type 'x'" with the
/// supported list; or every missing and every malformed field at once, for example
/// "config.json (mixtral): missing num_local_experts, num_experts_per_tok".
std::optional<Model> modelFromHfConfig(const QByteArray &json, QString *error);

/// The `model_type` values modelFromHfConfig reads, in the order of its messages.
QStringList supportedHfModelTypes();

} // namespace shardscope
