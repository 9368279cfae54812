// Disaggregated prefill/decode serving (methodology §3.6): a composition of the aggregated
// per-replica estimator. Pure arithmetic; no I/O.
#include "rightsize/disagg.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/numeric.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/load_model.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

using core::d;

struct PoolSetup {
  const PreparedModel* pm;
  InferenceWorkload w;
  const DisaggDeployment* dep;
  const EngineConfig* engine;
  double slots;          // KV slots of one decode worker
  double tkv_s;          // KV transfer
  double fixed_s;        // engine's fixed TTFT share + the prefill-to-decode handoff
  double step1_s;        // prefill step of one prompt
  double stepk_s;        // prefill step of k_max prompts
  double k_max;          // whole prompts per step within the token budget
  DecodeStepMemo* steps; // decode steps and workers, prefill workers (the caller's, or this call's)
  // Open loop: the prefill queue's rate over the decode pool's (1 but at a band's slow end, where
  // each pool runs at its own k, disagg_slow_end).
  double prefill_rate_factor = 1.0;
};

// A prefill step of k prompts (1 ≤ k ≤ k_max): affine between one prompt and a full step, each
// prompt adding its FLOPs to one shared weight read and one step's fixed time (methodology §3.6).
double prefill_step_s(const PoolSetup& s, double k) {
  if (s.k_max <= 1.0) return s.step1_s;
  return s.step1_s + (std::clamp(k, 1.0, s.k_max) - 1.0) / (s.k_max - 1.0) * (s.stepk_s - s.step1_s);
}

// A loaded prefill worker packs the prompts waiting when a step starts into it (up to k_max): the
// step count k is the mean number of prompts at the worker (Little's law, X·R), found by fixed
// point; each prompt costs step(k)/k of the worker's time. Returns that per-prompt service.
template <typename Queue> double batched_service(const PoolSetup& s, double& k, Queue queue_at) {
  k = std::clamp(k, 1.0, std::max(1.0, s.k_max)); // warm start: the caller's last solution
  for (int i = 0; i < 8; ++i) {
    const double service = prefill_step_s(s, k) / k;
    const double next = std::clamp(queue_at(service), 1.0, std::max(1.0, s.k_max));
    if (std::fabs(next - k) <= 0.02 * k) return service; // queue_at last saw this service
    k = 0.5 * (k + next);
  }
  const double service = prefill_step_s(s, k) / k;
  queue_at(service);
  return service;
}

// The prefill pool's independent queues: each worker's attention-DP ranks take whole prompts of
// their own (a rank's scheduler admits its own requests; the ranks meet only in the MoE layers),
// so a worker of adp ranks serves adp prompts at a time, each at the rank-level step the
// aggregated estimator gives with every rank busy (methodology §3.6, "prefill servers").
double prefill_servers(const DisaggDeployment& dep) {
  return d(dep.prefill.workers) * d(std::max(1, dep.prefill.layout.attention_dp));
}

Deployment one_worker(const PoolDeployment& pool) {
  Deployment r = pool.layout;
  r.gpus = r.gpus_per_replica();
  return r;
}

// One decode worker's workload: `batch` (rounded, at least 1) sequences in a closed loop.
InferenceWorkload decode_workload(const PoolSetup& s, std::int64_t batch) {
  InferenceWorkload w = s.w;
  w.arrival = Arrival::closed_loop;
  w.request_rate_per_s = 0.0;
  w.concurrency = std::max<std::int64_t>(1, batch);
  return w;
}

// One decode worker at `batch` (rounded) sequences in flight, from the memo or estimated: its pure
// decode step is the TPOT. Every rate a unit is estimated at revisits the same few batches.
InferenceEstimate decode_at(const PoolSetup& s, double batch) {
  const std::int64_t b = std::max<std::int64_t>(1, std::llround(batch));
  auto& worker = s.steps->worker;
  if (const auto found = worker.find(b); found != worker.end()) return found->second;
  const PoolDeployment& pool = s.dep->decode;
  return worker
      .emplace(b, estimate_inference(*s.pm, decode_workload(s, b), *pool.gpu, one_worker(pool), *s.engine,
                                     nullptr, pool.price))
      .first->second;
}

