// Queueing formulas of the arrival model (methodology §3.1).
#include "rightsize/load_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize::load {

ClosedResult closed_mva(double service_s, double think_s, int customers) {
  ClosedResult r;
  if (customers <= 0 || service_s <= 0.0) return r;
  const double n = static_cast<double>(customers);
  if (think_s <= 0.0) { // everyone queues: R(k) = k·S, X = 1/S
    r.response_s = n * service_s;
    r.throughput_per_s = 1.0 / service_s;
    r.utilization = 1.0;
    return r;
  }
  // The product form exact MVA computes (Reiser & Lavenberg 1980, §2): with z = Z/S, the
  // probability of j customers at the station is w_j/Σw, w_j = N!/(N−j)!·z^−j (the finite-source
  // queue M/M/1//N, Kleinrock 1975 §3.8). Summed outwards from the largest weight (j = 0 when
  // N ≤ z; otherwise m = N − j = ⌊z⌋ thinking) and stopped once a weight is below 1e-20 of the sum
  // (the rest falls faster than geometrically): the same numbers as the O(N) recursion to
  // rounding, in O(√min(N, z)) steps.
  const double z = think_s / service_s;
  double sum = 1.0, busy = 0.0, queue = 0.0; // Σ w, Σ over j ≥ 1, Σ j·w
  double w = 1.0;
  if (n <= z) {
    for (int j = 1; j <= customers; ++j) {
      w *= (n - j + 1.0) / z;
      sum += w;
      busy += w;
      queue += j * w;
      if (w < 1e-20 * sum) break;
    }
  } else {
    // m customers thinking, w_m ∝ z^m/m!, largest at m0 = ⌊z⌋ < N: summed outwards from there.
    const int m0 = static_cast<int>(z);
    sum = busy = 1.0;
    queue = n - m0;
    for (int m = m0 + 1; m <= customers; ++m) { // up: w_m = w_{m−1}·z/m
      w *= z / m;
      sum += w;
      if (m < customers) busy += w; // m = N: the station idle
      queue += (n - m) * w;
      if (w < 1e-20 * sum) break;
    }
    w = 1.0;
    for (int m = m0; m > 0; --m) { // down: w_{m−1} = w_m·m/z
      w *= m / z;
      sum += w;
      busy += w;
      queue += (n - m + 1.0) * w;
      if (w < 1e-20 * sum) break;
    }
  }
  r.utilization = std::min(1.0, busy / sum);
  r.throughput_per_s = busy / sum / service_s;
  r.response_s = busy > 0.0 ? queue / busy * service_s : service_s; // Little: R = Q/X
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

double normal_quantile(double q) {
  // Φ⁻¹ at the percentiles the estimator reports (Abramowitz & Stegun table 26.1).
  if (q <= 0.5) return 0.0;
  if (q <= 0.9) return 1.2816 * (q - 0.5) / 0.4;
  if (q <= 0.99) return 1.2816 + (2.3263 - 1.2816) * (q - 0.9) / 0.09;
  return 2.3263;
}

} // namespace rightsize::load
