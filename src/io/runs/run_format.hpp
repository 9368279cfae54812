#pragma once
// What a benchmark result file is, from its content (docs/calibration.md "Input formats"), and the
// JSON the tools write (Python's Infinity / NaN tokens included).
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace rightsize::io {

/// The input formats of `rightsize calibrate`.
enum class RunFormat {
  serving_csv,
  vllm_json,
  sglang_jsonl,
  genai_perf_json,
  aiperf_json,
  training_cases_json,
  training_csv,
  torchtitan_log
};
const char* to_string(RunFormat format);

/// What a result file is, from its content, never its name (issue 38): a JSON object by its keys,
/// several JSON objects one per line, a torchtitan log by its metrics lines, else a CSV by its
/// header (seq_len: training). Throws Error (input) naming the file when it is none of them.
RunFormat detect_run_format(const std::string& path);

/// parse_json for a tool's output: Python's json module writes float('inf') and NaN as the bare
/// tokens Infinity, -Infinity and NaN, which strict JSON refuses; outside strings they read as null.
nlohmann::json parse_tool_json(const std::string& text, const std::string& where);

} // namespace rightsize::io
