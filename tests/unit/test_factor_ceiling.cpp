// The accuracy report's factor ceiling (docs/accuracy.md, bench/factor_ceiling.hpp): the most rows one
// factor per group brings within 25 %, worked by hand.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "factor_ceiling.hpp"
#include "rightsize/serving_validation.hpp"

using namespace rightsize;

TEST_CASE("one factor brings the densest window of log ratios within 25 %", "[bench][ceiling]") {
  // Window width ln(1.25 / 0.75) = 0.5108. Ratios 0.5, 1.0, 1.2, 1.5, 3.0: ln = −0.693, 0, 0.182, 0.405,
  // 1.099. The window [0, 0.511] holds 1.0, 1.2 and 1.5 (ratio 1.5 / 1.0 = 1.5 ≤ 1.25 / 0.75 = 1.667):
  // f = 1 / 1.25 · 1.5 = 1.2 maps them to 0.833, 1.0, 1.25, all within 25 %. No window holds four:
  // 0.5 to 1.5 spans ln 3 = 1.10 and 1.0 to 3.0 spans 1.10 as well.
  const std::vector<double> ln = {std::log(0.5), std::log(1.0), std::log(1.2), std::log(1.5), std::log(3.0)};
  CHECK(bench::best_factor_count(ln) == 3);
  // The band is asymmetric in the ratio but its width is what counts: 1.0 and 1.667 (= 1.25 / 0.75)
  // fit one factor (0.75 → 1.25), 1.0 and 1.7 do not.
  CHECK(bench::best_factor_count({0.0, std::log(1.25 / 0.75)}) == 2);
  CHECK(bench::best_factor_count({0.0, std::log(1.7)}) == 1);
  CHECK(bench::best_factor_count({}) == 0);
}

TEST_CASE("the ceiling per group never falls below the rows within 25 % as predicted", "[bench][ceiling]") {
  // Two engines: vLLM predicted 2× too slow on three rows (a factor 0.5 fixes all three), SGLang
  // spread 0.5×, 1.0×, 2.0× (one factor reaches one of them; as predicted, one is within).
  std::vector<ServingRun> runs(6);
  const double predicted[] = {2.0, 2.0, 2.0, 0.5, 1.0, 2.0};
  std::vector<ServingResult> results(6);
  for (std::size_t i = 0; i < 6; ++i) {
    runs[i].engine = i < 3 ? "vllm" : "sglang";
    runs[i].ttft_s = 1.0;
    runs[i].tpot_s = 1.0;
    results[i].run = &runs[i];
    results[i].ttft_pred_s = predicted[i];
    results[i].tpot_pred_s = 1.0;
  }
  const std::vector<bench::CeilingGrouping> groupings = bench::ceiling_groupings();
  // One factor for all six: at most the three vLLM rows plus SGLang's 2.0× row → 4 of 6.
  CHECK(bench::ceiling_within_25_pct(results, groupings[0], true) == Approx(100.0 * 4 / 6));
  // Per engine: vLLM 3, SGLang 1 → 4 of 6 again; per engine cannot do worse than one factor for all.
  CHECK(bench::ceiling_within_25_pct(results, groupings[1], true) == Approx(100.0 * 4 / 6));
  CHECK(bench::ceiling_within_25_pct(results, groupings[1], false) == Approx(100.0));
  const std::string table = bench::factor_ceiling_table(results);
  CHECK(table.find("| none (as predicted) | - | 16.7 % | 100.0 % |") != std::string::npos);
  CHECK(table.find("| per engine | 2 | 66.7 % | 100.0 % |") != std::string::npos);
}

TEST_CASE("output-length spread compares the longest and shortest output of otherwise equal rows",
          "[bench][ceiling]") {
  // One group (vLLM, 8 clients, 1,024 in) at 128, 1,024 and 1,024 out: shortest 100 ms; the two
  // 1,024 repeats 120 and 270 ms, geometric mean √(120 · 270) = 180 ms → 1.8× slower (> 1.25);
  // predicted 100 → 110 ms (1.1×). A second group (16 clients) 200 → 100 ms, predicted 200 → 150 ms
  // (0.75× < 0.8). A row at 32 clients is left out, and a lone row forms no group.
  std::vector<ServingRun> runs(6);
  const std::int64_t clients[] = {8, 8, 8, 16, 16, 32};
  const std::int64_t out[] = {128, 1024, 1024, 128, 1024, 128};
  const double measured_ms[] = {100, 120, 270, 200, 100, 50};
  const double predicted_ms[] = {100, 110, 110, 200, 150, 50};
  std::vector<ServingResult> results(6);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].engine = "vllm";
    runs[i].input_tokens = 1024;
    runs[i].concurrency = clients[i];
    runs[i].output_tokens = out[i];
    runs[i].ttft_s = measured_ms[i] / 1e3;
    results[i].run = &runs[i];
    results[i].ttft_pred_s = predicted_ms[i] / 1e3;
  }
  const bench::OutputLengthSpread s = bench::output_length_spread(results, 16);
  CHECK(s.groups == 2);
  CHECK(s.rows == 5);
  CHECK(s.longer_slower == 1);
  CHECK(s.longer_faster == 1);
  CHECK(s.predicted_slower == 0);
  CHECK(s.predicted_faster == 1);
  // At ≤ 8 clients only the first group is left.
  CHECK(bench::output_length_spread(results, 8).groups == 1);
}

