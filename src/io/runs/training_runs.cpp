// Training runs -> StackRun (docs/calibration.md, "Training runs"): torchtitan's metrics log lines
// and the training CSV.
#include "io/runs/training_runs.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "io/json/json_reader.hpp"
#include "io/runs/csv_table.hpp"
#include "rightsize/error.hpp"

namespace rightsize::io {
namespace {

const Preset* training_preset_of(const std::vector<Preset>& presets, const std::string& id) {
  for (const Preset& p : presets)
    if (p.id == id) return &p;
  return nullptr;
}

// Training precision as the validation set writes it: fp8 = fp8 GEMMs (weights and activations),
// bf16 elsewhere; bf16 / fp16 throughout otherwise.
std::optional<Precision> training_precision(const std::string& name) {
  if (name == "bf16") return precision_from_shorthand(NumberFormat::bf16);
  if (name == "fp16") return precision_from_shorthand(NumberFormat::fp16);
  if (name == "fp8") {
    Precision p = precision_from_shorthand(NumberFormat::fp8);
    p.kv_cache = NumberFormat::bf16;
    return p;
  }
  return std::nullopt;
}

// Removes ANSI colour sequences (ESC '[' ... 'm'): torchtitan colours its metrics line unless
// metrics.disable_color_printing is set.
std::string strip_ansi(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      const std::size_t m = line.find('m', i + 2);
      if (m == std::string_view::npos) break;
      i = m;
      continue;
    }
    out.push_back(line[i]);
  }
  return out;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
      ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// A number as torchtitan prints it: thousands separators (tps "{:,}"), then digits; `suffix` (a
// unit such as "GiB") and anything after it are ignored.
std::optional<double> number_of(std::string_view text, std::string_view suffix = {}) {
  if (!suffix.empty()) {
    const std::size_t at = text.find(suffix);
    if (at == std::string_view::npos) return std::nullopt;
    text = text.substr(0, at);
  }
  std::string digits;
  for (char c : text)
    if (c != ',') digits.push_back(c);
  double out = 0.0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
  if (ec != std::errc() || p != digits.data() + digits.size() || !std::isfinite(out)) return std::nullopt;
  return out;
}

// Plausibility bounds on what a training run reports (issue 42): a typo such as "memory: 1e30GiB"
// or a million data-parallel GPUs sharing 8 sequences was fitted, pinning a factor at its bound.
constexpr double k_max_run_memory_gib = 2000.0;        // the catalog's bound on one GPU's memory
constexpr double k_max_run_tokens_per_s_per_gpu = 1e7; // ~1,000x a fast 8B run (5,762 on an H100)

// Each data-parallel rank trains at least one sequence per step: dp <= global_batch.
std::optional<std::string> too_many_ranks(std::int64_t dp, std::int64_t global_batch) {
  if (dp <= global_batch) return std::nullopt;
  return fmt::format("{} data-parallel ranks (gpus / (tp x pp)) share a global batch of {} sequences: "
                     "expected at most one rank per sequence",
                     dp, global_batch);
}

// The keys torchtitan's metrics line prints (torchtitan/components/metrics.py, MetricsProcessor.log;
// grad_norm since 2025).
constexpr std::array<std::string_view, 7> k_torchtitan_keys = {"step", "loss",   "grad_norm", "memory",
                                                               "tps",  "tflops", "mfu"};

} // namespace

StackRun training_stack_run(std::string id, std::string gpu_id, ModelSpec model, std::string source,
                            std::vector<ValidationCase> cases) {
  StackRun r;
  r.run.id = std::move(id);
  r.run.gpu_id = std::move(gpu_id);
  r.run.engine = "training";
  r.model = std::move(model);
  r.source = std::move(source);
  r.cases = std::move(cases);
  return r;
}

