#include "cli/run_context.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/spec/spec_io.hpp"
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
                   "fraction of GPU memory the engine may use (default 0.90, as vLLM)")
      ->group("Engine");
  command
      ->add_option("--max-batched-tokens", options.max_batched_tokens,
                   "chunked-prefill step size in tokens (default 8192)")
      ->group("Engine");
  command
      ->add_option("--max-num-seqs", options.max_num_seqs, "engine cap on in-flight sequences (default 1024)")
      ->group("Engine");
}

EngineConfig engine_config(const EngineOptions& options, std::optional<EngineKind> spec_engine,
                           const EngineProfiles& profiles) {
  EngineKind kind = spec_engine.value_or(EngineKind::vllm);
  if (!options.engine.empty()) {
    const auto parsed = parse_engine_kind(options.engine);
    if (!parsed) {
      throw Error(ErrorKind::usage, "--engine", "",
                  fmt::format("expected vllm, sglang or trtllm, got \"{}\"", options.engine));
    }
    kind = *parsed;
  }
  EngineConfig engine = profiles.of(kind);
  if (options.gpu_memory_utilization != 0.0) {
    if (!(options.gpu_memory_utilization > 0.05 && options.gpu_memory_utilization <= 1.0)) {
      throw Error(ErrorKind::usage, "--gpu-memory-utilization", "",
                  fmt::format("expected a fraction in (0.05, 1], got {}", options.gpu_memory_utilization));
    }
    engine.usable_fraction = options.gpu_memory_utilization;
  }
  if (options.max_batched_tokens != 0) {
    if (options.max_batched_tokens < 16 || options.max_batched_tokens > 10'000'000) {
      throw Error(ErrorKind::usage, "--max-batched-tokens", "",
                  fmt::format("expected 16 to 10000000 tokens, got {}", options.max_batched_tokens));
    }
    engine.max_batched_tokens = options.max_batched_tokens;
    engine.gpu_memory_tier_count = 0; // an explicit budget wins over SGLang's memory tiers
  }
  if (options.max_num_seqs != 0) {
    if (options.max_num_seqs < 1 || options.max_num_seqs > 1'000'000) {
      throw Error(ErrorKind::usage, "--max-num-seqs", "",
                  fmt::format("expected 1 to 1000000 sequences, got {}", options.max_num_seqs));
    }
    engine.max_num_seqs = options.max_num_seqs;
  }
  return engine;
}

std::string engine_name(const EngineOptions& options, std::optional<EngineKind> spec_engine) {
  if (!options.engine.empty())
    return to_string(*parse_engine_kind(options.engine)); // checked by engine_config
  return to_string(spec_engine.value_or(EngineKind::vllm));
}

Spec load_spec_file(const std::string& path) {
  return io::load_spec(path, data_dir() + "/models");
}

} // namespace rightsize::cli
