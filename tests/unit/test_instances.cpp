// Whole-instance billing (docs/methodology.md "Whole instances"): pack_instances, bill_instances and the
// costs built on them, against hand-computed examples.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/instances.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

const std::vector<int> k_eight = {8};
const std::vector<int> k_lambda_like = {1, 2, 4, 8};

} // namespace

TEST_CASE("pack_instances: worked examples", "[core][instances]") {
  // 1 replica of 1 GPU on 8-GPU-only instances: one instance, 8 GPUs billed.
  InstancePacking p = pack_instances(1, 1, k_eight);
  CHECK(p.instances == 1);
  CHECK(p.gpus_billed == 8);
  CHECK(p.largest_size == 8);
  CHECK_FALSE(p.mixed_sizes);
  // 49 × 1 GPU: ceil(49 / 8) = 7 instances, 56 GPUs billed.
  p = pack_instances(49, 1, k_eight);
  CHECK(p.instances == 7);
  CHECK(p.gpus_billed == 56);
  // 3 replicas of TP2 (6 GPUs): one 8-GPU instance holds 4 replicas -> 1 instance, 8 billed.
  p = pack_instances(3, 2, k_eight);
  CHECK(p.instances == 1);
  CHECK(p.gpus_billed == 8);
  // 3 × 1 GPU where 1/2/4/8 are rented: 2 + 1 = 3 GPUs in 2 instances (not one 4-GPU one).
  p = pack_instances(3, 1, k_lambda_like);
  CHECK(p.gpus_billed == 3);
  CHECK(p.instances == 2);
  CHECK(p.mixed_sizes);
  CHECK(p.largest_size == 2); // a 2 and a 1: the largest size used, not the family's 8
  // 1 × 1 GPU of a 1/4/8 family (AWS g6e): one 1-GPU instance.
  p = pack_instances(1, 1, std::vector<int>{1, 4, 8});
  CHECK(p.gpus_billed == 1);
  CHECK(p.instances == 1);
  CHECK(p.largest_size == 1);
  // 12 × 1 GPU: one 8 + one 4.
  p = pack_instances(12, 1, k_lambda_like);
  CHECK(p.gpus_billed == 12);
  CHECK(p.instances == 2);
  CHECK(p.mixed_sizes);
  // 16 × 1 GPU: two full 8s, one size.
  p = pack_instances(16, 1, k_lambda_like);
  CHECK(p.instances == 2);
  CHECK_FALSE(p.mixed_sizes);
  // A 16-GPU replica (TP8 · PP2 across nodes) takes two whole 8-GPU instances; 2 replicas = 4.
  p = pack_instances(2, 16, k_eight);
  CHECK(p.instances == 4);
  CHECK(p.gpus_billed == 32);
  // Replicas never straddle: 5 replicas of 3 GPUs, 2 per 8-GPU instance -> 3 instances, 24 GPUs;
  // with a 4-GPU size as well the fifth replica takes a 4: 2 × 8 + 4 = 20.
  p = pack_instances(5, 3, k_eight);
  CHECK(p.instances == 3);
  CHECK(p.gpus_billed == 24);
  p = pack_instances(5, 3, std::vector<int>{4, 8});
  CHECK(p.instances == 3);
  CHECK(p.gpus_billed == 20);
  CHECK(p.mixed_sizes);
  // A TP4 replica cannot run on 1-GPU instances (TP stays inside a node): not hostable, per GPU.
  p = pack_instances(2, 4, std::vector<int>{1}, 4);
  CHECK_FALSE(p.hostable);
  CHECK(p.instances == 0);
  CHECK(p.gpus_billed == 8);
  // TP8 · PP2 on 8-GPU instances: each stage in its own instance, 2 per replica.
  p = pack_instances(1, 16, k_eight, 8);
  CHECK(p.hostable);
  CHECK(p.instances == 2);
  // No shape: per-GPU rental, no instances.
  p = pack_instances(4, 2, {});
  CHECK(p.instances == 0);
  CHECK(p.gpus_billed == 8);
}

