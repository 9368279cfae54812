// Sweep engine in the CLI layer: key checks, rows (CSV parses, expected columns), thread
// independence, number formatting, status words, SVG well-formedness (docs/sweep.md).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "render/number_text.hpp"
#include "render/render.hpp"
#include "render/svg.hpp"
#include "render/sweep_plot.hpp"
#include "render/sweep_run.hpp"
#include "rightsize/error.hpp"

using namespace rightsize;
using namespace rightsize::cli;

namespace {

// An estimate-mode plan over the given --vary arguments: Llama-3.1-8B bf16, H100-SXM + L40S.
SweepPlan fixture_plan_sweep_cli(std::initializer_list<const char*> vary, std::size_t gpu = 0) {
  SweepPlan plan;
  for (const char* v : vary) {
    plan.axes.push_back(parse_sweep_axis(v, {}));
    SweepAxis& axis = plan.axes.back();
    if (axis.key->field == SweepField::gpu) {
      for (const auto& t : axis.values.texts)
        axis.numbers.push_back(t == "L40S" ? 1.0 : 0.0);
    }
  }
  plan.models.push_back(prepare_model(test::llama31_8b(), Precision{}));
  plan.gpus = {test::h100_sxm(), test::l40s()};
  plan.prices = {4.32, 0.0}; // the L40S has no price: cost cells stay empty
  plan.fixed.gpu = gpu;
  plan.workload.input_tokens = 1024;
  plan.workload.output_tokens = 256;
  finish_plan(plan);
  return plan;
}

std::string run_to_string(const SweepPlan& plan, RunOptions options, const std::string& label = "") {
  const RowWriter writer(plan, options.format, "fixture", label);
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&data, &size);
  run_sweep(plan, writer, options, f);
  std::fclose(f);
  std::string out(data, size);
  std::free(data);
  return out;
}

// Minimal RFC 4180 reader: rows of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  rows.pop_back(); // after the final newline
  return rows;
}