// The idle prefill worker (one prompt, one output token) of the unit's prefill pool, from the memo
// or estimated: the same at every rate.
const InferenceEstimate& prefill_worker(const PoolSetup& s) {
  const PoolDeployment& pool = s.dep->prefill;
  const Deployment& l = pool.layout;
  const DecodeStepMemo::PoolKey key{pool.gpu, l.tp, l.pp, l.ep, l.attention_dp, pool.price.usd_per_gpu_hour};
  auto& prefill = s.steps->prefill;
  for (const auto& [k, estimate] : prefill) {
    if (k == key) return estimate;
  }
  InferenceWorkload wp = s.w;
  wp.output_tokens = 1;
  wp.concurrency = 1;
  wp.max_context = s.w.input_tokens;
  wp.arrival = Arrival::closed_loop;
  wp.request_rate_per_s = 0.0;
  prefill.emplace_back(
      key, estimate_inference(*s.pm, wp, *pool.gpu, one_worker(pool), *s.engine, nullptr, pool.price));
  return prefill.back().second;
}

struct Operating {
  double tpot_s = 0.0, batch = 0.0, wait_s = 0.0, utilization = 0.0, requests_per_s = 0.0;
  double ttft_s = 0.0, client_wait_s = 0.0, p_wait = 0.0;
  double prompts_per_step = 1.0, step_s = 0.0; // the loaded prefill worker's batched step
  bool overloaded = false, kv_bound = false;
};

// One decode worker's step at `batch` (rounded) sequences, from the memo or closed_decode_step_s:
// the fixed points and the client-count search revisit the same few batches, and the units of a
// search that share a decode pool the same ones again.
double decode_step_s(const PoolSetup& s, double batch) {
  const std::int64_t b = std::max<std::int64_t>(1, std::llround(batch));
  std::vector<double>& steps = s.steps->step_s;
  const auto at = static_cast<std::size_t>(b);
  if (at >= steps.size()) steps.resize(std::max(at + 1, 2 * steps.size()), 0.0);
  if (steps[at] <= 0.0) {
    const PoolDeployment& pool = s.dep->decode;
    steps[at] = closed_decode_step_s(*s.pm, decode_workload(s, b), *pool.gpu, one_worker(pool), *s.engine);
  }
  return steps[at];
}

// The decode batch by fixed point (methodology §3.6): B = min(slots, λ(B)·(OSL − 1)·TPOT(B)/D).
// A mean batch B between two integers is a mix of steps at ⌊B⌋ and ⌈B⌉ sequences, so the TPOT is
// the linear interpolation of the two step times (time-average over the steps, derived). Without it
// the TPOT of a batch of 6.47 would be the step at 6 and the fixed point below would report a batch
// its own TPOT does not produce (Little's law off by up to half a sequence).
double tpot_at(const PoolSetup& s, double batch) {
  const double lo = std::max(1.0, std::floor(batch));
  const double frac = std::clamp(batch - lo, 0.0, 1.0);
  const double t_lo = decode_step_s(s, lo);
  if (frac < 1e-6) return t_lo;
  return (1.0 - frac) * t_lo + frac * decode_step_s(s, lo + 1.0);
}

template <typename Rate> void settle_decode(const PoolSetup& s, Operating& op, Rate rate_of) {
  const double dw = s.dep->decode.workers;
  for (int i = 0; i < 24; ++i) {
    op.tpot_s = tpot_at(s, op.batch);
    op.requests_per_s = rate_of(op.tpot_s);
    const double wanted = std::max(
        1.0, decode_in_flight(op.requests_per_s, s.w.output_tokens, op.tpot_s, static_cast<int>(dw)));
    op.kv_bound = wanted > s.slots * 1.0001;
    const double next = std::min(wanted, s.slots);
    if (std::fabs(next - op.batch) <= 0.01 * op.batch) {
      op.batch = next;
      break;
    }
    op.batch = 0.5 * (op.batch + next);
  }
  op.tpot_s = tpot_at(s, op.batch);
}

