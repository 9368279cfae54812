// Calibration: error metrics, factor fitting on synthetic data with known factors, error bands
// and leave-one-out (tests/validation/README.md describes the rules tested here).
#include <cmath>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/image.hpp"

using namespace rightsize;
using namespace rightsize::test;

namespace {

// A decode-heavy throughput case on the H100 fixture whose "measurement" is the estimator's own
// prediction at a chosen efficiency.
ValidationCase synthetic(const std::string& id, std::int64_t batch, std::int64_t isl, std::int64_t osl,
                         const GpuEfficiency& truth) {
  ValidationCase c;
  c.id = id;
  c.kind = FigureKind::throughput;
  c.model = llama31_8b();
  c.gpu_id = "H100-SXM";
  c.workload.input_tokens = isl;
  c.workload.output_tokens = osl;
  c.workload.concurrency = batch;
  Gpu g = h100_sxm();
  g.efficiency = truth;
  c.measured = predict_case(c, g, EngineConfig{});
  return c;
}

ValidationCase training_case(const std::string& id, int gpus, double mfu, double decode_bandwidth) {
  ValidationCase c;
  c.id = id;
  c.kind = FigureKind::training_throughput;
  c.model = llama31_8b();
  c.gpu_id = "H100-SXM";
  c.deployment.gpus = gpus;
  c.training_seq_len = 4096;
  // Synthetic measurement: the training estimator itself at a known GEMM efficiency.
  // Its element-wise passes run at HBM × decode_bandwidth, so the truth carries the fitted one too.
  Gpu truth = h100_sxm();
  truth.efficiency.training_mfu = mfu;
  truth.efficiency.decode_bandwidth = decode_bandwidth;
  c.measured = predict_case(c, truth, EngineConfig{});
  return c;
}

// An SDXL-like UNet image case on the H100 fixture, "measured" at a known UNet GEMM fraction.
ValidationCase unet_case(const std::string& id, std::int64_t steps, double fraction) {
  ValidationCase c;
  c.id = id;
  c.kind = FigureKind::image_latency;
  c.model = llama31_8b(); // widths for activation memory only; the UNet block sets the FLOPs
  c.model.kind = ModelKind::dit;
  c.model.vocab_size = 0;
  ImagePipelineSpec& p = c.model.image;
  p.denoiser = Denoiser::unet;
  p.pixels_per_token_side = 8;
  p.text_tokens = 77;
  p.steps = steps;
  p.cfg_passes = 2;
  p.fused = true;
  p.unet_gemm_flops_per_pixel = 5'702'112.0;
  p.unet_attention = {{16, 10, 640, 5}, {32, 60, 1280, 7}};
  const ImageItem item = image_item(p);
  c.model.tokens_per_item = item.tokens;
  c.model.passes_per_item = item.passes;
  c.gpu_id = "H100-SXM";
  c.workload.concurrency = 1;
  c.model_class = "image-unet";
  Gpu g = h100_sxm();
  g.efficiency.unet_gemm_fraction = fraction;
  c.measured = predict_case(c, g, EngineConfig{});
  return c;
}

CaseResult result(FigureKind kind, const std::string& gpu, double measured, double predicted) {
  CaseResult r;
  r.kind = kind;
  r.gpu_id = gpu;
  r.model_class = "dense-small";
  r.measured = measured;
  r.predicted = r.predicted_loo = r.predicted_default = predicted;
  return r;
}

} // namespace

TEST_CASE("error metrics", "[core]") {
  CHECK(signed_error_pct(110.0, 100.0) == Approx(10.0));
  CHECK(signed_error_pct(80.0, 100.0) == Approx(-20.0));
  CHECK(ape_pct(80.0, 100.0) == Approx(20.0));
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(median({4.0, 1.0, 2.0, 3.0}) == 2.5);
  CHECK(mean({1.0, 2.0, 6.0}) == 3.0);
  CHECK(std::isnan(median({}))); // the shared median (pricing.hpp) has no value for none
  // Type-7 quantiles of 1..5 (numpy.quantile): h = 4q → p10 = 1.4, p90 = 4.6.
  CHECK(quantile({5.0, 1.0, 3.0, 2.0, 4.0}, 0.10) == Approx(1.4));
  CHECK(quantile({5.0, 1.0, 3.0, 2.0, 4.0}, 0.90) == Approx(4.6));
  CHECK(quantile({7.0}, 0.9) == 7.0);
}