std::vector<TrainingLogStep> parse_torchtitan_log(const std::string& text, const std::string& source) {
  std::vector<TrainingLogStep> out;
  std::size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = strip_ansi(std::string_view(text).substr(start, end - start));
    start = end + 1;
    ++line_no;
    const std::size_t at = line.find("step:");
    if (at == std::string::npos) continue;
    if (at >= 9 && line.compare(at - 9, 9, "validate ") == 0) continue; // validation lines
    const std::vector<std::string_view> w = words(std::string_view(line).substr(at));
    // A metrics line: "step: <integer>" and at least one more metric key.
    const bool metrics = line.find(" loss:", at) != std::string::npos ||
                         line.find(" tps:", at) != std::string::npos ||
                         line.find(" memory:", at) != std::string::npos;
    if (w.size() < 4 || !number_of(w[1]) || !metrics) continue;
    const std::string where = fmt::format("{}:{}", source, line_no);
    std::optional<double> step, tps, memory;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (w[i].back() != ':') continue;
      const std::string_view key = w[i].substr(0, w[i].size() - 1);
      if (std::find(k_torchtitan_keys.begin(), k_torchtitan_keys.end(), key) == k_torchtitan_keys.end()) {
        throw Error(ErrorKind::input, where, "",
                    fmt::format("unknown metric \"{}\" in a torchtitan step line (expected step, loss, "
                                "grad_norm, memory, tps, tflops, mfu)",
                                key));
      }
      const std::string_view value = i + 1 < w.size() ? w[i + 1] : std::string_view();
      const auto bad = [&](const char* expected) {
        return Error(ErrorKind::input, where, "",
                     fmt::format("\"{}\": expected {}, got \"{}\"", key, expected, value));
      };
      if (key == "step") {
        step = number_of(value);
        // Bounded before the cast to int64 (1e300 is a whole number too).
        if (!step || *step < 1 || *step > 1e12 || *step != std::floor(*step))
          throw bad("a step number from 1 to 1,000,000,000,000");
      } else if (key == "tps") {
        tps = number_of(value);
        if (!tps || !(*tps > 0.0) || *tps > k_max_run_tokens_per_s_per_gpu)
          throw bad("tokens per second per GPU above 0 and at most 10,000,000 (e.g. 5,762)");
      } else if (key == "memory") {
        memory = number_of(value, "GiB");
        if (!memory || !(*memory > 0.0) || *memory > k_max_run_memory_gib)
          throw bad("peak reserved memory in GiB, at most 2,000 (e.g. 82.40GiB(86.12%))");
      }
    }
    for (const auto& [value, name] : {std::pair{step, "step"}, {tps, "tps"}, {memory, "memory"}}) {
      if (!value)
        throw Error(ErrorKind::input, where, "", fmt::format("torchtitan step line without \"{}:\"", name));
    }
    out.push_back(TrainingLogStep{static_cast<std::int64_t>(*step), *tps, *memory});
  }
  return out;
}

StackRun load_torchtitan_log(const std::string& path, const RunContext& c,
                             const std::vector<Preset>& presets) {
  const std::vector<TrainingLogStep> steps = parse_torchtitan_log(read_text_file(path), path);
  if (steps.empty()) {
    throw Error(ErrorKind::input, path, "",
                "no torchtitan step line (\"step: N  loss: ...  memory: ...GiB(...%)  tps: ...\") found");
  }
  const TrainingLogSummary sum = summarize_training_log(steps, c.warmup_steps);
  if (sum.lines_kept == 0) {
    throw Error(ErrorKind::input, path, "",
                fmt::format("all {} step lines are warm-up steps (step <= {}): log more steps or lower "
                            "--warmup-steps",
                            sum.lines_dropped, sum.warmup_through_step));
  }
  const auto need = [&](bool ok, const char* what) {
    if (!ok) {
      throw Error(ErrorKind::input, c.given_by, "",
                  fmt::format("required for {}: a torchtitan log does not say the {}", path, what));
    }
  };
  need(!c.preset.empty(), "model (--model, a preset of 'rightsize models')");
  need(!c.gpu.empty(), "GPU (--gpu)");
  need(c.gpus > 0, "GPU count (--gpus)");
  need(c.seq_len > 0, "sequence length (--seq-len)");
  need(c.global_batch > 0, "global batch in sequences (--global-batch)");
  need(!c.recompute.empty(), "activation recompute (--recompute none|selective|full|per_op)");
  const Preset* preset = training_preset_of(presets, c.preset);
  if (preset == nullptr)
    throw Error(ErrorKind::input, c.given_by, "", fmt::format("unknown model preset \"{}\"", c.preset));
  const auto recompute = parse_recompute(c.recompute);
  if (!recompute) {
    throw Error(
        ErrorKind::input, c.given_by, "",
        fmt::format("unknown recompute \"{}\" (expected none, selective, full or per_op)", c.recompute));
  }
  const auto precision = training_precision(c.precision.empty() ? "bf16" : c.precision);
  if (!precision) {
    throw Error(ErrorKind::input, c.given_by, "",
                fmt::format("training precision \"{}\": expected bf16, fp16 or fp8", c.precision));
  }
  if (c.gpus % (c.tp * c.pp) != 0) {
    throw Error(ErrorKind::input, c.given_by, "",
                fmt::format("{} GPUs is not a multiple of tp {} x pp {}", c.gpus, c.tp, c.pp));
  }
  if (const auto bad = too_many_ranks(c.gpus / (c.tp * c.pp), c.global_batch)) {
    // From the flags: a usage error naming --global-batch; from a manifest: its entry.
    if (c.given_by == "--model")
      throw Error(ErrorKind::usage, "--global-batch", "", fmt::format("{}: {}", path, *bad));
    throw Error(ErrorKind::input, c.given_by, "", fmt::format("{}: {}", path, *bad));
  }
  TrainingRunSpec spec;
  spec.id = std::filesystem::path(path).stem().string();
  spec.model = preset->model;
  spec.precision = *precision;
  spec.gpu_id = c.gpu;
  spec.gpus = c.gpus;
  spec.tp = c.tp;
  spec.pp = c.pp;
  spec.seq_len = c.seq_len;
  spec.global_batch = c.global_batch;
  spec.recompute = *recompute;
  spec.framework = TrainingFramework::torchtitan;
  // torchtitan's tps is per GPU: tokens / (time x the non-data-parallel size) (metrics.py).
  spec.tokens_per_s = sum.tokens_per_s_per_gpu * c.gpus;
  spec.peak_memory_bytes = sum.peak_memory_reserved_bytes;
  spec.memory_scope = MemoryScope::reserved; // max_reserved_gib: torch.cuda reserved_bytes.all.peak
  return training_stack_run(spec.id, spec.gpu_id, spec.model, path, training_run_cases(spec));
}

