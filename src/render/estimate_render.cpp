#include "render/estimate_render.hpp"

#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "io/json/json_text.hpp"
#include "render/disagg_render.hpp"
#include "render/estimate_table.hpp"
#include "render/image_render.hpp"
#include "render/instances_render.hpp"
#include "render/lora_render.hpp"
#include "render/prefix_cache_render.hpp"
#include "render/render.hpp"
#include "render/speculative_render.hpp"
#include "render/training_render.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {

void render_estimate(const Spec& spec, const LoadedCatalog& catalog, const app::EstimateResult& result,
                     Confidence confidence, const std::string& engine_name, Format format) {
  const Gpu& gpu = result.gpu;
  const ResolvedPrice& price = result.price;
  const PreparedModel& pm = result.model;
  if (result.training) {
    const TrainingEstimate& t = *result.training;
    if (format == Format::json) {
      nlohmann::json doc = training_json(pm, gpu.id, gpu_price(price), t, price.known);
      add_training_bands(doc, result.training_bands);
      doc["schema_version"] = k_output_schema_version;
      doc["assumptions"] = assumptions_json(result.assumptions);
      if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
      fmt::print("{}\n", io::json_text(doc));
    } else {
      print_training_table(spec, pm, gpu, t, price);
      if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
    }
    return;
  }
  const Deployment& d = result.deployment;
  const InferenceEstimate& e = result.estimate;
  if (format == Format::json) {
    nlohmann::json doc = estimate_json(pm, gpu.id, d, e, price.known);
    doc["instances"] = instances_json(e.bill, gpu_price(price));
    doc["deployment"]["efficiency_provenance"] = efficiency_provenance(gpu, d, pm.model);
    doc["load"] = load_json(result.workload, engine_name);
    if (result.capacity_policy) doc["load"]["capacity_scheduler_policy"] = to_string(*result.capacity_policy);
    if (result.verdict.feasible()) {
      add_inference_bands(doc, result.bands);
      if (e.residual.applied || e.residual.outside_range) { // docs/calibration.md "Residuals"
        doc["inference"]["residual"] = {{"applied", e.residual.applied},
                                        {"ttft_multiplier", round_sig(e.residual.ttft)},
                                        {"tpot_multiplier", round_sig(e.residual.tpot)}};
      }
      if (e.prefix_cache.active) // docs/output-schema.md "Prefix cache"
        doc["inference"]["prefix_cache"] = prefix_cache_json(result.workload, e, d.gpus_per_replica());
      if (e.lora.active) doc["inference"]["lora"] = lora_json(result.workload.lora, e); // methodology §3.10
      doc["sla_optimistic_only"] = optimistic_only(result.bands);
      if (result.goodput.has_targets) doc["inference"]["goodput"] = goodput_json(result.goodput);
      doc["cost"]["pricing"] = to_string(catalog.pricing);
      doc["cost"]["price_basis"] = price.basis;
      doc["cost"]["price_date"] = price.date;
      add_cost_at_load(doc["cost"], result.at_load, price.known);
    } else {
      doc["inference"] = nullptr; // not feasible: no performance or cost (docs/output-schema.md)
      doc["cost"] = nullptr;
      doc["instances"] = nullptr;
    }
    doc["judgement"] = verdict_json(result.verdict, confidence, e.concurrency);
    doc["schema_version"] = k_output_schema_version;
    doc["assumptions"] = assumptions_json(result.assumptions);
    if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
    fmt::print("{}\n", io::json_text(doc));
  } else {
    print_inference_table(result, catalog.pricing, confidence, engine_name);
    if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
  }
}

void render_estimate(const app::EstimateOutcome& outcome, Format format) {
  if (const auto* pools = std::get_if<app::DisaggDeploymentResult>(&outcome.estimated)) {
    render_disagg_deployment(outcome.spec, *pools, outcome.confidence, format, false, outcome.engine_name);
    return;
  }
  render_estimate(outcome.spec, outcome.catalog, std::get<app::EstimateResult>(outcome.estimated),
                  outcome.confidence, outcome.engine_name, format);
}

} // namespace rightsize::cli