std::string usage_error(const char* argument) {
  try {
    (void)parse_sweep_axis(argument, {"llama-3.1-8b", "llama-3.1-70b"});
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::usage);
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("sweep keys and values are checked with the flag named", "[cli][sweep]") {
  CHECK(usage_error("workload.concurency=1,2") ==
        "--vary: unknown key \"workload.concurency\"; did you mean \"workload.concurrency\"?");
  CHECK(usage_error("precision=fp9") ==
        "--vary: precision: unknown precision \"fp9\"; did you mean \"fp8\"?");
  CHECK(
      usage_error("precision.kv_cache=int4") ==
      "--vary: precision.kv_cache: unknown KV-cache format \"int4\" (expected one of fp32, bf16, fp16, fp8)");
  CHECK(usage_error("workload.input_tokens=0.5,2") ==
        "--vary: workload.input_tokens: expected whole numbers from 1 to 1e+07, got \"0.5\"");
  CHECK(usage_error("workload.concurrency=1,many") ==
        "--vary: workload.concurrency: expected whole numbers from 1 to 1e+06 or \"auto\", got \"many\"");
  CHECK(usage_error("sla.tpot_ms=-1") ==
        "--vary: sla.tpot_ms: expected numbers above 0 and at most 1e+09, got \"-1\"");
  CHECK(usage_error("model.preset=llama-3.1-8") ==
        "--vary: model.preset: unknown preset \"llama-3.1-8\"; did you mean \"llama-3.1-8b\"?");
  CHECK(usage_error("tp") ==
        "--vary: expected KEY=VALUES such as workload.concurrency=1..256:x2, got \"tp\"");
  CHECK(usage_error("tp=8..1") == "--vary: tp: expected a range start at most its end, got \"8..1\"");
  const SweepAxis auto_axis = parse_sweep_axis("workload.concurrency=auto,8", {});
  CHECK(auto_axis.numbers == std::vector<double>{0.0, 8.0});
  CHECK(axis_json_value(auto_axis, 0) == "\"auto\"");
  CHECK(axis_json_value(auto_axis, 1) == "8");
  CHECK(axis_csv_cell(parse_sweep_axis("model.preset=a\"b", {"a\"b"}), 0) == "\"a\"\"b\"");
}

TEST_CASE("numbers are written as round_sig(v, 6) in shortest form", "[cli][sweep]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-12, 18);
  for (int i = 0; i < 20000; ++i) {
    const double v = (i % 2 == 0 ? 1.0 : -1.0) * mantissa(rng) * std::pow(10.0, exponent(rng));
    fmt::memory_buffer b;
    append_number(b, v);
    const std::string text = fmt::to_string(b);
    INFO(v << " " << text);
    // The value round_sig gives (which itself carries float noise above 1e9), with 6 digits or fewer.
    CHECK(std::stod(text) == Approx(round_sig(v)).epsilon(1e-12));
    const std::string digits_text = text.substr(0, text.find('e'));
    std::size_t digits = 0;
    bool leading = true;
    for (const char c : digits_text) {
      if (c >= '1' && c <= '9') leading = false;
      if (!leading && c >= '0' && c <= '9') ++digits;
    }
    std::size_t trailing = 0; // zeros only placing the decimal point (1234570) are not significant
    if (digits_text.find('.') == std::string::npos) {
      for (auto it = digits_text.rbegin(); it != digits_text.rend() && *it == '0'; ++it)
        ++trailing;
    }
    CHECK(digits - trailing <= 6);
    if (std::fabs(v) < 1e9) CHECK(text == fmt::format("{}", round_sig(v)));
  }
  for (const double v : {0.0, 1.0, 999999.7, 0.0001, 0.00001, 123.0, 1e16, 0.5}) {
    fmt::memory_buffer b;
    append_number(b, v);
    CHECK(fmt::to_string(b) == fmt::format("{}", round_sig(v)));
  }
}

TEST_CASE("numbers are written as fmt writes their 6-digit rounding, over the whole normal range",
          "[cli][sweep]") {
  // The reference rounds through printf's exact %.5e, then fmt's shortest form; 10^-308 to 10^308,
  // both signs (below 10^-300 the scaling takes two steps).
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> exponent(-307.5, 308.2);
  int compared = 0;
  for (int i = 0; i < 20000; ++i) {
    const double v = (i % 2 == 0 ? 1.0 : -1.0) * std::pow(10.0, exponent(rng));
    if (!std::isfinite(v) || std::fabs(v) < 2.3e-308) continue;
    char rounded[64];
    std::snprintf(rounded, sizeof rounded, "%.5e", v);
    char text[32];
    INFO(v);
    CHECK(std::string(text, write_number(text, v)) == fmt::format("{}", std::strtod(rounded, nullptr)));
    ++compared;
  }
  REQUIRE(compared > 19000);
}

TEST_CASE("the raw number writers stay within their stated lengths", "[cli][sweep]") {
  // The CSV figure cells are written into room reserved once (sweep_rows.cpp): 20 characters at
  // most for an integer, 17 for a number.
  char text[64];
  CHECK(std::string(text, write_int(text, std::numeric_limits<std::int64_t>::min())) ==
        "-9223372036854775808");
  CHECK(std::string(text, write_int(text, 0)) == "0");
  CHECK(std::string(text, write_number(text, -1.2345678e15)) == "-1234570000000000");
  CHECK(std::string(text, write_number(text, -1.2345678e-100)) == "-1.23457e-100");
  CHECK(write_number(text, std::nan("")) == text);
  // Either side of the 32-bit range and of the eight-digit blocks the 64-bit writer splits off.
  for (const std::int64_t x : {99999999LL, 100000000LL, 4294967295LL, 4294967296LL, 10000000000LL,
                               1000000000000000000LL, 1000000000000000001LL, 9999999999999999LL}) {
    INFO(x);
    CHECK(std::string(text, write_int(text, x)) == std::to_string(x));
  }
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) { // every length, both signs: as std::to_string writes them
    const auto v = static_cast<std::int64_t>(rng() >> (i % 64));
    for (const std::int64_t x : {v, -v}) {
      INFO(x);
      CHECK(std::string(text, write_int(text, x)) == std::to_string(x));
    }
  }
}

