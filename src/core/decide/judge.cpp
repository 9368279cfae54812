// The one decision point: judge (feasibility + SLA terms) and fit_layout (smallest layout that fits).
// docs/ARCHITECTURE.md "One decision point"; docs/methodology.md "Search" and "Error bands".
#include "rightsize/judge.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "rightsize/energy.hpp"
#include "rightsize/search.hpp"
#include "rightsize/training.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

bool above(double value, const std::optional<double>& limit) {
  return limit.has_value() && value > *limit;
}

} // namespace

const char* to_string(Confidence confidence) {
  switch (confidence) {
  case Confidence::p50: return "p50";
  case Confidence::p90: return "p90";
  }
  return "p50";
}

std::optional<Confidence> parse_confidence(std::string_view text) {
  if (text == "p50") return Confidence::p50;
  if (text == "p90") return Confidence::p90;
  return std::nullopt;
}

const char* to_string(Term term) {
  switch (term) {
  case Term::none: return "none";
  case Term::engine: return "engine";
  case Term::precision: return "precision";
  case Term::link: return "link";
  case Term::memory: return "memory";
  case Term::ttft: return "ttft";
  case Term::tpot: return "tpot";
  case Term::e2e: return "e2e";
  case Term::requests_per_s: return "requests_per_s";
  case Term::output_tokens_per_s: return "output_tokens_per_s";
  case Term::deadline: return "deadline";
  case Term::budget: return "budget";
  case Term::price: return "price";
  case Term::power: return "power";
  }
  return "none";
}

const char* reason_code(Term term) {
  switch (term) {
  case Term::engine: return "engine_unsupported";
  case Term::precision: return "precision_unsupported";
  case Term::link: return "layout";
  case Term::memory: return "does_not_fit";
  case Term::requests_per_s:
  case Term::output_tokens_per_s: return "throughput";
  case Term::price: return "no_price";
  default: return to_string(term);
  }
}

int closeness(Term term) {
  switch (term) {
  case Term::none: return 0;
  case Term::price: return 1;
  case Term::budget:
  case Term::power: return 2;
  case Term::deadline:
  case Term::requests_per_s:
  case Term::output_tokens_per_s: return 3;
  case Term::e2e: return 4;
  case Term::tpot: return 5;
  case Term::ttft: return 6;
  case Term::memory: return 7;
  case Term::link: return 8;
  case Term::precision: return 9;
  case Term::engine: return 10;
  }
  return 11;
}

double training_throughput_low(const Calibration* calibration, Confidence confidence,
                               const std::string& gpu_id, std::string_view model_class,
                               Reach training_reach) {
  if (calibration == nullptr || confidence == Confidence::p50) return 1.0;
  return std::clamp(
      band_for(*calibration, FigureKind::training_throughput, gpu_id, 1.0, model_class, training_reach).low,
      1e-3, 1.0);
}

JudgedRun judged_run(const TrainingEstimate& e, double throughput_low) {
  // Time and cost scale with 1 / tokens/s: at the band's p10 throughput both grow by 1 / low.
  const double low = std::clamp(throughput_low, 1e-3, 1.0);
  return {e.time_to_train_planning_s / low, e.usd_total / low};
}

double TermCheck::margin() const {
  if (limit <= 0.0) return 0.0;
  return is_load() ? value / limit - 1.0  // more is better
                   : 1.0 - value / limit; // less is better
}

BandFactors band_factors(const Calibration* calibration, Confidence confidence, const std::string& gpu_id,
                         std::string_view model_class, Reach reach) {
  BandFactors f;
  if (calibration == nullptr || confidence == Confidence::p50) return f;
  // Ratios of the band's ends to a unit value (band_for scales linearly with the value).
  f.ttft_high = std::max(1.0, band_for(*calibration, FigureKind::ttft, gpu_id, 1.0, model_class, reach).high);
  f.tpot_high = std::max(1.0, band_for(*calibration, FigureKind::tpot, gpu_id, 1.0, model_class, reach).high);
  f.throughput_low = std::clamp(
      band_for(*calibration, FigureKind::throughput, gpu_id, 1.0, model_class, reach).low, 1e-3, 1.0);
  if (is_image_class(model_class)) {
    // Image models: latency and images/s are judged on the image-latency band (methodology §3.7).
    const double high =
        std::max(1.0, band_for(*calibration, FigureKind::image_latency, gpu_id, 1.0, model_class).high);
    f.ttft_high = high;
    f.tpot_high = high;
    f.throughput_low = std::clamp(1.0 / high, 1e-3, 1.0);
  }
  return f;
}

