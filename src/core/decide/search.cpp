// Inference search: enumerate, filter with reasons, size replicas, rank (docs/methodology.md §Search).
#include "rightsize/search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/decide/sizing.hpp"
#include "core/numeric.hpp"
#include "rightsize/energy.hpp"
#include "rightsize/goodput.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

using core::d;
using detail::k_max_replicas;

} // namespace

bool runs_whole(const ModelSpec& model) {
  return model.kind == ModelKind::dit && model.image.denoiser == Denoiser::unet;
}

bool valid_replica_layout(const ModelSpec& model, const Gpu& gpu, int tp, int pp,
                          const SearchPolicy& policy) {
  const int node = std::max(1, gpu.gpus_per_node);
  if (tp < 1 || pp < 1 || tp > node) return false;
  if (model.heads > 0 && model.heads % tp != 0) return false; // TP splits whole attention heads
  if (runs_whole(model) && (tp > 1 || pp > 1)) return false;
  if (pp > 1 && pp > model.layers) return false;
  // PP is only worth it where TP cannot go further (across nodes) or as an explicit option
  // at the node boundary; keep pp ≤ nodes·2 to avoid deep pipelines for serving.
  return !(pp > 2 * std::max(1, policy.max_nodes) && tp < node);
}

std::vector<Deployment> replica_layouts(const ModelSpec& model, const Gpu& gpu, const SearchPolicy& policy) {
  std::vector<Deployment> out;
  const LayoutSpace space{model, gpu, policy};
  for (int n = 1; n <= space.max_gpus(); n *= 2) {
    space.each_split(n, false, [&](int tp, int pp) {
      Deployment dep;
      dep.tp = tp;
      dep.pp = pp;
      dep.gpus = n;
      out.push_back(dep);
      if (space.expert_tp(tp)) {
        dep.ep = tp;
        out.push_back(dep);
      }
    });
    if (space.attention_dp(n)) {
      Deployment dep;
      dep.gpus = n;
      dep.attention_dp = n;
      dep.ep = n;
      out.push_back(dep);
    }
  }
  return out;
}

namespace {

// The operating point at the load each replica carries (methodology §6 "Latency at the served
// load"). Closed loop: by Little's law a replica serving λ req/s with end-to-end time E(C) holds
// C = λ·E(C) requests; a few fixed-point steps from C = 1 settle it (E rises with C, so the
// iteration climbs monotonically to the fixed point, which is at most the sized concurrency). Open
// loop: the estimate is already at the arrival rate; its in-flight count is λ·E by the same law.
// With `goodput_bands`, the share of requests within every latency target there (methodology §6.1).
// An open loop's goodput is at its band's slow end (`slow_end`, methodology §3.5).
void latency_at_load(Candidate& c, const PreparedModel& model, const InferenceWorkload& workload,
                     const Sla& sla, const Gpu& gpu, const EngineConfig& engine, double load_rps_per_replica,
                     const BandFactors* goodput_bands = nullptr,
                     const InferenceEstimate* slow_end = nullptr) {
  const auto take = [&](const InferenceEstimate& e, std::int64_t concurrency) {
    if (goodput_bands != nullptr) c.slo_attainment = goodput(e, sla, *goodput_bands, slow_end).slo_attainment;
    c.at_load.concurrency = concurrency;
    c.at_load.ttft_s = e.ttft_s;
    c.at_load.tpot_s = e.tpot_s;
    c.at_load.e2e_s = e.e2e_s;
    c.at_load.ttft_judged_s = latency_stat_s(e, 0, sla.ttft_stat);
    c.at_load.tpot_judged_s = latency_stat_s(e, 1, sla.tpot_stat);
    c.at_load.e2e_judged_s = latency_stat_s(e, 2, sla.e2e_stat);
  };
  take(c.estimate, c.estimate.concurrency);
  if (load_rps_per_replica <= 0.0) return;
  if (c.estimate.open_loop) {
    c.at_load.concurrency =
        static_cast<std::int64_t>(std::max(1.0, std::ceil(load_rps_per_replica * c.estimate.e2e_s)));
    return;
  }
  Deployment one = c.layout;
  one.gpus = c.layout.gpus_per_replica();
  InferenceWorkload w = workload;
  double conc = 1.0;
  for (int i = 0; i < 8; ++i) {
    w.concurrency = static_cast<std::int64_t>(conc);
    const InferenceEstimate e = estimate_inference(model, w, gpu, one, engine, nullptr, 0.0);
    take(e, w.concurrency);
    const double next = std::clamp(std::ceil(load_rps_per_replica * e.e2e_s), 1.0, d(c.estimate.concurrency));
    if (next <= conc) break;
    conc = next;
  }
}

} // namespace

