#pragma once
// Prefix caching and the KV offload tier in estimate output (methodology §3.9).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// "prefix cache: a 2048-token shared prefix, 4 turns per conversation" (what the spec says the hits
/// come from); "" without workload.prefix_cache.
std::string prefix_cache_source(const InferenceWorkload& workload);

/// The estimate's cache lines: the hit at the operating point, the working set and what holds it,
/// the tier and its load (each without a trailing newline); empty when the cache is inactive.
std::vector<std::string> prefix_cache_lines(const InferenceWorkload& workload,
                                            const InferenceEstimate& estimate, int gpus_per_replica);

/// inference.prefix_cache of the estimate JSON (docs/output-schema.md); null when inactive.
nlohmann::json prefix_cache_json(const InferenceWorkload& workload, const InferenceEstimate& estimate,
                                 int gpus_per_replica);

} // namespace rightsize::cli
