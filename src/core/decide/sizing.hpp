#pragma once
// Sizing for the SLA's load, one rule for the aggregated search (replicas, search.cpp) and the
// disaggregated one (copies of an xPyD unit, disagg_search.cpp). Core-private; pure.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "rightsize/judge.hpp"
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

/// The most copies an open loop adds beyond the `first` it was sized on, to meet a latency
/// percentile at the rate: 4 × first + 8, at most k_max_replicas (and never below first).
inline int open_loop_copy_limit(int first) {
  return std::max(first, std::min(k_max_replicas, 4 * first + 8));
}

/// Whether a verdict on an open loop at some number of copies fails only on the terms more copies
/// make worse (deadline, budget, price, power): every latency and load term holds, and would at
/// any larger count (each copy carries less of the rate).
inline bool fails_only_on_cost(const Verdict& v) {
  const Term t = v.first.term;
  return t == Term::none || t == Term::deadline || t == Term::budget || t == Term::price || t == Term::power;
}

/// The fewest copies in [lo, hi] at which `serves(copies)` holds, for a predicate that holds from
/// some count on (false … false, true … true); hi when none does. hi is tried first (when it does
/// not serve, none does: one call), then steps of 1, 2, 4, … from lo bound the count and bisection
/// finds it: O(log(hi − lo)) calls, where adding one copy at a time took up to 100,000 estimates
/// (docs/reliability.md). The open-loop sizing of both searches.
template <class Serves> int fewest_serving(int lo, int hi, Serves&& serves) {
  if (lo >= hi || !serves(hi)) return hi;
  int below = lo - 1; // does not serve (or lies before the range)
  int above = hi;
  for (std::int64_t step = 1;; step *= 2) {
    const int r = static_cast<int>(std::min<std::int64_t>(hi, std::int64_t{lo} - 1 + step));
    if (r == hi || serves(r)) {
      above = r;
      break;
    }
    below = r;
  }
  while (above - below > 1) {
    const int mid = below + (above - below) / 2;
    if (serves(mid))
      above = mid;
    else
      below = mid;
  }
  return above;
}

} // namespace rightsize::detail
