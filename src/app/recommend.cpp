#include "app/recommend.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "app/parallel.hpp"
#include "app/search_limits.hpp"
#include "app/tier_bill.hpp"
#include "rightsize/error.hpp"

namespace rightsize::app {
namespace {

// The disaggregated search's misses every format shows (first_plausible).
constexpr std::size_t k_disagg_misses_shown = 3;

// A price a buyer can trust: quoted by k_well_quoted_providers or more, the newest quote at most
// k_fresh_quote_days old (issue 43 item 1: what `winner_measured` asks of a price).
bool well_quoted(const SearchInputs& in, std::size_t gpu_index, std::int64_t today_days) {
  const ResolvedPrice& price = in.prices[gpu_index];
  const std::int64_t age = price_age_days(price, today_days);
  return price.providers >= k_well_quoted_providers && age >= 0 && age <= k_fresh_quote_days;
}

// A rejection is a plausible miss when, had it passed, it could have won (issue 43 item 3): with a
// winner, and both prices known, it costs at most the winner's $/h. A miss costing more could not
// beat it, and its GPU count is often the search giving up (replicas added for a p99 that never
// holds). Without a winner every rejection is plausible. Training runs are not filtered (a run's
// cost is per run, and a miss is a deadline or memory one whatever it costs per hour).
double usd_per_hour_of(const Candidate& c) {
  return c.estimate.usd_per_hour;
}
double usd_per_hour_of(const DisaggCandidate& c) {
  return c.whole.usd_per_hour;
}
template <typename C> bool plausible_miss(const C& miss, const std::vector<C>& passing) {
  if constexpr (std::is_same_v<C, TrainingCandidate>) {
    return true;
  } else {
    if (passing.empty() || !miss.price_known || !passing.front().price_known) return true;
    return usd_per_hour_of(miss) <= usd_per_hour_of(passing.front());
  }
}

// The first `count` plausible rejections, in rejection order (the disaggregated search's misses).
template <typename C>
std::vector<C> first_plausible(const std::vector<C>& rejected, const std::vector<C>& passing,
                               std::size_t count) {
  std::vector<C> out;
  for (const auto& c : rejected) {
    if (out.size() == count) break;
    if (plausible_miss(c, passing)) out.push_back(c);
  }
  return out;
}

// The closest misses: the best-placed plausible rejection of each GPU, in rejection order, at most
// `count`.
template <typename C>
std::vector<C> closest_misses(const std::vector<C>& rejected, const std::vector<C>& passing,
                              std::size_t count) {
  std::vector<C> out;
  std::vector<std::size_t> seen;
  for (const auto& c : rejected) {
    if (!plausible_miss(c, passing)) continue;
    if (std::find(seen.begin(), seen.end(), c.gpu_index) != seen.end()) continue;
    seen.push_back(c.gpu_index);
    out.push_back(c);
    if (out.size() == count) break;
  }
  return out;
}

// The rows every format shows: the top `top` passing; the closest miss per GPU, or every rejection.
template <typename C>
void choose_rows(const std::vector<C>& passing, const std::vector<C>& rejected,
                 const RecommendSettings& request, std::vector<C>& shown, std::vector<C>& rejected_rows) {
  shown.assign(passing.begin(),
               passing.begin() + static_cast<std::ptrdiff_t>(std::min(request.top, passing.size())));
  rejected_rows = request.explain ? rejected : closest_misses(rejected, passing, 3);
}

double pct_more(double other, double winner) {
  return (other / winner - 1.0) * 100.0;
}

// What the ranking made of each price's quality and what was measured (issue 43; methodology §5.2):
// the winner's price margin, the candidate cheaper on its quoted price that the margins ranked
// below it, and the best candidate on a measured GPU with a well-quoted price.
void rank_on_evidence(const SearchInputs& in, const RecommendResult& result, const RecommendSettings& request,
                      WinnerFacts& facts) {
  const std::vector<Candidate>& ranked = result.recommendation.candidates;
  const std::vector<double>& margins = result.policy.price_margins;
  const Candidate& w = ranked.front();
  facts.price_margin = w.gpu_index < margins.size() ? margins[w.gpu_index] : 0.0;
  std::size_t cheapest = 0;
  for (std::size_t i = 1; i < ranked.size() && !margins.empty(); ++i)
    if (rank_key(ranked[i], result.rank_by) < rank_key(ranked[cheapest], result.rank_by)) cheapest = i;
  if (cheapest != 0) {
    facts.cheaper_on_quote = cheapest;
    facts.cheaper_on_quote_margin = margins[ranked[cheapest].gpu_index];
    facts.cheaper_on_quote_age_days =
        price_age_days(in.prices[ranked[cheapest].gpu_index], request.today_days);
  }
  if (is_item_model(in.models[w.precision_index])) return;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    const std::size_t g = ranked[i].gpu_index;
    // Measured: serving runs of this model on this GPU (core::serving_reach), not the GPU's alone.
    const ModelSpec& model = in.models[ranked[i].precision_index].model;
    if (serving_reach(result.policy.calibration, in.gpus[g], model) == Reach::measured &&
        ranked[i].price_known && well_quoted(in, g, request.today_days)) {
      facts.measured = i;
      return;
    }
  }
}

WinnerFacts winner_facts(const Spec& spec, const LoadedCatalog& catalog, const SearchInputs& in,
                         const RecommendResult& result, const RecommendSettings& request) {
  const std::vector<Candidate>& ranked = result.recommendation.candidates;
  const Candidate& w = ranked.front();
  const bool image = is_item_model(in.models[w.precision_index]);
  WinnerFacts facts;
  // How far ahead of the best alternative on another GPU type.
  for (std::size_t i = 1; i < ranked.size(); ++i) {
    const Candidate& n = ranked[i];
    if (n.gpu_index == w.gpu_index || !n.price_known || !w.price_known) continue;
    if (result.rank_by == RankBy::cost_per_token && w.usd_per_million_output_tokens_at_load > 0.0) {
      facts.other_gpu = Comparison{
          i, pct_more(n.usd_per_million_output_tokens_at_load, w.usd_per_million_output_tokens_at_load)};
    } else if (image && w.usd_per_request_at_load > 0.0 &&
               (result.rank_by == RankBy::cost_per_request || result.rank_by == RankBy::cost_per_token)) {
      facts.other_gpu = Comparison{i, pct_more(n.usd_per_request_at_load, w.usd_per_request_at_load)};
    }
    break;
  }
  // Attention DP against the other layout family on the winner's GPU (methodology §5.6).
  for (std::size_t i = 1; i < ranked.size(); ++i) {
    const Candidate& n = ranked[i];
    if (n.gpu_index != w.gpu_index || (n.layout.attention_dp > 1) == (w.layout.attention_dp > 1)) continue;
    if (result.rank_by == RankBy::cost_per_token && n.price_known && w.price_known &&
        w.usd_per_million_output_tokens_at_load > 0.0) {
      facts.other_attention_dp = Comparison{
          i, pct_more(n.usd_per_million_output_tokens_at_load, w.usd_per_million_output_tokens_at_load)};
    }
    break;
  }
  rank_on_evidence(in, result, request, facts);
  facts.price_age_days = price_age_days(in.prices[w.gpu_index], request.today_days);
  facts.price_note = facts.price_age_days > k_winner_price_note_days;
  facts.speed_extrapolated =
      efficiency_provenance(in.gpus[w.gpu_index], w.layout, in.models[w.precision_index].model)
          .find("extrapolated") != std::string::npos;
  // Energy of the winner (methodology §9): J per output token, and per 1M tokens the facility kWh
  // (× PUE), electricity $ and, when a grid intensity is given, CO2e.
  facts.energy_shown = result.policy.max_power_kw > 0.0 || result.policy.rank_by == RankBy::energy;
  if (facts.energy_shown && w.power_watts > 0.0) {
    const TcoParams& tco = catalog.tco;
    facts.energy = energy_cost(w.joules_per_output_token, tco.power_usage_effectiveness, tco.usd_per_kwh,
                               tco.grid_g_co2e_per_kwh);
  }
  facts.bands = candidate_bands(catalog, in, w, spec.sla, spec.inference, result.policy.engine);
  return facts;
}

DisaggComparison compare_disagg(const Recommendation& agg, const DisaggRecommendation& r) {
  DisaggComparison cmp;
  for (std::size_t i = 0; i < agg.candidates.size(); ++i) {
    const Candidate& c = agg.candidates[i];
    if (!cmp.aggregated ||
        (c.price_known && c.usd_per_million_output_tokens_at_load <
                              agg.candidates[*cmp.aggregated].usd_per_million_output_tokens_at_load))
      cmp.aggregated = i;
  }
  cmp.disaggregated = !r.candidates.empty();
  if (cmp.disaggregated && !cmp.aggregated) cmp.disaggregated_wins = true;
  if (cmp.disaggregated && cmp.aggregated) {
    const double ca = agg.candidates[*cmp.aggregated].usd_per_million_output_tokens_at_load;
    const double cd = r.candidates.front().usd_per_million_output_tokens_at_load;
    cmp.disaggregated_wins = cd < ca;
    cmp.pct_below = cmp.disaggregated_wins ? (1.0 - cd / ca) * 100.0 : (1.0 - ca / cd) * 100.0;
  }
  return cmp;
}

// The cost of confidence: the same candidate generation judged at the point estimate (p50), its
// winner beside the judged one. Skipped where it is not stated (a --disagg unit, an --emit artifact).
std::optional<CostOfConfidence> point_estimate_cost(const Spec& spec, const LoadedCatalog& catalog,
                                                    const SearchInputs& in, const RecommendResult& result,
                                                    const RecommendSettings& request) {
  if (!states_cost_of_confidence(result.policy.confidence, result.rank_by) || request.disagg ||
      request.artifact)
    return std::nullopt;
  SearchPolicy point_policy = result.policy;
  point_policy.confidence = Confidence::p50;
  // As --confidence p50 runs it: the point estimate, ranked on the quoted prices (the price-quality
  // margins of methodology §5.2 are p90's too), so the line names the winner that flag gives.
  point_policy.price_margins.clear();
  const Recommendation point =
      recommend(in.models, spec.inference, spec.sla, in.gpus, in.gpu_prices, point_policy);
  CostOfConfidence cost = cost_of_confidence(result.recommendation, point, result.policy.confidence);
  if (!cost.judged && !cost.point) return std::nullopt;
  if (result.policy.calibration != nullptr) {
    const ConfidenceSizing& banded = cost.judged ? *cost.judged : *cost.point;
    const std::string& gpu_id = in.gpus[banded.gpu_index].id;
    cost.user_band_runs = user_band_runs(*result.policy.calibration, gpu_id);
    if (const auto stack = catalog.overlay_stacks.find(gpu_id); stack != catalog.overlay_stacks.end())
      cost.overlay_runs = stack->second.runs;
  }
  return cost;
}

} // namespace

