// Whole-instance billing of training jobs and disaggregated pools (docs/methodology.md "Whole
// instances"): the same bill_instances as aggregated serving, against hand-worked examples.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine_fixtures.hpp"
#include "fixtures.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/disagg_search.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/instances.hpp"
#include "rightsize/training.hpp"
#include "rightsize/training_recommend.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// One provider renting 8-GPU instances only, and one renting 1, 2, 4 or 8 GPUs (as catalog quotes with
// gpus_per_instance 8 and [1, 2, 4, 8]).
GpuPrice eight_only(double rate) {
  return GpuPrice(rate, {RentalShape{"aws", "p5.48xlarge", {8}}});
}
GpuPrice one_to_eight(double rate) {
  return GpuPrice(rate, {RentalShape{"gcp", "a3-highgpu-1g/2g/4g/8g", {1, 2, 4, 8}}});
}

TrainingWorkload run_of(double tokens) {
  TrainingWorkload w;
  w.seq_len = 2048;
  w.global_batch = 48;
  w.tokens = tokens;
  return w;
}

TrainingLayout dp_layout(int tp, int dp) {
  TrainingLayout l;
  l.tp = tp;
  l.dp = dp;
  l.zero_stage = 3;
  return l;
}

} // namespace

TEST_CASE("a training job pays for whole instances: 6 GPUs on 8-GPU instances bill 8", "[core][instances]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const Gpu gpu = h100_sxm();
  const TrainingWorkload w = run_of(1e9);
  const TrainingEstimate per_gpu = estimate_training(p8, w, gpu, dp_layout(2, 3), TrainingConfig{}, 4.0);
  const TrainingEstimate whole =
      estimate_training(p8, w, gpu, dp_layout(2, 3), TrainingConfig{}, eight_only(4.0));
  // Per GPU: 6 × $4 = $24/h. Whole instances: one p5.48xlarge, 8 × $4 = $32/h; the job is as fast.
  CHECK(per_gpu.bill.gpus_billed == 6);
  CHECK(per_gpu.usd_per_hour == Approx(24.0));
  CHECK(whole.bill.gpus_used == 6);
  CHECK(whole.bill.gpus_billed == 8);
  CHECK(whole.bill.packing.instances == 1);
  CHECK(whole.usd_per_hour == Approx(32.0));
  CHECK(whole.time_to_train_s == Approx(per_gpu.time_to_train_s));
  // Cost per run = hours × billed $/h × planning factor (1.3, TrainingConfig); GPU-hours stay the used ones.
  const double hours = whole.time_to_train_s / 3600.0;
  CHECK(whole.usd_total_ideal == Approx(hours * 32.0));
  CHECK(whole.usd_total == Approx(hours * 32.0 * 1.3));
  CHECK(whole.gpu_hours == Approx(per_gpu.gpu_hours));
  CHECK(whole.usd_total / per_gpu.usd_total == Approx(8.0 / 6.0));
}

TEST_CASE("a training job of 3 GPUs where 1/2/4/8 are rented bills one 4-GPU instance", "[core][instances]") {
  const PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  const TrainingEstimate e =
      estimate_training(p8, run_of(1e9), h100_sxm(), dp_layout(1, 3), TrainingConfig{}, one_to_eight(2.0));
  // One job is one replica: it cannot straddle a 2 + 1, so the smallest size holding 3 GPUs, 4.
  CHECK(e.bill.gpus_billed == 4);
  CHECK(e.bill.packing.instances == 1);
  CHECK(e.bill.shape_known);
  CHECK(e.usd_per_hour == Approx(8.0));
  CHECK(e.bill.packing.largest_size == 4); // the size used, not the family's largest
  // 16 GPUs (two nodes) fill two 8-GPU instances exactly: nothing idle is billed.
  const TrainingEstimate two =
      estimate_training(p8, run_of(1e9), h100_sxm(), dp_layout(2, 8), TrainingConfig{}, one_to_eight(2.0));
  CHECK(two.bill.gpus_billed == 16);
  CHECK(two.bill.packing.instances == 2);
}

