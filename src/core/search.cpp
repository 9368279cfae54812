// Inference search: enumerate, filter with reasons, size replicas, rank (docs/methodology.md §Search).
#include "rightsize/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rightsize/energy.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

constexpr int k_max_replicas = 100000;
constexpr double k_inf = std::numeric_limits<double>::infinity();

double d(std::int64_t v) {
  return static_cast<double>(v);
}

double rank_key(const Candidate& c, RankBy rank_by) {
  switch (rank_by) {
  case RankBy::cost_per_token:
    return c.price_known && c.estimate.usd_per_million_output_tokens > 0.0
               ? c.estimate.usd_per_million_output_tokens
               : k_inf;
  case RankBy::cost_per_request:
    return c.price_known && c.estimate.usd_per_request > 0.0 ? c.estimate.usd_per_request : k_inf;
  case RankBy::latency: return c.estimate.e2e_s;
  case RankBy::gpus: return static_cast<double>(c.total_gpus());
  case RankBy::energy: return c.joules_per_output_token > 0.0 ? c.joules_per_output_token : k_inf;
  }
  return k_inf;
}

// Rejections closer to passing sort first: a budget or throughput miss is nearer than a latency
// miss, which is nearer than not fitting at all.
int reason_order(RejectReason r) {
  switch (r) {
  case RejectReason::none: return 0;
  case RejectReason::no_price: return 1;
  case RejectReason::deadline: return 3;
  case RejectReason::budget: return 2;
  case RejectReason::power: return 2;
  case RejectReason::throughput: return 3;
  case RejectReason::e2e: return 4;
  case RejectReason::tpot: return 5;
  case RejectReason::ttft: return 6;
  case RejectReason::does_not_fit: return 7;
  case RejectReason::layout: return 8;
  case RejectReason::precision_unsupported: return 9;
  }
  return 10;
}

bool layout_before(const Candidate& a, const Candidate& b, std::span<const Gpu> gpus) {
  const std::string& ga = gpus[a.gpu_index].id;
  const std::string& gb = gpus[b.gpu_index].id;
  if (ga != gb) return ga < gb;
  if (a.layout.tp != b.layout.tp) return a.layout.tp < b.layout.tp;
  if (a.layout.pp != b.layout.pp) return a.layout.pp < b.layout.pp;
  if (a.layout.ep != b.layout.ep) return a.layout.ep < b.layout.ep;
  return a.precision_index < b.precision_index;
}

} // namespace

const char* to_string(RankBy rank_by) {
  switch (rank_by) {
  case RankBy::cost_per_token: return "cost_per_token";
  case RankBy::cost_per_request: return "cost_per_request";
  case RankBy::latency: return "latency";
  case RankBy::gpus: return "gpus";
  case RankBy::energy: return "energy";
  }
  return "cost_per_token";
}

const char* to_string(RejectReason reason) {
  switch (reason) {
  case RejectReason::none: return "none";
  case RejectReason::precision_unsupported: return "precision_unsupported";
  case RejectReason::layout: return "layout";
  case RejectReason::does_not_fit: return "does_not_fit";
  case RejectReason::ttft: return "ttft";
  case RejectReason::tpot: return "tpot";
  case RejectReason::e2e: return "e2e";
  case RejectReason::throughput: return "throughput";
  case RejectReason::budget: return "budget";
  case RejectReason::no_price: return "no_price";
  case RejectReason::deadline: return "deadline";
  case RejectReason::power: return "power";
  }
  return "none";
}

std::vector<Deployment> replica_layouts(const ModelSpec& model, const Gpu& gpu, const SearchPolicy& policy) {
  std::vector<Deployment> out;
  const int node = std::max(1, gpu.gpus_per_node);
  const int limit = std::min(policy.max_gpus_per_replica, node * std::max(1, policy.max_nodes));
  for (int n = 1; n <= limit; n *= 2) {
    for (int tp = 1; tp <= n && tp <= node; tp *= 2) {
      const int pp = n / tp;
      if (model.heads > 0 && model.heads % tp != 0) continue; // TP splits whole attention heads
      if (pp > 1 && pp > model.layers) continue;
      // PP is only worth it where TP cannot go further (across nodes) or as an explicit option
      // at the node boundary; keep pp ≤ nodes·2 to avoid deep pipelines for serving.
      if (pp > 2 * std::max(1, policy.max_nodes) && tp < node) continue;
      Deployment dep;
      dep.tp = tp;
      dep.pp = pp;
      dep.gpus = n;
      out.push_back(dep);
      if (model.moe.experts > 0 && tp > 1 && model.moe.experts % tp == 0) {
        dep.ep = tp; // expert parallel across the TP group (vLLM --enable-expert-parallel)
        out.push_back(dep);
      }
    }
  }
  return out;
}