Sla auto_concurrency_sla(const Sla& sla, const BandFactors& b) {
  Sla t = sla;
  if (t.ttft_ms) *t.ttft_ms /= b.ttft_high;
  if (t.tpot_ms) *t.tpot_ms /= b.tpot_high;
  // judge() takes E2E's pessimistic end as TTFT·r_ttft + decode·r_tpot, at most max(r_ttft, r_tpot)
  // times the point: a point within target/max meets the judged E2E (methodology §3.5).
  if (t.e2e_ms) *t.e2e_ms /= std::max(b.ttft_high, b.tpot_high);
  return t;
}

namespace {

// Writes one verdict's terms in the canonical order; the first that fails is its rejection.
struct Judging {
  Verdict& v;
  bool overloaded = false; ///< an open loop past what it serves (InferenceEstimate::overloaded)

  void fail_once(Term term, double value, double limit) {
    if (v.first.term == Term::none) v.first = failed_term(term, value, limit);
  }

  // An overloaded open loop's latency and load terms say so (their latency values are stand-ins).
  // `rejected_as`: the term a miss is worded as (a budget without a price is a price miss).
  void add(TermCheck check, Term rejected_as) {
    // TPOT stays a time (the decode of a full KV cache); TTFT and end-to-end wait in the queue.
    check.overloaded =
        overloaded && check.term != Term::budget && check.term != Term::power && check.term != Term::tpot;
    v.terms[v.term_count++] = check;
    if (check.met || v.first.term != Term::none) return;
    v.first = check;
    v.first.term = rejected_as;
  }
  void add(const TermCheck& check) { add(check, check.term); }

