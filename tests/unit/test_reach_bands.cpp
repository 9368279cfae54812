// Bands by reach (issue 37 item 3; docs/accuracy.md "Bands by reach"), worked by hand: the reach
// bands from held-out residuals (bench/reach_bands.hpp), each GPU's reach (core::assign_reach) and
// the band an estimate takes at its reach (core::band_for).
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "reach_bands.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/serving_validation.hpp"

using namespace rightsize;

namespace {

Gpu gpu(const std::string& id, const std::string& architecture) {
  Gpu g;
  g.id = id;
  g.architecture = architecture;
  return g;
}

// GPUs P1 and P2 share the family Alpha; Q1 is alone in Beta.
std::vector<Gpu> toy_gpus() {
  return {gpu("P1", "Alpha X"), gpu("P2", "Alpha Y"), gpu("Q1", "Beta")};
}

// `count` rows on `gpu_id` whose ln(measured / predicted) run from `first` by `step` (predicted 1 s).
void add_rows(std::vector<ServingRun>& runs, const std::string& gpu_id, int count, double first,
              double step) {
  for (int i = 0; i < count; ++i) {
    ServingRun r;
    r.id = gpu_id + std::to_string(i);
    r.mode = "agg";
    r.gpu_id = gpu_id;
    r.tp = 1;
    r.pp = 1;
    r.ttft_s = std::exp(first + step * i);
    r.tpot_s = r.ttft_s;
    runs.push_back(r);
  }
}

std::vector<ServingResult> results_of(const std::vector<ServingRun>& runs) {
  std::vector<ServingResult> out;
  for (const ServingRun& r : runs) {
    ServingResult x;
    x.run = &r;
    x.ttft_pred_s = 1.0;
    x.tpot_pred_s = 1.0;
    out.push_back(x);
  }
  return out;
}

// Checks a band's two ends.
void check_ends(const Band& b, double low, double high) {
  CHECK(b.low == Approx(low));
  CHECK(b.high == Approx(high));
}

// A calibration with serving-row TTFT bands on P1 alone.
Calibration rows_on_p1() {
  Calibration cal;
  BandEntry rows;
  rows.kind = FigureKind::ttft;
  rows.gpu_id = "P1";
  rows.rule = "serving rows";
  cal.bands.push_back(rows);
  return cal;
}

} // namespace

TEST_CASE("reach bands come from the held-out residuals of each reach", "[reach]") {
  // Held out, P1 (21 rows, ln r = 0.00, 0.02, ..., 0.40: predicted too fast) and P2 (20 rows,
  // ln r = −0.01, −0.03, ..., −0.39: too slow) each have a measured sibling. Their scores |ln r| are
  // 0.00, 0.01, ..., 0.40 (41 values); type-7 80th percentile at h = 40 × 0.8 = 32 → 0.32, so the
  // band is e^±0.32 = 0.72615..1.37713 whichever sign the next GPU's error takes. Q1 has none:
  // |ln r| 0.00..0.20 by 0.01 (21 values), q at h = 16 → 0.16, narrower than the siblings', so
  // extrapolated takes gpu_sibling's band.
  std::vector<ServingRun> runs;
  runs.reserve(64);
  add_rows(runs, "P1", 21, 0.00, 0.02);
  add_rows(runs, "P2", 20, -0.01, -0.02);
  add_rows(runs, "Q1", 21, 0.00, 0.01);
  const std::vector<ServingResult> logo = results_of(runs);
  const std::vector<ReachBand> bands = bench::reach_bands_from(logo, toy_gpus(), "");
  REQUIRE(bands.size() == 4); // TTFT and TPOT, gpu_sibling and extrapolated
  const ReachBand& sibling = bands[0];
  CHECK(sibling.kind == FigureKind::ttft);
  CHECK(sibling.reach == Reach::gpu_sibling);
  CHECK(sibling.ratio_low == Approx(0.726149));
  CHECK(sibling.ratio_high == Approx(1.377128));
  CHECK(sibling.rows == 41);
  CHECK(sibling.held_out == std::vector<std::string>{"P1", "P2"});
  const ReachBand& extrapolated = bands[1];
  CHECK(extrapolated.reach == Reach::extrapolated);
  CHECK(extrapolated.ratio_low == Approx(0.726149));
  CHECK(extrapolated.ratio_high == Approx(1.377128));
  CHECK(extrapolated.rows == 21);
  CHECK(extrapolated.held_out == std::vector<std::string>{"Q1"});

  // Q1 spread wider (ln r = 0.000, 0.025, ..., 0.500, all too fast): q at h = 16 → 0.40, so
  // e^±0.40 = 0.670320..1.491825. The signed p10..p90 would be e^0.05..e^0.40 = 1.051..1.492, a band
  // that leaves out every later GPU whose estimate errs the other way.
  std::vector<ServingRun> wide;
  wide.reserve(64);
  add_rows(wide, "P1", 21, 0.00, 0.02);
  add_rows(wide, "P2", 20, -0.01, -0.02);
  add_rows(wide, "Q1", 21, 0.00, 0.025);
  const std::vector<ReachBand> far = bench::reach_bands_from(results_of(wide), toy_gpus(), "");
  REQUIRE(far.size() == 4);
  CHECK(far[1].ratio_low == Approx(0.670320));
  CHECK(far[1].ratio_high == Approx(1.491825));

  // Scoring Q1's own fold: its rows never make its band; extrapolated falls back to gpu_sibling's.
  const std::vector<ReachBand> without_q1 = bench::reach_bands_from(results_of(wide), toy_gpus(), "Q1");
  REQUIRE(without_q1.size() == 4);
  CHECK(without_q1[1].reach == Reach::extrapolated);
  CHECK(without_q1[1].ratio_high == Approx(1.377128));
  CHECK(without_q1[1].held_out == std::vector<std::string>{"P1", "P2"});

  // Fewer than 20 sibling rows: no band stands.
  std::vector<ServingRun> few;
  add_rows(few, "P1", 10, 0.0, 0.01);
  add_rows(few, "P2", 9, 0.0, 0.01);
  CHECK(bench::reach_bands_from(results_of(few), toy_gpus(), "").empty());
}