TEST_CASE("closed-form 6ND training throughput matches methodology §4.2", "[core]") {
  // Llama-3.1-8B: N_mm = 8,030,261,248 − 525,336,576 (embedding gather) − 266,240 (norms)
  // = 7,504,658,432; at s = 4096 a token costs 6·N_mm + 6·32·32·128·4096 = 48.25 GFLOP; 8 H100 at
  // 40 % MFU: 8 · 989.5e12 · 0.4 / 48.25e9 ≈ 65,625 tokens/s.
  const double per_token = 6.0 * 7'504'658'432.0 + 6.0 * 32 * 32 * 128 * 4096.0;
  CHECK(per_token / 1e9 == Approx(48.25).epsilon(1e-3));
  CHECK(training_tokens_per_s_6nd(llama31_8b(), 4096, 8, 989.5, 0.4) ==
        Approx(8 * 989.5e12 * 0.4 / per_token));
}

TEST_CASE("the fit recovers a known decode bandwidth and MFU from synthetic cases", "[core]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.70;
  truth.training_mfu = 0.55;
  const std::vector<ValidationCase> cases = {
      synthetic("a", 16, 128, 2048, truth), synthetic("b", 64, 128, 2048, truth),
      synthetic("c", 1, 64, 512, truth), training_case("t1", 8, 0.55, 0.70),
      training_case("t2", 64, 0.55, 0.70)};
  const std::vector<Gpu> gpus = {h100_sxm()};
  const auto fits = fit_efficiencies(cases, gpus, EngineConfig{}, FitOptions{});
  REQUIRE(fits.size() == 2); // "*" and H100-SXM
  const FittedEfficiency& h100 = fits[1];
  CHECK(h100.gpu_id == "H100-SXM");
  CHECK(h100.efficiency.decode_bandwidth == Approx(0.70).margin(0.002));
  CHECK(h100.efficiency.training_mfu == Approx(0.55).margin(0.002));
  CHECK(h100.decode_source == "fitted");
  CHECK(h100.decode_cases == std::vector<std::string>{"a", "b", "c"});
  // No TTFT case: prefill stays at the default, taken from the cross-GPU fit.
  CHECK(h100.prefill_source == "cross_gpu");
  CHECK(h100.efficiency.prefill_compute == Approx(GpuEfficiency{}.prefill_compute));
}

TEST_CASE("the fit stays inside the plausible range", "[core]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.99; // outside 0.5–0.95
  const std::vector<ValidationCase> cases = {synthetic("a", 16, 128, 2048, truth),
                                             synthetic("b", 32, 128, 2048, truth)};
  const auto fits = fit_efficiencies(cases, {h100_sxm()}, EngineConfig{}, FitOptions{});
  CHECK(fits[1].efficiency.decode_bandwidth <= 0.95);
  CHECK(fits[1].efficiency.decode_bandwidth == Approx(0.95).margin(0.002));
}

TEST_CASE("leave-one-out predicts each case from the others", "[core]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.65;
  const std::vector<ValidationCase> cases = {synthetic("a", 8, 128, 1024, truth),
                                             synthetic("b", 32, 128, 2048, truth),
                                             synthetic("c", 64, 256, 2048, truth)};
  const auto results = evaluate_cases(cases, {h100_sxm()}, EngineConfig{}, FitOptions{});
  REQUIRE(results.size() == 3);
  for (const CaseResult& r : results) {
    CHECK(r.predicted_loo == Approx(r.measured).epsilon(0.005));
    // Default η_m 0.8 over-predicts throughput of a GPU whose true η_m is 0.65.
    CHECK(r.predicted_default > r.measured);
  }
  const auto summary = summarize(results, false);
  REQUIRE(summary.size() == 1);
  CHECK(summary[0].group == "throughput");
  CHECK(summary[0].median_ape_loo_pct < 0.5);
}

