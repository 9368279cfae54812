// `recommend`'s text and Markdown writers (render/recommend_text.hpp): the ranked table, the winner
// and what stands behind it, the closest misses. They format the use case's result; they decide
// nothing.
#include "render/recommend_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "render/cost_of_confidence_render.hpp"
#include "render/evidence_render.hpp"
#include "render/image_render.hpp"
#include "render/instances_render.hpp"
#include "render/lora_render.hpp"
#include "render/prefix_cache_render.hpp"
#include "render/render.hpp"
#include "render/speculative_render.hpp"
#include "render/table.hpp"
#include "render/terminal.hpp"
#include "rightsize/energy.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

std::string gpus_label(const Candidate& c) {
  return fmt::format("{}×{}", c.layout.gpus_per_replica(), c.replicas);
}

Table candidate_table(const SearchInputs& in, const std::vector<Candidate>& rows, std::size_t limit,
                      bool show_precision, bool with_reason, const Sla& sla, RankBy rank_by) {
  const bool energy_column = rank_by == RankBy::energy;
  const bool latency_column = rank_by == RankBy::latency;
  const bool request_column = rank_by == RankBy::cost_per_request;
  std::vector<Column> columns = {
      {"rank", Align::right}, {"gpu", Align::left}, {"gpus×rep", Align::right}, {"layout", Align::left}};
  // Whole instances (docs/methodology.md "Whole instances"): a "billed" column only when a row pays for idle
  // GPUs.
  bool billed_column = false;
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    billed_column = billed_column || rows[i].estimate.bill.gpus_billed != rows[i].estimate.bill.gpus_used;
  if (billed_column) columns.insert(columns.begin() + 3, {"billed", Align::right});
  if (show_precision) columns.push_back({"precision", Align::left});
  // The latency columns show the statistic the SLA judges (TTFT p99 when the SLA names ttft_p99_ms).
  const std::string ttft_head = std::string("TTFT") + stat_suffix(sla.ttft_stat);
  const std::string tpot_head = std::string("TPOT") + stat_suffix(sla.tpot_stat);
  // One load point per row (methodology §6 "Latency at the served load"): conc, TTFT, TPOT, served
  // tok/s and $/1M served at the load each replica serves; what the deployment could carry in its own
  // column.
  for (const char* h : {"conc", ttft_head.c_str(), tpot_head.c_str(), "served tok/s", "cap tok/s", "mem free",
                        "$/h", "$/1M served"})
    columns.push_back({h, Align::right});
  // The figure ranked by when it is not $/1M served: the cost per request at the served load under
  // --rank-by cost_per_request, GPU joules per output token at load under --rank-by energy
  // (methodology §9), the end-to-end latency at the served load under --rank-by latency.
  if (request_column) columns.push_back({"$/req served", Align::right});
  if (energy_column) columns.push_back({"J/tok", Align::right});
  if (latency_column) columns.push_back({"E2E @load", Align::right});
  columns.push_back({"bound", Align::left, true});
  if (with_reason) columns.push_back({"reason", Align::left, true});
  Table t(std::move(columns));
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const Candidate& c = rows[i];
    const InferenceEstimate& e = c.estimate;
    std::vector<std::string> cells = {c.rank > 0 ? std::to_string(c.rank) : "-", in.gpus[c.gpu_index].id,
                                      gpus_label(c), layout_label(c.layout)};
    if (billed_column) cells.insert(cells.begin() + 3, billed_cell(e.bill));
    if (show_precision) cells.push_back(precision_name(in, in.precisions[c.precision_index]));
    cells.push_back(std::to_string(c.at_load.concurrency));
    cells.push_back(format_wait(e, c.at_load.ttft_judged_s));
    cells.push_back(format_ms(c.at_load.tpot_judged_s));
    // A rejected row serves no load: its served figures are undefined, not zero.
    const bool serves = c.served_output_tokens_per_s > 0.0;
    cells.push_back(serves ? format_count(c.served_output_tokens_per_s) : std::string("-"));
    cells.push_back(format_count(e.capacity_output_tokens_per_s));
    cells.push_back(fmt::format("{:.1f} GB", e.memory.headroom_bytes() / k_bytes_per_gb));
    cells.push_back(format_usd(e.usd_per_hour, c.price_known));
    cells.push_back(serves ? format_usd(c.usd_per_million_output_tokens_at_load, c.price_known)
                           : std::string("-"));
    if (request_column)
      cells.push_back(serves ? format_usd(c.usd_per_request_at_load, c.price_known) : std::string("-"));
    if (energy_column) {
      cells.push_back(serves && c.joules_per_output_token > 0.0
                          ? fmt::format("{:.3f}", c.joules_per_output_token)
                          : std::string("-"));
    }
    if (latency_column)
      cells.push_back(serves && !e.overloaded && c.at_load.e2e_s > 0.0 ? format_ms(c.at_load.e2e_s)
                                                                       : std::string("-"));
    cells.push_back(to_string(e.bound));
    if (with_reason) cells.push_back(describe_rejection(c));
    t.add_row(std::move(cells));
  }
  return t;
}