TEST_CASE("each GPU's reach follows what was measured on it and its family", "[reach]") {
  Calibration cal = rows_on_p1();
  const BandEntry rows = cal.bands.front();
  std::vector<Gpu> gpus = toy_gpus();
  assign_reach(cal, gpus);
  CHECK(gpus[0].reach == Reach::measured);
  CHECK(gpus[1].reach == Reach::gpu_sibling);
  CHECK(gpus[2].reach == Reach::extrapolated);
  // A user's runs on Q1 (a --calibration overlay's band) measure it.
  BandEntry user = rows;
  user.kind = FigureKind::tpot;
  user.gpu_id = "Q1";
  user.rule = "user runs, leave-one-out";
  cal.bands.push_back(user);
  assign_reach(cal, gpus);
  CHECK(gpus[2].reach == Reach::measured);
  // A case-based band does not: cases are not serving runs.
  Calibration cases;
  BandEntry own = rows;
  own.rule = "own";
  cases.bands.push_back(own);
  assign_reach(cases, gpus);
  CHECK(gpus[0].reach == Reach::extrapolated);
}

TEST_CASE("a band widens to its reach band, throughput from TPOT's inverted", "[reach]") {
  Calibration cal;
  for (const FigureKind kind : {FigureKind::ttft, FigureKind::tpot, FigureKind::throughput}) {
    BandEntry pooled;
    pooled.kind = kind;
    pooled.gpu_id = "*";
    pooled.ratio_low = 0.9;
    pooled.ratio_high = 1.1;
    pooled.rule = "own";
    cal.bands.push_back(pooled);
  }
  ReachBand ttft{FigureKind::ttft, Reach::gpu_sibling, 0.68, 1.32, 41, {"P1", "P2"}};
  ReachBand tpot{FigureKind::tpot, Reach::gpu_sibling, 0.8, 1.25, 41, {"P1", "P2"}};
  cal.reach_bands = {ttft, tpot};
  cal.classes.push_back(ClassWidening{"dense-small", 10, 1.0}); // a measured class: no class widening
  // TTFT 2 s at reach gpu_sibling: 2 × 0.68 = 1.36 .. 2 × 1.32 = 2.64 (the pooled 1.8 .. 2.2 inside).
  check_ends(band_for(cal, FigureKind::ttft, "P2", 2.0, "dense-small", Reach::gpu_sibling), 1.36, 2.64);
  // Measured: the GPU's own band, no reach band.
  check_ends(band_for(cal, FigureKind::ttft, "P2", 2.0, "dense-small", Reach::measured), 1.8, 2.2);
  // Throughput 100 tok/s: TPOT's 0.8 .. 1.25 inverted is 1 / 1.25 = 0.8 .. 1 / 0.8 = 1.25 → 80 .. 125.
  check_ends(band_for(cal, FigureKind::throughput, "P2", 100.0, "dense-small", Reach::gpu_sibling), 80.0,
             125.0);
  // No extrapolated band in this calibration: an extrapolated GPU takes the nearer reach's nested
  // inside its own (never narrower than gpu_sibling's): 2.64.
  CHECK(band_for(cal, FigureKind::ttft, "Q1", 2.0, "dense-small", Reach::extrapolated).high == Approx(2.64));
  // No reach band below gpu_sibling: a model nobody measured on a measured GPU keeps the GPU's band.
  CHECK(band_for(cal, FigureKind::ttft, "P1", 2.0, "dense-small", Reach::model_unmeasured).high ==
        Approx(2.2));

  // A model_unmeasured TTFT band 0.6 .. 1.5 (held-out models): on a measured GPU 2 s → 1.2 .. 3.0;
  // at gpu_sibling the union with its own 0.68 .. 1.32 is 0.6 .. 1.5 → 1.2 .. 3.0 as well, while
  // TPOT (no model band) keeps gpu_sibling's 0.8 .. 1.25.
  cal.reach_bands = {ReachBand{FigureKind::ttft, Reach::model_unmeasured, 0.6, 1.5, 50, {"m1", "m2"}}, ttft,
                     tpot};
  check_ends(band_for(cal, FigureKind::ttft, "P1", 2.0, "dense-small", Reach::model_unmeasured), 1.2, 3.0);
  check_ends(band_for(cal, FigureKind::ttft, "P2", 2.0, "dense-small", Reach::gpu_sibling), 1.2, 3.0);
  CHECK(reach_band(cal, FigureKind::ttft, Reach::gpu_sibling)->held_out ==
        std::vector<std::string>{"P1", "P2"});
  CHECK(band_for(cal, FigureKind::tpot, "P2", 2.0, "dense-small", Reach::gpu_sibling).high == Approx(2.5));
}