TEST_CASE("bill_instances: the median provider's bill at the price's rate", "[core][instances]") {
  // One provider (--provider aws): 1 GPU billed as a whole p5.48xlarge, 8 × 6.88 = 55.04 $/h.
  const GpuPrice aws(6.88, {{"aws", "p5.48xlarge", k_eight}});
  InstanceBill b = bill_instances(1, 1, aws);
  CHECK(b.gpus_used == 1);
  CHECK(b.gpus_billed == 8);
  CHECK(b.shape_known);
  CHECK(b.shape_index == 0);
  CHECK(b.usd_per_hour == Approx(55.04));
  // Three providers, one 8-only: billed 8, 1, 1 for one GPU -> the median bills 1 (per GPU, assumed).
  const GpuPrice three(4.5, {{"aws", "p5.48xlarge", k_eight}, {"lambda", "", {}}, {"nebius", "", {}}});
  b = bill_instances(1, 1, three);
  CHECK(b.gpus_billed == 1);
  CHECK_FALSE(b.shape_known);
  CHECK(three.shapes[static_cast<std::size_t>(b.shape_index)].provider == "nebius"); // lambda, nebius, aws
  CHECK(b.usd_per_hour == Approx(4.5));
  // Shapes in any order tie by name, not by position: nebius, aws, lambda bill 1, 8, 1 -> the order
  // lambda, nebius, aws, and its middle is nebius (by position it would be lambda).
  const GpuPrice unsorted(4.5, {{"nebius", "", {}}, {"aws", "p5.48xlarge", k_eight}, {"lambda", "", {}}});
  b = bill_instances(1, 1, unsorted);
  CHECK(unsorted.shapes[static_cast<std::size_t>(b.shape_index)].provider == "nebius");
  // 16 GPUs fill two 8-GPU instances at every provider: nothing idle either way.
  b = bill_instances(16, 1, three);
  CHECK(b.gpus_billed == 16);
  // Four providers, two 8-only: bills 1 (gcp), 1 (lambda), 8 (aws), 8 (azure) -> the lower middle,
  // lambda: 1 GPU, its shape unknown.
  const GpuPrice four(3.5, {{"aws", "p4d.24xlarge", k_eight},
                            {"azure", "Standard_ND96asr_v4", k_eight},
                            {"gcp", "a2-highgpu", k_lambda_like},
                            {"lambda", "", {}}});
  b = bill_instances(1, 1, four);
  CHECK(b.gpus_billed == 1);
  CHECK_FALSE(b.shape_known);
  CHECK(four.shapes[static_cast<std::size_t>(b.shape_index)].provider == "lambda");
  // 12 GPUs: gcp 8 + 4 = 12, lambda 12, aws and azure 16 -> lambda again (name order at a tie).
  b = bill_instances(12, 1, four);
  CHECK(b.gpus_billed == 12);
  // Three 8-only providers of five: 8 GPUs is the median bill of one GPU.
  const GpuPrice mostly_eight(
      2.0, {{"a", "x", k_eight}, {"b", "y", k_eight}, {"c", "z", k_eight}, {"d", "", {}}, {"e", "", {}}});
  b = bill_instances(1, 1, mostly_eight);
  CHECK(b.gpus_billed == 8);
  CHECK(b.usd_per_hour == Approx(16.0));
  // A provider whose instances cannot hold the TP group is left out of the median: aws (1-GPU
  // g6.xlarge) cannot host TP4, so the bill follows gcp's 4-GPU instance; aws alone bills per GPU.
  const GpuPrice two(1.0, {{"aws", "g6.xlarge", std::vector<int>{1}}, {"gcp", "g2-4", std::vector<int>{4}}});
  b = bill_instances(1, 4, two, 4);
  CHECK(b.hostable);
  CHECK(two.shapes[static_cast<std::size_t>(b.shape_index)].provider == "gcp");
  CHECK(b.gpus_billed == 4);
  b = bill_instances(1, 4, GpuPrice(1.0, {{"aws", "g6.xlarge", std::vector<int>{1}}}), 4);
  CHECK_FALSE(b.hostable);
  CHECK_FALSE(b.shape_known);
  CHECK(b.gpus_billed == 4);
  // A bare rate (on-prem, --price): per GPU, no shape.
  b = bill_instances(3, 2, GpuPrice(2.0));
  CHECK(b.gpus_billed == 6);
  CHECK(b.shape_index == -1);
  CHECK(b.usd_per_hour == Approx(12.0));
  // Unknown price: the GPUs are still counted, the cost is 0 (unknown).
  b = bill_instances(1, 1, GpuPrice(0.0, {{"aws", "p5.48xlarge", k_eight}}));
  CHECK(b.gpus_billed == 8);
  CHECK(b.usd_per_hour == 0.0);
}