SearchPolicy recommend_policy(const Spec& spec, const LoadedCatalog& catalog,
                              const RecommendSettings& request) {
  SearchPolicy policy;
  policy.rank_by = request.rank_by;
  policy.engine = request.engine;
  policy.confidence = request.confidence;
  policy.calibration = band_calibration(catalog);
  policy.max_power_kw = spec.constraints.max_power_kw;
  policy.max_gpus_per_replica =
      request.max_gpus_per_replica > 0 ? request.max_gpus_per_replica : spec.constraints.max_gpus_per_replica;
  policy.max_nodes = request.max_nodes > 0 ? request.max_nodes : spec.constraints.max_nodes;
  policy.throughput_headroom = throughput_headroom(request.headroom);
  return policy;
}

RecommendResult run_recommend(const Spec& spec, const LoadedCatalog& catalog, const SearchInputs& in,
                              const RecommendSettings& request) {
  RecommendResult result;
  result.policy = recommend_policy(spec, catalog, request);
  result.policy.price_margins = price_margins(catalog, in.gpus, result.policy.confidence, request.today_days);
  result.rank_by = effective_rank_by(result.policy.rank_by, in.models.front().model.kind);
  // --disagg: only the units a format can show are kept, the top `top` passing and the plausible
  // misses first_plausible picks from (memory follows them, not the units searched); the units are
  // counted before any search runs.
  DisaggGrid disagg_grid;
  disagg_grid.keep_units = std::max<std::size_t>(request.top, k_disagg_misses_shown);
  if (request.disagg) {
    check_disagg_units(disagg_units_at_most(in.models, spec.inference, in.gpus, result.policy, disagg_grid),
                       k_max_disagg_units);
  }
  result.recommendation =
      recommend(in.models, spec.inference, spec.sla, in.gpus, in.gpu_prices, result.policy);
  const Recommendation& r = result.recommendation;
  choose_rows(r.candidates, r.rejected, request, result.shown, result.rejected_rows);
  for (const Candidate& c : result.shown)
    result.shown_bands.push_back(
        candidate_bands(catalog, in, c, spec.sla, spec.inference, result.policy.engine));
  if (!r.candidates.empty()) {
    const Candidate& w = r.candidates.front();
    result.winner = winner_facts(spec, catalog, in, result, request);
    result.capacity_plan = plan_capacity(w, spec.sla, capacity_policy_for(result.policy, catalog.pricing));
    // --pricing spot with latency targets: the plan keeps the average replicas on demand; what that
    // costs, and the candidate cheapest so (methodology §7 "The bill of the tier").
    result.cheapest_as_advised = bill_the_tier(spec, catalog, in, request.today_days, result);
  }
  result.cost_of_confidence = point_estimate_cost(spec, catalog, in, result, request);
  if (request.artifact) {
    result.artifact = plan_recommended_artifact(*request.artifact, spec, in, r, result.policy,
                                                catalog.pricing, catalog.engines);
  }
  // --disagg: separate prefill and decode pools too (methodology §3.6), ranked by the same cost.
  if (request.disagg) {
    // The GPU pairs on --threads threads: the same units, merged in order (the same output).
    const ParallelFor parallel = parallel_on(request.threads);
    result.disagg = recommend_disagg(in.models, spec.inference, spec.sla, in.gpus, in.gpu_prices,
                                     result.policy, disagg_grid, &parallel);
    result.disagg_comparison = compare_disagg(r, *result.disagg);
    const std::vector<DisaggCandidate>& units = result.disagg->candidates;
    const std::vector<DisaggCandidate>& misses = result.disagg->rejected;
    DisaggRows& rows = result.disagg_rows.emplace();
    rows.shown.assign(units.begin(),
                      units.begin() + static_cast<std::ptrdiff_t>(std::min(request.top, units.size())));
    rows.closest_misses = first_plausible(misses, units, k_disagg_misses_shown);
  }
  return result;
}

