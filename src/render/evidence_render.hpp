#pragma once
// How `recommend` states what its ranking rests on (issue 43; docs/cli.md "recommend",
// docs/output-schema.md "winner_measured"): the price margins the ranking charged, the candidate
// cheaper on its quoted price that they ranked lower, and the best candidate on a measured GPU with
// a well-quoted price, as the use case decided them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/context.hpp"
#include "app/recommend.hpp"

namespace rightsize::cli {

/// Why a price was charged a margin, in words: "it rests on one provider", "its newest quote is N
/// days old", both, or "it is undated" (`age_days` < 0).
std::string price_margin_reason(const ResolvedPrice& price, std::int64_t age_days);

/// The table's lines under the winner: "note: ranked with each price's uncertainty ..." when the
/// margins put a cheaper-quoted candidate below it, and "measured choice: ..." when the best measured
/// candidate is not the winner (or there is none); empty otherwise.
std::vector<std::string> evidence_lines(const app::SearchInputs& in, const app::RecommendResult& result);

/// JSON: `winner_measured` (the candidate with gpu, replicas and pct_more than the winner; null when
/// none) and `ranking_evidence` ({price_margins_applied, winner_price_margin, cheaper_on_quote}).
void add_evidence_json(nlohmann::json& doc, const app::SearchInputs& in, const app::RecommendResult& result);

} // namespace rightsize::cli