// --pricing spot with latency targets (methodology §7 "The bill of the tier"): what following the
// tier's advice costs, the average replicas on demand, beside the all-spot $/h the table ranks by.
void print_tier_bill(const TierBill& bill, const Candidate& w, const std::string& gpu_id) {
  if (!bill.known) {
    const bool on_demand_missing = bill.on_demand_replicas > 0 && bill.on_demand_usd_per_gpu_hour <= 0.0;
    fmt::print("bill as advised: unknown (no {} price for {}); the table ranks every replica at spot\n",
               on_demand_missing ? "on-demand" : "spot", gpu_id);
    return;
  }
  const std::string spot = bill.spot_replicas == 0 ? "none on spot"
                                                   : fmt::format("{} on spot at {}/GPU-h", bill.spot_replicas,
                                                                 format_usd(bill.spot_usd_per_gpu_hour));
  const double ranked = w.estimate.usd_per_hour;
  // A --price override of the spot rate may sit above the on-demand quotes.
  const double change = ranked > 0.0 ? (bill.usd_per_hour / ranked - 1.0) * 100.0 : 0.0;
  const std::string more = !(ranked > 0.0) ? "against"
                           : change >= 0.0 ? fmt::format("{:.0f} % more than", change)
                                           : fmt::format("{:.0f} % less than", -change);
  // Every replica on demand is what --pricing on_demand ranks by; a split has no flag of its own.
  const std::string rank_hint = bill.spot_replicas == 0 ? "; --pricing on_demand ranks by that" : "";
  fmt::print(
      "bill as advised: {}/h, {} replica{} on demand at {}/GPU-h and {}: {} the table's {}/h, every replica "
      "at spot{}\n",
      format_usd(bill.usd_per_hour), bill.on_demand_replicas, bill.on_demand_replicas == 1 ? "" : "s",
      format_usd(bill.on_demand_usd_per_gpu_hour), spot, more, format_usd(ranked), rank_hint);
}

// Energy of the winner (methodology §9): board power at peak load, J per output token, and per
// 1M tokens the facility kWh (× PUE), electricity $ and, when a grid intensity is given, CO2e.
void print_energy_line(const Candidate& w, const app::WinnerFacts& facts, const TcoParams& tco) {
  if (!facts.energy) {
    fmt::print("energy: TDP unknown for the winner; no power estimate\n");
    return;
  }
  const EnergyCost& cost = *facts.energy;
  std::string carbon;
  if (tco.grid_g_co2e_per_kwh > 0.0)
    carbon =
        fmt::format(", {:.0f} g CO2e at {:g} g/kWh", cost.g_co2e_per_million_tokens, tco.grid_g_co2e_per_kwh);
  fmt::print("energy: {:.2f} kW of GPU power at peak load, {:.3g} J per output token; per 1M output tokens "
             "{:.3g} kWh (PUE {:g}), ${:.3f} of electricity at ${:g}/kWh{}\n",
             w.power_watts / 1e3, w.joules_per_output_token, cost.kwh_per_million_tokens,
             tco.power_usage_effectiveness, cost.usd_per_million_tokens, tco.usd_per_kwh, carbon);
}

// The cost of confidence under the winner (or under "no configuration ..."), after `lead`.
void print_confidence_line(const SearchInputs& in, const app::RecommendResult& result, const char* lead) {
  if (!result.cost_of_confidence) return;
  const std::string line = cost_of_confidence_line(in, *result.cost_of_confidence);
  if (!line.empty()) fmt::print("{}{}\n", lead, line);
}

// The rows of one recommendation as tables and rejection reasons, in its model's vocabulary
// (tokens, or images and items).
struct RowTables {
  const Spec& spec;
  const SearchInputs& in;
  const app::RecommendResult& result;

  [[nodiscard]] bool image() const { return is_item_model(in.models.front()); }
  [[nodiscard]] Table table(const std::vector<Candidate>& rows, bool with_reason) const {
    const bool show_precision = in.precisions.size() > 1;
    return image()
               ? image_candidate_table(in, rows, rows.size(), show_precision, with_reason, spec.sla.e2e_stat)
               : candidate_table(in, rows, rows.size(), show_precision, with_reason, spec.sla,
                                 result.rank_by);
  }
  [[nodiscard]] std::string reason(const Candidate& c) const {
    return describe_rejection(c, image() ? vocabulary_of(in.models.front().model.kind) : Vocabulary{});
  }
};

