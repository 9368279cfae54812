// The disaggregated search behind `recommend --disagg` (methodology §3.6, "Search"): xPyD grids per
// GPU type and for a few mixed pairs, each unit judged by core::judge and sized for the load like an
// aggregated replica. Pure.
#include "rightsize/disagg_search.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

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

// Costs within the same 0.1 % bucket tie (xPyD copies of one unit differ only by rounding).
long long cost_bucket(const DisaggCandidate& c) {
  const double usd =
      c.price_known ? c.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  return usd < std::numeric_limits<double>::max() && usd > 0.0 ? std::llround(std::log(usd) * 1000.0)
                                                               : std::numeric_limits<long long>::max();
}

bool cheaper(const DisaggCandidate& a, const DisaggCandidate& b, long long bucket_a, long long bucket_b) {
  if (a.meets_sla != b.meets_sla) return a.meets_sla;
  if (!a.meets_sla) {
    // Rejections closer to passing sort first, as in every search (closeness, judge.hpp).
    if (closeness(a.verdict.first.term) != closeness(b.verdict.first.term))
      return closeness(a.verdict.first.term) < closeness(b.verdict.first.term);
    const double ca = a.verdict.first.limit > 0.0 ? a.verdict.first.value / a.verdict.first.limit : 0.0;
    const double cb = b.verdict.first.limit > 0.0 ? b.verdict.first.value / b.verdict.first.limit : 0.0;
    if (ca != cb) return ca < cb;
  }
  const double ka =
      a.price_known ? a.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  const double kb =
      b.price_known ? b.usd_per_million_output_tokens_at_load : std::numeric_limits<double>::max();
  // Costs within the same bucket tie: then the fewer GPUs win. Buckets keep the order a strict weak
  // ordering.
  if (bucket_a != bucket_b) return bucket_a < bucket_b;
  if (a.total_gpus() != b.total_gpus()) return a.total_gpus() < b.total_gpus();
  if (ka != kb) return ka < kb;
  if (a.whole.tpot_s != b.whole.tpot_s) return a.whole.tpot_s < b.whole.tpot_s;
  if (a.whole.ttft_s != b.whole.ttft_s) return a.whole.ttft_s < b.whole.ttft_s;
  if (a.unit.prefill.gpu->id != b.unit.prefill.gpu->id)
    return a.unit.prefill.gpu->id < b.unit.prefill.gpu->id;
  if (a.unit.decode.gpu->id != b.unit.decode.gpu->id) return a.unit.decode.gpu->id < b.unit.decode.gpu->id;
  const auto key = [](const DisaggCandidate& c) {
    return std::tuple(c.unit.prefill.workers, c.unit.prefill.layout.tp, c.unit.prefill.layout.pp,
                      c.unit.prefill.layout.ep, c.unit.decode.workers, c.unit.decode.layout.tp,
                      c.unit.decode.layout.pp, c.unit.decode.layout.ep, c.precision_index);
  };
  return key(a) < key(b);
}

// Sorts cheapest first through a permutation: a candidate is kilobytes, so std::sort moving them
// cost more than the search's arithmetic at tens of thousands of units. The same comparisons on the
// same sequence give the same order; the permutation is then applied in place (one move each).
void sort_cheapest(std::vector<DisaggCandidate>& v) {
  std::vector<long long> buckets(v.size());
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    buckets[i] = cost_bucket(v[i]);
    order[i] = i;
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return cheaper(v[a], v[b], buckets[a], buckets[b]); });
  // Position i takes v[order[i]]: follow each cycle once.
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (order[i] == i) continue;
    DisaggCandidate held = std::move(v[i]);
    std::size_t at = i;
    while (order[at] != i) {
      const std::size_t from = order[at];
      v[at] = std::move(v[from]);
      order[at] = at;
      at = from;
    }
    v[at] = std::move(held);
    order[at] = at;
  }
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
};

// The xPyD worker counts each pair of pool layouts is evaluated at.
std::size_t worker_counts(const DisaggGrid& grid) {
  return static_cast<std::size_t>(std::max(0, grid.max_prefill_workers) *
                                  std::max(0, grid.max_decode_workers));
}

// Room for every unit this model can add (same-type pairs, then at most mixed_gpus² mixed
// ones), reserved once: growing a vector of kilobyte candidates copies and faults in each
// larger buffer; capacity never written costs no memory. Capped (a huge catalog grows as
// before past the cap).
void reserve_units(const ModelSearch& m, DisaggRecommendation& out) {
  const DisaggGrid& grid = m.grid;
  std::size_t most = 0, widest = 0;
  for (const std::vector<Deployment>& l : m.layouts) {
    most += l.size() * l.size();
    widest = std::max(widest, l.size());
  }
  if (grid.mixed_gpu_types) {
    const auto n = static_cast<std::size_t>(std::max(0, grid.mixed_gpus));
    most += n * n * widest * widest;
  }
  most = std::min<std::size_t>(most * worker_counts(grid), k_reserve_candidates);
  out.candidates.reserve(out.candidates.size() + most);
  out.rejected.reserve(out.rejected.size() + most);
}

