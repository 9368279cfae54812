// Reading benchmark result files for `rightsize calibrate` (docs/calibration.md, "Input formats"):
// unit conversions and the per-request lengths, by hand from the fixtures in tests/calibrate/.
#include <filesystem>
#include <functional>
#include <string>

#include <catch2/catch.hpp>

#include "calibrate_fixtures.hpp"
#include "fixtures.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/bench_runs.hpp"
#include "io/runs/training_runs.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/stack_calibration.hpp"

using namespace rightsize;

namespace {

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
  const auto runs =
      io::load_benchmark_runs(test::calibrate_fixture("vllm-bench-serve-qwen3-32b-h100-tp4-c16.json"),
                              qwen_h100("vllm"), test::shipped_presets(), &format);
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
  const auto runs =
      io::load_benchmark_runs(test::calibrate_fixture("sglang-bench-serving-qwen3-32b-h100-tp4.jsonl"),
                              qwen_h100("sglang"), test::shipped_presets(), &format);
  CHECK(format == io::RunFormat::sglang_jsonl);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].run.id == "sglang-bench-serving-qwen3-32b-h100-tp4:1");
  CHECK(runs[1].run.concurrency == 64);
  CHECK(runs[1].run.ttft_s == Approx(1.142696));
  CHECK(runs[1].ttft_p99_s == Approx(1.142696));  // p99_ttft_ms 1142.696
  CHECK(runs[1].tpot_p99_s == Approx(0.0151681)); // p99_tpot_ms 15.1681
}

TEST_CASE("vLLM p99: p99_ttft_ms and p99_tpot_ms in ms", "[io][calibrate][tails]") {
  io::RunContext c = qwen_h100("vllm");
  c.preset = "qwen3-8b";
  c.tp = 1;
  const auto runs = io::load_benchmark_runs(test::calibrate_fixture("vllm-bench-serve-qwen3-8b-h100-c8.json"),
                                            c, test::shipped_presets());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run.ttft_s == Approx(0.07457)); // Mean TTFT 74.57 ms
  CHECK(runs[0].ttft_p99_s == Approx(0.20411)); // P99 TTFT 204.11 ms
  CHECK(runs[0].tpot_p99_s == Approx(0.00819)); // P99 TPOT 8.19 ms
  CHECK(runs[0].run.input_tokens == 233);       // 23,260 / 100, rounded
}

TEST_CASE("GenAI-Perf profile export: avg of each metric, unit checked", "[io][calibrate]") {
  io::RunContext c = qwen_h100("trtllm");
  c.preset = "llama-3.1-8b";
  c.tp = 1;
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs =
      io::load_benchmark_runs(test::calibrate_fixture("genai-perf-llama-3.1-8b-h100-trtllm-c8.json"), c,
                              test::shipped_presets(), &format);
  CHECK(format == io::RunFormat::genai_perf_json);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run.concurrency == 8);            // input_config.concurrency
  CHECK(runs[0].run.tpot_s == Approx(0.0079436)); // inter_token_latency.avg 7.9436 ms
  CHECK(runs[0].run.input_tokens == 1024);
  CHECK(runs[0].ttft_p99_s == Approx(0.190955));  // time_to_first_token.p99 190.955 ms
  CHECK(runs[0].tpot_p99_s == Approx(0.0079436)); // inter_token_latency.p99 7.9436 ms
}

