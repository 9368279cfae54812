#include "cli/engine_flags.hpp"

#include <fmt/format.h>

#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {

void add_engine_options(CLI::App* command, EngineOptions& options) {
  command
      ->add_option(
          "--engine", options.engine,
          "serving engine profile: vllm, sglang or trtllm (default: the spec's workload.engine, else vllm)")
      ->group("Engine");
  command
      ->add_option("--gpu-memory-utilization", options.gpu_memory_utilization,
                   "the engine's memory fraction u: of the whole GPU (vLLM, SGLang) or of the memory free "
                   "after loading (TensorRT-LLM); default: the profile's")
      ->group("Engine");
  command
      ->add_option("--max-batched-tokens", options.max_batched_tokens,
                   "chunked-prefill step size in tokens (default 8192)")
      ->group("Engine");
  command
      ->add_option("--max-num-seqs", options.max_num_seqs, "engine cap on in-flight sequences (default 1024)")
      ->group("Engine");
  command
      ->add_option("--capacity-scheduler-policy", options.capacity_scheduler_policy,
                   "TensorRT-LLM only: guaranteed_no_evict (default: a request reserves its maximum output "
                   "in the KV cache) or max_utilization (it holds the tokens it has; more fit)")
      ->group("Engine");
}

app::EngineSetup engine_setup(const EngineOptions& options) {
  app::EngineSetup setup;
  if (!options.engine.empty()) {
    setup.engine = parse_engine_kind(options.engine);
    if (!setup.engine) {
      throw Error(ErrorKind::usage, "--engine", "",
                  fmt::format("expected vllm, sglang or trtllm, got \"{}\"", options.engine));
    }
  }
  if (options.gpu_memory_utilization != 0.0 &&
      !(options.gpu_memory_utilization > 0.05 && options.gpu_memory_utilization <= 1.0)) {
    throw Error(ErrorKind::usage, "--gpu-memory-utilization", "",
                fmt::format("expected a fraction in (0.05, 1], got {}", options.gpu_memory_utilization));
  }
  setup.gpu_memory_utilization = options.gpu_memory_utilization;
  if (options.max_batched_tokens != 0 &&
      (options.max_batched_tokens < 16 || options.max_batched_tokens > 10'000'000)) {
    throw Error(ErrorKind::usage, "--max-batched-tokens", "",
                fmt::format("expected 16 to 10000000 tokens, got {}", options.max_batched_tokens));
  }
  setup.max_batched_tokens = options.max_batched_tokens;
  if (options.max_num_seqs != 0 && (options.max_num_seqs < 1 || options.max_num_seqs > 1'000'000)) {
    throw Error(ErrorKind::usage, "--max-num-seqs", "",
                fmt::format("expected 1 to 1000000 sequences, got {}", options.max_num_seqs));
  }
  setup.max_num_seqs = options.max_num_seqs;
  if (!options.capacity_scheduler_policy.empty()) {
    setup.capacity_policy = parse_capacity_policy(options.capacity_scheduler_policy);
    if (!setup.capacity_policy)
      throw Error(ErrorKind::usage, "--capacity-scheduler-policy", "",
                  fmt::format("expected guaranteed_no_evict or max_utilization, got \"{}\"",
                              options.capacity_scheduler_policy));
  }
  return setup;
}

} // namespace rightsize::cli