TEST_CASE("bill_instances: the median provider by its definition, any number of providers",
          "[core][instances]") {
  // The rule as written in methodology "Whole instances", counted the slow way: among the providers
  // that can host the TP group (all when none can), the one with (n - 1) / 2 others ordered before it
  // by (GPUs billed, provider name, index). Random shapes with repeated names and sizes, 1 to 40
  // providers (past the 32 the bill keeps on the stack), sorted and unsorted.
  std::mt19937 rng(7);
  const std::vector<std::vector<int>> sizes = {{}, {1}, {8}, {4}, {1, 2, 4, 8}, {1, 8}, {2, 4}};
  int compared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const auto n = static_cast<std::size_t>(1 + trial % 40);
    std::vector<RentalShape> shapes;
    shapes.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      shapes.push_back({std::string(1, static_cast<char>('a' + rng() % 6)), "", sizes[rng() % sizes.size()]});
    }
    if (trial % 2 == 0) {
      std::stable_sort(shapes.begin(), shapes.end(),
                       [](const RentalShape& a, const RentalShape& b) { return a.provider < b.provider; });
    }
    const GpuPrice price(1.0, shapes);
    const int replicas = 1 + static_cast<int>(rng() % 12);
    const int per_replica = 1 << (rng() % 3);
    const int tp = per_replica;
    std::vector<InstancePacking> packs;
    packs.reserve(n);
    for (const RentalShape& s : shapes)
      packs.push_back(pack_instances(replicas, per_replica, s.gpus_per_instance, tp));
    std::size_t hosting = 0;
    for (const InstancePacking& p : packs)
      hosting += p.hostable ? 1U : 0U;
    const bool all = hosting == 0;
    const auto before = [&](std::size_t j, std::size_t i) {
      if (packs[j].gpus_billed != packs[i].gpus_billed) return packs[j].gpus_billed < packs[i].gpus_billed;
      if (shapes[j].provider != shapes[i].provider) return shapes[j].provider < shapes[i].provider;
      return j < i;
    };
    std::size_t expected = n;
    for (std::size_t i = 0; i < n && expected == n; ++i) {
      if (!all && !packs[i].hostable) continue;
      std::size_t ahead = 0;
      for (std::size_t j = 0; j < n; ++j)
        ahead += j != i && (all || packs[j].hostable) && before(j, i) ? 1U : 0U;
      if (ahead == ((all ? n : hosting) - 1) / 2) expected = i;
    }
    const InstanceBill b = bill_instances(replicas, per_replica, price, tp);
    INFO("trial " << trial << ", " << n << " providers");
    REQUIRE(expected < n);
    CHECK(b.shape_index == static_cast<int>(expected));
    CHECK(b.gpus_billed == packs[expected].gpus_billed);
    ++compared;
  }
  REQUIRE(compared == 400);
}

