#pragma once
// Serving-engine profiles: the scheduler settings that differ between TensorRT-LLM, vLLM and
// SGLang (methodology §3.2). The values are data (data/engines.json, read by io::load_engines);
// this header names the engines and resolves a profile for one GPU. Pure.
#include <array>
#include <cstddef>
#include <cstdint>
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

/// TensorRT-LLM's capacity scheduler policy (SchedulerConfig.capacity_scheduler_policy, [TRT-SCHED]
/// in docs/methodology.md): what an admitted request holds in the KV cache. GUARANTEED_NO_EVICT (the
/// engine's default) reserves its prompt and maximum output, so it is never paused; MAX_UTILIZATION
/// holds the tokens it has and may pause requests when the cache runs out.
enum class CapacitySchedulerPolicy : std::uint8_t { guaranteed_no_evict, max_utilization };
/// The one policy parser: "guaranteed_no_evict" or "max_utilization", in either case (TensorRT-LLM
/// spells them in capitals).
std::optional<CapacitySchedulerPolicy> parse_capacity_policy(std::string_view text);
/// The share of its remaining output a request reserves under `policy` (EngineConfig::
/// kv_reserved_output_share, methodology §3.1 "KV in flight"): 1 GUARANTEED_NO_EVICT, 0 MAX_UTILIZATION.
double reserved_output_share(CapacitySchedulerPolicy policy);
/// The policy that reserves `kv_reserved_output_share`, the inverse of reserved_output_share:
/// MAX_UTILIZATION when it is less than the whole output, else GUARANTEED_NO_EVICT.
CapacitySchedulerPolicy capacity_policy_for(double kv_reserved_output_share);
/// The policy a TensorRT-LLM profile runs with (capacity_policy_for its share); none for another
/// engine (vLLM and SGLang have no such setting).
std::optional<CapacitySchedulerPolicy> capacity_policy_of(const EngineConfig& engine);
/// TensorRT-LLM's spelling: "GUARANTEED_NO_EVICT", "MAX_UTILIZATION".
const char* to_string(CapacitySchedulerPolicy policy);

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

/// Whether the engine profile has a build for the GPU's vendor (EngineConfig::runs_on_nvidia /
/// runs_on_amd; data/engines.json "vendors").
bool engine_runs_on(const EngineConfig& engine, const Gpu& gpu);

} // namespace rightsize