  // The feasibility terms, in order: engine, precision, link, memory. Whether the rest means anything.
  bool feasible(bool engine_runs, bool precision_supported, bool link_known, const MemoryEstimate& memory) {
    v.engine_runs = engine_runs;
    v.precision_supported = precision_supported;
    v.link_known = link_known;
    v.fits = memory.fits;
    v.memory_needed_bytes = memory.per_gpu_bytes;
    v.memory_usable_bytes = memory.usable_per_gpu_bytes;
    if (!v.engine_runs) fail_once(Term::engine, 0.0, 0.0);
    if (!v.precision_supported) fail_once(Term::precision, 0.0, 0.0);
    if (!v.link_known) fail_once(Term::link, 0.0, 0.0);
    if (!v.fits) fail_once(Term::memory, v.memory_needed_bytes, v.memory_usable_bytes);
    return v.feasible();
  }
};

// Each latency target is about one statistic (mean, p50, p90, p99; methodology §3.1), judged at
// the band's pessimistic end (latency_at_band_s: an open loop at its slow end when one is given).
void latency_terms(Judging& j, const InferenceEstimate& e, const Sla& sla, const BandFactors& b,
                   const InferenceEstimate* slow) {
  const auto term = [&](Term t, int figure, double limit_ms, Statistic stat, bool queue) {
    const double point_ms = latency_stat_s(e, figure, stat) * 1e3;
    const double ms = latency_at_band_s(e, slow, figure, stat, b) * 1e3;
    TermCheck check{t, ms, point_ms, limit_ms, !above(ms, limit_ms) && !(queue && e.overloaded), stat};
    check.overloaded_at_band = !std::isfinite(ms);
    j.add(check);
  };
  if (sla.ttft_ms) term(Term::ttft, 0, *sla.ttft_ms, sla.ttft_stat, true);
  if (sla.tpot_ms) term(Term::tpot, 1, *sla.tpot_ms, sla.tpot_stat, false);
  if (sla.e2e_ms) term(Term::e2e, 2, *sla.e2e_ms, sla.e2e_stat, true);
}

// The judged throughput must carry the peak plus the headroom recommend sizes replicas for
// (methodology §6 "Load served"): a closed loop's own throughput; an open loop's closed-loop
// capacity (InferenceEstimate::capacity_requests_per_s), and its queue must stay finite at the rate.
// An open-loop estimate made without a capacity figure is judged at its arrival rate, which it
// serves unless `overloaded` (estimate_inference and estimate_disagg always give one).
void load_terms(Judging& j, const InferenceEstimate& e, const Sla& sla, const JudgeRules& rules) {
  const bool open_capacity = e.open_loop && e.capacity_requests_per_s > 0.0;
  const bool at_rate = e.open_loop && !open_capacity;
  const double headroom = at_rate ? 0.0 : std::max(0.0, rules.load_headroom);
  const auto load_term = [&](Term term, double point, double peak) {
    const double judged = at_rate ? point : point * rules.bands.throughput_low;
    const double need = peak * (1.0 + headroom);
    // Relative 1e-9: replicas sized as ceil(need / per-replica) carry exactly `need` at a whole ratio.
    const bool met = !e.overloaded && judged >= need * (1.0 - 1e-9);
    TermCheck t{term, judged, point, need, met};
    t.headroom = headroom;
    t.capacity = open_capacity;
    j.add(t);
  };
  if (rules.check_load && sla.requests_per_s) {
    load_term(Term::requests_per_s, open_capacity ? e.capacity_requests_per_s : e.requests_per_s,
              *sla.requests_per_s);
  }
  if (rules.check_load && sla.output_tokens_per_s) {
    load_term(Term::output_tokens_per_s,
              open_capacity ? e.capacity_output_tokens_per_s : e.output_tokens_per_s,
              *sla.output_tokens_per_s);
  }
}

} // namespace

double e2e_at_band(double e2e, double ttft, const BandFactors& bands) {
  // E2E = TTFT + decode time: its pessimistic end is theirs (methodology §3.5).
  const double ttft_part = std::min(e2e, ttft);
  return ttft_part * bands.ttft_high + (e2e - ttft_part) * bands.tpot_high;
}

std::optional<InferenceEstimate> slow_end_estimate(const InferenceEstimate& e, const PreparedModel& model,
                                                   const InferenceWorkload& workload, const Gpu& gpu,
                                                   const Deployment& deployment, const EngineConfig& engine,
                                                   double tpot_high) {
  if (!e.open_loop || e.overloaded || !(tpot_high > 1.0) || workload.request_rate_per_s <= 0.0)
    return std::nullopt;
  // Time scaling (methodology §3.5): every time k× longer at rate λ is the estimate at k·λ, k× longer.
  InferenceWorkload slow = workload;
  slow.request_rate_per_s *= tpot_high;
  return estimate_inference(model, slow, gpu, deployment, engine, nullptr, GpuPrice{});
}

double latency_at_band_s(const InferenceEstimate& e, const InferenceEstimate* slow, int figure,
                         Statistic stat, const BandFactors& b) {
  const auto at_band = [&](const InferenceEstimate& x) {
    const double v = latency_stat_s(x, figure, stat);
    if (figure == 0) return v * b.ttft_high;
    if (figure == 1) return v * b.tpot_high;
    return e2e_at_band(v, latency_stat_s(x, 0, stat), b);
  };
  const double point = at_band(e);
  if (slow == nullptr || !e.open_loop || e.overloaded) return point;
  // Past its capacity at the slow end the queue grows without end; TPOT is then a full cache's.
  if (slow->overloaded && figure != 1) return std::numeric_limits<double>::infinity();
  return std::max(point, at_band(*slow));
}

