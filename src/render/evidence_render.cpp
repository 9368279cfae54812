#include "render/evidence_render.hpp"

#include <fmt/format.h>

#include "render/image_render.hpp"
#include "render/recommend_render.hpp"
#include "render/render.hpp"

namespace rightsize::cli {
namespace {

// The cost a candidate ranks by, in the words of the winner line: per 1M output tokens, per 1,000
// images, per 1M input tokens (encoder), or per request.
std::string cost_text(const app::SearchInputs& in, const Candidate& c, RankBy rank_by) {
  const ModelSpec& m = in.models[c.precision_index].model;
  if (m.kind == ModelKind::vit)
    return fmt::format("{}/1M input tokens",
                       format_usd(usd_per_million_input_tokens_at_load(c, m), c.price_known));
  if (m.kind != ModelKind::decoder)
    return fmt::format("{}/1,000 images", format_usd(usd_per_1k_images_at_load(c), c.price_known));
  if (rank_by == RankBy::cost_per_request)
    return fmt::format("{} per request", format_usd(c.usd_per_request_at_load, c.price_known));
  return fmt::format("{}/1M output tokens",
                     format_usd(c.usd_per_million_output_tokens_at_load, c.price_known));
}

std::string sized(const app::SearchInputs& in, const Candidate& c) {
  return fmt::format("{} × {} ({} per replica, {} replica{})", c.total_gpus(), in.gpus[c.gpu_index].id,
                     layout_label(c.layout), c.replicas, c.replicas == 1 ? "" : "s");
}

double pct_more(const Candidate& c, const Candidate& than, RankBy rank_by) {
  const double base = rank_key(than, rank_by);
  return base > 0.0 ? (rank_key(c, rank_by) / base - 1.0) * 100.0 : 0.0;
}

// What pct_more compares, for rankings not by cost ("" for those, whose key is the cost shown).
const char* key_words(RankBy rank_by) {
  switch (rank_by) {
  case RankBy::latency: return " end-to-end latency at the served load";
  case RankBy::gpus: return " GPUs";
  case RankBy::energy: return " energy per output token";
  case RankBy::cost_per_token:
  case RankBy::cost_per_request:
  case RankBy::goodput: break;
  }
  return "";
}

} // namespace

// Why a price was charged a margin: one provider, an old newest quote, or both.
std::string price_margin_reason(const ResolvedPrice& price, std::int64_t age_days) {
  std::string why;
  if (price.providers < k_well_quoted_providers) why = "it rests on one provider";
  if (age_days < 0 || age_days > k_fresh_quote_days) {
    if (!why.empty()) why += " and ";
    why += age_days < 0 ? std::string("it is undated")
                        : fmt::format("its newest quote is {} days old", age_days);
  }
  return why;
}

std::vector<std::string> evidence_lines(const app::SearchInputs& in, const app::RecommendResult& result) {
  std::vector<std::string> out;
  if (!result.winner) return out;
  const app::WinnerFacts& facts = *result.winner;
  const std::vector<Candidate>& ranked = result.recommendation.candidates;
  const Candidate& w = ranked.front();
  if (facts.cheaper_on_quote) {
    const Candidate& c = ranked[*facts.cheaper_on_quote];
    const ResolvedPrice& price = in.prices[c.gpu_index];
    out.push_back(fmt::format(
        "note: ranked with each price's uncertainty at --confidence {} (docs/methodology.md §5.2): {} costs "
        "{}, {} less on its quoted price, but {}, so the ranking counts it +{:.0f}%",
        to_string(result.policy.confidence), sized(in, c), cost_text(in, c, result.rank_by),
        format_pct(pct_more(c, w, result.rank_by)),
        price_margin_reason(price, facts.cheaper_on_quote_age_days), facts.cheaper_on_quote_margin * 100.0));
  }
  if (is_item_model(in.models[w.precision_index]) || facts.measured == std::size_t{0}) return out;
  if (!facts.measured) {
    out.emplace_back("measured choice: none passes on a GPU with measured serving runs of this model and a "
                     "price from 2 or more providers quoted within 90 days");
    return out;
  }
  const Candidate& m = ranked[*facts.measured];
  const ResolvedPrice& price = in.prices[m.gpu_index];
  out.push_back(fmt::format("measured choice: {} at {}, {} more{} than the winner: serving runs of {} "
                            "measured on {}, its price from {} providers quoted within 90 days",
                            sized(in, m), cost_text(in, m, result.rank_by),
                            format_pct(pct_more(m, w, result.rank_by)), key_words(result.rank_by),
                            in.models[m.precision_index].model.name, in.gpus[m.gpu_index].id,
                            price.providers));
  return out;
}

void add_evidence_json(nlohmann::json& doc, const app::SearchInputs& in, const app::RecommendResult& result) {
  doc["winner_measured"] = nullptr;
  doc["ranking_evidence"] = nullptr;
  if (!result.winner) return;
  const app::WinnerFacts& facts = *result.winner;
  const std::vector<Candidate>& ranked = result.recommendation.candidates;
  if (facts.measured) {
    const Candidate& m = ranked[*facts.measured];
    nlohmann::json j = candidate_json(in, m);
    j["gpu"] = in.gpus[m.gpu_index].id;
    j["replicas"] = m.replicas;
    j["pct_more_than_winner"] = round_sig(pct_more(m, ranked.front(), result.rank_by), 4);
    doc["winner_measured"] = j;
  }
  nlohmann::json cheaper = nullptr;
  if (facts.cheaper_on_quote) {
    const Candidate& c = ranked[*facts.cheaper_on_quote];
    cheaper = candidate_json(in, c);
    cheaper["gpu"] = in.gpus[c.gpu_index].id;
    cheaper["price_rank_margin"] = round_sig(facts.cheaper_on_quote_margin, 4);
  }
  doc["ranking_evidence"] = {{"price_margins_applied", !result.policy.price_margins.empty()},
                             {"winner_price_margin", round_sig(facts.price_margin, 4)},
                             {"cheaper_on_quote", cheaper}};
}

} // namespace rightsize::cli
