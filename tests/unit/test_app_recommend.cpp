// The recommend use case (src/app/recommend.hpp): the rows every format shows, the winner's
// comparisons and the capacity plan are decided there, from the real catalog and an example spec.
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "app/recommend.hpp"
#include "app_fixtures.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {
TEST_CASE("recommend use case: rows, closest misses, winner facts and capacity plan", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {}, "");
  app::RecommendSettings request;
  request.top = 2;
  request.today_days = *parse_iso_date(catalog.catalog.prices_as_of);
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
  const Recommendation& r = result.recommendation;
  REQUIRE(r.candidates.size() > 2);
  REQUIRE(!r.rejected.empty());

  // --top bounds the passing rows of every format; they are the best-ranked ones, in order.
  REQUIRE(result.shown.size() == 2);
  CHECK(result.shown[0].rank == 1);
  CHECK(result.shown[1].rank == 2);
  // Without --explain: one closest miss per GPU type, at most three, in rejection order.
  REQUIRE(!result.rejected_rows.empty());
  CHECK(result.rejected_rows.size() <= 3);
  std::set<std::size_t> gpus;
  for (const Candidate& c : result.rejected_rows) {
    CHECK(!c.meets_sla);
    CHECK(gpus.insert(c.gpu_index).second);
  }
  CHECK(result.rejected_rows.front().gpu_index == r.rejected.front().gpu_index);

  // The winner: compared with the best option on another GPU type, by cost per 1M tokens.
  REQUIRE(result.winner);
  REQUIRE(result.capacity_plan);
  CHECK(result.capacity_plan->replicas_peak == r.candidates.front().replicas);
  const Candidate& w = r.candidates.front();
  REQUIRE(result.winner->other_gpu);
  const Candidate& other = r.candidates[result.winner->other_gpu->index];
  CHECK(other.gpu_index != w.gpu_index);
  for (std::size_t i = 1; i < result.winner->other_gpu->index; ++i)
    CHECK(r.candidates[i].gpu_index == w.gpu_index);
  CHECK(result.winner->other_gpu->pct_more ==
        Approx((other.usd_per_million_output_tokens_at_load / w.usd_per_million_output_tokens_at_load - 1.0) *
               100.0));
  CHECK(result.winner->other_gpu->pct_more >= 0.0);
  // No power cap and not ranked by energy: no energy line.
  CHECK(!result.winner->energy_shown);
  CHECK(!result.none());
}

TEST_CASE("recommend use case: --explain rows, price age and energy follow the request", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"H100-SXM"}, "");
  app::RecommendSettings request;
  request.explain = true;
  request.rank_by = RankBy::energy;
  const auto quoted_day = parse_iso_date(in.prices.front().date);
  REQUIRE(quoted_day);
  const std::int64_t quoted = *quoted_day;
  request.today_days = quoted + app::k_winner_price_note_days;
  const app::RecommendResult fresh = app::run_recommend(spec, catalog, in, request);
  REQUIRE(fresh.winner);
  CHECK(fresh.rejected_rows.size() == fresh.recommendation.rejected.size());
  CHECK(fresh.winner->price_age_days == app::k_winner_price_note_days);
  CHECK(!fresh.winner->price_note);
  CHECK(fresh.winner->energy_shown);
  REQUIRE(fresh.winner->energy);
  CHECK(fresh.winner->energy->kwh_per_million_tokens > 0.0);
  // Only one GPU type: nothing to compare against.
  CHECK(!fresh.winner->other_gpu);

  request.today_days = quoted + app::k_winner_price_note_days + 1;
  const app::RecommendResult stale = app::run_recommend(spec, catalog, in, request);
  CHECK(stale.winner->price_note);

  request.headroom = 11.0;
  CHECK_THROWS_WITH(app::run_recommend(spec, catalog, in, request), Catch::Contains("expected 0 to 10"));
}

} // namespace rightsize

