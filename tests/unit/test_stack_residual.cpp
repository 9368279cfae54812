// Residuals of a calibrate stack (docs/calibration.md "Residuals"): fitted to runs whose measured
// figures are the estimator's own predictions times a known multiplier, and applied to an estimate
// by hand-computed worked examples.
#include <cmath>

#include <catch2/catch.hpp>

#include "calibrate_fixtures.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/stack_calibration.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// A run whose measured TTFT is the prediction times exp(a + b·ln C) and whose TPOT is the
// prediction itself; named as its preset (a residual's stack is keyed by the model's name).
StackRun biased_run(const std::string& id, std::int64_t isl, std::int64_t concurrency, double a, double b) {
  StackRun r = synthetic_run(id, isl, 256, concurrency, h100_sxm().efficiency,
                             std::exp(a + b * std::log(static_cast<double>(concurrency))));
  r.model.name = "llama-3.1-8b";
  return r;
}

} // namespace

TEST_CASE("fit_residuals recovers a known load-dependent bias and leaves an unbiased figure alone",
          "[stack_calibration][residual]") {
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  REQUIRE(engine.kind == "vllm");
  // TTFT measured at exp(0.3 + 0.2·ln C) × the prediction; TPOT exactly predicted.
  const std::vector<StackRun> runs = {biased_run("a", 1024, 1, 0.3, 0.2), biased_run("b", 2048, 4, 0.3, 0.2),
                                      biased_run("c", 4096, 8, 0.3, 0.2), biased_run("d", 1024, 16, 0.3, 0.2),
                                      biased_run("e", 2048, 32, 0.3, 0.2)};
  const std::vector<StackResidual> fits = fit_residuals(runs, h100_sxm(), engine);
  REQUIRE(fits.size() == 1);
  const StackResidual& r = fits.front();
  CHECK(r.model == "llama-3.1-8b");
  CHECK(r.weights == "bf16");
  CHECK(r.engine == "vllm");
  CHECK(r.runs == 5);
  CHECK(r.concurrency_min == 1);
  CHECK(r.concurrency_max == 32);
  CHECK(r.input_max == 4096);
  // a + b·ln C fits exactly, so leave-one-out selects it (a third term cannot beat 0 error).
  REQUIRE(r.ttft.coefficients.size() == 2);
  CHECK(r.ttft.coefficients[0] == Approx(0.3).margin(1e-6));
  CHECK(r.ttft.coefficients[1] == Approx(0.2).margin(1e-6));
  CHECK(r.ttft.loo_after_pct == Approx(0.0).margin(1e-6));
  CHECK(r.ttft.loo_before_pct > 50.0); // exp(0.3 + 0.2 ln 8) − 1 = 1.05 at the median run
  CHECK(r.tpot.coefficients.empty());
}

TEST_CASE("fit_residuals needs k_min_residual_runs runs of one stack", "[stack_calibration][residual]") {
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  const std::vector<StackRun> two = {biased_run("a", 1024, 1, 0.3, 0.0), biased_run("b", 2048, 4, 0.3, 0.0)};
  CHECK(fit_residuals(two, h100_sxm(), engine).empty());
}