TEST_CASE("an estimate of a model nobody measured on a measured GPU is model_unmeasured", "[reach]") {
  Calibration cal = rows_on_p1();
  const BandEntry rows = cal.bands.front();
  cal.measured_models = {MeasuredModels{"P1", {"llama-3.1-70b", "qwen3-32b"}}};
  std::vector<Gpu> gpus = toy_gpus();
  assign_reach(cal, gpus);
  ModelSpec measured;
  measured.name = "qwen3-32b";
  ModelSpec other;
  other.name = "mixtral-8x7b";
  CHECK(serving_reach(&cal, gpus[0], measured) == Reach::measured);
  CHECK(serving_reach(&cal, gpus[0], other) == Reach::model_unmeasured);
  ModelSpec image;
  image.name = "flux.1-dev";
  image.kind = ModelKind::dit; // image models' bands are their own cases': the GPU's reach
  CHECK(serving_reach(&cal, gpus[0], image) == Reach::measured);
  // A GPU that is not measured keeps its own reach whatever the model; no calibration: the GPU's.
  CHECK(serving_reach(&cal, gpus[1], measured) == Reach::gpu_sibling);
  CHECK(serving_reach(nullptr, gpus[0], other) == Reach::measured);
  // A GPU whose models are not listed (an older calibration) stays measured.
  cal.measured_models.clear();
  CHECK(serving_reach(&cal, gpus[0], other) == Reach::measured);
  // The user's own runs on P1 (a --calibration overlay): measured, for the stack they calibrated.
  cal.measured_models = {MeasuredModels{"P1", {"qwen3-32b"}}};
  BandEntry user = rows;
  user.rule = "user runs (5)";
  cal.bands.push_back(user);
  CHECK(serving_reach(&cal, gpus[0], other) == Reach::measured);
}

TEST_CASE("training has a reach of its own, and its throughput band widens to it", "[reach]") {
  // Training cases on P1 only: P1 measured, P2 (its family) a sibling, Q1 extrapolated. No serving
  // rows anywhere, so every serving reach is extrapolated.
  Calibration cal;
  BandEntry pooled;
  pooled.kind = FigureKind::training_throughput;
  pooled.gpu_id = "*";
  pooled.ratio_low = 0.9;
  pooled.ratio_high = 1.1;
  pooled.rule = "own";
  cal.bands.push_back(pooled);
  BandEntry own = pooled;
  own.gpu_id = "P1";
  own.ratio_low = 0.95;
  own.rule = "own+pooled widened";
  cal.bands.push_back(own);
  cal.reach_bands = {ReachBand{FigureKind::tpot, Reach::gpu_sibling, 0.8, 1.25, 41, {"P1"}}};
  cal.classes.push_back(ClassWidening{"dense-small", 10, 1.0});
  std::vector<Gpu> gpus = toy_gpus();
  assign_reach(cal, gpus);
  CHECK(gpus[0].training_reach == Reach::measured);
  CHECK(gpus[1].training_reach == Reach::gpu_sibling);
  CHECK(gpus[2].training_reach == Reach::extrapolated);
  CHECK(gpus[0].reach == Reach::extrapolated);
  // Sibling P2: the pooled 0.9 .. 1.1 joined with TPOT's sibling band inverted (0.8 .. 1.25):
  // 1,000 tok/s → 800 .. 1,250.
  const Band b =
      band_for(cal, FigureKind::training_throughput, "P2", 1000.0, "dense-small", Reach::gpu_sibling);
  CHECK(b.low == Approx(800.0));
  CHECK(b.high == Approx(1250.0));
  // What the judge takes: the p10 multiplier at p90, 1 at p50 or without a calibration.
  CHECK(training_throughput_low(&cal, Confidence::p90, "P2", "dense-small", Reach::gpu_sibling) ==
        Approx(0.8));
  CHECK(training_throughput_low(&cal, Confidence::p90, "P1", "dense-small", Reach::measured) == Approx(0.95));
  CHECK(training_throughput_low(&cal, Confidence::p50, "P2", "dense-small", Reach::gpu_sibling) == 1.0);
  CHECK(training_throughput_low(nullptr, Confidence::p90, "P2", "dense-small", Reach::gpu_sibling) == 1.0);
}