InferenceWorkload deployment_arrivals(const InferenceWorkload& workload, const Sla& sla) {
  InferenceWorkload w = workload;
  if (w.arrival == Arrival::poisson && w.request_rate_per_s <= 0.0 && sla.requests_per_s)
    w.request_rate_per_s = *sla.requests_per_s;
  return w;
}

CostAtLoad cost_at_load(const InferenceEstimate& e, const Sla& sla, const InferenceWorkload& workload) {
  CostAtLoad out;
  const double out_tokens = d(std::max<std::int64_t>(0, workload.output_tokens));
  out.served_requests_per_s = e.requests_per_s;
  if (sla.requests_per_s) {
    out.served_requests_per_s = std::min(*sla.requests_per_s, e.requests_per_s);
  } else if (sla.output_tokens_per_s && out_tokens > 0.0) {
    out.served_requests_per_s = std::min(*sla.output_tokens_per_s / out_tokens, e.requests_per_s);
  }
  out.served_output_tokens_per_s = out.served_requests_per_s * out_tokens;
  if (out.served_requests_per_s > 0.0) {
    // methodology §6.1 at the served load: $/h ÷ (3,600 s/h × served req/s).
    out.usd_per_request = e.usd_per_hour / k_seconds_per_hour / out.served_requests_per_s;
    if (out_tokens > 0.0) out.usd_per_million_output_tokens = out.usd_per_request / out_tokens * 1e6;
  }
  return out;
}

