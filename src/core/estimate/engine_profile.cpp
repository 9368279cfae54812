// Serving-engine names and the per-GPU resolution of a profile (methodology §3.2). The profiles'
// values are data: data/engines.json, read by io::load_engines.
#include "rightsize/engine_profile.hpp"

namespace rightsize {

const char* to_string(EngineKind kind) {
  switch (kind) {
  case EngineKind::vllm: return "vllm";
  case EngineKind::sglang: return "sglang";
  case EngineKind::trtllm: return "trtllm";
  }
  return "vllm";
}

std::optional<EngineKind> parse_engine_kind(std::string_view name) {
  if (name == "vllm") return EngineKind::vllm;
  if (name == "sglang") return EngineKind::sglang;
  if (name == "trtllm" || name == "tensorrt-llm" || name == "trt-llm") return EngineKind::trtllm;
  return std::nullopt;
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
