#pragma once
// From a ranked candidate to the numbers a deployment needs: engine limits (max in-flight
// sequences, batched tokens, context, memory fraction, KV dtype, quantization) and autoscaler
// settings (replica bounds, per-replica load target, cooldowns). Plain values only: the engine
// command lines and Kubernetes manifests are written from this struct in src/cli/emit
// (docs/deploy.md, docs/methodology.md "Deployment settings").
#include <cstdint>

#include "rightsize/inference.hpp"
#include "rightsize/search.hpp"

namespace rightsize {

struct DeployPlan {
  /// Speculative decoding as the estimate assumed it (methodology §3.8); method none = off.
  Speculative speculative;
  /// Prefix caching as the estimate assumed it (methodology §3.9): the spec asked for cache hits, so
  /// the artifact turns reuse on explicitly; and the offload tier below HBM.
  bool prefix_cache = false;
  OffloadTier kv_offload = OffloadTier::none;
  double kv_offload_bytes_per_gpu = 0.0; ///< the tier per GPU, as given or sized by the estimate
  double kv_pool_bytes_per_gpu = 0.0;    ///< the GPU's KV pool (SGLang's host pool mirrors it)
  double kv_bytes_per_token_gpu = 0.0;   ///< KV one token holds on one GPU
  std::int64_t kv_block_tokens = 16;     ///< the engine's paged-KV block
  /// Multi-LoRA serving as the estimate assumed it (methodology §3.10); adapters 0 = off.
  LoraServing lora;
  // One replica.
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int expert_parallel = 1; ///< 1 = experts split by TP
  /// Attention data-parallel ranks per replica (the `adp` layout: one attention rank per TP group,
  /// experts over all of them); 1 = none. GPUs per replica = TP × PP × this.
  int attention_dp = 1;
  int gpus_per_replica = 1;
  /// Nodes one replica spans: ceil(gpus_per_replica / the GPU's gpus_per_node). Above 1 the replica
  /// is one leader pod plus nodes_per_replica − 1 worker pods (a LeaderWorkerSet).
  int nodes_per_replica = 1;
  /// GPUs each worker pod takes (a whole node) and the leader the rest, so the pods add up to
  /// gpus_per_replica on nodes_per_replica nodes; both equal gpus_per_replica on one node.
  int gpus_per_worker_pod = 1;
  int gpus_per_leader_pod = 1;
  // Engine limits.
  std::int64_t max_num_seqs = 1; ///< in-flight sequences per replica: the SLA-meeting concurrency
  /// The same cap per attention-DP rank, ceil(max_num_seqs / attention_dp), for engines that
  /// schedule each rank on its own (vLLM's DP engines, TensorRT-LLM's attention-DP ranks).
  std::int64_t max_num_seqs_per_rank = 1;
  std::int64_t kv_capacity_seqs = 1;       ///< sequences the KV cache holds at max_model_len
  std::int64_t max_num_batched_tokens = 1; ///< tokens per engine step (chunked prefill)
  /// The largest decode batch (per attention-DP rank) the estimate ran as a CUDA graph: the engine
  /// profile's limit for the GPU and TP (engine_for_gpu). SGLang's is given as --cuda-graph-max-bs,
  /// since its own default moved between releases; vLLM derives its from --max-num-seqs.
  std::int64_t cuda_graph_max_batch = 1;
  std::int64_t max_model_len_tokens = 1; ///< longest context admitted (an encoder: tokens per item)
  /// An encoder (ModelKind::vit) served for its output vectors, not generated tokens: the engines'
  /// pooling mode (vLLM --runner pooling, SGLang --is-embedding; docs/deploy.md).
  bool pooling = false;
  double gpu_memory_fraction = 0.9; ///< share of GPU memory the engine may use
  /// The same budget as a share of the memory left after weights, activations and runtime buffers
  /// (TensorRT-LLM's kv_cache_free_gpu_memory_fraction).
  double kv_free_memory_fraction = 0.9;
  /// The share of its remaining output a request reserves in the KV cache at admission
  /// (EngineConfig::kv_reserved_output_share); TensorRT-LLM: 1 GUARANTEED_NO_EVICT (its default),
  /// below 1 MAX_UTILIZATION. Read by the TensorRT-LLM writer only.
  double kv_reserved_output_share = 1.0;
  bool kv_cache_fp8 = false;
  /// Attention-DP balancing the estimate assumed (EngineConfig::adp_balance_*, methodology §3.2):
  /// steps a prompt may be held for the other ranks, then batching steps; 0 = none (no attention
  /// DP, or an engine without it).
  int adp_balance_timeout_steps = 0;
  int adp_balance_batching_steps = 0;
  NumberFormat weights = NumberFormat::bf16;
  /// The engine quantizes the weights as it loads them (a checkpoint of higher precision than
  /// `weights`), so the artifact names the method; false: the checkpoint is already in `weights` and
  /// its quantization_config tells the engine (set by the artifact's planner, app::plan_artifact).
  bool quantize_online = true;
  // Autoscaling (from plan_capacity).
  int initial_replicas = 1;
  int min_replicas = 1;
  int max_replicas = 2;
  bool scale_to_zero = false;
  /// In-flight requests (running + waiting) per replica at which to add one: the capacity plan's
  /// target (CapacityPlan::in_flight_target_per_replica), at least 1.
  double target_inflight_per_replica = 1.0;
  /// Sized for Poisson arrivals: max_num_seqs is the p99 of the in-flight count, and requests wait
  /// in the engine's queue with this probability (CapacityPlan); kv_bound: the KV cache, not the
  /// percentile, set the cap.
  bool open_loop = false;
  double mean_in_flight_per_replica = 0.0; ///< the estimate's mean in flight at the planned peak
  double in_flight_queue_probability = 0.0;
  bool in_flight_cap_kv_bound = false;
  int cold_start_s = 0;        ///< rounded up
  int scale_down_window_s = 0; ///< do not drop a replica faster than one can come back
  int idle_before_zero_s = 0;  ///< KEDA cooldownPeriod: idle time before scaling to zero
};

/// Deployment settings for `candidate` (its layout and estimate at the SLA-meeting concurrency)
/// under `plan` (plan_capacity's result for it). Pure.
DeployPlan plan_deployment(const Candidate& candidate, const PreparedModel& model, const Gpu& gpu,
                           const InferenceWorkload& workload, const EngineConfig& engine,
                           const CapacityPlan& plan);

/// The deployment settings `recommend --emit` and `check --emit` write for `candidate`: its capacity
/// plan under the search's capacity policy (capacity_policy_for, plan_capacity: the `capacity:` line
/// `recommend` prints), then plan_deployment. One derivation for both commands. Pure.
DeployPlan plan_candidate_deployment(const Candidate& candidate, const PreparedModel& model, const Gpu& gpu,
                                     const InferenceWorkload& workload, const Sla& sla,
                                     const SearchPolicy& policy, PricingModel pricing);

} // namespace rightsize
