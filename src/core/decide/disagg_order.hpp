#pragma once
// The order of disaggregated units and what a search keeps of them (disagg_search.cpp). Core-private;
// pure.
#include <cstddef>
#include <vector>

#include "rightsize/disagg_search.hpp"

namespace rightsize::detail {

/// Sorts units cheapest first: passing before rejected, rejections closer to passing first, then
/// cost per 1M output tokens in 0.1 % buckets, fewer GPUs, and the unit's own keys (a total order:
/// the same units give the same sequence in any arrival order).
void sort_cheapest(std::vector<DisaggCandidate>& v);

/// The rejections a caller can still be shown when it takes, in order, the first `keep` whose
/// whole deployment costs at most some $/h (unpriced ones always count), or the first `keep`
/// overall: the first `keep`, and every later one with fewer than `keep` ahead of it that are
/// unpriced or cost at most its own $/h. `rejected` must be sorted (sort_cheapest); the order of
/// those kept stays. Worked example, keep = 1, $/h in order 5, 3, 4, 2: 5 (first), 3 (only 5 ahead)
/// and 2 stay; 4 goes (3 ahead costs less).
void keep_plausible_misses(std::vector<DisaggCandidate>& rejected, std::size_t keep);

/// Keeps the cheapest `keep` passing units and keep_plausible_misses of the rejected (keep = 0:
/// every unit). Exact: units dropped here could never be shown, whatever arrives later.
void keep_shown_units(DisaggRecommendation& out, std::size_t keep);

} // namespace rightsize::detail
