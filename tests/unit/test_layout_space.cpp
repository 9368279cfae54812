// The one layout space (search.hpp LayoutSpace) and the one replica sizer (copies_for_load): the
// orders recommend and fit_layout walk it in, and a hand-computed sizing.
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using namespace rightsize::test;

TEST_CASE("layout space: splits of n GPUs in both orders", "[core][search]") {
  const ModelSpec model = llama31_70b(); // 64 heads, 80 layers
  const Gpu gpu = h100_sxm();            // 8 per node
  SearchPolicy policy;
  policy.max_nodes = 2;
  policy.max_gpus_per_replica = 16;
  const LayoutSpace space{model, gpu, policy};
  CHECK(space.max_gpus() == 16);
  std::vector<std::pair<int, int>> up;
  std::vector<std::pair<int, int>> down;
  space.each_split(16, false, [&](int tp, int pp) { up.emplace_back(tp, pp); });
  space.each_split(16, true, [&](int tp, int pp) { down.emplace_back(tp, pp); });
  // TP stays inside the node (≤ 8); PP ≤ 2 × nodes = 4 unless TP fills the node: 16 = 8 × 2, 4 × 4.
  CHECK(up == std::vector<std::pair<int, int>>{{4, 4}, {8, 2}});
  CHECK(down == std::vector<std::pair<int, int>>{{8, 2}, {4, 4}});
  CHECK_FALSE(space.expert_tp(2)); // a dense model has no experts to split
  CHECK_FALSE(space.attention_dp(8));
}

TEST_CASE("layout space: replica_layouts adds EP and attention DP for an MoE model", "[core][search]") {
  const ModelSpec model = mixtral_8x7b(); // 8 experts
  const Gpu gpu = h100_sxm();
  SearchPolicy policy;
  policy.max_gpus_per_replica = 2;
  const std::vector<Deployment> all = replica_layouts(model, gpu, policy);
  // n = 1: TP1; n = 2: TP1·PP2, TP2, TP2 with EP2, attention DP 2 with EP 2.
  REQUIRE(all.size() == 5);
  CHECK((all[1].tp == 1 && all[1].pp == 2));
  CHECK((all[2].tp == 2 && all[2].ep == 1));
  CHECK((all[3].tp == 2 && all[3].ep == 2));
  CHECK((all[4].attention_dp == 2 && all[4].ep == 2 && all[4].tp == 1));
}
