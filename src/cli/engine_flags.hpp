#pragma once
// The engine flags of every spec-driven command (--engine and its overrides), parsed into the use
// case's app::EngineSetup before any file is read (app/engine_setup.hpp resolves the profile).
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "app/engine_setup.hpp"

namespace rightsize::cli {

/// Engine overrides from the command line (0 / negative = keep the default).
struct EngineOptions {
  std::string engine; ///< --engine vllm|sglang|trtllm (overrides the spec's workload.engine)
  double gpu_memory_utilization = 0.0;
  std::int64_t max_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
  std::string capacity_scheduler_policy; ///< --capacity-scheduler-policy; "" = the profile's
};
void add_engine_options(CLI::App* command, EngineOptions& options);

/// The setup of `options`; bad values are usage errors naming the flag.
app::EngineSetup engine_setup(const EngineOptions& options);

} // namespace rightsize::cli
