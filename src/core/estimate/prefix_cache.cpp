// Prefix caching and the KV offload tier (methodology §3.9). Pure arithmetic on a Setup.
#include "core/estimate/prefix_cache.hpp"

#include <algorithm>
#include <cmath>

#include "rightsize/units.hpp"

namespace rightsize::detail {
namespace {

// Engines cache whole KV blocks only: vLLM hashes full blocks of block_size tokens, SGLang's radix
// tree matches pages, TensorRT-LLM reuses full blocks of tokens_per_block [VLLM-APC][SGL-RADIX].
double whole_blocks(double tokens, double block) {
  return std::floor(tokens / block + 1e-9) * block;
}

// Mean prompt tokens a request finds cached, and the history a waiting conversation keeps, for a
// shared prefix of P tokens and conversations of T turns (methodology §3.9, "Hits from structure").
// The prompt of turn j repeats the j − 1 previous turns (their new text u and answers O) and adds u:
// ISL_j = (j − 1)(u + O) + u, so the workload's mean prompt ISL = u + (T − 1)(u + O)/2 gives
// u = (2·ISL − (T − 1)·O)/(T + 1). Turn 1 finds P cached, turn j ≥ 2 its history (j − 1)(u + O):
// c = P/T + (T − 1)(u + O)/2. Between turns j and j + 1 a conversation keeps j(u + O) tokens; over
// its T gaps (the last keeps nothing) (T − 1)(u + O)/2 on average.
struct Structure {
  double cached;   // c, before block rounding
  double retained; // per waiting conversation
};

Structure from_structure(const PrefixCache& pc, double isl, double osl) {
  const double turns = std::max(1.0, static_cast<double>(pc.turns));
  const double prefix = d(pc.shared_prefix_tokens);
  const double u = (2.0 * isl - (turns - 1.0) * osl) / (turns + 1.0);
  const double history = (turns - 1.0) * (u + osl) / 2.0;
  return {prefix / turns + history, history};
}

// Load bandwidth of the tier per GPU, bytes/s: host memory over the GPU's host link; NVMe at the
// node's read bandwidth shared by its GPUs, and never above the GPU's host link.
double tier_bytes_per_s(const Setup& s, const KvOffload& off) {
  const double host = host_link_bandwidth(*s.gpu);
  double gb_per_s = host;
  if (off.tier == OffloadTier::nvme) {
    const double share = off.read_gb_per_s / d(std::max(1, s.gpu->gpus_per_node));
    gb_per_s = host > 0.0 ? std::min(host, share) : share;
  }
  return gb_per_s_to_bytes_per_s(gb_per_s) * s.link_efficiency;
}

// A tier sized for a target hit: the share f of the history it needs held, (target − P)/(c − P),
// less what HBM holds; all of what HBM cannot hold without a target (methodology §3.9).
double sized_tier_bytes(const PrefixPlan& p, const PrefixServe& sv) {
  const double history = p.requested_tokens - p.shared_tokens;
  if (p.target_tokens <= 0.0 || history <= 0.0) return sv.tier_needed_bytes;
  const double share = std::clamp((p.target_tokens - p.shared_tokens) / history, 0.0, 1.0);
  return std::max(0.0, share * sv.working_set_bytes - sv.hbm_cache_bytes);
}

} // namespace

double cached_kv_bytes_gpu(const Setup& s, double tokens) {
  return std::max(0.0, seq_kv_bytes_gpu(s, tokens) - seq_kv_bytes_gpu(s, 0.0));
}

PrefixPlan plan_prefix_cache(const Setup& s, const InferenceWorkload& w, const Deployment& dep,
                             double kv_budget_bytes, double per_seq_kv_bytes) {
  PrefixPlan p;
  p.kv_pool_bytes = kv_budget_bytes;
  p.per_seq_kv_bytes = per_seq_kv_bytes;
  const PrefixCache& pc = w.prefix_cache;
  if (!s.decoder || !pc.enabled() || w.input_tokens <= 1) return p;
  p.active = true;
  const double isl = d(w.input_tokens);
  const double block = d(std::max<std::int64_t>(1, s.engine->block_tokens));
  // At least the last prompt token is computed: its logits give the first output token.
  const double most = isl - 1.0;
  if (pc.hit_rate) {
    p.requested_tokens = whole_blocks(std::min(most, *pc.hit_rate * isl), block);
    p.working_set_known = pc.working_set_tokens > 0;
    p.working_set_tokens = d(pc.working_set_tokens);
  } else {
    const Structure st = from_structure(pc, isl, d(w.output_tokens));
    p.shared_tokens = whole_blocks(std::min(most, d(pc.shared_prefix_tokens)), block);
    p.requested_tokens = std::max(p.shared_tokens, whole_blocks(std::min(most, st.cached), block));
    p.retained_tokens = std::max(0.0, st.retained - p.shared_tokens);
    const double ranks = d(std::max(1, dep.replicas())) * d(std::max(1, dep.attention_dp));
    p.conversations_rank = d(pc.conversations) / ranks;
    // Sequences in flight share the prefix's blocks: one copy in the pool, none per sequence.
    const double shared_bytes = cached_kv_bytes_gpu(s, p.shared_tokens);
    p.kv_pool_bytes -= shared_bytes;
    p.per_seq_kv_bytes = std::max(0.0, per_seq_kv_bytes - shared_bytes);
  }
  const KvOffload& off = w.kv_offload;
  p.tier = off.tier;
  p.tier_sized = off.sized;
  p.target_tokens = off.target_hit_rate * isl;
  p.tier_bytes = off.bytes / d(std::max(1, dep.gpus_per_replica()));
  if (off.tier != OffloadTier::none) p.tier_bytes_per_s = tier_bytes_per_s(s, off);
  return p;
}

// The working set is held by HBM's free KV blocks first and the tier second; with references
// spread evenly over it, an LRU cache of C bytes over a working set of W hits C/W of the time (the
// independent reference model with uniform popularity [FAGIN77]), so each tier serves its share.
PrefixServe serve_prefix_cache(const Setup& s, const PrefixPlan& p, double batch) {
  PrefixServe out;
  if (!p.active) return out;
  const double history = p.requested_tokens - p.shared_tokens;
  const double waiting = std::max(0.0, p.conversations_rank - batch);
  out.working_set_bytes = p.working_set_tokens > 0.0 ? cached_kv_bytes_gpu(s, p.working_set_tokens)
                                                     : waiting * cached_kv_bytes_gpu(s, p.retained_tokens);
  const double free = std::max(0.0, p.kv_pool_bytes - batch * p.per_seq_kv_bytes);
  out.hbm_cache_bytes = std::min(free, out.working_set_bytes);
  out.tier_needed_bytes = out.working_set_bytes - out.hbm_cache_bytes;
  double held = 1.0, from_tier = 0.0;
  if (out.working_set_bytes > 0.0) {
    held = out.hbm_cache_bytes / out.working_set_bytes;
    if (p.tier != OffloadTier::none && p.tier_bytes_per_s > 0.0) {
      out.tier_used_bytes =
          std::min(out.tier_needed_bytes, p.tier_sized ? sized_tier_bytes(p, out) : p.tier_bytes);
      from_tier = out.tier_used_bytes / out.working_set_bytes;
    }
  }
  out.cached_tokens = std::floor(p.shared_tokens + history * (held + from_tier) + 1e-9);
  out.tier_tokens = history * from_tier;
  // The request waits for its blocks to arrive before it is scheduled (vLLM's KV connector holds it
  // in WAITING_FOR_REMOTE_KVS [VLLM-KVC]); each GPU loads its own shard over its own link.
  if (out.tier_tokens > 0.0) out.load_s = cached_kv_bytes_gpu(s, out.tier_tokens) / p.tier_bytes_per_s;
  return out;
}

Setup at_batch(const Setup& s, double batch) {
  if (s.prefix == nullptr || !s.prefix->active) return s;
  Setup out = s;
  const PrefixServe serve = serve_prefix_cache(s, *s.prefix, std::max(1.0, batch));
  out.cached_tokens = serve.cached_tokens;
  out.tier_load_s = serve.load_s;
  return out;
}

double new_prompt_tokens(const Setup& s, const InferenceWorkload& w) {
  return std::max(1.0, d(w.input_tokens) - s.cached_tokens);
}

} // namespace rightsize::detail