namespace {

// Two identical H100-SXM GPUs "A" and "B", `per_node` to a node, and the 8B training run both rank.
struct TwoGpuRun {
  PreparedModel p8 = prepare_model(llama31_8b(), Precision{});
  TrainingWorkload w = run_of(2e9);
  std::vector<Gpu> gpus;
  explicit TwoGpuRun(int per_node) {
    w.global_batch = 8;
    Gpu a = h100_sxm();
    a.id = std::string{"A"};
    a.gpus_per_node = per_node;
    Gpu b = a;
    b.id = std::string{"B"};
    gpus = {a, b};
  }
};

} // namespace

TEST_CASE("training recommend ranks by the billed cost", "[core][instances]") {
  // Two identical GPUs, 4 per node (so the search tries 1, 2 and 4 GPUs): A at $2/GPU-h in 8-GPU
  // instances only, B at $3/GPU-h in 1/2/4/8-GPU ones. Per GPU, A's runs cost 2/3 of B's; billed, A's
  // jobs of at most 4 GPUs pay for 8 ($16/h against B's 4 × $3 = $12/h at 4 GPUs), so B wins.
  const TwoGpuRun run(4);
  const PreparedModel& p8 = run.p8;
  const TrainingWorkload& w = run.w;
  const std::vector<Gpu>& gpus = run.gpus;
  const std::vector<GpuPrice> billed = {eight_only(2.0), one_to_eight(3.0)};
  SearchPolicy policy;
  const TrainingRecommendation r = recommend_training(p8, w, Sla{}, gpus, billed, policy, TrainingConfig{});
  REQUIRE_FALSE(r.candidates.empty());
  const TrainingCandidate& win = r.candidates.front();
  CHECK(gpus[win.gpu_index].id == "B");
  for (const TrainingCandidate& c : r.candidates) {
    if (gpus[c.gpu_index].id == "A") CHECK(c.estimate.bill.gpus_billed % 8 == 0);
    if (gpus[c.gpu_index].id == "B") CHECK(c.estimate.bill.gpus_billed == c.estimate.gpus);
  }
  const std::vector<GpuPrice> per_gpu = {2.0, 3.0};
  const TrainingRecommendation q = recommend_training(p8, w, Sla{}, gpus, per_gpu, policy, TrainingConfig{});
  REQUIRE_FALSE(q.candidates.empty());
  CHECK(gpus[q.candidates.front().gpu_index].id == "A");
}

TEST_CASE("training recommend charges each price its quality margin, as inference does", "[core][rank]") {
  // A at $2/GPU-h and B at $3 per GPU, identical GPUs: A's run costs 2/3 of B's. A margin of +60 %
  // on A's price ranks it at 2 × 1.6 = 3.2 against B's 3: B first; +40 % (2.8) keeps A first.
  const TwoGpuRun run(h100_sxm().gpus_per_node);
  const PreparedModel& p8 = run.p8;
  const TrainingWorkload& w = run.w;
  const std::vector<Gpu>& gpus = run.gpus;
  const std::vector<GpuPrice> prices = {2.0, 3.0};
  SearchPolicy policy;
  policy.price_margins = {0.6, 0.0};
  const TrainingRecommendation r = recommend_training(p8, w, Sla{}, gpus, prices, policy, TrainingConfig{});
  REQUIRE(r.candidates.size() >= 2);
  CHECK(gpus[r.candidates.front().gpu_index].id == "B");
  // The quoted costs are unchanged: only the order moves.
  const auto cheapest_a =
      std::find_if(r.candidates.begin(), r.candidates.end(),
                   [&](const TrainingCandidate& c) { return gpus[c.gpu_index].id == "A"; });
  REQUIRE(cheapest_a != r.candidates.end());
  CHECK(cheapest_a->estimate.usd_total ==
        Approx(r.candidates.front().estimate.usd_total * 2.0 / 3.0).epsilon(0.01));
  policy.price_margins = {0.4, 0.0};
  const TrainingRecommendation q = recommend_training(p8, w, Sla{}, gpus, prices, policy, TrainingConfig{});
  REQUIRE_FALSE(q.candidates.empty());
  CHECK(gpus[q.candidates.front().gpu_index].id == "A");
}