TEST_CASE("serving-measurements CSV: context from the rows", "[io][calibrate]") {
  const auto runs = io::load_benchmark_runs(test::calibrate_fixture("h100-vllm-fit.csv"), io::RunContext{},
                                            test::shipped_presets());
  REQUIRE(runs.size() == 5);
  CHECK(runs[0].run.engine == "vllm");
  CHECK(runs[0].run.gpu_id == "H100-SXM");
  CHECK(runs[0].run.tp == 2);
  CHECK(runs[0].run.batch_size == 8);
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
  s.fitted.efficiency.layer_overhead = 1.37; // a multiple of the engine's, above 1 is in range
  s.fitted.layer_overhead_source = "fitted";
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
  TailFit t;
  t.kind = FigureKind::ttft;
  t.p99_over_mean = 1.5012;
  t.runs = 4;
  s.tails = {t};
  LayoutFit own;
  own.family = LayoutFamily::ep;
  own.runs = {"r1", "r2", "r3"};
  own.own = true;
  own.fitted.efficiency.decode_bandwidth = 0.5;
  own.fitted.decode_source = "fitted";
  own.fitted.prefill_source = own.fitted.communication_source = own.fitted.training_source = "stack";
  own.fitted.layer_overhead_source = "stack";
  LayoutFit few;
  few.family = LayoutFamily::tp_pp;
  few.runs = {"r4"};
  s.layouts = {own, few};
  StackResidual res;
  res.model = "qwen3-32b";
  res.weights = "bf16";
  res.engine = "vllm";
  res.tp = 2;
  res.runs = 5;
  res.concurrency_min = 4;
  res.concurrency_max = 64;
  res.input_min = 1024;
  res.input_max = 8192;
  res.ttft.coefficients = {0.12345, -0.05};
  res.ttft.loo_before_pct = 31.0;
  res.ttft.loo_after_pct = 12.0;
  s.residuals = {res};
  o.stacks = {s};
  const std::string path = (std::filesystem::temp_directory_path() / "rightsize_test_overlay.json").string();
  io::write_text_file(path, io::overlay_to_json(o));
  const io::CalibrationOverlay back = io::load_overlay(path);
  REQUIRE(back.stacks.size() == 1);
  CHECK(back.date == "2026-11-22");
  CHECK(back.stacks[0].fitted.efficiency.decode_bandwidth == Approx(0.7634));
  CHECK(back.stacks[0].fitted.decode_source == "fitted");
  CHECK(back.stacks[0].fitted.decode_cases.size() == 2);
  CHECK(back.stacks[0].fitted.efficiency.layer_overhead == Approx(1.37));
  CHECK(back.stacks[0].fitted.layer_overhead_source == "fitted");
  REQUIRE(back.stacks[0].bands.size() == 1);
  REQUIRE(back.stacks[0].tails.size() == 1);
  CHECK(back.stacks[0].tails[0].p99_over_mean == Approx(1.5012));
  CHECK(back.stacks[0].tails[0].runs == 4);
  REQUIRE(back.stacks[0].layouts.size() == 2);
  CHECK(back.stacks[0].layouts[0].family == LayoutFamily::ep);
  CHECK(back.stacks[0].layouts[0].own);
  CHECK(back.stacks[0].layouts[0].fitted.efficiency.decode_bandwidth == Approx(0.5));
  CHECK(back.stacks[0].layouts[0].fitted.prefill_source == "stack");
  CHECK(back.stacks[0].layouts[1].family == LayoutFamily::tp_pp);
  CHECK_FALSE(back.stacks[0].layouts[1].own);
  CHECK(back.stacks[0].bands[0].gpu_id == "H100-SXM");
  CHECK(back.stacks[0].bands[0].ratio_high == Approx(1.02));
  REQUIRE(back.stacks[0].residuals.size() == 1);
  const StackResidual& r = back.stacks[0].residuals[0];
  CHECK(r.model == "qwen3-32b");
  CHECK(r.tp == 2);
  CHECK(r.concurrency_max == 64);
  CHECK(r.input_min == 1024);
  REQUIRE(r.ttft.coefficients.size() == 2);
  CHECK(r.ttft.coefficients[0] == Approx(0.1235)); // 4 decimals
  CHECK(r.tpot.coefficients.empty());
  CHECK(r.ttft.loo_after_pct == Approx(12.0));
}

// Training inputs (docs/calibration.md, "Training runs"): torchtitan's metrics lines, the warm-up
// rule, and the training CSV, by hand from tests/calibrate/.
namespace {

io::RunContext llama_h100(int gpus, std::int64_t global_batch) {
  io::RunContext c;
  c.preset = "llama-3.1-8b";
  c.gpu = "H100-SXM";
  c.gpus = gpus;
  c.seq_len = 8192;
  c.global_batch = global_batch;
  c.recompute = "per_op";
  return c;
}

const ValidationCase* case_of(const StackRun& r, FigureKind kind) {
  for (const ValidationCase& c : r.cases)
    if (c.kind == kind) return &c;
  return nullptr;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return format_error(e);
  }
  return "no error";
}

} // namespace

