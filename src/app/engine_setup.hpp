#pragma once
// The serving engine a command estimates with (methodology §3.2): the profile of --engine, else of
// the spec's workload.engine, else vLLM's, from data/engines.json, with the command line's overrides.
// The CLI parses and range-checks the flags into an EngineSetup.
#include <cstdint>
#include <optional>
#include <string>

#include "rightsize/engine_profile.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// The engine flags, parsed: each override 0 = the profile's value.
struct EngineSetup {
  std::optional<EngineKind> engine;    ///< --engine (overrides the spec's workload.engine)
  double gpu_memory_utilization = 0.0; ///< --gpu-memory-utilization, in (0.05, 1]
  std::int64_t max_batched_tokens = 0; ///< --max-batched-tokens, 16 to 10,000,000
  std::int64_t max_num_seqs = 0;       ///< --max-num-seqs, 1 to 1,000,000
  /// --capacity-scheduler-policy (TensorRT-LLM only): the profile's kv_reserved_output_share becomes
  /// core reserved_output_share's; none = the profile's.
  std::optional<CapacitySchedulerPolicy> capacity_policy;
};

/// The engine config: the profile in `profiles` of --engine, else of `spec_engine`, else vLLM's,
/// with the overrides applied. A capacity policy on another engine than TensorRT-LLM is a usage Error
/// naming --capacity-scheduler-policy.
EngineConfig engine_config(const EngineSetup& setup, std::optional<EngineKind> spec_engine,
                           const EngineProfiles& profiles);

/// The engine profile's name: --engine, else the spec's workload.engine, else "vllm".
std::string engine_name(const EngineSetup& setup, std::optional<EngineKind> spec_engine);

/// The engine setup the estimate runs with when an engine's launch script is emitted (`artifact_kind`
/// vllm, sglang or trtllm): the script is sized from that engine's profile, so with no --engine and no
/// workload.engine the estimate assumes the emitted engine; a different explicit engine is a usage
/// Error naming --emit (the script's --max-num-seqs and KV budget would come from another scheduler).
EngineSetup emit_engine_setup(const std::string& artifact_kind, const EngineSetup& setup, const Spec& spec);

} // namespace rightsize::app