BandFactors high_ratios(const InferenceBands& bands, const InferenceEstimate& e) {
  BandFactors r;
  if (e.ttft_s > 0.0) r.ttft_high = bands.ttft.high / e.ttft_s;
  if (e.tpot_s > 0.0) r.tpot_high = bands.tpot.high / e.tpot_s;
  return r;
}

void band_through_queue(InferenceBands& bands, const InferenceEstimate& e, const InferenceEstimate* slow) {
  if (slow == nullptr || !e.open_loop || e.overloaded) return;
  const BandFactors r = high_ratios(bands, e);
  bands.ttft.high = latency_at_band_s(e, slow, 0, Statistic::mean, r);
  bands.tpot.high = latency_at_band_s(e, slow, 1, Statistic::mean, r);
  bands.e2e.high = latency_at_band_s(e, slow, 2, Statistic::mean, r);
}

Verdict judge(const InferenceEstimate& e, const Sla& sla, const JudgeRules& rules) {
  Verdict v;
  Judging j{v, e.overloaded};
  // Performance is only judged where it means something (the engine and precision run, the replica
  // fits).
  if (!j.feasible(e.engine_runs, e.precision_supported, e.link_known, e.memory)) return v;

  latency_terms(j, e, sla, rules.bands, rules.slow_end);
  load_terms(j, e, sla, rules);
  if (sla.budget_usd) {
    // Without a price the budget cannot be shown to hold: a miss, worded as the missing price.
    TermCheck budget{Term::budget, e.usd_per_hour, e.usd_per_hour, *sla.budget_usd,
                     rules.price_known && e.usd_per_hour <= *sla.budget_usd};
    budget.unknown = !rules.price_known;
    j.add(budget, rules.price_known ? Term::budget : Term::price);
  }
  if (rules.max_power_kw > 0.0) {
    // Unknown power (no TDP in the catalog) cannot be shown to meet a cap.
    TermCheck power{Term::power, rules.power_kw, rules.power_kw, rules.max_power_kw,
                    meets_power_cap(rules.power_kw * 1e3, rules.max_power_kw)};
    power.unknown = !(rules.power_kw > 0.0);
    j.add(power);
  }
  return v;
}

Verdict judge(const TrainingEstimate& e, const Sla& sla, bool price_known, double throughput_low) {
  Verdict v;
  Judging j{v};
  // GPUs spread over a link the catalog gives no bandwidth for (MI325X, T4: no PCIe figure): the
  // collectives have no finite time, so the run has none either.
  const bool link = e.link_known && std::isfinite(e.time_to_train_s) && std::isfinite(e.usd_total);
  // Training has no serving engine: only precision, link and memory.
  if (!j.feasible(true, e.precision_supported, link, e.memory)) return v;
  const JudgedRun judged = judged_run(e, throughput_low);
  if (sla.deadline_hours) {
    // Judged on the planned time, as the cost is billed on it (methodology §4.2): the overhead that
    // adds GPU-hours (restarts, evaluation, stragglers) adds wall-clock time too.
    const double hours = e.time_to_train_planning_s / k_seconds_per_hour;
    const double judged_hours = judged.time_to_train_planning_s / k_seconds_per_hour;
    j.add({Term::deadline, judged_hours, hours, *sla.deadline_hours, judged_hours <= *sla.deadline_hours});
  }
  if (sla.budget_usd) {
    // A budget cannot be shown to hold without a price: a miss, worded as the missing price.
    const double usd = price_known ? e.usd_total : 0.0;
    const double judged_usd = price_known ? judged.usd_total : 0.0;
    TermCheck budget{Term::budget, judged_usd, usd, *sla.budget_usd,
                     price_known && judged_usd <= *sla.budget_usd};
    budget.unknown = !price_known;
    j.add(budget, price_known ? Term::budget : Term::price);
  }
  return v;
}

