#pragma once
// Prefix caching and the KV offload tier (methodology §3.9): which prompt tokens a request finds
// cached, how much of the cache's working set HBM and the offload tier hold at a given batch, and
// what loading the tier's share costs. Core-private; pure.
#include "core/estimate/inference_detail.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::detail {

/// The cache's demand and capacity for one estimate, independent of the batch. All tokens are per
/// request or per attention-DP rank; all bytes per GPU.
struct PrefixPlan {
  bool active = false;
  double requested_tokens = 0.0;   ///< c: prompt tokens a request finds cached if nothing is evicted
  double shared_tokens = 0.0;      ///< of them, the shared prefix (block multiple): always resident
  double retained_tokens = 0.0;    ///< history a waiting conversation keeps (beyond the shared prefix)
  double conversations_rank = 0.0; ///< conversations per attention-DP rank; 0 = the clients in flight
  double working_set_tokens = 0.0; ///< hit-rate form: distinct cached tokens per rank; 0 = unknown
  bool working_set_known = true;   ///< false: a hit rate without a working set (capacity not checked)
  double kv_pool_bytes = 0.0;      ///< KV budget per GPU, less the shared prefix's one copy
  double per_seq_kv_bytes = 0.0;   ///< one in-flight sequence's KV (the shared prefix excluded)
  OffloadTier tier = OffloadTier::none;
  bool tier_sized = false;       ///< the tier is sized to what HBM cannot hold
  double target_tokens = 0.0;    ///< sized for this many cached tokens per request; 0 = all
  double tier_bytes = 0.0;       ///< the tier per GPU when given
  double tier_bytes_per_s = 0.0; ///< load bandwidth per GPU, after the link efficiency
};

/// What the cache serves at one batch (sequences in flight per attention-DP rank).
struct PrefixServe {
  double cached_tokens = 0.0;     ///< per request, whole tokens
  double tier_tokens = 0.0;       ///< of them, loaded from the offload tier
  double load_s = 0.0;            ///< loading them, per request (before its prefill)
  double working_set_bytes = 0.0; ///< per GPU: the history the waiting conversations keep
  double hbm_cache_bytes = 0.0;   ///< per GPU: free KV blocks holding part of it
  double tier_needed_bytes = 0.0; ///< per GPU: the part HBM cannot hold
  double tier_used_bytes = 0.0;   ///< per GPU: the part the tier holds
};

/// KV bytes `tokens` cached tokens hold on one GPU (no per-sequence state).
double cached_kv_bytes_gpu(const Setup& s, double tokens);

/// The plan of `w.prefix_cache` and `w.kv_offload` for this setup; `kv_budget_bytes` and
/// `per_seq_kv_bytes` are the memory budget's before the shared prefix is taken out (the plan says
/// how much it takes). The deployment's replicas and attention-DP ranks share the conversations;
/// its GPUs per replica share the tier.
PrefixPlan plan_prefix_cache(const Setup& s, const InferenceWorkload& w, const Deployment& dep,
                             double kv_budget_bytes, double per_seq_kv_bytes);

/// What the plan serves with `batch` sequences in flight per rank.
PrefixServe serve_prefix_cache(const Setup& s, const PrefixPlan& plan, double batch);

/// The setup with the cached tokens and the tier's load time of `batch` in flight (a copy; `s`
/// itself when no cache is planned).
Setup at_batch(const Setup& s, double batch);

/// Prompt tokens a request prefills: its prompt less what it finds cached.
double new_prompt_tokens(const Setup& s, const InferenceWorkload& w);

} // namespace rightsize::detail
