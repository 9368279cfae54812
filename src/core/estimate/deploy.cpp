// Deployment settings from a candidate and its capacity plan (docs/methodology.md "Deployment
// settings", docs/deploy.md).
#include "rightsize/deploy.hpp"

#include <algorithm>
#include <cmath>

#include "rightsize/engine_profile.hpp"

namespace rightsize {

DeployPlan plan_deployment(const Candidate& c, const PreparedModel& model, const Gpu& gpu,
                           const InferenceWorkload& workload, const EngineConfig& engine,
                           const CapacityPlan& plan) {
  DeployPlan d;
  // "use": "auto" keeps speculative decoding only where the search found it pays (methodology §3.8).
  d.speculative = c.speculative_auto && !c.speculative_on ? Speculative{} : workload.speculative;
  d.lora = workload.lora;
  const InferenceEstimate::PrefixCacheFigures& cache = c.estimate.prefix_cache;
  d.prefix_cache = cache.active;
  d.kv_offload = cache.active ? workload.kv_offload.tier : OffloadTier::none;
  d.kv_offload_bytes_per_gpu = cache.tier_bytes;
  d.kv_bytes_per_token_gpu = cache.kv_bytes_per_token;
  d.kv_block_tokens = std::max<std::int64_t>(1, engine.block_tokens);
  const MemoryEstimate& mem = c.estimate.memory;
  d.kv_pool_bytes_per_gpu = std::max(0.0, mem.usable_per_gpu_bytes - mem.non_kv_bytes());
  d.tensor_parallel = c.layout.tp;
  d.pipeline_parallel = c.layout.pp;
  d.expert_parallel = c.layout.ep;
  d.attention_dp = std::max(1, c.layout.attention_dp);
  d.gpus_per_replica = c.layout.gpus_per_replica();
  const int node = std::max(1, gpu.gpus_per_node);
  d.nodes_per_replica = (d.gpus_per_replica + node - 1) / node;
  // Workers fill whole nodes; the leader (which runs the API server) takes what is left.
  d.gpus_per_worker_pod = d.nodes_per_replica > 1 ? node : d.gpus_per_replica;
  d.gpus_per_leader_pod = d.gpus_per_replica - (d.nodes_per_replica - 1) * d.gpus_per_worker_pod;
  // The engine's in-flight cap is the capacity plan's (plan_capacity: the SLA-meeting concurrency,
  // or under Poisson arrivals the p99 in flight), never more than the KV cache holds at the full
  // context (a larger cap would preempt, methodology §2.4).
  d.kv_capacity_seqs = std::max<std::int64_t>(1, c.estimate.max_concurrency);
  d.max_num_seqs = std::clamp<std::int64_t>(plan.in_flight_cap_per_replica, 1, d.kv_capacity_seqs);
  d.max_num_seqs_per_rank = (d.max_num_seqs + d.attention_dp - 1) / d.attention_dp;
  const EngineConfig resolved = engine_for_gpu(engine, gpu, c.layout.tp);
  d.max_num_batched_tokens = resolved.max_batched_tokens;
  d.cuda_graph_max_batch = resolved.cuda_graph_max_batch;
  if (d.attention_dp > 1 && engine.adp_balance_timeout_steps > 0.0) {
    d.adp_balance_timeout_steps = static_cast<int>(std::lround(engine.adp_balance_timeout_steps));
    d.adp_balance_batching_steps = static_cast<int>(std::lround(engine.adp_balance_batching_steps));
  }
  // An encoder's request is one item of tokens_per_item tokens and nothing is generated.
  d.pooling = model.model.kind == ModelKind::vit;
  d.max_model_len_tokens = d.pooling ? model.model.tokens_per_item : workload.context_tokens();
  d.gpu_memory_fraction = engine.usable_fraction;
  // TensorRT-LLM sizes its KV pool as a share of the memory free after the model is loaded: the
  // profile's u when it is stated that way (usable_fraction_of), else (usable − non-KV) /
  // (capacity − non-KV), the share that leaves the same KV budget.
  const MemoryEstimate& m = c.estimate.memory;
  const double non_kv_bytes = m.non_kv_bytes();
  const double free_bytes = m.capacity_per_gpu_bytes - non_kv_bytes;
  d.kv_free_memory_fraction =
      m.usable_fraction_of_free ? m.usable_fraction
      : free_bytes > 0.0        ? std::clamp((m.usable_per_gpu_bytes - non_kv_bytes) / free_bytes, 0.05, 0.95)
                                : 0.05;
  d.kv_reserved_output_share = engine.kv_reserved_output_share;
  d.kv_cache_fp8 = model.precision.kv_cache == NumberFormat::fp8;
  d.weights = model.precision.weights;
  d.min_replicas = plan.min_replicas;
  d.max_replicas = plan.max_replicas;
  d.initial_replicas = std::max(1, plan.replicas_average);
  d.scale_to_zero = plan.scale_to_zero;
  // The autoscaler's target is the capacity plan's, the figure its `capacity:` line states.
  d.target_inflight_per_replica = plan.in_flight_target_per_replica;
  d.in_flight_queue_probability = plan.in_flight_queue_probability;
  d.in_flight_cap_kv_bound = plan.in_flight_cap_kv_bound;
  d.open_loop = c.estimate.open_loop;
  d.mean_in_flight_per_replica = c.estimate.in_flight;
  d.cold_start_s = static_cast<int>(std::ceil(plan.cold_start_s));
  d.scale_down_window_s = d.cold_start_s;
  // Idle for at least five cold starts before releasing the last replica, so one cold start costs
  // at most a fifth of the idle time it saves; never below KEDA's 300 s default.
  d.idle_before_zero_s = std::max(300, 5 * d.cold_start_s);
  return d;
}

DeployPlan plan_candidate_deployment(const Candidate& c, const PreparedModel& model, const Gpu& gpu,
                                     const InferenceWorkload& workload, const Sla& sla,
                                     const SearchPolicy& policy, PricingModel pricing) {
  const CapacityPolicy capacity_policy = capacity_policy_for(policy, pricing);
  const CapacityPlan capacity = plan_capacity(c, sla, capacity_policy);
  return plan_deployment(c, model, gpu, workload, policy.engine, capacity);
}

} // namespace rightsize
