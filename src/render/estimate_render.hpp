#pragma once
// The writers of `estimate` (docs/output-schema.md "estimate"): one deployment as a table or a JSON
// document, formatted from the use case's result (src/app/estimate.hpp); they decide nothing.
#include <string>

#include "app/estimate.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// Prints an estimated deployment, one GPU type's or disaggregated pools', in `format` (table or json).
void render_estimate(const app::EstimateOutcome& outcome, Format format);

/// Prints an estimated deployment (inference or training) in `format` (table or json) to stdout.
void render_estimate(const Spec& spec, const LoadedCatalog& catalog, const app::EstimateResult& result,
                     Confidence confidence, const std::string& engine_name, Format format);

} // namespace rightsize::cli
