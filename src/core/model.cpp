#include "rightsize/model.hpp"

namespace rightsize {
namespace {

using i64 = std::int64_t;

// Attention block of one layer. Standard (MHA/GQA/MQA), methodology §1.2 [LA][MEG]:
//   h·h_q (W_q) + 2·h·h_kv (W_k, W_v) + h_q·h (W_o) + biases + qk-norm.
// MLA (DeepSeek-V2/V3), methodology §1.3 [MEG]:
//   q:  h·q_r + q_r + q_r·n_h·(d_nope + d_rope)   (or h·n_h·(d_nope + d_rope) without q compression)
//   kv: h·(kv_r + d_rope) + kv_r + kv_r·n_h·(d_nope + d_v)
//   o:  n_h·d_v·h
i64 attention_params(const ModelSpec& m) {
  const i64 h = m.hidden_size;
  if (m.attention.kind == AttentionKind::mla) {
    const AttentionSpec& a = m.attention;
    const i64 qk_dim = a.qk_nope_head_dim + a.rope_head_dim;
    const i64 q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk_dim
                                    : h * m.heads * qk_dim;
    const i64 kv = h * (a.kv_lora_rank + a.rope_head_dim) + a.kv_lora_rank +
                   a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
    const i64 o = m.heads * a.v_head_dim * h;
    return q + kv + o;
  }
  const i64 h_q = m.heads * m.head_dim;
  const i64 h_kv = m.kv_heads * m.head_dim;
  i64 p = h * h_q + 2 * h * h_kv + h_q * h;
  if (m.qkv_bias) p += h_q + 2 * h_kv;
  if (m.o_bias) p += h;
  if (m.qk_norm) p += 2 * m.head_dim;
  if (m.attention_sinks) p += m.heads; // gpt-oss: one sink logit per head
  return p;
}

// One FFN of width `width`: gated (SwiGLU/GeGLU) has 3 matrices, plain has 2 [LA][MEG].
i64 ffn_params(const ModelSpec& m, i64 width, bool bias) {
  const i64 matrices = m.ffn_gated ? 3 : 2;
  i64 p = matrices * m.hidden_size * width;
  if (bias) p += (m.ffn_gated ? 2 * width : width) + m.hidden_size;
  return p;
}

} // namespace

ParamCounts count_params(const ModelSpec& m) {
  ParamCounts c;
  const i64 h = m.hidden_size;
  // RMSNorm has h weights, LayerNorm h weights + h biases.
  const i64 norm_per_layer = m.norms_per_layer * (m.norm == NormKind::rms ? 1 : 2) * h;
  const i64 final_norm = (m.norm == NormKind::rms ? 1 : 2) * h;
  const bool moe = m.moe.experts > 0;

  c.per_layer_attention = attention_params(m);
  c.dense_ffn_per_layer = ffn_params(m, m.ffn_size, m.mlp_bias);
  c.moe_layers = moe ? m.layers - m.moe.dense_layers : 0;
  const i64 dense_layers = m.layers - c.moe_layers;

  i64 moe_total = 0;
  i64 moe_active = 0;
  if (moe) {
    // MoE layer, methodology §1.3: E·m·h·I_e + E_s·m·h·I_s + h·E (router) [+ small terms].
    const i64 shared_width =
        m.moe.shared_expert_ffn_size > 0 ? m.moe.shared_expert_ffn_size : m.moe.expert_ffn_size;
    c.expert_params = ffn_params(m, m.moe.expert_ffn_size, m.moe.expert_bias);
    i64 nonexpert = m.moe.shared_experts * ffn_params(m, shared_width, false) + h * m.moe.experts;
    if (m.moe.router_bias) nonexpert += m.moe.experts;
    if (m.moe.shared_expert_gate) nonexpert += h;
    c.moe_nonexpert_per_layer = nonexpert;
    moe_total = m.moe.experts * c.expert_params + nonexpert;
    moe_active = m.moe.experts_per_token * c.expert_params + nonexpert;
  }

  c.embedding = m.vocab_size * h;
  c.lm_head = m.tied_embeddings ? 0 : m.vocab_size * h + (m.lm_head_bias ? m.vocab_size : 0);
  c.norms_total = m.layers * norm_per_layer + final_norm;
  if (m.qk_norm) c.norms_total += m.layers * 2 * m.head_dim;

  const i64 common = m.layers * (c.per_layer_attention + norm_per_layer) +
                     dense_layers * c.dense_ffn_per_layer + c.embedding + c.lm_head + final_norm;
  c.total = common + c.moe_layers * moe_total;
  c.active = common + c.moe_layers * moe_active;
  // N_mm (methodology §1.2): GEMM weights per token = active − embedding gather − norms, with the
  // LM head always a GEMM of V·h (the tied embedding matrix is reused as the head).
  c.mm_active = c.active - c.embedding - c.norms_total + (m.tied_embeddings ? m.vocab_size * h : 0);
  if (m.params_override > 0 && c.total > 0) {
    // Architecture fitted to a bare parameter count: report the user's figure, scale active with it.
    const double scale = static_cast<double>(m.params_override) / static_cast<double>(c.total);
    c.active = static_cast<i64>(static_cast<double>(c.active) * scale);
    c.mm_active = static_cast<i64>(static_cast<double>(c.mm_active) * scale);
    c.total = m.params_override;
  }
  return c;
}

double kv_cache_bytes_per_token(const ModelSpec& m, double kv_bytes_per_element) {
  if (m.kind != ModelKind::decoder) return 0.0;
  const double layers = static_cast<double>(m.layers);
  if (m.attention.kind == AttentionKind::mla) {
    // MLA caches one latent + the decoupled RoPE key per layer, no separate V (methodology §2.3).
    return layers * static_cast<double>(m.attention.kv_lora_rank + m.attention.rope_head_dim) *
           kv_bytes_per_element;
  }
  // 2 (K and V) · L · n_kv · d_h · b_kv (methodology §2.3, [LA][VID][VLLM-SRC]).
  return 2.0 * layers * static_cast<double>(m.kv_heads * m.head_dim) * kv_bytes_per_element;
}

const char* to_string(ModelKind kind) {
  switch (kind) {
  case ModelKind::decoder: return "decoder";
  case ModelKind::dit: return "dit";
  case ModelKind::vit: return "vit";
  }
  return "decoder";
}

const char* to_string(AttentionKind kind) {
  switch (kind) {
  case AttentionKind::mha: return "mha";
  case AttentionKind::gqa: return "gqa";
  case AttentionKind::mqa: return "mqa";
  case AttentionKind::mla: return "mla";
  }
  return "gqa";
}

} // namespace rightsize