// The spec, its workload and SLA, the calibration and what the table's columns mean.
void print_text_header(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                       const LoadedCatalog& catalog) {
  const SearchPolicy& policy = result.policy;
  const PreparedModel& first = in.models.front();
  const bool image = is_item_model(first);
  const auto& w = spec.inference;
  const std::string work = image ? image_workload_line(first.model)
                                 : fmt::format("{} in / {} out tokens", w.input_tokens, w.output_tokens);
  fmt::print("{}: {} ({} params, {}), {}\n", spec.name.empty() ? "spec" : spec.name, first.model.name,
             format_params(static_cast<double>(first.params.total)),
             precision_name(in, in.precisions.front()), work);
  if (const std::string sp = speculative_line(w.speculative); !sp.empty()) fmt::print("decoding: {}\n", sp);
  if (const std::string lora = lora_source(w.lora); !lora.empty()) fmt::print("lora: {}\n", lora);
  if (const std::string pc = prefix_cache_source(w); !pc.empty()) // methodology §3.9
    fmt::print("prefix cache: {}{}\n", pc,
               w.kv_offload.tier == OffloadTier::none
                   ? ""
                   : fmt::format("; {} offload tier", to_string(w.kv_offload.tier)));
  fmt::print("SLA: {} at --confidence {}; prices: {} (catalog as of {})\n",
             image ? describe_image_sla(spec.sla, first.model.kind, policy.throughput_headroom)
                   : describe_sla(spec.sla, policy.throughput_headroom),
             to_string(policy.confidence),
             std::string(to_string(catalog.pricing)) +
                 (catalog.provider.empty() ? "" : ", provider " + catalog.provider),
             catalog.catalog.prices_as_of);
  if (!catalog.calibration_overlay.empty()) fmt::print("{}\n", calibration_table_line(catalog));
  if (image && first.model.kind == ModelKind::vit) {
    fmt::print(
        "at the served load (the SLA's, at most capacity): batch (in flight per replica), s/item, served "
        "items/s and $/1M input tok = $/h ÷ (3,600 s/h × served items/s × input tokens per item) × 1e6; "
        "JSON also gives the cost at full capacity\n\n");
  } else if (image) {
    fmt::print(
        "at the served load (the SLA's, at most capacity): batch (in flight per replica), s/image, served "
        "img/s and $/1k images = $/h ÷ (3,600 s/h × served images/s) × 1,000; JSON also gives the cost at "
        "full capacity\n\n");
  } else {
    fmt::print(
        "at the served load (the SLA's, at most capacity): conc (in flight per replica), TTFT, TPOT, "
        "served tok/s and $/1M served = $/h ÷ served output tok/s\ncap tok/s: what the deployment serves "
        "at full capacity (its sized concurrency); JSON and CSV also give the cost at it\n\n");
  }
}