namespace {

// One candidate's inputs (evaluate_candidate's arguments but the layout and the bands).
struct CandidateQuery {
  const PreparedModel& model;
  const InferenceWorkload& workload;
  const Sla& sla;
  const Gpu& gpu;
  const GpuPrice& price;
  const SearchPolicy& policy;
};

// The verdict on `e`, the deployment's estimate at `replicas` replicas; an open loop's latencies are
// judged at its band's slow end (methodology §3.5 "Open loop: the band through the queue").
Verdict judge_at(const InferenceEstimate& e, const Candidate& c, int replicas, const CandidateQuery& q,
                 const Sla& sla, JudgeRules rules) {
  std::optional<InferenceEstimate> slow;
  if (e.open_loop && !e.overloaded) {
    Deployment whole = c.layout;
    whole.gpus = c.layout.gpus_per_replica() * replicas;
    slow = slow_end_estimate(e, q.model, deployment_arrivals(q.workload, q.sla), q.gpu, whole,
                             q.policy.engine, rules.bands.tpot_high);
  }
  rules.slow_end = slow ? &*slow : nullptr;
  return judge(e, sla, rules);
}

// Replicas for the load with headroom, sized on the pessimistic throughput (methodology §6.3).
void size_replicas(Candidate& c, const Sla& sla, const SearchPolicy& policy, const BandFactors& bands) {
  const InferenceEstimate& e = c.estimate;
  const double headroom = 1.0 + policy.throughput_headroom;
  // The capacity: a closed loop's throughput, an open loop's highest sustained rate.
  const double rps = e.capacity_requests_per_s * bands.throughput_low;
  const double tps = e.capacity_output_tokens_per_s * bands.throughput_low;
  c.replicas =
      static_cast<int>(std::min<double>(detail::copies_for_load(sla, rps, tps, headroom), k_max_replicas));
  c.sizing_requests_per_s_per_replica = rps;
}

// One replica count of an open loop, judged: the deployment's estimate at the arrivals, its verdict
// and whether the KV cache holds the p99 in flight (the engine's cap, plan_in_flight).
struct AtReplicas {
  InferenceEstimate estimate;
  Verdict verdict;
  bool cap_holds = false;
  /// Every term more replicas help holds (latency, load, the in-flight cap).
  [[nodiscard]] bool served() const { return cap_holds && detail::fails_only_on_cost(verdict); }
  [[nodiscard]] bool passes() const { return cap_holds && verdict.passes(); }
};

AtReplicas at_replicas(const Candidate& c, int replicas, const CandidateQuery& q, const JudgeRules& rules) {
  Deployment whole = c.layout;
  whole.gpus = c.layout.gpus_per_replica() * replicas;
  // The deployment's arrivals (the workload's rate, else the SLA's peak); estimate_inference
  // splits them over the replicas. check and estimate judge the same rate.
  const InferenceWorkload open = deployment_arrivals(q.workload, q.sla);
  AtReplicas out;
  out.estimate = estimate_inference(q.model, open, q.gpu, whole, q.policy.engine, nullptr, q.price);
  out.verdict = judge_at(out.estimate, c, replicas, q, q.sla, rules);
  out.cap_holds = in_flight_p99_fits(out.estimate, c.layout.attention_dp);
  return out;
}

// Open-loop traffic (methodology §3.1): latency is judged at the peak rate each replica carries;
// replicas are added while a latency percentile misses at that load, or while the KV cache holds
// fewer sequences than the p99 in flight: the fewest up to open_loop_copy_limit that pass. The terms
// more replicas help only improve with the count and the cost terms only worsen, so that is the
// fewest that serve (detail::fewest_serving), if it passes there. When none passes and the count
// sized for the load missed too, the miss is reported at that count: the added replicas did not
// help, and their count is the search giving up, not a deployment.
void replicas_for_rate(Candidate& c, const CandidateQuery& q, const JudgeRules& rules) {
  const int first = c.replicas;
  const int limit = detail::open_loop_copy_limit(first);
  std::map<int, AtReplicas> judged; // each count estimated once
  const auto at = [&](int replicas) -> AtReplicas& {
    auto found = judged.find(replicas);
    if (found == judged.end()) found = judged.emplace(replicas, at_replicas(c, replicas, q, rules)).first;
    return found->second;
  };
  const auto finish = [&c](int replicas, AtReplicas& chosen) {
    c.replicas = replicas;
    c.estimate = chosen.estimate;
    c.verdict = chosen.verdict;
    c.rejection = c.verdict.first;
  };
  if (at(first).passes() || first >= limit) return finish(first, at(first));
  const int fewest = at(first).served()
                         ? first
                         : detail::fewest_serving(first + 1, limit, [&](int r) { return at(r).served(); });
  if (at(fewest).passes()) return finish(fewest, at(fewest));
  // None passes up to the limit: the verdict there, or at the sized count when that missed too.
  if (!at(limit).verdict.passes() && !at(first).verdict.passes()) return finish(first, at(first));
  finish(limit, at(limit));
}

// Cost over the load actually served, and at full capacity in the estimate: two figures, each
// named in the output (docs/output-schema.md "Cost"); then the power and, under a cap, its term.
void cost_and_power(Candidate& c, const CandidateQuery& q, JudgeRules& rules) {
  const CostAtLoad at_load = cost_at_load(c.estimate, q.sla, q.workload);
  c.served_requests_per_s = at_load.served_requests_per_s;
  c.served_output_tokens_per_s = at_load.served_output_tokens_per_s;
  if (c.price_known) {
    c.usd_per_request_at_load = at_load.usd_per_request;
    c.usd_per_million_output_tokens_at_load = at_load.usd_per_million_output_tokens;
  }
  const CandidateEnergy energy = candidate_energy(c, q.gpu, q.sla, PowerModel{});
  c.power_watts = energy.power_watts;
  c.joules_per_output_token = energy.joules_per_output_token;
  if (q.policy.max_power_kw > 0.0) {
    // The power cap is one more term of the one verdict (core::judge).
    apply_power_cap(rules, q.policy, c.power_watts);
    c.verdict = judge_at(c.estimate, c, c.replicas, q, q.sla, rules);
    c.rejection = c.verdict.first;
  }
}

} // namespace