// Closed loop with `clients` clients (methodology §3.6): each prefill server (a worker's rank) is a
// queue (exact MVA) visited by clients/(P·adp) customers whose think time is the KV transfer, the fixed share
// and the decode of OSL − 1 tokens. When the decode workers' KV slots cap the batch, the deployment completes
// D·slots/((OSL − 1)·TPOT) requests per second and the other clients wait (Little's law:
// TTFT = N/X − (OSL − 1)·TPOT).
Operating closed_point(const PoolSetup& s, double clients) {
  const double osl_rest = std::max(0.0, d(s.w.output_tokens) - 1.0);
  const double pw = prefill_servers(*s.dep), dw = s.dep->decode.workers;
  Operating op;
  op.batch = std::min(s.slots, std::max(1.0, clients / dw));
  load::ClosedResult q;
  double service_s = s.step1_s;
  // The queue last evaluated: a batch held at the KV slots repeats the same service and think time
  // (the same TPOT) through the fixed points, and the same arguments give the same result.
  double seen_service = -1.0, seen_think = -1.0;
  const auto rate_of = [&](double tpot_s) {
    const double think = s.tkv_s + s.fixed_s + osl_rest * tpot_s;
    service_s = batched_service(s, op.prompts_per_step, [&](double service) {
      if (service != seen_service || think != seen_think) {
        q = load::closed_mva_at(service, think, clients / pw);
        seen_service = service;
        seen_think = think;
      }
      return q.throughput_per_s * q.response_s;
    });
    double x = pw * q.throughput_per_s;
    if (osl_rest > 0.0 && tpot_s > 0.0) x = std::min(x, dw * s.slots / (osl_rest * tpot_s));
    return x;
  };
  settle_decode(s, op, rate_of);
  op.requests_per_s = rate_of(op.tpot_s);
  op.wait_s = std::max(0.0, q.response_s - service_s);
  op.utilization = std::min(1.0, q.utilization);
  op.p_wait = op.utilization;
  op.step_s = prefill_step_s(s, op.prompts_per_step);
  const double inside = op.wait_s + op.step_s + s.tkv_s + s.fixed_s;
  const double cycle_ttft =
      op.requests_per_s > 0.0 ? clients / op.requests_per_s - osl_rest * op.tpot_s : inside;
  // Clients wait for a free slot only past rounding: a cycle that closes within 1e-9 of the TTFT
  // inside the pool is no wait (the two come from the same rate, each rounded once).
  const double excess_s = cycle_ttft - inside;
  op.client_wait_s = excess_s > 1e-9 * inside ? excess_s : 0.0;
  op.ttft_s = inside + op.client_wait_s;
  return op;
}

// Open loop at the deployment's rate λ: each prefill server a G/G/1 queue (Kingman) at λ/(P·adp) with
// deterministic service; the decode batch by Little's law.
Operating open_point(const PoolSetup& s) {
  const double rate = s.w.request_rate_per_s;
  const double per_prefill_server = rate * s.prefill_rate_factor / prefill_servers(*s.dep);
  Operating op;
  op.batch = 1.0;
  settle_decode(s, op, [rate](double) { return rate; });
  double rho = 0.0, wait = 0.0;
  batched_service(s, op.prompts_per_step, [&](double service) {
    rho = per_prefill_server * service;
    wait = load::kingman_wait_s(service, rho, s.w.arrival_cv, 0.0);
    return std::isfinite(wait) ? per_prefill_server * (wait + service) : s.k_max;
  });
  op.overloaded = !std::isfinite(wait) || op.kv_bound;
  if (!std::isfinite(wait)) wait = 1e9; // finite stand-in; `overloaded` says it
  op.wait_s = wait;
  op.utilization = std::min(1.0, rho);
  op.p_wait = op.utilization;
  op.step_s = prefill_step_s(s, op.prompts_per_step);
  op.ttft_s = s.fixed_s + wait + op.step_s + s.tkv_s;
  return op;
}

