// Inference estimate for one deployment (methodology §2 memory, §4 roofline, §5 interconnect,
// §6.1 cost). Pure arithmetic on a PreparedModel: no allocation, no I/O.
#include "rightsize/inference.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/image.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace detail {

// The sequences in flight the prefix cache shares HBM with (methodology §3.9): a closed loop's
// batch; an open loop's from a first pass at one sequence (its in-flight count does not depend on
// the hits enough to need more).
Point evaluate_decoder(const Setup& s, const InferenceWorkload& w, double clients, double slots) {
  if (w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0) {
    if (s.prefix == nullptr || !s.prefix->active) return evaluate_open(s, w, slots);
    const Point first = evaluate_open(at_batch(s, 1.0), w, slots);
    return evaluate_open(at_batch(s, first.in_flight), w, slots);
  }
  return evaluate_closed(at_batch(s, std::min(clients, std::max(1.0, slots))), w, clients, slots);
}

Point evaluate(const Setup& s, const InferenceWorkload& w, double clients, double slots,
               const PhaseTime& prefill) {
  if (s.decoder) return evaluate_decoder(s, w, clients, slots);
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

// The prefix cache's figures at the operating point's `in_flight` sequences per rank.
void set_prefix_figures(const Setup& s, const PrefixPlan& plan, const Budget& b, double in_flight, double isl,
                        InferenceEstimate& est) {
  if (!plan.active) return;
  const PrefixServe sv = serve_prefix_cache(s, plan, std::max(1.0, in_flight));
  InferenceEstimate::PrefixCacheFigures& f = est.prefix_cache;
  f.active = true;
  f.requested_hit_rate = plan.requested_tokens / isl;
  f.hit_rate = sv.cached_tokens / isl;
  f.cached_tokens = sv.cached_tokens;
  f.tier_tokens = sv.tier_tokens;
  f.tier_load_s = sv.load_s;
  f.shared_prefix_bytes = b.shared_kv_bytes;
  f.working_set_bytes = sv.working_set_bytes;
  f.hbm_cache_bytes = sv.hbm_cache_bytes;
  f.tier_needed_bytes = sv.tier_needed_bytes;
  f.tier_used_bytes = sv.tier_used_bytes;
  f.tier_bytes = plan.tier_sized ? sv.tier_used_bytes : plan.tier_bytes;
  f.tier_gb_per_s = plan.tier_bytes_per_s / k_bytes_per_gb;
  f.kv_bytes_per_token = cached_kv_bytes_gpu(s, 1.0);
  f.working_set_known = plan.working_set_known;
}

// Concurrency when none is given: the largest that fits and meets the latency SLA (throughput
// B/TPOT(B) rises with B, and latency is monotone in B, so a binary search finds it).
double auto_batch(const Setup& s, const InferenceWorkload& w, const Sla* sla, double max_conc,
                  const PhaseTime& prefill) {
  const double slots = std::max(1.0, max_conc);
  double lo = 1.0;
  // A DiT step is compute-bound at thousands of tokens per image: batching adds latency, not
  // images/s, so without a latency target one image at a time (methodology §3.7).
  const bool image_unbounded = s.m->kind == ModelKind::dit && (sla == nullptr || !sla->e2e_ms);
  double hi = image_unbounded ? 1.0 : std::max(1.0, max_conc);
  if (meets_latency(evaluate(s, w, hi, slots, prefill), sla)) return hi;
  while (hi - lo > 1.0) {
    const double mid = std::floor((lo + hi) / 2.0);
    if (meets_latency(evaluate(s, w, mid, slots, prefill), sla)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The point an estimate reports: the idle prefill, the point at the rank's batch, and the clients
// the replica serves per rank-level point.
struct OperatingPoint {
  const PhaseTime& prefill;
  const Point& pt;
  double batch;
  double rank_share;
};

// Phase times, floors, latencies and the queue figures of the operating point.
void set_times(const EstimateInputs& in, const Setup& s, const Budget& b, const OperatingPoint& op,
               InferenceEstimate& est) {
  const InferenceWorkload& w = in.w;
  const PhaseTime& prefill = op.prefill;
  const Point& pt = op.pt;
  est.prefill_s = prefill.total_s;
  // k whole prompts in one step: the GEMMs run at k·ISL rows (one weight read), attention per
  // prompt, one step's fixed time (methodology §3.6, "batched prefill worker").
  // Prompts prefill what they do not find cached (methodology §3.9).
  const double isl = s.decoder ? new_prompt_tokens(s, w) : 0.0;
  const double k = s.decoder && isl > 0.0 ? std::max(1.0, std::floor(b.step_tokens / isl)) : 1.0;
  est.prefill_prompts_per_step = k;
  est.prefill_batch_step_s = prefill.total_s;
  if (k > 1.0) {
    const PhaseTime pk = prefill_time(s, isl, k * isl, s.cached_tokens);
    est.prefill_batch_step_s =
        std::max(k * pk.compute_s, pk.memory_s) + k * (pk.routing_s + pk.comm_s) + prefill_step_fixed_s(s);
  }
  est.decode_step_s = pt.decode.total_s;
  // Undo the efficiencies: the time the same bytes and FLOPs take at the catalog's peaks.
  const double eta_m = in.eff.decode_bandwidth, eta_f = in.eff.prefill_compute;
  est.ttft_floor_s = std::max(prefill.memory_s * eta_m, prefill.compute_s * eta_f);
  est.tpot_floor_s = s.decoder ? std::max(pt.decode.memory_s * eta_m, pt.decode.compute_s * eta_f) : 0.0;
  est.ttft_s = pt.ttft_s;
  est.tpot_s = pt.tpot_s;
  est.e2e_s = pt.e2e_s;
  est.ttft = pt.ttft;
  est.tpot = pt.tpot;
  est.e2e = pt.e2e;
  est.queue_wait_s = pt.wait_s;
  est.in_flight = pt.in_flight * op.rank_share;
  est.prefill_utilization = pt.prefill_utilization;
  est.overloaded = pt.overloaded;
  est.open_loop = s.decoder && w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0;
  est.clients_exceed_kv =
      s.decoder && w.arrival == Arrival::closed_loop && op.batch > std::max(1.0, b.max_conc);
  est.comm_s_per_token = pt.decode.comm_s;
}

// Throughput of the whole deployment; at capacity for now (an open loop's is set after).
void set_throughput(const EstimateInputs& in, const Setup& s, const OperatingPoint& op,
                    InferenceEstimate& est) {
  const double replicas = d(in.dep.replicas());
  if (s.decoder) {
    est.output_tokens_per_s = op.pt.tokens_per_s_replica * op.rank_share * replicas;
    est.requests_per_s = est.output_tokens_per_s / d(in.w.output_tokens);
  } else {
    est.requests_per_s = op.batch * op.rank_share / op.pt.e2e_s * replicas;
  }
  est.capacity_requests_per_s = est.requests_per_s;
  est.capacity_output_tokens_per_s = est.output_tokens_per_s;
}

// An open loop's capacity (methodology §3.1 "Open loop: capacity") for the deployment's `ranks`
// (attention-DP ranks of every replica): the step loop's highest sustained rate at a full cache,
// slowed as a calibrate residual slows a request's path there (TTFT part and decode part each by
// its own multiplier).
InferenceEstimate open_loop_capacity(const Setup& s, const InferenceWorkload& w, double slots, double ranks,
                                     const InferenceEstimate::Residual& residual) {
  const OpenCapacity c = open_capacity(s, w, slots);
  const double path_s = c.first_token_s + c.decode_s;
  const double slowed_s = c.first_token_s * residual.ttft + c.decode_s * residual.tpot;
  const double slow = residual.applied && path_s > 0.0 && slowed_s > 0.0 ? slowed_s / path_s : 1.0;
  InferenceEstimate cap;
  cap.requests_per_s = c.requests_per_s * ranks / slow;
  cap.output_tokens_per_s = cap.requests_per_s * d(w.output_tokens);
  return cap;
}

// Past its capacity an open-loop deployment serves its capacity, the figure the search sizes
// replicas by (methodology §6).
void hold_estimate_to_capacity(InferenceEstimate& est, const InferenceEstimate& capacity) {
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
Bound bound_of(const Setup& s, const MemoryEstimate& mem, const Point& pt) {
  if (!mem.fits) return Bound::capacity;
  const double interference = s.decoder ? pt.tpot_s - pt.decode.total_s : 0.0;
  const double compute = pt.decode.compute_s + interference;
  if (pt.decode.comm_s > std::max(compute, pt.decode.memory_s)) return Bound::interconnect;
  return compute >= pt.decode.memory_s ? Bound::compute : Bound::memory_bandwidth;
}

// Cost (methodology §6.1): the price of what is billed (whole instances, docs/methodology.md "Whole
// instances") over the tokens / requests served per hour. A GPU count that is not whole replicas is billed
// GPU by GPU.
void set_cost(const Deployment& dep, const GpuPrice& price, InferenceEstimate& est) {
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
}

// How much of the estimate a caller needs: a closed loop at a given concurrency can stop once its
// decode step (closed_decode_step_s) or its memory verdict (fits_in_memory) is known; `fitting`
// (check_fit) stops at the memory verdict only when the layout does not fit.
enum class Stop : std::uint8_t { full, decode_step, memory, fitting };

// estimate_inference, up to `stop`, into `est` (as default-constructed), for a workload whose
// rate is one rank's and an engine as set for this GPU and TP (estimate() below makes both).
void estimate_rank(const PreparedModel& pm, const InferenceWorkload& w, const Gpu& gpu, const Deployment& dep,
                   const EngineConfig& engine, const Sla* sla, const GpuPrice& price, Stop stop,
                   InferenceEstimate& est) {
  const double adp = d(std::max(1, dep.attention_dp));
  // The factors of this layout family when an overlay fitted them, else the GPU's (docs/calibration.md).
  const GpuEfficiency& eff = efficiency_for(gpu, layout_family(dep));
  const EstimateInputs in{pm, w, gpu, dep, engine, eff, adp};
  const bool open_arrivals = w.arrival == Arrival::poisson && w.request_rate_per_s > 0.0;
  const bool open_loop = pm.model.kind == ModelKind::decoder && open_arrivals;
  // A closed loop at a given concurrency has its memory verdict before any timing (the layout search
  // asks it of every candidate): its setup skips the rates and links until the verdict is in.
  const bool memory_first =
      (stop == Stop::memory || stop == Stop::fitting) && w.concurrency > 0 && !open_loop;
  Setup s = make_setup(in, est, !memory_first);
  Budget budget = memory_budget(in, s, est.memory);
  // Prefix caching (methodology §3.9): what requests find cached, and what holds it.
  const PrefixPlan plan = plan_prefix_cache(s, w, dep, budget.kv_budget_bytes, budget.per_seq_kv);
  if (plan.active) {
    s.prefix = &plan;
    share_prefix(plan, engine, s.p, budget);
  }
  if (open_loop) hold_open_loop_kv(s, w, engine, plan, budget);
  const double max_conc = budget.max_conc;
  est.max_concurrency = static_cast<std::int64_t>(max_conc * adp);
  if (memory_first) {
    // The memory verdict at the given batch: the same settle_memory the full estimate makes below.
    settle_memory(in, s, budget, std::ceil(d(w.concurrency) / adp - 1e-9), est.memory);
    if (stop == Stop::memory || !est.memory.fits) return;
    time_setup(in, s, est); // a layout that fits goes on to the full estimate
  }
  if (stop == Stop::decode_step && s.decoder && w.concurrency > 0 && !open_arrivals) {
    // The step evaluate() below would report: the closed loop's decode of the busiest rank's batch.
    const double rank_batch = std::ceil(d(w.concurrency) / adp - 1e-9);
    est.decode_step_s = closed_decode_step(s, w, rank_batch, std::max(1.0, max_conc)).total_s;
    return;
  }

  // The idle prefill: where auto_batch starts and what an image model's point reports (a decoder's
  // point times its own).
  const PhaseTime prefill =
      !s.decoder || w.concurrency <= 0
          ? prefill_time(s, s.decoder ? d(w.input_tokens) : d(pm.model.tokens_per_item), 0.0)
          : PhaseTime{};
  const double slots = std::max(1.0, max_conc);
  // Concurrency: the given one, or the largest that fits and meets the latency SLA (auto_batch).
  // Attention-DP ranks step together (every MoE layer exchanges their tokens), so the busiest
  // rank, ceil(C/adp) clients, sets the step time; the replica serves C clients (methodology §5.6).
  double batch =
      w.concurrency > 0 ? std::ceil(d(w.concurrency) / adp - 1e-9) : auto_batch(s, w, sla, max_conc, prefill);
  const Point pt = evaluate(s, w, batch, slots, prefill);
  if (open_loop) batch = std::ceil(pt.in_flight);
  // Clients the replica serves per rank-level point: C/batch (adp when C divides evenly).
  const double rank_share = w.concurrency > 0 && !open_loop ? d(w.concurrency) / std::max(1.0, batch) : adp;
  est.concurrency = static_cast<std::int64_t>(std::llround(batch * rank_share));
  settle_memory(in, s, budget, batch, est.memory);
  // The cache's hits at the sequences in flight (evaluate_decoder's choice).
  const double cache_batch = open_loop ? pt.in_flight : std::min(batch, slots);
  const Setup at_point = at_batch(s, cache_batch);
  const OperatingPoint op{s.decoder ? pt.prefill : prefill, pt, batch, rank_share};
  set_times(in, at_point, budget, op, est);
  set_prefix_figures(s, plan, budget, cache_batch, d(w.input_tokens), est);
  if (s.decoder && w.lora.enabled()) { // methodology §3.10
    est.lora = {true, s.lora_bytes / s.p, d(w.lora.max_active) * s.lora_bytes / s.p,
                lora_distinct(s, cache_batch / s.p), s.lora_flops_per_token};
  }
  set_throughput(in, s, op, est);
  apply_stack_residual(pm, gpu, dep, engine, w, est); // a calibrate overlay's, for its stack only
  // The capacity is the step loop's at a full cache, with the prefix cache's hits there.
  if (est.open_loop)
    hold_estimate_to_capacity(
        est, open_loop_capacity(at_batch(s, slots), w, slots, adp * d(dep.replicas()), est.residual));
  est.bound = bound_of(s, est.memory, pt);
  set_cost(dep, price, est);
}

// estimate_inference, up to `stop`, into `est` (as default-constructed).
void estimate(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
              const Deployment& dep, const EngineConfig& engine, const Sla* sla, const GpuPrice& price,
              Stop stop, InferenceEstimate& est) {
  // The arrival rate is the deployment's; each replica carries its share. With attention DP the
  // timing model follows one rank, which carries 1/adp of the replica's clients or arrivals
  // (methodology §5.6).
  const double rate_share =
      static_cast<double>(std::max(1, dep.replicas())) * d(std::max(1, dep.attention_dp));
  const bool shared = rate_share != 1.0 && workload.request_rate_per_s != 0.0;
  // The engine's defaults on this GPU and TP degree (SGLang tiers them, methodology §3.2); each copy
  // only when needed (the layout search asks this of every candidate).
  const bool tiered = engine.gpu_memory_tier_count > 0;
  const auto with_engine = [&](const InferenceWorkload& w) {
    if (tiered) {
      estimate_rank(pm, w, gpu, dep, engine_for_gpu(engine, gpu, dep.tp), sla, price, stop, est);
    } else {
      estimate_rank(pm, w, gpu, dep, engine, sla, price, stop, est);
    }
  };
  if (!shared) {
    with_engine(workload);
    return;
  }
  InferenceWorkload w = workload;
  w.request_rate_per_s /= rate_share;
  with_engine(w);
}

} // namespace

InferenceEstimate estimate_inference(const PreparedModel& pm, const InferenceWorkload& workload,
                                     const Gpu& gpu, const Deployment& dep, const EngineConfig& engine,
                                     const Sla* sla, const GpuPrice& price) {
  InferenceEstimate est;
  estimate(pm, workload, gpu, dep, engine, sla, price, Stop::full, est);
  return est;
}

bool fits_in_memory(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
                    const Deployment& dep, const EngineConfig& engine) {
  InferenceEstimate est;
  estimate(pm, workload, gpu, dep, engine, nullptr, GpuPrice{}, Stop::memory, est);
  return est.memory.fits && est.memory.holds_all_clients;
}

bool check_fit(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
               const Deployment& dep, const EngineConfig& engine, const GpuPrice& price, bool always,
               std::optional<InferenceEstimate>& made) {
  // Without a given concurrency the SLA picks the batch: the verdict alone (fits_in_memory's).
  if (workload.concurrency <= 0) return fits_in_memory(pm, workload, gpu, dep, engine);
  if (always) {
    InferenceEstimate& est = made.emplace();
    estimate(pm, workload, gpu, dep, engine, nullptr, price, Stop::full, est);
    return est.memory.fits && est.memory.holds_all_clients;
  }
  InferenceEstimate est;
  estimate(pm, workload, gpu, dep, engine, nullptr, price, Stop::fitting, est);
  const bool holds = est.memory.fits && est.memory.holds_all_clients;
  if (holds) made = est;
  return holds;
}

double closed_decode_step_s(const PreparedModel& pm, const InferenceWorkload& workload, const Gpu& gpu,
                            const Deployment& dep, const EngineConfig& engine) {
  InferenceWorkload w = workload;
  w.arrival = Arrival::closed_loop;
  w.request_rate_per_s = 0.0;
  w.concurrency = std::max<std::int64_t>(1, w.concurrency);
  InferenceEstimate est;
  estimate(pm, w, gpu, dep, engine, nullptr, GpuPrice{}, Stop::decode_step, est);
  return est.decode_step_s;
}

} // namespace rightsize
