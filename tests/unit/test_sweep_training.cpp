// A training spec's sweep points (docs/sweep.md "Training specs"): estimate mode is the layout search
// `check` runs on the point's GPU count, recommend mode the training search `recommend` runs, both
// judged by the one training judge; keys of the other spec mode and invalid micro-batches are said.
#include <catch2/catch.hpp>

#include "app/sweep.hpp"
#include "fixtures.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/training_recommend.hpp"

using namespace rightsize;
using namespace rightsize::app;

namespace {

// Llama-3.1-8B full fine-tuning on H100-SXM / L40S over `vary`; deadline 10 h.
SweepPlan training_plan(std::initializer_list<const char*> vary, SweepMode mode = SweepMode::estimate) {
  SweepPlan plan;
  plan.mode = mode;
  plan.training = true;
  for (const char* v : vary)
    plan.axes.push_back(parse_sweep_axis(v, {}));
  plan.models.push_back(prepare_model(test::llama31_8b(), Precision{}));
  plan.gpus = {test::h100_sxm(), test::l40s()};
  plan.prices = {4.32, 1.5};
  plan.fixed.gpu = 0;
  plan.training_workload.seq_len = 2048;
  plan.training_workload.global_batch = 64;
  plan.training_workload.tokens = 2e9;
  plan.sla.deadline_hours = 10.0;
  finish_plan(plan);
  return plan;
}

} // namespace

TEST_CASE("a training sweep point is check's run: the layout search on its count, judged", "[app][sweep]") {
  const SweepPlan plan = training_plan({"gpus=8,16", "sla.deadline_hours=1,100"});
  REQUIRE(plan.grid.size() == 4);
  int compared = 0;
  for (std::uint64_t i = 0; i < plan.grid.size(); ++i) {
    PointResult p;
    evaluate_point(plan, i, p);
    REQUIRE(p.has_estimate());
    const int gpus = p.digits[0] == 0 ? 8 : 16;
    const double deadline = p.digits[1] == 0 ? 1.0 : 100.0;
    TrainingWorkload w = plan.training_workload;
    const TrainingEstimate e = search_training_layout(plan.models[0], w, plan.gpus[0], gpus, LayoutPins{},
                                                      TrainingConfig{}, plan.prices[0]);
    Sla sla;
    sla.deadline_hours = deadline;
    CHECK(p.training.gpus == gpus);
    CHECK(p.training.tokens_per_s == e.tokens_per_s);
    CHECK(p.training.layout.tp == e.layout.tp);
    CHECK(p.deployment.gpus == gpus);
    CHECK(p.throughput_low == 1.0); // no calibration: the point estimate
    CHECK(p.rejection.term == judge(e, sla, true).first.term);
    ++compared;
  }
  REQUIRE(compared == 4);
  // A 1 h deadline is missed at 8 GPUs, 100 h is met.
  PointResult late;
  evaluate_point(plan, 0, late);
  CHECK(late.rejection.term == Term::deadline);
  PointResult fine;
  evaluate_point(plan, 1, fine);
  CHECK(fine.ok());
}

TEST_CASE("a training sweep point in recommend mode is recommend's winner", "[app][sweep]") {
  const SweepPlan plan = training_plan({"workload.global_batch=32,128"}, SweepMode::recommend);
  int compared = 0;
  for (std::uint64_t i = 0; i < plan.grid.size(); ++i) {
    PointResult p;
    evaluate_point(plan, i, p);
    REQUIRE(p.has_estimate());
    TrainingWorkload w = plan.training_workload;
    w.global_batch = i == 0 ? 32 : 128;
    const TrainingRecommendation r = recommend_training(plan.models[0], w, plan.sla, plan.gpus, plan.prices,
                                                        plan.search_policy(), TrainingConfig{});
    REQUIRE_FALSE(r.candidates.empty());
    CHECK(p.gpu == r.candidates.front().gpu_index);
    CHECK(p.training.gpus == r.candidates.front().estimate.gpus);
    CHECK(p.training.usd_total == r.candidates.front().estimate.usd_total);
    CHECK(p.ok());
    ++compared;
  }
  REQUIRE(compared == 2);
}

TEST_CASE("a training sweep says an invalid micro-batch and EP on a dense model", "[app][sweep]") {
  SweepPlan plan = training_plan({"workload.micro_batch=8,128"});
  plan.fixed.gpus = 8;
  PointResult ok;
  evaluate_point(plan, 0, ok);
  CHECK(ok.has_estimate());
  CHECK(ok.training.layout.micro_batch == 8);
  PointResult bad;
  evaluate_point(plan, 1, bad);
  CHECK(bad.issue == PointIssue::micro_batch);
  CHECK(bad.issue_value == 128);
  CHECK(bad.issue_limit == 64);
  SweepPlan ep = training_plan({"ep=1,2"});
  ep.fixed.gpus = 8;
  PointResult dense;
  evaluate_point(ep, 1, dense);
  CHECK(dense.issue == PointIssue::layout_dense);
  // Keys carry the spec modes they apply to.
  CHECK((find_sweep_key("workload.seq_len")->modes & k_for_inference) == 0);
  CHECK((find_sweep_key("workload.concurrency")->modes & k_for_training) == 0);
  CHECK(find_sweep_key("gpus")->modes == k_for_both);
}
