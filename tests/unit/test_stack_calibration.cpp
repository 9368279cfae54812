// Calibrating to a user's own runs (docs/calibration.md): runs whose "measurements" are the
// estimator's own predictions at known factors, so the fit has a known answer.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/stack_calibration.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// A vLLM run of Llama 3.1 8B on the H100 fixture at tp = 1, measured at efficiency `truth`.
StackRun synthetic_run(const std::string& id, std::int64_t isl, std::int64_t osl, std::int64_t concurrency,
                       const GpuEfficiency& truth) {
  StackRun r;
  r.run.id = id;
  r.run.engine = "vllm";
  r.run.gpu_id = "H100-SXM";
  r.run.preset = "llama-3.1-8b";
  r.run.precision = "bf16";
  r.run.mode = "agg";
  r.run.input_tokens = isl;
  r.run.output_tokens = osl;
  r.run.concurrency = concurrency;
  r.model = llama31_8b();
  Gpu g = h100_sxm();
  g.efficiency = truth;
  const EngineConfig engine = engine_profile(EngineKind::vllm);
  CHECK(stack_cases(r).empty()); // nothing measured yet
  ValidationCase probe;
  probe.model = r.model;
  probe.precision = precision_of(r.run);
  probe.gpu_id = g.id;
  probe.deployment = deployment_of(r.run);
  probe.workload.input_tokens = isl;
  probe.workload.output_tokens = osl;
  probe.workload.concurrency = concurrency;
  probe.kind = FigureKind::ttft;
  r.run.ttft_s = predict_case(probe, g, engine);
  probe.kind = FigureKind::tpot;
  r.run.tpot_s = predict_case(probe, g, engine);
  return r;
}

std::vector<StackRun> five_runs(const GpuEfficiency& truth) {
  return {synthetic_run("a", 1024, 128, 8, truth), synthetic_run("b", 4096, 512, 16, truth),
          synthetic_run("c", 2048, 1024, 32, truth), synthetic_run("d", 8192, 256, 4, truth),
          synthetic_run("e", 1024, 1024, 64, truth)};
}

} // namespace

TEST_CASE("format_iso_date inverts parse_iso_date", "[stack_calibration]") {
  // Worked examples: day 0 is 1970-01-01; day 59 is 31 (January) + 28 (February 1970) days later;
  // 2026-01-01 is 56 × 365 + 14 leap days (1972..2024) = 20,454 days after day 0.
  CHECK(format_iso_date(0) == "1970-01-01");
  CHECK(format_iso_date(59) == "1970-03-01"); // 31 (Jan) + 28 (Feb 1970) = 59
  CHECK(format_iso_date(*parse_iso_date("2024-02-29")) == "2024-02-29");
  CHECK(format_iso_date(*parse_iso_date("2026-11-22")) == "2026-11-22");
  CHECK(format_iso_date(20454) == "2026-01-01");
  CHECK(format_iso_date(-1) == "1969-12-31");
}

TEST_CASE("stack_cases: one case per measured figure, the run's layout and workload", "[stack_calibration]") {
  StackRun r;
  r.run.id = "row7";
  r.run.gpu_id = "H100-SXM";
  r.run.tp = 2;
  r.run.input_tokens = 1024;
  r.run.output_tokens = 128;
  r.run.concurrency = 8;
  r.run.ttft_s = 0.154;
  r.run.tpot_s = 0.018;
  r.model = llama31_8b();
  const std::vector<ValidationCase> cases = stack_cases(r);
  REQUIRE(cases.size() == 2); // no throughput measured
  CHECK(cases[0].id == "row7:ttft");
  CHECK(cases[0].kind == FigureKind::ttft);
  CHECK(cases[0].measured == Approx(0.154));
  CHECK(cases[1].id == "row7:tpot");
  CHECK(cases[0].deployment.tp == 2);
  CHECK(cases[0].deployment.gpus == 2);
  CHECK(cases[0].workload.concurrency == 8);
  r.output_tokens_per_s = 900.0;
  CHECK(stack_cases(r).size() == 3);
}

TEST_CASE("fit_stack recovers a known decode bandwidth and keeps what no run informs",
          "[stack_calibration]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.62; // the user's stack reads HBM at 62 % of peak
  Gpu shipped = h100_sxm();
  shipped.efficiency.decode_bandwidth = 0.85;
  shipped.efficiency.communication = 0.77;
  const std::vector<StackRun> runs = five_runs(truth);
  const StackFit fit = fit_stack(runs, {}, shipped, engine_profile(EngineKind::vllm), FitOptions{});
  CHECK(fit.fitted.decode_source == "fitted");
  CHECK(fit.fitted.efficiency.decode_bandwidth == Approx(0.62).margin(0.01));
  // tp = 1 everywhere: nothing informs communication; it keeps the shipped value.
  CHECK(fit.fitted.communication_source == "shipped");
  CHECK(fit.fitted.efficiency.communication == 0.77);
  CHECK(fit.runs.size() == 5);
  // Leave-one-out TPOT: with the shipped 0.85 the prediction is ~0.62/0.85 - 1 = -27 % off
  // wherever decode is bandwidth-bound; the fit to the other four runs is within a few percent.
  const auto tpot = std::find_if(fit.loo.begin(), fit.loo.end(),
                                 [](const FigureError& e) { return e.kind == FigureKind::tpot; });
  REQUIRE(tpot != fit.loo.end());
  CHECK(tpot->runs == 5);
  CHECK(tpot->median_ape_shipped_pct > 15.0);
  CHECK(tpot->median_ape_fitted_pct < 3.0);
  // Five leave-one-out residuals per figure: the overlay carries its own TPOT band around 1.
  const auto band = std::find_if(fit.bands.begin(), fit.bands.end(),
                                 [](const BandEntry& b) { return b.kind == FigureKind::tpot; });
  REQUIRE(band != fit.bands.end());
  CHECK(band->ratio_low <= 1.0);
  CHECK(band->ratio_high >= 1.0);
  CHECK(band->ratio_high < 1.05);
}

