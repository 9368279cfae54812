#pragma once
// Serving-engine profiles: the scheduler defaults that differ between TensorRT-LLM, vLLM and
// SGLang (methodology §3.2). Pure.
#include <cstdint>
#include <optional>
#include <string_view>

#include "rightsize/inference.hpp"

namespace rightsize {

inline constexpr std::size_t k_engine_kind_count = 3;

/// "vllm", "sglang", "trtllm".
const char* to_string(EngineKind kind);
/// Parses an engine name (case-sensitive; also "tensorrt-llm" and "trt-llm").
std::optional<EngineKind> parse_engine_kind(std::string_view name);

/// The engine's defaults: chunked-prefill budget, sequence cap, memory fraction, KV block size,
/// CUDA-graph batch limit, per-step CPU overhead, wave synchrony and fixed TTFT overhead.
/// Sources per field in methodology §3.2.
EngineConfig engine_profile(EngineKind kind);

/// The profile resolved for one GPU and TP degree: where `gpu_memory_tiers` is set, SGLang's
/// memory-tiered defaults (chunked prefill 2,048 / 8,192 / 16,384 tokens below 35 GiB / below
/// 160 GiB / above; CUDA graphs up to 256 sequences below TP4, 512 from TP4). Otherwise unchanged.
EngineConfig engine_for_gpu(const EngineConfig& engine, const Gpu& gpu, int tp);

} // namespace rightsize
