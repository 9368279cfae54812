#pragma once
// How `recommend` states the cost of confidence (docs/cli.md "recommend", docs/output-schema.md
// "cost_of_confidence"): the judged winner beside the point estimate's, as the use case decided it.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "app/context.hpp"
#include "app/cost_of_confidence.hpp"

namespace rightsize::cli {

/// The table's and markdown's line under the winner (or under "no configuration meets the
/// requirements"): "confidence: p90 sizing 16 × H100-SXM, $69.12/h; at the point estimate (p50) 8 ×
/// H100-SXM, $34.56/h: the band costs $34.56/h (+100 %); ..."; "" when there is nothing to state.
std::string cost_of_confidence_line(const app::SearchInputs& in, const app::CostOfConfidence& cost);

/// The JSON object `cost_of_confidence` ({confidence, judged, point, point_same_gpu,
/// extra_usd_per_hour, extra_fraction, costs_nothing}); null when the use case stated none.
nlohmann::json cost_of_confidence_json(const app::SearchInputs& in,
                                       const std::optional<app::CostOfConfidence>& cost);

} // namespace rightsize::cli
