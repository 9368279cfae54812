// Queueing formulas of the arrival model (methodology §3.1).
#include "rightsize/load_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rightsize::load {

ClosedResult closed_mva(double service_s, double think_s, int customers) {
  ClosedResult r;
  if (customers <= 0 || service_s <= 0.0) return r;
  double queue = 0.0;
  for (int k = 1; k <= customers; ++k) {
    r.response_s = service_s * (1.0 + queue);
    r.throughput_per_s = static_cast<double>(k) / (r.response_s + think_s);
    queue = r.throughput_per_s * r.response_s;
  }
  r.utilization = std::min(1.0, r.throughput_per_s * service_s);
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