namespace {

// The judged winner beside the point estimate's from the same runs, re-judged at p50 with the same
// price margins (the line isolates what the speed band costs, as serving's cost of confidence).
std::optional<TrainingCostOfConfidence> training_cost_of_confidence(const Spec& spec, const SearchInputs& in,
                                                                    const TrainingRecommendation& judged,
                                                                    const SearchPolicy& policy) {
  if (policy.confidence == Confidence::p50 || policy.calibration == nullptr) return std::nullopt;
  SearchPolicy point_policy = policy;
  point_policy.confidence = Confidence::p50;
  const TrainingRecommendation point =
      rejudge_training(judged, in.models.front(), spec.sla, in.gpus, point_policy);
  TrainingCostOfConfidence cost;
  cost.confidence = policy.confidence;
  if (!judged.candidates.empty()) cost.judged = judged.candidates.front();
  if (!point.candidates.empty()) cost.point = point.candidates.front();
  if (!cost.judged && !cost.point) return std::nullopt;
  if (cost.judged && cost.point && cost.judged->price_known && cost.point->price_known &&
      cost.point->estimate.usd_total > 0.0) {
    cost.extra_usd_total = cost.judged->estimate.usd_total - cost.point->estimate.usd_total;
    cost.extra_fraction = *cost.extra_usd_total / cost.point->estimate.usd_total;
  }
  return cost;
}

// The winner's price margin and the passing run cheaper on its quoted cost that the margins ranked
// below it (rank_on_evidence's rule for training runs).
TrainingPriceEvidence training_price_evidence(const SearchInputs& in, const TrainingRecommendation& r,
                                              const std::vector<double>& margins, Confidence confidence,
                                              std::int64_t today_days) {
  TrainingPriceEvidence e;
  e.margins_applied = !margins.empty();
  e.confidence = confidence;
  for (std::size_t i = 0; i < r.candidates.size(); ++i) {
    const std::size_t g = r.candidates[i].gpu_index;
    if (in.gpus[g].training_reach == Reach::measured && r.candidates[i].price_known &&
        well_quoted(in, g, today_days)) {
      e.measured = i;
      break;
    }
  }
  if (r.candidates.empty() || margins.empty()) return e;
  const auto quoted = [](const TrainingCandidate& c) {
    return c.price_known ? c.estimate.usd_total : std::numeric_limits<double>::infinity();
  };
  e.winner_price_margin = margins[r.candidates.front().gpu_index];
  std::size_t cheapest = 0;
  for (std::size_t i = 1; i < r.candidates.size(); ++i)
    if (quoted(r.candidates[i]) < quoted(r.candidates[cheapest])) cheapest = i;
  if (cheapest == 0) return e;
  const std::size_t g = r.candidates[cheapest].gpu_index;
  e.cheaper_on_quote = cheapest;
  e.cheaper_on_quote_margin = margins[g];
  e.cheaper_on_quote_age_days = price_age_days(in.prices[g], today_days);
  return e;
}

} // namespace

