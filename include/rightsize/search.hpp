#pragma once
// The inference search behind `recommend` and `check`: GPUs × replica layouts × precision ×
// concurrency × replicas, filtered with reasons and ranked (docs/methodology.md, "Search").
#include <cstdint>
#include <span>
#include <vector>

#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

/// What candidates are ranked by (ties: lower TPOT, then TTFT, then fewer GPUs, then GPU id).
enum class RankBy : std::uint8_t { cost_per_token, cost_per_request, latency, gpus, energy };
const char* to_string(RankBy rank_by);

/// Search limits and policy.
struct SearchPolicy {
  int max_gpus_per_replica = 8;
  int max_nodes = 1;                 ///< nodes one replica may span (PP across nodes)
  double throughput_headroom = 0.20; ///< replicas are sized for peak load × (1 + headroom)
  RankBy rank_by = RankBy::cost_per_token;
  EngineConfig engine;
  double max_power_kw = 0.0; ///< GPU board power cap of a deployment at peak load; 0 = none (energy.hpp)
};

/// Why a candidate failed, with the numbers to say so ("TPOT 71 ms > SLA 50 ms at concurrency 1").
enum class RejectReason : std::uint8_t {
  none,
  precision_unsupported,
  layout,
  does_not_fit,
  ttft,
  tpot,
  e2e,
  throughput,
  budget,
  no_price,
  deadline,
  power, ///< board power at peak load above constraints.max_power_kw (value, limit in kW)
};
const char* to_string(RejectReason reason);

struct Rejection {
  RejectReason reason = RejectReason::none;
  double value = 0.0; ///< what the candidate achieves / needs (ms, bytes, req/s, $/h)
  double limit = 0.0; ///< what was allowed / required
};

/// One configuration: `replicas` replicas of `layout` (tp·pp GPUs each) of one GPU type.
struct Candidate {
  std::size_t gpu_index = 0;       ///< into the GPU list given to recommend()
  std::size_t precision_index = 0; ///< into the model list given to recommend()
  Deployment layout;               ///< one replica: gpus = tp·pp
  int replicas = 1;
  InferenceEstimate estimate; ///< for the whole deployment (replicas × layout)
  Rejection rejection;        ///< reason == none when it meets everything
  bool meets_sla = false;
  bool price_known = true;
  std::size_t rank = 0;                 ///< 1-based among passing candidates; 0 for rejected
  double power_watts = 0.0;             ///< board power at peak load (energy.hpp); 0 = TDP unknown
  double joules_per_output_token = 0.0; ///< board energy per served output token; 0 = unknown
  [[nodiscard]] int total_gpus() const { return replicas * layout.tp * layout.pp; }
};

/// The search result: passing candidates sorted by rank, then rejected ones sorted by how close
/// they came (same key), each with its reason.
struct Recommendation {
  std::vector<Candidate> candidates;
  std::vector<Candidate> rejected;
};

/// Replica layouts to try for a GPU: tp·pp ∈ {1, 2, 4, 8, ...} within limits, TP inside a node
/// dividing the attention heads, PP for what spans nodes; EP = TP for MoE models as an extra option.
std::vector<Deployment> replica_layouts(const ModelSpec& model, const Gpu& gpu, const SearchPolicy& policy);

/// Evaluates one layout of one GPU against the workload and SLA and sizes the replicas.
/// `usd_per_gpu_hour` <= 0 means the price is unknown.
Candidate evaluate_candidate(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                             const Gpu& gpu, const Deployment& layout, double usd_per_gpu_hour,
                             const SearchPolicy& policy);

/// Runs the whole search. `models` holds one PreparedModel per precision to consider; `gpus` and
/// `prices_usd_per_gpu_hour` are parallel. The result does not depend on the order of `gpus`.
Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus,
                         std::span<const double> prices_usd_per_gpu_hour, const SearchPolicy& policy);

/// True when `a` ranks before `b` (the ranking key, then the documented tie-breaks).
bool ranks_before(const Candidate& a, const Candidate& b, RankBy rank_by, std::span<const Gpu> gpus);

/// Capacity plan for serving a load with one candidate (docs/methodology.md "Capacity planning").
struct CapacityPolicy {
  double storage_gb_per_s = 2.0;    ///< weight load bandwidth at cold start (NVMe / object store)
  double engine_start_s = 60.0;     ///< process start, CUDA graph capture, warm-up
  double target_utilization = 0.80; ///< keep replicas below this share of their capacity
};
struct CapacityPlan {
  int replicas_peak = 0;
  int replicas_average = 0;
  int min_replicas = 0;
  int max_replicas = 0;
  double cold_start_s = 0.0;
  bool scale_to_zero = false;
  const char* scaling_signal = ""; ///< metric to autoscale on
  const char* tier = "";           ///< "on_demand" (dedicated) or "spot"
  const char* why = "";            ///< one line on the tier / scale-to-zero choice
};
CapacityPlan plan_capacity(const Candidate& candidate, const PreparedModel& model, const Sla& sla,
                           const CapacityPolicy& policy);

} // namespace rightsize
