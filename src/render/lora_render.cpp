// Multi-LoRA serving in estimate and recommend output (methodology §3.10).
#include "render/lora_render.hpp"

#include <fmt/format.h>

#include "render/render.hpp"

namespace rightsize::cli {
namespace {

const char* targets_text(LoraTargets t) {
  switch (t) {
  case LoraTargets::all_linear: return "every projection";
  case LoraTargets::attention: return "q, k, v, o";
  case LoraTargets::qv: return "q and v";
  }
  return "every projection";
}

} // namespace

std::string lora_source(const LoraServing& l) {
  if (!l.enabled()) return "";
  return fmt::format("{} adapter{} of rank {} on {}, up to {} per batch", l.adapters,
                     l.adapters == 1 ? "" : "s", l.rank, targets_text(l.targets), l.max_active);
}

std::string lora_line(const LoraServing& l, const InferenceEstimate& e) {
  if (!e.lora.active) return "";
  return fmt::format(
      "lora     {}: {} per adapter per GPU, {} of slots in the weights; a batch mixes {:.1f} on "
      "average, each read once per step (docs/methodology.md §3.10)",
      lora_source(l), format_gb(e.lora.adapter_bytes), format_gb(e.lora.slot_bytes), e.lora.active_in_batch);
}

nlohmann::json lora_json(const LoraServing& l, const InferenceEstimate& e) {
  if (!e.lora.active) return nullptr;
  return {{"adapters", l.adapters},
          {"rank", l.rank},
          {"max_active", l.max_active},
          {"targets", to_string(l.targets)},
          {"adapter_bytes_per_gpu", json_bytes(e.lora.adapter_bytes)},
          {"slot_bytes_per_gpu", json_bytes(e.lora.slot_bytes)},
          {"active_in_batch", round_sig(e.lora.active_in_batch)},
          {"flops_per_token", round_sig(e.lora.lora_flops_per_token)}};
}

} // namespace rightsize::cli
