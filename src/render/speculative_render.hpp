#pragma once
// Speculative decoding in estimate and recommend output (methodology §3.8).
#include <string>

#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// "eagle3 drafting, 3 draft tokens, acceptance 0.70 per token: 2.53 tokens per verification step
/// (docs/methodology.md §3.8)"; "" without speculative decoding.
std::string speculative_line(const Speculative& speculative);

/// "; speculative decoding on (auto): TPOT ..., ... without it" for a winner whose layout chose
/// (workload.speculative.use "auto"); "" when the spec did not leave it to the search.
std::string speculative_choice(const Candidate& winner);

} // namespace rightsize::cli
