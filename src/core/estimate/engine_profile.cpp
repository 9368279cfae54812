// Serving-engine names and the per-GPU resolution of a profile (methodology §3.2). The profiles'
// values are data: data/engines.json, read by io::load_engines.
#include "rightsize/engine_profile.hpp"

#include <algorithm>
#include <cctype>

namespace rightsize {

const char* to_string(EngineKind kind) {
  switch (kind) {
  case EngineKind::vllm: return "vllm";
  case EngineKind::sglang: return "sglang";
  case EngineKind::trtllm: return "trtllm";
  }
  return "vllm";
}

bool engine_runs_on(const EngineConfig& engine, const Gpu& gpu) {
  // The catalog's vendors are "nvidia" and "amd" (io::as_vendor refuses any other).
  return gpu.vendor == "amd" ? engine.runs_on_amd : engine.runs_on_nvidia;
}

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  if (name == "vllm") return EngineKind::vllm;
  if (name == "sglang") return EngineKind::sglang;
  if (name == "trtllm" || name == "tensorrt-llm" || name == "trt-llm") return EngineKind::trtllm;
  return std::nullopt;
}

std::optional<CapacitySchedulerPolicy> parse_capacity_policy(std::string_view text) {
  const auto same = [text](std::string_view name) {
    return text.size() == name.size() &&
           std::equal(text.begin(), text.end(), name.begin(),
                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  };
  if (same("guaranteed_no_evict")) return CapacitySchedulerPolicy::guaranteed_no_evict;
  if (same("max_utilization")) return CapacitySchedulerPolicy::max_utilization;
  return std::nullopt;
}

double reserved_output_share(CapacitySchedulerPolicy policy) {
  return policy == CapacitySchedulerPolicy::max_utilization ? 0.0 : 1.0;
}

CapacitySchedulerPolicy capacity_policy_for(double kv_reserved_output_share) {
  return kv_reserved_output_share < 1.0 ? CapacitySchedulerPolicy::max_utilization
                                        : CapacitySchedulerPolicy::guaranteed_no_evict;
}

std::optional<CapacitySchedulerPolicy> capacity_policy_of(const EngineConfig& engine) {
  if (engine.kind != to_string(EngineKind::trtllm)) return std::nullopt;
  return capacity_policy_for(engine.kv_reserved_output_share);
}

const char* to_string(CapacitySchedulerPolicy policy) {
  return policy == CapacitySchedulerPolicy::max_utilization ? "MAX_UTILIZATION" : "GUARANTEED_NO_EVICT";
}

EngineConfig engine_for_gpu(const EngineConfig& engine, const Gpu& gpu, int tp) {
  if (engine.gpu_memory_tier_count <= 0) return engine;
  EngineConfig e = engine;
  // SGLang server_args.py compares the GPU's total memory in MiB with its tier bounds [SGL-SRC].
  const double gib = gpu.visible_memory() / 1073741824.0;
  for (int i = 0; i < engine.gpu_memory_tier_count; ++i) {
    const GpuMemoryTier& tier = engine.gpu_memory_tiers[static_cast<std::size_t>(i)];
    if (tier.below_gib > 0.0 && gib >= tier.below_gib) continue;
    e.max_batched_tokens = tier.max_batched_tokens;
    e.cuda_graph_max_batch = tp < engine.gpu_memory_tiers_large_tp ? tier.cuda_graph_max_batch
                                                                   : tier.cuda_graph_max_batch_large_tp;
    break;
  }
  return e;
}

} // namespace rightsize