// The whole deployment as one InferenceEstimate (judge() and the shared renderers read it).
InferenceEstimate combine(const PoolSetup& s, const DisaggEstimate& e, const Operating& op, double clients) {
  InferenceEstimate c = e.decode;
  const DisaggDeployment& dep = *s.dep;
  const double osl_rest = std::max(0.0, d(s.w.output_tokens) - 1.0);
  // The memory shown is the tighter pool's (by headroom share); fits only when both pools fit.
  const MemoryEstimate& pm = e.prefill.memory;
  const MemoryEstimate& dm = e.decode.memory;
  const double p_share = pm.usable_per_gpu_bytes > 0.0 ? pm.headroom_bytes() / pm.usable_per_gpu_bytes : -1.0;
  const double d_share = dm.usable_per_gpu_bytes > 0.0 ? dm.headroom_bytes() / dm.usable_per_gpu_bytes : -1.0;
  c.memory = p_share < d_share ? pm : dm;
  c.memory.fits = pm.fits && dm.fits;
  c.concurrency = static_cast<std::int64_t>(std::llround(clients));
  c.max_concurrency = e.decode.max_concurrency * dep.decode.workers;
  c.prefill_s = e.prefill_service_s;
  c.decode_step_s = op.tpot_s;
  c.ttft_floor_s = e.prefill.ttft_floor_s;
  c.tpot_floor_s = e.decode.tpot_floor_s;
  c.ttft_s = op.ttft_s;
  c.tpot_s = op.tpot_s;
  c.e2e_s = op.ttft_s + osl_rest * op.tpot_s;
  const double base = op.ttft_s - op.wait_s - op.client_wait_s; // fixed + prefill step + transfer
  double* ttft[3] = {&c.ttft.p50_s, &c.ttft.p90_s, &c.ttft.p99_s};
  const double qs[3] = {0.5, 0.9, 0.99};
  for (int i = 0; i < 3; ++i) {
    *ttft[i] = base + op.client_wait_s + load::wait_quantile_s(op.wait_s, op.p_wait, qs[i]);
  }
  // No prefill shares the decode steps: every token of a sequence takes one step (the point of
  // disaggregation, [DISTSERVE] §2); the percentiles equal the mean.
  c.tpot = {op.tpot_s, op.tpot_s, op.tpot_s};
  c.e2e = {c.ttft.p50_s + osl_rest * op.tpot_s, c.ttft.p90_s + osl_rest * op.tpot_s,
           c.ttft.p99_s + osl_rest * op.tpot_s};
  c.queue_wait_s = op.wait_s + op.client_wait_s;
  c.in_flight = op.batch * dep.decode.workers;
  c.prefill_utilization = op.utilization;
  c.clients_exceed_kv = s.w.arrival == Arrival::closed_loop && op.kv_bound;
  c.open_loop = s.w.arrival == Arrival::poisson && s.w.request_rate_per_s > 0.0;
  c.overloaded = op.overloaded;
  c.requests_per_s = op.requests_per_s;
  c.output_tokens_per_s = op.requests_per_s * d(s.w.output_tokens);
  // Not the decode pool's own: a closed loop's capacity is its throughput; an open loop's is set by
  // estimate_disagg from the closed loop of the same pools.
  c.capacity_requests_per_s = c.open_loop ? 0.0 : c.requests_per_s;
  c.capacity_output_tokens_per_s = c.open_loop ? 0.0 : c.output_tokens_per_s;
  c.precision_supported = e.prefill.precision_supported && e.decode.precision_supported;
  c.engine_runs = e.prefill.engine_runs && e.decode.engine_runs;
  c.link_known = e.prefill.link_known && e.decode.link_known && e.link.gb_per_s > 0.0;
  // Whole instances per pool (bill_disagg); the shared renderers read the sum.
  c.bill = InstanceBill{};
  c.bill.gpus_used = e.bill.prefill.gpus_used + e.bill.decode.gpus_used;
  c.bill.gpus_billed = e.bill.prefill.gpus_billed + e.bill.decode.gpus_billed;
  c.bill.shape_known = e.bill.prefill.shape_known && e.bill.decode.shape_known;
  c.bill.hostable = e.bill.prefill.hostable && e.bill.decode.hostable;
  c.bill.usd_per_hour = e.bill.usd_per_hour;
  c.usd_per_hour = e.bill.usd_per_hour;
  c.usd_per_million_output_tokens = 0.0;
  c.usd_per_request = 0.0;
  if (c.output_tokens_per_s > 0.0) {
    c.usd_per_million_output_tokens = c.usd_per_hour / (c.output_tokens_per_s * k_seconds_per_hour) * 1e6;
  }
  if (c.requests_per_s > 0.0) c.usd_per_request = c.usd_per_hour / k_seconds_per_hour / c.requests_per_s;
  return c;
}