Candidate evaluate_candidate(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                             const Gpu& gpu, const Deployment& layout, double usd_per_gpu_hour,
                             const SearchPolicy& policy) {
  Candidate c;
  c.layout = layout;
  c.layout.gpus = layout.tp * layout.pp;
  c.price_known = usd_per_gpu_hour > 0.0;
  const double price = c.price_known ? usd_per_gpu_hour : 0.0;
  c.estimate = estimate_inference(model, workload, gpu, c.layout, policy.engine, &sla, price);
  InferenceEstimate& e = c.estimate;
  auto reject = [&](RejectReason r, double value, double limit) {
    c.rejection = {r, value, limit};
    return c;
  };
  if (!e.precision_supported) return reject(RejectReason::precision_unsupported, 0.0, 0.0);
  if (!e.link_known) return reject(RejectReason::layout, 0.0, 0.0);
  if (!e.memory.fits)
    return reject(RejectReason::does_not_fit, e.memory.per_gpu_bytes, e.memory.usable_per_gpu_bytes);
  if (sla.ttft_ms && e.ttft_s * 1e3 > *sla.ttft_ms)
    return reject(RejectReason::ttft, e.ttft_s * 1e3, *sla.ttft_ms);
  if (sla.tpot_ms && e.tpot_s * 1e3 > *sla.tpot_ms)
    return reject(RejectReason::tpot, e.tpot_s * 1e3, *sla.tpot_ms);
  if (sla.e2e_ms && e.e2e_s * 1e3 > *sla.e2e_ms) return reject(RejectReason::e2e, e.e2e_s * 1e3, *sla.e2e_ms);

  // Replicas for the throughput SLA with headroom (methodology §6.3).
  const double headroom = 1.0 + policy.throughput_headroom;
  double replicas = 1.0;
  if (sla.requests_per_s && e.requests_per_s > 0.0) {
    replicas = std::max(replicas, std::ceil(*sla.requests_per_s * headroom / e.requests_per_s));
  }
  if (sla.output_tokens_per_s && e.output_tokens_per_s > 0.0) {
    replicas = std::max(replicas, std::ceil(*sla.output_tokens_per_s * headroom / e.output_tokens_per_s));
  }
  if (replicas > k_max_replicas) {
    const double served = sla.requests_per_s ? e.requests_per_s : e.output_tokens_per_s;
    const double wanted = sla.requests_per_s ? *sla.requests_per_s : *sla.output_tokens_per_s;
    return reject(RejectReason::throughput, served * k_max_replicas, wanted);
  }
  c.replicas = static_cast<int>(replicas);
  if (c.replicas > 1) {
    Deployment whole = c.layout;
    whole.gpus = c.total_gpus();
    InferenceWorkload fixed = workload;
    fixed.concurrency = e.concurrency;
    e = estimate_inference(model, fixed, gpu, whole, policy.engine, &sla, price);
  }
  // At a stated load, cost is what the deployment costs over the tokens it actually serves.
  if (sla.requests_per_s && c.price_known) {
    const double served_rps = std::min(*sla.requests_per_s, e.requests_per_s);
    e.usd_per_request = e.usd_per_hour / k_seconds_per_hour / served_rps;
    e.usd_per_million_output_tokens = e.usd_per_request / d(workload.output_tokens) * 1e6;
  }
  if (sla.budget_usd && c.price_known && e.usd_per_hour > *sla.budget_usd) {
    return reject(RejectReason::budget, e.usd_per_hour, *sla.budget_usd);
  }
  const CandidateEnergy energy = candidate_energy(c, gpu, sla, PowerModel{});
  c.power_watts = energy.power_watts;
  c.joules_per_output_token = energy.joules_per_output_token;
  if (!meets_power_cap(c.power_watts, policy.max_power_kw))
    return reject(RejectReason::power, c.power_watts / 1e3, policy.max_power_kw);
  c.meets_sla = true;
  return c;
}

