// core::layout_for_count: the layout recommend's search ranks best for a GPU count (what `check
// --deployment NxGPU` judges with nothing pinned), and its fallbacks (issue 43 item 4).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// Llama-3.1-70B fp8 on H100-SXM at 40 req/s: the search needs several replicas.
struct CountLayoutCase {
  std::vector<PreparedModel> models{
      prepare_model(llama31_70b(), precision_from_shorthand(NumberFormat::fp8))};
  InferenceWorkload workload = chat_workload();
  Sla sla;
  std::vector<Gpu> gpus{h100_sxm()};
  std::vector<GpuPrice> prices{GpuPrice(4.32)};
  SearchPolicy policy;
  CountLayoutCase() {
    sla.ttft_ms = 2000.0;
    sla.tpot_ms = 60.0;
    sla.requests_per_s = 40.0;
  }
  [[nodiscard]] Recommendation search() const {
    return recommend(models, workload, sla, gpus, std::span<const GpuPrice>(prices), policy);
  }
  [[nodiscard]] CountLayout at(const Recommendation& r, int count) const {
    return layout_for_count(r, models.front(), workload, sla, gpus.front(), prices.front(), policy, count);
  }
};

} // namespace

TEST_CASE("layout for a GPU count: recommend's winner on its own count is its own layout", "[core][check]") {
  const CountLayoutCase k;
  const Recommendation r = k.search();
  REQUIRE(!r.candidates.empty());
  const Candidate& w = r.candidates.front();
  const CountLayout own = k.at(r, w.total_gpus());
  CHECK(own.basis == CountLayoutBasis::best_ranked);
  CHECK(own.rank == 1);
  CHECK(own.choice.fits);
  CHECK(own.choice.deployment.gpus == w.total_gpus());
  CHECK(own.choice.deployment.tp == w.layout.tp);
  CHECK(own.choice.deployment.pp == w.layout.pp);
  CHECK(own.choice.deployment.ep == w.layout.ep);
  CHECK(own.choice.deployment.attention_dp == w.layout.attention_dp);
  // Four times the GPUs: the same layout still ranks first and passes (over-provisioned is check's
  // call, not the layout's).
  const CountLayout more = k.at(r, 4 * w.total_gpus());
  CHECK(more.basis == CountLayoutBasis::best_ranked);
  CHECK(more.choice.deployment.tp == w.layout.tp);
  CHECK(more.choice.deployment.gpus == 4 * w.total_gpus());
}

TEST_CASE("layout for a GPU count: too few GPUs keep the best-ranked layout they divide into",
          "[core][check]") {
  const CountLayoutCase k;
  const Recommendation r = k.search();
  REQUIRE(!r.candidates.empty());
  const int per_replica = r.candidates.front().layout.gpus_per_replica();
  REQUIRE(r.candidates.front().replicas > 1); // one replica fewer misses the load
  const CountLayout short_of = k.at(r, per_replica);
  CHECK(short_of.basis == CountLayoutBasis::best_ranked_short);
  CHECK(short_of.rank == 1);
  CHECK(short_of.choice.deployment.gpus_per_replica() == per_replica);
  // Judged on those GPUs it misses, as check says.
  Deployment whole = short_of.choice.deployment;
  CHECK(!judge_deployment(k.models.front(), k.workload, k.sla, k.gpus.front(), whole, k.prices.front(),
                          k.policy)
             .meets_sla);
  // A count no passing layout divides into (an odd count when every passing replica is even-sized)
  // falls back to the layout rule's smallest that fits.
  bool even_only = true;
  for (const Candidate& c : r.candidates)
    even_only = even_only && c.layout.gpus_per_replica() % 2 == 0;
  if (even_only) {
    const CountLayout odd = k.at(r, 3);
    CHECK(odd.basis == CountLayoutBasis::smallest_fit);
    CHECK(odd.rank == 0);
  }
}

TEST_CASE("layout for a GPU count: nothing passes, the smallest layout that fits", "[core][check]") {
  CountLayoutCase k;
  k.sla.tpot_ms = 0.5; // no layout of any size decodes a token in half a millisecond
  const Recommendation r = k.search();
  REQUIRE(r.candidates.empty());
  const CountLayout counted = k.at(r, 8);
  CHECK(counted.basis == CountLayoutBasis::smallest_fit);
  const LayoutChoice rule =
      fit_layout(k.models.front(), k.workload, k.gpus.front(), LayoutRequest{8, 0, 0, 0}, k.policy.engine);
  CHECK(counted.choice.deployment.tp == rule.deployment.tp);
  CHECK(counted.choice.deployment.pp == rule.deployment.pp);
  CHECK(counted.choice.fits == rule.fits);
  CHECK(std::string(to_string(counted.basis)) == "smallest_fit");
}