TEST_CASE("torchtitan metrics line: colours, thousands separators, GiB", "[io][calibrate][training]") {
  const std::string text =
      "[rank0]:[titan] 2024-12-26 10:00:45,000 - root - INFO - Training starts at step 1.\n"
      "[rank0]:[titan] 2024-12-26 10:00:46,000 - root - INFO - \x1b[31mstep:  1  \x1b[32mloss: 12.2510  "
      "\x1b[36mmemory: 78.11GiB(87.36%)  \x1b[34mtps: 1,187  \x1b[96mtflops: 68.74  \x1b[35mmfu: "
      "6.95%\x1b[39m\n"
      "[titan] x - root - INFO - validate step: 10  loss:  7.0000  memory: 80.00GiB(90.00%)  tps: 9,999\n"
      "[titan] x - root - INFO - step: 20  loss:  9.4102  grad_norm:  4.3390  memory: 82.40GiB(92.16%)  "
      "tps: 15,762  tflops: 1,333.70  mfu: 33.74%\n";
  const auto steps = io::parse_torchtitan_log(text, "t.log");
  REQUIRE(steps.size() == 2); // the validation line and the plain message are skipped
  CHECK(steps[0].step == 1);
  CHECK(steps[0].tokens_per_s_per_gpu == 1187.0);
  CHECK(steps[0].memory_reserved_gib == Approx(78.11));
  CHECK(steps[1].step == 20);
  CHECK(steps[1].tokens_per_s_per_gpu == 15762.0);
}

TEST_CASE("torchtitan metrics line: a missing tps or an unknown key names file:line",
          "[io][calibrate][training]") {
  CHECK_THAT(error_of([] {
               (void)io::parse_torchtitan_log("a\nstep: 20  loss: 9.4  memory: 82.40GiB(92%)\n", "t.log");
             }),
             Catch::Contains("t.log:2") && Catch::Contains("without \"tps:\""));
  CHECK_THAT(error_of([] {
               (void)io::parse_torchtitan_log("step: 20  loss: 9.4  wps: 5,762  memory: 1GiB  tps: 1\n",
                                              "t.log");
             }),
             Catch::Contains("t.log:1") && Catch::Contains("unknown metric \"wps\""));
  CHECK_THAT(error_of([] {
               (void)io::parse_torchtitan_log("step: 20  loss: 9.4  memory: 82.4GB  tps: 1\n", "t.log");
             }),
             Catch::Contains("\"memory\": expected peak reserved memory in GiB"));
}

TEST_CASE("warm-up rule: step 1 always, then the first 10 % of the run", "[core][calibrate][training]") {
  CHECK(default_warmup_steps(100) == 10);
  CHECK(default_warmup_steps(5) == 1);
  CHECK(default_warmup_steps(101) == 11);
  const std::vector<TrainingLogStep> steps = {
      {1, 1000.0, 70.0}, {10, 4000.0, 80.0}, {20, 5000.0, 81.0}, {30, 6000.0, 82.0}};
  const TrainingLogSummary s = summarize_training_log(steps, -1); // default: steps <= 3 dropped
  CHECK(s.warmup_through_step == 3);
  CHECK(s.lines_dropped == 1);
  CHECK(s.lines_kept == 3);
  CHECK(s.tokens_per_s_per_gpu == Approx(5000.0));
  CHECK(s.peak_memory_reserved_bytes == Approx(82.0 * 1073741824.0));
  const TrainingLogSummary t = summarize_training_log(steps, 10);
  CHECK(t.lines_kept == 2);
  CHECK(t.tokens_per_s_per_gpu == Approx(5500.0));
  CHECK(summarize_training_log(steps, 30).lines_kept == 0);
}

TEST_CASE("torchtitan log fixture: warm-up dropped, tps x GPUs, reserved GiB", "[io][calibrate][training]") {
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs = io::load_benchmark_runs(test::calibrate_fixture("torchtitan-llama31-8b-h100x8.log"),
                                            llama_h100(8, 16), test::shipped_presets(), &format);
  CHECK(format == io::RunFormat::torchtitan_log);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run.engine == "training");
  const ValidationCase* tput = case_of(runs[0], FigureKind::training_throughput);
  REQUIRE(tput != nullptr);
  // Steps 1 and 10 are warm-up (<= 10 % of 100); steps 20..100 log 5,762 tps per GPU x 8 GPUs.
  CHECK(tput->measured == Approx(5762.0 * 8));
  CHECK(tput->deployment.gpus == 8);
  CHECK(tput->training_global_batch == 16);
  CHECK(tput->training_seq_len == 8192);
  CHECK(tput->training_recompute == Recompute::per_op);
  CHECK(tput->training_framework == TrainingFramework::torchtitan);
  const ValidationCase* mem = case_of(runs[0], FigureKind::training_memory);
  REQUIRE(mem != nullptr);
  CHECK(mem->measured == Approx(82.40 * 1073741824.0)); // 82.40 GiB reserved
  CHECK(mem->memory_scope == MemoryScope::reserved);
  // With --warmup-steps 0 the warm-up lines count: (1,187 + 5,698 + 9 x 5,762) / 11 per GPU.
  io::RunContext all = llama_h100(8, 16);
  all.warmup_steps = 0;
  const auto with_warmup = io::load_benchmark_runs(
      test::calibrate_fixture("torchtitan-llama31-8b-h100x8.log"), all, test::shipped_presets());
  CHECK(case_of(with_warmup[0], FigureKind::training_throughput)->measured ==
        Approx((1187.0 + 5698.0 + 9 * 5762.0) / 11.0 * 8));
}