TEST_CASE("training recommend ranks a less-known GPU at its wider band's end", "[core][rank]") {
  // A at $2/GPU-h and B at $3, identical GPUs: A's run costs 2/3 of B's on the point estimate. B has
  // training cases of its own (throughput band p10 0.9); A has none on its family, so it takes the
  // extrapolated band (TPOT 0.8 .. 1.6 inverted: p10 0.625). At p90 A ranks at 2 / 0.625 = 3.2
  // against B's 3 / 0.9 = 3.33: A still wins, by more than its extra uncertainty. At $2.20 (3.52)
  // it loses; at p50 it wins on the point estimate.
  TwoGpuRun run(h100_sxm().gpus_per_node);
  run.gpus[0].architecture = "Alpha";
  run.gpus[1].architecture = "Beta";
  Calibration cal;
  BandEntry own;
  own.kind = FigureKind::training_throughput;
  own.gpu_id = "B";
  own.ratio_low = 0.9;
  own.ratio_high = 1.1;
  own.rule = "own";
  cal.bands.push_back(own);
  own.gpu_id = "*";
  cal.bands.push_back(own);
  cal.reach_bands = {ReachBand{FigureKind::tpot, Reach::extrapolated, 0.8, 1.6, 10, {"C"}}};
  cal.classes.push_back(ClassWidening{model_class_of(run.p8.model), 10, 1.0});
  assign_reach(cal, run.gpus);
  REQUIRE(run.gpus[0].training_reach == Reach::extrapolated);
  REQUIRE(run.gpus[1].training_reach == Reach::measured);
  SearchPolicy policy;
  policy.calibration = &cal;
  const auto winner = [&](double price_a) {
    const std::vector<GpuPrice> prices = {price_a, 3.0};
    const TrainingRecommendation r =
        recommend_training(run.p8, run.w, Sla{}, run.gpus, prices, policy, TrainingConfig{});
    REQUIRE_FALSE(r.candidates.empty());
    return r.candidates.front();
  };
  const TrainingCandidate a = winner(2.0);
  CHECK(run.gpus[a.gpu_index].id == "A");
  CHECK(a.throughput_low == Approx(0.625));
  const TrainingCandidate b = winner(2.2);
  CHECK(run.gpus[b.gpu_index].id == "B");
  CHECK(b.throughput_low == Approx(0.9));
  // Re-judging the p90 runs at p50 (the cost of confidence) ranks them as a p50 search does.
  const std::vector<GpuPrice> prices = {2.2, 3.0};
  const TrainingRecommendation p90 =
      recommend_training(run.p8, run.w, Sla{}, run.gpus, prices, policy, TrainingConfig{});
  policy.confidence = Confidence::p50;
  CHECK(run.gpus[winner(2.2).gpu_index].id == "A");
  const TrainingRecommendation p50 =
      recommend_training(run.p8, run.w, Sla{}, run.gpus, prices, policy, TrainingConfig{});
  const TrainingRecommendation again = rejudge_training(p90, run.p8, Sla{}, run.gpus, policy);
  REQUIRE(again.candidates.size() == p50.candidates.size());
  int compared = 0;
  for (std::size_t i = 0; i < p50.candidates.size(); ++i) {
    CHECK(again.candidates[i].gpu_index == p50.candidates[i].gpu_index);
    CHECK(again.candidates[i].estimate.gpus == p50.candidates[i].estimate.gpus);
    CHECK(again.candidates[i].throughput_low == 1.0);
    ++compared;
  }
  REQUIRE(compared > 0);
}

