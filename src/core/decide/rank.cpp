// Ranking of the inference search's candidates (docs/methodology.md §Search): the figure each
// --rank-by orders by, and the order of passing candidates and of the closest misses.
#include <limits>

#include "rightsize/search.hpp"

namespace rightsize {
namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();

bool layout_before(const Candidate& a, const Candidate& b, std::span<const Gpu> gpus) {
  const std::string& ga = gpus[a.gpu_index].id;
  const std::string& gb = gpus[b.gpu_index].id;
  if (ga != gb) return ga < gb;
  if (a.layout.tp != b.layout.tp) return a.layout.tp < b.layout.tp;
  if (a.layout.pp != b.layout.pp) return a.layout.pp < b.layout.pp;
  if (a.layout.ep != b.layout.ep) return a.layout.ep < b.layout.ep;
  return a.precision_index < b.precision_index;
}

// TPOT and TTFT at the served load (LoadPoint), or at capacity where no load point was computed.
double served_tpot_s(const Candidate& c) {
  return c.at_load.tpot_s > 0.0 ? c.at_load.tpot_s : c.estimate.tpot_s;
}
double served_ttft_s(const Candidate& c) {
  return c.at_load.ttft_s > 0.0 ? c.at_load.ttft_s : c.estimate.ttft_s;
}

} // namespace

// NOLINTBEGIN(bugprone-narrowing-conversions): clang-tidy 14 calls `cond ? double : k_inf` narrowing
double rank_key(const Candidate& c, RankBy rank_by) {
  switch (rank_by) {
  case RankBy::cost_per_token:
    return c.price_known && c.usd_per_million_output_tokens_at_load > 0.0
               ? c.usd_per_million_output_tokens_at_load
               : k_inf;
  case RankBy::cost_per_request:
    return c.price_known && c.usd_per_request_at_load > 0.0 ? c.usd_per_request_at_load : k_inf;
  case RankBy::latency: return c.at_load.e2e_s > 0.0 ? c.at_load.e2e_s : c.estimate.e2e_s;
  case RankBy::gpus: return static_cast<double>(c.total_gpus());
  case RankBy::energy: return c.joules_per_output_token > 0.0 ? c.joules_per_output_token : k_inf;
  case RankBy::goodput: {
    // The cost of the requests that meet every latency target (methodology §6.1).
    const double cost = c.usd_per_million_output_tokens_at_load > 0.0
                            ? c.usd_per_million_output_tokens_at_load
                            : c.usd_per_request_at_load;
    return c.price_known && cost > 0.0 && c.slo_attainment > 0.0 ? cost / c.slo_attainment : k_inf;
  }
  }
  return k_inf;
}
// NOLINTEND(bugprone-narrowing-conversions)

const char* to_string(RankBy rank_by) {
  switch (rank_by) {
  case RankBy::cost_per_token: return "cost_per_token";
  case RankBy::cost_per_request: return "cost_per_request";
  case RankBy::latency: return "latency";
  case RankBy::gpus: return "gpus";
  case RankBy::energy: return "energy";
  case RankBy::goodput: return "goodput";
  }
  return "cost_per_token";
}

RankBy effective_rank_by(RankBy rank_by, ModelKind kind) {
  return kind != ModelKind::decoder && rank_by == RankBy::cost_per_token ? RankBy::cost_per_request : rank_by;
}

bool ranks_by_cost(RankBy rank_by) {
  return rank_by == RankBy::cost_per_token || rank_by == RankBy::cost_per_request ||
         rank_by == RankBy::goodput;
}

double ranked_key(const Candidate& c, RankBy rank_by, std::span<const double> price_margins) {
  const double key = rank_key(c, rank_by);
  if (!ranks_by_cost(rank_by) || c.gpu_index >= price_margins.size()) return key;
  return key * (1.0 + price_margins[c.gpu_index]);
}

bool ranks_before(const Candidate& a, const Candidate& b, RankBy rank_by, std::span<const Gpu> gpus,
                  std::span<const double> price_margins) {
  if (a.meets_sla != b.meets_sla) return a.meets_sla;
  if (!a.meets_sla) {
    // Rejections closer to passing sort first (closeness, judge.hpp).
    const int ra = closeness(a.rejection.term);
    const int rb = closeness(b.rejection.term);
    if (ra != rb) return ra < rb;
    const double ca = a.rejection.limit > 0.0 ? a.rejection.value / a.rejection.limit : 0.0;
    const double cb = b.rejection.limit > 0.0 ? b.rejection.value / b.rejection.limit : 0.0;
    if (ca != cb) return ca < cb;
  }
  const double ka = ranked_key(a, rank_by, price_margins);
  const double kb = ranked_key(b, rank_by, price_margins);
  if (ka != kb) return ka < kb;
  if (rank_by == RankBy::latency) {
    const double ca = rank_key(a, RankBy::cost_per_token);
    const double cb = rank_key(b, RankBy::cost_per_token);
    if (ca != cb) return ca < cb;
  }
  // At an equal key, fewer pipeline stages first: a stage boundary adds a hop and a bubble to every
  // token, and a split inside one node is TP's job (issue 43: TP1·PP2 won an 8B's tie).
  if (a.layout.pp != b.layout.pp) return a.layout.pp < b.layout.pp;
  // Then the faster at the served load, the figures the table shows: at full capacity each is sized
  // to the same TPOT target, so its TPOT there says little about what the buyer will see.
  const double ta = served_tpot_s(a), tb = served_tpot_s(b);
  if (ta != tb) return ta < tb;
  const double fa = served_ttft_s(a), fb = served_ttft_s(b);
  if (fa != fb) return fa < fb;
  if (a.total_gpus() != b.total_gpus()) return a.total_gpus() < b.total_gpus();
  return layout_before(a, b, gpus);
}

} // namespace rightsize
