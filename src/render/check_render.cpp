#include "render/check_render.hpp"

#include <cmath>
#include <variant>

#include <fmt/format.h>

#include "io/json/json_text.hpp"
#include "render/disagg_render.hpp"
#include "render/evidence_render.hpp"
#include "render/image_render.hpp"
#include "render/instances_render.hpp"
#include "render/recommend_render.hpp"
#include "render/render.hpp"

namespace rightsize::cli {

std::string check_failure(const app::CheckResult& res) {
  if (!res.verdict.feasible()) return describe_rejection(res.verdict.first, res.current.estimate.concurrency);
  for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
    if (!res.verdict.terms[i].met) return describe_term(res.verdict.terms[i]);
  }
  return "";
}

namespace {

// "4 × H100-SXM (TP4, 1 replica) for $12.96/h": a deployment an option names.
std::string check_option_text(const SearchInputs& in, const Candidate& c) {
  return fmt::format("{} × {} ({}, {} replica{}) {}", c.total_gpus(), in.gpus[c.gpu_index].id,
                     layout_label(c.layout), c.replicas, c.replicas == 1 ? "" : "s",
                     c.price_known ? fmt::format("for {}/h", format_usd(c.estimate.usd_per_hour, true))
                                   : std::string("(no price known)"));
}

// The unit recommend ranks cost by: per 1M output tokens, per image or item for an item model.
const char* check_cost_unit(const Spec& spec) {
  if (spec.model.kind == ModelKind::decoder) return "1M output tokens";
  return spec.model.kind == ModelKind::vit ? "item" : "image";
}

// How the layout of an unpinned GPU count was chosen (core::layout_for_count); empty when pinned.
std::string check_layout_text(const app::CheckResult& res) {
  if (!res.layout_basis) return "";
  const std::string& gpu = res.current_in.gpus.front().id;
  switch (*res.layout_basis) {
  case CountLayoutBasis::best_ranked:
    return fmt::format("recommend's best-ranked layout that meets the SLA on {} × {} (nothing pinned)",
                       res.gpus, gpu);
  case CountLayoutBasis::best_ranked_short:
    return fmt::format("recommend's best-ranked layout on {}; none meets the SLA on {} GPU{}", gpu, res.gpus,
                       res.gpus == 1 ? "" : "s");
  case CountLayoutBasis::smallest_fit: break;
  }
  return res.same_gpu_passes
             ? fmt::format("the smallest that fits; no layout that meets the SLA on {} splits {} GPU{}", gpu,
                           res.gpus, res.gpus == 1 ? "" : "s")
             : fmt::format("the smallest that fits; no layout meets the SLA on {}", gpu);
}

// When the ranking charged the cheaper option's price a margin (methodology §5.2), why and how much:
// " on its quoted price (it rests on one provider ...: ranked +111%, ...)", else "".
std::string cheaper_margin_clause(const app::CheckResult& res) {
  if (!res.cheaper || std::round(res.cheaper_price_margin * 100.0) < 1.0) return "";
  return fmt::format(
      " on its quoted price ({}: ranked +{:.0f}%, docs/methodology.md §5.2)",
      price_margin_reason(res.compared_in.prices[res.cheaper->gpu_index], res.cheaper_price_age_days),
      res.cheaper_price_margin * 100.0);
}

// A cheaper GPU type that meets the SLA too, in words: a note, not the gate's answer.
std::string check_other_gpu_note(const Spec& spec, const app::CheckResult& res) {
  return fmt::format("a cheaper GPU type meets it too: {}, {} less per {} served{} (not judged: "
                     "--deployment fixes the GPU type; compared against {} GPU type{})",
                     check_option_text(res.compared_in, *res.cheaper), format_pct(res.saving * 100.0),
                     check_cost_unit(spec), cheaper_margin_clause(res), res.compared.size(),
                     res.compared.size() == 1 ? "" : "s");
}

void print_check_json(const Spec& spec, const LoadedCatalog& catalog, const app::CheckResult& res,
                      double max_overspend) {
  const InferenceEstimate& e = res.current.estimate;
  nlohmann::json doc;
  doc["schema_version"] = k_output_schema_version;
  doc["deployment"] = {{"gpu", res.current_in.gpus.front().id},
                       {"gpus", res.gpus},
                       {"tp", res.layout.tp},
                       {"pp", res.layout.pp},
                       {"ep", res.layout.ep},
                       {"attention_dp", res.layout.attention_dp},
                       {"replicas", res.replicas},
                       {"layout", layout_label(res.layout)},
                       {"layout_choice", res.layout_basis ? to_string(*res.layout_basis) : "pinned"}};
  if (res.verdict.feasible()) {
    doc["estimate"] = candidate_json(res.current_in, res.current);
    add_inference_bands(doc["estimate"], res.current_bands);
    add_cost_at_load(doc["estimate"]["cost"], res.current_at_load, res.current.price_known);
    // methodology §6.1, at the verdict's band end as estimate's (docs/output-schema.md)
    if (res.goodput.has_targets) doc["estimate"]["inference"]["goodput"] = goodput_json(res.goodput);
  } else {
    doc["estimate"] = nullptr;
  }
  doc["judgement"] = verdict_json(res.verdict, res.policy.confidence, e.concurrency);
  // The band judged at --confidence p90 is the reach's (docs/accuracy.md "Bands by reach").
  if (res.verdict.feasible() && res.current_bands.calibrated)
    doc["judgement"]["reach"] = to_string(res.current_bands.reach);
  doc["meets_sla"] = res.meets;
  std::vector<std::string> misses;
  if (!res.verdict.feasible()) misses.push_back(describe_rejection(res.verdict.first, e.concurrency));
  for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
    if (!res.verdict.terms[i].met) misses.push_back(describe_term(res.verdict.terms[i]));
  }
  doc["misses"] = misses;
  doc["over_provisioned"] = res.over_provisioned;
  doc["max_overspend"] = max_overspend;
  doc["cheaper_same_gpu"] =
      res.cheaper_same_gpu ? candidate_json(res.current_in, *res.cheaper_same_gpu) : nlohmann::json();
  doc["same_gpu_saving_fraction"] = round_sig(res.same_gpu_saving, 4);
  doc["saving_fraction"] = round_sig(res.saving, 4);
  doc["compared_gpus"] = res.compared;
  doc["cheaper"] = res.cheaper ? candidate_json(res.compared_in, *res.cheaper) : nlohmann::json();
  if (res.cheaper) doc["cheaper"]["price_rank_margin"] = round_sig(res.cheaper_price_margin, 4);
  doc["cheaper_other_gpu"] = res.cheaper_other_gpu;
  doc["would_pass"] = res.would_pass ? candidate_json(res.current_in, *res.would_pass) : nlohmann::json();
  std::vector<std::string> notes;
  if (res.cheaper_other_gpu) notes.push_back(check_other_gpu_note(spec, res));
  doc["notes"] = notes;
  doc["verdict"] = res.pass ? "pass" : "fail";
  if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
  fmt::print("{}\n", io::json_text(doc));
}