Candidate evaluate_candidate(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                             const Gpu& gpu, const Deployment& layout, const GpuPrice& price,
                             const SearchPolicy& policy, const BandFactors& bands) {
  Candidate c;
  c.layout = layout;
  c.layout.gpus = layout.gpus_per_replica();
  c.price_known = price.usd_per_gpu_hour > 0.0;
  // Open loop: a replica's capacity is its throughput at the largest concurrency that fits; the
  // latency targets (any statistic) are judged at the arrival rate below, where they are defined.
  // Capacity is found in closed loop (the largest concurrency that meets the latency targets);
  // open-loop arrivals are judged at their rate once the replicas are sized (below).
  const CapacityInputs cap = capacity_inputs(workload, sla, bands);
  const Sla& capacity_sla = cap.sla;
  const Sla& auto_sla = cap.auto_sla;
  const InferenceWorkload& capacity_workload = cap.workload;
  c.estimate = estimate_inference(model, capacity_workload, gpu, c.layout, policy.engine, &auto_sla, price);
  InferenceEstimate& e = c.estimate;
  JudgeRules rules;
  rules.bands = bands;
  rules.price_known = c.price_known;
  // One replica first, load aside: a replica that misses a latency target or does not fit is
  // rejected before any replicas are sized.
  rules.check_load = false;
  c.verdict = judge(e, capacity_sla, rules);
  c.rejection = c.verdict.first;
  if (!c.verdict.passes()) {
    latency_at_load(c, model, capacity_workload, sla, gpu, policy.engine, 0.0); // a miss serves no load
    return c;
  }

  // Open loop: replicas are sized by the step loop's capacity at the arrivals (methodology §3.1
  // "Open loop: capacity"), the figure every open-loop estimate carries and core::judge holds the
  // load to; a closed loop by its throughput at the concurrency found above.
  const bool open = workload.arrival == Arrival::poisson;
  const InferenceWorkload arrivals = deployment_arrivals(workload, sla);
  const bool open_sizing = open && arrivals.request_rate_per_s > 0.0;
  if (open_sizing) e = estimate_inference(model, arrivals, gpu, c.layout, policy.engine, nullptr, price);
  size_replicas(c, sla, policy, bands);
  if (c.replicas > 1) {
    Deployment whole = c.layout;
    whole.gpus = c.total_gpus();
    InferenceWorkload fixed = capacity_workload;
    fixed.concurrency = e.concurrency;
    e = open_sizing ? estimate_inference(model, arrivals, gpu, whole, policy.engine, nullptr, price)
                    : estimate_inference(model, fixed, gpu, whole, policy.engine, &auto_sla, price);
  }
  rules.check_load = true;
  rules.load_headroom = policy.throughput_headroom;
  const CandidateQuery q{model, workload, sla, gpu, price, policy};
  c.verdict = judge_at(e, c, c.replicas, q, capacity_sla, rules);
  c.rejection = c.verdict.first;
  if (workload.arrival == Arrival::poisson && sla.requests_per_s && c.verdict.passes())
    replicas_for_rate(c, q, rules);
  cost_and_power(c, q, rules);
  const bool has_load = sla.requests_per_s.has_value() || sla.output_tokens_per_s.has_value();
  const bool by_goodput = policy.rank_by == RankBy::goodput;
  std::optional<InferenceEstimate> slow;
  if (by_goodput && c.estimate.open_loop) {
    Deployment whole = c.layout;
    whole.gpus = c.total_gpus();
    slow = slow_end_estimate(c.estimate, model, arrivals, gpu, whole, policy.engine, bands.tpot_high);
  }
  latency_at_load(c, model, capacity_workload, sla, gpu, policy.engine,
                  has_load && c.verdict.passes() ? c.served_requests_per_s / c.replicas : 0.0,
                  by_goodput ? &bands : nullptr, slow ? &*slow : nullptr);
  c.meets_sla = c.verdict.passes();
  return c;
}