TrainingRecommendResult run_training_recommend(const Spec& spec, const LoadedCatalog& catalog,
                                               const SearchInputs& in, const RecommendSettings& request) {
  TrainingRecommendResult result;
  SearchPolicy policy = recommend_policy(spec, catalog, request);
  policy.price_margins = price_margins(catalog, in.gpus, policy.confidence, request.today_days);
  result.recommendation = recommend_training(in.models.front(), spec.training, spec.sla, in.gpus,
                                             in.gpu_prices, policy, TrainingConfig{});
  result.evidence = training_price_evidence(in, result.recommendation, policy.price_margins,
                                            policy.confidence, request.today_days);
  result.cost_of_confidence = training_cost_of_confidence(spec, in, result.recommendation, policy);
  choose_rows(result.recommendation.candidates, result.recommendation.rejected, request, result.shown,
              result.rejected_rows);
  for (const TrainingCandidate& c : result.shown)
    result.shown_bands.push_back(candidate_bands(catalog, in, c));
  for (const TrainingCandidate& c : result.rejected_rows)
    result.rejected_bands.push_back(candidate_bands(catalog, in, c));
  if (request.artifact)
    result.launch = plan_training_launch(*request.artifact, spec, in, result.recommendation);
  return result;
}

namespace {

// --verbose: what the search considered per GPU, what passed and why the rest were pruned.
void trace_search(const SearchInputs& in, const Recommendation& r, const SearchPolicy& policy,
                  Diagnostics& diagnostics) {
  if (!diagnostics.tracing()) return;
  diagnostics.trace(fmt::format(
      "search: {} GPU types × {} precision(s), ranked by {} at --confidence {}; {} candidates, {} "
      "pass",
      in.gpus.size(), in.models.size(), to_string(policy.rank_by), to_string(policy.confidence),
      r.candidates.size() + r.rejected.size(), r.candidates.size()));
  for (std::size_t g = 0; g < in.gpus.size(); ++g) {
    std::size_t pass = 0;
    std::map<std::string, std::size_t> reasons;
    for (const Candidate& c : r.candidates)
      pass += c.gpu_index == g ? 1 : 0;
    for (const Candidate& c : r.rejected) {
      if (c.gpu_index == g) ++reasons[reason_code(c.rejection.term)];
    }
    std::string pruned;
    for (const auto& [reason, count] : reasons)
      pruned += fmt::format("{}{} {}", pruned.empty() ? "" : ", ", reason, count);
    diagnostics.trace(fmt::format("search: {}: {} pass{}{}", in.gpus[g].id, pass,
                                  pruned.empty() ? "" : "; pruned: ", pruned));
  }
}

// The settings of the search once the spec and catalog are loaded.
RecommendSettings recommend_settings(const RecommendRequest& request, const RecommendOutcome& out,
                                     const EngineSetup& engine, Diagnostics& diagnostics) {
  const Spec& spec = out.spec;
  RecommendSettings settings = request.settings;
  settings.engine = engine_config(engine, spec.engine, out.catalog.engines);
  const std::string engine_label = engine_name(engine, spec.engine);
  for (const auto& [gpu_id, stack] : out.catalog.overlay_stacks)
    warn_overlay_engine(out.catalog, gpu_id, engine_label, diagnostics);
  if (settings.disagg && (request.csv || spec.mode == WorkloadMode::training || settings.artifact)) {
    throw Error(ErrorKind::usage, "--disagg", "",
                "expected an inference spec with --format table, json or markdown and no --emit (a "
                "disaggregated unit has two pools per row)");
  }
  // Disaggregation splits a prompt's prefill from its decode; an image model or an encoder has no
  // decode (no output tokens), so the split has nothing to hand over.
  if (settings.disagg && spec.model.kind != ModelKind::decoder) {
    throw Error(ErrorKind::usage, "--disagg", "",
                fmt::format("expected a language model that generates tokens, and {} {}: it has no decode "
                            "phase to run apart from its prefill",
                            spec.model.name,
                            spec.model.kind == ModelKind::dit ? "generates images" : "encodes its inputs"));
  }
  settings.today_days = request.inputs.environment.today.get();
  if (settings.artifact) settings.artifact->engine = engine_label; // --emit k8s runs the engine assumed
  return settings;
}

} // namespace

