#include "render/recommend_render.hpp"

#include <cmath>

#include <fmt/format.h>

#include "io/json/json_text.hpp"
#include "render/cost_of_confidence_render.hpp"
#include "render/disagg_render.hpp"
#include "render/emit/torchrun.hpp"
#include "render/evidence_render.hpp"
#include "render/image_render.hpp"
#include "render/instances_render.hpp"
#include "render/lora_render.hpp"
#include "render/prefix_cache_render.hpp"
#include "render/recommend_text.hpp"
#include "render/render.hpp"
#include "render/speculative_render.hpp"
#include "render/table.hpp"
#include "render/terminal.hpp"
#include "render/training_render.hpp"
#include "rightsize/energy.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

// The bill of the tier (methodology §7): null unless --pricing spot keeps an on-demand base.
nlohmann::json tier_bill_json(const std::optional<TierBill>& bill) {
  if (!bill) return nullptr;
  const auto usd = [](double v) { return v > 0.0 ? nlohmann::json(round_sig(v, 6)) : nlohmann::json(); };
  return {
      {"on_demand_replicas", bill->on_demand_replicas},
      {"spot_replicas", bill->spot_replicas},
      {"on_demand_gpus_billed", bill->on_demand.gpus_billed},
      {"spot_gpus_billed", bill->spot.gpus_billed},
      {"on_demand_usd_per_gpu_hour", usd(bill->on_demand_usd_per_gpu_hour)},
      {"spot_usd_per_gpu_hour", usd(bill->spot_usd_per_gpu_hour)},
      {"usd_per_hour", bill->known ? nlohmann::json(round_sig(bill->usd_per_hour, 6)) : nlohmann::json()}};
}

// The passing candidate cheapest at its bill as advised, when not the winner (methodology §7).
nlohmann::json cheapest_as_advised_json(const SearchInputs& in, const app::RecommendResult& result) {
  const std::optional<app::AsAdvised>& advised = result.cheapest_as_advised;
  if (!advised) return nullptr;
  const Candidate& c = result.recommendation.candidates[advised->index];
  nlohmann::json j = candidate_json(in, c);
  j["gpu"] = in.gpus[c.gpu_index].id;
  j["replicas"] = c.replicas;
  j["tier_bill"] = tier_bill_json(advised->bill);
  j["pct_less_than_winner"] = round_sig(advised->pct_less_than_winner(), 4);
  return j;
}

nlohmann::json capacity_json(const CapacityPlan& plan) {
  return {{"replicas_peak", plan.replicas_peak},
          {"replicas_average", plan.replicas_average},
          {"min_replicas", plan.min_replicas},
          {"max_replicas", plan.max_replicas},
          {"cold_start_s", round_sig(plan.cold_start_s, 4)},
          {"scale_to_zero", plan.scale_to_zero},
          {"scaling_signal", plan.scaling_signal},
          {"in_flight_target_per_replica", round_sig(plan.in_flight_target_per_replica, 6)},
          {"in_flight_cap_per_replica", plan.in_flight_cap_per_replica},
          {"tier", plan.tier},
          {"why", plan.why},
          {"spot_replicas", plan.spot_replicas},
          {"tier_bill", tier_bill_json(plan.tier_bill)}};
}

} // namespace

Table csv_columns(std::initializer_list<const char*> headers) {
  std::vector<Column> columns;
  for (const char* h : headers)
    columns.push_back({h, Align::left});
  return Table(std::move(columns));
}

std::string csv_number(double value) {
  return std::isfinite(value) ? fmt::format("{:g}", round_sig(value)) : std::string();
}

std::string csv_usd(double usd, bool known) {
  return known ? csv_number(usd) : std::string();
}

