#pragma once
// Serving-engine profiles: the scheduler defaults that differ between TensorRT-LLM, vLLM and
// SGLang (methodology §4.6). Pure.
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
/// Sources per field in methodology §4.6.
EngineConfig engine_profile(EngineKind kind);

} // namespace rightsize
