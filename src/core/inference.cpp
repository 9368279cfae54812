// Inference estimate for one deployment (methodology §2 memory, §4 roofline, §5 interconnect,
// §6.1 cost). Pure arithmetic on a PreparedModel: no allocation, no I/O.
#include "rightsize/inference.hpp"

#include <algorithm>
#include <cmath>

#include "inference_detail.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace detail {

double hop_latency(const EngineConfig& e, LinkKind link) {
  switch (link) {
  case LinkKind::scaleup: return e.scaleup_hop_latency_s;
  case LinkKind::pcie: return e.pcie_hop_latency_s;
  case LinkKind::network: return e.network_hop_latency_s;
  }
  return e.pcie_hop_latency_s;
}

// KV bytes one sequence of context c holds on one GPU (its TP share of its PP stage's layers).
// Sliding layers hold min(c, W) tokens; linear-attention layers a fixed state that TP shards by
// value heads (Mamba: d_inner) like KV heads (methodology §2.3).
double seq_kv_bytes_gpu(const Setup& s, double c) {
  const double tokens = s.full_layers * c + s.sliding_layers * std::min(c, s.window);
  const double shards = s.pm->linear_state_shards;
  const double state =
      shards > 0.0 ? s.pm->linear_state_bytes_per_sequence * std::ceil(shards / s.t) / shards : 0.0;
  return (s.pm->kv_bytes_per_token_layer * s.kv_fraction * tokens + state) / s.p;
}

// The dtype attention's score and value products run in: 16 bits when the GEMMs are quantized
// (fp8 / int8 / fp4), since engines' FlashAttention-2/3 and FlashInfer prefill kernels keep Q·Kᵀ and
// P·V in bf16/fp16 unless fp8 attention is asked for ([FA3] §3.3 makes fp8 an option; vLLM and
// SGLang default to 16-bit attention); the GEMM dtype otherwise (methodology §4.1).
MathDtype attention_dtype(MathDtype gemm, const Gpu& gpu) {
  if (gemm != MathDtype::fp8 && gemm != MathDtype::int8 && gemm != MathDtype::fp4) return gemm;
  return gpu.supports(MathDtype::bf16) ? MathDtype::bf16 : MathDtype::fp16;
}

// Query-key pairs of a causal prefill of n tokens in one layer: Σ_{i=1..n} min(i, W).
double causal_pairs(double n, double window) {
  if (window <= 0.0 || n <= window) return n * (n + 1.0) / 2.0;
  return window * (window + 1.0) / 2.0 + (n - window) * window;
}

// Weight bytes a GPU column (one GPU per stage, summed over stages) reads when `tokens` tokens are
// in the step. MoE reads only the experts the batch touches (methodology §4.3).
double weight_read_bytes(const Setup& s, double tokens) {
  const PreparedModel& pm = *s.pm;
  double bytes =
      pm.layer_weight_bytes + pm.lm_head_bytes + (pm.lm_head_bytes > 0.0 ? 0.0 : pm.embedding_bytes);
  bytes /= s.t;
  if (s.m->moe.experts > 0) {
    // The experts see every attention-DP rank's tokens and are spread over the t·adp GPUs.
    const double touched =
        experts_touched(d(s.m->moe.experts), d(s.m->moe.experts_per_token), tokens * s.adp);
    bytes += d(pm.params.moe_layers) * touched * pm.bytes_per_expert / (s.t * s.adp);
  }
  return bytes;
}

// Fixed GPU time per forward pass: every layer runs a chain of small kernels (norms, RoPE and KV
// writes, activation quantization, residual adds; MoE adds router, top-k, token alignment and the
// weighted sum) whose launch-to-completion time a byte or FLOP count does not see, even inside CUDA
// graphs. t_layer per layer plus t_moe per MoE layer; a GPU column passes all L layers once per
// micro-batch round (methodology §3, "per-layer time").
double layer_overhead_s(const Setup& s) {
  if (!s.decoder) return 0.0;
  return d(s.m->layers) * s.engine->layer_overhead_s +
         d(s.pm->params.moe_layers) * s.engine->moe_layer_overhead_s;
}