TEST_CASE("put_fixed writes what fmt's {:.Nf} writes", "[cli][sweep]") {
  // Random values across magnitudes, exact ties (0.25, 2.5: fmt rounds them to even), values just
  // off a tie, negatives and -0.0, the huge and the non-finite: each against fmt for N = 0..3.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-6, 14);
  std::vector<double> values = {0.0,   -0.0,  0.25,  2.5,   0.05,   1.45,   0.125,        999.95,  1e13,
                                -0.01, 1e300, 172.2, 174.6, 0.0005, 0.4999, std::nan(""), INFINITY};
  for (int i = 0; i < 20000; ++i)
    values.push_back((i % 3 == 0 ? -1.0 : 1.0) * mantissa(rng) * std::pow(10.0, exponent(rng)));
  for (int i = 0; i < 2000; ++i) // halves and near-halves of the last printed digit
    values.push_back((std::floor(mantissa(rng) * 1000.0) + 0.5) / 1000.0 + (i % 2) * 1e-12);
  int compared = 0;
  for (const double v : values) {
    for (int decimals = 0; decimals <= 3; ++decimals) {
      fmt::memory_buffer b;
      put_fixed(b, v, decimals);
      INFO(v << " at " << decimals);
      CHECK(fmt::to_string(b) == fmt::format("{:.{}f}", v, decimals));
      ++compared;
    }
  }
  REQUIRE(compared == 4 * static_cast<int>(values.size()));
}

TEST_CASE("CSV rows parse with the keys first, one row per point, failures keep their reason",
          "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli(
      {"gpu=H100-SXM,L40S", "workload.concurrency=1,64", "workload.input_tokens=1024,4000000"});
  RunOptions options;
  const auto rows = parse_csv(run_to_string(plan, options));
  REQUIRE(rows.size() == 1 + 8);
  std::vector<std::string> header = {"gpu", "workload.concurrency", "workload.input_tokens"};
  for (const auto c : sweep_figure_columns())
    header.emplace_back(c);
  CHECK(rows[0] == header);
  for (const auto& row : rows)
    CHECK(row.size() == header.size());
  // Row order: last --vary fastest.
  CHECK(rows[1][0] == "H100-SXM");
  CHECK(rows[1][1] == "1");
  CHECK(rows[2][2] == "4000000");
  CHECK(rows[3][1] == "64");
  CHECK(rows[1].back() == "ok");
  CHECK(rows[1][3] == "H100-SXM");
  // Not one 4M-token context fits L40S replicas of up to 8 GPUs (65 GB of KV per GPU at TP8): the reason
  // stays in the row. (One that fits would serve its 64 clients one slot at a time, methodology §3.1.)
  CHECK(rows[8].back().starts_with("does_not_fit: needs "));
  CHECK(rows[8].back().find(" GB per GPU, has ") != std::string::npos);
  // The L40S has no price here: cost cells are empty, the other figures are not.
  const auto col = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  CHECK(rows[5][col("cost.usd_per_hour")].empty());
  CHECK_FALSE(rows[5][col("inference.tpot_s")].empty());
  CHECK_FALSE(rows[1][col("cost.usd_per_million_output_tokens_at_capacity")].empty());
}

TEST_CASE("output bytes do not depend on the thread count", "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli(
      {"workload.concurrency=1..300", "workload.output_tokens=64..1024:x2", "sla.tpot_ms=20,50"});
  for (const Format format : {Format::csv, Format::jsonl, Format::json}) {
    RunOptions one;
    one.format = format;
    one.threads = 1;
    RunOptions two = one;
    two.threads = 2;
    two.chunk_points = 97; // many rounds, slices not aligned to the axes
    RunOptions three = two;
    three.threads = 3;
    const std::string a = run_to_string(plan, one);
    CHECK(a == run_to_string(plan, two));
    CHECK(a == run_to_string(plan, three));
  }
}

TEST_CASE("the Pareto output holds exactly the non-dominated passing points", "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli({"workload.concurrency=1..512:x2", "tp=1,2,4"});
  RunOptions options;
  options.x = find_metric("inference.tpot_s", plan, "--x");
  options.y = find_metric("cost.usd_per_million_output_tokens_at_load", plan, "--y");
  const auto all = parse_csv(run_to_string(plan, options));
  options.pareto = true;
  const auto front = parse_csv(run_to_string(plan, options));
  REQUIRE(front.size() > 2);
  const std::size_t tpot = 2 + 15; // two keys, then inference.tpot_s (figure column 15)
  const std::size_t cost = 2 + 29; // cost.usd_per_million_output_tokens_at_load (figure column 29)
  REQUIRE(all[0][tpot] == "inference.tpot_s");
  REQUIRE(all[0][cost] == "cost.usd_per_million_output_tokens_at_load");
  std::size_t compared = 0; // (front point, passing point) pairs checked for dominance
  for (std::size_t i = 1; i < front.size(); ++i) {
    CHECK(front[i].back() == "ok");
    const double t = std::stod(front[i][tpot]);
    const double c = std::stod(front[i][cost]);
    for (std::size_t j = 1; j < all.size(); ++j) {
      if (all[j].back() != "ok") continue;
      const double t2 = std::stod(all[j][tpot]);
      const double c2 = std::stod(all[j][cost]);
      CHECK_FALSE((t2 <= t && c2 <= c && (t2 < t || c2 < c)));
      ++compared;
    }
  }
  REQUIRE(compared > 0);
}