bool meets(const InferenceEstimate& e, const Sla* sla) {
  if (e.overloaded) return false;
  if (sla == nullptr) return true;
  if (sla->ttft_ms && latency_stat_s(e, 0, sla->ttft_stat) * 1e3 > *sla->ttft_ms) return false;
  if (sla->tpot_ms && latency_stat_s(e, 1, sla->tpot_stat) * 1e3 > *sla->tpot_ms) return false;
  if (sla->e2e_ms && latency_stat_s(e, 2, sla->e2e_stat) * 1e3 > *sla->e2e_ms) return false;
  return true;
}

// The decode-step memo of this call: the caller's (started again when its key is not this decode
// pool's and workload's), else `own`.
DecodeStepMemo* keyed_memo(const PoolSetup& s, DecodeStepMemo* memo, DecodeStepMemo& own) {
  DecodeStepMemo& steps = memo != nullptr ? *memo : own;
  const Deployment& dl = s.dep->decode.layout;
  const DecodeStepMemo::Key key{s.pm,
                                s.engine,
                                s.dep->decode.gpu,
                                dl.tp,
                                dl.pp,
                                dl.ep,
                                dl.attention_dp,
                                s.w.input_tokens,
                                s.w.output_tokens,
                                s.w.max_context,
                                s.dep->decode.price.usd_per_gpu_hour};
  if (!(steps.key == key)) {
    steps.key = key;
    steps.step_s.assign(64, 0.0);
    steps.worker.clear();
    steps.prefill.clear();
  }
  return &steps;
}

// The pools' fixed figures: one idle prefill worker, the KV transfer between the pools, the
// handoff, and one decode worker at one sequence (its KV slots).
void set_pools(PoolSetup& s, DisaggEstimate& e, double handoff_s) {
  const PreparedModel& pm = *s.pm;
  const DisaggDeployment& dep = *s.dep;
  const EngineConfig& engine = *s.engine;
  // Prefill worker: one prompt in flight (its KV leaves for the decode pool), one output token.
  e.prefill = prefill_worker(s);
  e.bill = bill_disagg(dep, 1);
  e.prefill_service_s = e.prefill.prefill_s;
  e.ttft_fixed_s = engine_for_gpu(engine, *dep.prefill.gpu, dep.prefill.layout.tp).ttft_fixed_s;
  e.link = kv_transfer_link(*dep.prefill.gpu, dep.prefill.layout.gpus_per_replica(),
                            kv_shards(pm, dep.prefill.layout), *dep.decode.gpu,
                            dep.decode.layout.gpus_per_replica(), kv_shards(pm, dep.decode.layout));
  e.kv_bytes = kv_transfer_bytes(pm, s.w.input_tokens);
  const double latency =
      e.link.kind == LinkKind::scaleup ? engine.scaleup_hop_latency_s : engine.network_hop_latency_s;
  const double eta =
      std::min(dep.prefill.gpu->efficiency.communication, dep.decode.gpu->efficiency.communication);
  e.kv_transfer_s = kv_transfer_s(e.kv_bytes, e.link, eta, engine.collective_base_latency_s + latency);
  s.tkv_s = e.kv_transfer_s;
  e.handoff_s = handoff_s >= 0.0 ? handoff_s : k_pd_handoff_s;
  s.fixed_s = e.ttft_fixed_s + e.handoff_s;
  s.step1_s = e.prefill.prefill_s;
  s.stepk_s = e.prefill.prefill_batch_step_s;
  s.k_max = e.prefill.prefill_prompts_per_step;
  e.decode = decode_at(s, 1.0);
  s.slots = std::max(1.0, d(e.decode.max_concurrency));
}

