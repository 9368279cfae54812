// The cost of confidence (src/app/cost_of_confidence.hpp; docs/cli.md "recommend"): the judged
// winner beside the point estimate's, the extra $/h and its fraction, computed by hand; and the use
// case states it from a second search at p50 over the same candidate generation.
#include <vector>

#include <catch2/catch.hpp>

#include "app/cost_of_confidence.hpp"
#include "app/recommend.hpp"
#include "app_fixtures.hpp"

namespace rightsize {
namespace {

// A passing candidate of `replicas` replicas of TP`tp` on GPU `gpu_index`, billed `usd_per_hour`.
Candidate priced_confidence_candidate(std::size_t gpu_index, int tp, int replicas, double usd_per_hour) {
  Candidate c;
  c.gpu_index = gpu_index;
  c.layout.tp = tp;
  c.layout.gpus = tp;
  c.replicas = replicas;
  c.estimate.usd_per_hour = usd_per_hour;
  c.meets_sla = true;
  return c;
}

} // namespace

TEST_CASE("cost of confidence: the band's extra $/h, worked by hand", "[app][confidence]") {
  // Issue 43's example: H100-SXM at $4.32/GPU-h. Judged at p90 the winner is 8 replicas of TP8 = 64
  // GPUs: 64 × 4.32 = $276.48/h. At the point estimate 6 replicas suffice, 48 GPUs: 48 × 4.32 =
  // $207.36/h. The band costs 276.48 − 207.36 = $69.12/h, 69.12 ÷ 207.36 = 1/3 of the point's cost.
  Recommendation judged;
  judged.candidates = {priced_confidence_candidate(0, 8, 8, 276.48)};
  Recommendation point;
  point.candidates = {priced_confidence_candidate(0, 8, 6, 207.36),
                      priced_confidence_candidate(1, 8, 8, 300.0)};
  const app::CostOfConfidence cost = app::cost_of_confidence(judged, point, Confidence::p90);
  REQUIRE(cost.judged);
  REQUIRE(cost.point);
  CHECK(cost.confidence == Confidence::p90);
  CHECK(cost.judged->total_gpus == 64);
  CHECK(cost.point->total_gpus == 48);
  CHECK(cost.point->replicas == 6);
  REQUIRE(cost.extra_usd_per_hour);
  REQUIRE(cost.extra_fraction);
  CHECK(*cost.extra_usd_per_hour == Approx(69.12));
  CHECK(*cost.extra_fraction == Approx(1.0 / 3.0));
  CHECK(!cost.costs_nothing());
  CHECK(!cost.other_gpu());
  CHECK(!cost.point_same_gpu);

  SECTION("the point winner is another GPU type: its best of the judged type is named too") {
    // At p50 GPU 1 wins at $180/h; GPU 0's best at p50 is rank 3, 48 GPUs, $207.36/h.
    point.candidates = {priced_confidence_candidate(1, 4, 5, 180.0),
                        priced_confidence_candidate(2, 8, 4, 190.0),
                        priced_confidence_candidate(0, 8, 6, 207.36)};
    const app::CostOfConfidence other = app::cost_of_confidence(judged, point, Confidence::p90);
    CHECK(other.other_gpu());
    REQUIRE(other.point_same_gpu);
    CHECK(other.point_same_gpu->gpu_index == 0);
    CHECK(other.point_same_gpu->total_gpus == 48);
    // Like with like: the extra is against the overall point winner, 276.48 − 180 = $96.48/h, +53.6 %.
    CHECK(*other.extra_usd_per_hour == Approx(96.48));
    CHECK(*other.extra_fraction == Approx(96.48 / 180.0));
  }
  SECTION("within 0.5 % of the point's cost the band costs nothing") {
    // 100.40 vs 100.00: 0.4 % more is equal; 100.60: 0.6 % is not.
    judged.candidates = {priced_confidence_candidate(0, 1, 2, 100.4)};
    point.candidates = {priced_confidence_candidate(0, 2, 1, 100.0)};
    CHECK(app::cost_of_confidence(judged, point, Confidence::p90).costs_nothing());
    judged.candidates.front().estimate.usd_per_hour = 100.6;
    CHECK(!app::cost_of_confidence(judged, point, Confidence::p90).costs_nothing());
  }
  SECTION("nothing meets the requirements at p90: only the point sizing, no extra") {
    judged.candidates.clear();
    const app::CostOfConfidence none = app::cost_of_confidence(judged, point, Confidence::p90);
    CHECK(!none.judged);
    REQUIRE(none.point);
    CHECK(none.point->total_gpus == 48);
    CHECK(!none.extra_usd_per_hour);
    CHECK(!none.extra_fraction);
    CHECK(!none.costs_nothing());
  }
  SECTION("an unpriced side has no extra") {
    judged.candidates.front().price_known = false;
    const app::CostOfConfidence unpriced = app::cost_of_confidence(judged, point, Confidence::p90);
    CHECK(!unpriced.extra_usd_per_hour);
    CHECK(!unpriced.costs_nothing());
  }
}

TEST_CASE("cost of confidence: stated for cost rankings at p90 only", "[app][confidence]") {
  CHECK(app::states_cost_of_confidence(Confidence::p90, RankBy::cost_per_token));
  CHECK(app::states_cost_of_confidence(Confidence::p90, RankBy::cost_per_request));
  CHECK(!app::states_cost_of_confidence(Confidence::p50, RankBy::cost_per_token));
  CHECK(!app::states_cost_of_confidence(Confidence::p90, RankBy::latency));
  CHECK(!app::states_cost_of_confidence(Confidence::p90, RankBy::gpus));
  CHECK(!app::states_cost_of_confidence(Confidence::p90, RankBy::energy));
}

TEST_CASE("cost of confidence: the use case's point sizing is the p50 search's winner", "[app][confidence]") {
  const Spec spec = test::example_spec("chat-70b-fp8.json");
  const app::LoadedCatalog catalog = test::priced_catalog(true);
  const app::SearchInputs in = app::search_inputs(spec, catalog, {"H100-SXM"}, "");
  app::RecommendSettings request;
  const app::RecommendResult judged = app::run_recommend(spec, catalog, in, request);
  REQUIRE(judged.cost_of_confidence);
  const app::CostOfConfidence& cost = *judged.cost_of_confidence;
  request.confidence = Confidence::p50;
  const app::RecommendResult point = app::run_recommend(spec, catalog, in, request);
  // --confidence p50 judges the point already: nothing to state.
  CHECK(!point.cost_of_confidence);
  REQUIRE(!judged.recommendation.candidates.empty());
  REQUIRE(!point.recommendation.candidates.empty());
  const Candidate& jw = judged.recommendation.candidates.front();
  const Candidate& pw = point.recommendation.candidates.front();
  REQUIRE(cost.judged);
  REQUIRE(cost.point);
  CHECK(cost.judged->total_gpus == jw.total_gpus());
  CHECK(cost.point->total_gpus == pw.total_gpus());
  CHECK(cost.point->usd_per_hour == pw.estimate.usd_per_hour);
  // The band widens the sizing here (16 vs 8 H100s in the goldens): it costs, never saves, per hour.
  REQUIRE(cost.extra_usd_per_hour);
  CHECK(*cost.extra_usd_per_hour == Approx(jw.estimate.usd_per_hour - pw.estimate.usd_per_hour));
  CHECK(*cost.extra_usd_per_hour > 0.0);
  // Not with --emit or --disagg (their outputs do not show it).
  request.confidence = Confidence::p90;
  request.disagg = true;
  CHECK(!app::run_recommend(spec, catalog, in, request).cost_of_confidence);
}

} // namespace rightsize