TEST_CASE("jsonl rows carry the estimate document's field names", "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli({"workload.concurrency=auto,8"});
  RunOptions options;
  options.format = Format::jsonl;
  const std::string out = run_to_string(plan, options);
  std::istringstream lines(out);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    const auto doc = nlohmann::json::parse(line);
    CHECK(doc["status"] == "ok");
    CHECK(doc["deployment"]["gpu"] == "H100-SXM");
    CHECK(doc["inference"].contains("tpot_s"));
    CHECK(doc["memory"].contains("per_gpu_bytes"));
    CHECK(doc["cost"].contains("usd_per_million_output_tokens_at_capacity"));
    ++n;
  }
  CHECK(n == 2);
  CHECK(out.starts_with("{\"cost\": {\"gpus_billed\": 1, \"price_known\": true")); // keys sorted
  CHECK(out.find("\"point\": {\"workload.concurrency\": \"auto\"}") != std::string::npos);
  options.format = Format::json;
  const auto doc = nlohmann::json::parse(run_to_string(plan, options));
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["points"].size() == 2);
  CHECK(doc["keys"] == nlohmann::json::array({"workload.concurrency"}));
}

TEST_CASE("status words match describe_rejection", "[cli][sweep]") {
  SweepPlan plan = fixture_plan_sweep_cli({"workload.concurrency=1"});
  PointResult p;
  p.estimate.concurrency = 16;
  // The words a user reads, written out by hand, then the same through describe_rejection (the
  // sweep's fast writer and the other commands' text must not drift apart).
  const std::pair<TermCheck, std::string> cases[] = {
      {failed_term(Term::memory, 151.2e9, 76.5e9),
       "does_not_fit: needs 151.2 GB per GPU, has 76.5 GB usable"},
      {failed_term(Term::tpot, 71.0, 50.0), "tpot: TPOT 71.0 ms > SLA 50 ms at concurrency 16"},
      {failed_term(Term::ttft, 1200.0, 1000.0), "ttft: TTFT 1200 ms > SLA 1000 ms at concurrency 16"},
      {failed_term(Term::budget, 20.0, 10.0), "budget: costs $20.00/h > budget $10/h"},
      {failed_term(Term::precision, 0, 0),
       "precision_unsupported: the catalog gives this GPU no tensor-core rate for this precision (it does "
       "not "
       "run it, or no figure is published)"},
  };
  for (const auto& [r, words] : cases) {
    p.rejection = r;
    Candidate c;
    c.rejection = r;
    c.estimate.concurrency = 16;
    fmt::memory_buffer b;
    append_status(b, plan, p);
    CHECK(fmt::to_string(b) == words);
    CHECK(fmt::to_string(b) == fmt::format("{}: {}", reason_code(r.term), describe_rejection(c)));
  }
}

