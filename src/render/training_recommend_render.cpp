// Rendering of training `recommend` results: ranked table, winner, closest misses; JSON and
// markdown (docs/output-schema.md "training"). Split from recommend_render.cpp (inference).
#include <cmath>

#include <fmt/format.h>

#include "io/json/json_text.hpp"
#include "render/evidence_render.hpp"
#include "render/instances_render.hpp"
#include "render/recommend_render.hpp"
#include "render/render.hpp"
#include "render/table.hpp"
#include "render/terminal.hpp"
#include "render/training_render.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {

namespace {

Table training_table(const SearchInputs& in, const std::vector<TrainingCandidate>& rows, std::size_t limit,
                     bool with_reason) {
  std::vector<Column> columns = {{"rank", Align::right}, {"gpu", Align::left}, {"gpus", Align::right}};
  // "billed" appears when a shown job pays for idle GPUs of its instances (as the aggregated table).
  bool billed_column = false;
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i)
    billed_column = billed_column || rows[i].estimate.bill.gpus_billed != rows[i].estimate.gpus;
  if (billed_column) columns.push_back({"billed", Align::right});
  columns.push_back({"layout", Align::left, true});
  for (const char* h : {"MFU", "tok/s", "time", "$/h", "$/run", "mem/GPU"})
    columns.push_back({h, Align::right});
  if (with_reason) columns.push_back({"reason", Align::left, true});
  Table t(std::move(columns));
  for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
    const TrainingCandidate& c = rows[i];
    const TrainingEstimate& e = c.estimate;
    const double hours = e.time_to_train_planning_s / k_seconds_per_hour; // as judged and billed
    std::vector<std::string> cells = {c.rank > 0 ? std::to_string(c.rank) : "-", in.gpus[c.gpu_index].id,
                                      std::to_string(e.gpus)};
    if (billed_column) cells.push_back(billed_cell(e.bill));
    for (const std::string& cell :
         {training_layout_label(e.layout), fmt::format("{:.1f}%", e.mfu * 100.0),
          format_count(e.tokens_per_s),
          hours >= 48.0 ? fmt::format("{:.1f} d", hours / 24.0) : fmt::format("{:.1f} h", hours),
          format_usd(e.usd_per_hour, c.price_known), c.price_known ? format_usd_total(e.usd_total) : "n/a",
          format_gb(e.memory.per_gpu_bytes)})
      cells.push_back(cell);
    if (with_reason) cells.push_back(describe_training_rejection(c));
    t.add_row(std::move(cells));
  }
  return t;
}

// CSV: one row per training candidate (passing, then rejected), plain numbers in the units their
// names say (docs/output-schema.md "recommend --format csv, training"); empty = unknown.
Table training_csv(const SearchInputs& in, const std::vector<TrainingCandidate>& rows) {
  Table t = csv_columns({"rank",
                         "gpu",
                         "gpus",
                         "gpus_billed",
                         "tp",
                         "pp",
                         "dp",
                         "ep",
                         "cp",
                         "vp",
                         "zero_stage",
                         "micro_batch",
                         "mfu",
                         "tokens_per_s",
                         "time_to_train_s",
                         "time_to_train_planning_s",
                         "usd_per_hour",
                         "usd_total",
                         "per_gpu_bytes",
                         "meets_sla",
                         "reject_reason",
                         "reason"});
  for (const TrainingCandidate& c : rows) {
    const TrainingEstimate& e = c.estimate;
    const TrainingLayout& l = e.layout;
    t.add_row({c.rank > 0 ? std::to_string(c.rank) : "",
               in.gpus[c.gpu_index].id,
               std::to_string(e.gpus),
               std::to_string(e.bill.gpus_billed),
               std::to_string(l.tp),
               std::to_string(l.pp),
               std::to_string(l.dp),
               std::to_string(l.ep),
               std::to_string(l.cp),
               std::to_string(l.vp),
               std::to_string(l.zero_stage),
               std::to_string(l.micro_batch),
               csv_number(e.mfu),
               csv_number(e.tokens_per_s),
               csv_number(e.time_to_train_s),
               csv_number(e.time_to_train_planning_s),
               csv_usd(e.usd_per_hour, c.price_known),
               csv_usd(e.usd_total, c.price_known),
               fmt::format("{:.0f}", e.memory.per_gpu_bytes),
               c.meets ? "true" : "false",
               reason_code(c.rejection.term),
               c.meets ? "" : describe_training_rejection(c)});
  }
  return t;
}