// Extra fixed time of a forward pass that carries prompt tokens: engines capture CUDA graphs for
// decode-only batches [VLLM-GRAPH][SGL-SRC][TRT-PCG], so the small kernels of a prefill step are
// launched one by one from the CPU (methodology §3, "eager prefill time").
double eager_prefill_overhead_s(const Setup& s) {
  if (!s.decoder) return 0.0;
  return d(s.m->layers) * s.engine->prefill_layer_overhead_s +
         d(s.pm->params.moe_layers) * s.engine->prefill_moe_layer_overhead_s;
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

// Prefill of one request of n tokens on an idle replica (methodology §4.1, §4.4):
// F = (2·N_mm − head)·n + head + attention pairs, compute-bound at F·η_f per GPU times t.
PhaseTime prefill_time(const Setup& s, double n, double gemm_rows) {
  const PreparedModel& pm = *s.pm;
  PhaseTime r;
  double flops = (pm.mm_flops_per_token - pm.head_flops_per_token) * n + pm.head_flops_per_token;
  double attention_flops = 0.0;
  if (s.decoder) {
    attention_flops = pm.attention_flops_per_pair *
                      (s.full_layers * causal_pairs(n, 0.0) + s.sliding_layers * causal_pairs(n, s.window));
    // A vision-language prompt's images run through the vision tower first (methodology §1.6).
    flops += s.vision_flops_per_token * n;
  } else {
    flops = pm.mm_flops_per_token * n;
    attention_flops = pm.attention_flops_per_pair * d(s.m->layers) * n * n;
  }
  flops += attention_flops;
  const double chunks = std::max(1.0, std::ceil(n / d(s.engine->max_batched_tokens)));
  const double chunk_tokens = std::min(n, d(s.engine->max_batched_tokens));
  // Thin GEMMs (short prompts) run below the large-GEMM efficiency: scale η_f by M/(M + M½).
  // `gemm_rows` is the M of the GEMMs this prefill runs in: the prompt alone for an idle replica,
  // the whole mixed step (other prompts + decode tokens) under continuous batching.
  const double m_half = s.engine->gemm_half_efficiency_tokens;
  // At least one row: a DiT/ViT item of 0 tokens gave 0/0 = NaN here (found by fuzz_estimate).
  const double rows = std::max({1.0, chunk_tokens, gemm_rows});
  const double shape = m_half > 0.0 ? rows / (rows + m_half) : 1.0;
  // Routed experts run grouped GEMMs of rows·k/E rows each: thin per-expert GEMMs run at their own
  // M/(M + M½) efficiency (methodology §4.3, item "grouped GEMM").
  double expert_flops = 0.0;
  double expert_shape = shape;
  if (s.decoder && s.m->moe.experts > 0 && pm.expert_flops_per_token > 0.0) {
    expert_flops = pm.expert_flops_per_token * n;
    // Every attention-DP rank's tokens reach the experts of the stage.
    const double routed = rows * s.adp * d(s.m->moe.experts_per_token);
    const double expert_rows = std::max(1.0, routed / d(s.m->moe.experts));
    expert_shape = m_half > 0.0 ? expert_rows / (expert_rows + m_half) : 1.0;
    // Each expert's intermediate width is split moe_tp = t·adp/ep ways (t without EP): a narrow
    // N fills fewer tiles too, N/(N + N½) (methodology §4.3; DeepSeek-R1 TP8 vs EP8 rows).
    const double n_half = s.engine->gemm_half_efficiency_cols;
    const double cols = d(s.m->moe.expert_ffn_size) / s.moe_tp;
    if (n_half > 0.0 && cols > 0.0) expert_shape *= cols / (cols + n_half);
    // The most loaded expert group sets the pace (methodology §5.6).
    expert_shape /= expert_load_imbalance(routed, s.ep_int);
  }
  // Attention takes its own dtype's rate (attention_dtype).
  r.compute_s = (flops - expert_flops - attention_flops) / (s.t * s.compute_flops_per_s * shape) +
                attention_flops / (s.t * s.attention_flops_per_s * shape) +
                expert_flops / (s.t * s.compute_flops_per_s * expert_shape);
  r.memory_s = chunks * weight_read_bytes(s, chunk_tokens) / s.bandwidth_bytes_per_s;
  r.routing_s = n * moe_routing_bytes_per_token(pm, s.adp, s.ep_int) / s.bandwidth_bytes_per_s;
  r.comm_s = chunks * (tp_comm_s(s, chunk_tokens) + pp_comm_s(s, chunk_tokens));
  r.total_s = std::max(r.compute_s, r.memory_s) + r.routing_s + r.comm_s +
              chunks * (layer_overhead_s(s) + eager_prefill_overhead_s(s) + s.engine->step_overhead_s);
  return r;
}

// One decode round: every in-flight sequence (batch split into p micro-batches of bm) gets one
// token. Per GPU column: bytes = weights touched + KV at the mean context; FLOPs = 2·N_mm + attention.
PhaseTime decode_time(const Setup& s, double batch, double mean_context) {
  const PreparedModel& pm = *s.pm;
  PhaseTime r;
  const double bm = std::max(1.0, batch / s.p);
  const double kv_bytes = bm * seq_kv_bytes_gpu(s, mean_context) * s.p; // column = all stages
  const double attn_pairs =
      s.full_layers * mean_context + s.sliding_layers * std::min(mean_context, s.window);
  const double gemm_flops = bm * pm.mm_flops_per_token / s.t;
  const double attention_flops = bm * pm.attention_flops_per_pair * attn_pairs / s.t;
  // A column reads its weights once per micro-batch: p micro-batches per round, each through p stages.
  r.memory_s = (weight_read_bytes(s, bm) + kv_bytes) / s.bandwidth_bytes_per_s;
  r.compute_s = gemm_flops / s.compute_flops_per_s + attention_flops / s.attention_flops_per_s;
  // p micro-batches of bm tokens through L/p layers each: bm tokens through all L per GPU.
  r.routing_s = bm * moe_routing_bytes_per_token(pm, s.adp, s.ep_int) / s.bandwidth_bytes_per_s;
  r.comm_s = tp_comm_s(s, bm) + pp_comm_s(s, bm);
  r.total_s = std::max(r.memory_s, r.compute_s) + r.routing_s + r.comm_s + layer_overhead_s(s) +
              s.engine->step_overhead_s;
  return r;
}

Point evaluate(const Setup& s, const InferenceWorkload& w, double clients, double slots,
               const PhaseTime& prefill) {
  if (s.decoder) {
    return w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0
               ? evaluate_open(s, w, slots)
               : evaluate_closed(s, w, clients, slots);
  }
  Point pt{};
  const double batch = clients;
  pt.prefill = prefill;
  // DiT / ViT: a batch of items runs passes_per_item forward passes together.
  const double passes = d(std::max<std::int64_t>(1, s.m->passes_per_item));
  const double tokens = d(s.m->tokens_per_item);
  PhaseTime one = prefill_time(s, tokens, tokens * batch);
  const double compute = batch * one.compute_s;
  const double step = std::max(compute, one.memory_s) + one.comm_s * batch + s.engine->step_overhead_s;
  pt.decode = one;
  pt.decode.compute_s = compute;
  pt.decode.total_s = step;
  // Text encoder and VAE decoder: once per image, on one GPU (methodology §3.7).
  const double fixed_s = s.pm->image_fixed_flops / s.compute_flops_per_s;
  pt.ttft_s = passes * step + batch * fixed_s;
  pt.tpot_s = 0.0;
  pt.e2e_s = pt.ttft_s;
  pt.tokens_per_s_replica = 0.0;
  pt.in_flight = batch;
  pt.ttft = {pt.ttft_s, pt.ttft_s, pt.ttft_s};
  pt.e2e = pt.ttft;
  return pt;
}

double stat_of(double mean, const Percentiles& p, Statistic stat) {
  switch (stat) {
  case Statistic::mean: return mean;
  case Statistic::p50: return p.p50_s;
  case Statistic::p90: return p.p90_s;
  case Statistic::p99: return p.p99_s;
  }
  return mean;
}

bool meets_latency(const Point& pt, const Sla* sla) {
  if (sla == nullptr) return !pt.overloaded;
  if (pt.overloaded) return false;
  if (sla->ttft_ms && stat_of(pt.ttft_s, pt.ttft, sla->ttft_stat) * 1e3 > *sla->ttft_ms) return false;
  if (sla->tpot_ms && stat_of(pt.tpot_s, pt.tpot, sla->tpot_stat) * 1e3 > *sla->tpot_ms) return false;
  if (sla->e2e_ms && stat_of(pt.e2e_s, pt.e2e, sla->e2e_stat) * 1e3 > *sla->e2e_ms) return false;
  return true;
}

} // namespace detail

