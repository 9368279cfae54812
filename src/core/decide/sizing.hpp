#pragma once
// Sizing for the SLA's load, one rule for the aggregated search (replicas, search.cpp) and the
// disaggregated one (copies of an xPyD unit, disagg_search.cpp). Core-private; pure.
#include <algorithm>
#include <cmath>

#include "rightsize/spec.hpp"

namespace rightsize::detail {

/// The most replicas a search sizes or a capacity plan scales to.
inline constexpr int k_max_replicas = 100000;

/// Copies of one unit (a replica, an xPyD unit) that carry `rate` × `headroom` when each serves
/// `per_copy` of it (methodology §6.3): ceil(rate · headroom / per_copy), at least 1, uncapped.
/// Worked example: 10 req/s with 20 % headroom on replicas of 3.5 req/s → ceil(12 / 3.5) = 4.
inline double copies_for_rate(double rate, double per_copy, double headroom) {
  return std::max(1.0, std::ceil(rate * headroom / per_copy));
}

/// Copies that carry the SLA's peak load × `headroom` when each serves `rps` requests/s and `tps`
/// output tokens/s (its pessimistic throughput): the larger of the two terms' copies_for_rate, at
/// least 1. The one sizing rule of the aggregated search, the disaggregated one and capacity plans.
inline double copies_for_load(const Sla& sla, double rps, double tps, double headroom) {
  double copies = 1.0;
  if (sla.requests_per_s && rps > 0.0)
    copies = std::max(copies, copies_for_rate(*sla.requests_per_s, rps, headroom));
  if (sla.output_tokens_per_s && tps > 0.0)
    copies = std::max(copies, copies_for_rate(*sla.output_tokens_per_s, tps, headroom));
  return copies;
}

} // namespace rightsize::detail