TEST_CASE("each disaggregated pool is billed as its own set of instances", "[core][instances][disagg]") {
  const Gpu gpu = h100_sxm();
  DisaggDeployment unit;
  unit.prefill.gpu = &gpu;
  unit.prefill.layout.tp = 1;
  unit.prefill.layout.gpus = 1;
  unit.prefill.workers = 1;
  unit.prefill.price = eight_only(2.0);
  unit.decode = unit.prefill;
  unit.decode.layout.tp = 2;
  unit.decode.layout.gpus = 2;
  unit.decode.workers = 2;
  unit.decode.price = eight_only(3.0);
  // One unit: prefill 1 GPU -> one 8-GPU instance; decode 2 × TP2 = 4 GPUs -> one 8-GPU instance.
  // 8 × $2 + 8 × $3 = $40/h (per GPU it would be 1 × 2 + 4 × 3 = $14/h).
  const DisaggBill one = bill_disagg(unit, 1);
  CHECK(one.prefill.gpus_billed == 8);
  CHECK(one.decode.gpus_billed == 8);
  CHECK(one.usd_per_hour == Approx(40.0));
  // Three copies pack together per pool: prefill 3 × 1 GPU -> 1 instance (8); decode 6 × TP2 -> 4 per
  // instance -> 2 instances (16). 8 × 2 + 16 × 3 = $64/h, not 3 × $40.
  const DisaggBill three = bill_disagg(unit, 3);
  CHECK(three.prefill.packing.instances == 1);
  CHECK(three.decode.packing.instances == 2);
  CHECK(three.prefill.gpus_billed + three.decode.gpus_billed == 24);
  CHECK(three.usd_per_hour == Approx(64.0));
  // Per-GPU prices bill the GPUs used: 3 × 1 × 2 + 6 × 2 × 3 = $42/h.
  unit.prefill.price = GpuPrice(2.0);
  unit.decode.price = GpuPrice(3.0);
  CHECK(bill_disagg(unit, 3).usd_per_hour == Approx(42.0));
  // An unknown price on either pool leaves the deployment's price unknown (0).
  unit.decode.price = GpuPrice(0.0);
  CHECK(bill_disagg(unit, 3).usd_per_hour == 0.0);
}

TEST_CASE("the disaggregated estimate and search cost the pools' whole instances",
          "[core][instances][disagg]") {
  const Gpu gpu = h100_sxm();
  const std::vector<Gpu> gpus = {gpu};
  const std::vector<GpuPrice> prices = {eight_only(3.0)};
  const std::vector<PreparedModel> models = {prepare_model(llama31_8b(), Precision{})};
  InferenceWorkload w;
  w.input_tokens = 2048;
  w.output_tokens = 256;
  Sla sla;
  sla.tpot_ms = 40.0;
  sla.ttft_ms = 3000.0;
  sla.requests_per_s = 2.0;
  SearchPolicy policy;
  policy.engine = test::shipped_engine(EngineKind::vllm);
  DisaggGrid grid;
  grid.max_prefill_workers = 2;
  grid.max_decode_workers = 2;
  grid.mixed_gpu_types = false;
  const DisaggRecommendation r = recommend_disagg(models, w, sla, gpus, prices, policy, grid);
  REQUIRE_FALSE(r.candidates.empty());
  for (const DisaggCandidate& c : r.candidates) {
    const DisaggBill expect = bill_disagg(c.unit, c.copies);
    CHECK(c.bill.usd_per_hour == Approx(expect.usd_per_hour));
    CHECK(c.whole.usd_per_hour == Approx(expect.usd_per_hour));
    CHECK(c.bill.prefill.gpus_billed % 8 == 0);
    CHECK(c.bill.decode.gpus_billed % 8 == 0);
    CHECK(c.bill.prefill.gpus_billed + c.bill.decode.gpus_billed >= c.total_gpus());
  }
}
