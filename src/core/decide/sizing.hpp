#pragma once
// Sizing for the SLA's load, one rule for the aggregated search (replicas, search.cpp) and the
// disaggregated one (copies of an xPyD unit, disagg_search.cpp). Core-private; pure.
#include <algorithm>
#include <cmath>

#include "rightsize/spec.hpp"

namespace rightsize::detail {

/// The most replicas a search sizes or a capacity plan scales to.
inline constexpr int k_max_replicas = 100000;

/// Copies of one unit (a replica, an xPyD unit) that carry the SLA's peak load × `headroom` when each
/// serves `rps` requests/s and `tps` output tokens/s (its pessimistic throughput, methodology §6.3);
/// at least 1, uncapped.
inline double copies_for_load(const Sla& sla, double rps, double tps, double headroom) {
  double copies = 1.0;
  if (sla.requests_per_s && rps > 0.0)
    copies = std::max(copies, std::ceil(*sla.requests_per_s * headroom / rps));
  if (sla.output_tokens_per_s && tps > 0.0) {
    copies = std::max(copies, std::ceil(*sla.output_tokens_per_s * headroom / tps));
  }
  return copies;
}

} // namespace rightsize::detail