namespace {

// One row of the training CSV, checked (docs/calibration.md, "Training runs").
TrainingRunSpec training_csv_row(const CsvRow& r, const std::string& stem,
                                 const std::vector<Preset>& presets) {
  const auto fail = [&](const std::string& message) { return Error(ErrorKind::input, r.where, "", message); };
  TrainingRunSpec s;
  const std::string line = r.where.substr(r.where.rfind(':') + 1);
  s.id = r.has("id") && !r.text("id").empty() ? r.text("id") : stem + ":" + line;
  const std::string model = r.text("model");
  const Preset* preset = training_preset_of(presets, model);
  if (preset == nullptr)
    throw fail(fmt::format("column \"model\": unknown model preset \"{}\" (see 'rightsize models')", model));
  s.model = preset->model;
  s.gpu_id = r.text("gpu");
  if (s.gpu_id.empty()) throw fail("column \"gpu\": expected a catalog GPU id, got an empty cell");
  s.gpus = static_cast<int>(r.integer("gpus", 0, 1, 1'000'000));
  s.tp = static_cast<int>(r.integer("tp", 0, 1, 1024));
  s.pp = static_cast<int>(r.integer("pp", 0, 1, 1024));
  const std::int64_t dp = r.integer("dp", 0, 1, 1'000'000);
  if (static_cast<std::int64_t>(s.tp) * s.pp * dp != s.gpus) {
    throw fail(fmt::format("columns tp x pp x dp = {} x {} x {} = {}, expected gpus = {}", s.tp, s.pp, dp,
                           static_cast<std::int64_t>(s.tp) * s.pp * dp, s.gpus));
  }
  s.seq_len = r.integer("seq_len", 0, 1, 100'000'000);
  s.global_batch = r.integer("global_batch", 0, 1, 100'000'000);
  if (const auto bad = too_many_ranks(dp, s.global_batch)) throw fail("columns dp, global_batch: " + *bad);
  const std::string precision = r.text("precision");
  const auto p = training_precision(precision);
  if (!p) throw fail(fmt::format("column \"precision\": expected bf16, fp16 or fp8, got \"{}\"", precision));
  s.precision = *p;
  const auto rc = parse_recompute(r.text("recompute"));
  if (!rc) {
    throw fail(fmt::format("column \"recompute\": expected none, selective, full or per_op, got \"{}\"",
                           r.text("recompute")));
  }
  s.recompute = *rc;
  const bool has_tps = r.has("tokens_per_s_per_gpu") && !r.text("tokens_per_s_per_gpu").empty();
  const bool has_step = r.has("step_time_s") && !r.text("step_time_s").empty();
  if (has_tps == has_step) {
    throw fail("expected exactly one of tokens_per_s_per_gpu and step_time_s in each row, got " +
               std::string(has_tps ? "both" : "neither"));
  }
  // Whole-job tokens/s: per GPU x GPUs, or global batch x sequence length per step.
  s.tokens_per_s =
      has_tps
          ? r.positive("tokens_per_s_per_gpu", k_max_run_tokens_per_s_per_gpu, "tokens per second") * s.gpus
          : static_cast<double>(s.global_batch * s.seq_len) / r.positive("step_time_s");
  if (s.tokens_per_s / s.gpus > k_max_run_tokens_per_s_per_gpu) {
    throw fail(fmt::format("global_batch x seq_len / step_time_s is {:g} tokens per second per GPU: expected "
                           "at most 10,000,000 (a real run)",
                           s.tokens_per_s / s.gpus));
  }
  if (r.has("peak_memory_gib") && !r.text("peak_memory_gib").empty()) // GiB = 2^30 bytes
    s.peak_memory_bytes =
        r.positive("peak_memory_gib", k_max_run_memory_gib, "memory on one GPU") * 1024.0 * 1024.0 * 1024.0;
  const std::string scope = r.has("memory_scope") ? r.text("memory_scope") : std::string();
  if (scope == "peak_allocated") {
    s.memory_scope = MemoryScope::peak_allocated;
  } else if (scope.empty() || scope == "reserved") {
    s.memory_scope = MemoryScope::reserved; // documented default: torch's max_memory_reserved
  } else {
    throw fail(
        fmt::format("column \"memory_scope\": expected reserved or peak_allocated, got \"{}\"", scope));
  }
  const std::string fw = r.has("framework") ? r.text("framework") : std::string();
  const std::optional<TrainingFramework> framework = parse_training_framework(fw.empty() ? "generic" : fw);
  if (!framework) {
    const std::vector<std::string> names = training_framework_names();
    std::string expected;
    for (std::size_t i = 0; i < names.size(); ++i)
      expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    throw fail(fmt::format("column \"framework\": expected {}, got \"{}\"", expected, fw));
  }
  s.framework = *framework;
  return s;
}

} // namespace