TEST_CASE("torchtitan log: the context it lacks is named", "[io][calibrate][training]") {
  io::RunContext c = llama_h100(8, 16);
  c.global_batch = 0;
  CHECK_THAT(error_of([&] {
               (void)io::load_benchmark_runs(test::calibrate_fixture("torchtitan-llama31-8b-h100x8.log"), c,
                                             test::shipped_presets());
             }),
             Catch::Contains("global batch"));
  c = llama_h100(8, 16);
  c.warmup_steps = 100;
  CHECK_THAT(error_of([&] {
               (void)io::load_benchmark_runs(test::calibrate_fixture("torchtitan-llama31-8b-h100x8.log"), c,
                                             test::shipped_presets());
             }),
             Catch::Contains("all 11 step lines are warm-up steps (step <= 100)"));
}

TEST_CASE("training CSV: per-GPU tokens/s or step time, GiB, layout check", "[io][calibrate][training]") {
  io::RunFormat format = io::RunFormat::serving_csv;
  const auto runs = io::load_benchmark_runs(test::calibrate_fixture("training-runs.csv"), io::RunContext{},
                                            test::shipped_presets(), &format);
  CHECK(format == io::RunFormat::training_csv);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].run.gpu_id == "A100-80GB-SXM");
  CHECK(case_of(runs[0], FigureKind::training_throughput)->measured == Approx(2973.0 * 64));
  CHECK(case_of(runs[0], FigureKind::training_memory) == nullptr); // peak_memory_gib empty
  CHECK(case_of(runs[2], FigureKind::training_memory)->measured == Approx(82.4 * 1073741824.0));

  const std::string header = "model,gpu,gpus,tp,pp,dp,seq_len,global_batch,precision,recompute,step_time_s\n";
  // 16 sequences x 8,192 tokens per 2.5 s step = 52,428.8 tokens/s for the job.
  const auto step = io::parse_training_csv(header + "llama-3.1-8b,H100-SXM,8,2,1,4,8192,16,bf16,full,2.5\n",
                                           "t.csv", test::shipped_presets());
  REQUIRE(step.size() == 1);
  CHECK(step[0].run.id == "t:2");
  CHECK(case_of(step[0], FigureKind::training_throughput)->measured == Approx(52428.8));
  CHECK(case_of(step[0], FigureKind::training_throughput)->deployment.tp == 2);
  CHECK_THAT(error_of([&] {
               (void)io::parse_training_csv(header + "llama-3.1-8b,H100-SXM,8,2,1,2,8192,16,bf16,full,2.5\n",
                                            "t.csv", test::shipped_presets());
             }),
             Catch::Contains("t.csv:2") && Catch::Contains("expected gpus = 8"));
  CHECK_THAT(error_of([&] {
               (void)io::parse_training_csv(
                   "model,gpu,gpus,tp,pp,dp,seq_len,global_batch,precision,recompute,"
                   "tokens_per_s,step_time_s\n",
                   "t.csv", test::shipped_presets());
             }),
             Catch::Contains("t.csv:1") && Catch::Contains("unknown column \"tokens_per_s\""));
  CHECK_THAT(error_of([&] {
               (void)io::parse_training_csv(header + "llama-9b,H100-SXM,8,2,1,4,8192,16,bf16,full,2.5\n",
                                            "t.csv", test::shipped_presets());
             }),
             Catch::Contains("column \"model\": unknown model preset \"llama-9b\""));
}

TEST_CASE("a rewritten accuracy baseline keeps the description that records why gates moved", "[io]") {
  const std::string path = (std::filesystem::temp_directory_path() / "rightsize_test_baseline.json").string();
  io::AccuracyBaseline b{{"ttft", 9.85}, {"tpot", 9.024}};
  io::write_text_file(path, io::baseline_to_json(b, "history: tpot raised 7.13 -> 9.02 (why)"));
  CHECK(io::load_baseline_description(path) == "history: tpot raised 7.13 -> 9.02 (why)");
  const io::AccuracyBaseline back = io::load_baseline(path);
  CHECK(back.at("tpot") == Approx(9.02)); // two decimals
  // Without one, the standard description.
  io::write_text_file(path, io::baseline_to_json(b));
  CHECK(io::load_baseline_description(path).rfind("Median APE", 0) == 0);
  std::filesystem::remove(path);
}

