// Serving-engine profiles (methodology §4.6).
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

EngineConfig engine_profile(EngineKind kind) {
  EngineConfig e; // vLLM defaults (inference.hpp)
  switch (kind) {
  case EngineKind::vllm:
    e.wave_synchrony = 0.1;
    e.ttft_fixed_s = 0.05;
    break;
  case EngineKind::sglang:
    e.wave_synchrony = 0.6;
    e.ttft_fixed_s = 0.1;
    break;
  case EngineKind::trtllm:
    e.wave_synchrony = 0.1;
    e.ttft_fixed_s = 0.05;
    break;
  }
  return e;
}

} // namespace rightsize