bool is_training_csv(const std::string& path) {
  std::string text = read_text_file(path);
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3); // a UTF-8 BOM (parse_csv drops it too)
  const std::string header = text.substr(0, text.find('\n'));
  std::size_t start = 0;
  while (start <= header.size()) {
    std::size_t comma = header.find(',', start);
    if (comma == std::string::npos) comma = header.size();
    std::string cell = header.substr(start, comma - start);
    if (!cell.empty() && cell.back() == '\r') cell.pop_back();
    if (cell == "seq_len") return true;
    start = comma + 1;
  }
  return false;
}

std::vector<StackRun> parse_training_csv(const std::string& text, const std::string& source,
                                         const std::vector<Preset>& presets) {
  static const std::vector<std::string_view> k_columns = {
      "id",          "model",           "gpu",          "gpus",      "tp",        "pp",
      "dp",          "seq_len",         "global_batch", "precision", "recompute", "tokens_per_s_per_gpu",
      "step_time_s", "peak_memory_gib", "memory_scope", "framework"};
  const std::string stem = std::filesystem::path(source).stem().string();
  std::vector<StackRun> out;
  const auto on_header = [&](const std::vector<std::string_view>& header) {
    for (std::string_view h : header) {
      if (std::find(k_columns.begin(), k_columns.end(), h) == k_columns.end()) {
        throw Error(
            ErrorKind::input, source + ":1", "",
            fmt::format("unknown column \"{}\" (the training CSV's columns are in docs/calibration.md)", h));
      }
    }
    if (std::find(header.begin(), header.end(), "tokens_per_s_per_gpu") == header.end() &&
        std::find(header.begin(), header.end(), "step_time_s") == header.end()) {
      throw Error(ErrorKind::input, source + ":1", "",
                  "missing column \"tokens_per_s_per_gpu\" or \"step_time_s\" (the measured speed)");
    }
  };
  const auto on_row = [&](const CsvRow& r) {
    const TrainingRunSpec s = training_csv_row(r, stem, presets);
    out.push_back(training_stack_run(s.id, s.gpu_id, s.model, source, training_run_cases(s)));
  };
  parse_csv(text, source, on_header, on_row);
  return out;
}

} // namespace rightsize::io