// Under the winner's line: its instances, cautions, notes, capacity plan, tier and energy.
void print_winner_notes(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                        const LoadedCatalog& catalog) {
  const Recommendation& r = result.recommendation;
  const SearchPolicy& policy = result.policy;
  const std::optional<CapacityPlan>& plan = result.capacity_plan;
  const Candidate& winner = r.candidates.front();
  fmt::print("instances: {}\n", instances_text(winner.estimate.bill, in.gpu_prices[winner.gpu_index]));
  if (policy.confidence == Confidence::p50) {
    for (const auto& note : optimistic_only(result.winner->bands)) {
      fmt::print("caution: meets the SLA only at the optimistic end of its error band: {}\n", note);
    }
  }
  const app::WinnerFacts& facts = *result.winner;
  if (const std::string unseen = unseen_class_note(facts.bands); !unseen.empty())
    fmt::print("note: {}\n", unseen);
  if (const std::string reach =
          reach_note(facts.bands, in.gpus[winner.gpu_index].id, in.models[winner.precision_index].model.name);
      !reach.empty())
    fmt::print("note: {}\n", reach);
  for (const std::string& line : evidence_lines(in, result))
    fmt::print("{}\n", line);
  if (facts.speed_extrapolated) {
    fmt::print("note: the winner's speed rests on factors extrapolated from other GPUs ({})\n",
               efficiency_provenance(in.gpus[winner.gpu_index], winner.layout,
                                     in.models[winner.precision_index].model));
  }
  if (facts.price_note) {
    const ResolvedPrice& wp = in.prices[winner.gpu_index];
    fmt::print(
        "note: the winner's price ({}/GPU-h, {}) is dated {}, {} days old; check it with --price {}=USD\n",
        format_usd(wp.usd_per_hour), wp.basis, wp.date, facts.price_age_days, in.gpus[winner.gpu_index].id);
  }
  if (plan && spec.sla.requests_per_s) {
    fmt::print(
        "capacity: {} replica{} at peak, {} at average; autoscale {}–{} on {} above {:.0f} per replica "
        "(cap {}); cold start ≈{:.0f} s; scale to zero: {}\n",
        plan->replicas_peak, plan->replicas_peak == 1 ? "" : "s", plan->replicas_average, plan->min_replicas,
        plan->max_replicas, plan->scaling_signal, plan->in_flight_target_per_replica,
        plan->in_flight_cap_per_replica, plan->cold_start_s, plan->scale_to_zero ? "yes" : "no");
  }
  if (plan) fmt::print("tier: {} ({})\n", plan->tier, plan->why);
  if (plan && plan->tier_bill) print_tier_bill(*plan->tier_bill, winner, in.gpus[winner.gpu_index].id);
  if (const auto& advised = result.cheapest_as_advised) {
    const Candidate& c = r.candidates[advised->index];
    fmt::print(
        "cheapest as advised: {} × {} ({} per replica, {} replica{}) at {}/h so billed, ranked {:.0f} % "
        "below the winner so billed ({}/h) for the load served, each price's uncertainty counted\n",
        c.total_gpus(), in.gpus[c.gpu_index].id, layout_label(c.layout), c.replicas,
        c.replicas == 1 ? "" : "s", format_usd(advised->bill.usd_per_hour), advised->pct_less_than_winner(),
        format_usd(plan->tier_bill->usd_per_hour));
  }
  if (facts.energy_shown) print_energy_line(winner, facts, catalog.tco);
}

// After the table: the closest misses (or every rejection with --explain), precision quality and
// what was searched.
void print_text_tail(const RowTables& rows, const RenderOptions& o, int width) {
  const SearchInputs& in = rows.in;
  const app::RecommendResult& result = rows.result;
  const Recommendation& r = result.recommendation;
  if (!result.rejected_rows.empty() && !o.explain) {
    fmt::print("\nclosest misses:\n");
    for (const auto& c : result.rejected_rows) {
      fmt::print("  {} {} {}: {}\n", c.total_gpus(), in.gpus[c.gpu_index].id, layout_label(c.layout),
                 rows.reason(c));
    }
  }
  if (o.explain && !r.rejected.empty()) {
    fmt::print("\nrejected ({}):\n", r.rejected.size());
    fmt::print("{}", rows.table(result.rejected_rows, true).render_text(std::max(width, 160)));
  }
  if (o.searched_precisions) {
    fmt::print("\nprecision quality:\n");
    for (const auto& p : in.precisions)
      fmt::print("  {}: {}\n", precision_name(in, p), format_info(p.weights).quality_note);
  }
  fmt::print("\n{} candidates evaluated, {} meet the requirements{}\n",
             r.candidates.size() + r.rejected.size(), r.candidates.size(),
             o.explain ? "" : "; --explain lists every rejection");
  if (!in.excluded_consumer.empty()) {
    fmt::print("not searched: {} (consumer parts, whose driver licence excludes data-centre use; "
               "--include-consumer or --gpu searches them)\n",
               fmt::join(in.excluded_consumer, ", "));
  }
}

} // namespace