TEST_CASE("layout targets: the share one factor per group brings within 30 % / 20 %, and an engine factor "
          "judged on the pairs it was not fitted on",
          "[bench][ceiling]") {
  // vLLM: pairs A (two rows) and B (one row), all predicted 2× their TTFT; SGLang: pair C at 0.5×,
  // pair D at 1.0×. Every TPOT exact.
  const char* model[] = {"a", "a", "b", "c", "d"};
  const char* engine[] = {"vllm", "vllm", "vllm", "sglang", "sglang"};
  const double predicted[] = {2.0, 2.0, 2.0, 0.5, 1.0};
  std::vector<ServingRun> runs(5);
  std::vector<ServingResult> results(5);
  for (std::size_t i = 0; i < 5; ++i) {
    runs[i].engine = engine[i];
    runs[i].preset = model[i];
    runs[i].ttft_s = 1.0;
    runs[i].tpot_s = 1.0;
    results[i].run = &runs[i];
    results[i].ttft_pred_s = predicted[i];
    results[i].tpot_pred_s = 1.0;
  }
  // Within 30 % as predicted: only D (1 of 5). Per engine: vLLM's three share one value (3); SGLang's
  // 0.5 and 1.0 span ln 2 = 0.693 > ln(1.3 / 0.7) = 0.619, so one of the two (1): 4 of 5.
  const std::string table = bench::target_ceiling_table(results, 0.30, 0.20);
  CHECK(table.find("| factor, chosen with hindsight | groups | TTFT within 30 % | TPOT within 20 % |") !=
        std::string::npos);
  CHECK(table.find("| none (as predicted) | - | 20.0 % | 100.0 % |") != std::string::npos);
  CHECK(table.find("| per engine | 2 | 80.0 % | 100.0 % |") != std::string::npos);
  // Leave one pair out, tolerance 30 %: a row of vLLM pair A gets the factor of B's lone ln 2 (the
  // window's middle onto ratio 1: f = 2), B that of A's: each corrected to exactly 1.0. SGLang C gets
  // D's (f = 1): 0.5, 50 % off; D gets C's (f = 0.5): 2.0, 100 % off. Median of {0, 0, 0, 50, 100} = 0.
  CHECK(bench::engine_factor_leave_pair_out_median_pct(results, true, 0.30) == Approx(0.0).margin(1e-9));
  // Without pair B, vLLM's pair A has no other pair and keeps its 2× (100 % off, twice): median of
  // {100, 100, 50, 100} = 100 %.
  std::vector<ServingResult> without_b = {results[0], results[1], results[3], results[4]};
  CHECK(bench::engine_factor_leave_pair_out_median_pct(without_b, true, 0.30) == Approx(100.0));
}

TEST_CASE("the band factor centres a window on ratio 1 unless that pushes an end out of the band",
          "[bench][ceiling]") {
  // Tolerance 30 %: band [ln 0.7, ln 1.3] = [−0.3567, 0.2624], width 0.6190. A window from ratio 1.0 to
  // 1.8 (ln 0 to 0.5878, width 0.5878 ≤ 0.6190): its middle 0.2939 would put 1.8 at
  // e^(0.5878 − 0.2939) = 1.342 > 1.3, so ln f rises to 0.5878 − 0.2624 = 0.3254 (f = 1.385):
  // 1.0 → 0.722 and 1.8 → 1.300, both within. A narrow window (1.0 to 1.2) keeps its middle:
  // ln f = ln 1.2 / 2 = 0.0912 (f = 1.095), 1.0 → 0.913, 1.2 → 1.095.
  bench::BestFactor wide;
  wide.count = 2;
  wide.ln_high = std::log(1.8);
  CHECK(bench::band_factor_ln(wide, 0.30) == Approx(std::log(1.8) - std::log(1.3)));
  CHECK(std::exp(bench::band_factor_ln(wide, 0.30)) == Approx(1.385).epsilon(0.001));
  bench::BestFactor narrow;
  narrow.count = 2;
  narrow.ln_high = std::log(1.2);
  CHECK(bench::band_factor_ln(narrow, 0.30) == Approx(0.5 * std::log(1.2)));
  // Too low by 2×: the window's middle alone, ratio 0.5 → 1.0.
  bench::BestFactor low;
  low.count = 1;
  low.ln_low = low.ln_high = std::log(0.5);
  CHECK(bench::band_factor_ln(low, 0.30) == Approx(std::log(0.5)));
}