// "note: ranked with each price's uncertainty ..." when the margins put a run cheaper on its quoted
// cost below the winner (methodology §5.2); empty otherwise.
std::string training_evidence_line(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  const app::TrainingPriceEvidence& e = result.evidence;
  if (!e.cheaper_on_quote) return "";
  const TrainingCandidate& w = result.recommendation.candidates.front();
  const TrainingCandidate& c = result.recommendation.candidates[*e.cheaper_on_quote];
  std::string line =
      fmt::format("note: ranked with each price's uncertainty at --confidence {} (docs/methodology.md §5.2): "
                  "{} × {} ({}) costs {}, {} less on its quoted price, but {}, so the ranking counts "
                  "it +{:.0f}%",
                  to_string(e.confidence), c.estimate.gpus, in.gpus[c.gpu_index].id,
                  training_layout_label(c.estimate.layout), format_usd_total(c.estimate.usd_total),
                  format_pct((1.0 - c.estimate.usd_total / w.estimate.usd_total) * 100.0),
                  price_margin_reason(in.prices[c.gpu_index], e.cheaper_on_quote_age_days),
                  e.cheaper_on_quote_margin * 100.0);
  // The ranking divides each cost by its throughput band's p10 too (core::recommend_training).
  if (c.throughput_low != w.throughput_low)
    line += fmt::format(", and at its throughput band's p10 (×{:.2f} against the winner's ×{:.2f})",
                        c.throughput_low, w.throughput_low);
  return line;
}

// "judged at ...": the winner's time and cost at the end of its throughput band the deadline, budget
// and ranking used (--confidence p90), with how far its training figures reach.
std::string training_judged_line(const SearchInputs& in, const TrainingCandidate& c) {
  const Gpu& gpu = in.gpus[c.gpu_index];
  std::string reach;
  switch (gpu.training_reach) {
  case Reach::measured:
  case Reach::model_unmeasured: // a serving reach only (serving_reach): training reach is by GPU
    reach = fmt::format("training cases measured on {}", gpu.id);
    break;
  case Reach::gpu_sibling:
    reach = fmt::format("no training case of its own, its {} siblings'", gpu_family(gpu));
    break;
  case Reach::extrapolated:
    reach = fmt::format("extrapolated: no training case on a {} GPU", gpu_family(gpu));
    break;
  }
  const JudgedRun judged = judged_run(c.estimate, c.throughput_low);
  return fmt::format("judged at its throughput band's p10 (×{:.2f}; {}): {} in {:.1f} h planned",
                     c.throughput_low, reach,
                     c.price_known ? format_usd_total(judged.usd_total) : "price unknown",
                     judged.time_to_train_planning_s / k_seconds_per_hour);
}

