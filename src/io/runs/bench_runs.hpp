#pragma once
// Benchmark result files -> checked StackRun values for `rightsize calibrate` (docs/calibration.md):
// the serving-measurements CSV, vLLM `vllm bench serve --save-result` JSON, SGLang `bench_serving`
// JSONL, NVIDIA GenAI-Perf `profile_export_genai_perf.json`, and training runs in the validation-case
// format of tests/validation/README.md.
#include <string>
#include <vector>

#include "io/runs/run_format.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::io {

/// The context a tool's result file lacks (flags or a manifest): model preset, GPU, engine,
/// precision, layout and (GenAI-Perf without input_config) the closed-loop concurrency.
/// Empty / 0 = not given; the CSV carries its own context and ignores these.
struct RunContext {
  std::string preset, gpu, engine, precision;
  int tp = 1, pp = 1, ep = 1;
  std::int64_t concurrency = 0;
  // Training logs (torchtitan): what the log does not print. 0 / empty = not given.
  int gpus = 0;
  std::int64_t seq_len = 0, global_batch = 0;
  std::string recompute;
  std::int64_t warmup_steps = -1; ///< -1 = the default rule (core::default_warmup_steps)
  std::string given_by =
      "--model"; ///< where the context came from, for messages ("--model", "manifest.json")
};

/// Reads one result file (detect_run_format).
/// Every run gets its model from `presets`. Throws Error (input) naming the file, the line or JSON
/// pointer and the field on anything missing or out of range.
std::vector<StackRun> load_benchmark_runs(const std::string& path, const RunContext& context,
                                          const std::vector<Preset>& presets, RunFormat* format = nullptr);

/// True when the file carries its own context (a serving-measurements or training CSV, or a JSON
/// of training runs in the validation-case format with a "cases" array); false for the tools'
/// result files and training logs. Reads the file (detect_run_format).
bool describes_its_context(const std::string& path);

/// True for a training log (torchtitan's stdout, by its metrics lines; detect_run_format).
bool is_training_log(const std::string& path);

/// A manifest: {"runs": [{"file": "...", "model": "...", "gpu": "...", "engine": "...", "tp": 1,
/// "pp": 1, "ep": 1, "precision": "bf16", "concurrency": 8, "role": "fit" | "holdout", and for
/// training logs "gpus", "seq_len", "global_batch", "recompute", "warmup_steps"}]}; file paths
/// relative to the manifest.
struct ManifestEntry {
  std::string file;
  RunContext context;
  bool holdout = false;
};
std::vector<ManifestEntry> load_run_manifest(const std::string& path);

} // namespace rightsize::io
