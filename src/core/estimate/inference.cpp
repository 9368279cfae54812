// Inference estimate for one deployment (methodology §2 memory, §4 roofline, §5 interconnect,
// §6.1 cost). Pure arithmetic on a PreparedModel: no allocation, no I/O.
#include "rightsize/inference.hpp"

#include <algorithm>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/image.hpp"
#include "rightsize/image_attention.hpp"
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
  // An eager image pipeline's elementwise chains between the GEMMs (DiT: norms, modulation, RoPE,
  // GELU, concatenations; UNet: GroupNorm, SiLU, GEGLU, residuals) are separate memory-bound kernels that run
  // between them, not under them (methodology §3.7 "Unfused traffic"); 0 for a fused pipeline and for a ViT.
  const double unfused_s = s.m->kind == ModelKind::dit
                               ? batch * image_unfused_bytes_per_pass(*s.m, tokens, s.pm->activation_bytes) /
                                     s.bandwidth_bytes_per_s
                               : 0.0;
  const double step =
      std::max(compute, one.memory_s) + unfused_s + one.comm_s * batch + s.engine->step_overhead_s;
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
  // A UNet's narrow convolutions and linear layers run below the large-GEMM η_f: the calibrated
  // fraction of it (methodology §3.7 "UNet rate"); 1 for every other model.
  s.unet_gemm_fraction = pm.unet ? std::clamp(eff.unet_gemm_fraction, 1e-3, 1.0) : 1.0;
  const MathDtype attention_math = attention_dtype(math, gpu);
  s.attention_flops_per_s = gpu.supports(attention_math) ? std::max(1e-3, gpu.tflops(attention_math)) *
                                                               k_flops_per_tflop * eff.prefill_compute
                                                         : s.compute_flops_per_s;
  // A DiT pipeline's attention is FlashAttention-2 (diffusers → torch SDPA), which tops out below the
  // GEMMs' η_f on Hopper: bidirectional attention over 4,096+ tokens is 20–30 % of an image model's
  // FLOPs (methodology §3.7).
  if (m.kind == ModelKind::dit && gpu.supports(attention_math))
    s.attention_flops_per_s =
        std::min(s.attention_flops_per_s, gpu.tflops(attention_math) * k_flops_per_tflop *
                                              dit_attention_utilization(gpu.architecture));
  s.bandwidth_bytes_per_s = gb_per_s_to_bytes_per_s(gpu.memory_bandwidth_gb_per_s) * eff.decode_bandwidth;
  s.expert_read = std::clamp(eff.expert_read, 0.05, 1.0);
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
    est.prefill_batch_step_s =
        std::max(k * pk.compute_s, pk.memory_s) + k * (pk.routing_s + pk.comm_s) + prefill_step_fixed_s(s);
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

  est.capacity_requests_per_s = est.requests_per_s;
  est.capacity_output_tokens_per_s = est.output_tokens_per_s;
  if (est.open_loop) {
    // The load an open-loop deployment is judged against is its closed-loop capacity at the
    // largest concurrency that fits, the figure the search sizes replicas by (methodology §6).
    InferenceWorkload closed = workload;
    closed.arrival = Arrival::closed_loop;
    closed.request_rate_per_s = 0.0;
    closed.concurrency = 0;
    const InferenceEstimate capacity = estimate(pm, closed, gpu, dep, engine_in, nullptr, price, false);
    est.capacity_requests_per_s = capacity.requests_per_s;
    est.capacity_output_tokens_per_s = capacity.output_tokens_per_s;
    // Past its capacity a deployment serves its capacity; the rest of the arrivals queue.
    if (est.overloaded && capacity.requests_per_s > 0.0 && capacity.requests_per_s < est.requests_per_s) {
      est.requests_per_s = capacity.requests_per_s;
      est.output_tokens_per_s = capacity.output_tokens_per_s;
    }
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
  // At capacity: a closed loop's own throughput, an open loop's closed-loop capacity (what it served
  // at its arrival rate is cost_at_load's; docs/output-schema.md "Cost").
  if (est.capacity_output_tokens_per_s > 0.0) {
    est.usd_per_million_output_tokens =
        est.usd_per_hour / (est.capacity_output_tokens_per_s * k_seconds_per_hour) * 1e6;
  }
  if (est.capacity_requests_per_s > 0.0)
    est.usd_per_request = est.usd_per_hour / k_seconds_per_hour / est.capacity_requests_per_s;
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