bool ranks_before(const Candidate& a, const Candidate& b, RankBy rank_by, std::span<const Gpu> gpus) {
  if (a.meets_sla != b.meets_sla) return a.meets_sla;
  if (!a.meets_sla) {
    const int ra = reason_order(a.rejection.reason);
    const int rb = reason_order(b.rejection.reason);
    if (ra != rb) return ra < rb;
    const double ca = a.rejection.limit > 0.0 ? a.rejection.value / a.rejection.limit : 0.0;
    const double cb = b.rejection.limit > 0.0 ? b.rejection.value / b.rejection.limit : 0.0;
    if (ca != cb) return ca < cb;
  }
  const double ka = rank_key(a, rank_by);
  const double kb = rank_key(b, rank_by);
  if (ka != kb) return ka < kb;
  if (a.estimate.tpot_s != b.estimate.tpot_s) return a.estimate.tpot_s < b.estimate.tpot_s;
  if (a.estimate.ttft_s != b.estimate.ttft_s) return a.estimate.ttft_s < b.estimate.ttft_s;
  if (a.total_gpus() != b.total_gpus()) return a.total_gpus() < b.total_gpus();
  return layout_before(a, b, gpus);
}

Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus, std::span<const double> prices,
                         const SearchPolicy& policy) {
  Recommendation out;
  for (std::size_t pi = 0; pi < models.size(); ++pi) {
    for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
      for (const Deployment& layout : replica_layouts(models[pi].model, gpus[gi], policy)) {
        Candidate c = evaluate_candidate(models[pi], workload, sla, gpus[gi], layout, prices[gi], policy);
        c.gpu_index = gi;
        c.precision_index = pi;
        (c.meets_sla ? out.candidates : out.rejected).push_back(c);
      }
    }
  }
  auto order = [&](const Candidate& a, const Candidate& b) {
    return ranks_before(a, b, policy.rank_by, gpus);
  };
  std::sort(out.candidates.begin(), out.candidates.end(), order);
  std::sort(out.rejected.begin(), out.rejected.end(), order);
  for (std::size_t i = 0; i < out.candidates.size(); ++i)
    out.candidates[i].rank = i + 1;
  return out;
}

CapacityPlan plan_capacity(const Candidate& c, const PreparedModel& model, const Sla& sla,
                           const CapacityPolicy& policy) {
  (void)model;
  CapacityPlan plan;
  const double per_replica_rps = c.estimate.requests_per_s / std::max(1, c.replicas);
  const double peak = sla.requests_per_s.value_or(per_replica_rps * policy.target_utilization);
  const double average = sla.average_requests_per_s.value_or(peak);
  const double growth = sla.growth_factor.value_or(1.0);
  const double capacity = std::max(1e-12, per_replica_rps * policy.target_utilization);
  plan.replicas_peak =
      static_cast<int>(std::min<double>(k_max_replicas, std::ceil(peak * growth / capacity)));
  plan.replicas_average = static_cast<int>(std::min<double>(k_max_replicas, std::ceil(average / capacity)));
  // Cold start: each replica pulls its weights from storage, then starts the engine.
  const double replica_weight_bytes = c.estimate.memory.weights_bytes * c.layout.tp * c.layout.pp;
  plan.cold_start_s =
      replica_weight_bytes / (policy.storage_gb_per_s * k_bytes_per_gb) + policy.engine_start_s;
  const bool latency_critical = sla.ttft_ms.has_value() || sla.tpot_ms.has_value() || sla.e2e_ms.has_value();
  // Scale to zero pays when the average load keeps less than a tenth of one replica busy and no
  // TTFT target forbids a cold start on the first request after idling.
  const bool ttft_allows_cold = !sla.ttft_ms || *sla.ttft_ms >= plan.cold_start_s * 1e3;
  plan.scale_to_zero = average < 0.1 * per_replica_rps && ttft_allows_cold;
  plan.min_replicas = plan.scale_to_zero ? 0 : std::max(1, plan.replicas_average);
  plan.max_replicas = std::max(plan.min_replicas, plan.replicas_peak) + 1; // +1 spare for availability
  plan.scaling_signal = peak >= 2.0 * average ? "queue_depth" : "kv_cache_utilization";
  if (latency_critical) {
    plan.tier = "on_demand";
    plan.why = "latency targets are set: use dedicated on-demand capacity, spot preemption would break them";
  } else {
    plan.tier = "spot";
    plan.why = "no latency target: batch work tolerates preemption, so spot capacity is cheaper";
  }
  return plan;
}

} // namespace rightsize
