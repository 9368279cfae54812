// Calibrating to a user's own runs (docs/calibration.md): runs whose "measurements" are the
// estimator's own predictions at known factors, so the fit has a known answer.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "calibrate_fixtures.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/stack_calibration.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

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
  const StackFit fit = fit_stack(runs, {}, shipped, test::shipped_engine(EngineKind::vllm), FitOptions{});
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
      fit_stack(five_runs(truth), {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
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
      fit_stack(five_runs(truth), held, shipped, test::shipped_engine(EngineKind::vllm), FitOptions{});
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

TEST_CASE("tails: the median p99 / mean ratio, leave-one-out scored", "[stack_calibration][tails]") {
  GpuEfficiency truth = h100_sxm().efficiency;
  std::vector<StackRun> runs = five_runs(truth);
  // Measured p99 = 1.5 x, 1.6 x, 1.7 x, 1.8 x and (run e) no p99 for TTFT; TPOT p99 only on two runs.
  const double ratios[] = {1.5, 1.6, 1.7, 1.8};
  for (std::size_t i = 0; i < 4; ++i)
    runs[i].ttft_p99_s = runs[i].run.ttft_s * ratios[i];
  runs[0].tpot_p99_s = runs[0].run.tpot_s * 1.1;
  runs[1].tpot_p99_s = runs[1].run.tpot_s * 1.1;
  const StackFit fit = fit_stack(runs, {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
  REQUIRE(fit.tails.size() == 1); // TPOT: 2 runs < k_min_tail_runs
  const TailFit& t = fit.tails[0];
  CHECK(t.kind == FigureKind::ttft);
  CHECK(t.runs == 4);
  CHECK(t.p99_over_mean == Approx(1.65)); // median of 1.5, 1.6, 1.7, 1.8
  // Leave-one-out: run a's p99 from the ratio of b, c, d (median 1.7): |1.7 / 1.5 - 1| = 13.3 %;
  // b: median(1.5, 1.7, 1.8) = 1.7 -> 6.25 %; c: 1.6 -> 5.9 %; d: 1.6 -> 11.1 %. The means are
  // the estimator's own, so the fitted mean is exact: the median of the four is (6.25 + 11.1) / 2.
  CHECK(t.median_ape_fitted_pct ==
        Approx((100.0 * (1.7 / 1.6 - 1.0) + 100.0 * (1.0 - 1.6 / 1.8)) / 2.0).epsilon(0.02));

  Calibration cal;
  std::vector<Gpu> gpus = {h100_sxm()};
  apply_stack_fits({fit}, gpus, cal);
  const TailEntry* in_force = tail_for(cal, FigureKind::ttft, "H100-SXM");
  REQUIRE(in_force != nullptr);
  CHECK(in_force->p99_over_mean == Approx(1.65));
  CHECK(tail_for(cal, FigureKind::tpot, "H100-SXM") == nullptr);
  CHECK(tail_for(cal, FigureKind::ttft, "H100-PCIE") == nullptr);
}

TEST_CASE("layout families: own factors with enough runs, else the GPU x engine's",
          "[stack_calibration][layouts]") {
  // TP1 runs measured at decode_bandwidth 0.80; pipeline-parallel (PP2) runs at 0.60.
  GpuEfficiency tp_truth = h100_sxm().efficiency;
  tp_truth.decode_bandwidth = 0.80;
  GpuEfficiency pp_truth = tp_truth;
  pp_truth.decode_bandwidth = 0.60;
  std::vector<StackRun> runs = five_runs(tp_truth);
  for (const char* id : {"p1", "p2", "p3"}) {
    runs.push_back(synthetic_run(id, 2048, 512, 16, pp_truth));
  }
  // synthetic_run measures at TP1 PP1: re-measure the PP2 runs at their layout.
  for (std::size_t i = 5; i < runs.size(); ++i) {
    runs[i].run.pp = 2;
    Gpu g = h100_sxm();
    g.efficiency = pp_truth;
    for (const ValidationCase& c : stack_cases(runs[i])) {
      (c.kind == FigureKind::ttft ? runs[i].run.ttft_s : runs[i].run.tpot_s) =
          predict_case(c, g, test::shipped_engine(EngineKind::vllm));
    }
  }
  const StackFit fit = fit_stack(runs, {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
  REQUIRE(fit.layouts.size() == 2);
  CHECK(fit.layouts[0].family == LayoutFamily::tp);
  CHECK(fit.layouts[1].family == LayoutFamily::tp_pp);
  REQUIRE(fit.layouts[0].own);
  REQUIRE(fit.layouts[1].own);
  CHECK(fit.layouts[0].fitted.efficiency.decode_bandwidth == Approx(0.80).margin(0.01));
  CHECK(fit.layouts[1].fitted.efficiency.decode_bandwidth == Approx(0.60).margin(0.01));

  std::vector<Gpu> gpus = {h100_sxm()};
  Calibration cal;
  apply_stack_fits({fit}, gpus, cal);
  Deployment pp2;
  pp2.gpus = 2;
  pp2.pp = 2;
  CHECK(efficiency_for(gpus[0], layout_family(pp2)).decode_bandwidth == Approx(0.60).margin(0.01));
  CHECK(efficiency_for(gpus[0], LayoutFamily::tp).decode_bandwidth == Approx(0.80).margin(0.01));
  // No ep runs: an ep deployment keeps the GPU x engine factors, and its provenance says so.
  Deployment ep;
  ep.gpus = 2;
  ep.tp = 2;
  ep.ep = 2;
  CHECK(&efficiency_for(gpus[0], layout_family(ep)) == &gpus[0].efficiency);
  CHECK_THAT(efficiency_provenance(gpus[0], ep, test::mixtral_8x7b()),
             Catch::Contains("layout ep: no factors of its own"));

  // Two PP runs only: too few for factors of their own.
  runs.pop_back();
  const StackFit few = fit_stack(runs, {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
  REQUIRE(few.layouts.size() == 2);
  CHECK(few.layouts[1].family == LayoutFamily::tp_pp);
  CHECK_FALSE(few.layouts[1].own);
  CHECK(few.layouts[1].runs.size() == 2);
}

TEST_CASE("layer_overhead multiplies the engine's per-layer time of a decode step", "[stack_calibration]") {
  // Worked example (methodology §3 "per-layer time"): Llama-3.1-8B has 32 layers and no MoE layer;
  // vLLM's profile puts 30 µs on each (data/engines.json). One sequence decoding alone on one
  // H100 pays 32 × 30 µs = 0.96 ms of per-layer time a step; twice the profile's time adds
  // exactly that again to its decode step.
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w;
  w.input_tokens = 512;
  w.output_tokens = 256;
  w.concurrency = 1;
  Deployment one;
  const EngineConfig engine = shipped_engine(EngineKind::vllm);
  REQUIRE(engine.layer_overhead_s == Approx(30e-6));
  Gpu gpu = h100_sxm();
  const double base_s = estimate_inference(pm, w, gpu, one, engine, nullptr, 0.0).decode_step_s;
  gpu.efficiency.layer_overhead = 2.0;
  const double twice_s = estimate_inference(pm, w, gpu, one, engine, nullptr, 0.0).decode_step_s;
  CHECK(twice_s - base_s == Approx(32 * 30e-6).epsilon(1e-6));
}

TEST_CASE("fit_stack fits the per-layer time only when asked, and it pays", "[stack_calibration]") {
  // The user's stack spends three times vLLM's per-layer time on each layer (32 × 90 µs = 2.88 ms a
  // step for Llama-3.1-8B) and reads HBM at 70 %. At one GPU η_m alone can mimic that; over TP 1
  // to 8 it cannot: the weights' read time shrinks with TP, the per-layer time does not (the
  // pattern of issue 37's small dense model).
  GpuEfficiency truth = h100_sxm().efficiency;
  truth.decode_bandwidth = 0.70;
  truth.layer_overhead = 3.0;
  const std::vector<StackRun> runs = {
      synthetic_run("a", 1024, 128, 8, truth, 1.0, 1),   synthetic_run("b", 4096, 512, 16, truth, 1.0, 2),
      synthetic_run("c", 2048, 1024, 32, truth, 1.0, 4), synthetic_run("d", 8192, 256, 4, truth, 1.0, 8),
      synthetic_run("e", 1024, 1024, 64, truth, 1.0, 2), synthetic_run("f", 2048, 256, 16, truth, 1.0, 8)};
  const EngineConfig engine = shipped_engine(EngineKind::vllm);
  const StackFit plain = fit_stack(runs, {}, h100_sxm(), engine, FitOptions{});
  CHECK(plain.fitted.layer_overhead_source == "default"); // not asked: never searched
  CHECK(plain.fitted.efficiency.layer_overhead == 1.0);
  FitOptions asked;
  asked.fit_layer_overhead = true;
  const StackFit fit = fit_stack(runs, {}, h100_sxm(), engine, asked);
  CHECK(fit.fitted.layer_overhead_source == "fitted");
  const auto tpot_of = [](const StackFit& f) {
    const auto e = std::find_if(f.loo.begin(), f.loo.end(),
                                [](const FigureError& x) { return x.kind == FigureKind::tpot; });
    REQUIRE(e != f.loo.end());
    return e->median_ape_fitted_pct;
  };
  INFO("TPOT leave-one-out: " << tpot_of(plain) << " % with eta_m alone, " << tpot_of(fit)
                              << " % with the per-layer time; fitted " << fit.fitted.efficiency.layer_overhead
                              << ", eta_m " << fit.fitted.efficiency.decode_bandwidth);
  CHECK(fit.fitted.efficiency.layer_overhead == Approx(3.0).margin(0.3));
  CHECK(tpot_of(fit) < 0.5 * tpot_of(plain));
}

TEST_CASE("implied_throughput_ratio: predicted E2E over measured E2E", "[stack_calibration][bands]") {
  // Worked example: OSL 101 → 100 decode steps. Measured E2E = 0.5 + 100 × 0.020 = 2.5 s,
  // predicted E2E = 0.4 + 100 × 0.022 = 2.6 s: at one concurrency the run served 2.6 / 2.5 = 1.04 × the
  // predicted requests/s (Little's law: requests/s = concurrency / E2E).
  CHECK(implied_throughput_ratio({0.5, 0.4}, {0.020, 0.022}, 101) == Approx(1.04));
  CHECK(implied_throughput_ratio({0.5, 0.4}, {0.020, 0.022}, 1) == Approx(0.4 / 0.5)); // no decode step
  CHECK(implied_throughput_ratio({0.0, 0.4}, {0.020, 0.022}, 101) == 0.0);             // TTFT not measured
  CHECK(implied_throughput_ratio({0.5, 0.4}, {0.020, std::nan("")}, 101) == 0.0);
}

TEST_CASE("fit_stack: a throughput band from the runs' TTFT and TPOT when they report none",
          "[stack_calibration][bands]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.62;
  const auto throughput_band = [](const StackFit& fit) {
    return std::find_if(fit.bands.begin(), fit.bands.end(),
                        [](const BandEntry& b) { return b.kind == FigureKind::throughput; });
  };
  std::vector<StackRun> runs = five_runs(truth);
  const StackFit implied =
      fit_stack(runs, {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
  const auto band = throughput_band(implied);
  REQUIRE(band != implied.bands.end());
  CHECK(band->rule == "user runs, leave-one-out" + std::string(k_implied_throughput_rule));
  CHECK(band->cases == 5);
  // The runs are the estimator's own predictions at the truth: the fitted factors recover it, so
  // every run's implied requests/s is within a few percent of the prediction.
  CHECK(band->ratio_low <= 1.0);
  CHECK(band->ratio_low > 0.95);
  CHECK(band->ratio_high < 1.05);
  // Runs that report their throughput get that figure's own band instead.
  for (StackRun& r : runs)
    r.output_tokens_per_s = 1000.0;
  const StackFit reported =
      fit_stack(runs, {}, h100_sxm(), test::shipped_engine(EngineKind::vllm), FitOptions{});
  REQUIRE(throughput_band(reported) != reported.bands.end());
  CHECK(throughput_band(reported)->rule == "user runs, leave-one-out");
}

TEST_CASE("conformal_radius: the ceil((n + 1) x coverage)-th smallest |ln r|", "[stack_calibration][bands]") {
  // Worked example: |ln r| of 1.1, 0.9, 1.3, 0.8, 1.05 = 0.095, 0.105, 0.262, 0.223, 0.049; at 80 %
  // the rank is ceil(6 x 0.8) = 5 of 5, the largest: ln 1.3, a band of 0.769..1.3.
  const double q = conformal_radius({1.1, 0.9, 1.3, 0.8, 1.05}, 0.80);
  CHECK(q == Approx(std::log(1.3)));
  CHECK(std::exp(-q) == Approx(0.769).epsilon(1e-3));
  // Ten ratios: rank ceil(11 x 0.8) = 9, the second largest score.
  const std::vector<double> ten = {1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08, 1.09, 1.5};
  CHECK(conformal_radius(ten, 0.80) == Approx(std::log(1.09)));
  CHECK(conformal_radius({}, 0.80) == 0.0);
}