void apply_power_cap(JudgeRules& rules, const SearchPolicy& policy, double power_watts) {
  if (policy.max_power_kw <= 0.0) return;
  rules.max_power_kw = policy.max_power_kw;
  rules.power_kw = power_watts / 1e3;
}

Candidate judge_deployment(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                           const Gpu& gpu, const Deployment& whole, const GpuPrice& price,
                           const SearchPolicy& policy, const BandFactors& bands) {
  // One replica at its concurrency: latency only (the load, budget and power are the whole
  // deployment's, judged below).
  Deployment replica = whole;
  replica.gpus = replica.gpus_per_replica();
  Sla latency_only = sla;
  latency_only.requests_per_s.reset();
  latency_only.output_tokens_per_s.reset();
  latency_only.budget_usd.reset();
  SearchPolicy per_replica = policy;
  per_replica.max_power_kw = 0.0;
  Candidate c = evaluate_candidate(model, workload, latency_only, gpu, replica, price, per_replica, bands);
  c.replicas = std::max(1, whole.gpus / replica.gpus);
  InferenceWorkload fixed = workload;
  fixed.concurrency = std::max<std::int64_t>(1, c.estimate.concurrency);
  c.estimate = estimate_inference(model, fixed, gpu, whole, policy.engine, nullptr, price);
  const CandidateEnergy energy = candidate_energy(c, gpu, sla, PowerModel{});
  c.power_watts = energy.power_watts;
  c.joules_per_output_token = energy.joules_per_output_token;
  JudgeRules rules;
  rules.bands = bands;
  rules.price_known = c.price_known;
  rules.load_headroom = policy.throughput_headroom;
  apply_power_cap(rules, policy, c.power_watts);
  // An open loop's latencies at its band's slow end (methodology §3.5).
  const auto slow = slow_end_estimate(c.estimate, model, fixed, gpu, whole, policy.engine, bands.tpot_high);
  rules.slow_end = slow ? &*slow : nullptr;
  c.verdict = judge(c.estimate, sla, rules);
  c.rejection = c.verdict.first;
  c.meets_sla = c.verdict.passes();
  return c;
}

CapacityInputs capacity_inputs(const InferenceWorkload& workload, const Sla& sla, const BandFactors& bands) {
  CapacityInputs out;
  out.sla = sla;
  if (workload.arrival == Arrival::poisson) {
    out.sla.ttft_ms.reset();
    out.sla.tpot_ms.reset();
    out.sla.e2e_ms.reset();
  }
  out.auto_sla = auto_concurrency_sla(out.sla, bands);
  out.workload = workload;
  out.workload.arrival = Arrival::closed_loop;
  out.workload.request_rate_per_s = 0.0;
  // An open loop's capacity is at the most clients that fit, as every open-loop estimate carries it
  // (core::judge holds the load to that figure); a concurrency in the spec does not bound it.
  if (workload.arrival == Arrival::poisson) out.workload.concurrency = 0;
  // Nor does max_context: it is what one sequence may reach, not what each holds (methodology §3.1
  // "KV in flight"); a closed loop's waves would each keep it, and a layout the open loop fits
  // (estimate, check and sweep judge the open loop itself) was rejected here as not fitting.
  if (workload.arrival == Arrival::poisson) out.workload.max_context = 0;
  return out;
}

Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus, std::span<const double> prices,
                         const SearchPolicy& policy) {
  const std::vector<GpuPrice> per_gpu(prices.begin(), prices.end());
  return recommend(models, workload, sla, gpus, std::span<const GpuPrice>(per_gpu), policy);
}

