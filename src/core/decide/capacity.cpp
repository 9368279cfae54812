// The capacity plan of a candidate: replicas at the peak and the average, autoscaling bounds, cold
// start, the in-flight cap and the autoscaler's target (docs/methodology.md "Capacity planning",
// docs/deploy.md). One plan for the `capacity:` line of recommend and for every emitted artifact.
#include <algorithm>
#include <cmath>

#include "core/decide/sizing.hpp"
#include "core/numeric.hpp"
#include "rightsize/load_model.hpp"
#include "rightsize/search.hpp"
#include "rightsize/units.hpp"

namespace rightsize {

using core::d;
using detail::k_max_replicas;

namespace {

// The p99 of an open loop's in-flight count per replica, before the KV cache bounds it: the p99 of
// Poisson(L / ranks) per attention-DP rank, rounded up, times the ranks.
double open_loop_p99_per_replica(const InferenceEstimate& e, int attention_dp) {
  const double ranks = std::max(1.0, d(attention_dp));
  return std::ceil(
             load::poisson_in_flight_quantile(std::max(0.0, e.in_flight) / ranks, k_in_flight_cap_quantile)) *
         ranks;
}

} // namespace

bool in_flight_p99_fits(const InferenceEstimate& e, int attention_dp) {
  return !e.open_loop || open_loop_p99_per_replica(e, attention_dp) <= std::max(1.0, d(e.max_concurrency));
}

// The engine's in-flight cap and the autoscaler's target per replica (methodology "Capacity plan").
// Closed loop: the cap is the SLA-meeting concurrency the estimate was sized at; the capacity plan
// loads a replica to 1 / (1 + headroom) of that rate, so (Little's law at a fixed latency) the same
// share of its in-flight requests is the target. Open loop (Poisson arrivals): the estimate holds
// the mean in flight L at the peak rate each replica carries; the count in flight is Poisson(L)
// (load::poisson_in_flight_quantile), so the cap is its p99, L + z·√L per attention-DP rank, and
// the target is L itself: the autoscaler adds a replica only past the planned peak. Both at most
// the sequences the KV cache holds at the full context (a larger cap would preempt, §2.4).
void plan_in_flight(const Candidate& c, double headroom, CapacityPlan& plan) {
  const InferenceEstimate& e = c.estimate;
  const double kv_slots = std::max(1.0, d(e.max_concurrency));
  if (e.open_loop) {
    const double ranks = std::max(1.0, d(c.layout.attention_dp));
    const double mean = std::max(0.0, e.in_flight);
    const double p99 = open_loop_p99_per_replica(e, c.layout.attention_dp);
    const double cap = std::clamp(p99, 1.0, kv_slots);
    plan.in_flight_cap_per_replica = static_cast<std::int64_t>(cap);
    plan.in_flight_cap_kv_bound = p99 > kv_slots;
    plan.in_flight_queue_probability = load::poisson_above_probability(mean / ranks, cap / ranks);
    plan.in_flight_target_per_replica = std::clamp(std::ceil(mean), 1.0, cap);
    return;
  }
  const double cap = std::clamp(d(e.concurrency), 1.0, kv_slots);
  plan.in_flight_cap_per_replica = static_cast<std::int64_t>(cap);
  plan.in_flight_target_per_replica = std::max(1.0, std::floor(cap / (1.0 + std::max(0.0, headroom))));
}

CapacityPolicy capacity_policy_for(const SearchPolicy& search, PricingModel pricing) {
  CapacityPolicy p;
  p.throughput_headroom = search.throughput_headroom;
  p.pricing = pricing;
  return p;
}

CapacityPlan plan_capacity(const Candidate& c, const Sla& sla, const CapacityPolicy& policy) {
  CapacityPlan plan;
  // One sizing rule with the search (methodology "Capacity planning"): a replica is planned for
  // the throughput it was sized on (pessimistic end at --confidence p90) divided by 1 + headroom,
  // so the peak replica count IS the costed one.
  const double per_replica = std::max(1e-12, c.sizing_requests_per_s_per_replica);
  const double headroom = 1.0 + policy.throughput_headroom;
  const double peak = sla.requests_per_s.value_or(c.served_requests_per_s);
  const double average = std::min(peak, sla.average_requests_per_s.value_or(peak));
  const double growth = std::max(1.0, sla.growth_factor.value_or(1.0));
  auto replicas_for = [&](double rps) {
    return static_cast<int>(std::min(detail::copies_for_rate(rps, per_replica, headroom), d(k_max_replicas)));
  };
  plan.replicas_peak = c.replicas;
  // Open loop: replicas the search added beyond the load's to meet a latency percentile at the rate
  // (evaluate_candidate) stay at the average too; at a lower rate they are a safe upper bound, and
  // at the peak the plan is the costed deployment.
  const int latency_extra = c.estimate.open_loop ? std::max(0, c.replicas - replicas_for(peak)) : 0;
  plan.replicas_average = std::min(c.replicas, replicas_for(average) + latency_extra);
  // Cold start: each replica pulls its weights from storage, then starts the engine.
  const double replica_weight_bytes = c.estimate.memory.weights_bytes * c.layout.gpus_per_replica();
  plan.cold_start_s =
      replica_weight_bytes / (policy.storage_gb_per_s * k_bytes_per_gb) + policy.engine_start_s;
  const bool latency_critical = sla.ttft_ms.has_value() || sla.tpot_ms.has_value() || sla.e2e_ms.has_value();
  // Scale to zero pays when the average load keeps less than a tenth of one replica busy and no
  // TTFT target forbids a cold start on the first request after idling.
  const bool ttft_allows_cold = !sla.ttft_ms || *sla.ttft_ms >= plan.cold_start_s * 1e3;
  plan.scale_to_zero = average < 0.1 * per_replica && ttft_allows_cold;
  plan.min_replicas = plan.scale_to_zero ? 0 : plan.replicas_average;
  // Growth is planned on top of today's peak: the autoscaler may grow to it (not costed today).
  plan.max_replicas = std::max({plan.min_replicas, plan.replicas_peak, replicas_for(peak * growth)});
  // One signal for every model kind, the one the emitted autoscalers read: requests in flight per
  // replica (the engine's running + waiting gauges), compared with DeployPlan's in-flight target
  // (methodology "Capacity plan"; docs/deploy.md). KV-cache utilization says nothing of a queue, and
  // an image or encoder model has no KV cache.
  plan.scaling_signal = "requests_in_flight";
  plan_in_flight(c, policy.throughput_headroom, plan);
  switch (policy.pricing) {
  case PricingModel::on_prem:
    plan.tier = "on_prem";
    plan.why =
        "priced as owned hardware (--pricing on_prem): buy for the peak replicas, autoscaling frees GPUs "
        "for other work";
    break;
  case PricingModel::spot:
    plan.tier = "spot";
    // Latency targets keep the average replicas on demand; only the burst above it runs on spot.
    plan.spot_replicas = latency_critical ? plan.replicas_peak - plan.replicas_average : plan.replicas_peak;
    plan.why = latency_critical ? "priced at spot (--pricing spot); latency targets are set, so keep the "
                                  "average replicas on on-demand capacity: preemption would break them"
                                : "priced at spot (--pricing spot): batch work tolerates preemption";
    break;
  case PricingModel::on_demand:
    if (latency_critical) {
      plan.tier = "on_demand";
      plan.why =
          "latency targets are set: use dedicated on-demand capacity, spot preemption would break them";
    } else {
      plan.tier = "on_demand";
      plan.why = "priced on demand; no latency target is set, so spot capacity (--pricing spot) would be "
                 "cheaper for this batch work";
    }
    break;
  }
  return plan;
}

TierBill bill_tier(const CapacityPlan& plan, const Candidate& c, const GpuPrice& on_demand,
                   const GpuPrice& spot) {
  TierBill bill;
  bill.spot_replicas = std::clamp(plan.spot_replicas, 0, plan.replicas_peak);
  bill.on_demand_replicas = plan.replicas_peak - bill.spot_replicas;
  bill.on_demand_usd_per_gpu_hour = std::max(0.0, on_demand.usd_per_gpu_hour);
  bill.spot_usd_per_gpu_hour = std::max(0.0, spot.usd_per_gpu_hour);
  // Each tier is its own rental (methodology §7 "The bill of the tier"): whole instances of that
  // tier's providers for that tier's replicas, as the estimate bills the whole deployment.
  const int per_replica = c.layout.gpus_per_replica();
  bill.on_demand = bill_instances(bill.on_demand_replicas, per_replica, on_demand, c.layout.tp);
  bill.spot = bill_instances(bill.spot_replicas, per_replica, spot, c.layout.tp);
  bill.known = (bill.on_demand_replicas == 0 || bill.on_demand_usd_per_gpu_hour > 0.0) &&
               (bill.spot_replicas == 0 || bill.spot_usd_per_gpu_hour > 0.0);
  bill.usd_per_hour = bill.known ? bill.on_demand.usd_per_hour + bill.spot.usd_per_hour : 0.0;
  return bill;
}

} // namespace rightsize
