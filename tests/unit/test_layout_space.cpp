// The one layout space (search.hpp LayoutSpace) and the one replica sizer (copies_for_load): the
// orders recommend and fit_layout walk it in, and a hand-computed sizing.
#include <array>
#include <optional>
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

TEST_CASE("fits_in_memory: the full estimate's memory verdict, every client in a slot, without the timing",
          "[core][search]") {
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
        const MemoryEstimate memory = estimate_inference(pm, w, gpu, dep, engine, nullptr, GpuPrice{}).memory;
        const bool full = memory.fits && memory.holds_all_clients;
        CHECK(fits_in_memory(pm, w, gpu, dep, engine) == full);
        // A closed loop of more clients than slots runs (the rest queue) but is not sized for.
        if (!open && concurrency == 4096 && memory.fits) CHECK_FALSE(memory.holds_all_clients);
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

namespace {

// The figures a kept estimate must share with estimate_inference's, compared exactly.
void require_same_estimate(const InferenceEstimate& a, const InferenceEstimate& b) {
  CHECK(a.memory.fits == b.memory.fits);
  CHECK(a.memory.per_gpu_bytes == b.memory.per_gpu_bytes);
  CHECK(a.memory.kv_cache_bytes == b.memory.kv_cache_bytes);
  CHECK(a.max_concurrency == b.max_concurrency);
  CHECK(a.concurrency == b.concurrency);
  CHECK(a.ttft_s == b.ttft_s);
  CHECK(a.tpot_s == b.tpot_s);
  CHECK(a.e2e_s == b.e2e_s);
  CHECK(a.ttft.p99_s == b.ttft.p99_s);
  CHECK(a.tpot.p99_s == b.tpot.p99_s);
  CHECK(a.requests_per_s == b.requests_per_s);
  CHECK(a.output_tokens_per_s == b.output_tokens_per_s);
  CHECK(a.capacity_requests_per_s == b.capacity_requests_per_s);
  CHECK(a.usd_per_hour == b.usd_per_hour);
  CHECK(a.usd_per_million_output_tokens == b.usd_per_million_output_tokens);
  CHECK(a.link_known == b.link_known);
  CHECK(a.bound == b.bound);
  CHECK(a.comm_s_per_token == b.comm_s_per_token);
}

} // namespace

TEST_CASE("check_fit: the memory verdict, and estimate_inference's estimate when it makes one",
          "[core][search]") {
  const Gpu gpu = h100_sxm();
  const EngineConfig engine;
  GpuPrice price;
  price.usd_per_gpu_hour = 3.0;
  int compared = 0;
  int estimated = 0;
  for (const ModelSpec& spec : {llama31_70b(), mixtral_8x7b()}) {
    const PreparedModel pm = prepare_model(spec, Precision{});
    for (const Deployment& dep : {Deployment{1, 1, 1, 1}, Deployment{2, 2, 1, 1}, Deployment{4, 2, 2, 1},
                                  Deployment{8, 8, 1, 1}, Deployment{4, 1, 1, 2, 2}}) {
      if (moe_layout_on_dense(spec, dep.ep, dep.attention_dp)) continue;
      for (std::int64_t concurrency : {0, 1, 64, 4096}) {
        for (int variant = 0; variant < 3; ++variant) {
          InferenceWorkload w;
          w.input_tokens = 4096;
          w.output_tokens = 512;
          w.concurrency = concurrency;
          if (variant == 1) { // open loop
            w.arrival = Arrival::poisson;
            w.request_rate_per_s = 2.0;
          }
          if (variant == 2) w.prefix_cache.shared_prefix_tokens = 1024; // a cached system prompt
          const InferenceEstimate full = estimate_inference(pm, w, gpu, dep, engine, nullptr, price);
          for (const bool always : {false, true}) {
            std::optional<InferenceEstimate> made;
            const bool fits = check_fit(pm, w, gpu, dep, engine, price, always, made);
            CHECK(fits == (full.memory.fits && full.memory.holds_all_clients));
            CHECK(fits == fits_in_memory(pm, w, gpu, dep, engine));
            // Made exactly when the concurrency is given and the layout fits (or always).
            CHECK(made.has_value() == (concurrency > 0 && (fits || always)));
            if (made) {
              require_same_estimate(*made, full);
              ++estimated;
            }
            ++compared;
          }
        }
      }
    }
  }
  REQUIRE(compared > 0);
  CHECK(estimated > 0);
  CHECK(estimated < compared);
}

TEST_CASE("fit_layout with a keep price: the returned layout's estimate, fitting or not", "[core][search]") {
  const PreparedModel pm = prepare_model(llama31_70b(), Precision{});
  const Gpu gpu = h100_sxm();
  const EngineConfig engine;
  GpuPrice price;
  price.usd_per_gpu_hour = 3.0;
  int kept = 0;
  int unfit = 0;
  int larger = 0; // kept for a replica past the first size tried
  // One replica searched (gpus 0) or 8 GPUs of replicas; TP free, pinned, or TP and PP pinned.
  for (const auto& [gpus, tp, pp] : {std::array{0, 0, 0}, std::array{0, 1, 0}, std::array{0, 4, 0},
                                     std::array{0, 4, 1}, std::array{8, 0, 0}, std::array{8, 2, 1}}) {
    for (std::int64_t concurrency : {0, 8, 256, 100000}) {
      InferenceWorkload w;
      w.input_tokens = 8192;
      w.output_tokens = 1024;
      w.concurrency = concurrency;
      LayoutRequest request;
      request.gpus = gpus;
      request.tp = tp;
      request.pp = pp;
      const LayoutChoice plain = fit_layout(pm, w, gpu, request, engine);
      const LayoutChoice choice = fit_layout(pm, w, gpu, request, engine, &price);
      // The same choice as without a keep price.
      CHECK(choice.deployment == plain.deployment);
      CHECK(choice.fits == plain.fits);
      CHECK(choice.issue == plain.issue);
      CHECK_FALSE(plain.estimate.has_value());
      if (!choice.estimate) continue;
      require_same_estimate(*choice.estimate,
                            estimate_inference(pm, w, gpu, choice.deployment, engine, nullptr, price));
      ++kept;
      unfit += choice.fits ? 0 : 1;
      larger += choice.deployment.gpus_per_replica() > 1 && tp == 0 ? 1 : 0;
    }
  }
  // Kept where the concurrency is given, also for a layout returned without fitting (100,000
  // clients of 9k tokens fit no replica), and for one found past the first size.
  CHECK(kept >= 12);
  CHECK(unfit > 0);
  CHECK(larger > 0);
}

TEST_CASE("closed loop: clients beyond the slots queue holding no KV; the layout search sizes for all",
          "[core][search]") {
  // Llama-3.1-8B bf16, 1,024 + 256 tokens: 2·32·8·128·2 bytes × 1,280 = 167,772,160 bytes a sequence.
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const Gpu gpu = h100_sxm();
  const Deployment dep{1, 1, 1, 1};
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 256;
  const double per_seq = 167'772'160.0;
  // Memory holds 346 (76.54 GB usable − 18.33 GB of the rest, / 167.8 MB): 1,024 clients run, the
  // pool holds 346 of them, and fit_layout would look further for a replica that holds all.
  w.concurrency = 1024;
  EngineConfig engine;
  const InferenceEstimate full = estimate_inference(pm, w, gpu, dep, engine, nullptr, GpuPrice{});
  CHECK(full.max_concurrency == 346);
  CHECK(full.memory.fits);
  CHECK_FALSE(full.memory.holds_all_clients);
  CHECK(full.clients_exceed_kv);
  CHECK(full.memory.kv_cache_bytes == Approx(346 * per_seq));
  CHECK(full.memory.per_gpu_bytes <= full.memory.usable_per_gpu_bytes);
  CHECK_FALSE(fits_in_memory(pm, w, gpu, dep, engine));
  // The engine's max_num_seqs caps the slots below what memory holds: the clients queue all the
  // same, and memory would hold them all, so the layout search keeps this replica.
  engine.max_num_seqs = 16;
  w.concurrency = 64;
  const InferenceEstimate capped = estimate_inference(pm, w, gpu, dep, engine, nullptr, GpuPrice{});
  CHECK(capped.max_concurrency == 16);
  CHECK(capped.clients_exceed_kv);
  CHECK(capped.memory.holds_all_clients);
  CHECK(capped.memory.kv_cache_bytes == Approx(16 * per_seq));
  CHECK(fits_in_memory(pm, w, gpu, dep, engine));
}
