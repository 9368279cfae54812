// The order of disaggregated units and what a search keeps of them (disagg_order.hpp). Pure.
#include "core/decide/disagg_order.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "rightsize/judge.hpp"

namespace rightsize::detail {
namespace {

// Costs within the same 0.1 % bucket tie (xPyD copies of one unit differ only by rounding).
long long cost_bucket(const DisaggCandidate& c) {
  const double usd =
      c.price_known ? c.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  return usd < std::numeric_limits<double>::max() && usd > 0.0 ? std::llround(std::log(usd) * 1000.0)
                                                               : std::numeric_limits<long long>::max();
}

bool cheaper(const DisaggCandidate& a, const DisaggCandidate& b, long long bucket_a, long long bucket_b) {
  if (a.meets_sla != b.meets_sla) return a.meets_sla;
  if (!a.meets_sla) {
    // Rejections closer to passing sort first, as in every search (closeness, judge.hpp).
    if (closeness(a.verdict.first.term) != closeness(b.verdict.first.term))
      return closeness(a.verdict.first.term) < closeness(b.verdict.first.term);
    const double ca = a.verdict.first.limit > 0.0 ? a.verdict.first.value / a.verdict.first.limit : 0.0;
    const double cb = b.verdict.first.limit > 0.0 ? b.verdict.first.value / b.verdict.first.limit : 0.0;
    if (ca != cb) return ca < cb;
  }
  const double ka =
      a.price_known ? a.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  const double kb =
      b.price_known ? b.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  // Costs within the same bucket tie: then the fewer GPUs win. Buckets keep the order a strict weak
  // ordering.
  if (bucket_a != bucket_b) return bucket_a < bucket_b;
  if (a.total_gpus() != b.total_gpus()) return a.total_gpus() < b.total_gpus();
  if (ka != kb) return ka < kb;
  if (a.whole.tpot_s != b.whole.tpot_s) return a.whole.tpot_s < b.whole.tpot_s;
  if (a.whole.ttft_s != b.whole.ttft_s) return a.whole.ttft_s < b.whole.ttft_s;
  if (a.unit.prefill.gpu->id != b.unit.prefill.gpu->id)
    return a.unit.prefill.gpu->id < b.unit.prefill.gpu->id;
  if (a.unit.decode.gpu->id != b.unit.decode.gpu->id) return a.unit.decode.gpu->id < b.unit.decode.gpu->id;
  const auto key = [](const DisaggCandidate& c) {
    return std::tuple(c.unit.prefill.workers, c.unit.prefill.layout.tp, c.unit.prefill.layout.pp,
                      c.unit.prefill.layout.ep, c.unit.decode.workers, c.unit.decode.layout.tp,
                      c.unit.decode.layout.pp, c.unit.decode.layout.ep, c.precision_index);
  };
  return key(a) < key(b);
}

// Sorts cheapest first through a permutation: a candidate is kilobytes, so std::sort moving them
// cost more than the search's arithmetic at tens of thousands of units. The same comparisons on the
// same sequence give the same order; the permutation is then applied in place (one move each).
} // namespace

void sort_cheapest(std::vector<DisaggCandidate>& v) {
  std::vector<long long> buckets(v.size());
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    buckets[i] = cost_bucket(v[i]);
    order[i] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return cheaper(v[a], v[b], buckets[a], buckets[b]); });
  // Position i takes v[order[i]]: follow each cycle once.
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (order[i] == i) continue;
    DisaggCandidate held = std::move(v[i]);
    std::size_t at = i;
    while (order[at] != i) {
      const std::size_t from = order[at];
      v[at] = std::move(v[from]);
      order[at] = at;
      at = from;
    }
    v[at] = std::move(held);
    order[at] = at;
  }
}

void keep_plausible_misses(std::vector<DisaggCandidate>& rejected, std::size_t keep) {
  if (keep == 0 || rejected.size() <= keep) return;
  // The `keep` lowest $/h of the priced units ahead, ascending.
  std::vector<double> lowest;
  lowest.reserve(keep + 1);
  std::size_t unpriced_ahead = 0;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < rejected.size(); ++i) {
    DisaggCandidate& c = rejected[i];
    const double usd_per_hour = c.whole.usd_per_hour;
    bool wanted = i < keep;
    if (!wanted && unpriced_ahead < keep) {
      // Ahead and plausible whenever this one is: the unpriced, and the priced costing at most it.
      const std::size_t need = keep - unpriced_ahead;
      wanted = !c.price_known || lowest.size() < need || lowest[need - 1] > usd_per_hour;
    }
    if (c.price_known) {
      lowest.insert(std::upper_bound(lowest.begin(), lowest.end(), usd_per_hour), usd_per_hour);
      if (lowest.size() > keep) lowest.pop_back();
    } else {
      ++unpriced_ahead;
    }
    if (wanted) {
      if (kept != i) rejected[kept] = std::move(c);
      ++kept;
    }
  }
  rejected.erase(rejected.begin() + static_cast<std::ptrdiff_t>(kept), rejected.end());
}

void keep_shown_units(DisaggRecommendation& out, std::size_t keep) {
  if (keep == 0) return;
  if (out.candidates.size() > keep) {
    sort_cheapest(out.candidates);
    out.candidates.erase(out.candidates.begin() + static_cast<std::ptrdiff_t>(keep), out.candidates.end());
  }
  if (out.rejected.size() > keep) {
    sort_cheapest(out.rejected);
    keep_plausible_misses(out.rejected, keep);
  }
}

} // namespace rightsize::detail