TEST_CASE("the SVG plot is well-formed with one colour per series and the front", "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli({"tp=1,2,4", "workload.concurrency=1..256:x2"});
  RunOptions options;
  options.x = find_metric("inference.tpot_s", plan, "--x");
  options.y = find_metric("cost.usd_per_million_output_tokens_at_load", plan, "--y");
  PlotData plot = make_plot_data(plan, options.x, options.y);
  options.plot = &plot;
  (void)run_to_string(plan, options);
  plot.series_names[0] = "tp <1> & \"one\""; // escaping
  const std::string svg = render_plot(plot);
  // Balanced tags: a stack of open elements, self-closing ones skipped.
  std::vector<std::string> stack;
  for (std::size_t i = svg.find('<'); i != std::string::npos; i = svg.find('<', i + 1)) {
    const std::size_t end = svg.find('>', i);
    REQUIRE(end != std::string::npos);
    const std::string tag = svg.substr(i + 1, end - i - 1);
    if (tag.starts_with("?") || tag.ends_with("/")) continue;
    if (tag.starts_with("/")) {
      REQUIRE_FALSE(stack.empty());
      CHECK(stack.back() == tag.substr(1));
      stack.pop_back();
    } else {
      stack.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  CHECK(stack.empty());
  const auto count = [&](std::string_view needle) {
    std::size_t n = 0;
    for (std::size_t i = svg.find(needle); i != std::string::npos; i = svg.find(needle, i + 1))
      ++n;
    return n;
  };
  CHECK(plot.series_key == "tp");
  CHECK(count("<circle") == plot.points.size() + 3); // points + one legend swatch per series
  CHECK(plot.points.size() == plot.ok_points);
  CHECK(count("<polyline class=\"pareto\"") == 1);
  CHECK(svg.find("tp &lt;1&gt; &amp; &quot;one&quot;") != std::string::npos);
  CHECK(svg.find("TPOT (ms)") != std::string::npos);
  CHECK(svg.find("Pareto front") != std::string::npos);
  CHECK(render_plot(plot) == svg); // deterministic bytes
}

TEST_CASE("a numeric x key with one series draws lines", "[cli][sweep]") {
  const SweepPlan plan = fixture_plan_sweep_cli({"tp=1,2", "workload.concurrency=1..64:x2"});
  const Metric x = find_metric("workload.concurrency", plan, "--x");
  const Metric y = find_metric("inference.output_tokens_per_s", plan, "--y");
  CHECK_FALSE(x.has_direction);
  PlotData plot = make_plot_data(plan, x, y);
  CHECK(plot.lines);
  CHECK(plot.series_key == "tp");
  RunOptions options;
  options.x = x;
  options.y = y;
  options.plot = &plot;
  (void)run_to_string(plan, options);
  const std::string svg = render_plot(plot);
  std::size_t lines = 0;
  for (std::size_t i = svg.find("class=\"series\""); i != std::string::npos;
       i = svg.find("class=\"series\"", i + 1))
    ++lines;
  CHECK(lines == 2);
}

TEST_CASE("nice ticks", "[cli][sweep]") {
  CHECK(linear_ticks(0, 10) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(linear_ticks(0.3, 0.9, 3) == std::vector<double>{0.4, 0.6, 0.8});
  CHECK(log_ticks(1e-3, 1e2) == std::vector<double>{1e-3, 1e-2, 1e-1, 1, 10, 100});
  CHECK(tick_label(1500) == "1500");
  CHECK(tick_label(25000) == "25k");
  CHECK(tick_label(0.001) == "0.001");
}

TEST_CASE("a latency-load plot draws misses hollow and rings each series' knee", "[cli][sweep]") {
  PlotData plot;
  plot.x.name = "workload.request_rate_per_s";
  plot.x.label = "workload.request_rate_per_s";
  plot.y.name = "inference.ttft_p99_s";
  plot.y.label = "TTFT p99";
  plot.y.unit = "ms";
  plot.y.scale = 1e3;
  plot.latency_load = true;
  plot.lines = true;
  // Loads 1, 2, 4, 8 at 1.0, 1.1, 1.6, 5.0 s (power 1, 1.82, 2.5, 1.6); the last misses a target.
  const double loads[] = {1.0, 2.0, 4.0, 8.0};
  const double latencies[] = {1.0, 1.1, 1.6, 5.0};
  for (std::size_t i = 0; i < 4; ++i)
    plot.points.push_back({loads[i], latencies[i], 0, i, i < 3});
  plot.total_points = 4;
  plot.ok_points = 3;
  app::find_knees(plot);
  REQUIRE(plot.knees.size() == 1);
  CHECK(plot.knees[0].x == 4.0);
  CHECK(plot.knees[0].y == 1.6);
  const std::string svg = render_plot(plot);
  const auto count = [&](std::string_view needle) {
    std::size_t n = 0;
    for (std::size_t i = svg.find(needle); i != std::string::npos; i = svg.find(needle, i + 1))
      ++n;
    return n;
  };
  // Three filled points; rings: one hollow point, the knee, and their two legend swatches.
  CHECK(count("fill-opacity=\"0.75\"") == 3);
  CHECK(count("<circle") == 7);
  CHECK(svg.find("knee 4") != std::string::npos);
  CHECK(svg.find("misses a requirement") != std::string::npos);
  CHECK(svg.find("knee: most load per latency") != std::string::npos);
}
