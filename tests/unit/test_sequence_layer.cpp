// The per-sequence decode time (GpuEfficiency::decode_sequence_layer_s, methodology §3
// "per-sequence time"): what it adds to a decode step, hand-computed; where the calibration puts it;
// that it survives data/calibration.json; and the closed-form fit of the accuracy report.
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "calibrate_fixtures.hpp"
#include "core/estimate/inference_detail.hpp"
#include "fixtures.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/calibration.hpp"
#include "sequence_layer_fit.hpp"

using namespace rightsize;

namespace {

// One decode round of Llama-3.1-8B (32 layers) at TP `tp` on an H100 fixture whose per-sequence
// time is `t_seq_s`, `batch` sequences at a 1,000-token context.
double decode_round_s(int tp, double t_seq_s, double batch) {
  const PreparedModel pm = prepare_model(test::llama31_8b(), Precision{});
  Gpu gpu = test::h100_sxm();
  gpu.efficiency.decode_sequence_layer_s = t_seq_s;
  InferenceWorkload w;
  w.concurrency = static_cast<std::int64_t>(batch);
  Deployment dep;
  dep.gpus = dep.tp = tp;
  const EngineConfig engine;
  InferenceEstimate est;
  const detail::EstimateInputs in{pm, w, gpu, dep, engine, gpu.efficiency, 1.0};
  const detail::Setup s = detail::make_setup(in, est);
  return detail::decode_time(s, batch, 1000.0).total_s;
}

Gpu cdna(const char* id, const char* architecture) {
  Gpu g = test::h100_sxm();
  g.id = id;
  g.vendor = "amd";
  g.architecture = architecture;
  g.efficiency.provenance = "defaults";
  return g;
}

// A calibration entry whose per-sequence time was fitted to `cases`.
FittedEfficiency sequence_fit(const char* id, double t_seq_s, std::vector<std::string> cases) {
  FittedEfficiency f;
  f.gpu_id = id;
  f.efficiency.decode_sequence_layer_s = t_seq_s;
  f.sequence_layer_source = "fitted";
  f.sequence_layer_cases = std::move(cases);
  return f;
}

} // namespace

TEST_CASE("per-sequence time: bm·L·t_seq on every replica, TP 1 included", "[core][estimate]") {
  // 64 sequences × 32 layers × 1.25 µs = 2.56 ms at TP 2 (every GPU of the group passes them all).
  CHECK(decode_round_s(2, 1.25e-6, 64.0) - decode_round_s(2, 0.0, 64.0) == Approx(2.56e-3));
  // Twice the batch, twice the time: 5.12 ms.
  CHECK(decode_round_s(2, 1.25e-6, 128.0) - decode_round_s(2, 0.0, 128.0) == Approx(5.12e-3));
  // TP 1: the one GPU passes the same 64 sequences through the same 32 layers, 2.56 ms.
  CHECK(decode_round_s(1, 1.25e-6, 64.0) - decode_round_s(1, 0.0, 64.0) == Approx(2.56e-3));
}

TEST_CASE("per-sequence time: a GPU's own fit, else its architecture's, never across generations",
          "[calibration]") {
  Calibration cal;
  cal.gpus = {sequence_fit("MI300X", 1.25e-6, {"a", "b", "c"})};
  std::vector<Gpu> gpus{cdna("MI300X", "CDNA 3"), cdna("MI325X", "CDNA 3"), cdna("MI355X", "CDNA 4"),
                        test::h100_sxm()};
  apply_calibration(cal, gpus);
  CHECK(gpus[0].efficiency.decode_sequence_layer_s == Approx(1.25e-6));
  CHECK(gpus[0].efficiency.provenance.find("per-sequence decode time fitted (3 cases)") != std::string::npos);
  CHECK(gpus[1].efficiency.decode_sequence_layer_s == Approx(1.25e-6)); // same silicon
  CHECK(gpus[1].efficiency.provenance.find("per-sequence decode time extrapolated from CDNA 3 siblings") !=
        std::string::npos);
  CHECK(gpus[2].efficiency.decode_sequence_layer_s == 0.0); // another generation of the family
  CHECK(gpus[2].efficiency.provenance.find("per-sequence") == std::string::npos);
  CHECK(gpus[3].efficiency.decode_sequence_layer_s == 0.0);
}

TEST_CASE("a fitted per-sequence time round-trips through calibration.json; unfitted entries omit it",
          "[io]") {
  Calibration cal;
  const FittedEfficiency mi300x = sequence_fit("MI300X", 1.24837e-6, {"case-1", "case-2"});
  FittedEfficiency h100;
  h100.gpu_id = "H100-SXM";
  cal.gpus = {mi300x, h100};
  const std::string written = io::calibration_to_json(cal);
  CHECK(written.find("\"decode_sequence_layer_s\": 1.248e-06") != std::string::npos); // 4 significant digits
  const Calibration back = test::calibration_round_trip(written, "rightsize_test_calibration_sequence.json");
  REQUIRE(back.gpus.size() == 2);
  CHECK(back.gpus[0].efficiency.decode_sequence_layer_s == Approx(1.248e-6));
  CHECK(back.gpus[0].sequence_layer_source == "fitted");
  CHECK(back.gpus[0].sequence_layer_cases == mi300x.sequence_layer_cases);
  CHECK(back.gpus[1].efficiency.decode_sequence_layer_s == 0.0);
  CHECK(back.gpus[1].sequence_layer_source == "default");
  CHECK(back.gpus[1].sequence_layer_cases.empty());
}

TEST_CASE("the per-sequence fit: least squares of the relative error, worked by hand", "[bench]") {
  // Two cases, predicted 8 s and 15 s at t_seq = 0, measured 10 s and 20 s, slopes 2e6 and 4e6 s per
  // s of t_seq: t = Σ s(m − p0)/m² / Σ s²/m² = (2e6·2/100 + 4e6·5/400) / (4e12/100 + 16e12/400)
  // = 9e4 / 8e10 = 1.125 µs, which leaves them at +2.5 % and −2.5 %.
  const bench::SequenceLayerCase a{10.0, 8.0, 2e6, "m1", "b1"};
  const bench::SequenceLayerCase b{20.0, 15.0, 4e6, "m2", "b1"};
  CHECK(bench::fit_sequence_layer_s({&a, &b}) == Approx(1.125e-6));
  const ServingErrorSummary at_zero = bench::sequence_layer_figures({&a, &b}, 0.0);
  CHECK(at_zero.median_ape_pct == Approx(22.5)); // 20 % and 25 %
  CHECK(at_zero.within_25_pct == Approx(100.0));
  const ServingErrorSummary fitted = bench::sequence_layer_figures({&a, &b}, 1.125e-6);
  CHECK(fitted.median_ape_pct == Approx(2.5));
  // Cases already predicted too slow would want a negative time: the fit stops at 0.
  const bench::SequenceLayerCase slow{10.0, 12.0, 2e6, "m1", "b1"};
  CHECK(bench::fit_sequence_layer_s({&slow}) == 0.0);
}