TEST_CASE("fit_stack stays inside the physical bounds", "[stack_calibration]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.30; // slower than any plausible engine: below bandwidth_min 0.5
  const StackFit fit =
      fit_stack(five_runs(truth), {}, h100_sxm(), engine_profile(EngineKind::vllm), FitOptions{});
  CHECK(fit.fitted.efficiency.decode_bandwidth >= FitOptions{}.bandwidth_min);
  CHECK(fit.fitted.efficiency.decode_bandwidth == Approx(FitOptions{}.bandwidth_min).margin(0.01));
}

TEST_CASE("fit_stack scores held-out runs with shipped and fitted factors", "[stack_calibration]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.62;
  Gpu shipped = h100_sxm();
  shipped.efficiency.decode_bandwidth = 0.85;
  const std::vector<StackRun> held = {synthetic_run("h1", 2048, 256, 16, truth),
                                      synthetic_run("h2", 512, 512, 8, truth)};
  const StackFit fit =
      fit_stack(five_runs(truth), held, shipped, engine_profile(EngineKind::vllm), FitOptions{});
  const auto tpot = std::find_if(fit.holdout.begin(), fit.holdout.end(),
                                 [](const FigureError& e) { return e.kind == FigureKind::tpot; });
  REQUIRE(tpot != fit.holdout.end());
  CHECK(tpot->runs == 2);
  CHECK(tpot->median_ape_fitted_pct < tpot->median_ape_shipped_pct);
  CHECK(tpot->median_ape_fitted_pct < 3.0);
}

TEST_CASE("apply_stack_fits replaces fitted factors and bands of its GPU only", "[stack_calibration]") {
  StackFit s;
  s.gpu_id = "H100-SXM";
  s.engine = "vllm";
  s.runs = {"a", "b"};
  s.fitted.efficiency.decode_bandwidth = 0.66;
  s.fitted.decode_source = "fitted";
  s.fitted.efficiency.prefill_compute = 0.99; // kept: must not be applied
  s.fitted.prefill_source = "shipped";
  BandEntry b;
  b.kind = FigureKind::tpot;
  b.gpu_id = "H100-SXM";
  b.ratio_low = 0.9;
  b.ratio_high = 1.2;
  b.rule = "user runs, leave-one-out";
  s.bands = {b};
  std::vector<Gpu> gpus = {h100_sxm(), l40s()};
  const double prefill_before = gpus[0].efficiency.prefill_compute;
  const GpuEfficiency l40s_before = gpus[1].efficiency;
  Calibration cal;
  BandEntry old = b;
  old.ratio_low = 0.5;
  old.ratio_high = 3.0;
  old.rule = "serving rows";
  cal.bands = {old};
  apply_stack_fits({s}, gpus, cal);
  CHECK(gpus[0].efficiency.decode_bandwidth == 0.66);
  CHECK(gpus[0].efficiency.prefill_compute == prefill_before);
  CHECK(gpus[0].efficiency.provenance.find("overlay (vllm, 2 runs): decode_bandwidth") != std::string::npos);
  CHECK(gpus[1].efficiency.decode_bandwidth == l40s_before.decode_bandwidth);
  REQUIRE(cal.bands.size() == 1);
  CHECK(cal.bands[0].ratio_high == 1.2);
  CHECK(cal.bands[0].rule == "user runs, leave-one-out");
}

TEST_CASE("fit_stack fits training_mfu to training runs given as cases", "[stack_calibration]") {
  // Llama 3.1 8B on 8 × H100, FSDP: "measured" at MFU 0.52 while the shipped factor says 0.40.
  Gpu truth_gpu = h100_sxm();
  truth_gpu.efficiency.training_mfu = 0.52;
  Gpu shipped = h100_sxm();
  shipped.efficiency.training_mfu = 0.40;
  std::vector<StackRun> runs;
  for (const std::int64_t seq : {2048, 4096, 8192}) {
    ValidationCase c;
    c.id = "train-" + std::to_string(seq);
    c.kind = FigureKind::training_throughput;
    c.model = llama31_8b();
    c.gpu_id = "H100-SXM";
    c.deployment.gpus = 8;
    c.training_seq_len = seq;
    c.training_recompute = Recompute::none;
    c.measured = predict_case(c, truth_gpu, EngineConfig{});
    StackRun r;
    r.run.id = c.id;
    r.run.gpu_id = c.gpu_id;
    r.run.engine = "training";
    r.cases = {c};
    runs.push_back(r);
  }
  CHECK(stack_cases(runs[0]).size() == 1); // a training run's cases as given
  const StackFit fit = fit_stack(runs, {}, shipped, EngineConfig{}, FitOptions{});
  CHECK(fit.fitted.training_source == "fitted");
  CHECK(fit.fitted.efficiency.training_mfu == Approx(0.52).margin(0.01));
  CHECK(fit.fitted.decode_source == "shipped");
  const auto e = std::find_if(fit.loo.begin(), fit.loo.end(),
                              [](const FigureError& x) { return x.kind == FigureKind::training_throughput; });
  REQUIRE(e != fit.loo.end());
  CHECK(e->median_ape_fitted_pct < e->median_ape_shipped_pct);
}
