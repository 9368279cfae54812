// Prefix caching and the KV offload tier in estimate output (methodology §3.9).
#include "render/prefix_cache_render.hpp"

#include <fmt/format.h>

#include "render/render.hpp"
#include "rightsize/units.hpp"

namespace rightsize::cli {

std::string prefix_cache_source(const InferenceWorkload& w) {
  const PrefixCache& pc = w.prefix_cache;
  if (!pc.enabled()) return "";
  if (pc.hit_rate) return fmt::format("the hit rate given, {:.0f} %", *pc.hit_rate * 100.0);
  std::vector<std::string> parts;
  if (pc.shared_prefix_tokens > 0)
    parts.push_back(fmt::format("a {}-token shared prefix", pc.shared_prefix_tokens));
  if (pc.turns > 1) {
    parts.push_back(fmt::format("{} turns per conversation", pc.turns));
    if (pc.conversations > 0)
      parts.push_back(fmt::format("{} conversations kept between turns", pc.conversations));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

namespace {

// How the tier's size came about: given, sized to what HBM cannot hold, or sized for a target hit
// (capped at what the structure gives).
std::string tier_basis(const KvOffload& off, const InferenceEstimate::PrefixCacheFigures& f) {
  if (!off.sized) return "given";
  if (off.target_hit_rate <= 0.0) return "sized to what HBM cannot hold";
  if (off.target_hit_rate > f.requested_hit_rate + 1e-9)
    return fmt::format("the target {:.0f} % is above the {:.0f} % the structure gives: sized for that",
                       off.target_hit_rate * 100.0, f.requested_hit_rate * 100.0);
  return fmt::format("sized for a {:.0f} % hit", off.target_hit_rate * 100.0);
}

} // namespace

std::vector<std::string> prefix_cache_lines(const InferenceWorkload& w, const InferenceEstimate& e,
                                            int gpus_per_replica) {
  const InferenceEstimate::PrefixCacheFigures& f = e.prefix_cache;
  std::vector<std::string> out;
  if (!f.active) return out;
  out.push_back(
      fmt::format("cache    {:.0f} % of the {} prompt tokens found cached, {:.0f} per request ({}){} "
                  "(docs/methodology.md §3.9)",
                  f.hit_rate * 100.0, w.input_tokens, f.cached_tokens, prefix_cache_source(w),
                  f.hit_rate + 1e-9 < f.requested_hit_rate
                      ? fmt::format("; {:.0f} % if nothing were evicted", f.requested_hit_rate * 100.0)
                      : ""));
  if (!f.working_set_known) {
    out.emplace_back("         capacity not checked: give prefix_cache.working_set_tokens to size it");
  } else if (f.working_set_bytes > 0.0) {
    out.push_back(fmt::format("         working set {} per GPU beyond the requests in flight; HBM's free KV "
                              "blocks hold {}, {} do not fit",
                              format_gb(f.working_set_bytes), format_gb(f.hbm_cache_bytes),
                              format_gb(f.tier_needed_bytes)));
  }
  if (w.kv_offload.tier != OffloadTier::none) {
    const double replica_gib = f.tier_bytes * gpus_per_replica / k_bytes_per_gib;
    out.push_back(
        fmt::format("offload  {} tier of {:.1f} GiB per replica ({}), holds {} per GPU; loads {:.0f} "
                    "tokens per request at {:.3g} GB/s per GPU: {:.2f} ms in TTFT",
                    to_string(w.kv_offload.tier), replica_gib, tier_basis(w.kv_offload, f),
                    format_gb(f.tier_used_bytes), f.tier_tokens, f.tier_gb_per_s, f.tier_load_s * 1e3));
  }
  return out;
}

nlohmann::json prefix_cache_json(const InferenceWorkload& w, const InferenceEstimate& e,
                                 int gpus_per_replica) {
  const InferenceEstimate::PrefixCacheFigures& f = e.prefix_cache;
  if (!f.active) return nullptr;
  nlohmann::json out = {{"hit_rate", round_sig(f.hit_rate)},
                        {"hit_rate_nothing_evicted", round_sig(f.requested_hit_rate)},
                        {"cached_tokens_per_request", round_sig(f.cached_tokens)},
                        {"shared_prefix_bytes_per_gpu", json_bytes(f.shared_prefix_bytes)},
                        {"working_set_known", f.working_set_known},
                        {"working_set_bytes_per_gpu", json_bytes(f.working_set_bytes)},
                        {"hbm_cache_bytes_per_gpu", json_bytes(f.hbm_cache_bytes)},
                        {"tier_needed_bytes_per_gpu", json_bytes(f.tier_needed_bytes)}};
  if (w.kv_offload.tier != OffloadTier::none) {
    out["offload"] = {{"tier", to_string(w.kv_offload.tier)},
                      {"sized", w.kv_offload.sized},
                      {"target_hit_rate", w.kv_offload.target_hit_rate > 0.0
                                              ? nlohmann::json(round_sig(w.kv_offload.target_hit_rate))
                                              : nlohmann::json()},
                      {"bytes_per_replica", json_bytes(f.tier_bytes * gpus_per_replica)},
                      {"used_bytes_per_gpu", json_bytes(f.tier_used_bytes)},
                      {"tokens_per_request", round_sig(f.tier_tokens)},
                      {"gb_per_s_per_gpu", round_sig(f.tier_gb_per_s)},
                      {"load_s_per_request", round_sig(f.tier_load_s)}};
  }
  return out;
}

} // namespace rightsize::cli