RecommendOutcome run_recommend(const RecommendRequest& request, Diagnostics& diagnostics) {
  RecommendOutcome out;
  {
    const Stage stage(diagnostics, "load spec");
    out.spec = load_spec(request.inputs, diagnostics);
  }
  const Spec& spec = out.spec;
  warn_unused_headroom(request.settings.headroom, spec, diagnostics);
  warn_unused_engine_flags(request.inputs.engine, spec, diagnostics);
  check_artifact_mode(request.settings.artifact, spec);
  const std::optional<ArtifactRequest>& artifact = request.settings.artifact;
  const EngineSetup engine = emit_engine_setup(artifact ? artifact->kind : "", request.inputs.engine, spec);
  {
    const Stage stage(diagnostics, "load catalog");
    out.catalog = load_catalog(request.inputs, spec, diagnostics);
  }
  out.in = search_inputs(spec, out.catalog, request.gpus, request.precisions, request.include_consumer);
  const std::size_t gpu_types = out.in.gpus.size();
  // A serving search runs once per precision (--precisions); a training search takes the first.
  const std::size_t precisions = spec.mode == WorkloadMode::training ? 1 : out.in.models.size();
  if (request.settings.disagg)
    check_search_gpu_types(gpu_types, precisions, k_max_disagg_gpu_types, "--disagg", "recommend --disagg");
  if (request.settings.explain)
    check_search_gpu_types(gpu_types, precisions, k_max_explain_gpu_types, "--explain",
                           "recommend --explain");
  if (spec.mode == WorkloadMode::training)
    check_search_gpu_types(gpu_types, 1, k_max_training_gpu_types, "--gpu", "a training recommend");
  check_search_gpu_types(gpu_types, precisions, k_max_search_gpu_types, "--gpu", "recommend");
  if (spec.mode == WorkloadMode::inference && spec.inference.arrival == Arrival::poisson) {
    const bool vary = spec.inference.input_spread.varies() || spec.inference.output_spread.varies();
    check_search_gpu_types(gpu_types, precisions,
                           vary ? k_max_open_loop_spread_gpu_types : k_max_open_loop_gpu_types, "--gpu",
                           "an open-loop recommend");
  }
  const RecommendSettings settings = recommend_settings(request, out, engine, diagnostics);
  if (spec.mode == WorkloadMode::training) {
    out.none =
        out.result
            .emplace<TrainingRecommendResult>(run_training_recommend(spec, out.catalog, out.in, settings))
            .recommendation.candidates.empty();
    return out;
  }
  {
    const Stage stage(diagnostics, "search");
    out.result.emplace<RecommendResult>(run_recommend(spec, out.catalog, out.in, settings));
  }
  const RecommendResult& result = std::get<RecommendResult>(out.result);
  trace_search(out.in, result.recommendation, result.policy, diagnostics);
  out.none = result.none();
  return out;
}

} // namespace rightsize::app
