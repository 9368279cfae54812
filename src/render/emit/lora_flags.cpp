// Multi-LoRA serving in the engines' own terms (docs/deploy.md "Multi-LoRA"; each flag read in the
// pinned parser, tests/schema/engine-flags.json):
// - vLLM (vllm/engine/arg_utils.py, LoRAConfig group): --enable-lora, --max-loras (adapters in one
//   batch), --max-lora-rank (one of 1, 8, 16, 32, 64, 128, 256, 320, 512 in vllm/config/lora.py),
//   --max-cpu-loras (adapters cached in host memory, at least --max-loras).
// - SGLang (python/sglang/srt/server_args.py, LoRA): --enable-lora, --max-loras-per-batch,
//   --max-lora-rank and --lora-target-modules (both required without --lora-paths),
//   --max-loaded-loras (host memory, at least --max-loras-per-batch).
// - TensorRT-LLM (tensorrt_llm/lora_helper.py LoraConfig): lora_config {max_lora_rank, max_loras,
//   max_cpu_loras, lora_target_modules in its own module names} in the options file.
#include "render/emit/lora_flags.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace rightsize::cli {
namespace {

// vLLM's MaxLoRARanks: the smallest it accepts at or above the adapters' rank.
std::int64_t vllm_rank(std::int64_t rank) {
  constexpr std::array<std::int64_t, 9> k_ranks = {1, 8, 16, 32, 64, 128, 256, 320, 512};
  for (const std::int64_t r : k_ranks)
    if (r >= rank) return r;
  return k_ranks.back();
}

// Hugging Face module names of the adapted projections (SGLang); TensorRT-LLM's own names map to
// them in lora_helper.py (attn_q → q_proj, attn_dense → o_proj, mlp_h_to_4h → gate_proj,
// mlp_gate → up_proj, mlp_4h_to_h → down_proj).
std::vector<std::string> hf_modules(LoraTargets t) {
  switch (t) {
  case LoraTargets::qv: return {"q_proj", "v_proj"};
  case LoraTargets::attention: return {"q_proj", "k_proj", "v_proj", "o_proj"};
  case LoraTargets::all_linear: return {"all"};
  }
  return {"all"};
}

std::vector<std::string> trtllm_modules(LoraTargets t) {
  switch (t) {
  case LoraTargets::qv: return {"attn_q", "attn_v"};
  case LoraTargets::attention: return {"attn_q", "attn_k", "attn_v", "attn_dense"};
  case LoraTargets::all_linear:
    return {"attn_q", "attn_k", "attn_v", "attn_dense", "mlp_h_to_4h", "mlp_gate", "mlp_4h_to_h"};
  }
  return {};
}

} // namespace

FlagSet lora_flags(app::Engine engine, const DeployPlan& p) {
  FlagSet out;
  const LoraServing& l = p.lora;
  if (!l.enabled()) return out;
  const std::string active = std::to_string(l.max_active);
  const std::string cached = std::to_string(std::max(l.adapters, l.max_active));
  if (engine == app::Engine::vllm) {
    out.flags.emplace_back("--enable-lora", "");
    out.flags.emplace_back("--max-loras", active);
    out.flags.emplace_back("--max-lora-rank", std::to_string(vllm_rank(l.rank)));
    out.flags.emplace_back("--max-cpu-loras", cached);
    out.notes.emplace_back("name the adapters with --lora-modules NAME=PATH (or load them at run time)");
  } else if (engine == app::Engine::sglang) {
    out.flags.emplace_back("--enable-lora", "");
    out.flags.emplace_back("--max-loras-per-batch", active);
    out.flags.emplace_back("--max-lora-rank", std::to_string(l.rank));
    const std::vector<std::string> modules = hf_modules(l.targets);
    out.flags.emplace_back("--lora-target-modules", modules.front());
    for (std::size_t i = 1; i < modules.size(); ++i)
      out.flags.emplace_back(modules[i], "");
    out.flags.emplace_back("--max-loaded-loras", cached);
    out.notes.emplace_back("name the adapters with --lora-paths NAME=PATH (or load them at run time)");
  }
  return out;
}

void trtllm_lora_yaml(YAML::Emitter& y, const DeployPlan& p, std::vector<std::string>& notes) {
  const LoraServing& l = p.lora;
  if (!l.enabled()) return;
  y << YAML::Key << "lora_config" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "max_lora_rank" << YAML::Value << l.rank;
  y << YAML::Key << "max_loras" << YAML::Value << l.max_active;
  y << YAML::Key << "max_cpu_loras" << YAML::Value << std::max(l.adapters, l.max_active);
  y << YAML::Key << "lora_target_modules" << YAML::Value << YAML::Flow << trtllm_modules(l.targets);
  y << YAML::EndMap;
  notes.emplace_back("add the adapters' directories to lora_config.lora_dir");
}

} // namespace rightsize::cli
