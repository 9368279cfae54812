// The open loop of the inference estimator (docs/methodology.md §3.1 "Open loop: the step loop"):
// requests arriving at random join a continuously batched step loop; their first token comes with
// the step that carries their prompt. Mean, percentiles, and the in-flight count by Little's law.
#include <algorithm>
#include <array>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"
#include "rightsize/length_spread.hpp"
#include "rightsize/load_model.hpp"

namespace rightsize::detail {

double OpenStep::with_chunks_s(double work_s, double fresh) const {
  const double chunks = std::max(1.0, std::ceil(fresh / std::max(1.0, free_tokens)));
  return work_s + (chunks - 1.0) * carrier_s;
}

double OpenStep::prompt_s(const Setup& s, double fresh) const {
  return with_chunks_s(mixed_prefill_s(s, decode, batch / s.p, fresh, rows, s.cached_tokens), fresh);
}

namespace {

// Rows in the GEMMs of an open loop's mixed step at `batch` in flight: every sequence's decode
// token and the prompts' fresh tokens, up to the step's token budget.
double open_mixed_rows(const Setup& s, const InferenceWorkload& w, double batch) {
  return std::min(d(s.engine->max_batched_tokens), batch * (new_prompt_tokens(s, w) + 1.0));
}

// The step loop at `batch` sequences in flight per rank (methodology §3.1 "Open loop: the step
// loop"). Each step decodes the batch (D) and takes the prompts that arrived during the last one,
// n = batch / OSL of them on average; each adds its marginal work m (mixed_prefill_s), and a step
// that carries any prompt runs the prefill path's eager kernels once, E, with probability
// 1 − e^(−n) (Poisson arrivals per step): T = D + (1 − e^(−n))·E + n·m / p.
OpenStep open_step(const Setup& s, const InferenceWorkload& w, double batch) {
  OpenStep o;
  const double osl = d(w.output_tokens);
  o.batch = batch;
  o.decode = decode_time(s, batch, d(w.input_tokens) + osl / 2.0);
  // Above the largest CUDA-graph batch the step runs eagerly (methodology §3.2).
  if (batch / s.p > d(s.engine->cuda_graph_max_batch)) o.decode.total_s += s.engine->eager_step_overhead_s;
  o.rows = open_mixed_rows(s, w, batch);
  o.free_tokens = d(s.engine->max_batched_tokens) - batch / s.p;
  o.fresh_tokens = new_prompt_tokens(s, w);
  o.marginal_s = mixed_prefill_s(s, o.decode, batch / s.p, o.fresh_tokens, o.rows, s.cached_tokens);
  o.prompts_per_step = batch / osl;
  const double eager_s = eager_prefill_overhead_s(s);
  const double no_prompt = std::exp(-o.prompts_per_step);
  o.step_s = load::open_step_s(o.decode.total_s, eager_s, o.marginal_s, o.prompts_per_step, s.p);
  o.carrier_s = o.step_s + no_prompt * eager_s;
  return o;
}

// What a prompt waits for before the step that carries it (methodology §3.1): the remainder of the
// step running when it arrives, uniform on [0, T] while any other sequence is in flight (an arrival
// sees the time average, `seen` = rate × lifetime, Poisson: 1 − e^(−seen)), and room in a step's token
// budget: prompts bring rate·L·T tokens a step against the F free ones, a G/G/1 queue of utilization u =
// rate·L·T / F whose service is a prompt's share of a step, L·T / F (Kingman; c_s of the prompt lengths).
struct PromptWait {
  double busy = 0.0;          // probability a step is running at arrival
  double budget_wait_s = 0.0; // mean wait for room in the token budget
  double budget_util = 0.0;   // u
  [[nodiscard]] double mean_s(double step_s) const { return busy * step_s / 2.0 + budget_wait_s; }
};

PromptWait prompt_wait(const OpenStep& o, const InferenceWorkload& w, double fresh, double length_cv,
                       double seen) {
  PromptWait out;
  out.busy = 1.0 - std::exp(-std::max(0.0, seen));
  if (o.free_tokens <= 0.0) {
    out.budget_util = 1.0;
    out.budget_wait_s = load::kingman_wait_s(o.step_s, 1.0, w.arrival_cv, length_cv); // ∞
    return out;
  }
  const double share_s = fresh * o.step_s / o.free_tokens;
  out.budget_util = w.request_rate_per_s * share_s;
  out.budget_wait_s = load::kingman_wait_s(share_s, out.budget_util, w.arrival_cv, length_cv);
  return out;
}

// Percentiles (methodology §3.1): the remainder's quantile, plus the quantile of the prompt's own
// work with the budget's wait (exponential tail; over the prompts' spread, §3.1 "Request lengths"),
// plus the carrier step, whose other prompts are a count of mean n and variance c_a²·n (the
// arrivals of one step; normal approximation, so bursts lengthen it); TPOT spreads with the number
// of prompts a decode overlaps (Poisson, normal approximation).
void fill_open_percentiles(Point& pt, const Setup& s, const Spread& sp, const OpenStep& o,
                           const PromptWait& pw, double prompt_s, double arrival_cv, double balance_s,
                           double balance_hold, double osl) {
  double* ttft[3] = {&pt.ttft.p50_s, &pt.ttft.p90_s, &pt.ttft.p99_s};
  double* tpot[3] = {&pt.tpot.p50_s, &pt.tpot.p90_s, &pt.tpot.p99_s};
  double* e2e[3] = {&pt.e2e.p50_s, &pt.e2e.p90_s, &pt.e2e.p99_s};
  const double interference = pt.tpot_s - pt.decode.total_s;
  const std::array<double, 3> own =
      sp.ttft_quantiles_s(prompt_s, pw.budget_wait_s, std::min(1.0, pw.budget_util));
  for (int i = 0; i < 3; ++i) {
    const double q = k_quantiles[i];
    const double z = load::normal_quantile(q);
    const double company_s = o.marginal_s / s.p *
                             std::max(0.0, z * arrival_cv * std::sqrt(o.prompts_per_step)) *
                             (sp.prompt ? sp.overlap_spread() : 1.0);
    *ttft[i] = load::step_remainder_quantile_s(o.step_s, pw.busy, q) + o.carrier_s + company_s +
               own[static_cast<std::size_t>(i)] + pt.ttft_fixed_s +
               balance_quantile_s(balance_s, balance_hold, q);
    double spread = o.batch > 0.0 ? z / std::sqrt(o.batch) : 0.0;
    if (sp.prompt) spread *= sp.overlap_spread();
    *tpot[i] = pt.decode.total_s + interference * std::max(0.0, 1.0 + spread);
    *e2e[i] = *ttft[i] + (sp.output_tokens(osl, q) - 1.0) * *tpot[i];
  }
}

} // namespace

// Mean tokens of KV room a sequence of an open loop holds (methodology §3.1 "Open loop: KV in
// flight"): its prompt, the half of its output generated on average (arrivals are spread over
// their lifetimes) and the engine's reserved share of the rest: ISL + (1 + r)·(OSL − 1)/2.
double open_held_tokens(const InferenceWorkload& w, const EngineConfig& engine) {
  const double rest = std::max(0.0, d(w.output_tokens) - 1.0) / 2.0;
  return d(w.input_tokens) + rest * (1.0 + std::clamp(engine.kv_reserved_output_share, 0.0, 1.0));
}

// The highest arrival rate per rank the step loop sustains with `slots` sequences in flight
// (methodology §3.1 "Open loop: capacity"): Little's law at a full cache with each request's own
// path (the running step's mean remainder, its carrier step and work, then OSL − 1 steps), no
// further than the token budget (a step takes F prompt tokens: rate·L·T ≤ F) and the GPU's share
// for prompts (rate·m / p < 1).
OpenCapacity open_capacity(const Setup& s, const InferenceWorkload& w, double slots) {
  OpenCapacity out;
  const double batch = std::max(1.0, slots);
  const OpenStep o = open_step(s, w, batch);
  const double fresh = new_prompt_tokens(s, w);
  out.first_token_s = o.step_s / 2.0 + o.carrier_s + o.mean_prompt_s();
  out.decode_s = (d(w.output_tokens) - 1.0) * o.step_s;
  out.requests_per_s = load::open_capacity_per_s(batch, out.first_token_s, out.decode_s, o.free_tokens, fresh,
                                                 o.step_s, o.marginal_s, s.p);
  return out;
}

// Open loop at w.request_rate_per_s (methodology §3.1 "Open loop: the step loop"): the step at the
// batch in flight, a prompt's wait for it, and the batch from Little's law, solved by fixed point.
// Past the GPU's share for prompts (rate·m / p ≥ 1), the token budget (u ≥ 1) or the KV slots the
// queue grows without end.
Point evaluate_open(const Setup& s, const InferenceWorkload& w, double slots) {
  Point pt{};
  pt.ttft_fixed_s = request_fixed_s(s);
  const double osl = d(w.output_tokens);
  const double rate = w.request_rate_per_s;
  const double fresh = new_prompt_tokens(s, w);
  pt.prefill = prefill_time(s, fresh, 0.0, s.cached_tokens);
  // In flight by Little's law (`seen`, what an arrival finds), at least the arriving one in a step.
  double seen = rate * (pt.prefill.total_s + osl * decode_time(s, 1.0, d(w.input_tokens)).total_s);
  double batch = std::max(1.0, seen);
  // Prompts of different lengths make a prompt's work vary (§3.1 "Request lengths").
  Spread spread = w.input_spread.varies() || w.output_spread.varies() ? spread_of(w) : Spread{};
  const double length_cv = spread.prompt ? load::lognormal_cv(spread.grid.sigma) : 0.0;
  OpenStep o;
  PromptWait pw;
  double prompt_s = 0.0, wait = 0.0, rho = 0.0;
  bool kv_bound = false;
  const auto settle = [&](double at_batch) {
    o = open_step(s, w, at_batch);
    prompt_s = o.mean_prompt_s();
    set_curve(spread, s, w, o.rows, prompt_s, &o);
    pw = prompt_wait(o, w, fresh, length_cv, seen);
    rho = rate * o.marginal_s / s.p;
    wait = rho >= 1.0 ? load::kingman_wait_s(o.step_s, 1.0, w.arrival_cv, 0.0) : pw.mean_s(o.step_s);
  };
  for (int i = 0; i < 40; ++i) {
    settle(batch);
    if (!std::isfinite(wait)) break;
    // Little's law; the KV cache holds at most `slots` sequences, so more would queue without end.
    const double ttft = wait + o.carrier_s + prompt_s;
    seen = rate * (ttft + (osl - 1.0) * o.step_s);
    const double wanted = std::max(1.0, seen);
    kv_bound = wanted > std::max(1.0, slots) * 1.0001;
    const double next = std::min(wanted, std::max(1.0, slots));
    if (std::fabs(next - batch) < 1e-3 * batch) {
      batch = next;
      break;
    }
    batch = 0.5 * (batch + next);
  }
  // Near the edge the damped loop may stop below a full cache it would reach: past the capacity (the
  // same figure the estimate reports, methodology §3.1 "Open loop: capacity") the queue grows. Asked
  // only when the loop found no overload of its own.
  if (!kv_bound && std::isfinite(wait) && rate > open_capacity(at_batch(s, slots), w, slots).requests_per_s)
    kv_bound = true;
  pt.overloaded = !std::isfinite(wait) || kv_bound;
  if (!std::isfinite(wait)) wait = 1e9; // finite stand-in; `overloaded` says it
  if (pt.overloaded) {
    // Past what the replica serves the queue grows until the KV cache is full: the engine runs
    // `slots` sequences (the rest wait), so memory and TPOT are those of a full cache, whatever
    // point the fixed-point loop stopped at.
    batch = std::max(1.0, slots);
    const double kept = wait;
    settle(batch);
    wait = kept;
  }
  pt.decode = o.decode;
  pt.tpot_s = o.step_s;
  // Attention-DP balancing: prompts reach the adp ranks at rate·adp (methodology §3.2).
  double balance_hold = 0.0;
  const double balance_s = balance_hold_s(s, rate * s.adp * pt.tpot_s, pt.tpot_s, balance_hold);
  pt.ttft_s = wait + o.carrier_s + prompt_s + balance_s + pt.ttft_fixed_s;
  pt.e2e_s = pt.ttft_s + (osl - 1.0) * pt.tpot_s;
  pt.wait_s = std::max(0.0, pt.ttft_s - pt.ttft_fixed_s - pt.prefill.total_s);
  pt.in_flight = batch;
  pt.prefill_utilization = std::min(1.0, std::max(rho, pw.budget_util));
  pt.tokens_per_s_replica = rate * osl;
  if (pt.overloaded) { // the percentiles of an unbounded queue: its stand-in wait, always waited
    pw.budget_wait_s = wait;
    pw.budget_util = 1.0;
  }
  fill_open_percentiles(pt, s, spread, o, pw, prompt_s, w.arrival_cv, balance_s, balance_hold, osl);
  return pt;
}

} // namespace rightsize::detail
