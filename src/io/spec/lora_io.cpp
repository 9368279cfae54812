// workload.lora (docs/model-spec.md "workload", methodology §3.10).
#include "io/spec/lora_io.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/json/checks.hpp"

namespace rightsize::io {
namespace {

constexpr std::int64_t k_max_adapters = 1'000'000;
constexpr std::int64_t k_max_rank = 512;         // vLLM's largest max_lora_rank
constexpr std::int64_t k_default_max_active = 8; // SGLang's --max-loras-per-batch default

} // namespace

LoraTargets parse_lora_targets(const JsonReader& v) {
  const std::string g = v.as_choice({"all_linear", "attention", "qv"});
  return g == "qv" ? LoraTargets::qv : g == "attention" ? LoraTargets::attention : LoraTargets::all_linear;
}

void parse_lora(const JsonReader& v, Spec& spec) {
  v.expect_keys({"adapters", "rank", "max_active", "targets"});
  if (spec.model.kind != ModelKind::decoder) v.fail("expected only for a text model");
  LoraServing& l = spec.inference.lora;
  l.adapters = positive_count(v.at("adapters"), k_max_adapters, "adapters");
  l.rank = positive_count(v.at("rank"), k_max_rank, "rank");
  if (auto m = v.find("max_active")) {
    l.max_active = positive_count(*m, k_max_adapters, "adapters");
    if (l.max_active > l.adapters)
      m->fail(fmt::format("expected at most adapters ({}), got {}", l.adapters, l.max_active));
  } else {
    l.max_active = std::min(l.adapters, k_default_max_active);
    spec.assumptions.push_back(fmt::format(
        "workload.lora.max_active not given: {} adapters per batch (SGLang's --max-loras-per-batch default, "
        "at most the adapters)",
        l.max_active));
  }
  if (auto t = v.find("targets")) {
    l.targets = parse_lora_targets(*t);
  } else {
    spec.assumptions.emplace_back("workload.lora.targets not given: all_linear (every projection)");
  }
}

} // namespace rightsize::io