// The deployment at `clients` (closed loop) or at its rate (open loop), with the decode worker's
// whole estimate at the operating batch (its memory, bound and floors).
DisaggEstimate run_at(const PoolSetup& s, const DisaggEstimate& e, double clients) {
  const bool open = s.w.arrival == Arrival::poisson && s.w.request_rate_per_s > 0.0;
  const Operating op = open ? open_point(s) : closed_point(s, clients);
  DisaggEstimate r = e;
  r.decode = decode_at(s, op.batch);
  r.prefill_wait_s = op.wait_s;
  r.prefill_utilization = op.utilization;
  r.decode_batch = op.batch;
  r.prefill_prompts_per_step = op.prompts_per_step;
  r.prefill_step_s = op.step_s;
  r.client_wait_s = op.client_wait_s;
  r.combined = combine(s, r, op, open ? op.batch * s.dep->decode.workers : clients);
  return r;
}

// An open loop is held to its closed-loop capacity at the most clients the decode slots hold, the
// figure the search sizes copies by (core::judge, methodology §6 "Load served").
void hold_to_capacity(DisaggEstimate& r, const DisaggEstimate& capacity) {
  r.combined.capacity_requests_per_s = capacity.combined.requests_per_s;
  r.combined.capacity_output_tokens_per_s = capacity.combined.output_tokens_per_s;
  // Past its capacity a deployment serves its capacity; the rest of the arrivals queue. Its decode
  // pool then runs as at capacity (the closed loop at the most clients its slots hold): the batch,
  // TPOT and decode memory of the rate it serves, not of the arrivals it cannot (as an overloaded
  // aggregated replica runs a full KV cache, methodology §6 "Load served").
  if (r.combined.overloaded && capacity.combined.requests_per_s > 0.0 &&
      capacity.combined.requests_per_s < r.combined.requests_per_s) {
    r.combined.requests_per_s = capacity.combined.requests_per_s;
    r.combined.output_tokens_per_s = capacity.combined.output_tokens_per_s;
    r.decode = capacity.decode;
    r.decode_batch = capacity.decode_batch;
    r.combined.tpot_s = capacity.combined.tpot_s;
    r.combined.decode_step_s = capacity.combined.decode_step_s;
    r.combined.tpot = capacity.combined.tpot;
    r.combined.in_flight = capacity.combined.in_flight;
    r.combined.concurrency = capacity.combined.concurrency;
    r.combined.memory = capacity.combined.memory;
  }
  if (capacity.combined.output_tokens_per_s > 0.0) {
    r.combined.usd_per_million_output_tokens =
        r.combined.usd_per_hour / (capacity.combined.output_tokens_per_s * k_seconds_per_hour) * 1e6;
  }
  if (capacity.combined.requests_per_s > 0.0) {
    r.combined.usd_per_request =
        r.combined.usd_per_hour / k_seconds_per_hour / capacity.combined.requests_per_s;
  }
}