// "cost of confidence: ..." (issue 43 item 2): what the run the point estimate picks would cost
// against the judged winner; empty without one.
std::string training_confidence_line(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  if (!result.cost_of_confidence) return "";
  const app::TrainingCostOfConfidence& c = *result.cost_of_confidence;
  const char* level = to_string(c.confidence);
  if (c.same_run())
    return fmt::format(
        "cost of confidence: none here, the point estimate (--confidence p50) picks the same {} × {}",
        c.point->estimate.gpus, in.gpus[c.point->gpu_index].id);
  if (!c.point) return "";
  const TrainingCandidate& p = *c.point;
  std::string line = fmt::format(
      "cost of confidence: at the point estimate (--confidence p50) {} × {} ({}) would meet the goals, {} in "
      "{:.1f} h planned",
      p.estimate.gpus, in.gpus[p.gpu_index].id, training_layout_label(p.estimate.layout),
      p.price_known ? format_usd_total(p.estimate.usd_total) : "price unknown",
      p.estimate.time_to_train_planning_s / k_seconds_per_hour);
  if (!c.judged) return line + fmt::format("; at {} no run does", level);
  if (c.extra_usd_total)
    line += fmt::format("; the {} winner costs {}{} per run ({:+.1f} %)", level,
                        *c.extra_usd_total < 0.0 ? "-" : "+", format_usd_total(std::abs(*c.extra_usd_total)),
                        *c.extra_fraction * 100.0);
  return line + "; calibrating on your own runs narrows the band";
}

nlohmann::json training_confidence_json(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  if (!result.cost_of_confidence) return nullptr;
  const app::TrainingCostOfConfidence& c = *result.cost_of_confidence;
  const auto run = [&](const std::optional<TrainingCandidate>& r) -> nlohmann::json {
    if (!r) return nullptr;
    return {
        {"gpu", in.gpus[r->gpu_index].id},
        {"gpus", r->estimate.gpus},
        {"layout", training_layout_label(r->estimate.layout)},
        {"time_to_train_planning_s", round_sig(r->estimate.time_to_train_planning_s)},
        {"usd_total", r->price_known ? nlohmann::json(round_sig(r->estimate.usd_total)) : nlohmann::json()}};
  };
  return {{"confidence", to_string(c.confidence)},
          {"judged", run(c.judged)},
          {"point", run(c.point)},
          {"same_run", c.same_run()},
          {"extra_usd_total",
           c.extra_usd_total ? nlohmann::json(round_sig(*c.extra_usd_total)) : nlohmann::json()},
          {"extra_fraction",
           c.extra_fraction ? nlohmann::json(round_sig(*c.extra_fraction, 4)) : nlohmann::json()}};
}

// "measured choice: ..." (issue 43 item 1): the best run on a GPU measured for training with a well
// quoted price, when it is not the winner; none when nothing passes.
std::string training_measured_line(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  const app::TrainingPriceEvidence& e = result.evidence;
  const std::vector<TrainingCandidate>& ranked = result.recommendation.candidates;
  if (ranked.empty() || e.measured == std::size_t{0}) return "";
  if (!e.measured)
    return "measured choice: none passes on a GPU with measured training cases and a price from 2 or more "
           "providers quoted within 90 days";
  const TrainingCandidate& m = ranked[*e.measured];
  const TrainingCandidate& w = ranked.front();
  return fmt::format("measured choice: {} × {} ({}) at {}, {} more than the winner: training cases "
                     "measured on {}, its price from {} providers quoted within 90 days",
                     m.estimate.gpus, in.gpus[m.gpu_index].id, training_layout_label(m.estimate.layout),
                     format_usd_total(m.estimate.usd_total),
                     format_pct((m.estimate.usd_total / w.estimate.usd_total - 1.0) * 100.0),
                     in.gpus[m.gpu_index].id, in.prices[m.gpu_index].providers);
}

nlohmann::json training_measured_json(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  const app::TrainingPriceEvidence& e = result.evidence;
  if (!e.measured) return nullptr;
  const TrainingCandidate& m = result.recommendation.candidates[*e.measured];
  const TrainingCandidate& w = result.recommendation.candidates.front();
  return {
      {"gpu", in.gpus[m.gpu_index].id},
      {"gpus", m.estimate.gpus},
      {"layout", training_layout_label(m.estimate.layout)},
      {"usd_total", round_sig(m.estimate.usd_total, 6)},
      {"pct_more_than_winner", round_sig((m.estimate.usd_total / w.estimate.usd_total - 1.0) * 100.0, 4)}};
}

