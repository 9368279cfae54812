// Queueing formulas of the arrival model (methodology §3.1).
#include "rightsize/load_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

namespace rightsize::load {

namespace {

// The sums of the product form exact MVA computes (Reiser & Lavenberg 1980, §2): with z = Z/S and
// m customers thinking, the weight of m is v_m ∝ z^m/m! (the finite-source queue M/M/1//N,
// Kleinrock 1975 §3.8), m = 0..N. Summed outwards from the largest weight (m0 = N when N ≤ z,
// else ⌊z⌋) and stopped once a weight is below 1e-20 of the sum (the rest falls faster than
// geometrically): the same numbers as the O(N) recursion to rounding, in O(√min(N, z)) steps.
struct ProductSums {
  double sum = 1.0;   // Σ v_m
  double busy = 0.0;  // Σ over m < N (the station busy)
  double queue = 0.0; // Σ (N − m)·v_m
};

// ln(m!) by Stirling's series to the 1/(12m) term (error below 1/(360·m³); Abramowitz & Stegun
// 6.1.41); 0 at m = 0.
double log_factorial(double m) {
  if (m < 1.0) return 0.0;
  return m * std::log(m) - m + 0.5 * std::log(2.0 * std::numbers::pi * m) + 1.0 / (12.0 * m);
}

// Past the mode (N > m0 = ⌊z⌋) the weights fall as z/m: when v_N/v_m0 = z^(N − m0)·m0!/N! is below
// e^-60 (1e-26; the sum cuts at 1e-20) the station is never idle to double precision, so the sums
// need not be run: utilization 1 and Σ(N − m)·v_m / Σ v_m = N − z (the Poisson mean of the thinking
// customers, z). The margin of e^-60 against 1e-20 covers Stirling's error many times over.
bool saturated(double z, int m0, int customers) {
  const double n = static_cast<double>(customers), m = static_cast<double>(m0);
  const double log_ratio = (n - m) * std::log(z) - (log_factorial(n) - log_factorial(m));
  return log_ratio < -60.0;
}

ProductSums product_sums(double z, int customers) {
  const double n = static_cast<double>(customers);
  ProductSums p;
  double w = 1.0;
  if (n <= z) { // m0 = N: only the terms below it (w_j = w_{j−1}·(N − j + 1)/z, j = N − m)
    for (int j = 1; j <= customers; ++j) {
      w *= (n - j + 1.0) / z;
      p.sum += w;
      p.busy += w;
      p.queue += j * w;
      if (w < 1e-20 * p.sum) break;
    }
    return p;
  }
  const int m0 = static_cast<int>(z); // < N
  if (saturated(z, m0, customers)) {  // v_N below e^-60 of the mode: the summed result, to rounding
    p.sum = p.busy = 1.0;             // utilization 1, mean thinking z: Q = N − z
    p.queue = n - z;
    return p;
  }
  p.busy = 1.0;
  p.queue = n - m0;
  for (int m = m0 + 1; m <= customers; ++m) { // up: w_m = w_{m−1}·z/m
    w *= z / m;
    p.sum += w;
    if (m < customers) p.busy += w; // m = N: the station idle
    p.queue += (n - m) * w;
    if (w < 1e-20 * p.sum) break;
  }
  w = 1.0;
  for (int m = m0; m > 0; --m) { // down: w_{m−1} = w_m·m/z
    w *= m / z;
    p.sum += w;
    p.busy += w;
    p.queue += (n - m + 1.0) * w;
    if (w < 1e-20 * p.sum) break;
  }
  return p;
}

ClosedResult from_sums(double service_s, double sum, double busy, double queue) {
  ClosedResult r;
  r.utilization = std::min(1.0, busy / sum);
  r.throughput_per_s = busy / sum / service_s;
  r.response_s = busy > 0.0 ? queue / busy * service_s : service_s; // Little: R = Q/X
  return r;
}

ClosedResult all_queue(double service_s, int customers) { // think 0: R(k) = k·S, X = 1/S
  ClosedResult r;
  r.response_s = static_cast<double>(customers) * service_s;
  r.throughput_per_s = 1.0 / service_s;
  r.utilization = 1.0;
  return r;
}

} // namespace

ClosedResult closed_mva(double service_s, double think_s, int customers) {
  if (customers <= 0 || service_s <= 0.0) return {};
  if (think_s <= 0.0) return all_queue(service_s, customers);
  const ProductSums p = product_sums(think_s / service_s, customers);
  return from_sums(service_s, p.sum, p.busy, p.queue);
}

// A fractional population (methodology §3.6: N clients over P·a prefill servers) as the linear mix
// of the neighbouring integer populations; below one customer, the response is one service.
ClosedResult closed_mva_at(double service_s, double think_s, double customers) {
  const double lo = std::floor(customers);
  const ClosedResult a = closed_mva(service_s, think_s, static_cast<int>(lo));
  if (customers - lo < 1e-9) return a;
  const ClosedResult b = closed_mva(service_s, think_s, static_cast<int>(lo) + 1);
  const double f = customers - lo;
  ClosedResult r;
  r.response_s = a.response_s + f * (b.response_s - a.response_s);
  r.throughput_per_s = a.throughput_per_s + f * (b.throughput_per_s - a.throughput_per_s);
  r.utilization = a.utilization + f * (b.utilization - a.utilization);
  if (lo < 1.0) r.response_s = b.response_s;
  return r;
}

double kingman_wait_s(double service_s, double utilization, double arrival_cv, double service_cv) {
  if (utilization >= 1.0) return std::numeric_limits<double>::infinity();
  if (utilization <= 0.0) return 0.0;
  return (arrival_cv * arrival_cv + service_cv * service_cv) / 2.0 * utilization / (1.0 - utilization) *
         service_s;
}

double wait_quantile_s(double mean_wait_s, double p_wait, double q) {
  if (mean_wait_s <= 0.0 || p_wait <= 0.0) return 0.0;
  const double p = std::min(p_wait, 1.0);
  if (q >= 1.0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, mean_wait_s / p * std::log(p / (1.0 - q)));
}

// Open loop: the step loop (methodology §3.1; continuous batching, Yu et al. 2022 [ORCA], chunked
// prefill, Agrawal et al. 2024 [SARATHI]).
double open_step_s(double decode_s, double eager_s, double marginal_s, double prompts_per_step,
                   double stages) {
  const double n = std::max(0.0, prompts_per_step);
  return decode_s + (1.0 - std::exp(-n)) * eager_s + n * marginal_s / std::max(1.0, stages);
}

double step_remainder_quantile_s(double step_s, double busy, double q) {
  if (busy <= 0.0) return 0.0;
  return step_s * std::max(0.0, (q - (1.0 - std::min(1.0, busy))) / std::min(1.0, busy));
}

double open_capacity_per_s(double slots, double first_token_s, double decode_s, double free_tokens,
                           double prompt_tokens, double step_s, double marginal_s, double stages) {
  if (free_tokens <= 0.0 || step_s <= 0.0) return 0.0;
  double rate = std::max(1.0, slots) / std::max(1e-12, first_token_s + decode_s);
  rate = std::min(rate, free_tokens / (std::max(1.0, prompt_tokens) * step_s));
  if (marginal_s > 0.0) rate = std::min(rate, std::max(1.0, stages) / marginal_s);
  return rate;
}

std::size_t power_knee_index(std::span<const double> load, std::span<const double> latency) {
  std::size_t best = load.size();
  double best_power = 0.0;
  for (std::size_t i = 0; i < load.size() && i < latency.size(); ++i) {
    if (!std::isfinite(latency[i]) || latency[i] <= 0.0 || !std::isfinite(load[i])) continue;
    const double power = load[i] / latency[i];
    if (best == load.size() || power > best_power) {
      best = i;
      best_power = power;
    }
  }
  return best;
}

namespace {

// Σ_{i=0..n−1} ⌊(a·i + b) / m⌋ for a, b ≥ 0, m > 0. Each round takes the whole multiples of m out
// of a and b, then swaps the roles of the axes (counting lattice points under the line by columns
// instead of rows): a ← m, m ← a mod m, as in Euclid's algorithm, so it ends in O(log m) rounds.
std::int64_t floor_sum(std::int64_t n, std::int64_t m, std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  while (n > 0) {
    sum += (n - 1) * n / 2 * (a / m) + n * (b / m);
    a %= m;
    b %= m;
    const std::int64_t top = a * n + b; // the line's value at i = n
    if (top < m) break;
    n = top / m;
    b = top % m;
    std::swap(m, a);
  }
  return sum;
}

} // namespace

std::int64_t ceil_sum(std::int64_t n, std::int64_t a, std::int64_t m) {
  if (n <= 0 || m <= 0 || a < 0) return 0;
  // ⌈i·a/m⌉ = ⌊(i·a + m − 1)/m⌋, and i = j + 1 for j = 0..n−1.
  return floor_sum(n, m, a, a + m - 1);
}

double adp_balance_wait_steps(double ranks, double arrivals_per_step, double timeout_steps,
                              double batching_steps, double* hold_steps) {
  if (hold_steps != nullptr) *hold_steps = 0.0;
  if (ranks <= 1.0 || timeout_steps <= 0.0 || arrivals_per_step <= 0.0) return 0.0;
  double harmonic = 0.0; // H(ranks − 1)
  for (int k = 1; k < static_cast<int>(std::lround(ranks)); ++k)
    harmonic += 1.0 / static_cast<double>(k);
  const double all_ranks_steps = harmonic * ranks / arrivals_per_step;
  const double hold =
      all_ranks_steps < timeout_steps ? all_ranks_steps + std::max(0.0, batching_steps) : timeout_steps;
  if (hold_steps != nullptr) *hold_steps = hold;
  return (hold + arrivals_per_step * hold * hold / 2.0) / (1.0 + arrivals_per_step * hold);
}

double normal_quantile(double q) {
  // Φ⁻¹ at the percentiles the estimator reports (Abramowitz & Stegun table 26.1).
  if (q <= 0.5) return 0.0;
  if (q <= 0.9) return 1.2816 * (q - 0.5) / 0.4;
  if (q <= 0.99) return 1.2816 + (2.3263 - 1.2816) * (q - 0.9) / 0.09;
  return 2.3263;
}

namespace {

// Below this mean the Poisson is summed term by term (e^-L stays a normal double); above it the
// normal approximation with continuity correction is within one request of the exact quantile.
constexpr double k_poisson_exact_below = 100.0;

// P(N ≤ k) of a Poisson count of mean L, k ≥ 0, summed term by term.
double poisson_cdf(double mean, double k) {
  double term = std::exp(-mean);
  double sum = term;
  for (double i = 1.0; i <= k; i += 1.0) {
    term *= mean / i;
    sum += term;
  }
  return std::min(1.0, sum);
}

} // namespace

double poisson_in_flight_quantile(double mean_in_flight, double q) {
  if (!(mean_in_flight > 0.0)) return 0.0;
  if (mean_in_flight >= k_poisson_exact_below)
    return mean_in_flight + normal_quantile(q) * std::sqrt(mean_in_flight);
  // The smallest k with P(N ≤ k) ≥ q.
  double term = std::exp(-mean_in_flight);
  double sum = term;
  double k = 0.0;
  while (sum < q && k < 10.0 * k_poisson_exact_below) {
    k += 1.0;
    term *= mean_in_flight / k;
    sum += term;
  }
  return k;
}

double poisson_above_probability(double mean_in_flight, double cap) {
  if (!(mean_in_flight > 0.0)) return 0.0;
  if (cap < 0.0) return 1.0;
  if (mean_in_flight < k_poisson_exact_below)
    return std::max(0.0, 1.0 - poisson_cdf(mean_in_flight, std::floor(cap)));
  // Φ by the complementary error function: 1 − Φ(x) = erfc(x/√2)/2.
  const double x = (std::floor(cap) + 0.5 - mean_in_flight) / std::sqrt(mean_in_flight);
  return 0.5 * std::erfc(x / std::sqrt(2.0));
}

} // namespace rightsize::load