// Auto: the most clients whose decode batches fit the slots and whose latencies meet the SLA
// (latency rises with the client count, so bisection finds it).
DisaggEstimate auto_clients(const PoolSetup& s, const DisaggEstimate& e, const Sla* sla) {
  double lo = 1.0;
  double hi = s.slots * s.dep->decode.workers;
  const auto ok = [&](const InferenceEstimate& c) { return meets(c, sla) && !c.clients_exceed_kv; };
  DisaggEstimate best = run_at(s, e, hi);
  if (ok(best.combined)) return best;
  // The trial points judge only the latencies and the KV verdict, which combine() sets from the
  // operating point and the pools' fixed figures: no decode worker's whole estimate and no copy of
  // the pools' (the point returned is run in full: the same numbers).
  while (hi - lo > std::max(1.0, 0.01 * lo)) {
    const double mid = std::floor((lo + hi) / 2.0);
    if (ok(combine(s, e, closed_point(s, mid), mid))) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return run_at(s, e, lo);
}

// estimate_disagg with the prefill queue's rate at `prefill_rate_factor` × the workload's.
DisaggEstimate estimate_pools(const PreparedModel& pm, const InferenceWorkload& workload,
                              const DisaggDeployment& dep, const EngineConfig& engine, const Sla* sla,
                              double handoff_s, DecodeStepMemo* memo, const DisaggEstimate* closed_in,
                              double prefill_rate_factor) {
  DisaggEstimate e;
  PoolSetup s{};
  s.pm = &pm;
  s.w = workload;
  s.dep = &dep;
  s.engine = &engine;
  s.prefill_rate_factor = prefill_rate_factor;
  DecodeStepMemo own;
  s.steps = keyed_memo(s, memo, own);
  set_pools(s, e, handoff_s);
  const bool open = workload.arrival == Arrival::poisson && workload.request_rate_per_s > 0.0;
  if (open) {
    DisaggEstimate r = run_at(s, e, 1.0);
    InferenceWorkload closed = workload;
    closed.arrival = Arrival::closed_loop;
    closed.request_rate_per_s = 0.0;
    closed.concurrency = 0;
    hold_to_capacity(r, closed_in != nullptr ? *closed_in
                                             : estimate_pools(pm, closed, dep, engine, nullptr, handoff_s,
                                                              memo, nullptr, 1.0));
    return r;
  }
  if (workload.concurrency > 0) return run_at(s, e, d(std::max<std::int64_t>(1, workload.concurrency)));
  return auto_clients(s, e, sla);
}

} // namespace

DisaggEstimate estimate_disagg(const PreparedModel& pm, const InferenceWorkload& workload,
                               const DisaggDeployment& dep, const EngineConfig& engine, const Sla* sla,
                               double handoff_s, DecodeStepMemo* memo, const DisaggEstimate* closed_in) {
  return estimate_pools(pm, workload, dep, engine, sla, handoff_s, memo, closed_in, 1.0);
}

std::optional<InferenceEstimate> disagg_slow_end(const DisaggEstimate& e, const PreparedModel& model,
                                                 const InferenceWorkload& workload,
                                                 const DisaggDeployment& deployment,
                                                 const EngineConfig& engine, PoolTimeFactors k,
                                                 DecodeStepMemo* steps, const DisaggEstimate* closed) {
  const InferenceEstimate& c = e.combined;
  const double kp = std::max(1.0, k.prefill), kd = std::max(1.0, k.decode);
  if (!c.open_loop || c.overloaded || !(std::max(kp, kd) > 1.0) || workload.request_rate_per_s <= 0.0)
    return std::nullopt;
  // Time scaling (methodology §3.5), pool by pool: the prefill queue sees only the arrivals and its
  // own service times, so at k_p× its times it is the pool at k_p·λ; the decode batch (Little's law)
  // likewise at k_d·λ. Each pool's figures take its own GPU's ratio after (latency_at_band_s).
  InferenceWorkload slow = workload;
  slow.request_rate_per_s *= kd;
  return estimate_pools(model, slow, deployment, engine, nullptr, -1.0, steps, closed, kp / kd).combined;
}

} // namespace rightsize
