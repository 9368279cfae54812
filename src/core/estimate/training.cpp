// Training step time, throughput, MFU/HFU and cost for one layout (methodology §4.1–4.2 FLOPs,
// §5.1–5.5 communication, §6.2 cost). Pure arithmetic on a context derived once per job.
#include "rightsize/training.hpp"

#include <algorithm>
#include <cmath>

#include "core/estimate/training_detail.hpp"
#include "core/numeric.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

using core::d;

// Query-key pairs per token per layer of a causal sequence of s tokens counted as the half square
// s/2 (Megatron's causal convention, methodology §4.1 [MEG]); sliding layers see at most W keys.
double causal_pairs_per_token(double s, double window) {
  if (window <= 0.0 || s <= window) return s / 2.0;
  return (window * window / 2.0 + (s - window) * window) / s;
}

TrainingLayout normalized(const TrainingLayout& in) {
  TrainingLayout l = in;
  l.tp = std::max(1, l.tp);
  l.pp = std::max(1, l.pp);
  l.dp = std::max(1, l.dp);
  l.ep = std::max(1, l.ep);
  l.cp = std::max(1, l.cp);
  l.vp = l.pp > 1 ? std::max(1, l.vp) : 1;
  l.zero_stage = std::clamp(l.zero_stage, 0, 3);
  l.micro_batch = std::max<std::int64_t>(1, l.micro_batch);
  return l;
}

} // namespace

double pipeline_bubble_fraction(int stages, std::int64_t micro_batches, int virtual_stages) {
  // (p − 1)/(m + p − 1) for GPipe / 1F1B [NAR21] (recalled), methodology §5.3. Interleaved 1F1B with
  // v model chunks per rank: the bubble is (p − 1)/v slots, i.e. (p − 1)/(v·m) of the ideal time [NAR21
  // §2.2].
  const double p = std::max(1, stages);
  const double v = std::max(1, virtual_stages);
  const double m = d(std::max<std::int64_t>(1, micro_batches));
  return (p - 1.0) / (v * m + p - 1.0);
}

double interleaved_activation_factor(int stages, int virtual_stages) {
  // Korthikanti et al. §4.2.3 [KOR22]: the interleaved schedule keeps (1 + (p − 1)/(p·v)) times the
  // non-interleaved first stage's activations (its warm-up runs more chunks forward before backward).
  if (stages <= 1 || virtual_stages <= 1) return 1.0;
  const double p = stages, v = virtual_stages;
  return 1.0 + (p - 1.0) / (p * v);
}

TrainingFlops training_flops_per_token(const PreparedModel& pm, std::int64_t seq_len, TrainingMethod method,
                                       Recompute recompute, std::int64_t lora_params) {
  const double s = d(seq_len);
  const bool decoder = pm.model.kind == ModelKind::decoder;
  // Attention forward per token: 4·n_h·d_h per pair × pairs (causal half square for decoders,
  // the full square for DiT/ViT), methodology §4.1.
  const double window = d(pm.model.attention.sliding_window);
  const double pairs = decoder ? d(pm.full_attention_layers) * causal_pairs_per_token(s, 0.0) +
                                     d(pm.sliding_layers) * causal_pairs_per_token(s, window)
                               : d(pm.model.layers) * s;
  const double attn_fwd = pm.attention_flops_per_pair * pairs;
  const double mm_fwd = pm.mm_flops_per_token; // 2·N_mm_active, LM head included, embedding excluded
  TrainingFlops f;
  f.forward_per_token = mm_fwd + attn_fwd;
  if (method == TrainingMethod::full) {
    // Forward once, backward twice (input grad + weight grad): 3× forward [MEG] — 6·N_mm + 6·L·n_h·d_h·s.
    f.model_per_token = 3.0 * f.forward_per_token;
  } else {
    // Frozen base (derived): per weight the forward costs 2 FLOP, the input gradient dX = dY·Wᵀ 2 FLOP,
    // and the weight gradient dW = Xᵀ·dY (2 FLOP) is skipped → 4·N. Attention has no weights and keeps
    // 3× its forward; the adapters are trained normally (6·N_lora).
    const double n_lora = d(lora_params);
    f.forward_per_token += 2.0 * n_lora;
    f.model_per_token = 2.0 * mm_fwd + 3.0 * attn_fwd + 6.0 * n_lora;
  }
  f.hardware_per_token = f.model_per_token;
  if (recompute == Recompute::selective) {
    // Selective recompute re-runs the attention core (QKᵀ, softmax, ·V) [KOR22].
    f.hardware_per_token += attn_fwd;
  } else if (recompute == Recompute::full) {
    // Full recompute re-runs the layers' forward, not the logits [NAR21] (methodology §4.1).
    f.hardware_per_token += f.forward_per_token - pm.head_flops_per_token;
  } else if (recompute == Recompute::per_op) {
    // torchtitan per-op selective AC [TT-AC]: its policy counts the matmuls of each block and
    // recomputes the even ones — q, k, v, o, gate, up, down (gated) or q, k, v, o, fc1, fc2 → k, o and
    // up / fc2: 2·(h·h_kv + h_q·h + h·I) per layer; attention (SDPA output saved) and the head are not;
    // element-wise ops are memory-bound and counted as time, not FLOPs (methodology §4.1).
    const auto [h, h_q, h_kv, ffn] = detail::layer_widths(pm);
    f.hardware_per_token += 2.0 * d(pm.model.layers) * (h * h_kv + h_q * h + h * ffn);
  }
  return f;
}

