// The disaggregated search behind `recommend --disagg` (methodology §3.6, "Search"): xPyD grids per
// GPU type and for a few mixed pairs, each unit judged by core::judge and sized for the load like an
// aggregated replica. Pure.
#include "rightsize/disagg_search.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/decide/disagg_order.hpp"
#include "core/decide/sizing.hpp"
#include "rightsize/calibration.hpp"

namespace rightsize {
namespace {

constexpr int k_max_copies = 100000;
constexpr std::size_t k_reserve_candidates = 100000; // at most this many reserved up front

// The whole deployment: `copies` identical units (throughput scales, latency does not); the price is
// the whole deployment's instances (bill_disagg packs each pool's copies × workers together).
InferenceEstimate scaled(const InferenceEstimate& unit, const DisaggBill& bill, int copies) {
  InferenceEstimate e = unit;
  const double n = copies;
  e.usd_per_hour = bill.usd_per_hour;
  e.bill.gpus_used = bill.prefill.gpus_used + bill.decode.gpus_used;
  e.bill.gpus_billed = bill.prefill.gpus_billed + bill.decode.gpus_billed;
  e.bill.usd_per_hour = bill.usd_per_hour;
  e.requests_per_s *= n;
  e.output_tokens_per_s *= n;
  e.capacity_requests_per_s *= n;
  e.capacity_output_tokens_per_s *= n;
  e.in_flight *= n;
  return e;
}

// The layouts of one GPU a pool may use: the smallest `limit` replica layouts (TP, EP, attention DP,
// in replica_layouts order) whose weights and one sequence fit.
std::vector<Deployment> pool_layouts(const PreparedModel& model, const InferenceWorkload& workload,
                                     const Gpu& gpu, const SearchPolicy& policy, int limit) {
  std::vector<Deployment> out;
  InferenceWorkload one = workload;
  one.concurrency = 1;
  one.arrival = Arrival::closed_loop;
  one.request_rate_per_s = 0.0;
  for (Deployment layout : replica_layouts(model.model, gpu, policy)) {
    layout.gpus = layout.gpus_per_replica();
    const InferenceEstimate e = estimate_inference(model, one, gpu, layout, policy.engine, nullptr, 0.0);
    if (!e.memory.fits || !e.engine_runs || !e.precision_supported || !e.link_known) continue;
    out.push_back(layout);
    if (static_cast<int>(out.size()) >= limit) break;
  }
  return out;
}

// One xPyD unit's search inputs, as evaluate_disagg_candidate takes them.
struct UnitQuery {
  const PreparedModel& model;
  const InferenceWorkload& workload;
  const Sla& sla;
  const DisaggDeployment& unit;
  const SearchPolicy& policy;
  const BandFactors& bands;
  PoolTimeFactors slow_k;
  DecodeStepMemo* steps;
};

// Open-loop copies of a unit sized for the load (methodology §6): the fewest up to the limit whose
// latencies pass at each copy's share of the rate, as the aggregated search adds replicas
// (replicas_for_rate, detail::fewest_serving); the limit's verdict when none does.
void copies_for_rate(DisaggCandidate& c, const UnitQuery& q, const JudgeRules& rules) {
  const PreparedModel& model = q.model;
  const InferenceWorkload& workload = q.workload;
  const Sla& sla = q.sla;
  const DisaggDeployment& unit = q.unit;
  const SearchPolicy& policy = q.policy;
  DecodeStepMemo* steps = q.steps;
  // The unit's closed loop at the most clients its slots hold (capacity_inputs, no latency target
  // for open loops): the capacity every open-loop estimate of it carries, computed once.
  const DisaggEstimate closed_unit = c.estimate;
  struct AtCopies {
    DisaggEstimate estimate;
    DisaggBill bill;
    InferenceEstimate whole;
    Verdict verdict;
  };
  const auto at_copies = [&](int copies) {
    InferenceWorkload open = workload;
    // Each unit's share of the arrivals (the workload's rate, else the SLA's peak), as check judges.
    const double rate = workload.request_rate_per_s > 0.0 ? workload.request_rate_per_s : *sla.requests_per_s;
    open.request_rate_per_s = rate / copies;
    AtCopies at;
    at.estimate = estimate_disagg(model, open, unit, policy.engine, nullptr, -1.0, steps, &closed_unit);
    at.bill = bill_disagg(unit, copies);
    at.whole = scaled(at.estimate.combined, at.bill, copies);
    // Latencies at the band's slow end, each pool at its own k (methodology §3.5), as an aggregated
    // open loop's.
    const auto slow =
        disagg_slow_end(at.estimate, model, open, unit, policy.engine, q.slow_k, steps, &closed_unit);
    JudgeRules at_rate_rules = rules;
    at_rate_rules.slow_end = slow ? &*slow : nullptr;
    at.verdict = judge(at.whole, sla, at_rate_rules);
    return at;
  };
  std::map<int, AtCopies> judged; // each count estimated once
  const auto at = [&](int copies) -> AtCopies& {
    auto found = judged.find(copies);
    if (found == judged.end()) found = judged.emplace(copies, at_copies(copies)).first;
    return found->second;
  };
  const int first = c.copies;
  const int limit = detail::open_loop_copy_limit(first);
  int copies = first;
  if (!at(first).verdict.passes() && first < limit) {
    copies = detail::fewest_serving(first, limit,
                                    [&](int n) { return detail::fails_only_on_cost(at(n).verdict); });
    if (!at(copies).verdict.passes()) copies = limit;
  }
  AtCopies& chosen = at(copies);
  c.copies = copies;
  c.estimate = chosen.estimate;
  c.whole = chosen.whole;
  c.bill = chosen.bill;
  c.verdict = chosen.verdict;
}

} // namespace

DisaggCandidate evaluate_disagg_candidate(const PreparedModel& model, const InferenceWorkload& workload,
                                          const Sla& sla, const DisaggDeployment& unit,
                                          const SearchPolicy& policy, const BandFactors& bands,
                                          PoolTimeFactors slow_k, DecodeStepMemo* steps) {
  DisaggCandidate c;
  c.unit = unit;
  c.price_known = unit.prefill.price.usd_per_gpu_hour > 0.0 && unit.decode.price.usd_per_gpu_hour > 0.0;
  // As evaluate_candidate: capacity in closed loop at the largest client count meeting the latency
  // targets at the judged end of the band; open-loop latency judged at the rate once sized.
  const CapacityInputs cap = capacity_inputs(workload, sla, bands);
  const Sla& capacity_sla = cap.sla;
  c.estimate = estimate_disagg(model, cap.workload, unit, policy.engine, &cap.auto_sla, -1.0, steps);
  c.whole = c.estimate.combined;
  c.bill = c.estimate.bill;
  JudgeRules rules;
  rules.bands = bands;
  rules.price_known = c.price_known;
  rules.check_load = false;
  c.verdict = judge(c.whole, capacity_sla, rules);
  if (!c.verdict.passes()) return c;
  const double headroom = 1.0 + policy.throughput_headroom;
  const double rps = c.estimate.combined.requests_per_s * bands.throughput_low;
  const double tps = c.estimate.combined.output_tokens_per_s * bands.throughput_low;
  c.copies =
      static_cast<int>(std::min<double>(detail::copies_for_load(sla, rps, tps, headroom), k_max_copies));
  c.bill = bill_disagg(unit, c.copies);
  c.whole = scaled(c.estimate.combined, c.bill, c.copies);
  rules.check_load = true;
  rules.load_headroom = policy.throughput_headroom;
  c.verdict = judge(c.whole, capacity_sla, rules);
  if (workload.arrival == Arrival::poisson && sla.requests_per_s && c.verdict.passes())
    copies_for_rate(c, {model, workload, sla, unit, policy, bands, slow_k, steps}, rules);
  const CostAtLoad at_load = cost_at_load(c.whole, sla, workload);
  if (c.price_known) {
    c.usd_per_million_output_tokens_at_load = at_load.usd_per_million_output_tokens;
    c.usd_per_request_at_load = at_load.usd_per_request;
  }
  const double capacity_rps = c.whole.requests_per_s;
  c.prefill_utilization_at_load =
      c.estimate.prefill_utilization * (capacity_rps > 0.0 && at_load.served_requests_per_s > 0.0
                                            ? std::min(1.0, at_load.served_requests_per_s / capacity_rps)
                                            : 1.0);
  c.meets_sla = c.verdict.passes();
  return c;
}

namespace {

// What the mixed pairs are chosen by, per GPU index (run_mixed_pairs): the cheapest prompt of a
// unit prefilling on it (price · GPUs · idle prefill) and the cheapest cost per token of a passing
// unit decoding on it. Gathered from every unit as it arrives, before any is dropped.
struct RoleCosts {
  std::vector<double> prompt_usd;
  std::vector<double> token_usd;
};

// One model's disaggregated search: its inputs and the pool layouts each GPU type offers.
struct ModelSearch {
  const PreparedModel& model;
  std::size_t precision_index;
  const std::string& model_class;
  const InferenceWorkload& workload;
  const Sla& sla;
  std::span<const Gpu> gpus;
  std::span<const GpuPrice> prices;
  const SearchPolicy& policy;
  const DisaggGrid& grid;
  const std::vector<std::vector<Deployment>>& layouts; // by GPU index (pool_layouts)
  const ParallelFor* parallel;                         // runs the GPU pairs; null: in turn
  RoleCosts* role_costs;                               // gathered from the units as they arrive
};

// The xPyD worker counts each pair of pool layouts is evaluated at.
std::size_t worker_counts(const DisaggGrid& grid) {
  return static_cast<std::size_t>(std::max(0, grid.max_prefill_workers) *
                                  std::max(0, grid.max_decode_workers));
}

// The most units one model's search evaluates over these pool layouts (by GPU index): every
// same-type pair, then at most mixed_gpus² mixed pairs of the widest layouts; each pair of layouts
// at every worker count.
std::size_t units_at_most(const std::vector<std::vector<Deployment>>& layouts, const DisaggGrid& grid) {
  std::size_t most = 0, widest = 0;
  for (const std::vector<Deployment>& l : layouts) {
    most += l.size() * l.size();
    widest = std::max(widest, l.size());
  }
  if (grid.mixed_gpu_types && layouts.size() >= 2) {
    const auto n = std::min(static_cast<std::size_t>(std::max(0, grid.mixed_gpus)), layouts.size());
    most += n * n * widest * widest;
  }
  return most * worker_counts(grid);
}

// Room for every unit this model can add, reserved once: growing a vector of kilobyte candidates
// copies and faults in each larger buffer; capacity never written costs no memory. Capped (a huge
// catalog grows as before past the cap).
void reserve_units(const ModelSearch& m, DisaggRecommendation& out) {
  const std::size_t most = std::min<std::size_t>(units_at_most(m.layouts, m.grid), k_reserve_candidates);
  out.candidates.reserve(out.candidates.size() + most);
  out.rejected.reserve(out.rejected.size() + most);
}

// One GPU pair's units: those kept (DisaggGrid::keep_units), with the counts and role costs of all.
struct PairResult {
  DisaggRecommendation units;
  RoleCosts costs;
};

// The role costs of one unit into `costs` (RoleCosts).
void gather_costs(const ModelSearch& m, const DisaggCandidate& c, RoleCosts& costs) {
  const double rate = m.prices[c.prefill_gpu_index].usd_per_gpu_hour;
  double& prompt = costs.prompt_usd[c.prefill_gpu_index];
  prompt = std::min(prompt, c.unit.prefill.layout.gpus_per_replica() * rate * c.estimate.prefill_service_s);
  if (c.meets_sla) {
    double& token = costs.token_usd[c.decode_gpu_index];
    token = std::min(token, c.usd_per_million_output_tokens_at_load);
  }
}

RoleCosts no_costs(std::size_t gpus) {
  return {std::vector<double>(gpus, std::numeric_limits<double>::max()),
          std::vector<double>(gpus, std::numeric_limits<double>::max())};
}

// Every xPyD unit with its prefill pool on gpus[gp] and its decode pool on gpus[gd], judged; then
// what no caller can be shown is dropped (a unit dropped from one pair's units could not be shown
// from all of them either), once its role costs are gathered.
void run_pair(const ModelSearch& m, PairResult& result, std::size_t gp, std::size_t gd) {
  DisaggRecommendation& out = result.units;
  // Room for the pair's units: growing a vector of kilobyte candidates copies and faults in each
  // larger buffer; capacity never written costs no memory.
  const std::size_t units = std::min<std::size_t>(
      m.layouts[gp].size() * m.layouts[gd].size() * worker_counts(m.grid), k_reserve_candidates);
  out.candidates.reserve(units);
  out.rejected.reserve(units);
  const SearchPolicy& policy = m.policy;
  const BandFactors bp = band_factors(policy.calibration, policy.confidence, m.gpus[gp].id, m.model_class,
                                      serving_reach(policy.calibration, m.gpus[gp], m.model.model));
  const BandFactors bd = band_factors(policy.calibration, policy.confidence, m.gpus[gd].id, m.model_class,
                                      serving_reach(policy.calibration, m.gpus[gd], m.model.model));
  // TTFT is the prefill pool's, TPOT the decode pool's; throughput the slower end of either.
  BandFactors bands;
  bands.ttft_high = bp.ttft_high;
  bands.tpot_high = bd.tpot_high;
  bands.throughput_low = std::min(bp.throughput_low, bd.throughput_low);
  const PoolTimeFactors slow_k{bp.tpot_high, bd.tpot_high}; // each pool's step ratio (§3.5)
  // One memo of decode steps per decode layout: every unit on it shares them.
  std::vector<DecodeStepMemo> steps(m.layouts[gd].size());
  for (const Deployment& lp : m.layouts[gp]) {
    for (std::size_t li = 0; li < m.layouts[gd].size(); ++li) {
      const Deployment& ld = m.layouts[gd][li];
      for (int p = 1; p <= m.grid.max_prefill_workers; ++p) {
        for (int dw = 1; dw <= m.grid.max_decode_workers; ++dw) {
          DisaggDeployment unit;
          unit.prefill = PoolDeployment{&m.gpus[gp], lp, p, m.prices[gp]};
          unit.decode = PoolDeployment{&m.gpus[gd], ld, dw, m.prices[gd]};
          DisaggCandidate c =
              evaluate_disagg_candidate(m.model, m.workload, m.sla, unit, policy, bands, slow_k, &steps[li]);
          c.prefill_gpu_index = gp;
          c.decode_gpu_index = gd;
          c.precision_index = m.precision_index;
          ++out.evaluated;
          (c.meets_sla ? out.candidates : out.rejected).push_back(c);
        }
      }
    }
  }
  out.passing = static_cast<int>(out.candidates.size());
  result.costs = no_costs(m.gpus.size());
  for (const DisaggCandidate& c : out.candidates)
    gather_costs(m, c, result.costs);
  for (const DisaggCandidate& c : out.rejected)
    gather_costs(m, c, result.costs);
  detail::keep_shown_units(out, m.grid.keep_units);
  if (m.grid.keep_units > 0) { // the pair waits for its turn to be absorbed: hold only what is kept
    out.candidates.shrink_to_fit();
    out.rejected.shrink_to_fit();
  }
}

// One GPU pair's result into the search's: counted, its role costs merged, its units appended, then
// what no caller can be shown dropped (DisaggGrid::keep_units).
void absorb(const ModelSearch& m, DisaggRecommendation& out, PairResult& pair) {
  DisaggRecommendation& part = pair.units;
  out.evaluated += part.evaluated;
  out.passing += part.passing;
  RoleCosts& costs = *m.role_costs;
  for (std::size_t gi = 0; gi < costs.prompt_usd.size(); ++gi) {
    costs.prompt_usd[gi] = std::min(costs.prompt_usd[gi], pair.costs.prompt_usd[gi]);
    costs.token_usd[gi] = std::min(costs.token_usd[gi], pair.costs.token_usd[gi]);
  }
  const auto append = [](std::vector<DisaggCandidate>& to, std::vector<DisaggCandidate>& from) {
    if (to.empty() && to.capacity() < from.size()) {
      to = std::move(from); // no room reserved: take the buffer whole
    } else {
      std::move(from.begin(), from.end(), std::back_inserter(to));
    }
  };
  append(out.candidates, part.candidates);
  append(out.rejected, part.rejected);
  pair = PairResult{};
  detail::keep_shown_units(out, m.grid.keep_units);
}

// The units of several GPU pairs (prefill, decode index), appended to `out` pair by pair in order:
// run in turn, each absorbed as it ends, or all through `m.parallel` (the largest pairs first, so
// the threads end together) and absorbed in pair order: the same result on any thread count.
void run_pairs(const ModelSearch& m, DisaggRecommendation& out,
               const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  const bool parallel = m.parallel != nullptr && m.parallel->threads > 1 && pairs.size() > 1;
  if (!parallel) {
    for (const auto& [gp, gd] : pairs) {
      PairResult result;
      run_pair(m, result, gp, gd);
      absorb(m, out, result);
    }
    return;
  }
  const auto size = [&](std::size_t i) {
    return m.layouts[pairs[i].first].size() * m.layouts[pairs[i].second].size();
  };
  std::vector<std::size_t> order(pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return size(a) > size(b); });
  std::vector<PairResult> results(pairs.size());
  m.parallel->run(pairs.size(), [&](std::size_t k) {
    const std::size_t i = order[k];
    run_pair(m, results[i], pairs[i].first, pairs[i].second);
  });
  for (PairResult& result : results)
    absorb(m, out, result);
}

// Mixed pairs among the GPU types whose same-type units came cheapest for each pool's role:
// prefill by the cost of one prompt (price · GPUs · idle prefill), decode by the best passing
// same-type unit's cost per token (or its decode step when none passed).
void run_mixed_pairs(const ModelSearch& m, DisaggRecommendation& out) {
  const std::span<const Gpu> gpus = m.gpus;
  std::vector<std::pair<double, std::size_t>> by_prefill, by_decode;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    if (m.layouts[gi].empty() || m.prices[gi].usd_per_gpu_hour <= 0.0) continue;
    by_prefill.emplace_back(m.role_costs->prompt_usd[gi], gi);
    by_decode.emplace_back(m.role_costs->token_usd[gi], gi);
  }
  std::sort(by_prefill.begin(), by_prefill.end());
  std::sort(by_decode.begin(), by_decode.end());
  const auto take = static_cast<std::size_t>(std::max(0, m.grid.mixed_gpus));
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < std::min(take, by_prefill.size()); ++a) {
    for (std::size_t b = 0; b < std::min(take, by_decode.size()); ++b) {
      const std::size_t gp = by_prefill[a].second, gd = by_decode[b].second;
      // One vendor per unit: the pools hand the KV cache over through the engine's transfer
      // connector (NIXL, Mooncake), both ends one engine build; no engine documents a prefill
      // pool on one vendor's GPUs feeding a decode pool on another's (methodology §3.6).
      if (gp != gd && gpus[gp].vendor == gpus[gd].vendor) pairs.emplace_back(gp, gd);
    }
  }
  run_pairs(m, out, pairs);
}

