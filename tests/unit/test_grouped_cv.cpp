// The grouped cross-validation of the accuracy report (bench/grouped_cv.hpp, docs/accuracy.md
// "Grouped cross-validation"), worked by hand on five rows: each group is held out in turn, the fit
// sees only the other groups' rows, and the held-out rows are predicted by that fit.
#include <cstddef>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "grouped_cv.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/serving_validation.hpp"

using namespace rightsize;

namespace {

ServingRun row(const std::string& id, const std::string& model, const std::string& gpu, double ttft_s) {
  ServingRun r;
  r.id = id;
  r.engine = "vllm";
  r.engine_version = "0.12.0";
  r.mode = "agg";
  r.preset = model;
  r.gpu_id = gpu;
  r.ttft_s = ttft_s;
  r.tpot_s = ttft_s;
  r.input_tokens = 1024;
  r.output_tokens = 128;
  r.concurrency = 8;
  return r;
}

// Five rows, every raw (unfitted) prediction 1 s, so measured / raw is the measured value:
//   GPU X: model a 1.0, b 1.3, c 2.0;  GPU Y: model a 0.9, b 1.1.
std::vector<ServingRun> toy_rows() {
  return {row("Xa", "a", "X", 1.0), row("Xb", "b", "X", 1.3), row("Xc", "c", "X", 2.0),
          row("Ya", "a", "Y", 0.9), row("Yb", "b", "Y", 1.1)};
}

// The toy fit, a per-GPU factor like the serving factors: the median of measured / raw over the
// GPU's rows the fold keeps (1 when it keeps none); prediction = raw × factor, band [0.8, 1.25] × it.
struct ToyFit {
  const std::vector<ServingRun>* runs;
  std::map<std::string, std::vector<std::string>>* seen; // fold -> the rows its fit saw

  std::vector<ServingResult> operator()(const std::string& fold, const bench::RowExcluded& held_out) const {
    std::map<std::string, std::vector<double>> ratios;
    for (const ServingRun& r : *runs) {
      if (held_out(r)) continue;
      ratios[r.gpu_id].push_back(r.ttft_s / 1.0);
      (*seen)[fold].push_back(r.id);
    }
    std::vector<ServingResult> out;
    for (const ServingRun& r : *runs) {
      if (!held_out(r)) continue;
      const auto it = ratios.find(r.gpu_id);
      const double factor = it == ratios.end() ? 1.0 : quantile(it->second, 0.5);
      ServingResult p;
      p.run = &r;
      p.ttft_pred_s = p.tpot_pred_s = 1.0 * factor;
      p.ttft_low_s = p.tpot_low_s = 0.8 * factor;
      p.ttft_high_s = p.tpot_high_s = 1.25 * factor;
      out.push_back(p);
    }
    return out;
  }
};

ServingResult named(const ServingRun& r) {
  ServingResult p;
  p.run = &r;
  return p;
}

// The in-sample set only names the rows (their predictions play no part in the folds).
std::vector<ServingResult> in_sample(const std::vector<ServingRun>& runs) {
  std::vector<ServingResult> out;
  out.reserve(runs.size());
  for (const ServingRun& r : runs)
    out.push_back(named(r));
  return out;
}

std::map<std::string, double> predicted_by_id(const std::vector<ServingResult>& results) {
  std::map<std::string, double> out;
  for (const ServingResult& r : results)
    out[r.run->id] = r.ttft_pred_s;
  return out;
}

ServingErrorSummary ttft_summary(const std::vector<ServingResult>& results) {
  std::vector<const ServingResult*> rows;
  rows.reserve(results.size());
  for (const ServingResult& r : results)
    rows.push_back(&r);
  return summarize_serving("", rows, true);
}

} // namespace

TEST_CASE("leave one model out: each model's rows predicted by the factors of the other models' rows",
          "[bench][grouped_cv]") {
  const std::vector<ServingRun> runs = toy_rows();
  std::map<std::string, std::vector<std::string>> seen;
  const bench::CvGrouping lomo = bench::cv_groupings()[0];
  REQUIRE(lomo.suffix == "lomo");
  const std::vector<ServingResult> cv = bench::grouped_results(in_sample(runs), lomo, ToyFit{&runs, &seen});

  // Fold a keeps Xb, Xc (X: median(1.3, 2.0) = 1.65) and Yb (Y: 1.1); fold b keeps Xa, Xc (1.5) and
  // Ya (0.9); fold c keeps Xa, Xb (1.15) and both Y rows.
  CHECK(seen["a"] == std::vector<std::string>{"Xb", "Xc", "Yb"});
  CHECK(seen["b"] == std::vector<std::string>{"Xa", "Xc", "Ya"});
  CHECK(seen["c"] == std::vector<std::string>{"Xa", "Xb", "Ya", "Yb"});
  const std::map<std::string, double> pred = predicted_by_id(cv);
  REQUIRE(pred.size() == 5);
  CHECK(pred.at("Xa") == Approx(1.65));
  CHECK(pred.at("Ya") == Approx(1.1));
  CHECK(pred.at("Xb") == Approx(1.5));
  CHECK(pred.at("Yb") == Approx(0.9));
  CHECK(pred.at("Xc") == Approx(1.15));

  // Errors: Xa +65 %, Ya +22.2 %, Xb +15.4 %, Yb −18.2 %, Xc −42.5 %. Median abs. 22.2 % (200/9),
  // median signed +15.4 % (200/13), within 25 %: Ya, Xb, Yb = 3 of 5; inside [0.8, 1.25] × the
  // prediction: Ya [0.88, 1.375], Xb [1.2, 1.875], Yb [0.72, 1.125] = 3 of 5 (Xa and Xc are outside).
  const ServingErrorSummary s = ttft_summary(cv);
  CHECK(s.rows == 5);
  CHECK(s.median_ape_pct == Approx(200.0 / 9.0));
  CHECK(s.median_signed_pct == Approx(200.0 / 13.0));
  CHECK(s.within_25_pct == Approx(60.0));
  CHECK(s.band_coverage_pct == Approx(60.0));
}

