// What a benchmark result file is, from its content (docs/calibration.md "Input formats").
#include "io/runs/run_format.hpp"

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "io/json/json_reader.hpp"
#include "io/runs/training_runs.hpp"
#include "rightsize/error.hpp"
#include "rightsize/text.hpp"

namespace rightsize::io {
namespace {

// A log's extension, in any case (RUN.LOG): the fallback for a log without a metrics line yet.
bool has_suffix(const std::string& s, const char* suffix) {
  const std::string tail(suffix);
  return s.size() >= tail.size() && to_lower(s.substr(s.size() - tail.size())) == tail;
}

// Python's json module writes float('inf') and NaN as the bare tokens Infinity, -Infinity and NaN
// (SGLang's bench_serving writes `"request_rate": Infinity` for an unlimited rate), which strict JSON
// refuses. Outside strings they become null: no field rightsize reads may be one of them, and a
// field it needs that is null is reported as missing.
std::string python_tokens_as_null(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const std::string_view token : {"-Infinity", "Infinity", "NaN"}) {
      if (text.compare(i, token.size(), token) == 0) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

} // namespace

// parse_json, accepting Python's Infinity / NaN tokens (python_tokens_as_null).
nlohmann::json parse_tool_json(const std::string& text, const std::string& where) {
  const std::string sane = python_tokens_as_null(text);
  return parse_json(sane, where);
}

const char* to_string(RunFormat format) {
  switch (format) {
  case RunFormat::serving_csv: return "serving-measurements CSV";
  case RunFormat::vllm_json: return "vLLM bench serve JSON";
  case RunFormat::sglang_jsonl: return "bench_serving JSON lines (SGLang, vLLM --append-result)";
  case RunFormat::genai_perf_json: return "GenAI-Perf profile_export JSON";
  case RunFormat::aiperf_json: return "AIPerf profile_export_aiperf JSON";
  case RunFormat::training_cases_json: return "training runs (validation-case JSON)";
  case RunFormat::training_csv: return "training CSV";
  case RunFormat::torchtitan_log: return "torchtitan log";
  }
  return "?";
}

namespace {

// The format of a JSON object by its keys; AIPerf is told from GenAI-Perf by the keys only it writes
// (aiperf_version, schema_version, benchmark_id; input_config.loadgen or .phases in older exports).
std::optional<RunFormat> json_format(const nlohmann::json& doc) {
  if (!doc.is_object()) return std::nullopt;
  if (doc.contains("cases")) return RunFormat::training_cases_json;
  if (doc.contains("time_to_first_token")) {
    const bool aiperf = doc.contains("aiperf_version") || doc.contains("schema_version") ||
                        doc.contains("benchmark_id") ||
                        (doc.contains("input_config") && doc["input_config"].is_object() &&
                         (doc["input_config"].contains("loadgen") || doc["input_config"].contains("phases")));
    return aiperf ? RunFormat::aiperf_json : RunFormat::genai_perf_json;
  }
  if (doc.contains("mean_ttft_ms")) return RunFormat::vllm_json;
  return std::nullopt;
}

bool is_torchtitan_text(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    if (line.find("step:") != std::string_view::npos &&
        (line.find("tps:") != std::string_view::npos || line.find("memory:") != std::string_view::npos))
      return true;
    start = end + 1;
  }
  return false;
}

std::string first_line(const std::string& text, std::size_t from) {
  const std::size_t end = text.find('\n', from);
  return text.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

} // namespace

RunFormat detect_run_format(const std::string& path) {
  std::string text = read_text_file(path);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3); // a UTF-8 byte-order mark
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    nlohmann::json doc;
    try {
      doc = parse_tool_json(text, path);
    } catch (const Error&) {
      // Several JSON objects, one per line: SGLang's --output-file, vLLM's --append-result.
      const nlohmann::json line = parse_tool_json(first_line(text, first), path + ":1");
      if (line.is_object() && line.contains("mean_ttft_ms")) return RunFormat::sglang_jsonl;
      throw;
    }
    if (const auto f = json_format(doc)) return *f;
    throw Error(
        ErrorKind::input, path, "",
        "expected a benchmark result: a vLLM or SGLang result (key \"mean_ttft_ms\"), a GenAI-Perf or "
        "AIPerf export (key \"time_to_first_token\") or training runs (key \"cases\"), found none of "
        "their keys");
  }
  if (is_torchtitan_text(text)) return RunFormat::torchtitan_log;
  if (first != std::string::npos && first_line(text, first).find(',') != std::string::npos)
    return is_training_csv(path) ? RunFormat::training_csv : RunFormat::serving_csv;
  // A log without a metrics line yet: the log reader says what it lacks.
  if (has_suffix(path, ".log") || has_suffix(path, ".txt")) return RunFormat::torchtitan_log;
  throw Error(ErrorKind::input, path, "",
              "expected a benchmark result file (vLLM / SGLang / GenAI-Perf / AIPerf JSON, JSON lines, a "
              "serving or training CSV, or a torchtitan log), found none of them");
}

} // namespace rightsize::io
