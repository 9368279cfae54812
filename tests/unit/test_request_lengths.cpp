// Request-length spreads, burstiness and traces (docs/methodology.md §3.1 "Request lengths",
// docs/model-spec.md): the formulas against hand-computed values, the estimator's percentiles
// against fixed lengths, the spec forms and the trace readers on small files worked by hand.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "io/json/json_reader.hpp"
#include "io/runs/validation_io.hpp"
#include "io/spec/length_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/length_spread.hpp"
#include "rightsize/load_model.hpp"
#include "rightsize/search.hpp"

using namespace rightsize;
using namespace rightsize::test;
using nlohmann::json;

namespace {

const std::string k_models_lengths = std::string(RIGHTSIZE_DATA_DIR) + "/models";

Spec parse_lengths(const json& doc, const std::string& base_dir = "") {
  return io::parse_spec(doc, "s.json", base_dir, k_models_lengths);
}

std::string error_of_lengths(const json& doc, const std::string& base_dir = "") {
  try {
    (void)parse_lengths(doc, base_dir);
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

// The one-line error of loading the validation cases at `path`, or "no error".
std::string error_of_cases(const std::string& path) {
  try {
    (void)io::load_validation_cases(path);
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

json with_workload(const json& workload) {
  return {{"schema_version", 1}, {"model", {{"preset", "llama-3.1-8b"}}}, {"workload", workload}};
}

// P(S + W > t) by a fine Riemann sum over z (an independent check of sum_quantile_s).
double brute_tail(const load::ServiceCurve& c, double p50, double sigma, double theta, double p, double t) {
  double sum = 0.0;
  const double h = 1e-3;
  for (double z = -8.0; z <= 8.0; z += h) {
    const double s = c.at(p50 * std::exp(sigma * z));
    const double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    sum += pdf * h * (s > t ? 1.0 : p * std::exp(-(t - s) / theta));
  }
  return sum;
}

const std::string k_tmp_lengths = std::filesystem::temp_directory_path().string();

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = k_tmp_lengths + "/rightsize-" + name;
  std::ofstream(path) << text;
  return path;
}

} // namespace

TEST_CASE("lognormal lengths through p50 and p99, by hand", "[load]") {
  // σ = ln(p99/p50)/z₉₉ = ln 10 / 2.3263 = 0.98981; c_v = √(e^{σ²} − 1), σ = 1: √(e − 1) = 1.31083.
  CHECK(load::lognormal_sigma(1000.0, 10000.0) == Approx(0.98981).epsilon(1e-4));
  CHECK(load::lognormal_sigma(1000.0, 1000.0) == 0.0);
  CHECK(load::lognormal_cv(1.0) == Approx(1.31083).epsilon(1e-5));
  // Mean 1000, σ = 1: p50 = 1000·e^{−1/2} = 606.53, p99 = 606.53·e^{2.3263} = 6210.86.
  const load::LengthPercentiles ln = load::lognormal_percentiles(1000.0, 1.0);
  CHECK(ln.p50 == Approx(606.53).epsilon(1e-4));
  CHECK(ln.p99 == Approx(6210.86).epsilon(1e-4));
  // Exponential of mean 500: p50 = 500 ln 2 = 346.57, p99 = 500 ln 100 = 2302.59.
  CHECK(load::exponential_percentiles(500.0).p50 == Approx(346.57).epsilon(1e-4));
  CHECK(load::exponential_percentiles(500.0).p99 == Approx(2302.59).epsilon(1e-4));
  // Uniform on [100, 300]: p50 200, p99 100 + 0.99·200 = 298.
  CHECK(load::uniform_percentiles(100.0, 300.0).p50 == Approx(200.0));
  CHECK(load::uniform_percentiles(100.0, 300.0).p99 == Approx(298.0));
  // Mean 1000 and p99 5000: σ = z − √(z² − 2 ln 5) = 2.3263 − √(5.41167 − 3.21888) = 0.84549,
  // whose p50 1000·e^{−σ²/2} = 699.47 gives back p99 = 699.47·e^{zσ} = 5000.
  const double s = load::lognormal_sigma_from_mean_p99(1000.0, 5000.0);
  CHECK(s == Approx(0.84549).epsilon(1e-4));
  CHECK(load::lognormal_quantile(1000.0 * std::exp(-0.5 * s * s), s, 0.99) == Approx(5000.0).epsilon(1e-6));
  CHECK(load::lognormal_sigma_from_mean_p99(1000.0, 20000.0) < 0.0); // beyond e^{z²/2} ≈ 14.9
}

TEST_CASE("the prefill-time curve through three prompts, by hand", "[load]") {
  load::ServiceCurve c;
  c.add(2000.0, 0.18);
  c.add(1000.0, 0.10);
  c.add(4000.0, 0.40);
  c.add(2000.0, 9.99); // a length already there is ignored
  REQUIRE(c.points == 3);
  CHECK(c.at(1000.0) == Approx(0.10));
  CHECK(c.at(3000.0) == Approx(0.29)); // 0.18 + 0.00011·1000
  CHECK(c.at(8000.0) == Approx(0.84)); // the last segment extended: 0.40 + 0.00011·4000
  CHECK(c.at(500.0) == Approx(0.06));  // the first segment's line (0.06) above the origin's (0.05)
  load::ServiceCurve one;
  one.add(1000.0, 0.1);
  CHECK(one.at(3000.0) == Approx(0.3)); // through the origin
}

TEST_CASE("quantiles of prefill plus wait: reductions and numerical integration", "[load]") {
  load::ServiceCurve c;
  c.add(1000.0, 0.10);
  c.add(500.0, 0.06);
  c.add(5000.0, 0.45);
  // Fixed prompts (σ = 0): S(p50) plus the wait's quantile, 0.1 + 0.4·ln(0.5/0.01) = 1.66481.
  CHECK(load::sum_quantile_s(c, 1000.0, 0.0, 0.2, 0.5, 0.99) == Approx(1.66481).epsilon(1e-5));
  // No wait: the prompt's own quantile, S(1000·e^{0.7·2.3263}) = S(5095.77) = 0.45 + 0.0000875·95.77.
  CHECK(load::sum_quantile_s(c, 1000.0, 0.7, 0.0, 0.0, 0.99) == Approx(0.458380).epsilon(1e-5));
  // Both: the t where P(S + W > t) = 1 − q, checked by a Riemann sum with 16,000 steps in z.
  for (const double q : {0.5, 0.9, 0.99}) {
    const double t = load::sum_quantile_s(c, 1000.0, 0.7, 0.2, 0.5, q);
    CHECK(brute_tail(c, 1000.0, 0.7, 0.4, 0.5, t) == Approx(1.0 - q).epsilon(2e-3));
    CHECK(t >= load::sum_quantile_s(c, 1000.0, 0.7, 0.0, 0.0, q)); // never below either part
  }
  // Moments: a flat curve has no spread; a proportional one has the lengths' c_v.
  load::ServiceCurve flat;
  flat.add(1000.0, 0.1);
  const load::ServiceMoments m = load::service_moments(flat, load::LengthGrid(1000.0, 0.5));
  CHECK(m.cv == Approx(load::lognormal_cv(0.5)).epsilon(1e-3));
  CHECK(m.mean_s == Approx(0.1 * std::exp(0.125)).epsilon(1e-3)); // E[L] = p50·e^{σ²/2}
}

TEST_CASE("open loop: spread prompts and bursts raise p99 TTFT over fixed lengths", "[core]") {
  const PreparedModel pm = prepare_model(llama31_8b(), Precision{});
  InferenceWorkload w = chat_workload();
  w.concurrency = 0;
  w.arrival = Arrival::poisson;
  w.request_rate_per_s = 8.0;
  const Gpu gpu = h100_sxm();
  const auto run = [&](const InferenceWorkload& x) {
    return estimate_inference(pm, x, gpu, Deployment{}, EngineConfig{}, nullptr, 0.0);
  };
  const InferenceEstimate fixed = run(w);
  REQUIRE_FALSE(fixed.overloaded);
  InferenceWorkload spread = w;
  spread.input_spread = {700.0, 5000.0, LengthShape::percentiles};
  const InferenceEstimate varied = run(spread);
  CHECK(varied.ttft.p99_s > 1.2 * fixed.ttft.p99_s);
  CHECK(varied.ttft.p50_s < fixed.ttft.p50_s); // the median prompt is shorter than the mean
  CHECK(varied.ttft_s > fixed.ttft_s);         // Kingman: c_s > 0 lengthens the mean wait
  // The mean decode is the mean workload's; only the in-flight count moves with the longer wait.
  CHECK(varied.tpot_s == Approx(fixed.tpot_s).epsilon(0.01));
  InferenceWorkload bursty = w;
  bursty.arrival_cv = 2.0; // burstiness 0.25
  CHECK(run(bursty).ttft.p99_s > 1.2 * fixed.ttft.p99_s);
  InferenceWorkload long_outputs = w;
  long_outputs.output_spread = {180.0, 1200.0, LengthShape::percentiles};
  const InferenceEstimate outs = run(long_outputs);
  CHECK(outs.e2e.p99_s > fixed.e2e.p99_s);
  CHECK(outs.ttft.p99_s == fixed.ttft.p99_s); // outputs do not move the prompt's queue
}

TEST_CASE("length objects, burstiness and their errors in the spec", "[io]") {
  Spec s = parse_lengths(with_workload({{"input_tokens", {{"mean", 2048}, {"p50", 1500}, {"p99", 16000}}},
                                        {"output_tokens", {{"distribution", "exponential"}, {"mean", 500}}},
                                        {"arrival", "poisson"},
                                        {"request_rate_per_s", 4},
                                        {"burstiness", 0.25}}));
  CHECK(s.inference.input_tokens == 2048);
  CHECK(s.inference.input_spread.p50_tokens == 1500.0);
  CHECK(s.inference.input_spread.p99_tokens == 16000.0);
  CHECK(s.inference.output_tokens == 500);
  CHECK(s.inference.output_spread.p50_tokens == Approx(346.57).epsilon(1e-4));
  CHECK(s.inference.output_spread.shape == LengthShape::exponential);
  CHECK(s.inference.arrival_cv == Approx(2.0)); // 1/√0.25
  s = parse_lengths(
      with_workload({{"input_tokens", {{"distribution", "uniform"}, {"min", 100}, {"max", 300}}}}));
  CHECK(s.inference.input_tokens == 200);
  CHECK(s.inference.input_spread.p99_tokens == Approx(298.0));
  CHECK(error_of_lengths(with_workload({{"input_tokens", {{"mean", 2048}, {"p50", 1500}, {"p99", 1000}}}})) ==
        "s.json: /workload/input_tokens/p99: expected p99 at least p50 (1500), got 1000");
  CHECK(error_of_lengths(with_workload({{"input_tokens", {{"mean", 2048}}}})) ==
        "s.json: /workload/input_tokens: expected p50, p99 or both beside the mean (or a \"distribution\")");
  CHECK(
      error_of_lengths(with_workload(
          {{"arrival", "poisson"}, {"request_rate_per_s", 4}, {"burstiness", 0.5}, {"arrival_cv", 2}})) ==
      "s.json: /workload/burstiness: expected burstiness or arrival_cv, not both: burstiness k is arrival_cv "
      "1/√k");
  CHECK(error_of_lengths(with_workload({{"burstiness", 0.5}})) ==
        "s.json: /workload/burstiness: expected only with \"arrival\": \"poisson\"");
}

TEST_CASE("Azure and Mooncake traces: rate, inter-arrival CV and length percentiles by hand", "[io]") {
  // Arrivals at 0, 1, 3, 6 and 10 s: rate 4/10 = 0.4 req/s; gaps 1, 2, 3, 4 (mean 2.5, sd √1.25),
  // CV 0.44721. Prompts 100..1000: mean 400, nearest-rank p50 (3rd) 300, p99 (5th) 1000. Outputs
  // 10, 0, 30, 40, 50: the 0 counts as 1, mean 26.2 → 26, p50 30, p99 50.
  const std::string csv = write_temp("lengths-azure.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                          "2023-11-16 18:00:00.0000000,100,10\n"
                                                          "2023-11-16 18:00:01.0000000,200,0\n"
                                                          "2023-11-16 18:00:03.0000000,300,30\n"
                                                          "2023-11-16 18:00:06.0000000,400,40\n"
                                                          "2023-11-16 18:00:10.0000000,1000,50\n");
  const std::string jsonl = write_temp(
      "lengths-mooncake.jsonl", "{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 10}\n"
                                "{\"timestamp\": 1000, \"input_length\": 200, \"output_length\": 0}\n"
                                "{\"timestamp\": 3000, \"input_length\": 300, \"output_length\": 30}\n"
                                "{\"timestamp\": 6000, \"input_length\": 400, \"output_length\": 40}\n"
                                "{\"timestamp\": 10000, \"input_length\": 1000, \"output_length\": 50, "
                                "\"hash_ids\": [1, 2]}\n");
  int compared = 0;
  for (const std::string& path : {csv, jsonl}) {
    const io::TraceSummary t = io::read_trace(path, 1'000'000);
    CHECK(t.requests == 5);
    CHECK(t.rate_per_s == Approx(0.4));
    CHECK(t.arrival_cv == Approx(0.44721).epsilon(1e-4));
    CHECK(t.input_mean == 400);
    CHECK(t.input.p50_tokens == 300.0);
    CHECK(t.input.p99_tokens == 1000.0);
    CHECK(t.output_mean == 26);
    CHECK(t.output.p50_tokens == 30.0);
    CHECK(t.output.p99_tokens == 50.0);
    CHECK(t.zero_outputs == 1);
    ++compared;
  }
  REQUIRE(compared == 2);
  // In a spec: the trace fills the open-loop workload; a rate beside it replays the shape at it.
  const Spec s = parse_lengths(with_workload({{"trace", "rightsize-lengths-azure.csv"}}), k_tmp_lengths);
  CHECK(s.inference.arrival == Arrival::poisson);
  CHECK(s.inference.request_rate_per_s == Approx(0.4));
  CHECK(s.inference.arrival_cv == Approx(0.447)); // three significant digits
  CHECK(s.inference.input_tokens == 400);
  const Spec r = parse_lengths(
      with_workload({{"trace", "rightsize-lengths-azure.csv"}, {"request_rate_per_s", 3}}), k_tmp_lengths);
  CHECK(r.inference.request_rate_per_s == 3.0);
  CHECK(error_of_lengths(with_workload({{"trace", "rightsize-lengths-azure.csv"}, {"input_tokens", 10}}),
                         k_tmp_lengths) ==
        "s.json: /workload/input_tokens: expected no input_tokens with workload.trace: the trace gives it");
  const std::string bad = write_temp("lengths-bad.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                                        "2023-11-16 18:00:00,100,10\n"
                                                        "yesterday,200,20\n");
  CHECK(error_of_lengths(with_workload({{"trace", "rightsize-lengths-bad.csv"}}), k_tmp_lengths) ==
        bad + ":3: expected TIMESTAMP as a date \"YYYY-MM-DD hh:mm:ss[.fraction][Z|±hh:mm]\" that exists, or "
              "seconds, got \"yesterday\"");
}

// A trace row is the number it says or an error naming file:line: no prefix of a cell, no second
// object on a line, no date rolled over, no key read twice (docs/model-spec.md "Traces").
TEST_CASE("traces: a bad row is refused with file:line, never half read", "[io]") {
  const std::string head = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00,100,10\n";
  const auto error_in = [](const std::string& name, const std::string& text) {
    const std::string path = write_temp(name, text);
    try {
      (void)io::read_trace(path, 1'000'000);
    } catch (const Error& e) {
      const std::string& at = e.source(); // path:line
      return (at.starts_with(path) ? at.substr(path.size()) : at) + ": " + e.what();
    }
    return std::string("accepted");
  };
  CHECK(error_in("t1.csv", head + "2023-11-16 18:00:01,200abc,20\n") ==
        ":3: expected ContextTokens as a whole number of tokens, got \"200abc\"");
  CHECK(error_in("t2.csv", head + "0x10,200,20\n").starts_with(":3: expected TIMESTAMP as a date"));
  CHECK(error_in("t3.csv", head + "2023-02-30 00:00:00,200,20\n").starts_with(":3: expected TIMESTAMP"));
  CHECK(error_in("t4.csv", head + "2023-11-16 18:00:60,200,20\n").starts_with(":3: expected TIMESTAMP"));
  CHECK(error_in("t5.csv", head + "2023-11-16 24:00:00,200,20\n").starts_with(":3: expected TIMESTAMP"));
  const std::string line = "{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 10}\n";
  CHECK(error_in("t6.jsonl",
                 line + "{\"timestamp\": 1000, \"input_length\": 200, \"output_length\": 20} {}\n") ==
        ":2: expected one JSON object on the line, got more at column 63");
  CHECK(
      error_in(
          "t7.jsonl",
          line +
              "{\"timestamp\": 1000, \"input_length\": 200, \"input_length\": 9, \"output_length\": 2}\n") ==
      ":2: expected \"input_length\" once in the object, got it twice");
  CHECK(error_in("t8.jsonl",
                 line + "{\"timestamp\": \"1000\", \"input_length\": 200, \"output_length\": 2}\n") ==
        ":2: expected \"timestamp\" as a number");
  // Accepted: an offset moves the time to UTC (18:00:01+01:00 is 17:00:01, 3,599 s before 18:00:00,
  // so the span is 3,599 s: 1 gap), a leap day exists, and a byte order mark opens either format.
  const io::TraceSummary tz =
      io::read_trace(write_temp("t9.csv", head + "2023-11-16 18:00:01+01:00,200,20\n"), 1000);
  CHECK(tz.span_s == Approx(3599.0));
  CHECK(error_in("t10.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-02-29 00:00:00,1,1\n"
                            "2024-02-29T00:00:01Z,1,1\n") == "accepted");
  CHECK(error_in("t11.jsonl", "\xEF\xBB\xBF" + line +
                                  "{\"timestamp\": 1000, \"input_length\": 200, "
                                  "\"output_length\": 2, \"hash_ids\": [[1], {\"a\": null}]}\n") ==
        "accepted");
}

TEST_CASE("goodput: each target's share from the percentiles, by hand", "[core]") {
  // Floor 0.1 s, p50 0.2, p90 0.4, p99 0.7: linear to the median, exponential tails above it.
  const Percentiles p{0.2, 0.4, 0.7};
  CHECK(share_within(0.05, 0.1, p) == 0.0);
  CHECK(share_within(0.15, 0.1, p) == Approx(0.25));                // 0.5·0.05/0.1
  CHECK(share_within(0.3, 0.1, p) == Approx(0.776393));             // 1 − 0.5·0.2^(1/2)
  CHECK(share_within(0.55, 0.1, p) == Approx(0.968377));            // 1 − 0.1·0.1^(1/2)
  CHECK(share_within(1.0, 0.1, p) == Approx(0.999));                // 1 − 0.01·0.1^(0.3/0.3)
  CHECK(share_within(5.0, 0.1, Percentiles{0.2, 0.2, 0.2}) == 1.0); // no spread: all within
  InferenceEstimate e;
  e.ttft = p;
  e.ttft_floor_s = 0.1;
  e.tpot = {0.03, 0.04, 0.06};
  e.tpot_floor_s = 0.02;
  e.requests_per_s = 10.0;
  Sla sla;
  sla.ttft_ms = 300.0;
  sla.tpot_ms = 50.0;
  // TPOT ≤ 50 ms: 1 − 0.1·0.1^(0.01/0.02) = 0.968377; together 0.776393 × 0.968377 = 0.751841.
  const Goodput g = goodput(e, sla, BandFactors{});
  CHECK(g.has_targets);
  CHECK(g.tpot_share == Approx(0.968377));
  CHECK(g.slo_attainment == Approx(0.751841));
  CHECK(g.requests_per_s == Approx(7.51841));
  // At a band whose TTFT end is ×2 (p50 0.4 s): 0.5·(0.3 − 0.1)/(0.4 − 0.1) = 1/3 within.
  CHECK(goodput(e, sla, BandFactors{2.0, 1.0, 1.0}).ttft_share == Approx(1.0 / 3.0));
  e.overloaded = true;
  // Overloaded at the point: TTFT unbounded, so none within its target (it read 0.776 before);
  // TPOT's share stays.
  const Goodput over = goodput(e, sla, BandFactors{});
  CHECK(over.requests_per_s == 0.0);
  CHECK(over.ttft_share == 0.0);
  CHECK(over.tpot_share == Approx(0.968377));
  CHECK_FALSE(goodput(e, Sla{}, BandFactors{}).has_targets);
}

TEST_CASE("goodput: an open loop at its band's slow end, by hand", "[core]") {
  InferenceEstimate point;
  point.open_loop = true;
  point.ttft = {0.2, 0.4, 0.7};
  point.ttft_floor_s = 0.1;
  point.tpot = {0.03, 0.04, 0.06};
  point.tpot_floor_s = 0.02;
  point.requests_per_s = 10.0;
  InferenceEstimate slow = point; // the queue at the slow end's rate doubles TTFT
  slow.ttft = {0.4, 0.8, 1.4};
  slow.requests_per_s = 12.0; // served at the point's rate, not the slow end's
  Sla sla;
  sla.ttft_ms = 300.0;
  sla.tpot_ms = 50.0;
  // TTFT ≤ 300 ms: 0.5·(0.3 − 0.1)/(0.4 − 0.1) = 1/3; × TPOT's 0.968377 = 0.322792, of 10 req/s.
  const Goodput g = goodput(point, sla, BandFactors{}, &slow);
  CHECK(g.ttft_share == Approx(1.0 / 3.0));
  CHECK(g.slo_attainment == Approx(0.322792));
  CHECK(g.requests_per_s == Approx(3.22792));
  CHECK_FALSE(g.overloaded_at_band);
  // A closed loop has no slow end: the point's own distributions.
  point.open_loop = false;
  CHECK(goodput(point, sla, BandFactors{}, &slow).slo_attainment == Approx(0.751841));
  // Past capacity at the slow end: TTFT unbounded, none within target; TPOT's share stays.
  point.open_loop = true;
  slow.overloaded = true;
  const Goodput over = goodput(point, sla, BandFactors{}, &slow);
  CHECK(over.overloaded_at_band);
  CHECK(over.ttft_share == 0.0);
  CHECK(over.tpot_share == Approx(0.968377));
  CHECK(over.slo_attainment == 0.0);
  CHECK(over.requests_per_s == 0.0);
}

TEST_CASE("validation cases name the statistic they measured", "[io]") {
  const json doc =
      json::parse(io::read_text_file(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/validation/open-loop.json"));
  const std::vector<ValidationCase> cases =
      io::load_validation_cases(std::string(RIGHTSIZE_TEST_DATA_DIR) + "/validation/open-loop.json");
  REQUIRE(cases.size() == doc.at("cases").size());
  int compared = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string stat = doc.at("cases")[i].at("statistic").get<std::string>();
    CHECK(to_string(cases[i].statistic) == stat);
    ++compared;
  }
  REQUIRE(compared > 0);
  json bad = doc;
  bad["cases"] = json::array({doc.at("cases")[0]});
  bad["cases"][0]["kind"] = "inference_throughput";
  bad["cases"][0]["measured"] = {{"value", 1000.0}, {"unit", "output_tokens_per_s"}};
  const std::string path = write_temp("lengths-bad-statistic.json", bad.dump());
  CHECK(error_of_cases(path) ==
        path + ": /cases/0/statistic: expected a statistic only with kind ttft, tpot or e2e");
}

TEST_CASE("a case's engine settings are read as the command line reads them", "[io]") {
  const std::string path = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/validation/open-loop.json";
  const json doc = json::parse(io::read_text_file(path));
  const std::vector<ValidationCase> cases = io::load_validation_cases(path);
  REQUIRE(cases.size() == doc.at("cases").size());
  int stated = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& c = doc.at("cases")[i];
    const EngineConfig profile; // vLLM-like defaults: max_num_seqs 1024, r = 0
    const EngineConfig e = case_engine(cases[i], profile);
    if (!c.contains("engine")) {
      CHECK(e.max_num_seqs == profile.max_num_seqs);
      CHECK(e.kv_reserved_output_share == profile.kv_reserved_output_share);
      continue;
    }
    ++stated;
    CHECK(e.max_num_seqs == c.at("engine").value("max_num_seqs", profile.max_num_seqs));
    if (c.at("engine").contains("capacity_scheduler_policy")) {
      const bool max_utilization = c.at("engine").at("capacity_scheduler_policy") == "max_utilization";
      EngineConfig reserving = profile;
      reserving.kv_reserved_output_share = 1.0;
      CHECK(case_engine(cases[i], reserving).kv_reserved_output_share == (max_utilization ? 0.0 : 1.0));
    }
  }
  REQUIRE(stated > 0); // the NVIDIA MLPerf Server runs state theirs
  json bad = doc;
  bad["cases"] = json::array({doc.at("cases")[0]});
  bad["cases"][0]["engine"] = {{"capacity_scheduler_policy", "max_util"}};
  const std::string bad_path = write_temp("engine-bad-policy.json", bad.dump());
  CHECK(error_of_cases(bad_path) ==
        bad_path + ": /cases/0/engine/capacity_scheduler_policy: unknown value \"max_util\" (expected one "
                   "of \"guaranteed_no_evict\", \"max_utilization\")");
}

TEST_CASE("a case's prompt length may be its dataset's distribution", "[io]") {
  const std::string path = std::string(RIGHTSIZE_TEST_DATA_DIR) + "/validation/open-loop.json";
  const json doc = json::parse(io::read_text_file(path));
  json one = doc;
  one["cases"] = json::array({doc.at("cases")[0]});
  // MLPerf's OpenOrca prompts (open-loop.md): mean 222.3 → 222 tokens, p50 152, p99 791.
  one["cases"][0]["input_tokens"] = {{"mean", 222.3}, {"p50", 152}, {"p99", 791}};
  one["cases"][0]["output_tokens"] = 290;
  const std::vector<ValidationCase> cases =
      io::load_validation_cases(write_temp("case-lengths.json", one.dump()));
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].workload.input_tokens == 222);
  CHECK(cases[0].workload.input_spread.p50_tokens == 152.0);
  CHECK(cases[0].workload.input_spread.p99_tokens == 791.0);
  CHECK(cases[0].workload.input_spread.varies());
  CHECK(cases[0].workload.output_tokens == 290);
  CHECK_FALSE(cases[0].workload.output_spread.varies());
  // The spec's errors, at the case's pointer.
  one["cases"][0]["input_tokens"] = {{"mean", 222.3}, {"p50", 800}, {"p99", 791}};
  const std::string bad = write_temp("case-lengths-bad.json", one.dump());
  CHECK(error_of_cases(bad) == bad + ": /cases/0/input_tokens/p99: expected p99 at least p50 (800), got 791");
}

TEST_CASE("ranking by goodput: the cost per request within every target", "[core]") {
  Candidate a;
  a.price_known = true;
  a.usd_per_million_output_tokens_at_load = 2.0;
  a.slo_attainment = 0.5;
  Candidate b = a;
  b.usd_per_million_output_tokens_at_load = 3.0;
  b.slo_attainment = 1.0;
  CHECK(rank_key(a, RankBy::goodput) == Approx(4.0)); // $2 ÷ 50 %
  CHECK(rank_key(b, RankBy::goodput) == Approx(3.0));
  CHECK(rank_key(a, RankBy::cost_per_token) < rank_key(b, RankBy::cost_per_token)); // the order turns
  a.slo_attainment = 0.0;
  CHECK(std::isinf(rank_key(a, RankBy::goodput)));
  CHECK(std::string(to_string(RankBy::goodput)) == "goodput");
}
