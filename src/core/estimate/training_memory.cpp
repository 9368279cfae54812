// Training memory per GPU (methodology §3): model states by optimizer and ZeRO stage, TP/PP/EP
// sharding, activations (Korthikanti recompute modes generalised to Llama-style layers), logits,
// LoRA/QLoRA, optimizer offload, ZeRO-3 gather buffer, runtime reserve and fragmentation.
#include <algorithm>
#include <cmath>

#include "core/estimate/training_detail.hpp"
#include "core/numeric.hpp"

namespace rightsize {
namespace {

using core::d;

// Per-token-per-layer activation bytes split into the tensors TP replicates (without sequence
// parallelism) and the tensors TP shards. 16-bit; scaled by b_a/2 for other activation formats.
struct ActivationSplit {
  double replicated = 0.0;
  double sharded = 0.0;
};

ActivationSplit activation_split(const PreparedModel& pm) {
  const ModelSpec& m = pm.model;
  const auto [h, h_q, h_kv, ffn] = detail::layer_widths(pm);
  const double scale = pm.activation_bytes / 2.0;
  ActivationSplit a;
  if (m.ffn_gated) {
    // Llama-style layer, methodology §3.3 (derived): 2·(2h + h + h_q + 2h_kv + h_q + h + 4I) =
    // 8h + 4h_q + 4h_kv + 8I. Replicated under TP without SP: the two norm inputs (4h), the QKV input
    // (2h) and the MLP input (2h); Q, K, V, attention output and gate/up/act/product are TP-sharded.
    a.replicated = 8.0 * h;
    a.sharded = 4.0 * h_q + 4.0 * h_kv + 8.0 * ffn;
  } else {
    // GPT-style layer with dropout [KOR22] (recalled; cross-checked [LA]): 34·h for MHA and I = 4h,
    // generalised to GQA and any I: norms 4h + QKV input 2h + attention-dropout mask h + MLP input 2h
    // + MLP dropout mask h = 10h replicated; Q 2h_q, K/V 4h_kv, out-proj input 2h_q, GELU in/out 4I
    // sharded (reduces to Korthikanti's 10 + 24/t for MHA).
    a.replicated = 10.0 * h;
    a.sharded = 4.0 * h_q + 4.0 * h_kv + 4.0 * ffn;
  }
  a.replicated *= scale;
  a.sharded *= scale;
  return a;
}

} // namespace

StateBytesPerParam state_bytes_per_param(Optimizer optimizer, bool fp32_gradients) {
  // Methodology §3.1: 16-bit weights 2 B, gradients 2 B (4 B FP32 main grads, [MEG-DOC]); K = FP32
  // master 4 + AdamW m, v 4 + 4 [ZERO][LA]; 8-bit AdamW master 4 + two 1-byte states [8BIT];
  // SGD + momentum master 4 + momentum 4 (derived).
  StateBytesPerParam b;
  b.gradients = fp32_gradients ? 4.0 : 2.0;
  switch (optimizer) {
  case Optimizer::adamw: b.optimizer = 12.0; break;
  case Optimizer::adamw_8bit: b.optimizer = 6.0; break;
  case Optimizer::sgd: b.optimizer = 8.0; break;
  }
  return b;
}

double model_state_bytes(double params, const StateBytesPerParam& b, int stage, int shards) {
  // ZeRO over N_d ranks (methodology §3.2 table, [ZERO][LA][MEG-DOC]): stage 1 shards optimizer
  // states, 2 also gradients, 3 also the 16-bit weights.
  const double n = static_cast<double>(std::max(1, shards));
  const double w = b.weights * params / (stage >= 3 ? n : 1.0);
  const double g = b.gradients * params / (stage >= 2 ? n : 1.0);
  const double o = b.optimizer * params / (stage >= 1 ? n : 1.0);
  return w + g + o;
}

std::int64_t lora_trainable_params(const ModelSpec& m, std::int64_t r, LoraTargets targets) {
  // r·(d_in + d_out) per adapted matrix (methodology §3.4, [LORA] recalled); "all_linear" adapts every
  // projection (PEFT "all-linear"), routed and shared experts included; "attention" q, k, v, o;
  // "qv" only q and v (the LoRA paper's choice).
  using i64 = std::int64_t;
  const i64 h = m.hidden_size;
  if (targets == LoraTargets::qv && m.attention.kind != AttentionKind::mla) {
    return m.layers * (r * (h + m.heads * m.head_dim) + r * (h + m.kv_heads * m.head_dim));
  }
  i64 attention = 0;
  if (m.attention.kind == AttentionKind::mla) {
    const AttentionSpec& a = m.attention;
    const i64 qk = m.heads * (a.qk_nope_head_dim + a.rope_head_dim);
    attention = a.q_lora_rank > 0 ? r * (h + a.q_lora_rank) + r * (a.q_lora_rank + qk) : r * (h + qk);
    attention += r * (h + a.kv_lora_rank + a.rope_head_dim) +
                 r * (a.kv_lora_rank + m.heads * (a.qk_nope_head_dim + a.v_head_dim)) +
                 r * (m.heads * a.v_head_dim + h);
  } else {
    const i64 h_q = m.heads * m.head_dim;
    const i64 h_kv = m.kv_heads * m.head_dim;
    attention = r * (h + h_q) + 2 * r * (h + h_kv) + r * (h_q + h);
  }
  if (targets != LoraTargets::all_linear) return m.layers * attention;
  auto ffn = [&](i64 width) { return (m.ffn_gated ? 2 : 1) * r * (h + width) + r * (width + h); };
  const i64 moe_layers = m.moe.experts > 0 ? m.layers - m.moe.dense_layers : 0;
  const i64 shared_width =
      m.moe.shared_expert_ffn_size > 0 ? m.moe.shared_expert_ffn_size : m.moe.expert_ffn_size;
  const i64 moe_ffn = m.moe.experts * ffn(m.moe.expert_ffn_size) + m.moe.shared_experts * ffn(shared_width);
  return m.layers * attention + (m.layers - moe_layers) * ffn(m.ffn_size) + moe_layers * moe_ffn;
}

double qlora_base_weight_bytes(const PreparedModel& pm) {
  // NF4 with double quantization, 4.127 bits per weight, on the linear layers; embedding and head
  // stay 16-bit (methodology §3.4, [QLORA] recalled).
  const ParamCounts& c = pm.params;
  const double edge = d(c.embedding) + d(c.lm_head);
  return (d(c.total) - edge) * (4.127 / 8.0) + edge * 2.0;
}

double activation_bytes_per_token_layer(const PreparedModel& pm, int tp, bool sequence_parallel) {
  const ActivationSplit a = activation_split(pm);
  const double t = static_cast<double>(std::max(1, tp));
  // Korthikanti: TP + SP divides everything by t; TP alone only the sharded tensors [KOR22].
  return sequence_parallel ? (a.replicated + a.sharded) / t : a.replicated + a.sharded / t;
}

double loss_bytes_per_logit(TrainingFramework framework) {
  // [LA]: 16-bit logits + FP32 copy = 6 B. torchtitan [TT-LOSS]: cross_entropy(pred.float()) keeps the
  // FP32 log-softmax output (4 B) for backward; its backward holds that plus the incoming and the
  // outgoing FP32 gradients (4 + 4 B) while every activation is still stored (derived). Hugging Face
  // transformers [HF-LOSS] runs the same ops: ForCausalLMLoss upcasts the logits (`logits.float()`) and
  // calls cross_entropy on them, so it holds the same 12 B.
  return framework == TrainingFramework::torchtitan || framework == TrainingFramework::transformers ? 12.0
                                                                                                    : 6.0;
}

double logits_bytes(const PreparedModel& pm, std::int64_t tokens, int tp, bool chunked,
                    double bytes_per_logit) {
  // s·b·V·(2 + 4)/t: 16-bit logits and an FP32 copy for the loss, vocab-parallel (§3.3, [LA]).
  // Chunked cross-entropy (torchtune CEWithChunkedOutputLoss [TT-CE]) upcasts one chunk at a time:
  // 16-bit logits of every token plus the FP32 part of one chunk.
  const double t = static_cast<double>(std::max(1, tp));
  const double v = d(pm.model.vocab_size);
  if (!chunked) return d(tokens) * v * bytes_per_logit / t;
  return (d(tokens) * 2.0 + std::min(d(tokens), k_ce_chunk_tokens) * (bytes_per_logit - 2.0)) * v / t;
}

double per_op_activation_bytes_per_token_layer(const PreparedModel& pm, int tp, bool sequence_parallel) {
  // torchtitan per-op selective AC [TT-AC]: the save list keeps matmul and SDPA outputs, but its
  // policy counts the matmuls of each block and recomputes the even ones; element-wise ops (norms,
  // RoPE, SwiGLU, residual adds) are recomputed. Kept per token (elements): the layer input h, the
  // SDPA output h_q and the odd matmuls — gated q, k, v, o, gate, up, down → q, v, gate, down =
  // h_q + h_kv + I + h → 16-bit bytes 4h + 4h_q + 2h_kv + 2I; plain q, k, v, o, fc1, fc2 → q, v,
  // fc1 → 2h + 4h_q + 2h_kv + 2I (methodology §3.3, derived). Replicated without SP: the layer input
  // and the down output (gated, 4h bytes) or the layer input (plain, 2h).
  const ModelSpec& m = pm.model;
  const auto [h, h_q, h_kv, ffn] = detail::layer_widths(pm);
  const double scale = pm.activation_bytes / 2.0;
  const double replicated = (m.ffn_gated ? 4.0 : 2.0) * h * scale;
  const double sharded = (4.0 * h_q + 2.0 * h_kv + 2.0 * ffn) * scale;
  const double t = static_cast<double>(std::max(1, tp));
  return sequence_parallel ? (replicated + sharded) / t : replicated + sharded / t;
}

double stored_activation_bytes(const PreparedModel& pm, std::int64_t tokens, double layers, int tp,
                               bool sequence_parallel, Recompute recompute) {
  if (recompute == Recompute::full) {
    // Full recompute keeps only each layer's input, b_a·h per token (÷t with SP) [KOR22].
    const double t = sequence_parallel ? static_cast<double>(std::max(1, tp)) : 1.0;
    return d(tokens) * layers * pm.activation_bytes * d(pm.model.hidden_size) / t;
  }
  if (recompute == Recompute::per_op)
    return d(tokens) * layers * per_op_activation_bytes_per_token_layer(pm, tp, sequence_parallel);
  // FlashAttention never stores the s×s scores, so "none" already equals "selective" (§3.3).
  return d(tokens) * layers * activation_bytes_per_token_layer(pm, tp, sequence_parallel);
}

namespace detail {

LayerWidths layer_widths(const PreparedModel& pm) {
  const ModelSpec& m = pm.model;
  return {d(m.hidden_size), d(m.heads * m.head_dim), d(m.kv_heads * m.head_dim),
          pm.ffn_width_for_activations};
}

double materialized_scores_bytes_per_token_layer(const TrainingContext& ctx, int tp) {
  if (ctx.workload->attention_kernel != AttentionKernel::materialized) return 0.0;
  // Korthikanti's 5·a·s term per token and layer (the causal mask does not shrink a dense s×s
  // softmax); heads are split over the TP ranks [KOR22].
  return 5.0 * d(ctx.pm->model.heads) * ctx.seq * (ctx.pm->activation_bytes / 2.0) / std::max(1, tp);
}

double layers_per_stage(const TrainingContext& ctx, int pp, int vp) {
  // Interleaved: v chunks of ceil(L/(p·v)) layers per rank (uneven splits round up per chunk).
  const double chunks = static_cast<double>(std::max(1, pp)) * std::max(1, vp);
  return std::ceil(ctx.layers / chunks) * std::max(1, vp);
}

StageParams stage_params(const TrainingContext& ctx, const TrainingLayout& lay, bool last) {
  // TP and PP divide the layer weights, EP additionally the routed experts; the embedding sits on the
  // first stage and the head on the last, both vocab-parallel over t (methodology §3.2, [LA][MEG-MOE]).
  const double t = std::max(1, lay.tp);
  const double e = std::max(1, lay.ep);
  const double frac = ctx.layers > 0.0 ? layers_per_stage(ctx, lay.pp, lay.vp) / ctx.layers : 1.0;
  double edge = 0.0;
  double edge_bytes = 0.0;
  if (lay.pp <= 1) {
    edge = ctx.train_embedding + ctx.train_head_single;
    edge_bytes = ctx.base_embedding_bytes + ctx.base_head_single_bytes;
  } else if (last) {
    edge = ctx.train_head_last;
    edge_bytes = ctx.base_head_last_bytes;
  } else {
    edge = ctx.train_embedding;
    edge_bytes = ctx.base_embedding_bytes;
  }
  StageParams s;
  s.dense = (ctx.train_dense * frac + edge) / t;
  s.expert = ctx.train_expert * frac / (t * e);
  s.frozen_dense_bytes = (ctx.base_dense_bytes * frac + edge_bytes) / t;
  s.frozen_expert_bytes = ctx.base_expert_bytes * frac / (t * e);
  return s;
}

StageSplit stage_split(const TrainingContext& ctx, const TrainingLayout& lay) {
  StageSplit s;
  s.first = stage_params(ctx, lay, false);
  s.last = lay.pp > 1 ? stage_params(ctx, lay, true) : s.first;
  return s;
}

namespace {

MemoryEstimate stage_memory(const TrainingContext& ctx, const TrainingLayout& lay, std::int64_t micro_batches,
                            const StageParams& sp, bool last) {
  const PreparedModel& pm = *ctx.pm;
  const TrainingConfig& cfg = *ctx.config;
  const int z = lay.zero_stage;
  const double n_d = std::max(1, lay.dp * lay.cp);
  const double n_e = std::max(1.0, n_d / std::max(1, lay.ep));
  auto shard = [](double x, bool sharded, double n) { return sharded ? x / n : x; };
  const StateBytesPerParam& b = ctx.state;

  MemoryEstimate mem;
  // Weights: frozen base + trainable 16-bit copies, sharded by ZeRO-3 (FSDP also shards frozen weights).
  mem.weights_bytes = shard(sp.frozen_dense_bytes + b.weights * sp.dense, z >= 3, n_d) +
                      shard(sp.frozen_expert_bytes + b.weights * sp.expert, z >= 3, n_e);
  mem.gradients_bytes = b.gradients * (shard(sp.dense, z >= 2, n_d) + shard(sp.expert, z >= 2, n_e));
  // Offload keeps optimizer states and the FP32 master in host RAM (methodology §3.5).
  mem.optimizer_bytes =
      lay.cpu_offload ? 0.0 : b.optimizer * (shard(sp.dense, z >= 1, n_d) + shard(sp.expert, z >= 1, n_e));

  // Activations. 1F1B: stage i holds min(p − i, m) micro-batches in flight, so the first stage holds
  // p micro-batches of L/p layers = L layers' worth [KOR22]; the last holds one plus the logits.
  const double ls = layers_per_stage(ctx, lay.pp, lay.vp);
  const double tokens_mb = d(lay.micro_batch) * ctx.seq / std::max(1, lay.cp);
  const auto tokens_i = static_cast<std::int64_t>(std::ceil(tokens_mb));
  const double in_flight =
      last ? 1.0 : std::min(d(std::max(1, lay.pp)), d(std::max<std::int64_t>(1, micro_batches)));
  const bool seq_par = lay.sequence_parallel && lay.tp > 1;
  double acts = in_flight * stored_activation_bytes(pm, tokens_i, ls, lay.tp, seq_par, lay.recompute);
  // Materialized scores are stored without recompute (and per-op, which saves the attention output
  // with them); selective recompute exists to drop them [KOR22].
  const double scores = materialized_scores_bytes_per_token_layer(ctx, lay.tp);
  const bool scores_stored = lay.recompute == Recompute::none || lay.recompute == Recompute::per_op;
  if (scores_stored) acts += in_flight * d(tokens_i) * ls * scores;
  if (!last) acts *= interleaved_activation_factor(lay.pp, lay.vp);
  // Full recompute rebuilds one layer's activations at a time during backward (working set, derived);
  // recomputed scores are one layer's working set too.
  if (lay.recompute == Recompute::full)
    acts += tokens_mb * activation_bytes_per_token_layer(pm, lay.tp, seq_par);
  if (!scores_stored) acts += tokens_mb * scores;
  if (last || lay.pp <= 1)
    acts += logits_bytes(pm, tokens_i, lay.tp, ctx.workload->chunked_cross_entropy,
                         loss_bytes_per_logit(ctx.workload->framework));
  mem.activations_bytes = acts;

  // ZeRO-3 gathers ≈ 2 layers of 16-bit weights at a time (prefetch), methodology §3.2 (derived).
  double gather = 0.0;
  if (z >= 3 && ctx.layers > 0.0) {
    const double t = std::max(1, lay.tp);
    const double per_layer = (ctx.base_dense_bytes + ctx.base_expert_bytes / std::max(1, lay.ep) +
                              b.weights * (ctx.train_dense + ctx.train_expert / std::max(1, lay.ep))) /
                             (ctx.layers * t);
    gather = 2.0 * per_layer;
  }
  const double itemized = mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes + acts + gather;
  mem.overhead_bytes = cfg.runtime_reserve_bytes + gather + cfg.fragmentation_fraction * itemized;
  mem.per_gpu_bytes = itemized + cfg.runtime_reserve_bytes + cfg.fragmentation_fraction * itemized;
  return mem;
}

} // namespace

MemoryEstimate training_memory(const TrainingContext& ctx, const TrainingLayout& lay,
                               std::int64_t micro_batches, const StageSplit& stages) {
  MemoryEstimate mem = stage_memory(ctx, lay, micro_batches, stages.first, false);
  if (lay.pp > 1) {
    const MemoryEstimate last = stage_memory(ctx, lay, micro_batches, stages.last, true);
    if (last.per_gpu_bytes > mem.per_gpu_bytes) mem = last;
  }
  mem.capacity_per_gpu_bytes = ctx.gpu->visible_memory();
  mem.usable_per_gpu_bytes = mem.capacity_per_gpu_bytes * ctx.config->usable_fraction;
  mem.fits = mem.per_gpu_bytes <= mem.usable_per_gpu_bytes;
  return mem;
}

} // namespace detail
} // namespace rightsize