// Routing passes of the MoE layers (methodology §4.3): the engines materialise every (token, expert)
// row: vLLM's fused_moe gathers rows by sorted token id and writes a per-expert output cache that
// moe_sum reduces; TensorRT-LLM's expand and finalize kernels do the same [VLLM-SRC] [TRT-DOC]. These
// are memory-bound passes outside the GEMMs. A GPU handles tokens·adp·k/ep rows: every attention-DP
// rank's tokens reach the stage's experts, split over ep expert groups.
double moe_routing_bytes_per_token(const PreparedModel& pm, double attention_dp, int ep) {
  const ModelSpec& m = pm.model;
  if (m.moe.experts == 0) return 0.0;
  const double rows = std::max(1.0, attention_dp) * detail::d(m.moe.experts_per_token) / std::max(1, ep);
  const double b_in = std::min(pm.activation_bytes, pm.residual_bytes);
  return detail::d(pm.params.moe_layers) * rows * detail::d(m.hidden_size) * (b_in + 2.0 * pm.residual_bytes);
}
using namespace detail;

double latency_stat_s(const InferenceEstimate& e, int figure, Statistic statistic) {
  if (figure == 0) return stat_of(e.ttft_s, e.ttft, statistic);
  if (figure == 1) return stat_of(e.tpot_s, e.tpot, statistic);
  return stat_of(e.e2e_s, e.e2e, statistic);
}

