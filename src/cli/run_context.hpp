#pragma once
// What every spec-driven command loads first: the spec, the priced catalog, the engine settings.
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "catalog_setup.hpp"
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
/// The profile of --engine, else of the spec's workload.engine, else vLLM's (methodology §3.2).
EngineConfig engine_config(const EngineOptions& options, std::optional<EngineKind> spec_engine);

/// The engine profile's name: --engine, else the spec's workload.engine, else "vllm".
std::string engine_name(const EngineOptions& options, std::optional<EngineKind> spec_engine);

/// Loads a spec from `path` with presets from the data directory.
Spec load_spec_file(const std::string& path);

/// Index of a GPU in the catalog.
std::size_t gpu_index(const LoadedCatalog& catalog, const Gpu& gpu);

/// What a search runs over: the chosen GPUs with their prices, and one prepared model per precision.
struct SearchInputs {
  std::vector<Gpu> gpus;                ///< sorted by id
  std::vector<ResolvedPrice> prices;    ///< parallel to gpus
  std::vector<double> usd_per_gpu_hour; ///< parallel to gpus; 0 = unknown
  std::vector<GpuPrice> gpu_prices;     ///< parallel to gpus: the rate with its instance shapes
  std::vector<Precision> precisions;
  std::vector<PreparedModel> models;          ///< parallel to precisions
  std::vector<std::string> excluded_consumer; ///< consumer GPUs a whole-catalog search left out
};
/// GPUs from --gpu (usage errors), else the spec's constraints.gpus (input errors with pointer),
/// else the whole catalog without consumer parts unless `include_consumer` (searched_by_default).
SearchInputs search_inputs(const Spec& spec, const LoadedCatalog& catalog,
                           const std::vector<std::string>& gpu_flags, const std::string& precision_list,
                           bool include_consumer = false);

/// Precisions to search from `--precisions bf16,fp8,int4` (empty = the spec's own).
std::vector<Precision> precisions_to_search(const Spec& spec, const std::string& list);

} // namespace rightsize::cli
