// Reading benchmark result files for `rightsize calibrate` (docs/calibration.md, "Input formats"):
// unit conversions and the per-request lengths, by hand from the fixtures in tests/calibrate/.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "bench_runs.hpp"
#include "overlay_io.hpp"
#include "rightsize/error.hpp"
#include "validation_io.hpp"

using namespace rightsize;

namespace {

const std::vector<io::Preset>& presets() {
  static const std::vector<io::Preset> p = io::load_presets(std::string(RIGHTSIZE_DATA_DIR) + "/models");
  return p;
}

std::string fixture(const char* name) {
  return std::string(RIGHTSIZE_TEST_DATA_DIR) + "/calibrate/" + name;
}

io::RunContext qwen_h100(const char* engine) {
  io::RunContext c;
  c.preset = "qwen3-32b";
  c.gpu = "H100-SXM";
  c.engine = engine;
  c.tp = 4;
  return c;
}

} // namespace

TEST_CASE("vLLM --save-result: ms to s, ISL and OSL per request from the totals", "[io][calibrate]") {
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs = io::load_benchmark_runs(fixture("vllm-bench-serve-qwen3-32b-h100-tp4-c16.json"),
                                            qwen_h100("vllm"), presets(), &format);
  CHECK(format == io::RunFormat::vllm_json);
  REQUIRE(runs.size() == 1);
  const ServingRun& r = runs[0].run;
  // completed 160, total_input_tokens 163,840 -> 1,024 per request; total_output_tokens 81,920 -> 512.
  CHECK(r.input_tokens == 1024);
  CHECK(r.output_tokens == 512);
  CHECK(r.concurrency == 16);           // max_concurrency
  CHECK(r.ttft_s == Approx(0.164155));  // mean_ttft_ms 164.155
  CHECK(r.tpot_s == Approx(0.0118526)); // mean_tpot_ms 11.8526
  CHECK(r.tp == 4);
  // output_throughput, tokens/s (the fixture's closed-loop value 16 × 512 / (0.164155 + 511 × 0.0118526 s)
  // = 8192 / 6.22083 = 1316.87)
  CHECK(runs[0].output_tokens_per_s == Approx(1316.87));
  CHECK(runs[0].model.layers > 0);
}

TEST_CASE("SGLang bench_serving JSONL: one run per line, ids by line", "[io][calibrate]") {
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs = io::load_benchmark_runs(fixture("sglang-bench-serving-qwen3-32b-h100-tp4.jsonl"),
                                            qwen_h100("sglang"), presets(), &format);
  CHECK(format == io::RunFormat::sglang_jsonl);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].run.id == "sglang-bench-serving-qwen3-32b-h100-tp4:1");
  CHECK(runs[1].run.concurrency == 64);
  CHECK(runs[1].run.ttft_s == Approx(1.142696));
}

TEST_CASE("GenAI-Perf profile export: avg of each metric, unit checked", "[io][calibrate]") {
  io::RunContext c = qwen_h100("trtllm");
  c.preset = "llama-3.1-8b";
  c.tp = 1;
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs =
      io::load_benchmark_runs(fixture("genai-perf-llama-3.1-8b-h100-trtllm-c8.json"), c, presets(), &format);
  CHECK(format == io::RunFormat::genai_perf_json);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run.concurrency == 8);            // input_config.concurrency
  CHECK(runs[0].run.tpot_s == Approx(0.0079436)); // inter_token_latency.avg 7.9436 ms
  CHECK(runs[0].run.input_tokens == 1024);
}

TEST_CASE("serving-measurements CSV: context from the rows", "[io][calibrate]") {
  const auto runs = io::load_benchmark_runs(fixture("h100-vllm-fit.csv"), io::RunContext{}, presets());
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].run.engine == "vllm");
  CHECK(runs[0].run.gpu_id == "H100-SXM");
  CHECK(runs[0].run.tp == 2);
  CHECK(runs[0].run.ttft_s == Approx(0.154248));
  CHECK(runs[0].output_tokens_per_s == 0.0); // the CSV has no throughput column
}

TEST_CASE("the overlay survives a write and a read", "[io][calibrate]") {
  io::CalibrationOverlay o;
  o.date = "2026-11-22";
  o.inputs = {"a.csv"};
  StackFit s;
  s.gpu_id = "H100-SXM";
  s.engine = "vllm";
  s.runs = {"r1", "r2"};
  s.fitted.efficiency.decode_bandwidth = 0.76341; // written to 4 decimals
  s.fitted.decode_source = "fitted";
  s.fitted.prefill_source = "shipped";
  s.fitted.communication_source = "shipped";
  s.fitted.training_source = "shipped";
  s.fitted.decode_cases = {"r1:tpot", "r2:tpot"};
  BandEntry b;
  b.kind = FigureKind::tpot;
  b.ratio_low = 0.86;
  b.ratio_high = 1.02;
  b.cases = 5;
  b.rule = "user runs, leave-one-out";
  s.bands = {b};
  o.stacks = {s};
  const std::string path = (std::filesystem::temp_directory_path() / "rightsize_test_overlay.json").string();
  io::write_text_file(path, io::overlay_to_json(o));
  const io::CalibrationOverlay back = io::load_overlay(path);
  REQUIRE(back.stacks.size() == 1);
  CHECK(back.date == "2026-11-22");
  CHECK(back.stacks[0].fitted.efficiency.decode_bandwidth == Approx(0.7634));
  CHECK(back.stacks[0].fitted.decode_source == "fitted");
  CHECK(back.stacks[0].fitted.decode_cases.size() == 2);
  REQUIRE(back.stacks[0].bands.size() == 1);
  CHECK(back.stacks[0].bands[0].gpu_id == "H100-SXM");
  CHECK(back.stacks[0].bands[0].ratio_high == Approx(1.02));
}