// The estimate's summary line, in the statistics the SLA judges ("TTFT p99 1.20 s" under
// ttft_p99_ms; the mean when the SLA names none), at the point estimate.
void print_check_estimate(const Spec& spec, const app::CheckResult& res) {
  const InferenceEstimate& e = res.current.estimate;
  const Sla& sla = spec.sla;
  const std::string usd = format_usd(e.usd_per_hour, res.current.price_known);
  if (spec.model.kind != ModelKind::decoder) {
    // An image or encoder model is judged in items (methodology §3.7): one request is one item.
    const char* item = spec.model.kind == ModelKind::vit ? "item" : "image";
    fmt::print("estimate: {:.3g} s per {}{}, {:.3g} {}s/s, {}/h\n", latency_stat_s(e, 2, sla.e2e_stat), item,
               stat_suffix(sla.e2e_stat), e.requests_per_s, item, usd);
    return;
  }
  std::string e2e;
  if (sla.e2e_ms)
    e2e = fmt::format(", E2E{} {}", stat_suffix(sla.e2e_stat),
                      format_wait(e, latency_stat_s(e, 2, sla.e2e_stat)));
  fmt::print(
      "estimate: TTFT{} {}, TPOT{} {}{}, {:.1f} req/s, {}/h\n", stat_suffix(sla.ttft_stat),
      e.overloaded ? std::string("unbounded (overloaded)") : format_ms(latency_stat_s(e, 0, sla.ttft_stat)),
      stat_suffix(sla.tpot_stat), format_ms(latency_stat_s(e, 1, sla.tpot_stat)), e2e, e.requests_per_s, usd);
  if (res.goodput.has_targets) fmt::print("{}\n", goodput_line(res.goodput)); // methodology §6.1
}

// What passes instead, or costs less: the same GPU type judges over-provisioning; another is a note.
void print_check_options(const Spec& spec, const app::CheckResult& res, double max_overspend) {
  const char* unit = check_cost_unit(spec);
  const std::string& gpu = res.current_in.gpus.front().id;
  if (!res.meets) {
    if (res.would_pass) {
      fmt::print("would pass: {}\n", check_option_text(res.current_in, *res.would_pass));
    } else {
      fmt::print("would pass: no deployment of {} meets it within the search limits\n", gpu);
    }
    if (res.cheaper && !res.would_pass) {
      fmt::print("an option that meets it: {} (compared against {} GPU type{})\n",
                 check_option_text(res.compared_in, *res.cheaper), res.compared.size(),
                 res.compared.size() == 1 ? "" : "s");
    } else if (res.cheaper) {
      // The saving is in what recommend ranks by (cost over the load served), against what would pass
      // on the deployment's GPU type.
      fmt::print("a cheaper option: {} meets it, {} less per {} served than that{} (threshold {:.0f}%; "
                 "compared against {} GPU type{})\n",
                 check_option_text(res.compared_in, *res.cheaper), format_pct(res.saving * 100.0), unit,
                 cheaper_margin_clause(res), max_overspend * 100.0, res.compared.size(),
                 res.compared.size() == 1 ? "" : "s");
    }
    return;
  }
  if (res.cheaper_same_gpu) {
    fmt::print("{}: {} meets it, {} less per {} served (threshold {:.0f}%; same GPU type)\n",
               res.over_provisioned ? "over-provisioned" : "a cheaper option",
               check_option_text(res.current_in, *res.cheaper_same_gpu),
               format_pct(res.same_gpu_saving * 100.0), unit, max_overspend * 100.0);
  }
  if (res.cheaper_other_gpu) fmt::print("note: {}\n", check_other_gpu_note(spec, res));
}