std::string winner_line(const SearchInputs& in, const app::RecommendResult& result, const Spec& spec) {
  const std::vector<Candidate>& ranked = result.recommendation.candidates;
  const Candidate& w = ranked.front();
  const app::WinnerFacts& facts = *result.winner;
  const RankBy rank_by = result.rank_by;
  const Gpu& gpu = in.gpus[w.gpu_index];
  const bool image = is_item_model(in.models[w.precision_index]);
  std::string why;
  if (image) {
    why = image_winner_reason(w, rank_by, in.models[w.precision_index].model);
  } else {
    switch (rank_by) {
    case RankBy::cost_per_token:
      why = fmt::format("the lowest cost per 1M output tokens at the served load ({})",
                        format_usd(w.usd_per_million_output_tokens_at_load, w.price_known));
      break;
    case RankBy::cost_per_request:
      why = fmt::format("the lowest cost per request at the served load ({})",
                        format_usd(w.usd_per_request_at_load, w.price_known));
      break;
    case RankBy::latency:
      why = fmt::format("the lowest end-to-end latency at the served load ({} at concurrency {} per replica)",
                        format_ms(w.at_load.e2e_s), w.at_load.concurrency);
      break;
    case RankBy::gpus: why = fmt::format("the fewest GPUs ({})", w.total_gpus()); break;
    case RankBy::energy:
      why = fmt::format("the least GPU energy per output token ({:.3g} J)", w.joules_per_output_token);
      break;
    case RankBy::goodput:
      why = fmt::format("the lowest cost per 1M output tokens within every latency target ({} ÷ {:.1f} % of "
                        "requests within them, methodology §6.1)",
                        format_usd(w.usd_per_million_output_tokens_at_load, w.price_known),
                        100.0 * w.slo_attainment);
      break;
    }
  }
  const double headroom = result.policy.throughput_headroom;
  const std::string sla_text =
      image ? describe_image_sla(spec.sla, spec.model.kind, headroom) : describe_sla(spec.sla, headroom);
  std::string line =
      fmt::format("winner: {} × {} ({} per replica, {} replica{}) — {} that meets {}", w.total_gpus(), gpu.id,
                  layout_label(w.layout), w.replicas, w.replicas == 1 ? "" : "s", why,
                  sla_text == "none" ? "the memory requirement" : sla_text);
  if (facts.other_gpu && facts.other_gpu->pct_more >= 0.0) {
    line += fmt::format("; the best {} option costs {} more",
                        in.gpus[ranked[facts.other_gpu->index].gpu_index].id,
                        format_pct(facts.other_gpu->pct_more));
  } else if (facts.other_gpu) {
    // Ranked below on its price's uncertainty (methodology §5.2; the note under the winner says why).
    line += fmt::format("; the best {} option costs {} less on its quoted price, ranked below on that "
                        "price's uncertainty",
                        in.gpus[ranked[facts.other_gpu->index].gpu_index].id,
                        format_pct(facts.other_gpu->pct_more));
  }
  if (facts.other_attention_dp) {
    const Candidate& n = ranked[facts.other_attention_dp->index];
    line += fmt::format("; the best {} layout {} attention DP ({}) costs {} more{}", gpu.id,
                        w.layout.attention_dp > 1 ? "without" : "with", layout_label(n.layout),
                        format_pct(facts.other_attention_dp->pct_more),
                        w.layout.attention_dp > 1 ? " (each attention rank holds only its own sequences' KV)"
                                                  : "");
  }
  return line + speculative_choice(w);
}

void render_recommendation_markdown(const Spec& spec, const SearchInputs& in,
                                    const app::RecommendResult& result, const RenderOptions& o) {
  const RowTables rows{spec, in, result};
  const Recommendation& r = result.recommendation;
  const SearchPolicy& policy = result.policy;
  const PreparedModel& first = in.models.front();
  const bool image = rows.image();
  const Table t = rows.table(result.shown, false);
  fmt::print("### rightsize: {} ({})\n\nSLA: {}\n\n{}",
             markdown_text(spec.name.empty() ? first.model.name : spec.name), markdown_text(first.model.name),
             image ? describe_image_sla(spec.sla, first.model.kind, policy.throughput_headroom)
                   : describe_sla(spec.sla, policy.throughput_headroom),
             t.render_markdown());
  if (!r.candidates.empty())
    fmt::print("\n**{}**\n", winner_line(in, result, spec));
  else
    fmt::print("\n**No configuration meets the requirements.**\n");
  print_confidence_line(in, result, "\n");
  for (const std::string& line : evidence_lines(in, result))
    fmt::print("\n{}\n", markdown_text(line));
  // The rejected rows of JSON and CSV: the closest miss per GPU, or every rejection with --explain.
  if (!result.rejected_rows.empty()) {
    fmt::print("\n**{}**\n\n{}", o.explain ? "Rejected" : "Closest misses",
               rows.table(result.rejected_rows, true).render_markdown());
  }
}

void render_recommendation_text(const Spec& spec, const SearchInputs& in, const app::RecommendResult& result,
                                const LoadedCatalog& catalog, const RenderOptions& o) {
  const RowTables rows{spec, in, result};
  const int width = terminal_width();
  print_text_header(spec, in, result, catalog);
  if (!result.recommendation.candidates.empty()) {
    fmt::print("{}", rows.table(result.shown, false).render_text(width));
    fmt::print("\n{}\n", winner_line(in, result, spec));
    print_confidence_line(in, result, "");
    print_winner_notes(spec, in, result, catalog);
  } else {
    fmt::print("no configuration meets the requirements\n");
    print_confidence_line(in, result, "");
  }
  print_text_tail(rows, o, width);
}

} // namespace rightsize::cli
