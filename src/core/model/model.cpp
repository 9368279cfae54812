#include "rightsize/model.hpp"

#include <algorithm>

namespace rightsize {
namespace {

using i64 = std::int64_t;

// The counts below are written once over a number type T: std::int64_t for the exact counts
// (count_params), double for a bound that never overflows (params_upper_bound, used by io to refuse
// absurd specs before the exact count runs). One formula, two arithmetics.
template <typename T> T n(i64 v) {
  return static_cast<T>(v);
}

// q/k RMSNorm weights of one attention layer: per head 2·d_h (Qwen3, Gemma-3), or over the whole
// projections h_q + h_kv (MiniMax-M2 qk_norm_type per_layer).
template <typename T> T qk_norm_params(const ModelSpec& m) {
  if (m.attention.qk_norm_per_layer) return (n<T>(m.heads) + n<T>(m.kv_heads)) * n<T>(m.head_dim);
  return T(2) * n<T>(m.head_dim);
}

// Attention block of one layer. Standard (MHA/GQA/MQA), methodology §1.2 [LA][MEG]:
//   h·h_q (W_q) + 2·h·h_kv (W_k, W_v) + h_q·h (W_o) + biases + qk-norm.
// MLA (DeepSeek-V2/V3), methodology §1.3 [MEG]:
//   q:  h·q_r + q_r + q_r·n_h·(d_nope + d_rope)   (or h·n_h·(d_nope + d_rope) without q compression)
//   kv: h·(kv_r + d_rope) + kv_r + kv_r·n_h·(d_nope + d_v)
//   o:  n_h·d_v·h
template <typename T> T attention_params(const ModelSpec& m) {
  const T h = n<T>(m.hidden_size);
  const T heads = n<T>(m.heads);
  if (m.attention.kind == AttentionKind::mla) {
    const AttentionSpec& a = m.attention;
    const T qk_dim = n<T>(a.qk_nope_head_dim) + n<T>(a.rope_head_dim);
    const T q_rank = n<T>(a.q_lora_rank);
    const T kv_rank = n<T>(a.kv_lora_rank);
    const T q = a.q_lora_rank > 0 ? h * q_rank + q_rank + q_rank * heads * qk_dim : h * heads * qk_dim;
    const T kv = h * (kv_rank + n<T>(a.rope_head_dim)) + kv_rank +
                 kv_rank * heads * (n<T>(a.qk_nope_head_dim) + n<T>(a.v_head_dim));
    const T o = heads * n<T>(a.v_head_dim) * h;
    // DeepSeek-V3.2 / GLM-5 lightning indexer [DSV32]: wq_b q_r·n_i·d_i, wk h·d_i, k_norm LayerNorm
    // 2·d_i, weights_proj h·n_i.
    T indexer{};
    if (a.index_heads > 0 && a.index_head_dim > 0) {
      const T ni = n<T>(a.index_heads);
      const T di = n<T>(a.index_head_dim);
      indexer = (a.q_lora_rank > 0 ? q_rank : h) * ni * di + h * di + T(2) * di + h * ni;
    }
    return q + kv + o + indexer;
  }
  const T h_q = heads * n<T>(m.head_dim);
  const T h_kv = n<T>(m.kv_heads) * n<T>(m.head_dim);
  // Gated attention [QWEN3-NEXT]: q_proj also emits the output gate, h x 2·h_q.
  const T q_out = m.attention.output_gate ? T(2) * h_q : h_q;
  T p = h * q_out + T(2) * h * h_kv + h_q * h;
  if (m.qkv_bias) p += h_q + T(2) * h_kv;
  if (m.o_bias) p += h;
  if (m.qk_norm) p += qk_norm_params<T>(m);
  if (m.attention_sinks) p += heads; // gpt-oss: one sink logit per head
  return p;
}

// Gated DeltaNet layer [QWEN3-NEXT] (HF Qwen3NextGatedDeltaNet), methodology §1.5, with
// key dim k = n_k·d_k and value dim v = n_v·d_v:
//   in_proj_qkvz h·(2k + 2v) + in_proj_ba h·2·n_v + depthwise conv (2k + v)·K + A_log, dt_bias 2·n_v
//   + gated RMSNorm d_v + out_proj v·h.
template <typename T> T linear_attention_params(const ModelSpec& m) {
  const LinearAttentionSpec& la = m.linear_attention;
  if (la.layers <= 0) return T(0);
  const T h = n<T>(m.hidden_size);
  if (la.kind == LinearKind::mamba) {
    // Mamba-1 mixer [JAMBA] (HF JambaMambaMixer), d = d_inner, r = dt_rank, N = d_state:
    //   in_proj h·2d + conv d·K (+ d) + x_proj d·(r + 2N) + dt_proj r·d + d + A_log d·N + D d
    //   + out_proj d·h (+ 2d + h projection biases) + dt/B/C RMSNorms r + 2N.
    const T d = n<T>(la.inner_size);
    const T r = n<T>(la.dt_rank);
    const T N = n<T>(la.state_size);
    T p = h * T(2) * d + d * n<T>(la.conv_kernel) + d * (r + T(2) * N) + r * d + d + d * N + d + d * h + r +
          T(2) * N;
    if (la.conv_bias) p += d;
    if (la.proj_bias) p += T(2) * d + h;
    return p;
  }
  const T key = n<T>(la.key_heads) * n<T>(la.key_head_dim);
  const T value = n<T>(la.value_heads) * n<T>(la.value_head_dim);
  const T nv = n<T>(la.value_heads);
  return h * (T(2) * key + T(2) * value) + h * T(2) * nv + (T(2) * key + value) * n<T>(la.conv_kernel) +
         T(2) * nv + n<T>(la.value_head_dim) + value * h;
}

// One FFN of width `width`: gated (SwiGLU/GeGLU) has 3 matrices, plain has 2 [LA][MEG].
template <typename T> T ffn_params(const ModelSpec& m, i64 width, bool bias) {
  const T matrices = m.ffn_gated ? T(3) : T(2);
  T p = matrices * n<T>(m.hidden_size) * n<T>(width);
  if (bias) p += (m.ffn_gated ? T(2) * n<T>(width) : n<T>(width)) + n<T>(m.hidden_size);
  return p;
}

// The counts of ParamCounts in number type T (methodology §1.2, §1.3).
template <typename T> struct Counts {
  T total{}, active{}, embedding{}, lm_head{}, per_layer_attention{}, dense_ffn_per_layer{}, expert_params{},
      moe_nonexpert_per_layer{}, norms_total{}, mm_active{}, moe_layers{};
};

template <typename T> Counts<T> count(const ModelSpec& m) {
  Counts<T> c;
  const T h = n<T>(m.hidden_size);
  // RMSNorm has h weights, LayerNorm h weights + h biases.
  const T norm_width = m.norm == NormKind::rms ? T(1) : T(2);
  const T norm_per_layer = n<T>(m.norms_per_layer) * norm_width * h;
  const T final_norm = norm_width * h;
  const bool moe = m.moe.experts > 0;
  const T layers = n<T>(m.layers);

  c.per_layer_attention = attention_params<T>(m);
  c.dense_ffn_per_layer = ffn_params<T>(m, m.ffn_size, m.mlp_bias);
  c.moe_layers = moe ? n<T>(m.layers - m.moe.dense_layers) : T(0);
  const T dense_layers = layers - c.moe_layers;

  T moe_total{};
  T moe_active{};
  if (moe) {
    // MoE layer, methodology §1.3: E·m·h·I_e + E_s·m·h·I_s + h·E (router) [+ small terms].
    const i64 shared_width =
        m.moe.shared_expert_ffn_size > 0 ? m.moe.shared_expert_ffn_size : m.moe.expert_ffn_size;
    c.expert_params = ffn_params<T>(m, m.moe.expert_ffn_size, m.moe.expert_bias);
    T nonexpert =
        n<T>(m.moe.shared_experts) * ffn_params<T>(m, shared_width, false) + h * n<T>(m.moe.experts);
    if (m.moe.router_bias) nonexpert += n<T>(m.moe.experts);
    if (m.moe.shared_expert_gate) nonexpert += h;
    c.moe_nonexpert_per_layer = nonexpert;
    moe_total = n<T>(m.moe.experts) * c.expert_params + nonexpert;
    moe_active = n<T>(m.moe.experts_per_token) * c.expert_params + nonexpert;
  }

  const T vocab = n<T>(m.vocab_size);
  c.embedding = vocab * h;
  c.lm_head = m.tied_embeddings ? T(0) : vocab * h + (m.lm_head_bias ? vocab : T(0));
  c.norms_total = layers * norm_per_layer + final_norm;
  // Linear-attention layers replace the attention block; the rest attend (methodology §1.5).
  const T linear_layers = n<T>(m.linear_attention.layers);
  const T attention_layer_count = layers - linear_layers;
  if (m.qk_norm) c.norms_total += attention_layer_count * qk_norm_params<T>(m);

  const T common = attention_layer_count * c.per_layer_attention +
                   linear_layers * linear_attention_params<T>(m) + layers * norm_per_layer +
                   dense_layers * c.dense_ffn_per_layer + c.embedding + c.lm_head + final_norm;
  c.total = common + c.moe_layers * moe_total;
  c.active = common + c.moe_layers * moe_active;
  // N_mm (methodology §1.2): GEMM weights per token = active − embedding gather − norms, with the
  // LM head always a GEMM of V·h (the tied embedding matrix is reused as the head).
  c.mm_active = c.active - c.embedding - c.norms_total + (m.tied_embeddings ? vocab * h : T(0));
  return c;
}

} // namespace

ParamCounts count_params(const ModelSpec& m) {
  const Counts<i64> k = count<i64>(m);
  ParamCounts c;
  c.total = k.total;
  c.active = k.active;
  c.embedding = k.embedding;
  c.lm_head = k.lm_head;
  c.per_layer_attention = k.per_layer_attention;
  c.dense_ffn_per_layer = k.dense_ffn_per_layer;
  c.expert_params = k.expert_params;
  c.moe_nonexpert_per_layer = k.moe_nonexpert_per_layer;
  c.norms_total = k.norms_total;
  c.mm_active = k.mm_active;
  c.moe_layers = k.moe_layers;
  c.vision = count_vision_params(m.vision).total;
  c.total += c.vision;
  if (m.params_override > 0 && c.total > 0) {
    // Architecture fitted to a bare parameter count: report the user's figure, scale active with it.
    const double scale = static_cast<double>(m.params_override) / static_cast<double>(c.total);
    c.active = static_cast<i64>(static_cast<double>(c.active) * scale);
    c.mm_active = static_cast<i64>(static_cast<double>(c.mm_active) * scale);
    c.total = m.params_override;
  }
  return c;
}

double params_upper_bound(const ModelSpec& m) {
  return count<double>(m).total + static_cast<double>(count_vision_params(m.vision).total);
}

std::int64_t attention_layers(const ModelSpec& m) {
  return std::max<i64>(0, m.layers - m.linear_attention.layers);
}

double linear_state_bytes_per_sequence(const ModelSpec& m, double conv_bytes_per_element) {
  const LinearAttentionSpec& la = m.linear_attention;
  if (m.kind != ModelKind::decoder || la.layers <= 0) return 0.0;
  if (la.kind == LinearKind::mamba) {
    // Mamba-1 [VLLM-SRC] (mamba1_state_shape): SSM state d_inner·N, conv state (K − 1)·d_inner.
    const double d = static_cast<double>(la.inner_size);
    return static_cast<double>(la.layers) *
           (d * static_cast<double>(la.state_size) * static_cast<double>(la.state_bytes_per_element) +
            static_cast<double>(std::max<i64>(0, la.conv_kernel - 1)) * d * conv_bytes_per_element);
  }
  // vLLM's gated-DeltaNet state [VLLM-SRC] (mamba_utils gated_delta_net_state_shape): the recurrent
  // state n_v·d_k·d_v per layer at the SSM state dtype, and the causal-conv state of the last K − 1
  // inputs, (K − 1)·(2·n_k·d_k + n_v·d_v), at the model dtype.
  const double recurrent = static_cast<double>(la.value_heads * la.key_head_dim * la.value_head_dim) *
                           static_cast<double>(la.state_bytes_per_element);
  const double conv_dim =
      static_cast<double>(2 * la.key_heads * la.key_head_dim + la.value_heads * la.value_head_dim);
  const double conv =
      static_cast<double>(std::max<i64>(0, la.conv_kernel - 1)) * conv_dim * conv_bytes_per_element;
  return static_cast<double>(la.layers) * (recurrent + conv);
}

double kv_cache_bytes_per_token(const ModelSpec& m, double kv_bytes_per_element) {
  if (m.kind != ModelKind::decoder) return 0.0;
  const double layers = static_cast<double>(attention_layers(m));
  if (m.attention.kind == AttentionKind::mla) {
    // MLA caches one latent + the decoupled RoPE key per layer, no separate V (methodology §2.3);
    // a sparse-attention indexer caches its own key of index_head_dim per token [DSV32].
    return layers *
           static_cast<double>(m.attention.kv_lora_rank + m.attention.rope_head_dim +
                               m.attention.index_head_dim) *
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

const char* to_string(LinearKind kind) {
  return kind == LinearKind::mamba ? "mamba" : "gated_deltanet";
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