TEST_CASE("the pooled UNet fraction and its cases round-trip through calibration.json", "[io]") {
  Calibration cal;
  FittedEfficiency pooled;
  pooled.gpu_id.assign(1, '*');
  pooled.efficiency.unet_gemm_fraction = 0.61234;
  pooled.unet_cases = {"u1", "u2"};
  FittedEfficiency own; // fitted with the same fraction, written without it
  own.gpu_id = "H100-SXM";
  own.efficiency.unet_gemm_fraction = 0.61234;
  cal.gpus = {pooled, own};
  const Calibration back =
      test::calibration_round_trip(io::calibration_to_json(cal), "rightsize_test_calibration.json");
  REQUIRE(back.gpus.size() == 2);
  CHECK(back.gpus[0].efficiency.unet_gemm_fraction == Approx(0.6123));
  CHECK(back.gpus[0].unet_cases == std::vector<std::string>{"u1", "u2"});
  CHECK(back.gpus[1].efficiency.unet_gemm_fraction == 1.0); // apply_calibration gives it the pooled one
  CHECK(back.gpus[1].unet_cases.empty());
}

TEST_CASE("a fitted expert-read fraction round-trips through calibration.json; unfitted entries omit it",
          "[io]") {
  Calibration cal;
  const FittedEfficiency h200 = test::expert_read_fit("H200-SXM", 0.6);
  FittedEfficiency a100;
  a100.gpu_id = "A100-80GB-SXM";
  cal.gpus = {h200, a100};
  const std::string json = io::calibration_to_json(cal);
  CHECK(json.find("\"expert_read\": 0.6") != std::string::npos);
  const Calibration back = test::calibration_round_trip(json, "rightsize_test_calibration_experts.json");
  REQUIRE(back.gpus.size() == 2);
  CHECK(back.gpus[0].efficiency.expert_read == Approx(0.6));
  CHECK(back.gpus[0].expert_read_source == "serving");
  CHECK(back.gpus[0].expert_read_cases == h200.expert_read_cases);
  CHECK(back.gpus[1].efficiency.expert_read == 1.0);
  CHECK(back.gpus[1].expert_read_source == "default");
  CHECK(back.gpus[1].expert_read_cases.empty());
}

TEST_CASE("a validation case reads its expert groups and framework; ep above tp names the field", "[io]") {
  const std::string path = (std::filesystem::temp_directory_path() / "rightsize_test_ep_case.json").string();
  const auto write = [&path](int ep) {
    io::write_text_file(
        path,
        R"J({"schema_version": 1, "cases": [{"id": "c1", "kind": "tpot", "model": {"name": "m",
          "layers": 2, "hidden": 256, "heads": 4, "kv_heads": 4, "head_dim": 64, "ffn": 512, "gated": true,
          "vocab": 1000, "tied": false, "norm": "rms", "moe": {"experts": 8, "top_k": 2, "expert_ffn": 128}},
          "precision": {"weights": "fp8", "activations": "fp8", "kv_cache": "fp8"}, "gpu": "MI355X",
          "gpus": 8, "tp": 8, "ep": )J" +
            std::to_string(ep) +
            R"J(, "concurrency": 4, "input_tokens": 100, "output_tokens": 10, "framework": "ATOM (ROCm)",
          "measured": {"value": 0.02, "unit": "s"}}]})J");
  };
  write(8);
  const std::vector<ValidationCase> cases = io::load_validation_cases(path);
  REQUIRE(cases.size() == 1);
  CHECK(cases[0].deployment.ep == 8);
  CHECK(cases[0].deployment.tp == 8);
  CHECK(cases[0].framework == "ATOM (ROCm)");
  write(16);
  try {
    io::load_validation_cases(path);
    FAIL("ep 16 above tp 8 was accepted");
  } catch (const ErrorList& e) {
    REQUIRE(e.errors().size() == 1);
    CHECK_THAT(format_error(e.errors()[0]),
               Catch::Contains("/cases/0/ep") && Catch::Contains("at most tp (8)"));
  } catch (const Error& e) {
    CHECK_THAT(format_error(e), Catch::Contains("/cases/0/ep") && Catch::Contains("at most tp (8)"));
  }
  std::filesystem::remove(path);
}