namespace {

// Speculative decoding "use": "auto" (methodology §3.8): the layout is evaluated with and without
// it and the variant that ranks first is kept (one that meets the requirements before one that does
// not; on when they tie); the other's TPOT and served cost stay on the candidate for the reason.
Candidate evaluate_layout(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                          std::span<const Gpu> gpus, std::size_t gi, const Deployment& layout,
                          const GpuPrice& price, const SearchPolicy& policy, const BandFactors& bands,
                          RankBy rank_by) {
  Candidate on = evaluate_candidate(model, workload, sla, gpus[gi], layout, price, policy, bands);
  on.gpu_index = gi;
  if (workload.speculative.method == SpeculativeMethod::none || !workload.speculative.automatic) return on;
  InferenceWorkload plain = workload;
  plain.speculative = Speculative{};
  Candidate off = evaluate_candidate(model, plain, sla, gpus[gi], layout, price, policy, bands);
  off.gpu_index = gi;
  const bool keep_on = on.meets_sla != off.meets_sla
                           ? on.meets_sla
                           : !ranks_before(off, on, rank_by, gpus, policy.price_margins);
  Candidate& kept = keep_on ? on : off;
  const Candidate& other = keep_on ? off : on;
  kept.speculative_auto = true;
  kept.speculative_on = keep_on;
  kept.speculative_other_tpot_s = other.estimate.tpot_s;
  kept.speculative_other_usd_per_million =
      other.meets_sla ? other.usd_per_million_output_tokens_at_load : 0.0;
  return kept;
}

} // namespace

Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus, std::span<const GpuPrice> prices,
                         const SearchPolicy& policy) {
  Recommendation out;
  // Image and encoder models serve no output tokens: the cost ranking is per item (image) ($ per 1,000 images
  // = 1,000 × $ per request, methodology §3.7) instead of an all-zero $ per 1M tokens.
  const RankBy rank_by =
      effective_rank_by(policy.rank_by, models.empty() ? ModelKind::decoder : models[0].model.kind);
  for (std::size_t pi = 0; pi < models.size(); ++pi) {
    const std::string model_class = model_class_of(models[pi].model);
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
      const BandFactors bands = band_factors(policy.calibration, policy.confidence, gpus[gi].id, model_class,
                                             serving_reach(policy.calibration, gpus[gi], models[pi].model));
      for (const Deployment& layout : replica_layouts(models[pi].model, gpus[gi], policy)) {
        Candidate c =
            evaluate_layout(models[pi], workload, sla, gpus, gi, layout, prices[gi], policy, bands, rank_by);
        c.precision_index = pi;
        (c.meets_sla ? out.candidates : out.rejected).push_back(c);
      }
    }
  }
  // A cost ranking needs a cost: when no candidate that meets the requirements has a price
  // (--max-price-age dropped every quote, or only unpriced GPUs were searched), none can win on
  // cost; each is a no_price miss instead of a winner picked by its tie-breaks.
  const bool by_cost = rank_by == RankBy::cost_per_token || rank_by == RankBy::cost_per_request;
  if (by_cost && std::none_of(out.candidates.begin(), out.candidates.end(),
                              [](const Candidate& c) { return c.price_known; })) {
    for (Candidate& c : out.candidates) {
      c.meets_sla = false;
      c.rejection = failed_term(Term::price);
      out.rejected.push_back(c);
    }
    out.candidates.clear();
  }
  auto order = [&](const Candidate& a, const Candidate& b) {
    return ranks_before(a, b, rank_by, gpus, policy.price_margins);
  };
  std::sort(out.candidates.begin(), out.candidates.end(), order);
  std::sort(out.rejected.begin(), out.rejected.end(), order);
  for (std::size_t i = 0; i < out.candidates.size(); ++i)
    out.candidates[i].rank = i + 1;
  return out;
}

} // namespace rightsize