// Every xPyD unit with its prefill pool on gpus[gp] and its decode pool on gpus[gd].
void run_pair(const ModelSearch& m, DisaggRecommendation& out, std::size_t gp, std::size_t gd) {
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
}

// The units of several GPU pairs (prefill, decode index), appended to `out` pair by pair in order:
// run in turn, or through `m.parallel` in rounds of its thread count, each pair into its own result
// and the round merged in order (the same candidates; memory of one round's pairs more).
void run_pairs(const ModelSearch& m, DisaggRecommendation& out,
               const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  const auto width = m.parallel != nullptr ? static_cast<std::size_t>(std::max(1, m.parallel->threads)) : 1;
  if (width == 1 || pairs.size() < 2) {
    for (const auto& [gp, gd] : pairs)
      run_pair(m, out, gp, gd);
    return;
  }
  std::vector<DisaggRecommendation> parts(width);
  for (std::size_t begin = 0; begin < pairs.size(); begin += width) {
    const std::size_t count = std::min(width, pairs.size() - begin);
    m.parallel->run(count, [&](std::size_t i) {
      const auto [gp, gd] = pairs[begin + i];
      // Room for the pair's units (as reserve_units): growing a vector of kilobyte candidates
      // copies and faults in each larger buffer.
      const std::size_t units = std::min<std::size_t>(
          m.layouts[gp].size() * m.layouts[gd].size() * worker_counts(m.grid), k_reserve_candidates);
      parts[i].candidates.reserve(units);
      parts[i].rejected.reserve(units);
      run_pair(m, parts[i], gp, gd);
    });
    for (std::size_t i = 0; i < count; ++i) {
      DisaggRecommendation& part = parts[i];
      out.evaluated += part.evaluated;
      std::move(part.candidates.begin(), part.candidates.end(), std::back_inserter(out.candidates));
      std::move(part.rejected.begin(), part.rejected.end(), std::back_inserter(out.rejected));
      part = DisaggRecommendation{};
    }
  }
}

// Mixed pairs among the GPU types whose same-type units came cheapest for each pool's role:
// prefill by the cost of one prompt (price · GPUs · idle prefill), decode by the best passing
// same-type unit's cost per token (or its decode step when none passed).
void run_mixed_pairs(const ModelSearch& m, DisaggRecommendation& out) {
  const std::span<const Gpu> gpus = m.gpus;
  const std::size_t pi = m.precision_index;
  std::vector<std::pair<double, std::size_t>> by_prefill, by_decode;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const double rate = m.prices[gi].usd_per_gpu_hour;
    if (m.layouts[gi].empty() || rate <= 0.0) continue;
    double prompt = std::numeric_limits<double>::max();
    double token = std::numeric_limits<double>::max();
    const auto consider = [&](const DisaggCandidate& c) {
      if (c.precision_index != pi) return;
      if (c.prefill_gpu_index == gi) {
        prompt =
            std::min(prompt, c.unit.prefill.layout.gpus_per_replica() * rate * c.estimate.prefill_service_s);
      }
      if (c.decode_gpu_index == gi && c.meets_sla)
        token = std::min(token, c.usd_per_million_output_tokens_at_load);
    };
    for (const DisaggCandidate& c : out.candidates)
      consider(c);
    for (const DisaggCandidate& c : out.rejected)
      consider(c);
    by_prefill.emplace_back(prompt, gi);
    by_decode.emplace_back(token, gi);
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
  sort_cheapest(out.candidates);
  sort_cheapest(out.rejected);
  if (std::none_of(out.candidates.begin(), out.candidates.end(),
                   [](const DisaggCandidate& c) { return c.price_known; })) {
    for (DisaggCandidate& c : out.candidates) {
      c.meets_sla = false;
      c.verdict.first = failed_term(Term::price);
    }
    out.rejected.insert(out.rejected.begin(), std::make_move_iterator(out.candidates.begin()),
                        std::make_move_iterator(out.candidates.end()));
    out.candidates.clear();
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
    const ModelSearch m{model, pi, cls, workload, sla, gpus, prices, policy, grid, layouts, parallel};
    reserve_units(m, out);
    std::vector<std::pair<std::size_t, std::size_t>> same_type;
    for (std::size_t gi = 0; gi < gpus.size(); ++gi)
      same_type.emplace_back(gi, gi);
    run_pairs(m, out, same_type);
    if (grid.mixed_gpu_types && gpus.size() >= 2) run_mixed_pairs(m, out);
  }
  rank_units(out);
  return out;
}

} // namespace rightsize
