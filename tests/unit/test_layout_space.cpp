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

TEST_CASE("fits_in_memory: the full estimate's memory verdict, without the timing", "[core][search]") {
  const PreparedModel pm = prepare_model(llama31_70b(), Precision{});
  const Gpu gpu = h100_sxm();
  const EngineConfig engine;
  int compared = 0;
  int fitting = 0;
  for (int tp : {1, 2, 4, 8}) {
    for (std::int64_t concurrency : {0, 1, 64, 4096}) {
      for (bool open : {false, true}) {
        InferenceWorkload w;
        w.input_tokens = 4096;
        w.output_tokens = 512;
        w.concurrency = concurrency;
        if (open) {
          w.arrival = Arrival::poisson;
          w.request_rate_per_s = 2.0;
        }
        const Deployment dep{tp, tp, 1, 1};
        const bool full = estimate_inference(pm, w, gpu, dep, engine, nullptr, GpuPrice{}).memory.fits;
        CHECK(fits_in_memory(pm, w, gpu, dep, engine) == full);
        ++compared;
        fitting += full ? 1 : 0;
      }
    }
  }
  REQUIRE(compared == 32);
  // Both verdicts occur: 70B bf16 (141 GB of weights) does not fit one 80 GB GPU, and fits eight.
  CHECK(fitting > 0);
  CHECK(fitting < compared);
}