TEST_CASE("resolve_price: one shape per provider, unknown when any quote lacks one", "[core][instances]") {
  Gpu gpu = h100_sxm();
  gpu.prices = {PriceQuote{"aws", 6.88, false, "2026-10-10", "E", "p5.48xlarge", {8}, "AWS-INST"},
                PriceQuote{"lambda", 3.99, false, "2026-10-10", "E", "", {}, ""},
                PriceQuote{"gcp", 3.0, false, "2026-10-10", "E", "a2-highgpu-1g", {1, 2}, "GCP-INST"},
                PriceQuote{"gcp", 4.0, false, "2026-10-10", "E", "a2-highgpu-8g", {8}, "GCP-INST"}};
  const ResolvedPrice p = resolve_price(gpu, PricingModel::on_demand, "", TcoParams{});
  REQUIRE(p.shapes.size() == 3);
  CHECK(p.shapes[0].provider == "aws");
  CHECK(p.shapes[0].gpus_per_instance == std::vector<int>{8});
  CHECK(p.shapes[1].provider == "gcp");
  CHECK(p.shapes[1].gpus_per_instance == std::vector<int>{1, 2, 8});
  CHECK(p.shapes[2].gpus_per_instance.empty());
  const ResolvedPrice aws = resolve_price(gpu, PricingModel::on_demand, "aws", TcoParams{});
  REQUIRE(aws.shapes.size() == 1);
  CHECK(gpu_price(aws).shapes.front().instance == "p5.48xlarge");
}

TEST_CASE("costs come from the GPUs billed, and the search ranks by them", "[core][instances]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  const Gpu gpu = h100_sxm();
  Deployment one;
  InferenceWorkload w = chat_workload();
  w.concurrency = 16;
  const InferenceEstimate per_gpu =
      estimate_inference(pm, w, gpu, one, EngineConfig{}, nullptr, GpuPrice(4.0));
  const InferenceEstimate whole =
      estimate_inference(pm, w, gpu, one, EngineConfig{}, nullptr, GpuPrice(4.0, {{"aws", "p5", k_eight}}));
  CHECK(per_gpu.usd_per_hour == Approx(4.0));
  CHECK(whole.usd_per_hour == Approx(32.0)); // 8 GPUs paid for, 7 idle
  CHECK(whole.usd_per_million_output_tokens == Approx(8.0 * per_gpu.usd_per_million_output_tokens));
  CHECK(whole.usd_per_request == Approx(8.0 * per_gpu.usd_per_request));
  CHECK(whole.output_tokens_per_s == Approx(per_gpu.output_tokens_per_s)); // speed is not billing

  // Two offers of the same GPU: a lower rate in 8-GPU instances only, a higher one per GPU. One
  // GPU serves the load, so the per-GPU offer is cheaper billed and wins; by rate alone it loses.
  Gpu eight = gpu;
  eight.id = "H100-EIGHT";
  Gpu single = gpu;
  single.id = "H100-SINGLE";
  const std::vector<Gpu> gpus = {eight, single};
  const std::vector<PreparedModel> models = {pm};
  Sla sla;
  sla.tpot_ms = 100.0;
  sla.requests_per_s = 0.5;
  const std::vector<GpuPrice> shaped = {GpuPrice(3.0, {{"aws", "p5", k_eight}}), GpuPrice(4.0)};
  const Recommendation r =
      recommend(models, chat_workload(), sla, gpus, std::span<const GpuPrice>(shaped), SearchPolicy{});
  REQUIRE_FALSE(r.candidates.empty());
  const Candidate& best = r.candidates.front();
  REQUIRE(best.total_gpus() == 1);
  CHECK(gpus[best.gpu_index].id == "H100-SINGLE");
  CHECK(best.estimate.bill.gpus_billed == 1);
  const std::vector<double> rates = {3.0, 4.0};
  const Recommendation by_rate = recommend(models, chat_workload(), sla, gpus, rates, SearchPolicy{});
  REQUIRE_FALSE(by_rate.candidates.empty());
  CHECK(gpus[by_rate.candidates.front().gpu_index].id == "H100-EIGHT");
}