nlohmann::json training_evidence_json(const SearchInputs& in, const app::TrainingRecommendResult& result) {
  const app::TrainingPriceEvidence& e = result.evidence;
  nlohmann::json cheaper = nullptr;
  if (e.cheaper_on_quote) {
    const TrainingCandidate& c = result.recommendation.candidates[*e.cheaper_on_quote];
    cheaper = {{"gpu", in.gpus[c.gpu_index].id},
               {"gpus", c.estimate.gpus},
               {"usd_total", round_sig(c.estimate.usd_total, 6)},
               {"price_rank_margin", round_sig(e.cheaper_on_quote_margin, 4)}};
  }
  return {{"price_margins_applied", e.margins_applied},
          {"winner_price_margin", round_sig(e.winner_price_margin, 4)},
          {"cheaper_on_quote", cheaper}};
}

// Text: the ranked table, the winner line, its instances and the ranking's price note.
void print_training_winner(const SearchInputs& in, const app::TrainingRecommendResult& result,
                           const std::string& goal_text, int width) {
  const TrainingRecommendation& r = result.recommendation;
  if (!r.candidates.empty()) {
    fmt::print("{}",
               training_table(in, result.shown, result.shown.size(), false).render_text(width, use_color()));
    const TrainingCandidate& win = r.candidates.front();
    fmt::print("\nwinner: {} × {} ({}) — the cheapest run that {}: {} in {:.1f} h at {:.0f}% MFU\n",
               win.estimate.gpus, in.gpus[win.gpu_index].id, training_layout_label(win.estimate.layout),
               goal_text.empty() ? "fits" : "meets " + goal_text,
               win.price_known ? format_usd_total(win.estimate.usd_total) : "price unknown",
               win.estimate.time_to_train_planning_s / k_seconds_per_hour, win.estimate.mfu * 100.0);
    fmt::print("instances: {}\n", instances_text(win.estimate.bill, in.gpu_prices[win.gpu_index]));
    if (win.throughput_low < 1.0) fmt::print("{}\n", training_judged_line(in, win));
    if (const std::string note = training_evidence_line(in, result); !note.empty()) fmt::print("{}\n", note);
    if (const std::string line = training_measured_line(in, result); !line.empty()) fmt::print("{}\n", line);
  } else {
    fmt::print("no configuration meets the requirements\n");
  }
  if (const std::string line = training_confidence_line(in, result); !line.empty()) fmt::print("{}\n", line);
}

} // namespace

nlohmann::json training_candidate_json(const SearchInputs& in, const TrainingCandidate& c,
                                       const app::TrainingBands& bands) {
  nlohmann::json j = training_json(in.models.front(), in.gpus[c.gpu_index].id, in.gpu_prices[c.gpu_index],
                                   c.estimate, c.price_known);
  add_training_bands(j, bands);
  const JudgedRun judged = judged_run(c.estimate, c.throughput_low);
  // The end of the band the deadline and budget were judged, and the run ranked, at (core::judge).
  j["judged"] = {
      {"throughput_low_ratio", round_sig(c.throughput_low, 4)},
      {"time_to_train_planning_s", round_sig(judged.time_to_train_planning_s)},
      {"usd_total", c.price_known ? nlohmann::json(round_sig(judged.usd_total)) : nlohmann::json()}};
  j["rank"] = c.rank;
  j["meets_sla"] = c.meets;
  j["reasons"] = c.meets ? nlohmann::json::array() : nlohmann::json::array({describe_training_rejection(c)});
  j["reject_reason"] = reason_code(c.rejection.term);
  return j;
}