namespace detail {

namespace {

// Trainable parameters and frozen base bytes. The layer body is split into routed experts and the
// rest in the proportion prepare_model found (it already honours a bare parameter count). Returns the
// LoRA parameter count (0 for full training).
std::int64_t set_trainable(TrainingContext& ctx, const PreparedModel& pm, const TrainingWorkload& w) {
  const ModelSpec& m = pm.model;
  const ParamCounts& c = pm.params;
  const double body = d(c.total - c.embedding - c.lm_head);
  const double body_bytes = pm.layer_weight_bytes + pm.expert_weight_bytes;
  const double expert_share = body_bytes > 0.0 ? pm.expert_weight_bytes / body_bytes : 0.0;
  std::int64_t lora_total = 0;
  if (!ctx.lora) {
    ctx.train_dense = body * (1.0 - expert_share);
    ctx.train_expert = body * expert_share;
    ctx.train_embedding = d(c.embedding);
    ctx.train_head_single = d(c.lm_head);
    ctx.train_head_last = c.lm_head > 0 ? d(c.lm_head) : d(c.embedding); // tied: the last stage keeps a copy
    ctx.trainable_params = c.total;
  } else {
    const std::int64_t r = std::max<std::int64_t>(1, w.lora_rank);
    lora_total = lora_trainable_params(m, r, w.lora_targets);
    const double h = d(m.hidden_size);
    const double i_e = d(m.moe.expert_ffn_size);
    const double per_expert = d(r) * ((m.ffn_gated ? 2.0 : 1.0) * (h + i_e) + (i_e + h));
    // Only "all_linear" adapts the (expert) MLPs; attention-only targets leave the experts frozen.
    ctx.train_expert =
        w.lora_targets == LoraTargets::all_linear ? d(c.moe_layers) * d(m.moe.experts) * per_expert : 0.0;
    ctx.train_dense = d(lora_total) - ctx.train_expert;
    ctx.trainable_params = lora_total;
    if (w.method == TrainingMethod::lora) {
      // LoRA keeps the base in the spec's weight precision (bf16 normally).
      ctx.base_dense_bytes = pm.layer_weight_bytes;
      ctx.base_expert_bytes = pm.expert_weight_bytes;
      ctx.base_embedding_bytes = pm.embedding_bytes;
      ctx.base_head_single_bytes = pm.lm_head_bytes;
      ctx.base_head_last_bytes = pm.lm_head_bytes > 0.0 ? pm.lm_head_bytes : pm.embedding_bytes;
    } else {
      const double nf4 = 4.127 / 8.0; // NF4 + double quantization (methodology §2.2, §3.4)
      ctx.base_dense_bytes = body * (1.0 - expert_share) * nf4;
      ctx.base_expert_bytes = body * expert_share * nf4;
      ctx.base_embedding_bytes = 2.0 * d(c.embedding);
      ctx.base_head_single_bytes = 2.0 * d(c.lm_head);
      ctx.base_head_last_bytes = 2.0 * d(c.lm_head > 0 ? c.lm_head : c.embedding);
    }
  }
  return lora_total;
}

// Bytes of FP8 casts per token [TE-FP8]: every FP8 GEMM input is read in BF16 (2 B) and written in
// FP8 (1 B), amax fused into the cast (delayed scaling). Per layer, forward: the QKV, output, MLP-in
// and MLP-down inputs (2h + h_q + I); backward: the output gradients of q/k/v, o, the MLP-in GEMMs
// (gate and up when gated) and down (h_q + 2h_kv + 2h + g·I, g = 2 gated, 1 plain). Derived.
double fp8_cast_bytes_per_token(const PreparedModel& pm) {
  const ModelSpec& m = pm.model;
  const auto [h, h_q, h_kv, ffn] = detail::layer_widths(pm);
  const double fwd = 2.0 * h + h_q + ffn;
  const double bwd = h_q + 2.0 * h_kv + 2.0 * h + (m.ffn_gated ? 2.0 : 1.0) * ffn;
  return 3.0 * d(m.layers) * (fwd + bwd);
}

// Share of TP communication hidden: the workload's tp_comm_overlap, else the framework's default —
// NeMo's performance recipes enable TE userbuffer overlap, Megatron-Core and torchtitan do not by
// default (docs/training.md §4) — else the config's.
double tp_overlap_fraction(const TrainingWorkload& w, const TrainingConfig& cfg) {
  if (w.tp_comm_overlap) return std::clamp(*w.tp_comm_overlap, 0.0, 1.0);
  if (w.framework == TrainingFramework::nemo) return cfg.tp_overlap_enabled_fraction;
  return std::clamp(cfg.tp_overlap_fraction, 0.0, 1.0);
}

} // namespace

TrainingContext make_training_context(const PreparedModel& pm, const TrainingWorkload& w, const Gpu& gpu,
                                      const TrainingConfig& cfg) {
  TrainingContext ctx;
  ctx.pm = &pm;
  ctx.workload = &w;
  ctx.gpu = &gpu;
  ctx.config = &cfg;
  const ModelSpec& m = pm.model;
  const ParamCounts& c = pm.params;
  ctx.layers = d(m.layers);
  ctx.hidden = d(m.hidden_size);
  ctx.q_width = d(m.heads * m.head_dim);
  ctx.kv_width = d(m.kv_heads * m.head_dim);
  ctx.seq = d(std::max<std::int64_t>(1, w.seq_len));
  ctx.moe_layers = d(c.moe_layers);
  ctx.experts_per_token = d(m.moe.experts_per_token);
  ctx.lora = w.method != TrainingMethod::full;
  ctx.state = state_bytes_per_param(w.optimizer, cfg.fp32_gradients);

  const std::int64_t lora_total = set_trainable(ctx, pm, w);
  for (int i = 0; i < 4; ++i) {
    ctx.flops[static_cast<std::size_t>(i)] =
        training_flops_per_token(pm, w.seq_len, w.method, static_cast<Recompute>(i), lora_total);
  }

  // Compute rate: dense peak of the GEMM dtype × the kernel-level efficiency of training GEMMs. The
  // catalog field `training_mfu` is read as that efficiency: communication, bubble and optimizer time
  // are modelled explicitly, so the end-to-end MFU comes out lower (docs/training.md).
  // Attention-core forward FLOPs per token (all layers): CP overlaps its ring exchange with them.
  ctx.attention_fwd_per_token = ctx.flops[0].forward_per_token - pm.mm_flops_per_token - 2.0 * d(lora_total);
  ctx.tp_overlap = tp_overlap_fraction(w, cfg);
  ctx.precision_supported = gpu.supports(pm.math);
  const double peak_tflops = ctx.precision_supported ? gpu.tflops(pm.math) : gpu.tflops(MathDtype::bf16);
  ctx.peak_flops_per_s = std::max(1e-3, peak_tflops) * k_flops_per_tflop;
  const double eff =
      cfg.gemm_efficiency_override > 0.0 ? cfg.gemm_efficiency_override : gpu.efficiency.training_mfu;
  ctx.compute_flops_per_s = ctx.peak_flops_per_s * std::max(1e-3, eff);
  ctx.hbm_bytes_per_s = gb_per_s_to_bytes_per_s(std::max(1e-3, gpu.memory_bandwidth_gb_per_s)) *
                        std::max(1e-3, gpu.efficiency.decode_bandwidth);
  ctx.attention_flops_per_s = ctx.compute_flops_per_s;
  ctx.fp8_gemms = ctx.precision_supported && pm.math == MathDtype::fp8;
  if (ctx.fp8_gemms) {
    ctx.attention_flops_per_s =
        std::max(1e-3, gpu.tflops(MathDtype::bf16)) * k_flops_per_tflop * std::max(1e-3, eff);
  }
  const double cast_s = ctx.fp8_gemms ? fp8_cast_bytes_per_token(pm) / ctx.hbm_bytes_per_s : 0.0;
  for (std::size_t i = 0; i < ctx.flops.size(); ++i) {
    const TrainingFlops& f = ctx.flops[i];
    if (!ctx.fp8_gemms) {
      ctx.compute_s_per_token[i] = f.hardware_per_token / ctx.compute_flops_per_s;
      continue;
    }
    // FP8 per op [TE-FP8]: Transformer Engine runs the linear layers' GEMMs in FP8; the attention core
    // (FlashAttention / cuDNN BF16), norms and the loss stay BF16. Attention runs 3× its forward, 4×
    // when it is recomputed (selective, full).
    const auto rc = static_cast<Recompute>(i);
    const double attn_passes = (rc == Recompute::selective || rc == Recompute::full) ? 4.0 : 3.0;
    const double attn = attn_passes * ctx.attention_fwd_per_token;
    const double gemm = std::max(0.0, f.hardware_per_token - attn);
    ctx.compute_s_per_token[i] = gemm / ctx.compute_flops_per_s + attn / ctx.attention_flops_per_s + cast_s;
  }
  return ctx;
}

} // namespace detail

TrainingEstimate estimate_training(const PreparedModel& model, const TrainingWorkload& workload,
                                   const Gpu& gpu, const TrainingLayout& layout, const TrainingConfig& config,
                                   const GpuPrice& price) {
  const detail::TrainingContext ctx = detail::make_training_context(model, workload, gpu, config);
  const TrainingLayout l = normalized(layout);
  return detail::evaluate_training(ctx, l, price, detail::stage_split(ctx, l));
}

namespace detail {
TrainingLayout normalized_layout(const TrainingLayout& layout) {
  return normalized(layout);
}
} // namespace detail

} // namespace rightsize
