#pragma once
// Queueing formulas of the arrival model (methodology §3.1). Pure and allocation-free.
#include <cstddef>
#include <cstdint>
#include <span>

namespace rightsize::load {

/// Result of exact mean-value analysis of a closed network: one queueing station (service
/// `service_s` per visit) and one delay station (think time `think_s`), `customers` customers.
struct ClosedResult {
  double response_s = 0.0; ///< mean time at the queueing station (wait + service)
  double throughput_per_s = 0.0;
  double utilization = 0.0; ///< throughput · service
};

/// Exact MVA (Reiser & Lavenberg 1980): R(k) = S·(1 + Q(k−1)), X(k) = k/(R(k) + Z), Q(k) = X(k)·R(k),
/// for k = 1..customers. Computed from the product form that recursion solves, in O(√customers +
/// think/service) steps (load_model.cpp; equal to the recursion to rounding).
ClosedResult closed_mva(double service_s, double think_s, int customers);
/// closed_mva at a fractional `customers`: linear between the neighbouring integer counts; below one
/// customer the response is one service (and throughput and utilization the linear share of one).
ClosedResult closed_mva_at(double service_s, double think_s, double customers);

/// Mean wait in a G/G/1 queue by Kingman's approximation: (c_a² + c_s²)/2 · ρ/(1 − ρ) · S.
/// ρ ≥ 1 returns +infinity.
double kingman_wait_s(double service_s, double utilization, double arrival_cv, double service_cv);

/// Quantile q of a wait that is 0 with probability 1 − p_wait and otherwise exponential with the
/// mean that makes the overall mean `mean_wait_s` (the heavy-traffic form of the waiting-time tail,
/// Kingman 1962): max(0, (mean/p_wait)·ln(p_wait/(1 − q))).
double wait_quantile_s(double mean_wait_s, double p_wait, double q);

/// The mean step of a continuously batched open loop (methodology §3.1 "Open loop: the step loop"):
/// each step decodes the batch (`decode_s`, D) and takes the prompts that arrived during the last,
/// n = `prompts_per_step` on average (Poisson); each adds its marginal work m; a step carrying any
/// prompt runs the prefill path's eager kernels once (E) with probability 1 − e^(−n), over p
/// pipeline stages: T = D + (1 − e^(−n))·E + n·m / p.
double open_step_s(double decode_s, double eager_s, double marginal_s, double prompts_per_step,
                   double stages);

/// Quantile q of what is left of the running step when a prompt arrives: 0 with probability
/// 1 − `busy` (nothing in flight), else uniform on [0, T]: T·max(0, (q − (1 − busy)) / busy).
double step_remainder_quantile_s(double step_s, double busy, double q);

/// The highest arrival rate an open loop sustains (methodology §3.1 "Open loop: capacity"): the
/// least of Little's law at `slots` in flight, slots / (first token + decode); the token budget,
/// a step of `step_s` taking `free_tokens` prompt tokens of `prompt_tokens` each,
/// F / (L·T); and the GPU's share for prompts, p / m. 0 when no prompt token fits a step.
double open_capacity_per_s(double slots, double first_token_s, double decode_s, double free_tokens,
                           double prompt_tokens, double step_s, double marginal_s, double stages);

/// The knee of a latency–load curve (methodology §3.1 "The knee"): the point of greatest power,
/// load / latency (Kleinrock 1979), where latency starts to grow faster than the load it carries
/// (d ln latency / d ln load = 1 there on a smooth curve). Points with a latency ≤ 0 or not finite
/// are skipped; the first of equal powers wins. Returns `load.size()` when no point qualifies.
std::size_t power_knee_index(std::span<const double> load, std::span<const double> latency);

/// Σ_{i=1..n} ⌈i·a / m⌉ for integers n ≥ 0, a ≥ 0, m > 0: the closed loop's wave prefill (request i
/// of a wave has its first token at the end of step ⌈i·ISL / budget⌉), in O(log m) steps instead of
/// n by the Euclid-like reduction of floor sums (Graham, Knuth & Patashnik, Concrete Mathematics,
/// 2nd ed., §3.5). Exact in 64-bit integers while n·a and n²·a / m stay below 2⁶².
std::int64_t ceil_sum(std::int64_t n, std::int64_t a, std::int64_t m);

/// Attention-DP balancing (TensorRT-LLM PyExecutor `_balance_adp_requests`, methodology §3.2): a
/// new prompt is held until every one of `ranks` ranks has one, or `timeout_steps` steps pass; once
/// all have one, `batching_steps` more. Prompts arrive at `arrivals_per_step` over all ranks
/// (Poisson), 1/ranks of them on each rank. The hold lasts W = T_all + batching when the expected
/// time for the other ranks to receive one, T_all = H(ranks − 1)·ranks/Λ (the mean of the largest
/// of ranks − 1 exponential arrival times), is below the timeout, else W = timeout. The prompt that
/// opens the hold waits W and the Λ·W arriving during it wait W − t: the mean hold is
/// (W + Λ·W²/2)/(1 + Λ·W) steps. `hold_steps` (optional) receives W.
double adp_balance_wait_steps(double ranks, double arrivals_per_step, double timeout_steps,
                              double batching_steps, double* hold_steps = nullptr);

/// Standard-normal quantile for q in {0.5, 0.9, 0.99} (others interpolate a small table).
double normal_quantile(double q);

/// Quantile q of the number of requests in flight when they arrive as a Poisson stream and none
/// waits for another (M/G/∞: the count is Poisson with mean L = λ·E[time in system], whatever the
/// time's distribution; Kleinrock, Queueing Systems vol. 1, 1975: M/G/∞): the smallest k
/// with P(N ≤ k) ≥ q, summed exactly below L = 100, above it the normal approximation L + z_q·√L.
/// An engine whose in-flight cap is this figure queues a request with probability at most 1 − q.
/// L ≤ 0 returns 0.
double poisson_in_flight_quantile(double mean_in_flight, double q);

/// Probability that a Poisson count of mean L exceeds `cap`: 1 − Σ_{k ≤ cap} e^−L·L^k/k! (exact
/// below L = 100, else 1 − Φ((⌊cap⌋ + ½ − L)/√L)); 0 when L ≤ 0. The share of time an engine capped
/// at `cap` holds requests in its queue under that count.
double poisson_above_probability(double mean_in_flight, double cap);

} // namespace rightsize::load
