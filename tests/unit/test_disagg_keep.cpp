// What the disaggregated search keeps of its units (DisaggGrid::keep_units, core/decide/disagg_order):
// the rule against a hand-worked example, and a kept search against the whole one.
#include <cstddef>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "app/parallel.hpp"
#include "core/decide/disagg_order.hpp"
#include "disagg_fixtures.hpp"
#include "rightsize/disagg_search.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// A rejection costing `usd_per_hour` (0: unpriced) and tagged by `copies`.
DisaggCandidate miss(double usd_per_hour, int tag) {
  DisaggCandidate c;
  c.copies = tag;
  c.price_known = usd_per_hour > 0.0;
  c.whole.usd_per_hour = usd_per_hour;
  return c;
}

std::vector<int> tags(const std::vector<DisaggCandidate>& v) {
  std::vector<int> out;
  out.reserve(v.size());
  for (const DisaggCandidate& c : v)
    out.push_back(c.copies);
  return out;
}

// A unit's identity: its GPUs, pools and copies.
using UnitKey = std::tuple<std::size_t, std::size_t, int, int, int, int, int, int, int>;
UnitKey key_of(const DisaggCandidate& c) {
  return {c.prefill_gpu_index,      c.decode_gpu_index,       c.unit.prefill.workers,
          c.unit.decode.workers,    c.unit.prefill.layout.tp, c.unit.decode.layout.tp,
          c.unit.prefill.layout.ep, c.unit.decode.layout.ep,  c.copies};
}

// The first `count` rejections plausible against a winner costing `winner_usd_per_hour` (0: none):
// unpriced ones always, priced ones at most the winner's $/h (app::first_plausible's rule).
std::vector<UnitKey> first_plausible(const std::vector<DisaggCandidate>& v, double winner_usd_per_hour,
                                     std::size_t count) {
  std::vector<UnitKey> out;
  for (const DisaggCandidate& c : v) {
    if (out.size() == count) break;
    if (winner_usd_per_hour <= 0.0 || !c.price_known || c.whole.usd_per_hour <= winner_usd_per_hour)
      out.push_back(key_of(c));
  }
  return out;
}

} // namespace

TEST_CASE("the rejections kept are those a price threshold can show, by hand", "[disagg]") {
  // keep = 1, $/h in order 5, 3, 4, 2: 5 is first; 3 has only 5 ahead (dearer); 4 has 3 ahead,
  // cheaper, so any winner that admits 4 shows 3 first: dropped; 2 is the cheapest yet: kept.
  std::vector<DisaggCandidate> v = {miss(5, 1), miss(3, 2), miss(4, 3), miss(2, 4)};
  detail::keep_plausible_misses(v, 1);
  CHECK(tags(v) == std::vector<int>{1, 2, 4});
  // keep = 2 over 5, 3, 4, 2, 6, unpriced, 1: 4 has one cheaper ahead (3): kept; 2 kept; 6 has
  // 5, 3, 4, 2 cheaper: dropped; the unpriced one has none unpriced ahead: kept; 1 then has one
  // unpriced ahead and no cheaper one: kept.
  std::vector<DisaggCandidate> w = {miss(5, 1), miss(3, 2), miss(4, 3), miss(2, 4),
                                    miss(6, 5), miss(0, 6), miss(1, 7)};
  const std::vector<DisaggCandidate> whole = w;
  detail::keep_plausible_misses(w, 2);
  CHECK(tags(w) == std::vector<int>{1, 2, 3, 4, 6, 7});
  // Whatever the winner costs, the first two plausible are the same from the kept ones.
  for (double winner : {0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 9.0})
    CHECK(first_plausible(w, winner, 2) == first_plausible(whole, winner, 2));
}

TEST_CASE("a search keeping a few units shows what the whole one shows", "[disagg]") {
  const DisaggSearchInputs in = small_disagg_search(9.0, 800.0);
  DisaggGrid grid = in.grid;
  const DisaggRecommendation all = run_search(in, grid);
  INFO(all.candidates.size() << " passing, " << all.rejected.size() << " rejected");
  REQUIRE(all.candidates.size() > 3);
  REQUIRE(all.rejected.size() > 3);
  grid.keep_units = 3;
  const DisaggRecommendation kept = run_search(in, grid);
  // Counts stay whole; the cheapest three passing units are the whole search's first three.
  CHECK(kept.evaluated == all.evaluated);
  CHECK(kept.passing == all.passing);
  CHECK(all.passing == static_cast<int>(all.candidates.size()));
  REQUIRE(kept.candidates.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(key_of(kept.candidates[i]) == key_of(all.candidates[i]));
    CHECK(kept.candidates[i].whole.usd_per_hour == all.candidates[i].whole.usd_per_hour);
  }
  // Fewer rejections kept, and the first three plausible at any winner's $/h are the same ones.
  CHECK(kept.rejected.size() < all.rejected.size());
  std::vector<double> winners = {0.0};
  for (const DisaggCandidate& c : all.rejected)
    winners.push_back(c.whole.usd_per_hour);
  for (double winner : winners)
    CHECK(first_plausible(kept.rejected, winner, 3) == first_plausible(all.rejected, winner, 3));
  // On three threads (each GPU pair kept apart, then absorbed in pair order): the same units.
  const ParallelFor on_three = app::parallel_on(3);
  const DisaggRecommendation threaded = run_search(in, grid, &on_three);
  CHECK(threaded.evaluated == kept.evaluated);
  CHECK(threaded.passing == kept.passing);
  const auto keys = [](const std::vector<DisaggCandidate>& v) {
    std::vector<UnitKey> out;
    out.reserve(v.size());
    for (const DisaggCandidate& c : v)
      out.push_back(key_of(c));
    return out;
  };
  CHECK(keys(threaded.candidates) == keys(kept.candidates));
  CHECK(keys(threaded.rejected) == keys(kept.rejected));
}
