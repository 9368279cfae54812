// The closed loop of the inference estimator (docs/methodology.md §3.1): waves blended with exact
// MVA, percentiles; attention-DP balancing shared with the open loop (inference_open.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/estimate/inference_detail.hpp"
#include "core/estimate/prefix_cache.hpp"
#include "rightsize/load_model.hpp"

namespace rightsize::detail {

// Time from a request's arrival to its first token outside the prefill and the queue: the
// engine's fixed part, and loading the request's cached blocks from the offload tier (§3.9).
double request_fixed_s(const Setup& s) {
  return s.engine->ttft_fixed_s + s.tier_load_s;
}

// Attention-DP balancing (methodology §3.2): the mean hold of a prompt in seconds at
// `arrivals_per_step` prompts over the replica's ranks and `step_s` per step; `hold_s` receives the
// longest hold (the prompt that opens it). 0 without attention DP or balancing.
double balance_hold_s(const Setup& s, double arrivals_per_step, double step_s, double& hold_s) {
  double hold_steps = 0.0;
  const double mean_steps =
      load::adp_balance_wait_steps(s.adp, arrivals_per_step, s.engine->adp_balance_timeout_steps,
                                   s.engine->adp_balance_batching_steps, &hold_steps);
  hold_s = hold_steps * step_s;
  return mean_steps * step_s;
}

// Quantile q of the balancing hold: holds spread from 0 to the longest; the median is taken as
// the mean, the upper quantiles as that share of the longest.
double balance_quantile_s(double mean_s, double hold_s, double q) {
  return q <= 0.5 ? mean_s : std::max(mean_s, q * hold_s);
}

namespace {

// A wave of `batch` requests of a closed loop with equal lengths (evaluate_closed), prefilled in
// steps of up to max_batched_tokens prompt tokens after an idle prefill of `prefill_s`.
struct Wave {
  double budget;    // prompt tokens per step
  double wave_s;    // the wave's prefill steps plus the pipeline fill
  double ttft_s;    // mean first-token time over the wave
  double ttft_q[3]; // the first request at or past each quantile of the wave
};

Wave closed_wave(const Setup& s, const InferenceWorkload& w, double batch, double prefill_s) {
  // The prompt tokens each request prefills (its prompt less its cached prefix, methodology §3.9).
  const auto fresh_tokens = static_cast<std::int64_t>(new_prompt_tokens(s, w));
  const double isl = d(fresh_tokens);
  const int n = static_cast<int>(batch);
  Wave out{};
  const double budget = std::max(1.0, d(s.engine->max_batched_tokens));
  out.budget = budget;
  const double wave_tokens = batch * isl;
  const double full_steps = std::floor(wave_tokens / budget);
  const double last_tokens = wave_tokens - full_steps * budget;
  // One step of `tokens` prompt tokens (its GEMMs have that many rows), pipelined over p stages.
  const double c = s.cached_tokens;
  const double full_step_s = full_steps > 0.0 ? prefill_time(s, budget, budget, c).total_s / s.p : 0.0;
  const double last_step_s =
      last_tokens > 0.0 ? prefill_time(s, last_tokens, last_tokens, c).total_s / s.p : 0.0;
  const double fill_s = s.p > 1.0 ? prefill_s * (1.0 - 1.0 / s.p) : 0.0; // pipeline fill
  const double steps_total = full_steps + (last_tokens > 0.0 ? 1.0 : 0.0);
  out.wave_s = full_steps * full_step_s + last_step_s + fill_s;
  // Request i's first token ends step ⌈i·ISL / budget⌉ (1-based); only the last step may be partial.
  const auto ttft_of = [&](std::int64_t i) {
    const double step = std::ceil(d(i) * isl / budget - 1e-9);
    const double t = (step < steps_total || last_tokens <= 0.0) ? step * full_step_s
                                                                : (step - 1.0) * full_step_s + last_step_s;
    return t + fill_s;
  };
  // Σ over the wave in closed form (O(log budget), not O(n)): every request pays fill_s and
  // ⌈i·ISL / budget⌉ full steps, and those in the partial last step (i·ISL past the full steps'
  // tokens) pay last_step_s instead of one full step.
  const auto budget_tokens = static_cast<std::int64_t>(budget);
  double ttft_sum = d(n) * fill_s + full_step_s * d(load::ceil_sum(n, fresh_tokens, budget_tokens));
  if (last_tokens > 0.0 && fresh_tokens > 0) {
    const std::int64_t before_last = static_cast<std::int64_t>(full_steps) * budget_tokens / fresh_tokens;
    ttft_sum -= d(std::max<std::int64_t>(0, n - before_last)) * (full_step_s - last_step_s);
  }
  for (int k = 0; k < 3; ++k) {
    const auto i = static_cast<std::int64_t>(std::ceil(k_quantiles[k] * batch));
    if (i <= n) out.ttft_q[k] = ttft_of(std::max<std::int64_t>(1, i));
  }
  out.ttft_s = ttft_sum / batch;
  return out;
}

// What the closed loop's percentiles are made of (closed_percentiles).
struct ClosedTails {
  const Spread& spread;
  double service_s, mva_wait_s, utilization;
  double slot_wait_s, fixed_s; // the wait for a slot and the request's fixed part
  double balance_s, balance_hold_s;
  double phi;            // wave synchrony
  double interference_s; // the MVA's prefill interference per decode step
  double wave_tpot_s, first_tpot_s;
};

// Percentiles of the closed loop: the wave's order statistics blended with the tail of the MVA
// wait (with the prompts' spread, §3.1 "Request lengths"). The first request of a wave waits longest
// inside its decode; under desynchronised arrivals the prefills a decode overlaps are Poisson around n
// (normal approximation).
void closed_percentiles(Point& pt, const ClosedTails& t, const Wave& wave, double batch, double osl) {
  const Spread& sp = t.spread;
  const std::array<double, 3> tails = sp.ttft_quantiles_s(t.service_s, t.mva_wait_s, t.utilization);
  for (int k = 0; k < 3; ++k) {
    const double tail = tails[static_cast<std::size_t>(k)];
    const double v = t.slot_wait_s + t.phi * wave.ttft_q[k] + (1.0 - t.phi) * tail + t.fixed_s +
                     balance_quantile_s(t.balance_s, t.balance_hold_s, k_quantiles[k]);
    (k == 0 ? pt.ttft.p50_s : k == 1 ? pt.ttft.p90_s : pt.ttft.p99_s) = std::max(v, pt.prefill.total_s);
  }
  for (int k = 0; k < 3; ++k) {
    double z = load::normal_quantile(k_quantiles[k]);
    if (sp.prompt) z *= sp.overlap_spread();
    const double wave_k = t.wave_tpot_s + (t.first_tpot_s - t.wave_tpot_s) * (k == 0   ? 0.0
                                                                              : k == 1 ? 0.8
                                                                                       : 0.98);
    const double mva_k = pt.decode.total_s + t.interference_s * std::max(0.0, 1.0 + z / std::sqrt(batch));
    (k == 0   ? pt.tpot.p50_s
     : k == 1 ? pt.tpot.p90_s
              : pt.tpot.p99_s) = t.phi * wave_k + (1.0 - t.phi) * mva_k;
  }
  const double think = (sp.output_tokens(osl, 0.5) - 1.0) * pt.tpot_s;
  pt.e2e = {pt.ttft.p50_s + think, pt.ttft.p90_s + (sp.output_tokens(osl, 0.9) - 1.0) * pt.tpot.p90_s,
            pt.ttft.p99_s + (sp.output_tokens(osl, 0.99) - 1.0) * pt.tpot.p99_s};
}

} // namespace

// Closed loop with equal lengths (methodology §3.1): the clients' requests start together and,
// with equal output lengths, finish together, so they arrive in waves. A wave of n = min(clients,
// slots) requests is prefilled in steps of up to max_batched_tokens tokens; request i (FCFS) has its
// first token when the step holding its last prompt token ends. Requests prefilled early wait for
// the rest of the wave inside their decode (TPOT). Clients beyond the slots wait whole waves.
PhaseTime closed_decode_step(const Setup& s, const InferenceWorkload& w, double clients, double slots) {
  const double batch = std::max(1.0, std::min(clients, std::max(1.0, slots)));
  PhaseTime decode = decode_time(s, batch, d(w.input_tokens) + d(w.output_tokens) / 2.0);
  if (batch / s.p > d(s.engine->cuda_graph_max_batch)) decode.total_s += s.engine->eager_step_overhead_s;
  return decode;
}

Point evaluate_closed(const Setup& s, const InferenceWorkload& w, double clients, double slots) {
  Point pt{};
  const double osl = d(w.output_tokens);
  const double isl = new_prompt_tokens(s, w); // what each prompt prefills (methodology §3.9)
  const double batch = std::max(1.0, std::min(clients, std::max(1.0, slots)));
  const int n = static_cast<int>(batch);
  pt.decode = closed_decode_step(s, w, clients, slots);
  pt.prefill = prefill_time(s, isl, 0.0, s.cached_tokens);
  const Wave wave = closed_wave(s, w, batch, pt.prefill.total_s);
  const double budget = wave.budget, wave_s = wave.wave_s, wave_ttft = wave.ttft_s;
  const double tokens_after_first = std::max(1.0, osl - 1.0);
  const double wave_tpot = pt.decode.total_s + (wave_s - wave_ttft) / tokens_after_first;
  // Desynchronised arrivals: exact MVA of the prefill queue among the n in flight, decode as
  // think time; each round carries n/OSL prefills of `service` (methodology §4.4).
  // A mixed step holds this prompt and one decode token of each other sequence in flight.
  const double mixed_rows = std::min(budget, batch * isl + (batch - 1.0));
  const double service = prefill_time(s, isl, mixed_rows, s.cached_tokens).total_s;
  const double mva_tpot = pt.decode.total_s + (batch / osl) * service / s.p;
  const load::ClosedResult q = load::closed_mva(service / s.p, (osl - 1.0) * mva_tpot, n);
  const double mva_wait = std::max(0.0, q.response_s - service / s.p);
  const double mva_ttft = service + mva_wait;
  // How much of the wave an engine keeps together (engine profile, methodology §3.2): 1 = every
  // wave intact, 0 = fully desynchronised.
  const double phi = std::clamp(s.engine->wave_synchrony, 0.0, 1.0);
  const double inside_ttft = phi * wave_ttft + (1.0 - phi) * mva_ttft;
  pt.tpot_s = phi * wave_tpot + (1.0 - phi) * mva_tpot;
  const double think = (osl - 1.0) * pt.tpot_s;
  // Attention-DP balancing holds each prompt until every rank has one: each of the adp ranks' n
  // sequences sends a prompt about every OSL steps (methodology §3.2).
  double balance_hold = 0.0;
  const double balance_s = balance_hold_s(s, s.adp * batch / std::max(1.0, osl), pt.tpot_s, balance_hold);
  const double cycle = inside_ttft + balance_s + think;
  const double slot_wait = clients > batch ? (clients / batch - 1.0) * cycle : 0.0;
  pt.ttft_s = slot_wait + inside_ttft + balance_s + request_fixed_s(s);
  pt.e2e_s = pt.ttft_s + think;
  pt.wait_s = std::max(0.0, pt.ttft_s - pt.prefill.total_s);
  pt.in_flight = batch;
  pt.prefill_utilization = phi * wave_s / (wave_s + osl * pt.decode.total_s) + (1.0 - phi) * q.utilization;
  pt.tokens_per_s_replica = batch * osl / cycle;
  const bool varies = w.input_spread.varies() || w.output_spread.varies();
  Spread spread;
  if (varies) {
    spread = spread_of(w);
    set_curve(spread, s, w, mixed_rows, service);
  }
  const ClosedTails tails{spread,    service,
                          mva_wait,  q.utilization,
                          slot_wait, request_fixed_s(s),
                          balance_s, balance_hold,
                          phi,       mva_tpot - pt.decode.total_s,
                          wave_tpot, pt.decode.total_s + wave_s / tokens_after_first};
  closed_percentiles(pt, tails, wave, batch, osl);
  return pt;
}

} // namespace rightsize::detail