void render_training_recommendation(const Spec& spec, const SearchInputs& in,
                                    const app::TrainingRecommendResult& result, const LoadedCatalog& catalog,
                                    const RenderOptions& o) {
  const TrainingRecommendation& r = result.recommendation;
  const PreparedModel& pm = in.models.front();
  const TrainingWorkload& w = spec.training;
  if (o.format == Format::json) {
    nlohmann::json doc;
    doc["schema_version"] = k_output_schema_version;
    doc["spec"] = spec.name;
    doc["model"] = pm.model.name;
    doc["mode"] = "training";
    doc["rank_by"] = "cost_per_run";
    doc["pricing"] = to_string(catalog.pricing);
    if (!catalog.calibration_overlay.empty()) doc["calibration"] = catalog.calibration_label;
    doc["candidates_evaluated"] = r.candidates.size() + r.rejected.size();
    doc["candidates_passing"] = r.candidates.size();
    doc["candidates"] = nlohmann::json::array();
    for (std::size_t i = 0; i < result.shown.size(); ++i)
      doc["candidates"].push_back(training_candidate_json(in, result.shown[i], result.shown_bands[i]));
    doc["rejected"] = nlohmann::json::array();
    for (std::size_t i = 0; i < result.rejected_rows.size(); ++i)
      doc["rejected"].push_back(
          training_candidate_json(in, result.rejected_rows[i], result.rejected_bands[i]));
    doc["winner"] = r.candidates.empty() ? nlohmann::json()
                                         : nlohmann::json{{"gpu", in.gpus[r.candidates.front().gpu_index].id},
                                                          {"gpus", r.candidates.front().estimate.gpus}};
    doc["winner_measured"] = training_measured_json(in, result);
    doc["cost_of_confidence"] = training_confidence_json(in, result);
    doc["ranking_evidence"] = training_evidence_json(in, result);
    doc["assumptions"] = assumptions_json(spec.assumptions);
    fmt::print("{}\n", io::json_text(doc));
    return;
  }
  if (o.format == Format::csv || o.format == Format::markdown) {
    if (o.format == Format::csv) {
      std::vector<TrainingCandidate> all = result.shown;
      all.insert(all.end(), result.rejected_rows.begin(), result.rejected_rows.end());
      fmt::print("{}", training_csv(in, all).render_csv());
      return;
    }
    fmt::print("{}", training_table(in, result.shown, result.shown.size(), false).render_markdown());
    if (!result.rejected_rows.empty()) {
      fmt::print(
          "\n**{}**\n\n{}", o.explain ? "Rejected" : "Closest misses",
          training_table(in, result.rejected_rows, result.rejected_rows.size(), true).render_markdown());
    }
    return;
  }
  const std::string goal_text = training_goals_text(spec.sla);
  fmt::print("{}: {} {} training ({} params), {:g} tokens at sequence {}, global batch {}\n",
             spec.name.empty() ? "spec" : spec.name, pm.model.name, to_string(w.method),
             format_params(static_cast<double>(pm.params.total)), w.tokens, w.seq_len, w.global_batch);
  fmt::print("goals: {}; prices: {} (as of {}); time and cost per run include a planning overhead factor\n\n",
             goal_text.empty() ? "none (cheapest run)" : goal_text, to_string(catalog.pricing),
             catalog.catalog.prices_as_of);
  if (!catalog.calibration_overlay.empty()) fmt::print("{}\n\n", calibration_table_line(catalog));
  const int width = terminal_width();
  print_training_winner(in, result, goal_text, width);
  if (!result.rejected_rows.empty() && !o.explain) {
    fmt::print("\nclosest misses:\n");
    for (const auto& c : result.rejected_rows) {
      fmt::print("  {} × {}: {}\n", c.estimate.gpus, in.gpus[c.gpu_index].id, describe_training_rejection(c));
    }
  }
  if (o.explain && !r.rejected.empty()) {
    fmt::print("\nrejected ({}):\n{}", r.rejected.size(),
               training_table(in, result.rejected_rows, result.rejected_rows.size(), true)
                   .render_text(std::max(width, 160)));
  }
  fmt::print("\n{} configurations evaluated, {} meet the requirements\n",
             r.candidates.size() + r.rejected.size(), r.candidates.size());
}

} // namespace rightsize::cli