namespace rightsize {

TEST_CASE("recommend use case: --disagg compares the cheapest of each kind", "[app]") {
  const Spec spec = test::example_spec("chat-8b.json");
  const app::LoadedCatalog catalog = test::priced_catalog();
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"H100-SXM", "L40S"}, "");
  app::RecommendSettings request;
  request.disagg = true;
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
  REQUIRE(result.disagg);
  REQUIRE(result.disagg_comparison);
  const app::DisaggComparison& cmp = *result.disagg_comparison;
  const std::vector<Candidate>& agg = result.recommendation.candidates;
  REQUIRE(cmp.aggregated);
  REQUIRE(cmp.disaggregated == !result.disagg->candidates.empty());
  // The aggregated side is the cheapest priced candidate, not necessarily rank 1.
  const double ca = agg[*cmp.aggregated].usd_per_million_output_tokens_at_load;
  for (const Candidate& c : agg) {
    if (c.price_known) CHECK(ca <= c.usd_per_million_output_tokens_at_load);
  }
  if (cmp.disaggregated) {
    const double cd = result.disagg->candidates.front().usd_per_million_output_tokens_at_load;
    CHECK(cmp.disaggregated_wins == (cd < ca));
    CHECK(cmp.pct_below ==
          Approx(cmp.disaggregated_wins ? (1.0 - cd / ca) * 100.0 : (1.0 - ca / cd) * 100.0));
    CHECK(cmp.pct_below >= 0.0);
  }
  // The rows every format shows: the top --top passing units by rank and the three closest misses;
  // the table shows the misses only when no unit passes.
  request.top = 2;
  const app::RecommendResult top2 = app::run_recommend(spec, catalog, in, request);
  REQUIRE(top2.disagg_rows);
  const app::DisaggRows& rows = *top2.disagg_rows;
  const DisaggRecommendation& d = *top2.disagg;
  REQUIRE(d.candidates.size() > 2);
  REQUIRE(rows.shown.size() == 2);
  CHECK(rows.shown[0].usd_per_million_output_tokens_at_load ==
        d.candidates[0].usd_per_million_output_tokens_at_load);
  CHECK(rows.shown[1].total_gpus() == d.candidates[1].total_gpus());
  CHECK(rows.closest_misses.size() == std::min<std::size_t>(3, d.rejected.size()));
  CHECK(&rows.table_rows() == &rows.shown);
  app::DisaggRows none;
  none.closest_misses = rows.closest_misses;
  CHECK(&none.table_rows() == &none.closest_misses);
}

} // namespace rightsize

namespace rightsize {
TEST_CASE("recommend use case: spot with a latency target bills its own advice", "[app]") {
  // Two GPUs: the L40S has spot and on-demand quotes, the RTX 6000 Ada on-demand ones only.
  const Spec spec = test::example_spec("check-deployment.json");
  app::LoadedCatalog catalog = test::priced_catalog();
  catalog.pricing = PricingModel::spot;
  catalog.prices.clear();
  for (const auto& gpu : catalog.catalog.gpus)
    catalog.prices.push_back(resolve_price(gpu, catalog.pricing, catalog.provider, catalog.tco));
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"L40S", "RTX-6000-ADA"}, "");
  REQUIRE(in.gpus[0].id == "L40S");
  REQUIRE(in.prices[0].known);
  REQUIRE_FALSE(in.prices[1].known);
  app::RecommendSettings request;
  request.today_days = *parse_iso_date(catalog.catalog.prices_as_of);
  const app::RecommendResult result = app::run_recommend(spec, catalog, in, request);
  REQUIRE(result.capacity_plan);
  const CapacityPlan& plan = *result.capacity_plan;
  const Candidate& w = result.recommendation.candidates.front();
  REQUIRE(w.gpu_index == 0); // ranked at spot, the only priced GPU wins
  // No average load below the peak: every replica stays on demand, billed at the L40S's
  // on-demand price, not the spot one ranked by.
  CHECK(plan.spot_replicas == 0);
  REQUIRE(plan.tier_bill);
  CHECK(plan.tier_bill->known);
  const double on_demand =
      resolve_price(in.gpus[0], PricingModel::on_demand, "", catalog.tco).usd_per_hour * w.total_gpus();
  CHECK(plan.tier_bill->usd_per_hour == Approx(on_demand));
  CHECK(plan.tier_bill->usd_per_hour > w.estimate.usd_per_hour);
  // As advised, the RTX 6000 Ada (no spot quote, cheaper on demand) is the cheapest: what
  // --pricing on_demand ranks first (methodology §7 "The bill of the tier").
  REQUIRE(result.cheapest_as_advised);
  const Candidate& advised = result.recommendation.candidates[result.cheapest_as_advised->index];
  CHECK(advised.gpu_index == 1);
  CHECK(result.cheapest_as_advised->key < result.cheapest_as_advised->winner_key);
  app::LoadedCatalog on_demand_catalog = test::priced_catalog();
  const app::SearchInputs on_demand_in =
      app::search_inputs(spec, on_demand_catalog, {"L40S", "RTX-6000-ADA"}, "");
  const app::RecommendResult on_demand_result =
      app::run_recommend(spec, on_demand_catalog, on_demand_in, request);
  CHECK(on_demand_result.recommendation.candidates.front().gpu_index == 1);
  CHECK_FALSE(on_demand_result.capacity_plan->tier_bill);
  CHECK_FALSE(on_demand_result.cheapest_as_advised);
}
} // namespace rightsize