const char* to_string(Bound bound) {
  switch (bound) {
  case Bound::compute: return "compute";
  case Bound::memory_bandwidth: return "memory_bandwidth";
  case Bound::interconnect: return "interconnect";
  case Bound::capacity: return "capacity";
  }
  return "capacity";
}

double experts_touched(double experts, double experts_per_token, double tokens) {
  if (experts <= 0.0 || experts_per_token <= 0.0 || tokens <= 0.0) return 0.0;
  // k > E would put a negative base under a fractional power (NaN): every expert is touched.
  const double miss = std::max(0.0, 1.0 - experts_per_token / experts);
  return experts * (1.0 - std::pow(miss, tokens));
}

// Max-over-mean load of `groups` expert groups receiving `routed` token-to-expert assignments
// under uniform routing: the heaviest of n bins holding m balls on average carries about
// m + sqrt(2·m·ln n) (Raab & Steger, "Balls into bins — a simple and tight analysis", RANDOM 1998),
// so the factor is 1 + sqrt(2·ln(n)/m). A lower bound: real routers are skewed (what EPLB
// rebalances, [DSV3] §3.4).
double expert_load_imbalance(double routed, int groups) {
  if (groups <= 1 || routed <= 0.0) return 1.0;
  const double per_group = routed / static_cast<double>(groups);
  return 1.0 + std::sqrt(2.0 * std::log(static_cast<double>(groups)) / std::max(1.0, per_group));
}

double group_allreduce_s(double message_bytes, int gpus, int local, double local_gb_per_s, double local_hop_s,
                         double net_gb_per_s, double net_hop_s, double efficiency, double base_latency_s) {
  const double ring =
      collective_time_s(message_bytes, gpus, net_gb_per_s, efficiency, net_hop_s, base_latency_s, true);
  if (local <= 1 || local >= gpus || local_gb_per_s <= 0.0) return ring;
  const double domains = std::ceil(static_cast<double>(gpus) / static_cast<double>(local));
  // Reduce-scatter + all-gather inside the domain cost what an all-reduce there costs.
  const double inside =
      collective_time_s(message_bytes, local, local_gb_per_s, efficiency, local_hop_s, base_latency_s, true);
  // Double binary tree across domains: 2·ceil(log2 D) hops, each GPU moving its 1/local shard up
  // and down the tree, 2·S/(local·B) ([NCCL-TREE], Sanders et al. 2009).
  const double shard = message_bytes / static_cast<double>(local);
  const double across = base_latency_s + 2.0 * std::ceil(std::log2(domains)) * net_hop_s +
                        2.0 * shard / (gb_per_s_to_bytes_per_s(net_gb_per_s) * efficiency);
  return std::min(ring, inside + across);
}

double collective_time_s(double message_bytes, int group_gpus, double link_gb_per_s, double efficiency,
                         double hop_latency_s, double base_latency_s, bool all_reduce) {
  // α–β ring model with NCCL bus-bandwidth factors (methodology §5.1, [NCCL], latency form [GENZ]):
  // all-reduce 2(n−1)/n·S/B with 2(n−1) steps; all-gather/reduce-scatter/all-to-all (n−1)/n, n−1 steps.
  if (group_gpus <= 1) return 0.0;
  const double n = static_cast<double>(group_gpus);
  const double factor = all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
  const double steps = all_reduce ? 2.0 * (n - 1.0) : n - 1.0;
  return base_latency_s + steps * hop_latency_s +
         factor * message_bytes / (gb_per_s_to_bytes_per_s(link_gb_per_s) * efficiency);
}

