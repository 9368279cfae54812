// Result files recognised by their content and the model they name (issue 38; docs/calibration.md
// "Input formats"): AIPerf's export, SGLang's lines with Python's Infinity, a CSV without its
// extension, and a model_id that contradicts --model. Fixtures in tests/calibrate/.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "calibrate_fixtures.hpp"
#include "io/json/json_reader.hpp"
#include "io/runs/bench_runs.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/error.hpp"

using namespace rightsize;

namespace {

std::string temp_file(const char* name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  io::write_text_file(path, text);
  return path;
}

io::RunContext h100(const char* engine) {
  io::RunContext c;
  c.gpu = "H100-SXM";
  c.engine = engine;
  return c;
}

} // namespace

TEST_CASE("formats by content, not by name", "[io][calibrate]") {
  using F = io::RunFormat;
  CHECK(io::detect_run_format(test::calibrate_fixture("h100-vllm-fit-no-extension")) == F::serving_csv);
  CHECK(io::detect_run_format(test::calibrate_fixture("training-runs.csv")) == F::training_csv);
  CHECK(io::detect_run_format(test::calibrate_fixture("vllm-bench-serve-qwen3-8b-h100-c1.json")) ==
        F::vllm_json);
  CHECK(io::detect_run_format(test::calibrate_fixture("sglang-bench-serving-qwen3-32b-h100-tp4.jsonl")) ==
        F::sglang_jsonl);
  CHECK(io::detect_run_format(test::calibrate_fixture("genai-perf-llama-3.1-8b-h100-trtllm-c8.json")) ==
        F::genai_perf_json);
  CHECK(io::detect_run_format(test::calibrate_fixture("aiperf-llama-3.1-8b-h100-trtllm-c8.json")) ==
        F::aiperf_json);
  CHECK(io::detect_run_format(test::calibrate_fixture("torchtitan-llama31-8b-h100x8.log")) ==
        F::torchtitan_log);
  // A vLLM result saved as .txt is still a vLLM result.
  const std::string text =
      io::read_text_file(test::calibrate_fixture("vllm-bench-serve-qwen3-8b-h100-c2.json"));
  CHECK(io::detect_run_format(temp_file("rightsize_vllm_result.txt", text)) == F::vllm_json);
  CHECK_THROWS_AS(io::detect_run_format(temp_file("rightsize_not_a_result.json", "{\"hello\": 1}")), Error);
  CHECK_THROWS_AS(io::detect_run_format(temp_file("rightsize_not_a_result.dat", "just text\n")), Error);
}

TEST_CASE("AIPerf export: metrics as GenAI-Perf's, concurrency and model from input_config",
          "[io][calibrate]") {
  io::RunFormat format{};
  const auto runs =
      io::load_benchmark_runs(test::calibrate_fixture("aiperf-llama-3.1-8b-h100-trtllm-c8.json"),
                              h100("trtllm"), test::shipped_presets(), &format);
  CHECK(format == io::RunFormat::aiperf_json);
  REQUIRE(runs.size() == 1);
  const StackRun& r = runs.front();
  CHECK(r.run.preset == "llama-3.1-8b"); // input_config.models.items[0].name: Llama-3.1-8B-Instruct
  CHECK(r.run.concurrency == 8);         // the "profiling" phase, not the warm-up
  CHECK(r.run.ttft_s == Approx(0.190955));
  CHECK(r.run.tpot_s == Approx(0.0079436));
  CHECK(r.output_tokens_per_s == Approx(853.48));
  // A rate-driven run is open loop: refused, naming the field.
  try {
    (void)io::load_benchmark_runs(test::calibrate_fixture("aiperf-legacy-request-rate.json"), h100("trtllm"),
                                  test::shipped_presets());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.pointer() == "/input_config/loadgen/request_rate");
  }
}

TEST_CASE("SGLang lines with request_rate Infinity and the model in server_info", "[io][calibrate]") {
  io::RunContext c = h100("sglang");
  c.tp = 4;
  const auto runs = io::load_benchmark_runs(test::calibrate_fixture("sglang-bench-serving-infinity.jsonl"), c,
                                            test::shipped_presets());
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].run.preset == "qwen3-32b"); // server_info.model_path
  CHECK(runs[0].run.concurrency == 16);
  CHECK(runs[0].run.ttft_s == Approx(0.413449));
}

TEST_CASE("a model_id that contradicts --model is refused naming the pointer", "[io][calibrate]") {
  io::RunContext c = h100("vllm");
  c.preset = "llama-3.1-70b";
  try {
    (void)io::load_benchmark_runs(test::calibrate_fixture("vllm-bench-serve-qwen3-8b-h100-c1.json"), c,
                                  test::shipped_presets());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.pointer() == "/model_id");
    CHECK(e.message().find("qwen3-8b") != std::string::npos);
  }
  // The same preset, or a path that names no shipped model, is accepted.
  c.preset = "qwen3-8b";
  CHECK(io::load_benchmark_runs(test::calibrate_fixture("vllm-bench-serve-qwen3-8b-h100-c1.json"), c,
                                test::shipped_presets())
            .size() == 1);
  c.preset = "llama-3.1-70b";
  CHECK(io::load_benchmark_runs(test::calibrate_fixture("vllm-bench-serve-local-path-c1.json"), c,
                                test::shipped_presets())
            .front()
            .run.preset == "llama-3.1-70b");
}