void print_check_table(const Spec& spec, const LoadedCatalog& catalog, const app::CheckResult& res,
                       double max_overspend) {
  const Gpu& gpu = res.current_in.gpus.front();
  const InferenceEstimate& e = res.current.estimate;
  fmt::print("deployment: {} × {} ({}, {} replica{}), concurrency {} per replica\n", res.gpus, gpu.id,
             layout_label(res.layout), res.replicas, res.replicas == 1 ? "" : "s", e.concurrency);
  const std::string layout = check_layout_text(res);
  if (!layout.empty()) fmt::print("layout: {}\n", layout);
  const bool items = spec.model.kind != ModelKind::decoder;
  const Vocabulary words = vocabulary_of(spec.model.kind);
  // The headroom the judge held the load to (an open loop without a capacity figure: none).
  double judged_headroom = res.policy.throughput_headroom;
  for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
    if (res.verdict.terms[i].is_load()) judged_headroom = res.verdict.terms[i].headroom;
  }
  fmt::print("SLA: {} (judged at --confidence {})\n",
             items ? describe_image_sla(spec.sla, spec.model.kind, judged_headroom)
                   : describe_sla(spec.sla, judged_headroom),
             to_string(res.policy.confidence));
  if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
  if (res.verdict.feasible()) {
    print_check_estimate(spec, res);
    fmt::print("instances: {}\n", instances_text(e.bill, res.current_in.gpu_prices.front()));
    if (const std::string reach = reach_note(res.current_bands, gpu.id, spec.model.name); !reach.empty())
      fmt::print("note: {}\n", reach);
  }
  if (res.meets) {
    fmt::print("meets the SLA\n");
  } else {
    // A power cap or a budget is missed by drawing or costing too much, not by too little capacity.
    const Term why = res.verdict.first.term;
    fmt::print("{}\n", why == Term::power    ? "over the power cap: misses the requirements"
                       : why == Term::budget ? "over budget: misses the requirements"
                                             : "under-provisioned: misses the SLA");
    if (!res.verdict.feasible())
      fmt::print("  - {}\n", describe_rejection(res.verdict.first, e.concurrency, words));
    for (std::size_t i = 0; i < res.verdict.term_count; ++i) {
      if (!res.verdict.terms[i].met) fmt::print("  - {}\n", describe_term(res.verdict.terms[i], words));
    }
  }
  print_check_options(spec, res, max_overspend);
  fmt::print("verdict: {}\n", res.pass ? "pass" : "fail");
}

} // namespace

void render_check(const Spec& spec, const LoadedCatalog& catalog, const app::CheckResult& res,
                  double max_overspend, Format format) {
  if (format == Format::json) {
    print_check_json(spec, catalog, res, max_overspend);
  } else {
    print_check_table(spec, catalog, res, max_overspend);
  }
}

void render_check(const app::CheckOutcome& outcome, Format format) {
  if (const auto* training = std::get_if<app::TrainingCheckResult>(&outcome.checked)) {
    render_training_check(outcome.spec, *training, outcome.max_overspend, format);
  } else if (const auto* pools = std::get_if<app::DisaggDeploymentResult>(&outcome.checked)) {
    render_disagg_deployment(outcome.spec, *pools, outcome.confidence, format, true, outcome.engine_name);
  } else {
    render_check(outcome.spec, outcome.catalog, std::get<app::CheckResult>(outcome.checked),
                 outcome.max_overspend, format);
  }
}

void render_checked_artifact(const app::CheckOutcome& outcome, const EmitFormat& format,
                             app::Diagnostics& diagnostics, const ArtifactWriter& write) {
  const app::CheckResult& res = std::get<app::CheckResult>(outcome.checked); // --emit: aggregated only
  if (!res.meets) {
    diagnostics.note(fmt::format("verdict: fail: the deployment misses the SLA ({}); no {} artifact written",
                                 check_failure(res), format.kind));
    return;
  }
  write(render_artifact(format, outcome.spec, *res.artifact, diagnostics));
  if (!res.pass)
    diagnostics.note(fmt::format("verdict: fail: over-provisioned, a cheaper deployment of {} saves {:.0f}% "
                                 "(check without --emit names it); the artifact was written",
                                 res.current_in.gpus.front().id, res.same_gpu_saving * 100.0));
}

} // namespace rightsize::cli