// As recommend (search.cpp): ranked by cost, a unit needs a price; when no passing unit has one,
// none wins (each a no_price miss) rather than one picked by its tie-breaks.
// They meet every target, so they are the closest misses and come first.
void rank_units(DisaggRecommendation& out) {
  detail::sort_cheapest(out.candidates);
  detail::sort_cheapest(out.rejected);
  if (std::none_of(out.candidates.begin(), out.candidates.end(),
                   [](const DisaggCandidate& c) { return c.price_known; })) {
    for (DisaggCandidate& c : out.candidates) {
      c.meets_sla = false;
      c.verdict.first = failed_term(Term::price);
    }
    out.rejected.insert(out.rejected.begin(), std::make_move_iterator(out.candidates.begin()),
                        std::make_move_iterator(out.candidates.end()));
    out.candidates.clear();
    out.passing = 0;
  }
}

} // namespace

DisaggRecommendation recommend_disagg(std::span<const PreparedModel> models,
                                      const InferenceWorkload& workload, const Sla& sla,
                                      std::span<const Gpu> gpus, std::span<const GpuPrice> prices,
                                      const SearchPolicy& policy, const DisaggGrid& grid,
                                      const ParallelFor* parallel) {
  DisaggRecommendation out;
  for (std::size_t pi = 0; pi < models.size(); ++pi) {
    const PreparedModel& model = models[pi];
    const std::string cls = model_class_of(model.model);
    std::vector<std::vector<Deployment>> layouts(gpus.size());
    for (std::size_t gi = 0; gi < gpus.size(); ++gi)
      layouts[gi] = pool_layouts(model, workload, gpus[gi], policy, grid.layouts_per_pool);
    RoleCosts costs = no_costs(gpus.size());
    const ModelSearch m{model, pi, cls, workload, sla, gpus, prices, policy, grid, layouts, parallel, &costs};
    if (grid.keep_units == 0) reserve_units(m, out);
    std::vector<std::pair<std::size_t, std::size_t>> same_type;
    for (std::size_t gi = 0; gi < gpus.size(); ++gi)
      same_type.emplace_back(gi, gi);
    run_pairs(m, out, same_type);
    if (grid.mixed_gpu_types && gpus.size() >= 2) run_mixed_pairs(m, out);
  }
  rank_units(out);
  return out;
}

std::size_t disagg_units_at_most(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                                 std::span<const Gpu> gpus, const SearchPolicy& policy,
                                 const DisaggGrid& grid) {
  std::size_t units = 0;
  for (const PreparedModel& model : models) {
    std::vector<std::vector<Deployment>> layouts(gpus.size());
    for (std::size_t gi = 0; gi < gpus.size(); ++gi)
      layouts[gi] = pool_layouts(model, workload, gpus[gi], policy, grid.layouts_per_pool);
    units += units_at_most(layouts, grid);
  }
  return units;
}

} // namespace rightsize