TEST_CASE("bands: p10/p90 of the ratios, widened when a GPU has few cases", "[core]") {
  std::vector<CaseResult> rs;
  // GPU "X": ratios 0.8, 0.9, 1.0, 1.1, 1.2, 1.3 (measured / predicted).
  for (double ratio : {0.8, 0.9, 1.0, 1.1, 1.2, 1.3})
    rs.push_back(result(FigureKind::ttft, "X", ratio * 100.0, 100.0));
  // GPU "Y": two cases, ratios 1.0 and 1.05.
  rs.push_back(result(FigureKind::ttft, "Y", 100.0, 100.0));
  rs.push_back(result(FigureKind::ttft, "Y", 105.0, 100.0));
  const Calibration cal = build_calibration({}, rs);

  // X has ≥ 5 cases: own type-7 quantiles, h = 5q → p10 = 0.85, p90 = 1.25.
  const Band x = band_for(cal, FigureKind::ttft, "X", 2.0);
  CHECK(x.low == Approx(2.0 * 0.85));
  CHECK(x.value == 2.0);
  CHECK(x.high == Approx(2.0 * 1.25));
  // Pooled (8 ratios: 0.8 0.9 1.0 1.0 1.05 1.1 1.2 1.3): p10 = 0.87, p90 = 1.23.
  const Band pooled = band_for(cal, FigureKind::ttft, "unknown-gpu", 1.0);
  CHECK(pooled.low == Approx(0.87));
  CHECK(pooled.high == Approx(1.23));
  // Y has 2 cases: envelope of its own [1.0, 1.05] and the pooled band, log-ratios stretched by
  // 1 + 0.1·3 = 1.3: [0.87^1.3, 1.23^1.3].
  const Band y = band_for(cal, FigureKind::ttft, "Y", 1.0);
  CHECK(y.low == Approx(std::pow(0.87, 1.3)));
  CHECK(y.high == Approx(std::pow(1.23, 1.3)));
  // A kind without any case: the ×0.5–×2 default.
  const Band none = band_for(cal, FigureKind::memory, "X", 10.0);
  CHECK(none.low == Approx(5.0));
  CHECK(none.high == Approx(20.0));
  // Model class with 8 cases needs no widening; an unseen class has its log-ratios stretched ×1.5.
  CHECK(band_for(cal, FigureKind::ttft, "X", 2.0, "dense-small").high == Approx(x.high));
  CHECK(band_for(cal, FigureKind::ttft, "X", 2.0, "moe").high == Approx(2.0 * std::pow(1.25, 1.5)));
  CHECK(band_for(cal, FigureKind::ttft, "X", 2.0, "moe").low == Approx(2.0 * std::pow(0.85, 1.5)));
  // class_width says which: the measured class's own factor, the unseen class's 1 + 0.10 × 5.
  CHECK(class_width(cal, "dense-small").measured);
  CHECK(class_width(cal, "dense-small").factor == Approx(1.0));
  CHECK_FALSE(class_width(cal, "moe").measured);
  CHECK(class_width(cal, "moe").factor == Approx(1.5));
}

