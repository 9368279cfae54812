// The keys `rightsize sweep --vary` accepts and the checks on their values (docs/sweep.md).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "app/sweep.hpp"
#include "rightsize/error.hpp"
#include "rightsize/precision.hpp"
#include "rightsize/text.hpp"

namespace rightsize::app {

std::optional<double> number_of(const std::string& text) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

namespace {

constexpr double k_max_tokens = 10'000'000;     // the spec loader's bound on token counts
constexpr double k_max_concurrency = 1'000'000; // and on concurrency
constexpr double k_max_gpus = 4096;
// Values of one axis are held in memory (text here, CSV and JSON cells in the row writer): 100,000 keeps an
// axis under ~20 MB, and a longer range is refused before it is expanded (docs/reliability.md).
constexpr std::uint64_t k_max_axis_values = 100'000;

[[noreturn]] void fail(const std::string& message) {
  throw Error(ErrorKind::usage, "--vary", "", message);
}

std::vector<std::string> key_names() {
  std::vector<std::string> names;
  for (const auto& k : sweep_keys())
    names.emplace_back(k.name);
  return names;
}

std::vector<std::string> format_names(bool (*usable)(const FormatInfo&)) {
  std::vector<std::string> names;
  for (const auto& f : all_formats()) {
    if (usable(f)) names.emplace_back(f.name);
  }
  return names;
}

[[noreturn]] void unknown(const KeyInfo& key, const std::string& what, const std::string& value,
                          const std::vector<std::string>& choices) {
  const std::string hint = did_you_mean(value, choices);
  if (!hint.empty())
    fail(fmt::format("{}: unknown {} \"{}\"; did you mean \"{}\"?", key.name, what, value, hint));
  fail(fmt::format("{}: unknown {} \"{}\" (expected one of {})", key.name, what, value, join(choices)));
}

void check_format(const KeyInfo& key, const std::string& value) {
  bool (*usable)(const FormatInfo&) = [](const FormatInfo&) { return true; };
  const char* what = "precision";
  if (key.kind == ValueKind::activations) {
    usable = [](const FormatInfo& f) { return f.usable_for_activations; };
    what = "activation format";
  } else if (key.kind == ValueKind::kv_cache) {
    usable = [](const FormatInfo& f) { return f.usable_for_kv_cache; };
    what = "KV-cache format";
  }
  const auto format = parse_number_format(value);
  if (!format || !usable(format_info(*format))) unknown(key, what, value, format_names(usable));
}

// Checks every value against the key's kind and fills SweepAxis::numbers for fast keys.
void check_values(SweepAxis& axis, const std::vector<std::string>& presets) {
  const KeyInfo& key = *axis.key;
  const AxisValues& v = axis.values;
  for (std::size_t i = 0; i < v.texts.size(); ++i) {
    const std::string& text = v.texts[i];
    const std::optional<double> parsed = number_of(text);
    const bool is_number = parsed.has_value();
    const double number = parsed.value_or(0.0);
    switch (key.kind) {
    case ValueKind::count_auto:
      if (text == "auto") {
        axis.numbers.push_back(0.0);
        break;
      }
      [[fallthrough]];
    case ValueKind::count:
      if (!is_number || number < 1.0 || number > key.max || number != std::floor(number)) {
        fail(fmt::format("{}: expected whole numbers from 1 to {:g}{}, got \"{}\"", key.name, key.max,
                         key.kind == ValueKind::count_auto ? " or \"auto\"" : "", text));
      }
      axis.numbers.push_back(number);
      break;
    case ValueKind::amount:
      if (!is_number || number <= 0.0 || number > key.max) {
        fail(fmt::format("{}: expected numbers above 0 and at most {:g}, got \"{}\"", key.name, key.max,
                         text));
      }
      if (number < key.min) { // a rate that divides a cost (RateRange)
        fail(fmt::format("{}: expected numbers from {:g} to {:g}, got \"{}\"", key.name, key.min, key.max,
                         text));
      }
      axis.numbers.push_back(number);
      break;
    case ValueKind::number:
      if (!is_number) fail(fmt::format("{}: expected numbers, got \"{}\"", key.name, text));
      break;
    case ValueKind::precision:
    case ValueKind::activations:
    case ValueKind::kv_cache: check_format(key, text); break;
    case ValueKind::preset:
      if (is_number || std::find(presets.begin(), presets.end(), text) == presets.end()) {
        unknown(key, "preset", text, presets);
      }
      break;
    case ValueKind::gpu: break; // resolved against the catalog by resolve_gpu_axis
    }
  }
}

} // namespace

const std::vector<KeyInfo>& sweep_keys() {
  using F = SweepField;
  using K = ValueKind;
  constexpr std::uint8_t I = k_for_inference;
  constexpr std::uint8_t T = k_for_training;
  constexpr std::uint8_t B = k_for_both;
  // Bounds as the spec loader's (io/spec/workload_io.cpp, spec_io.cpp).
  static const std::vector<KeyInfo> keys = {
      {"workload.concurrency", F::concurrency, K::count_auto, k_max_concurrency, 0.0, I},
      {"workload.input_tokens", F::input_tokens, K::count, k_max_tokens, 0.0, I},
      {"workload.output_tokens", F::output_tokens, K::count, k_max_tokens, 0.0, I},
      {"workload.max_context", F::max_context, K::count, k_max_tokens, 0.0, I},
      {"workload.request_rate_per_s", F::request_rate_per_s, K::amount, k_requests_per_s_range.max,
       k_requests_per_s_range.min, I},
      {"workload.burstiness", F::burstiness, K::amount, 100.0, 0.01, I},
      {"workload.seq_len", F::seq_len, K::count, k_max_tokens, 0.0, T},
      {"workload.global_batch", F::global_batch, K::count, 100'000'000, 0.0, T},
      {"workload.micro_batch", F::micro_batch, K::count, 100'000'000, 0.0, T},
      {"workload.tokens", F::training_tokens, K::amount, 1e15, 0.0, T},
      {"sla.ttft_ms", F::sla_ttft_ms, K::amount, 1e9, 0.0, I},
      {"sla.tpot_ms", F::sla_tpot_ms, K::amount, 1e9, 0.0, I},
      {"sla.e2e_ms", F::sla_e2e_ms, K::amount, 1e12, 0.0, I},
      {"sla.requests_per_s", F::sla_requests_per_s, K::amount, k_requests_per_s_range.max,
       k_requests_per_s_range.min, I},
      {"sla.output_tokens_per_s", F::sla_output_tokens_per_s, K::amount, k_output_tokens_per_s_range.max,
       k_output_tokens_per_s_range.min, I},
      {"sla.deadline_hours", F::sla_deadline_hours, K::amount, 87'600, 0.0, T},
      {"sla.budget_usd", F::sla_budget_usd, K::amount, 1e12, 0.0, B},
      {"gpu", F::gpu, K::gpu, 0.0, 0.0, B},
      {"gpus", F::gpus, K::count, k_max_gpus, 0.0, B},
      {"tp", F::tp, K::count, 1024, 0.0, B},
      {"pp", F::pp, K::count, 1024, 0.0, B},
      {"ep", F::ep, K::count, 1024, 0.0, B},
      {"attention_dp", F::attention_dp, K::count, 1024, 0.0, I},
      {"model.preset", F::model_json, K::preset, 0.0, 0.0, B},
      {"model.params", F::model_json, K::number, 0.0, 0.0, B},
      {"model.layers", F::model_json, K::number, 0.0, 0.0, B},
      {"model.hidden_size", F::model_json, K::number, 0.0, 0.0, B},
      {"model.heads", F::model_json, K::number, 0.0, 0.0, B},
      {"model.kv_heads", F::model_json, K::number, 0.0, 0.0, B},
      {"model.head_dim", F::model_json, K::number, 0.0, 0.0, B},
      {"model.ffn_size", F::model_json, K::number, 0.0, 0.0, B},
      {"model.vocab_size", F::model_json, K::number, 0.0, 0.0, B},
      {"model.moe.experts", F::model_json, K::number, 0.0, 0.0, B},
      {"model.moe.experts_per_token", F::model_json, K::number, 0.0, 0.0, B},
      {"precision", F::model_json, K::precision, 0.0, 0.0, B},
      {"precision.weights", F::model_json, K::precision, 0.0, 0.0, B},
      {"precision.activations", F::model_json, K::activations, 0.0, 0.0, B},
      {"precision.kv_cache", F::model_json, K::kv_cache, 0.0, 0.0, I},
      {"precision.group_size", F::model_json, K::number, 0.0, 0.0, B},
  };
  return keys;
}

const KeyInfo* find_sweep_key(std::string_view name) {
  for (const auto& k : sweep_keys()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

SweepAxis parse_sweep_axis(std::string_view argument, const std::vector<std::string>& presets) {
  // Values reach JSON and CSV output: text that is not UTF-8 would end the run in an internal
  // error there (found by fuzz_sweep: `--vary gpu=H100-SXM,L40S` + byte 0xAC, exit 4).
  if (const std::size_t bad = invalid_utf8_at(argument); bad != std::string_view::npos) {
    fail(fmt::format("expected UTF-8 text, got byte 0x{:02X} at position {} of \"{}\"",
                     static_cast<unsigned char>(argument[bad]), bad + 1, argument.substr(0, bad)));
  }
  const auto eq = argument.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    fail(fmt::format("expected KEY=VALUES such as workload.concurrency=1..256:x2, got \"{}\"", argument));
  }
  const std::string name(argument.substr(0, eq));
  SweepAxis axis;
  axis.key = find_sweep_key(name);
  if (axis.key == nullptr) {
    const std::string hint = did_you_mean(name, key_names());
    if (!hint.empty()) fail(fmt::format("unknown key \"{}\"; did you mean \"{}\"?", name, hint));
    fail(fmt::format("unknown key \"{}\" (docs/sweep.md lists the keys)", name));
  }
  AxisParse parsed = parse_axis_values(argument.substr(eq + 1), k_max_axis_values);
  if (!parsed.error.empty()) fail(fmt::format("{}: {}", name, parsed.error));
  axis.values = std::move(parsed.values);
  check_values(axis, presets);
  return axis;
}

} // namespace rightsize::app
