#pragma once
// The bill of the tier (docs/methodology.md §7 "The bill of the tier"): under --pricing spot with
// latency targets the capacity plan keeps the average replicas on demand, so `recommend` states
// what following it costs for the winner, and which passing candidate is cheapest so billed when
// that is not the winner the all-spot ranking picked.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

struct LoadedCatalog;
struct SearchInputs;
struct RecommendResult;

/// A passing candidate at the bill its own tier advises.
struct AsAdvised {
  std::size_t index = 0;   ///< into Recommendation::candidates
  TierBill bill;           ///< its bill as advised
  double key = 0.0;        ///< its ranking key at that bill, charged its prices' margins
  double winner_key = 0.0; ///< the winner's key at its own bill as advised
  /// How much lower its key is than the winner's, in percent (both as advised).
  [[nodiscard]] double pct_less_than_winner() const { return (1.0 - key / winner_key) * 100.0; }
};

/// Sets `result.capacity_plan->tier_bill` (the winner's bill as advised) and returns the passing
/// candidate cheapest as advised when it is not the winner; none otherwise, or when the pricing is
/// not spot, the tier keeps nothing on demand, the ranking is not by cost or a price is unknown.
std::optional<AsAdvised> bill_the_tier(const Spec& spec, const LoadedCatalog& catalog, const SearchInputs& in,
                                       std::int64_t today_days, RecommendResult& result);

} // namespace rightsize::app