TEST_CASE("an open loop's latencies inform no factor and no band; its throughput does", "[core]") {
  GpuEfficiency truth;
  truth.decode_bandwidth = 0.70;
  std::vector<ValidationCase> cases = {synthetic("a", 16, 128, 2048, truth),
                                       synthetic("b", 64, 128, 2048, truth),
                                       synthetic("c", 1, 64, 512, truth)};
  // A Poisson run's TPOT measured 5× the prediction at the true factor (a run near its capacity):
  // were it fitted, the decode bandwidth would leave 0.70.
  ValidationCase open = synthetic("open", 0, 222, 290, truth);
  open.kind = FigureKind::tpot;
  open.workload.arrival = Arrival::poisson;
  open.workload.request_rate_per_s = 20.0;
  Gpu g = h100_sxm();
  g.efficiency = truth;
  open.measured = 5.0 * predict_case(open, g, EngineConfig{});
  cases.push_back(open);
  const auto fits = fit_efficiencies(cases, {h100_sxm()}, EngineConfig{}, FitOptions{});
  CHECK(fits[1].decode_cases == std::vector<std::string>{"a", "b", "c"});
  CHECK(fits[1].efficiency.decode_bandwidth == Approx(0.70).margin(0.002));

  // Bands: GPU X's six closed-loop TTFT ratios 0.8 … 1.3 give p10 0.85, p90 1.25 (the test above);
  // an open-loop TTFT at ratio 5 leaves them so, an open-loop throughput at 0.5 joins its kind.
  std::vector<CaseResult> rs;
  for (double ratio : {0.8, 0.9, 1.0, 1.1, 1.2, 1.3})
    rs.push_back(result(FigureKind::ttft, "X", ratio * 100.0, 100.0));
  CaseResult slow = result(FigureKind::ttft, "X", 500.0, 100.0);
  slow.open_loop = true;
  rs.push_back(slow);
  CaseResult served = result(FigureKind::throughput, "X", 50.0, 100.0);
  served.open_loop = true;
  rs.push_back(served);
  const Calibration cal = build_calibration({}, rs);
  CHECK(band_for(cal, FigureKind::ttft, "X", 1.0).low == Approx(0.85));
  CHECK(band_for(cal, FigureKind::ttft, "X", 1.0).high == Approx(1.25));
  // One throughput case (ratio 0.5): with the pooled default ×0.5–×2 (one case pools none), the
  // envelope [0.5, 2] stretched by 1 + 0.1·4 in log-ratio.
  CHECK(band_for(cal, FigureKind::throughput, "X", 1.0).low == Approx(std::pow(0.5, 1.4)));
  CHECK(band_for(cal, FigureKind::throughput, "X", 1.0).high == Approx(std::pow(2.0, 1.4)));
}

TEST_CASE("figure kinds round-trip through their names", "[core]") {
  for (std::size_t k = 0; k < k_figure_kind_count; ++k) {
    const auto kind = static_cast<FigureKind>(k);
    CHECK(parse_figure_kind(to_string(kind)) == kind);
  }
  CHECK(parse_figure_kind("inference_throughput") == FigureKind::throughput);
  CHECK_FALSE(parse_figure_kind("latency").has_value());
}

TEST_CASE("one UNet GEMM fraction is fitted over the UNet cases, with leave-one-out", "[core]") {
  // Three UNet timings "measured" at 0.6 of η_f: the fit finds 0.6, writes it on every GPU's
  // entry and names the cases on the pooled one.
  const std::vector<ValidationCase> cases = {unet_case("u20", 20, 0.6), unet_case("u30", 30, 0.6),
                                             unet_case("u50", 50, 0.6)};
  const auto fits = fit_efficiencies(cases, {h100_sxm()}, EngineConfig{}, FitOptions{});
  REQUIRE(fits.size() == 2);
  CHECK(fits[0].efficiency.unet_gemm_fraction == Approx(0.6).margin(0.002));
  CHECK(fits[1].efficiency.unet_gemm_fraction == Approx(0.6).margin(0.002));
  CHECK(fits[0].unet_cases == std::vector<std::string>{"u20", "u30", "u50"});
  CHECK(fits[1].unet_cases.empty());
  // The image cases inform no other factor.
  CHECK(fits[1].prefill_cases.empty());
  const auto results = evaluate_cases(cases, {h100_sxm()}, EngineConfig{}, FitOptions{});
  for (const CaseResult& r : results) {
    CHECK(r.predicted_loo == Approx(r.measured).epsilon(0.005)); // fitted from the other two
    CHECK(r.predicted_default < r.measured);                     // the large-GEMM rate is too fast
  }
  // Never above the large-GEMM rate: cases faster than it pin the fraction at 1.
  const auto capped = fit_efficiencies({unet_case("f1", 20, 1.4), unet_case("f2", 30, 1.4)}, {h100_sxm()},
                                       EngineConfig{}, FitOptions{});
  CHECK(capped[0].efficiency.unet_gemm_fraction <= 1.0);
  CHECK(capped[0].efficiency.unet_gemm_fraction == Approx(1.0).margin(0.002));
  // Without UNet cases nothing is fitted: the large-GEMM rate stands.
  GpuEfficiency truth;
  const auto none =
      fit_efficiencies({synthetic("a", 16, 128, 2048, truth)}, {h100_sxm()}, EngineConfig{}, FitOptions{});
  CHECK(none[0].efficiency.unet_gemm_fraction == 1.0);
  CHECK(none[0].unet_cases.empty());
}

