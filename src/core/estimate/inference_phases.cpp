// Phase times of the inference estimator (methodology §3, §4, §5): one prefill of n tokens, one
// decode round, and the per-layer, eager-launch, TP/EP and PP communication terms they add. Pure
// arithmetic on a Setup; no allocation, no I/O.
#include <algorithm>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/model.hpp"
#include "rightsize/units.hpp"

namespace rightsize::detail {

// Query-key pairs of a causal prefill of n tokens in one layer: Σ_{i=1..n} min(i, W).
double causal_pairs(double n, double window) {
  if (window <= 0.0 || n <= window) return n * (n + 1.0) / 2.0;
  return window * (window + 1.0) / 2.0 + (n - window) * window;
}

// Weight bytes a GPU column (one GPU per stage, summed over stages) reads when `tokens` tokens are
// in the step, as bytes at the dense read rate. MoE reads only the experts the batch touches, and
// their grouped kernels stream them at the GPU's expert-read fraction of η_m (methodology §4.3).
double weight_read_bytes(const Setup& s, double tokens) {
  const PreparedModel& pm = *s.pm;
  double bytes =
      pm.layer_weight_bytes + pm.lm_head_bytes + (pm.lm_head_bytes > 0.0 ? 0.0 : pm.embedding_bytes);
  bytes /= s.t;
  if (s.m->moe.experts > 0) {
    // The experts see every attention-DP rank's tokens and are spread over the t·adp GPUs.
    const double touched =
        experts_touched(d(s.m->moe.experts), d(s.m->moe.experts_per_token), tokens * s.adp);
    bytes += d(pm.params.moe_layers) * touched * pm.bytes_per_expert / (s.t * s.adp) / s.expert_read;
  }
  return bytes;
}

// Fixed GPU time per forward pass: every layer runs a chain of small kernels (norms, RoPE and KV
// writes, activation quantization, residual adds; MoE adds router, top-k, token alignment and the
// weighted sum) whose launch-to-completion time a byte or FLOP count does not see, even inside CUDA
// graphs. t_layer per layer plus t_moe per MoE layer, plus t_idx per layer whose attention runs a
// sparse-attention indexer first (DeepSeek-V3.2 / GLM-5 DSA: every layer [DSV32]); a GPU column
// passes all L layers once per micro-batch round (methodology §3, "per-layer time"). A calibrate
// overlay scales it by the stack's fitted multiplier (methodology §3.4.1, GpuEfficiency::layer_overhead).
double layer_overhead_s(const Setup& s) {
  if (!s.decoder) return 0.0;
  const double indexed_layers = s.m->attention.index_heads > 0 ? d(attention_layers(*s.m)) : 0.0;
  return s.gpu->efficiency.layer_overhead * (d(s.m->layers) * s.engine->layer_overhead_s +
                                             d(s.pm->params.moe_layers) * s.engine->moe_layer_overhead_s +
                                             indexed_layers * s.engine->indexer_layer_overhead_s);
}

// The per-sequence time of a decode step: bm·L·t_seq, each GPU column (one GPU at TP 1) passing its
// bm sequences through all L layers (methodology §3, "per-sequence time"). t_seq is the GPU's fitted
// decode_sequence_layer_s.
double sequence_layer_s(const Setup& s, double bm) {
  if (!s.decoder) return 0.0;
  return bm * d(s.m->layers) * s.gpu->efficiency.decode_sequence_layer_s;
}

// Extra fixed time of a forward pass that carries prompt tokens: engines capture CUDA graphs for
// decode-only batches [VLLM-GRAPH][SGL-SRC][TRT-PCG], so the small kernels of a prefill step are
// launched one by one from the CPU: L·t_pf + L_moe·E·t_pf,e, the MoE part per routed expert (every
// rank counts, sorts and aligns the tokens of all E experts before its GEMMs; methodology §3,
// "eager prefill time").
double eager_prefill_overhead_s(const Setup& s) {
  if (!s.decoder) return 0.0;
  return d(s.m->layers) * s.engine->prefill_layer_overhead_s +
         d(s.pm->params.moe_layers) * d(s.m->moe.experts) * s.engine->prefill_expert_overhead_s;
}

// The fixed time of one forward pass that carries prompt tokens: per-layer time, eager prefill time
// and the engine's step overhead (methodology §3, "per-layer time", "eager prefill time").
double prefill_step_fixed_s(const Setup& s) {
  return layer_overhead_s(s) + eager_prefill_overhead_s(s) + s.engine->step_overhead_s;
}

// Exposed TP / EP communication per forward pass of `tokens` tokens per attention rank
// (methodology §5.2, §5.5, §5.6). Without attention DP every GPU of the stage holds every token:
// two all-reduces of tokens·h·b_a per layer over the TP group, and expert parallelism inside it
// combines the experts' partial outputs with the same all-reduce (vLLM / TensorRT-LLM EP without
// DP). With attention DP the ranks hold different tokens: attention (and dense FFN) layers
// all-reduce inside the rank's t GPUs, and each MoE layer dispatches and combines its tokens with
// two all-to-alls over the t·adp GPUs, each GPU sending its 1/t share of the rank's tokens to k
// experts ([DSV3] §3.4, DeepEP).
double tp_comm_s(const Setup& s, double tokens) {
  const EngineConfig& e = *s.engine;
  const double msg = tokens * d(s.m->hidden_size) * s.pm->residual_bytes;
  const double ar = s.tp_int > 1 ? group_allreduce_s(msg, s.tp_int, s.tp_local, s.local_link_gb_per_s,
                                                     s.local_hop_s, s.tp_link_gb_per_s, s.tp_hop_s,
                                                     s.link_efficiency, e.collective_base_latency_s)
                                 : 0.0;
  const double layers = d(s.m->layers);
  const int group = static_cast<int>(s.t * s.adp);
  if (s.adp <= 1.0 || s.m->moe.experts == 0 || group <= 1) return 2.0 * layers * ar;
  const double moe_layers = d(s.pm->params.moe_layers);
  // Dispatch sends the experts' GEMM input (fp8 when the GEMMs are fp8, [DSV3] §3.4); combine
  // returns their 16-bit outputs.
  const double rows = tokens / s.t * d(s.m->moe.experts_per_token) * d(s.m->hidden_size);
  const double dispatch = collective_time_s(rows * std::min(s.pm->activation_bytes, s.pm->residual_bytes),
                                            group, s.ep_link_gb_per_s, s.link_efficiency, s.ep_hop_s,
                                            e.collective_base_latency_s, false);
  const double combine = collective_time_s(rows * s.pm->residual_bytes, group, s.ep_link_gb_per_s,
                                           s.link_efficiency, s.ep_hop_s, e.collective_base_latency_s, false);
  return layers * ar + (layers - moe_layers) * ar + moe_layers * (dispatch + combine);
}

// Stage-to-stage activation hand-offs for one micro-batch of `tokens` tokens (methodology §5.3).
double pp_comm_s(const Setup& s, double tokens) {
  if (s.p <= 1.0) return 0.0;
  const double msg = tokens * d(s.m->hidden_size) * s.pm->residual_bytes;
  const double one = s.engine->collective_base_latency_s + s.pp_hop_s +
                     msg / (gb_per_s_to_bytes_per_s(s.pp_link_gb_per_s) * s.link_efficiency);
  return (s.p - 1.0) * one;
}

// The efficiency of a step's GEMMs against large ones when they have `rows` rows per attention rank
// (methodology §4.3, item "grouped GEMM"): thin GEMMs run at M/(M + M½) of η_f. Routed experts run
// grouped GEMMs of rows·adp·k/E rows each, at their own M/(M + M½); each expert's width is split
// moe_tp = t·adp/ep ways (t without EP), and a narrow N fills fewer tiles, N/(N + N½) (DeepSeek-R1
// TP8 vs EP8 rows); the most loaded expert group sets the pace (methodology §5.6).
GemmShape gemm_shape(const Setup& s, double rows, bool experts) {
  const double m_half = s.engine->gemm_half_efficiency_tokens;
  GemmShape g;
  g.dense = m_half > 0.0 ? rows / (rows + m_half) : 1.0;
  g.expert = g.dense;
  if (!experts) return g;
  // Every attention-DP rank's tokens reach the experts of the stage.
  const double routed = rows * s.adp * d(s.m->moe.experts_per_token);
  const double expert_rows = std::max(1.0, routed / d(s.m->moe.experts));
  g.expert = m_half > 0.0 ? expert_rows / (expert_rows + m_half) : 1.0;
  const double n_half = s.engine->gemm_half_efficiency_cols;
  const double cols = d(s.m->moe.expert_ffn_size) / s.moe_tp;
  if (n_half > 0.0 && cols > 0.0) g.expert *= cols / (cols + n_half);
  g.expert /= expert_load_imbalance(routed, s.ep_int);
  return g;
}

// Prefill of one request of n tokens on an idle replica (methodology §4.1, §4.4):
// F = (2·N_mm − head)·n + head + attention pairs, compute-bound at F·η_f per GPU times t. After
// `cached` tokens found in the prefix cache the n new tokens attend to them too: the pairs of
// positions cached + 1 … cached + n, and each chunk reads the cached KV (methodology §3.9).
PhaseTime prefill_time(const Setup& s, double n, double gemm_rows, double cached) {
  const PreparedModel& pm = *s.pm;
  PhaseTime r;
  double flops = (pm.mm_flops_per_token - pm.head_flops_per_token) * n + pm.head_flops_per_token;
  double attention_flops = 0.0;
  if (s.decoder) {
    const auto pairs = [&](double window) {
      return causal_pairs(cached + n, window) - (cached > 0.0 ? causal_pairs(cached, window) : 0.0);
    };
    attention_flops =
        pm.attention_flops_per_pair * (s.full_layers * pairs(0.0) + s.sliding_layers * pairs(s.window));
    // A vision-language prompt's images run through the vision tower first (methodology §1.6);
    // a LoRA adapter adds its shrink and expand FLOPs (methodology §3.10).
    flops += (s.vision_flops_per_token + s.lora_flops_per_token) * n;
  } else {
    flops = pm.mm_flops_per_token * n;
    // A UNet's attention runs at its own scales, not over the n rows (methodology §3.7).
    attention_flops =
        pm.unet ? pm.unet_attention_flops_per_pass : pm.attention_flops_per_pair * d(s.m->layers) * n * n;
  }
  flops += attention_flops;
  const double chunks = std::max(1.0, std::ceil(n / d(s.engine->max_batched_tokens)));
  const double chunk_tokens = std::min(n, d(s.engine->max_batched_tokens));
  // `gemm_rows` is the M of the GEMMs this prefill runs in: the prompt alone for an idle replica,
  // the whole mixed step (other prompts + decode tokens) under continuous batching.
  // At least one row: a DiT/ViT item of 0 tokens gave 0/0 = NaN here (found by fuzz_estimate).
  const double expert_flops = s.decoder && s.m->moe.experts > 0 && pm.expert_flops_per_token > 0.0
                                  ? pm.expert_flops_per_token * n
                                  : 0.0;
  const GemmShape g = gemm_shape(s, std::max({1.0, chunk_tokens, gemm_rows}), expert_flops > 0.0);
  const double shape = g.dense;
  const double expert_shape = g.expert;
  // Attention takes its own dtype's rate (attention_dtype).
  r.compute_s = (flops - expert_flops - attention_flops) /
                    (s.t * s.compute_flops_per_s * s.unet_gemm_fraction * shape) +
                attention_flops / (s.t * s.attention_flops_per_s * shape) +
                expert_flops / (s.t * s.compute_flops_per_s * expert_shape);
  const double cached_kv = cached > 0.0 ? cached_kv_bytes_gpu(s, cached) : 0.0;
  r.memory_s =
      chunks * (weight_read_bytes(s, chunk_tokens) + cached_kv + s.lora_bytes) / s.bandwidth_bytes_per_s;
  r.routing_s = n * moe_routing_bytes_per_token(pm, s.adp, s.ep_int) / s.bandwidth_bytes_per_s;
  r.comm_s = chunks * (tp_comm_s(s, chunk_tokens) + pp_comm_s(s, chunk_tokens));
  r.total_s = std::max(r.compute_s, r.memory_s) + r.routing_s + r.comm_s + chunks * prefill_step_fixed_s(s);
  return r;
}

// What n prompt tokens add to a decode step of `decode_tokens` tokens when they ride in it under
// continuous batching (methodology §3.1 "Open loop: the step loop"): the weights are read and the
// step's fixed time paid for the decode anyway, so the prompt adds its FLOPs above the step's
// memory-bound floor, its MoE routing and the bytes it adds to each collective, chunk by chunk:
// max(C_d + C_p, M_d + M_c) − max(C_d, M_d) + R_p + Σ_chunks [comm(d + c) − comm(d)], with M_c the
// cached prefix's KV each chunk reads (§3.9). The eager-launch time of a step that carries prompt
// tokens is not in it: it is paid once per step, not per prompt.
double mixed_prefill_s(const Setup& s, const PhaseTime& decode, double decode_tokens, double n,
                       double gemm_rows, double cached) {
  const PhaseTime alone = prefill_time(s, n, gemm_rows, cached);
  const double budget = std::max(1.0, d(s.engine->max_batched_tokens));
  const double chunks = std::max(1.0, std::ceil(n / budget));
  const double chunk = std::min(n, budget);
  const double cached_read_s =
      cached > 0.0 ? chunks * cached_kv_bytes_gpu(s, cached) / s.bandwidth_bytes_per_s : 0.0;
  const double gemm_s =
      std::max(decode.gemm_compute_s() + alone.compute_s, decode.gemm_memory_s() + cached_read_s) -
      std::max(decode.gemm_compute_s(), decode.gemm_memory_s());
  const double comm_s = chunks * (tp_comm_s(s, decode_tokens + chunk) - tp_comm_s(s, decode_tokens) +
                                  pp_comm_s(s, decode_tokens + chunk) - pp_comm_s(s, decode_tokens));
  return std::max(0.0, gemm_s) + alone.routing_s + std::max(0.0, comm_s);
}

// A separate draft model's k sequential passes (methodology §3.8): each reads the draft's weights
// (TP-sharded) and its KV of every sequence at the mean context, computes 2·N_draft FLOPs per token,
// all-reduces like the target in proportion to its layers, and pays the engine's layer overhead per
// draft layer; the passes run inside the verification round's step (as MTP and EAGLE-3 below).
PhaseTime draft_model_time(const Setup& s, double bm, double mean_context) {
  PhaseTime r;
  const Speculative& sp = *s.speculative;
  const DraftModel& dm = sp.draft;
  const double k = d(sp.draft_tokens);
  const double kv = bm * dm.kv_bytes_per_token * mean_context / draft_kv_shards(dm, s.t);
  r.memory_s = k * (dm.weight_bytes / s.t + kv) / s.bandwidth_bytes_per_s;
  r.compute_s = k * bm * dm.flops_per_token / s.t / s.compute_flops_per_s;
  r.comm_s = k * tp_comm_s(s, bm) * dm.layers / std::max(1.0, d(s.m->layers));
  r.total_s = std::max(r.memory_s, r.compute_s) + r.comm_s +
              k * dm.layers * s.engine->layer_overhead_s * s.gpu->efficiency.layer_overhead;
  return r;
}

// The drafter's k sequential passes of one speculative step, each over bm tokens (methodology
// §3.8): MTP and EAGLE-3 run one decoder layer and the output head per drafted token, at the
// model's per-layer bytes and FLOPs (routed experts as the batch touches them), reading the draft
// layer's own KV at the mean context, plus one layer's fixed time; n-gram drafting is a CPU lookup (0). The
// passes run inside the verification round's engine step (vLLM's proposer in the same execute_model, SGLang's
// EAGLE worker on the same batch, TensorRT-LLM's one-model MTP / EAGLE-3 in the same graph), so they add no
// step overhead of their own.
PhaseTime draft_time(const Setup& s, double bm, double mean_context) {
  PhaseTime r;
  const Speculative& sp = *s.speculative;
  if (sp.method == SpeculativeMethod::draft_model) return draft_model_time(s, bm, mean_context);
  if (sp.method != SpeculativeMethod::mtp && sp.method != SpeculativeMethod::eagle3) return r;
  const PreparedModel& pm = *s.pm;
  const double layers = std::max(1.0, d(s.m->layers));
  const double head_bytes = (pm.lm_head_bytes > 0.0 ? pm.lm_head_bytes : pm.embedding_bytes) / s.t;
  // One layer's share of the weights a decode step touches (without the head), and the head.
  const double layer_bytes = (weight_read_bytes(s, bm) - head_bytes) / layers;
  const double layer_flops = (pm.mm_flops_per_token - pm.head_flops_per_token) / layers;
  const double k = d(sp.draft_tokens);
  // The draft layer attends over its own KV of every sequence's context (one full-attention layer).
  const double draft_kv = bm * pm.kv_bytes_per_token_layer * s.kv_fraction * mean_context;
  r.memory_s = k * (layer_bytes + head_bytes + draft_kv) / s.bandwidth_bytes_per_s;
  r.compute_s = k * bm * (layer_flops + pm.head_flops_per_token) / s.t / s.compute_flops_per_s;
  r.comm_s = k * tp_comm_s(s, bm) / layers;
  r.total_s = std::max(r.memory_s, r.compute_s) + r.comm_s +
              k * s.engine->layer_overhead_s * s.gpu->efficiency.layer_overhead;
  return r;
}

// One decode round: every in-flight sequence (batch split into p micro-batches of bm) gets one
// token. Per GPU column: bytes = weights touched + KV at the mean context; FLOPs = 2·N_mm + attention.
// With speculative decoding (methodology §3.8) the round verifies q = k + 1 positions per sequence
// in one pass (weights and KV read once, FLOPs, routing and messages × q), adds the drafter's k
// passes, and yields E = tokens_per_step() tokens per sequence: the time returned is per token
// (every part ÷ E), so TPOT, throughput and the queueing model read it as a one-token round.
PhaseTime decode_time(const Setup& s, double batch, double mean_context) {
  const PreparedModel& pm = *s.pm;
  PhaseTime r;
  const double bm = std::max(1.0, batch / s.p);
  const bool speculative = s.speculative != nullptr && s.speculative->method != SpeculativeMethod::none;
  const double q = speculative ? d(s.speculative->draft_tokens) + 1.0 : 1.0;
  const double kv_bytes = bm * seq_kv_bytes_gpu(s, mean_context) * s.p; // column = all stages
  const double attn_pairs =
      s.full_layers * mean_context + s.sliding_layers * std::min(mean_context, s.window);
  const double gemm_flops = q * bm * (pm.mm_flops_per_token + s.lora_flops_per_token) / s.t;
  const double attention_flops = q * bm * pm.attention_flops_per_pair * attn_pairs / s.t;
  // A column reads its weights once per micro-batch: p micro-batches per round, each through p stages.
  // Multi-LoRA: each distinct adapter of the micro-batch is read once (methodology §3.10).
  const double lora_bytes = lora_distinct(s, bm) * s.lora_bytes;
  r.attention_memory_s = kv_bytes / s.bandwidth_bytes_per_s;
  r.attention_compute_s = attention_flops / s.attention_flops_per_s;
  r.memory_s = (weight_read_bytes(s, q * bm) + lora_bytes) / s.bandwidth_bytes_per_s + r.attention_memory_s;
  r.compute_s = gemm_flops / s.compute_flops_per_s + r.attention_compute_s;
  // p micro-batches of bm tokens through L/p layers each: bm tokens through all L per GPU.
  r.routing_s = q * bm * moe_routing_bytes_per_token(pm, s.adp, s.ep_int) / s.bandwidth_bytes_per_s;
  r.comm_s = tp_comm_s(s, q * bm) + pp_comm_s(s, q * bm);
  // The GEMMs (weights against their FLOPs) and the attention kernels (KV against theirs) run one
  // after the other, each at its own roofline.
  r.total_s = std::max(r.gemm_memory_s(), r.gemm_compute_s()) +
              std::max(r.attention_memory_s, r.attention_compute_s) + r.routing_s + r.comm_s +
              layer_overhead_s(s) + s.engine->step_overhead_s + sequence_layer_s(s, bm);
  if (!speculative) return r;
  const PhaseTime draft = draft_time(s, bm, mean_context);
  const double per_token = 1.0 / s.speculative->tokens_per_step();
  r.memory_s = (r.memory_s + draft.memory_s) * per_token;
  r.compute_s = (r.compute_s + draft.compute_s) * per_token;
  r.attention_memory_s *= per_token;
  r.attention_compute_s *= per_token;
  r.routing_s *= per_token;
  r.comm_s = (r.comm_s + draft.comm_s) * per_token;
  r.total_s = (r.total_s + draft.total_s) * per_token;
  return r;
}

} // namespace rightsize::detail
