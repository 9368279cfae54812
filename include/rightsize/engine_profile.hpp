#pragma once
// Serving-engine profiles: the scheduler settings that differ between TensorRT-LLM, vLLM and
// SGLang (methodology §3.2). The values are data (data/engines.json, read by io::load_engines);
// this header names the engines and resolves a profile for one GPU. Pure.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "rightsize/inference.hpp"

namespace rightsize {

inline constexpr std::size_t k_engine_kind_count = 3;

/// "vllm", "sglang", "trtllm".
const char* to_string(EngineKind kind);
/// The one engine-name parser: "vllm", "sglang", "trtllm" (also "tensorrt-llm" and "trt-llm");
/// case-sensitive.
std::optional<EngineKind> parse_engine_kind(std::string_view name);

/// The profile of every engine, indexed by EngineKind, as data/engines.json gives them.
struct EngineProfiles {
  std::array<EngineConfig, k_engine_kind_count> configs{};
  [[nodiscard]] const EngineConfig& of(EngineKind kind) const {
    return configs[static_cast<std::size_t>(kind)];
  }
};

/// The profile resolved for one GPU and TP degree: where the profile has GPU-memory tiers
/// (SGLang), the first tier whose bound lies above the GPU's memory sets the chunked-prefill budget
/// and the CUDA-graph batch limit (the larger limit from `gpu_memory_tiers_large_tp` GPUs of TP).
/// Otherwise unchanged.
EngineConfig engine_for_gpu(const EngineConfig& engine, const Gpu& gpu, int tp);

} // namespace rightsize