std::size_t optimistic_only_terms(const InferenceEstimate& e, const Sla& sla, const BandFactors& bands,
                                  std::array<TermCheck, 7>& out, const InferenceEstimate* slow_end) {
  JudgeRules point;
  JudgeRules pessimistic;
  pessimistic.bands = bands;
  pessimistic.slow_end = slow_end;
  const Verdict at_point = judge(e, sla, point);
  const Verdict at_band = judge(e, sla, pessimistic);
  std::size_t n = 0;
  for (std::size_t i = 0; i < at_point.term_count && i < at_band.term_count; ++i) {
    if (at_point.terms[i].met && !at_band.terms[i].met) out[n++] = at_band.terms[i];
  }
  return n;
}

namespace {

// What fit_layout estimates: the model, its workload, the GPU and the engine.
struct LayoutQuery {
  const PreparedModel& model;
  const InferenceWorkload& workload;
  const Gpu& gpu;
  const EngineConfig& engine;
  const GpuPrice* keep_price; // check_fit at this price, keeping the returned layout's estimate
};

// The memory check of one layout; with a keep price, check_fit's, and the estimate it made kept:
// `last` for a layout the search returns whether it fits or not (the estimate is made either way).
bool layout_fits(const LayoutQuery& q, const Deployment& d, bool last, LayoutChoice& out) {
  if (q.keep_price == nullptr) return fits_in_memory(q.model, q.workload, q.gpu, d, q.engine);
  return check_fit(q.model, q.workload, q.gpu, d, q.engine, *q.keep_price, last, out.estimate);
}

// A fully pinned layout of `gpus` GPUs: judged as given (the caller checks divisibility by heads and
// GPUs).
LayoutChoice pinned_layout(const LayoutQuery& q, const LayoutRequest& request, int gpus, int adp) {
  LayoutChoice out;
  out.deployment = Deployment{gpus, request.tp, request.pp, std::max(1, request.ep), adp};
  if (runs_whole(q.model.model) && out.deployment.gpus_per_replica() > 1) {
    out.issue = LayoutIssue::runs_whole;
    return out;
  }
  if (gpus % out.deployment.gpus_per_replica() != 0) {
    out.issue = LayoutIssue::gpus_not_divisible;
    return out;
  }
  // The experts split over the replica's own GPUs (its MoE layers' all-to-all stays inside it).
  if (out.deployment.ep > out.deployment.gpus_per_replica()) {
    out.issue = LayoutIssue::ep_exceeds_replica;
    return out;
  }
  if (q.model.model.heads > 0 && q.model.model.heads % request.tp != 0) {
    out.issue = LayoutIssue::heads_not_divisible;
    return out;
  }
  out.fits = layout_fits(q, out.deployment, true, out);
  return out;
}

// No layout formed: say why, and name the layout asked for. A pinned EP that a layout without it
// would take is what no replica can take.
void unplaced_layout(const LayoutQuery& q, const LayoutRequest& request, LayoutChoice& out) {
  const bool one_replica = request.gpus <= 0;
  const int gpus = std::max(1, request.gpus);
  if (request.ep > 1) {
    // Would a layout form without the pinned EP? Then the EP is what no replica can take.
    LayoutRequest no_ep = request;
    no_ep.ep = 0;
    const LayoutChoice without = fit_layout(q.model, q.workload, q.gpu, no_ep, q.engine);
    if (without.issue == LayoutIssue::none) {
      out.deployment = without.deployment;
      out.deployment.ep = request.ep;
      out.fits = false;
      out.issue = LayoutIssue::ep_unplaceable;
      return;
    }
  }
  const bool heads_blocked =
      request.tp > 0 && q.model.model.heads > 0 && q.model.model.heads % request.tp != 0;
  const bool split_asked = request.tp > 1 || request.pp > 1 || request.attention_dp > 1;
  out.issue = runs_whole(q.model.model) && split_asked ? LayoutIssue::runs_whole
              : heads_blocked                          ? LayoutIssue::heads_not_divisible
                                                       : LayoutIssue::gpus_not_divisible;
  const int tp = std::max(1, request.tp);
  const int pp = std::max(1, request.pp);
  out.deployment = Deployment{one_replica ? tp * pp : gpus, tp, pp, std::max(1, request.ep)};
}

// The smallest layout that fits within the request's pins and limits.
LayoutChoice searched_layout(const LayoutQuery& q, const LayoutRequest& request) {
  LayoutChoice out;
  const PreparedModel& model = q.model;
  const bool one_replica = request.gpus <= 0;
  const int node = std::max(1, q.gpu.gpus_per_node);
  const int gpus = std::max(1, request.gpus);
  SearchPolicy policy;
  policy.max_gpus_per_replica = one_replica ? std::max(1, request.max_gpus_per_replica) : gpus;
  policy.max_nodes = one_replica ? std::max(1, request.max_nodes) : std::max(1, (gpus + node - 1) / node);
  // Fewer GPUs per replica first; at one size, the widest TP (NVLink inside the node beats a
  // pipeline: PP adds a bubble per step and no memory bandwidth per token). The one layout space,
  // visited without a list, so the sweep's hot path stays allocation-free.
  bool tried = false;
  const LayoutSpace space{model.model, q.gpu, policy};
  const int ep = std::max(1, request.ep);
  Deployment fallback;
  // The pins a split must keep. EP spans the TP group of an MoE model (as replica_layouts offers it).
  const auto admitted = [&](int tp, int pp) {
    return (request.pp <= 0 || pp == request.pp) && (ep <= 1 || (ep == tp && space.expert_tp(tp)));
  };
  int last_n = 0; // the largest replica size with a layout to try (what a kept estimate needs)
  for (auto n = static_cast<int>(std::bit_floor(static_cast<unsigned>(space.max_gpus())));
       q.keep_price != nullptr && n >= 1 && last_n == 0; n /= 2) {
    if (!one_replica && gpus % n != 0) continue;
    space.each_split(
        n, true, [&](int tp, int pp) { last_n = admitted(tp, pp) ? n : last_n; }, request.tp);
  }
  for (int n = 1; n <= space.max_gpus() && !out.fits; n *= 2) {
    if (!one_replica && gpus % n != 0) continue;
    space.each_split(
        n, true,
        [&](int tp, int pp) {
          if (out.fits || !admitted(tp, pp)) return;
          const Deployment d{one_replica ? n : gpus, tp, pp, ep};
          const bool largest = !tried || n > fallback.tp * fallback.pp;
          if (largest) fallback = d; // the largest replica, widest TP
          tried = true;
          // At the last size the first layout is returned whether it fits or not.
          if (layout_fits(q, d, largest && n == last_n, out)) {
            out.deployment = d;
            out.fits = true;
          }
        },
        request.tp);
  }
  if (out.fits) return out;
  out.deployment = fallback;
  if (!tried) unplaced_layout(q, request, out);
  return out;
}

} // namespace

