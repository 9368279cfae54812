// Benchmark result files of the common serving benchmarks -> StackRun (docs/calibration.md cites
// each tool's field names and units).
#include "io/runs/bench_runs.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <initializer_list>
#include <optional>

#include <fmt/format.h>

#include "io/json/json_reader.hpp"
#include "io/runs/run_format.hpp"
#include "io/runs/serving_csv.hpp"
#include "io/runs/training_runs.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/preset_names.hpp"
#include "rightsize/text.hpp"

namespace rightsize::io {
namespace {

const Preset* preset_of(const std::vector<Preset>& presets, const std::string& id) {
  for (const Preset& p : presets)
    if (p.id == id) return &p;
  return nullptr;
}

// A model name a result file carries, with its JSON pointer.
struct NamedModel {
  std::string pointer, name;
};

// The string at `path` (keys, or "0" for an array's first element) below `doc`, if any.
std::optional<NamedModel> string_at(const JsonReader& doc, std::initializer_list<const char*> path) {
  std::optional<JsonReader> at = doc;
  for (const char* key : path) {
    if (!at) return std::nullopt;
    if (std::string_view(key) == "0") {
      if (!at->is_array()) return std::nullopt;
      const std::vector<JsonReader> e = at->elements();
      if (e.empty()) return std::nullopt;
      at = e.front();
    } else {
      if (!at->is_object()) return std::nullopt;
      at = at->find(key);
    }
  }
  if (!at || !at->is_string() || at->as_string().empty()) return std::nullopt;
  return NamedModel{at->pointer(), at->as_string()};
}

// The model names a tool's result file carries, the model first, then its tokenizer:
// vLLM `model_id` / `tokenizer_id` (vllm/benchmarks/serve.py: `--model`, HF id or local path);
// SGLang `server_info.model_path` / `tokenizer_path` (the server's /server_info, null against other
// servers); GenAI-Perf / AIPerf `input_config` (endpoint.model_names, models.items[].name,
// model_names, model; tokenizer.name or tokenizer).
std::vector<NamedModel> named_models(const JsonReader& doc) {
  std::vector<NamedModel> out;
  const std::initializer_list<std::initializer_list<const char*>> paths = {
      {"model_id"},
      {"server_info", "model_path"},
      {"input_config", "endpoint", "model_names", "0"},
      {"input_config", "models", "items", "0", "name"},
      {"input_config", "model_names", "0"},
      {"input_config", "model", "0"},
      {"input_config", "model"},
      {"tokenizer_id"},
      {"server_info", "tokenizer_path"},
      {"input_config", "tokenizer", "name"},
      {"input_config", "tokenizer"}};
  for (const auto& path : paths)
    if (auto named = string_at(doc, path)) out.push_back(std::move(*named));
  return out;
}

// The preset the file's model names say (the first that names a shipped preset: a tokenizer only
// counts when the model name is a path or a model rightsize does not ship), checked against the
// one the flags or manifest gave: a contradiction is an input Error naming the file and pointer.
// Without a given preset, the named one fills it.
void check_named_model(ServingRun& run, const JsonReader& doc, const std::vector<Preset>& presets,
                       const std::string& path, const std::string& given_by) {
  std::vector<PresetName> names;
  names.reserve(presets.size());
  for (const Preset& p : presets)
    names.push_back({p.id, p.hf_id});
  for (const NamedModel& m : named_models(doc)) {
    const std::string id = preset_named(m.name, names);
    if (id.empty()) continue;
    if (run.preset.empty()) {
      run.preset = id;
    } else if (run.preset != id) {
      throw Error(
          ErrorKind::input, path, m.pointer,
          fmt::format("names \"{}\", the preset {}, but {} says {}: these runs measured another model; "
                      "calibrate them as the model they ran",
                      m.name, id, given_by, run.preset));
    }
    return;
  }
}

// Checks what the estimator needs of a run and attaches its model; `where` names the file and the
// row or field the context came from.
StackRun finish(ServingRun run, double output_tokens_per_s, const std::vector<Preset>& presets,
                const std::string& path, const std::string& where, const std::string& context_source) {
  const auto error = [&](const std::string& at, const std::string& message) {
    return Error(ErrorKind::input, where, at, message);
  };
  if (run.preset.empty() && context_source == "--model") {
    throw Error(
        ErrorKind::usage, "--model", "",
        fmt::format("required for {}: the file names no shipped model (give one of 'rightsize models')",
                    where));
  }
  if (run.preset.empty()) {
    throw error(context_source,
                "no model preset for this run: the file names no shipped model (give one of 'rightsize "
                "models' with --model or the manifest's \"model\")");
  }
  const Preset* preset = preset_of(presets, run.preset);
  if (preset == nullptr) {
    throw error(context_source,
                fmt::format("unknown model preset \"{}\" (see 'rightsize models')", run.preset));
  }
  if (run.gpu_id.empty())
    throw error(context_source, "no GPU for this run (--gpu or the manifest's \"gpu\")");
  if (!parse_engine_kind(run.engine)) {
    throw error(context_source,
                fmt::format("unknown engine \"{}\" (expected vllm, sglang or trtllm)", run.engine));
  }
  if (run.mode != "agg")
    throw error("", "disaggregated prefill/decode runs cannot be calibrated yet (issue 17)");
  if (run.attention_dp > 1)
    throw error("", "attention data-parallel runs cannot be calibrated yet (issue 17)");
  StackRun out;
  out.run = std::move(run);
  out.model = preset->model;
  out.output_tokens_per_s = output_tokens_per_s;
  out.source = path;
  return out;
}

ServingRun run_from_context(const RunContext& c, std::string id) {
  ServingRun run;
  run.id = std::move(id);
  run.engine = c.engine;
  run.gpu_id = c.gpu;
  run.preset = c.preset;
  run.precision = c.precision.empty() ? "bf16" : c.precision;
  run.mode = "agg";
  run.tp = c.tp;
  run.pp = c.pp;
  run.moe_ep = c.ep;
  return run;
}

std::string stem_of(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

// One vLLM `--save-result` object, or one SGLang bench_serving line: both write these keys in the
// same units (vllm/benchmarks/serve.py, sglang/bench_serving.py).
StackRun from_vllm_like(const JsonReader& doc, const RunContext& c, const std::vector<Preset>& presets,
                        const std::string& path, const std::string& id, const std::string& where) {
  doc.expect_object();
  const double completed = static_cast<double>(doc.at("completed").as_int(1, 100'000'000));
  const double input = static_cast<double>(doc.at("total_input_tokens").as_int(1, 1'000'000'000'000));
  const double output = static_cast<double>(doc.at("total_output_tokens").as_int(1, 1'000'000'000'000));
  // vLLM and SGLang write null when --max-concurrency was not given (an open-loop run).
  const auto mc = doc.find("max_concurrency");
  if (!mc) {
    throw Error(ErrorKind::input, where, doc.pointer() + "/max_concurrency",
                "missing or null: expected the closed-loop concurrency of the run (--max-concurrency N); an "
                "open-loop run (request_rate only) cannot be compared with the closed-loop estimate");
  }
  ServingRun run = run_from_context(c, id);
  check_named_model(run, doc, presets, where, c.given_by);
  run.concurrency = mc->as_int(1, 1'000'000);
  run.input_tokens = std::max<std::int64_t>(1, std::llround(input / completed));
  run.output_tokens = std::max<std::int64_t>(1, std::llround(output / completed));
  run.ttft_s = doc.at("mean_ttft_ms").as_positive(1e9) / 1e3;
  run.tpot_s = doc.at("mean_tpot_ms").as_positive(1e9) / 1e3;
  const double tput = doc.at("output_throughput").as_positive(1e12);
  StackRun out = finish(std::move(run), tput, presets, path, where, c.given_by);
  // p99 is written when "99" is among --metric-percentiles (vLLM's default); absent = no tail.
  const auto p99 = [&doc](const char* key) {
    const auto v = doc.find(key);
    return v ? v->as_positive(1e9) / 1e3 : 0.0;
  };
  out.ttft_p99_s = p99("p99_ttft_ms");
  out.tpot_p99_s = p99("p99_tpot_ms");
  return out;
}

// A GenAI-Perf / AIPerf metric: {"unit": <expected>, "avg": value}.
double metric_avg(const JsonReader& doc, const char* key, const char* unit) {
  const JsonReader m = doc.at(key);
  const JsonReader u = m.at("unit");
  if (u.as_string() != unit) u.fail(fmt::format("expected unit \"{}\", got \"{}\"", unit, u.as_string()));
  return m.at("avg").as_positive(1e12);
}

// An open-loop export: the estimate is closed-loop (one line naming the field).
[[noreturn]] void refuse_open_loop(const JsonReader& at, const std::string& what) {
  at.fail(fmt::format("{}: an open-loop run (arrivals at a rate) cannot be compared with the closed-loop "
                      "estimate; benchmark at a fixed concurrency",
                      what));
}

// The closed-loop concurrency of a GenAI-Perf or AIPerf export's `input_config`, else `fallback`:
// GenAI-Perf `concurrency` or `perf_analyzer.stimulus.concurrency`; AIPerf's `loadgen.concurrency`
// (2025 exports) or the `phases` entry named "profiling" (2026: `type` "concurrency" with its
// `concurrency`, left out when it is AIPerf's default 1). A rate-driven run is refused.
std::int64_t export_concurrency(const JsonReader& config, std::int64_t fallback) {
  if (const auto conc = config.find("concurrency")) return conc->as_int(1, 1'000'000);
  if (const auto pa = config.find("perf_analyzer"))
    if (const auto stimulus = pa->find("stimulus"))
      if (const auto conc = stimulus->find("concurrency")) return conc->as_int(1, 1'000'000);
  if (const auto loadgen = config.find("loadgen")) {
    if (const auto conc = loadgen->find("concurrency")) return conc->as_int(1, 1'000'000);
    if (const auto rate = loadgen->find("request_rate")) refuse_open_loop(*rate, "request_rate is set");
  }
  if (const auto phases = config.find("phases")) {
    for (const JsonReader& phase : phases->elements()) {
      const auto name = phase.find("name");
      if (!name || name->as_string() != "profiling") continue;
      const auto type = phase.find("type");
      if (type && type->as_string() != "concurrency")
        refuse_open_loop(*type, fmt::format("load type \"{}\"", type->as_string()));
      const auto conc = phase.find("concurrency");
      return conc ? conc->as_int(1, 1'000'000) : 1;
    }
  }
  return fallback;
}

StackRun from_genai_perf(const JsonReader& doc, const RunContext& c, const std::vector<Preset>& presets,
                         const std::string& path) {
  ServingRun run = run_from_context(c, stem_of(path));
  check_named_model(run, doc, presets, path, c.given_by);
  run.ttft_s = metric_avg(doc, "time_to_first_token", "ms") / 1e3;
  // GenAI-Perf's inter-token latency is (request latency - TTFT) / (output tokens - 1): TPOT.
  run.tpot_s = metric_avg(doc, "inter_token_latency", "ms") / 1e3;
  const double tput = metric_avg(doc, "output_token_throughput", "tokens/sec");
  run.input_tokens =
      std::max<std::int64_t>(1, std::llround(metric_avg(doc, "input_sequence_length", "tokens")));
  run.output_tokens =
      std::max<std::int64_t>(1, std::llround(metric_avg(doc, "output_sequence_length", "tokens")));
  run.concurrency = c.concurrency;
  if (const auto config = doc.find("input_config"))
    run.concurrency = export_concurrency(*config, c.concurrency);
  if (run.concurrency < 1) {
    throw Error(ErrorKind::input, path, "/input_config/concurrency",
                "missing: give the run's closed-loop concurrency with --concurrency or the manifest's "
                "\"concurrency\"");
  }
  StackRun out = finish(std::move(run), tput, presets, path, path, c.given_by);
  // Each GenAI-Perf metric carries p99 beside avg (in the metric's unit, checked above).
  const auto p99 = [&doc](const char* key) {
    const auto v = doc.at(key).find("p99");
    return v ? v->as_positive(1e12) / 1e3 : 0.0;
  };
  out.ttft_p99_s = p99("time_to_first_token");
  out.tpot_p99_s = p99("inter_token_latency");
  return out;
}

} // namespace

namespace {

std::vector<StackRun> load_json_lines(const std::string& path, const RunContext& context,
                                      const std::vector<Preset>& presets) {
  std::vector<StackRun> out;
  const std::string text = read_text_file(path);
  std::size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("{}:{}", path, line_no);
    const nlohmann::json doc = parse_tool_json(line, where);
    out.push_back(from_vllm_like(JsonReader(doc, where), context, presets, path,
                                 fmt::format("{}:{}", stem_of(path), line_no), where));
  }
  return out;
}

std::vector<StackRun> load_training_cases(const std::string& path) {
  std::vector<StackRun> out;
  // Training runs in the validation-case format (tests/validation/README.md): the same reader and
  // checks as the shipped validation set; inference cases there are not read here.
  for (ValidationCase& c : load_validation_cases(path)) {
    if (c.kind != FigureKind::training_throughput && c.kind != FigureKind::training_memory) {
      throw Error(ErrorKind::input, path, "",
                  fmt::format("case \"{}\": kind \"{}\": expected training_throughput or training_memory "
                              "(serving runs: use a tool's result file or the serving CSV)",
                              c.id, to_string(c.kind)));
    }
    if (!c.scored) continue;
    const std::string id = c.id, gpu_id = c.gpu_id;
    const ModelSpec model = c.model;
    out.push_back(training_stack_run(id, gpu_id, model, path, {std::move(c)}));
  }
  return out;
}

} // namespace

std::vector<StackRun> load_benchmark_runs(const std::string& path, const RunContext& context,
                                          const std::vector<Preset>& presets, RunFormat* format) {
  const RunFormat f = detect_run_format(path);
  if (format != nullptr) *format = f;
  std::vector<StackRun> out;
  switch (f) {
  case RunFormat::torchtitan_log: out.push_back(load_torchtitan_log(path, context, presets)); break;
  case RunFormat::training_csv: out = parse_training_csv(read_text_file(path), path, presets); break;
  case RunFormat::serving_csv:
    for (ServingRun& run : load_serving_csv(path)) {
      if (run.preset.empty()) run.preset = context.preset; // --model fills rows without a preset
      const std::string where = fmt::format("{}: row \"{}\"", path, run.id);
      out.push_back(finish(std::move(run), 0.0, presets, path, where, "column rightsize_preset"));
    }
    break;
  case RunFormat::sglang_jsonl: out = load_json_lines(path, context, presets); break;
  case RunFormat::training_cases_json: out = load_training_cases(path); break;
  case RunFormat::genai_perf_json:
  case RunFormat::aiperf_json: {
    const nlohmann::json doc = parse_tool_json(read_text_file(path), path);
    out.push_back(from_genai_perf(JsonReader(doc, path), context, presets, path));
    break;
  }
  case RunFormat::vllm_json: {
    const nlohmann::json doc = parse_tool_json(read_text_file(path), path);
    out.push_back(from_vllm_like(JsonReader(doc, path), context, presets, path, stem_of(path), path));
    break;
  }
  }
  if (out.empty()) throw Error(ErrorKind::input, path, "", "expected at least one benchmark run, found none");
  return out;
}

bool is_training_log(const std::string& path) {
  return detect_run_format(path) == RunFormat::torchtitan_log;
}

bool describes_its_context(const std::string& path) {
  const RunFormat f = detect_run_format(path);
  return f == RunFormat::serving_csv || f == RunFormat::training_csv || f == RunFormat::training_cases_json;
}

std::vector<ManifestEntry> load_run_manifest(const std::string& path) {
  const nlohmann::json doc = read_json_file(path);
  const JsonReader root(doc, path);
  root.expect_keys({"runs"});
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  std::vector<ManifestEntry> out;
  for (const JsonReader& r : root.at("runs").elements()) {
    r.expect_keys({"file", "model", "gpu", "engine", "precision", "tp", "pp", "ep", "concurrency", "role",
                   "gpus", "seq_len", "global_batch", "recompute", "warmup_steps"});
    ManifestEntry e;
    e.file = (base / r.at("file").as_string()).string();
    RunContext& c = e.context;
    c.given_by = path;
    const auto text = [&r](const char* key) {
      const auto v = r.find(key);
      return v ? v->as_string() : std::string();
    };
    const auto integer = [&r](const char* key, std::int64_t fallback) {
      const auto v = r.find(key);
      return v ? v->as_int(1, 1'000'000) : fallback;
    };
    c.preset = text("model");
    c.gpu = text("gpu");
    c.engine = text("engine");
    c.precision = text("precision");
    if (!c.engine.empty() && !parse_engine_kind(c.engine)) {
      r.at("engine").fail(fmt::format("unknown engine \"{}\" (expected vllm, sglang or trtllm)", c.engine));
    }
    if (!c.precision.empty()) (void)r.at("precision").as_choice({"bf16", "fp16", "fp8", "fp4", "int4"});
    c.tp = static_cast<int>(integer("tp", 1));
    c.pp = static_cast<int>(integer("pp", 1));
    c.ep = static_cast<int>(integer("ep", 1));
    c.concurrency = integer("concurrency", 0);
    c.gpus = static_cast<int>(integer("gpus", 0));
    c.seq_len = integer("seq_len", 0);
    c.global_batch = integer("global_batch", 0);
    if (const auto rc = r.find("recompute"))
      c.recompute = rc->as_choice({"none", "selective", "full", "per_op"});
    if (const auto w = r.find("warmup_steps")) c.warmup_steps = w->as_int(0, 1'000'000'000);
    if (const auto role = r.find("role")) e.holdout = role->as_choice({"fit", "holdout"}) == "holdout";
    out.push_back(std::move(e));
  }
  return out;
}

} // namespace rightsize::io
