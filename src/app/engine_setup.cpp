#include "app/engine_setup.hpp"

#include <fmt/format.h>

#include "rightsize/error.hpp"

namespace rightsize::app {

EngineConfig engine_config(const EngineSetup& setup, std::optional<EngineKind> spec_engine,
                           const EngineProfiles& profiles) {
  const EngineKind kind = setup.engine.value_or(spec_engine.value_or(EngineKind::vllm));
  EngineConfig engine = profiles.of(kind);
  if (setup.gpu_memory_utilization != 0.0) engine.usable_fraction = setup.gpu_memory_utilization;
  if (setup.max_batched_tokens != 0) {
    engine.max_batched_tokens = setup.max_batched_tokens;
    engine.gpu_memory_tier_count = 0; // an explicit budget wins over SGLang's memory tiers
  }
  if (setup.max_num_seqs != 0) engine.max_num_seqs = setup.max_num_seqs;
  if (setup.capacity_policy) {
    if (kind != EngineKind::trtllm) {
      throw Error(ErrorKind::usage, "--capacity-scheduler-policy", "",
                  fmt::format("expected --engine trtllm: the capacity scheduler policy is TensorRT-LLM's, "
                              "and the estimate assumes {} ({} admits on the KV blocks a request holds)",
                              to_string(kind),
                              kind == EngineKind::vllm ? "vLLM" : "SGLang, with its new-token ratio,"));
    }
    engine.kv_reserved_output_share = reserved_output_share(*setup.capacity_policy);
  }
  return engine;
}

std::string engine_name(const EngineSetup& setup, std::optional<EngineKind> spec_engine) {
  return to_string(setup.engine.value_or(spec_engine.value_or(EngineKind::vllm)));
}

EngineSetup emit_engine_setup(const std::string& artifact_kind, const EngineSetup& setup, const Spec& spec) {
  if (artifact_kind != "vllm" && artifact_kind != "sglang" && artifact_kind != "trtllm") return setup;
  EngineSetup out = setup;
  if (!setup.engine && !spec.engine) {
    out.engine = parse_engine_kind(artifact_kind);
    return out;
  }
  const std::string assumed = engine_name(setup, spec.engine);
  if (assumed != artifact_kind) {
    throw Error(
        ErrorKind::usage, "--emit", "",
        fmt::format("writes a {} launch script, but the estimate assumes {} ({}); give --engine {} so "
                    "the script's batch and KV sizes come from the engine it launches",
                    artifact_kind, assumed, setup.engine ? "--engine" : "workload.engine", artifact_kind));
  }
  return out;
}

} // namespace rightsize::app