LayoutChoice fit_layout(const PreparedModel& model, const InferenceWorkload& workload, const Gpu& gpu,
                        const LayoutRequest& request, const EngineConfig& engine,
                        const GpuPrice* keep_price) {
  const bool one_replica = request.gpus <= 0;
  // Attention DP is a layout the user names: its tp and pp default to 1 and its experts to one
  // group per GPU of the MoE layers (methodology §5.6).
  if (request.attention_dp > 1 && (request.tp <= 0 || request.pp <= 0)) {
    LayoutRequest pinned = request;
    pinned.tp = std::max(1, request.tp);
    pinned.pp = std::max(1, request.pp);
    if (pinned.ep <= 0) pinned.ep = pinned.tp * request.attention_dp;
    return fit_layout(model, workload, gpu, pinned, engine, keep_price);
  }
  const int adp = std::max(1, request.attention_dp);
  if (one_replica && request.tp > 0 && request.pp > 0) {
    LayoutRequest pinned = request;
    pinned.gpus = request.tp * request.pp * adp;
    return fit_layout(model, workload, gpu, pinned, engine, keep_price);
  }
  const LayoutQuery q{model, workload, gpu, engine, keep_price};
  if (request.tp > 0 && request.pp > 0) return pinned_layout(q, request, std::max(1, request.gpus), adp);
  return searched_layout(q, request);
}

} // namespace rightsize
