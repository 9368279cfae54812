#pragma once
// What every spec-driven command loads first: the spec, the priced catalog, the engine settings.
#include <optional>
#include <string>
#include <vector>

#include "cli/catalog_setup.hpp"
#include "cli/commands.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Engine overrides from the command line (0 / negative = keep the default).
struct EngineOptions {
  std::string engine; ///< --engine vllm|sglang|trtllm (overrides the spec's workload.engine)
  double gpu_memory_utilization = 0.0;
  std::int64_t max_batched_tokens = 0;
  std::int64_t max_num_seqs = 0;
};
void add_engine_options(CLI::App* command, EngineOptions& options);
/// The engine config with overrides applied; bad values are usage errors naming the flag.
/// The profile in `profiles` (data/engines.json) of --engine, else of the spec's workload.engine,
/// else vLLM's (methodology §3.2).
EngineConfig engine_config(const EngineOptions& options, std::optional<EngineKind> spec_engine,
                           const EngineProfiles& profiles);

/// The engine profile's name: --engine, else the spec's workload.engine, else "vllm".
std::string engine_name(const EngineOptions& options, std::optional<EngineKind> spec_engine);

/// Loads a spec from `path` with presets from the data directory.
Spec load_spec_file(const std::string& path);

using app::gpu_index;
using app::precisions_to_search;
using app::search_inputs;
using app::SearchInputs;

} // namespace rightsize::cli
