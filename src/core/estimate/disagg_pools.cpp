// The pools' own figures of a disaggregated deployment (methodology §3.6): the KV cache's handoff from
// a prefill worker to a decode worker (the shards it travels in, the link it takes, its bytes and its
// time), each pool's whole instances and the decode pool's sequences in flight. Pure arithmetic; no
// I/O.
#include <algorithm>
#include <cstdint>

#include "core/numeric.hpp"
#include "rightsize/disagg.hpp"
#include "rightsize/instances.hpp"
#include "rightsize/units.hpp"

namespace rightsize {
namespace {

using core::d;

} // namespace

int kv_shards(const PreparedModel& model, const Deployment& layout) {
  const std::int64_t heads = std::max<std::int64_t>(1, model.model.kv_heads);
  const int tp_shards = model.model.attention.kind == AttentionKind::mla
                            ? 1
                            : static_cast<int>(std::min<std::int64_t>(std::max(1, layout.tp), heads));
  return std::max(1, layout.pp) * tp_shards;
}

KvLink kv_transfer_link(const Gpu& prefill_gpu, int prefill_worker_gpus, int prefill_shards,
                        const Gpu& decode_gpu, int decode_worker_gpus, int decode_shards) {
  KvLink link;
  link.lanes = std::max(1, std::min(prefill_shards, decode_shards));
  const bool same = prefill_gpu.id == decode_gpu.id;
  if (same && prefill_gpu.scaleup_gb_per_s > 0.0 &&
      prefill_worker_gpus + decode_worker_gpus <= prefill_gpu.scaleup_domain_gpus) {
    link.kind = LinkKind::scaleup;
    link.gb_per_s = prefill_gpu.scaleup_gb_per_s;
    return link;
  }
  link.kind = LinkKind::network;
  const double a = prefill_gpu.nic_gb_per_s, b = decode_gpu.nic_gb_per_s;
  link.gb_per_s = a > 0.0 && b > 0.0 ? std::min(a, b) : 0.0;
  return link;
}

double kv_transfer_bytes(const PreparedModel& pm, std::int64_t prompt_tokens) {
  const double n = d(std::max<std::int64_t>(0, prompt_tokens));
  const double window = d(pm.model.attention.sliding_window);
  const double tokens = d(pm.full_attention_layers) * n + d(pm.sliding_layers) * std::min(n, window);
  return pm.kv_bytes_per_token_layer * tokens + (n > 0.0 ? pm.linear_state_bytes_per_sequence : 0.0);
}

double kv_transfer_s(double bytes, const KvLink& link, double efficiency, double latency_s) {
  if (bytes <= 0.0) return 0.0;
  if (link.gb_per_s <= 0.0 || efficiency <= 0.0) return 0.0; // unknown link: left out, said elsewhere
  return latency_s + bytes / (d(link.lanes) * gb_per_s_to_bytes_per_s(link.gb_per_s) * efficiency);
}

DisaggBill bill_disagg(const DisaggDeployment& unit, int copies) {
  // docs/methodology.md "Whole instances": each pool rents its own instances (one function bills both).
  const auto pool_bill = [copies](const PoolDeployment& p) {
    return bill_instances(std::max(0, copies) * p.workers, p.layout.gpus_per_replica(), p.price, p.layout.tp);
  };
  DisaggBill b;
  b.prefill = pool_bill(unit.prefill);
  b.decode = pool_bill(unit.decode);
  const bool known = unit.prefill.price.usd_per_gpu_hour > 0.0 && unit.decode.price.usd_per_gpu_hour > 0.0;
  b.usd_per_hour = known ? b.prefill.usd_per_hour + b.decode.usd_per_hour : 0.0;
  return b;
}

double decode_in_flight(double requests_per_s, std::int64_t output_tokens, double tpot_s,
                        int decode_workers) {
  if (decode_workers <= 0) return 0.0;
  return requests_per_s * std::max(0.0, d(output_tokens) - 1.0) * tpot_s / d(decode_workers);
}

} // namespace rightsize
