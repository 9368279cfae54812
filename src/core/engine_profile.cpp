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

EngineConfig engine_profile(EngineKind kind, const Gpu& gpu) {
  EngineConfig e; // vLLM defaults (inference.hpp)
  (void)gpu;
  switch (kind) {
  case EngineKind::vllm: break;
  case EngineKind::sglang: break;
  case EngineKind::trtllm: break;
  }
  return e;
}

} // namespace rightsize