TEST_CASE("apply_stack_residual: a worked example, clamping and reach", "[stack_calibration][residual]") {
  Gpu gpu = h100_sxm();
  StackResidual r;
  r.model = "llama-3.1-8b";
  r.weights = "bf16";
  r.engine = "vllm";
  r.concurrency_min = 4;
  r.concurrency_max = 32;
  r.input_min = 512;
  r.input_max = 2048;
  r.runs = 5;
  r.ttft.coefficients = {std::log(1.5)}; // TTFT × 1.5 everywhere
  r.tpot.coefficients = {0.0, 0.1};      // TPOT × C^0.1
  gpu.residuals = {r};
  ModelSpec m = llama31_8b();
  m.name = "llama-3.1-8b";
  const PreparedModel pm = prepare_model(m, Precision{});
  const Deployment dep;
  EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  InferenceWorkload w;
  w.input_tokens = 1024;
  w.output_tokens = 100;

  // TTFT 0.2 s, TPOT 10 ms, OSL 100: e2e = 0.2 + 99 × 0.01 = 1.19 s; 8 clients.
  const auto base = [] {
    InferenceEstimate e;
    e.concurrency = 8;
    e.ttft_s = 0.2;
    e.tpot_s = 0.01;
    e.e2e_s = 1.19;
    e.ttft = {0.18, 0.3, 0.4};
    e.output_tokens_per_s = 672.0; // 8 × 100 / 1.19
    e.requests_per_s = 6.72;
    e.capacity_output_tokens_per_s = 672.0;
    e.capacity_requests_per_s = 6.72;
    return e;
  };
  InferenceEstimate e = base();
  apply_stack_residual(pm, gpu, dep, engine, w, e);
  REQUIRE(e.residual.applied);
  // 8^0.1 = 1.231144; e2e = 0.3 + 0.99 × 1.231144 = 1.518833 s; throughput × 1.19 / 1.518833.
  CHECK(e.residual.ttft == Approx(1.5));
  CHECK(e.residual.tpot == Approx(1.231144).epsilon(1e-6));
  CHECK(e.ttft_s == Approx(0.3));
  CHECK(e.ttft.p99_s == Approx(0.6));
  CHECK(e.tpot_s == Approx(0.01231144).epsilon(1e-6));
  CHECK(e.e2e_s == Approx(1.518833).epsilon(1e-6));
  CHECK(e.output_tokens_per_s == Approx(672.0 * 1.19 / 1.518833).epsilon(1e-6));

  // 50 clients: beyond the runs' 32 but within ×2, so C is clamped to 32: 32^0.1 = 1.414214.
  e = base();
  e.concurrency = 50;
  apply_stack_residual(pm, gpu, dep, engine, w, e);
  REQUIRE(e.residual.applied);
  CHECK(e.residual.tpot == Approx(1.414214).epsilon(1e-6));

  // 100 clients: beyond ×2 of 32, so nothing applies and the estimate says why.
  e = base();
  e.concurrency = 100;
  apply_stack_residual(pm, gpu, dep, engine, w, e);
  CHECK_FALSE(e.residual.applied);
  CHECK(e.residual.outside_range);
  CHECK(e.ttft_s == 0.2);

  // Another stack (engine, layout) is untouched.
  e = base();
  EngineConfig sglang = test::shipped_engine(EngineKind::sglang);
  apply_stack_residual(pm, gpu, dep, sglang, w, e);
  CHECK_FALSE(e.residual.applied);
  CHECK_FALSE(e.residual.outside_range);
  Deployment tp2;
  tp2.gpus = tp2.tp = 2;
  apply_stack_residual(pm, gpu, tp2, engine, w, e);
  CHECK_FALSE(e.residual.applied);
}

TEST_CASE("fit_stack scores held-out runs with the residual it fitted", "[stack_calibration][residual]") {
  const EngineConfig engine = test::shipped_engine(EngineKind::vllm);
  const std::vector<StackRun> fit = {biased_run("a", 1024, 1, 0.3, 0.2), biased_run("b", 2048, 4, 0.3, 0.2),
                                     biased_run("c", 4096, 8, 0.3, 0.2), biased_run("d", 1024, 16, 0.3, 0.2),
                                     biased_run("e", 2048, 32, 0.3, 0.2)};
  const std::vector<StackRun> held = {biased_run("f", 2048, 2, 0.3, 0.2),
                                      biased_run("g", 1024, 24, 0.3, 0.2)};
  const StackFit s = fit_stack(fit, held, h100_sxm(), engine, FitOptions{});
  REQUIRE_FALSE(s.residuals.empty());
  std::size_t compared = 0;
  for (const FigureError& e : s.holdout) {
    if (e.kind != FigureKind::ttft) continue;
    ++compared;
    CHECK(e.median_ape_shipped_pct > 30.0); // |1/1.556 − 1| = 36 %, |1/2.55 − 1| = 61 %
    CHECK(e.median_ape_fitted_pct < 10.0);  // the factor fit moves η_f; the residual takes the load term
  }
  REQUIRE(compared == 1); // the held-out TTFT row exists: the checks above ran
}
