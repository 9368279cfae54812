#pragma once
// Disaggregated prefill/decode deployments in the CLI (methodology §3.6): `estimate` and `check` of a
// spec whose `deployment` has `prefill` and `decode` blocks, and the disaggregated section of
// `recommend --disagg`. Parse -> core (estimate_disagg, judge, recommend_disagg) -> render.
#include <string>

#include <nlohmann/json.hpp>

#include "app/disagg_deployment.hpp"
#include "app/recommend.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"
#include "rightsize/disagg_search.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Prints the result of app::run_disagg_deployment for `estimate` (gate = false) or `check` (gate =
/// true, with its pass / fail line) in `format` (table or json).
void render_disagg_deployment(const Spec& spec, const app::DisaggDeploymentResult& result,
                              Confidence confidence, Format format, bool gate,
                              const std::string& engine_label);

/// The disaggregated search's result as JSON (`recommend --disagg --format json`, key "disaggregated"):
/// the use case's rows (app::DisaggRows).
nlohmann::json disagg_search_json(const SearchInputs& in, const app::RecommendResult& result);

/// The disaggregated section of `recommend --disagg` (table or markdown) and the line that says which
/// of aggregated and disaggregated won and why.
void print_disagg_search(const SearchInputs& in, const app::RecommendResult& result, bool markdown);

} // namespace rightsize::cli