TEST_CASE("image latency is banded per image class; other kinds pool their classes", "[core]") {
  std::vector<CaseResult> rs;
  // DiT ("image") ratios 0.95..1.15 and UNet ("image-unet") ratios 0.7..1.3, all on GPU "X".
  for (double ratio : {0.95, 1.0, 1.05, 1.1, 1.15}) {
    rs.push_back(result(FigureKind::image_latency, "X", ratio * 10.0, 10.0));
    rs.back().model_class = "image";
  }
  for (double ratio : {0.7, 0.85, 1.0, 1.15, 1.3}) {
    rs.push_back(result(FigureKind::image_latency, "X", ratio * 10.0, 10.0));
    rs.back().model_class = "image-unet";
  }
  rs.push_back(result(FigureKind::ttft, "X", 100.0, 100.0)); // dense-small
  const Calibration cal = build_calibration({}, rs);
  // Type-7 quantiles of each class's five ratios, h = 4q: DiT p10 0.97, p90 1.13; UNet 0.76, 1.24.
  const Band dit = band_for(cal, FigureKind::image_latency, "X", 1.0, "image");
  CHECK(dit.low == Approx(0.97));
  CHECK(dit.high == Approx(1.13));
  const Band unet = band_for(cal, FigureKind::image_latency, "X", 1.0, "image-unet");
  CHECK(unet.low == Approx(0.76));
  CHECK(unet.high == Approx(1.24));
  // The pooled entry of each class serves a GPU without cases of its own.
  CHECK(band_for(cal, FigureKind::image_latency, "Z", 1.0, "image-unet").high == Approx(1.24));
  int image_entries = 0;
  for (const BandEntry& b : cal.bands) {
    if (b.kind == FigureKind::image_latency) {
      CHECK_FALSE(b.model_class.empty());
      ++image_entries;
    } else {
      CHECK(b.model_class.empty()); // every other kind: one band over its classes
    }
  }
  CHECK(image_entries == 4); // "*" and "X" per class
  // Both classes are measured, so neither is widened as unseen.
  CHECK(class_width(cal, "image-unet").measured);
  CHECK(class_width(cal, "image-unet").factor == Approx(1.0));
}

TEST_CASE("a class band fitted on a GPU's serving rows of that class is not widened again", "[core]") {
  // One case-based band (class "", ratios 0.8–1.25 on "X") and the class widening of an unseen
  // "moe" (×1.5 on the log-ratios), then a serving-rows band for MoE on "X": p10 0.6, p90 1.8.
  std::vector<CaseResult> rs;
  for (double ratio : {0.8, 0.9, 1.0, 1.1, 1.2, 1.3})
    rs.push_back(result(FigureKind::ttft, "X", ratio * 100.0, 100.0));
  Calibration cal = build_calibration({}, rs);
  const double widened_high = band_for(cal, FigureKind::ttft, "X", 2.0, "moe").high;
  CHECK(widened_high == Approx(2.0 * std::pow(1.25, 1.5)));
  BandEntry moe;
  moe.kind = FigureKind::ttft;
  moe.gpu_id = "X";
  moe.model_class = "moe";
  moe.ratio_low = 0.6;
  moe.ratio_high = 1.8;
  moe.cases = 300;
  moe.rule = "serving rows";
  cal.bands.push_back(moe);
  // The class's own rows: 2 s → 1.2–3.6 s, as fitted.
  const Band own = band_for(cal, FigureKind::ttft, "X", 2.0, "moe");
  CHECK(own.low == Approx(1.2));
  CHECK(own.high == Approx(3.6));
  // Another GPU has no MoE rows: the pooled case band, widened for the class as before.
  CHECK(band_for(cal, FigureKind::ttft, "Y", 2.0, "moe").high ==
        Approx(2.0 * std::pow(band_for(cal, FigureKind::ttft, "Y", 1.0).high, 1.5)));
  // The same entry under another rule (case-based) is widened: only measured rows of the class count.
  cal.bands.back().rule = "own";
  CHECK(band_for(cal, FigureKind::ttft, "X", 2.0, "moe").high == Approx(2.0 * std::pow(1.8, 1.5)));
}