std::string describe_sla(const Sla& sla, double headroom) {
  std::vector<std::string> parts;
  if (sla.ttft_ms) parts.push_back(fmt::format("TTFT{} ≤ {:g} ms", stat_suffix(sla.ttft_stat), *sla.ttft_ms));
  if (sla.tpot_ms) parts.push_back(fmt::format("TPOT{} ≤ {:g} ms", stat_suffix(sla.tpot_stat), *sla.tpot_ms));
  if (sla.e2e_ms) parts.push_back(fmt::format("E2E{} ≤ {:g} ms", stat_suffix(sla.e2e_stat), *sla.e2e_ms));
  // Each load target carries the headroom the judge adds to it.
  const std::string spare = headroom > 0.0 ? fmt::format(" + {:g} % headroom", headroom * 100.0) : "";
  if (sla.requests_per_s) parts.push_back(fmt::format("{:g} req/s peak{}", *sla.requests_per_s, spare));
  if (sla.output_tokens_per_s)
    parts.push_back(fmt::format("{:g} output tok/s{}", *sla.output_tokens_per_s, spare));
  if (sla.budget_usd) parts.push_back(fmt::format("≤ ${:g}/h", *sla.budget_usd));
  if (parts.empty()) return "none";
  std::string out;
  for (const auto& p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

nlohmann::json candidate_json(const SearchInputs& in, const Candidate& c) {
  const Gpu& gpu = in.gpus[c.gpu_index];
  Deployment whole = c.layout;
  whole.gpus = c.total_gpus();
  nlohmann::json j = estimate_json(in.models[c.precision_index], gpu.id, whole, c.estimate, c.price_known);
  j["deployment"]["efficiency_provenance"] =
      efficiency_provenance(gpu, whole, in.models[c.precision_index].model);
  j["rank"] = c.rank;
  j["meets_sla"] = c.meets_sla;
  if (c.speculative_auto) { // methodology §3.8, "use": "auto"
    j["speculative_auto"] = {{"on", c.speculative_on},
                             {"other_tpot_s", round_sig(c.speculative_other_tpot_s)},
                             {"other_usd_per_million_output_tokens_at_load",
                              c.speculative_other_usd_per_million > 0.0
                                  ? nlohmann::json(round_sig(c.speculative_other_usd_per_million))
                                  : nlohmann::json()}};
  }
  const ModelSpec& model = in.models[c.precision_index].model;
  const std::string reason = describe_rejection(
      c, is_item_model(in.models[c.precision_index]) ? vocabulary_of(model.kind) : Vocabulary{});
  j["reasons"] = c.meets_sla ? nlohmann::json::array() : nlohmann::json::array({reason});
  j["reject_reason"] = reason_code(c.rejection.term);
  j["precision"] = precision_name(in, in.precisions[c.precision_index]);
  j["cost"]["usd_per_gpu_hour"] =
      c.price_known ? nlohmann::json(round_sig(in.usd_per_gpu_hour[c.gpu_index])) : nlohmann::json();
  add_cost_at_load(j["cost"],
                   {c.served_requests_per_s, c.served_output_tokens_per_s, c.usd_per_request_at_load,
                    c.usd_per_million_output_tokens_at_load},
                   c.price_known);
  // What --rank-by energy ranks by (methodology §9): board power at peak load and GPU joules per
  // output token; null where the catalog gives no TDP.
  const auto known = [](double v) { return v > 0.0 ? nlohmann::json(round_sig(v)) : nlohmann::json(); };
  j["energy"] = {{"power_watts", known(c.power_watts)},
                 {"joules_per_output_token", known(c.joules_per_output_token)}};
  // Unbounded when overloaded (docs/output-schema.md): null, not the core's stand-in.
  // The operating point at the served load (methodology §6 "Latency at the served load"): means, and
  // each figure at the statistic the SLA judges it by (what the table shows).
  const LoadPoint& p = c.at_load;
  const auto bounded = [&](double v) {
    return c.estimate.overloaded ? nlohmann::json() : nlohmann::json(round_sig(v));
  };
  j["inference"]["ttft_at_load_s"] = bounded(p.ttft_s);
  j["inference"]["tpot_at_load_s"] = round_sig(p.tpot_s);
  j["inference"]["e2e_at_load_s"] = bounded(p.e2e_s);
  j["inference"]["concurrency_at_load"] = p.concurrency;
  j["inference"]["judged_at_load_s"] = {{"ttft", bounded(p.ttft_judged_s)},
                                        {"tpot", round_sig(p.tpot_judged_s)},
                                        {"e2e", bounded(p.e2e_judged_s)}};
  j["instances"] = instances_json(c.estimate.bill, in.gpu_prices[c.gpu_index]);
  if (is_item_model(in.models[c.precision_index])) add_image_json(j, model, c);
  return j;
}

namespace {

// The JSON document of a recommendation (docs/output-schema.md "recommend").
void print_recommendation_json(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                               const LoadedCatalog& catalog, const RenderOptions& o) {
  const Recommendation& r = result.recommendation;
  const SearchPolicy& policy = result.policy;
  const PreparedModel& first = in.models.front();
  const RankBy rank_by = result.rank_by;
  const std::optional<CapacityPlan>& plan = result.capacity_plan;
  nlohmann::json doc;
  doc["schema_version"] = k_output_schema_version;
  doc["spec"] = spec.name;
  doc["model"] = first.model.name;
  doc["rank_by"] = to_string(rank_by);
  doc["confidence"] = to_string(policy.confidence);
  doc["pricing"] = to_string(catalog.pricing);
  if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
  // The same rows as every format (docs/output-schema.md "Rows"): the top --top passing
  // candidates; the closest miss per GPU, or every rejection with --explain.
  doc["candidates_evaluated"] = r.candidates.size() + r.rejected.size();
  doc["not_searched_consumer"] = in.excluded_consumer;
  doc["candidates_passing"] = r.candidates.size();
  doc["candidates"] = nlohmann::json::array();
  for (std::size_t i = 0; i < result.shown.size(); ++i) {
    nlohmann::json j = candidate_json(in, result.shown[i]);
    add_inference_bands(j, result.shown_bands[i]);
    j["sla_optimistic_only"] = optimistic_only(result.shown_bands[i]);
    const std::vector<double>& margins = result.policy.price_margins;
    const std::size_t g = result.shown[i].gpu_index;
    j["cost"]["price_rank_margin"] = round_sig(g < margins.size() ? margins[g] : 0.0, 4);
    doc["candidates"].push_back(j);
  }
  doc["rejected"] = nlohmann::json::array();
  for (const auto& c : result.rejected_rows)
    doc["rejected"].push_back(candidate_json(in, c));
  if (plan) {
    const Candidate& w = r.candidates.front();
    nlohmann::json winner = candidate_json(in, w);
    winner["gpu"] = in.gpus[w.gpu_index].id;
    winner["replicas"] = w.replicas;
    winner["why"] = winner_line(in, result, spec);
    doc["winner"] = winner;
    doc["capacity_plan"] = capacity_json(*plan);
    doc["cheapest_as_advised"] = cheapest_as_advised_json(in, result);
  } else {
    doc["winner"] = nullptr;
    doc["capacity_plan"] = nullptr;
  }
  doc["cost_of_confidence"] = cost_of_confidence_json(in, result.cost_of_confidence);
  add_evidence_json(doc, in, result);
  if (o.searched_precisions) {
    nlohmann::json notes = nlohmann::json::object();
    for (const auto& p : in.precisions)
      notes[precision_name(in, p)] = format_info(p.weights).quality_note;
    doc["precision_quality"] = notes;
  }
  doc["assumptions"] = assumptions_json(spec.assumptions);
  doc.update(o.extra_json);
  fmt::print("{}\n", io::json_text(doc));
}

} // namespace

void render_recommendation(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                           const LoadedCatalog& catalog, const RenderOptions& o) {
  if (o.format == Format::json) {
    print_recommendation_json(spec, in, result, catalog, o);
  } else if (o.format == Format::csv) {
    std::vector<Candidate> all = result.shown;
    all.insert(all.end(), result.rejected_rows.begin(), result.rejected_rows.end());
    fmt::print("{}", candidate_csv(in, all).render_csv());
  } else if (o.format == Format::markdown) {
    render_recommendation_markdown(spec, in, result, o);
  } else {
    render_recommendation_text(spec, in, result, catalog, o);
  }
}

void render_recommend(const app::RecommendOutcome& outcome, const RenderOptions& options,
                      app::Diagnostics& diagnostics) {
  if (const app::TrainingRecommendResult* training = outcome.training()) {
    render_training_recommendation(outcome.spec, outcome.in, *training, outcome.catalog, options);
    return;
  }
  const app::RecommendResult& result = *outcome.inference();
  RenderOptions ro = options;
  if (result.disagg && ro.format == Format::json)
    ro.extra_json["disaggregated"] = disagg_search_json(outcome.in, result);
  const app::Stage stage(diagnostics, "render");
  render_recommendation(outcome.spec, outcome.in, result, outcome.catalog, ro);
  if (result.disagg && ro.format != Format::json)
    print_disagg_search(outcome.in, result, ro.format == Format::markdown);
}

void render_recommended_artifact(const app::RecommendOutcome& outcome, const EmitFormat& format,
                                 app::Diagnostics& diagnostics, const ArtifactWriter& write) {
  if (const app::TrainingRecommendResult* training = outcome.training()) {
    if (!training->launch) {
      diagnostics.note("nothing meets the requirements; no torchrun launch written");
      return;
    }
    write(render_training_launch(outcome.spec, *training->launch));
    return;
  }
  const app::RecommendResult& result = *outcome.inference();
  if (!result.artifact) {
    diagnostics.note(fmt::format("nothing meets the requirements; no {} artifact written", format.kind));
    return;
  }
  write(render_artifact(format, outcome.spec, *result.artifact, diagnostics));
}

} // namespace rightsize::cli
