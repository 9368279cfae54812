#pragma once
// The text table of one inference estimate (`estimate`'s table format): the deployment, its workload
// and load, memory, performance with bands, cost and SLA, each section its own function.
#include <string>

#include "app/estimate.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::cli {

/// Prints `result` (an inference estimate) as `estimate`'s text table to stdout: the load line names
/// `engine_name`'s profile; SLA terms are judged at `confidence`.
void print_inference_table(const app::EstimateResult& result, PricingModel pricing, Confidence confidence,
                           const std::string& engine_name);

} // namespace rightsize::cli