namespace {

// estimate_inference; with `step_only`, a closed loop at a given concurrency returns as soon as its
// decode_step_s is known (closed_decode_step_s).
InferenceEstimate estimate(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
                           const Deployment& dep, const EngineConfig& engine_in, const Sla* sla,
                           const GpuPrice& price, bool step_only) {
  InferenceEstimate est;
  // The arrival rate is the deployment's; each replica carries its share.
  // With attention DP the timing model follows one rank, which carries 1/adp of the replica's
  // clients or arrivals (methodology §5.6).
  const double adp = d(std::max(1, dep.attention_dp));
  InferenceWorkload w = workload;
  w.request_rate_per_s /= static_cast<double>(std::max(1, dep.replicas())) * adp;
  const ModelSpec& m = pm.model;
  // The engine's defaults on this GPU and TP degree (SGLang tiers them, methodology §3.2).
  const EngineConfig engine = engine_for_gpu(engine_in, gpu, dep.tp);
  // The factors of this layout family when an overlay fitted them, else the GPU's (docs/calibration.md).
  const GpuEfficiency& eff = efficiency_for(gpu, layout_family(dep));
  Setup s{};
  s.pm = &pm;
  s.m = &m;
  s.gpu = &gpu;
  s.engine = &engine;
  s.t = d(dep.tp);
  s.p = d(dep.pp);
  s.tp_int = dep.tp;
  s.ep_int = std::max(1, dep.ep);
  s.adp = adp;
  s.moe_tp = std::max(1.0, s.t * adp / d(s.ep_int));
  s.decoder = m.kind == ModelKind::decoder;
  s.vision_flops_per_token =
      s.decoder && w.input_tokens > 0 ? pm.vision_flops_per_request / d(w.input_tokens) : 0.0;
  // GPUs without bf16 (T4, V100) run bf16 checkpoints in fp16, as vLLM does after a cast; GPUs
  // without fp4 tensor cores run NVFP4 weights weight-only with 16-bit math (vLLM's FP4 Marlin
  // kernels), so W4A4 becomes W4A16 there (methodology §4.1).
  MathDtype math = pm.math;
  if (math == MathDtype::fp4 && !gpu.supports(MathDtype::fp4)) math = MathDtype::bf16;
  if (math == MathDtype::bf16 && !gpu.supports(MathDtype::bf16) && gpu.supports(MathDtype::fp16))
    math = MathDtype::fp16;
  est.precision_supported = gpu.supports(math);
  est.gemm_math = math;
  const double peak_tflops = est.precision_supported ? gpu.tflops(math) : gpu.tflops(MathDtype::bf16);
  s.compute_flops_per_s = std::max(1e-3, peak_tflops) * k_flops_per_tflop * eff.prefill_compute;
  const MathDtype attention_math = attention_dtype(math, gpu);
  s.attention_flops_per_s = gpu.supports(attention_math) ? std::max(1e-3, gpu.tflops(attention_math)) *
                                                               k_flops_per_tflop * eff.prefill_compute
                                                         : s.compute_flops_per_s;
  s.bandwidth_bytes_per_s = gb_per_s_to_bytes_per_s(gpu.memory_bandwidth_gb_per_s) * eff.decode_bandwidth;
  // TP shards KV heads; past n_kv they are replicated (one head per rank); MLA is replicated
  // on every rank (methodology §2.3, [LA], [VLLM-SRC]).
  if (m.attention.kind == AttentionKind::mla || m.kv_heads <= 0) {
    s.kv_fraction = 1.0;
  } else {
    s.kv_fraction = std::ceil(d(m.kv_heads) / s.t) / d(m.kv_heads);
  }
  s.full_layers = d(pm.full_attention_layers);
  s.sliding_layers = d(pm.sliding_layers);
  s.window = d(m.attention.sliding_window);
  // Resident weights on the most loaded GPU: layers split over t·p; embedding and LM head are
  // vocab-parallel over t, on the first and last stage (methodology §2.2, [LA]).
  const double head = pm.lm_head_bytes > 0.0 ? pm.lm_head_bytes : pm.embedding_bytes;
  const double edge =
      dep.pp == 1 ? pm.embedding_bytes + pm.lm_head_bytes : std::max(pm.embedding_bytes, head);
  s.weights_gpu_bytes =
      pm.layer_weight_bytes / (s.t * s.p) + pm.expert_weight_bytes / (s.t * adp * s.p) + edge / s.t;
  const LinkKind tp_link = link_for_group(gpu, dep.tp);
  s.tp_link_gb_per_s = link_gb_per_s(gpu, tp_link);
  s.tp_hop_s = hop_latency(engine, tp_link);
  // Across nodes the TP group spans domains of the scale-up domain (or node) size.
  const int domain =
      gpu.scaleup_gb_per_s > 0.0 ? std::max(gpu.scaleup_domain_gpus, 1) : std::max(1, gpu.gpus_per_node);
  s.tp_local = tp_link == LinkKind::network ? std::min(dep.tp, domain) : dep.tp;
  const LinkKind local_link = link_for_group(gpu, s.tp_local);
  s.local_link_gb_per_s = link_gb_per_s(gpu, local_link);
  s.local_hop_s = hop_latency(engine, local_link);
  const LinkKind ep_link = link_for_group(gpu, dep.moe_group_gpus());
  s.ep_link_gb_per_s = link_gb_per_s(gpu, ep_link);
  s.ep_hop_s = hop_latency(engine, ep_link);
  const LinkKind pp_link = link_for_group(gpu, dep.gpus_per_replica());
  s.pp_link_gb_per_s = link_gb_per_s(gpu, pp_link);
  s.pp_hop_s = hop_latency(engine, pp_link);
  s.link_efficiency = eff.communication;
  // A replica spanning GPUs needs a known link; without one the communication terms are left out
  // (finite numbers) and the estimate says so.
  const bool ep_unknown = dep.moe_group_gpus() > 1 && adp > 1.0 && s.ep_link_gb_per_s <= 0.0;
  if ((dep.tp > 1 && s.tp_link_gb_per_s <= 0.0) || (dep.pp > 1 && s.pp_link_gb_per_s <= 0.0) || ep_unknown) {
    est.link_known = false;
    s.tp_int = dep.tp > 1 && s.tp_link_gb_per_s <= 0.0 ? 1 : s.tp_int;
    s.pp_link_gb_per_s = s.pp_link_gb_per_s <= 0.0 ? 1e12 : s.pp_link_gb_per_s;
    s.adp = ep_unknown ? 1.0 : s.adp; // no all-to-all term without a link (the verdict says so)
    s.ep_link_gb_per_s = s.ep_link_gb_per_s <= 0.0 ? 1e12 : s.ep_link_gb_per_s;
  }

  // Memory budget per GPU (methodology §2.1, §2.5–2.7): C·u ≥ W + A + R + KV.
  MemoryEstimate& mem = est.memory;
  mem.capacity_per_gpu_bytes = gpu.visible_memory();
  mem.usable_per_gpu_bytes = mem.capacity_per_gpu_bytes * engine.usable_fraction;
  // The vision tower sits on the first pipeline stage, TP-sharded like the LM (methodology §1.6).
  mem.weights_bytes = s.weights_gpu_bytes + pm.image_encoder_weight_bytes + pm.vision_weight_bytes / s.t;
  const double step_tokens = d(engine.max_batched_tokens);
  if (s.decoder) {
    // A_peak ≈ b_a·T_step·(h + 3·I/t) + 4 B·S_logit·V/t, S_logit = max_num_seqs rows of fp32 logits.
    mem.activations_bytes =
        pm.activation_bytes * step_tokens * (d(m.hidden_size) + 3.0 * pm.ffn_width_for_activations / s.t) +
        4.0 * d(engine.max_num_seqs) * d(m.vocab_size) / s.t;
  }
  mem.overhead_bytes = engine.runtime_reserve_bytes + engine.cuda_graph_bytes +
                       (dep.gpus_per_replica() > 1 ? engine.nccl_reserve_bytes : 0.0);
  const double block = d(std::max<std::int64_t>(1, engine.block_tokens));
  const double context = std::ceil(d(w.context_tokens()) / block) * block; // paged blocks (§2.4)
  const double per_seq_kv = seq_kv_bytes_gpu(s, context);
  const double kv_budget =
      mem.usable_per_gpu_bytes - mem.weights_bytes - mem.activations_bytes - mem.overhead_bytes;

  double max_conc = 0.0;
  if (!s.decoder) {
    // Items in flight are bounded by activations: T·b_a·(h + 3·I/t) per item per layer set.
    const double per_item =
        d(m.tokens_per_item) * pm.activation_bytes * (d(m.hidden_size) * 4.0 + 3.0 * d(m.ffn_size) / s.t);
    max_conc = kv_budget > 0.0 && per_item > 0.0 ? std::floor(kv_budget / per_item) : 0.0;
    mem.activations_bytes = 0.0;
  } else if (kv_budget > 0.0 && per_seq_kv > 0.0) {
    max_conc = std::floor(kv_budget / per_seq_kv);
  }
  max_conc = std::min(max_conc, d(engine.max_num_seqs) * s.p); // per attention-DP rank
  est.max_concurrency = static_cast<std::int64_t>(max_conc * adp);
  const bool open_arrivals = w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0;
  if (step_only && s.decoder && w.concurrency > 0 && !open_arrivals) {
    // The step evaluate() below would report: the closed loop's decode of the busiest rank's batch.
    const double rank_batch = std::ceil(d(w.concurrency) / adp - 1e-9);
    est.decode_step_s = closed_decode_step(s, w, rank_batch, std::max(1.0, max_conc)).total_s;
    return est;
  }

  const PhaseTime prefill = prefill_time(s, s.decoder ? d(w.input_tokens) : d(m.tokens_per_item), 0.0);
  const double slots = std::max(1.0, max_conc);
  // Concurrency: the given one, or the largest that fits and meets the latency SLA (throughput
  // B/TPOT(B) rises with B, and latency is monotone in B, so a binary search finds it).
  // Attention-DP ranks step together (every MoE layer exchanges their tokens), so the busiest
  // rank, ceil(C/adp) clients, sets the step time; the replica serves C clients (methodology §5.6).
  double batch = std::ceil(d(w.concurrency) / adp - 1e-9);
  if (w.concurrency <= 0) {
    double lo = 1.0;
    // A DiT step is compute-bound at thousands of tokens per image: batching adds latency, not
    // images/s, so without a latency target one image at a time (methodology §3.7).
    const bool image_unbounded = m.kind == ModelKind::dit && (sla == nullptr || !sla->e2e_ms);
    double hi = image_unbounded ? 1.0 : std::max(1.0, max_conc);
    if (!meets_latency(evaluate(s, w, hi, slots, prefill), sla)) {
      while (hi - lo > 1.0) {
        const double mid = std::floor((lo + hi) / 2.0);
        if (meets_latency(evaluate(s, w, mid, slots, prefill), sla)) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      batch = lo;
    } else {
      batch = hi;
    }
  }
  const Point pt = evaluate(s, w, batch, slots, prefill);
  const bool open_loop = s.decoder && w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0;
  if (open_loop) batch = std::ceil(pt.in_flight);
  // Clients the replica serves per rank-level point: C/batch (adp when C divides evenly).
  const double rank_share = w.concurrency > 0 && !open_loop ? d(w.concurrency) / std::max(1.0, batch) : adp;
  est.concurrency = static_cast<std::int64_t>(std::llround(batch * rank_share));
  // The KV the requested concurrency needs (a closed loop beyond the slots would queue: the timing
  // says so through clients_exceed_kv, the memory verdict through `fits`).
  mem.kv_cache_bytes = s.decoder ? batch * per_seq_kv : 0.0;
  if (!s.decoder) {
    mem.activations_bytes = batch * d(m.tokens_per_item) * pm.activation_bytes *
                            (d(m.hidden_size) * 4.0 + 3.0 * d(m.ffn_size) / s.t);
  }
  mem.per_gpu_bytes = mem.weights_bytes + mem.kv_cache_bytes + mem.activations_bytes + mem.overhead_bytes;
  mem.fits = mem.per_gpu_bytes <= mem.usable_per_gpu_bytes && max_conc >= 1.0;

  const double replicas = d(dep.replicas());
  est.prefill_s = prefill.total_s;
  // k whole prompts in one step: the GEMMs run at k·ISL rows (one weight read), attention per
  // prompt, one step's fixed time (methodology §3.6, "batched prefill worker").
  const double isl = d(w.input_tokens);
  const double k = s.decoder && isl > 0.0 ? std::max(1.0, std::floor(step_tokens / isl)) : 1.0;
  est.prefill_prompts_per_step = k;
  est.prefill_batch_step_s = prefill.total_s;
  if (k > 1.0) {
    const PhaseTime pk = prefill_time(s, isl, k * isl);
    est.prefill_batch_step_s = std::max(k * pk.compute_s, pk.memory_s) + k * (pk.routing_s + pk.comm_s) +
                               layer_overhead_s(s) + eager_prefill_overhead_s(s) + engine.step_overhead_s;
  }
  est.decode_step_s = pt.decode.total_s;
  // Undo the efficiencies: the time the same bytes and FLOPs take at the catalog's peaks.
  const double eta_m = eff.decode_bandwidth, eta_f = eff.prefill_compute;
  est.ttft_floor_s = std::max(prefill.memory_s * eta_m, prefill.compute_s * eta_f);
  est.tpot_floor_s = s.decoder ? std::max(pt.decode.memory_s * eta_m, pt.decode.compute_s * eta_f) : 0.0;
  est.ttft_s = pt.ttft_s;
  est.tpot_s = pt.tpot_s;
  est.e2e_s = pt.e2e_s;
  est.ttft = pt.ttft;
  est.tpot = pt.tpot;
  est.e2e = pt.e2e;
  est.queue_wait_s = pt.wait_s;
  est.in_flight = pt.in_flight * rank_share;
  est.prefill_utilization = pt.prefill_utilization;
  est.overloaded = pt.overloaded;
  est.open_loop = s.decoder && w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0;
  est.clients_exceed_kv = s.decoder && w.arrival == Arrival::closed_loop && batch > std::max(1.0, max_conc);
  est.comm_s_per_token = pt.decode.comm_s;
  if (s.decoder) {
    est.output_tokens_per_s = pt.tokens_per_s_replica * rank_share * replicas;
    est.requests_per_s = est.output_tokens_per_s / d(w.output_tokens);
  } else {
    est.requests_per_s = batch * rank_share / pt.e2e_s * replicas;
  }

  // The bound: capacity when it does not fit, else the largest share of the decode step
  // (prefill interference counts as compute).
  if (!mem.fits) {
    est.bound = Bound::capacity;
  } else {
    const double interference = s.decoder ? pt.tpot_s - pt.decode.total_s : 0.0;
    const double compute = pt.decode.compute_s + interference;
    if (pt.decode.comm_s > std::max(compute, pt.decode.memory_s)) {
      est.bound = Bound::interconnect;
    } else {
      est.bound = compute >= pt.decode.memory_s ? Bound::compute : Bound::memory_bandwidth;
    }
  }

  // Cost (methodology §6.1): the price of what is billed (whole instances, docs/methodology.md "Whole
  // instances") over the tokens / requests served per hour. A GPU count that is not whole replicas is billed
  // GPU by GPU.
  const int per_replica = dep.gpus_per_replica();
  const bool whole = per_replica > 0 && dep.gpus % per_replica == 0;
  est.bill = bill_instances(whole ? dep.gpus / per_replica : dep.gpus, whole ? per_replica : 1, price,
                            whole ? dep.tp : 1);
  est.usd_per_hour = est.bill.usd_per_hour;
  if (est.output_tokens_per_s > 0.0) {
    est.usd_per_million_output_tokens =
        est.usd_per_hour / (est.output_tokens_per_s * k_seconds_per_hour) * 1e6;
  }
  if (est.requests_per_s > 0.0)
    est.usd_per_request = est.usd_per_hour / k_seconds_per_hour / est.requests_per_s;
  return est;
}

} // namespace

InferenceEstimate estimate_inference(const PreparedModel& pm, const InferenceWorkload& workload,
                                     const Gpu& gpu, const Deployment& dep, const EngineConfig& engine,
                                     const Sla* sla, const GpuPrice& price) {
  return estimate(pm, workload, gpu, dep, engine, sla, price, false);
}

double closed_decode_step_s(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
                            const Deployment& dep, const EngineConfig& engine) {
  InferenceWorkload w = workload;
  w.arrival = Arrival::closed_loop;
  w.request_rate_per_s = 0.0;
  w.concurrency = std::max<std::int64_t>(1, w.concurrency);
  return estimate(pm, w, gpu, dep, engine, nullptr, GpuPrice{}, true).decode_step_s;
}

} // namespace rightsize