TEST_CASE("leave one GPU out: a GPU held out keeps no factor of its own", "[bench][grouped_cv]") {
  const std::vector<ServingRun> runs = toy_rows();
  std::map<std::string, std::vector<std::string>> seen;
  const bench::CvGrouping logo = bench::cv_groupings()[1];
  REQUIRE(logo.suffix == "logo");
  const std::vector<ServingResult> cv = bench::grouped_results(in_sample(runs), logo, ToyFit{&runs, &seen});
  CHECK(seen["X"] == std::vector<std::string>{"Ya", "Yb"});
  CHECK(seen["Y"] == std::vector<std::string>{"Xa", "Xb", "Xc"});
  // Factor 1 everywhere: errors Xa 0 %, Xb −23.1 %, Xc −50 %, Ya +11.1 %, Yb −9.1 %; median abs.
  // 11.1 % (100/9), median signed −9.1 % (−100/11), within 25 %: 4 of 5.
  const ServingErrorSummary s = ttft_summary(cv);
  CHECK(s.median_ape_pct == Approx(100.0 / 9.0));
  CHECK(s.median_signed_pct == Approx(-100.0 / 11.0));
  CHECK(s.within_25_pct == Approx(80.0));
}

TEST_CASE("grouped results refuse folds that miss a row or predict one outside the fold",
          "[bench][grouped_cv]") {
  const std::vector<ServingRun> runs = toy_rows();
  const bench::CvGrouping lomo = bench::cv_groupings()[0];
  const auto drops_xc = [&runs](const std::string&, const bench::RowExcluded& held_out) {
    std::vector<ServingResult> out;
    for (const ServingRun& r : runs)
      if (held_out(r) && r.id != "Xc") out.push_back(named(r));
    return out;
  };
  CHECK_THROWS_AS(bench::grouped_results(in_sample(runs), lomo, drops_xc), std::logic_error);
  const auto predicts_all = [&runs](const std::string&, const bench::RowExcluded&) {
    std::vector<ServingResult> out;
    out.reserve(runs.size());
    for (const ServingRun& r : runs)
      out.push_back(named(r));
    return out;
  };
  CHECK_THROWS_AS(bench::grouped_results(in_sample(runs), lomo, predicts_all), std::logic_error);
}

TEST_CASE("engine versions: a row without one groups with its engine's other unversioned rows",
          "[bench][grouped_cv]") {
  ServingRun r = row("r", "a", "X", 1.0);
  CHECK(bench::engine_version_key(r) == "vllm 0.12.0");
  r.engine_version.clear();
  CHECK(bench::engine_version_key(r) == "vllm (version not given)");
}

TEST_CASE("a validation case that copies a serving row is found by its layout, lengths and measurement",
          "[bench][grouped_cv]") {
  const std::vector<ServingRun> runs = toy_rows();
  ValidationCase c;
  c.kind = FigureKind::ttft;
  c.gpu_id = "X";
  c.deployment.tp = 1;
  c.deployment.pp = 1;
  c.workload.input_tokens = 1024;
  c.workload.output_tokens = 128;
  c.workload.concurrency = 8;
  c.measured = 1.304; // Xb's 1.3 s to 0.3 %
  CHECK(bench::copied_row(c, runs) == 1);
  c.measured = 1.32; // 1.5 % off: another measurement
  CHECK(bench::copied_row(c, runs) == runs.size());
  c.measured = 1.3;
  c.workload.concurrency = 16;
  CHECK(bench::copied_row(c, runs) == runs.size());
  c.workload.concurrency = 8;
  c.kind = FigureKind::throughput;
  CHECK(bench::copied_row(c, runs) == runs.size());
}

TEST_CASE("ablation verdicts: better by half a point somewhere and nowhere worse pays",
          "[bench][grouped_cv]") {
  CHECK(std::string(bench::ablation_verdict({{0.6, 0.0, -0.4}})) == "pays");
  CHECK(std::string(bench::ablation_verdict({{0.6, -0.7}})) == "mixed");
  CHECK(std::string(bench::ablation_verdict({{0.4, -3.0}})) == "does not pay");
  CHECK(std::string(bench::ablation_verdict({{0.0, 0.0}})) == "does not pay");
}
