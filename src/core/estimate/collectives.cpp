// Collective and expert-routing primitives of the inference estimator (methodology §4.3, §5.1,
// §5.6): MoE routing bytes, the α–β ring, the hierarchical all-reduce across scale-up domains, experts
// touched by a batch and the expert-group load imbalance. Pure arithmetic; no allocation, no I/O.
#include <algorithm>
#include <cmath>

#include "core/estimate/inference_detail.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/units.hpp"

namespace rightsize {

// Routing passes of the MoE layers (methodology §4.3): the engines materialise every (token, expert)
// row: vLLM's fused_moe gathers rows by sorted token id and writes a per-expert output cache that
// moe_sum reduces; TensorRT-LLM's expand and finalize kernels do the same [VLLM-SRC] [TRT-DOC]. These
// are memory-bound passes outside the GEMMs. A GPU handles tokens·adp·k/ep rows: every attention-DP
// rank's tokens reach the stage's experts, split over ep expert groups.
double moe_routing_bytes_per_token(const PreparedModel& pm, double attention_dp, int ep) {
  const ModelSpec& m = pm.model;
  if (m.moe.experts == 0) return 0.0;
  const double rows = std::max(1.0, attention_dp) * detail::d(m.moe.experts_per_token) / std::max(1, ep);
  const double b_in = std::min(pm.activation_bytes, pm.residual_bytes);
  return detail::d(pm.params.moe_layers) * rows * detail::d(m.hidden_size) * (b_in + 2.0 * pm.residual_bytes);
}

double experts_touched(double experts, double experts_per_token, double tokens) {
  if (experts <= 0.0 || experts_per_token <= 0.0 || tokens <= 0.0) return 0.0;
  // k > E would put a negative base under a fractional power (NaN): every expert is touched.
  const double miss = std::max(0.0, 1.0 - experts_per_token / experts);
  return experts * (1.0 - std::pow(miss, tokens));
}

// Max-over-mean load of `groups` expert groups receiving `routed` token-to-expert assignments
// under uniform routing: the heaviest of n bins holding m balls on average carries about
// m + sqrt(2·m·ln n) (Raab & Steger, "Balls into bins — a simple and tight analysis", RANDOM 1998),
// so the factor is 1 + sqrt(2·ln(n)/m). A lower bound: real routers are skewed (what EPLB
// rebalances, [DSV3] §3.4).
double expert_load_imbalance(double routed, int groups) {
  if (groups <= 1 || routed <= 0.0) return 1.0;
  const double per_group = routed / static_cast<double>(groups);
  return 1.0 + std::sqrt(2.0 * std::log(static_cast<double>(groups)) / std::max(1.0, per_group));
}

double group_allreduce_s(double message_bytes, int gpus, int local, double local_gb_per_s, double local_hop_s,
                         double net_gb_per_s, double net_hop_s, double efficiency, double base_latency_s) {
  const double ring =
      collective_time_s(message_bytes, gpus, net_gb_per_s, efficiency, net_hop_s, base_latency_s, true);
  if (local <= 1 || local >= gpus || local_gb_per_s <= 0.0) return ring;
  const double domains = std::ceil(static_cast<double>(gpus) / static_cast<double>(local));
  // Reduce-scatter + all-gather inside the domain cost what an all-reduce there costs.
  const double inside =
      collective_time_s(message_bytes, local, local_gb_per_s, efficiency, local_hop_s, base_latency_s, true);
  // Double binary tree across domains: 2·ceil(log2 D) hops, each GPU moving its 1/local shard up
  // and down the tree, 2·S/(local·B) ([NCCL-TREE], Sanders et al. 2009).
  const double shard = message_bytes / static_cast<double>(local);
  const double across = base_latency_s + 2.0 * std::ceil(std::log2(domains)) * net_hop_s +
                        2.0 * shard / (gb_per_s_to_bytes_per_s(net_gb_per_s) * efficiency);
  return std::min(ring, inside + across);
}

double collective_time_s(double message_bytes, int group_gpus, double link_gb_per_s, double efficiency,
                         double hop_latency_s, double base_latency_s, bool all_reduce) {
  // α–β ring model with NCCL bus-bandwidth factors (methodology §5.1, [NCCL], latency form [GENZ]):
  // all-reduce 2(n−1)/n·S/B with 2(n−1) steps; all-gather/reduce-scatter/all-to-all (n−1)/n, n−1 steps.
  if (group_gpus <= 1) return 0.0;
  const double n = static_cast<double>(group_gpus);
  const double factor = all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
  const double steps = all_reduce ? 2.0 * (n - 1.0) : n - 1.0;
  return base_latency_s + steps * hop_latency_s +
         factor * message_bytes / (gb_per_s_to_bytes_per_s(link_gb_per_s) * efficiency);
}

} // namespace rightsize
