#pragma once
// Disaggregated prefill/decode deployments in the CLI (methodology §3.6): `estimate` and `check` of a
// spec whose `deployment` has `prefill` and `decode` blocks, and the disaggregated section of
// `recommend --disagg`. Parse -> core (estimate_disagg, judge, recommend_disagg) -> render.
#include <string>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "catalog_setup.hpp"
#include "rightsize/disagg_search.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/spec.hpp"
#include "run_context.hpp"

namespace rightsize::cli {

/// `estimate` (gate = false) or `check` (gate = true) of `spec.disaggregated`. Returns the exit code.
int run_disagg_deployment(const Spec& spec, const LoadedCatalog& catalog, const EngineConfig& engine,
                          const InferenceWorkload& workload, Confidence confidence, Format format, bool gate,
                          const std::string& engine_label);

/// The disaggregated search's result as JSON (`recommend --disagg --format json`, key "disaggregated").
nlohmann::json disagg_search_json(const SearchInputs& in, const DisaggRecommendation& r,
                                  const Recommendation& aggregated, std::size_t top);

/// The disaggregated section of `recommend --disagg` (table or markdown) and the line that says which
/// of aggregated and disaggregated won and why.
void print_disagg_search(const SearchInputs& in, const DisaggRecommendation& r,
                         const Recommendation& aggregated, std::size_t top, bool markdown);

} // namespace rightsize::cli
