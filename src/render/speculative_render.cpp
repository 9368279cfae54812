// Speculative decoding in estimate and recommend output (methodology §3.8).
#include "render/speculative_render.hpp"

#include <vector>

#include <fmt/format.h>

namespace rightsize::cli {

std::string speculative_line(const Speculative& sp) {
  if (sp.method == SpeculativeMethod::none) return "";
  std::string acceptance = fmt::format("acceptance {:.2f} per token", sp.acceptance_rate);
  if (!sp.acceptance_by_position.empty()) {
    std::vector<std::string> rates;
    for (const double a : sp.acceptance_by_position)
      rates.push_back(fmt::format("{:.2f}", a));
    acceptance = fmt::format("acceptance {} by position", fmt::join(rates, " / "));
  }
  return fmt::format("{} drafting, {} draft token{}, {}: {:.2f} tokens per verification step "
                     "(docs/methodology.md §3.8)",
                     to_string(sp.method), sp.draft_tokens, sp.draft_tokens == 1 ? "" : "s", acceptance,
                     sp.tokens_per_step());
}

// Speculative decoding "use": "auto" (methodology §3.8): what the winner kept and why, from the
// other variant's TPOT and served cost; "" when the spec did not leave it to the search.
std::string speculative_choice(const Candidate& w) {
  if (!w.speculative_auto) return "";
  const double other_ms = w.speculative_other_tpot_s * 1e3;
  const std::string other_cost = w.speculative_other_usd_per_million > 0.0
                                     ? fmt::format("${:.3f}/1M", w.speculative_other_usd_per_million)
                                     : std::string("missing the requirements");
  if (w.speculative_on)
    return fmt::format("; speculative decoding on (auto): without it TPOT {:.3g} ms and {}", other_ms,
                       other_cost);
  return fmt::format("; speculative decoding off (auto): with it TPOT {:.3g} ms and {} (verifying the drafts "
                     "costs more than it saves at this batch)",
                     other_ms, other_cost);
}

} // namespace rightsize::cli
