#pragma once
// The inference search behind `recommend` and `check`: GPUs × replica layouts × precision ×
// concurrency × replicas, filtered with reasons and ranked (docs/methodology.md, "Search").
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "rightsize/gpu.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/instances.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/spec.hpp"

namespace rightsize {

/// What candidates are ranked by (ties: lower TPOT, then TTFT, then fewer GPUs, then GPU id).
/// goodput: the cost per 1M output tokens (per request for image and encoder models) ÷ the share of
/// requests within every latency target (rightsize/goodput.hpp).
enum class RankBy : std::uint8_t { cost_per_token, cost_per_request, latency, gpus, energy, goodput };
const char* to_string(RankBy rank_by);

/// Search limits and policy.
struct SearchPolicy {
  int max_gpus_per_replica = 8;
  int max_nodes = 1;                 ///< nodes one replica may span (PP across nodes)
  double throughput_headroom = 0.20; ///< replicas are sized for peak load × (1 + headroom)
  RankBy rank_by = RankBy::cost_per_token;
  EngineConfig engine;
  /// Which end of the error band the SLA must hold at, and the calibration whose bands say so
  /// (null: no bands, the point estimate is judged).
  Confidence confidence = Confidence::p90;
  const Calibration* calibration = nullptr;
  double max_power_kw = 0.0; ///< GPU board power cap of a deployment at peak load; 0 = none (energy.hpp)
  /// Per GPU given to the search: the uncertainty of its price (price_rank_margin, a fraction) that a
  /// cost ranking charges it, so a thinly quoted or stale price wins only by more than that; empty =
  /// none (--confidence p50 ranks on the quoted prices).
  std::vector<double> price_margins;
};

/// One configuration: `replicas` replicas of `layout` (tp·pp GPUs each) of one GPU type.
/// A candidate at the load it serves, per replica (methodology §6 "Latency at the served load").
struct LoadPoint {
  std::int64_t concurrency = 0; ///< requests in flight per replica (Little's law: rate × end-to-end)
  double ttft_s = 0.0, tpot_s = 0.0, e2e_s = 0.0; ///< means; e2e_s is what --rank-by latency ranks by
  /// The same, each at the statistic the SLA judges it by (the mean when the SLA names none): the
  /// figures the table shows beside the SLA's limits.
  double ttft_judged_s = 0.0, tpot_judged_s = 0.0, e2e_judged_s = 0.0;
};

struct Candidate {
  std::size_t gpu_index = 0;       ///< into the GPU list given to recommend()
  std::size_t precision_index = 0; ///< into the model list given to recommend()
  Deployment layout;               ///< one replica: gpus = tp·pp
  int replicas = 1;
  InferenceEstimate estimate; ///< for the whole deployment (replicas × layout); costs at full capacity
  Verdict verdict;            ///< core::judge on `estimate` (docs/ARCHITECTURE.md "One decision point")
  TermCheck rejection;        ///< verdict.first (or a price miss): term == none when it meets everything
  /// Served load and the cost over it: the SLA's load (capped at capacity) when one is given, else
  /// full capacity. `usd_per_million_output_tokens_at_load` is what the ranking uses.
  double served_requests_per_s = 0.0;
  /// Requests/s one replica is sized on: its capacity at the judged end of the band.
  double sizing_requests_per_s_per_replica = 0.0;
  double served_output_tokens_per_s = 0.0;
  double usd_per_million_output_tokens_at_load = 0.0;
  double usd_per_request_at_load = 0.0;
  /// The operating point at the load each replica actually carries (methodology §6 "Latency at
  /// the served load"): what the table's latency columns show and --rank-by latency ranks by.
  /// Equal to the estimate's when no load is given or the candidate is rejected.
  LoadPoint at_load;
  bool meets_sla = false;
  bool price_known = true;
  /// Speculative decoding "use": "auto" (methodology §3.8): whether this layout kept it, and the
  /// other variant's TPOT and served cost (0 = it missed the requirements), for the reason.
  bool speculative_auto = false;
  bool speculative_on = true;
  double speculative_other_tpot_s = 0.0;
  double speculative_other_usd_per_million = 0.0;
  std::size_t rank = 0;                 ///< 1-based among passing candidates; 0 for rejected
  double power_watts = 0.0;             ///< board power at peak load (energy.hpp); 0 = TDP unknown
  double joules_per_output_token = 0.0; ///< board energy per served output token; 0 = unknown
  /// Under --rank-by goodput: the share of requests within every latency target (core::goodput) at the
  /// judged end of the band; 1 otherwise.
  double slo_attainment = 1.0;
  [[nodiscard]] int total_gpus() const { return replicas * layout.gpus_per_replica(); }
};

/// The search result: passing candidates sorted by rank, then rejected ones sorted by how close
/// they came (same key), each with its reason.
struct Recommendation {
  std::vector<Candidate> candidates;
  std::vector<Candidate> rejected;
};

/// The rule of the layout space for one tp × pp: TP inside a node dividing the attention heads, PP no
/// deeper than the layers and than twice the nodes unless TP fills the node, a whole-served model
/// unsplit.
bool valid_replica_layout(const ModelSpec& model, const Gpu& gpu, int tp, int pp, const SearchPolicy& policy);

/// The replica layouts one GPU type offers a model (docs/methodology.md "Search"): replicas of
/// n = 1, 2, 4 … GPUs up to the policy's limits (GPUs per replica, nodes), each n split tp × pp by
/// valid_replica_layout; for an MoE model EP over the TP group, and attention DP with EP over all n
/// GPUs. The one space every search walks: recommend, the sweep and the disaggregated workers take
/// all of it (replica_layouts), fit_layout its tp × pp splits, widest TP first. Visiting allocates
/// nothing (the sweep's hot path).
struct LayoutSpace {
  const ModelSpec& model;
  const Gpu& gpu;
  const SearchPolicy& policy;

  /// GPUs per node (at least 1).
  [[nodiscard]] int node() const { return std::max(1, gpu.gpus_per_node); }
  /// The largest replica: the policy's GPUs per replica within its nodes.
  [[nodiscard]] int max_gpus() const {
    return std::min(policy.max_gpus_per_replica, node() * std::max(1, policy.max_nodes));
  }
  /// EP across a TP group of `tp` GPUs is offered (vLLM --enable-expert-parallel).
  [[nodiscard]] bool expert_tp(int tp) const {
    return model.moe.experts > 0 && tp > 1 && model.moe.experts % tp == 0;
  }
  /// Attention DP + EP over `n` GPUs is offered (SGLang --enable-dp-attention, TensorRT-LLM ADP, vLLM
  /// DP+EP; methodology §5.6).
  [[nodiscard]] bool attention_dp(int n) const {
    return model.moe.experts > 0 && n > 1 && model.moe.experts % n == 0;
  }
  /// Calls visit(tp, pp) for each valid split of `n` GPUs: TP ascending, or widest first; with
  /// `only_tp` > 0, the split of that TP alone (a pinned TP: the others are not judged at all).
  template <class Visit> void each_split(int n, bool widest_tp_first, Visit&& visit, int only_tp = 0) const {
    const int top = std::min(n, node());
    for (int tp = widest_tp_first ? top : 1; tp >= 1 && tp <= top; tp = widest_tp_first ? tp / 2 : tp * 2) {
      if (only_tp > 0 && tp != only_tp) continue;
      const int pp = n / tp;
      if (tp * pp == n && valid_replica_layout(model, gpu, tp, pp, policy)) visit(tp, pp);
    }
  }
};

/// Every layout of the space, smallest replica first: at each size the tp × pp splits (TP ascending),
/// each followed by its EP = TP variant, then the attention-DP layout.
std::vector<Deployment> replica_layouts(const ModelSpec& model, const Gpu& gpu, const SearchPolicy& policy);
/// A model served whole, one GPU per replica: a UNet denoiser (diffusers, the TensorRT demo and
/// MLPerf's harness run it unsplit; the estimator has no TP or PP split of its convolutions,
/// methodology §3.7 "UNet denoiser").
bool runs_whole(const ModelSpec& model);

/// Evaluates one layout of one GPU against the workload and SLA and sizes the replicas.
/// A price <= 0 means it is unknown; its instance shapes decide the GPUs billed (instances.hpp).
/// `bands` are the pessimistic multipliers of --confidence (band_factors); {} judges the point.
Candidate evaluate_candidate(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                             const Gpu& gpu, const Deployment& layout, const GpuPrice& price,
                             const SearchPolicy& policy, const BandFactors& bands = {});

/// The power term of the one verdict: sets `rules`' cap to policy.max_power_kw and the
/// deployment's board power at peak load to `power_watts` (energy.hpp); nothing without a cap.
/// recommend, check and sweep all set it here, so they judge power alike.
void apply_power_cap(JudgeRules& rules, const SearchPolicy& policy, double power_watts);

/// A deployment as given (`whole`: its GPU count, and the replica layout it is split into), as
/// `check` judges it: one replica at its own concurrency (auto: the largest meeting the latency
/// targets at the judged end of `bands`), then all replicas at that concurrency judged together
/// with the load, the budget and policy.max_power_kw. replicas = whole.gpus ÷ GPUs per replica.
Candidate judge_deployment(const PreparedModel& model, const InferenceWorkload& workload, const Sla& sla,
                           const Gpu& gpu, const Deployment& whole, const GpuPrice& price,
                           const SearchPolicy& policy, const BandFactors& bands = {});

/// Runs the whole search. `models` holds one PreparedModel per precision to consider; `gpus` and
/// `prices` are parallel. The result does not depend on the order of `gpus`.
Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus, std::span<const GpuPrice> prices,
                         const SearchPolicy& policy);
/// The same with per-GPU prices (no instance shapes).
Recommendation recommend(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                         const Sla& sla, std::span<const Gpu> gpus,
                         std::span<const double> prices_usd_per_gpu_hour, const SearchPolicy& policy);

/// How layout_for_count chose the replica layout of a GPU count (docs/methodology.md "Layout for a
/// GPU count").
enum class CountLayoutBasis : std::uint8_t {
  best_ranked,       ///< the best-ranked layout of the search that meets everything on the count
  best_ranked_short, ///< none meets it there: the best-ranked passing layout the count divides into
  smallest_fit,      ///< no passing layout divides the count: fit_layout's smallest that fits
};
const char* to_string(CountLayoutBasis basis);

/// A replica layout for a GPU count, and why it was chosen.
struct CountLayout {
  LayoutChoice choice; ///< deployment.gpus = the count; as fit_layout's when basis is smallest_fit
  CountLayoutBasis basis = CountLayoutBasis::smallest_fit;
  std::size_t rank = 0; ///< the search's rank of the layout (0 for smallest_fit)
};

/// The layout recommend's search would run `gpus` GPUs of one type with (`check --deployment NxGPU`
/// with no degree pinned). `search` is recommend() over that GPU and `model` alone (its passing
/// candidates in rank order). On `gpus` GPUs of one type every layout costs the same per hour, so
/// the search's own order breaks the tie: the first passing candidate whose replica divides `gpus`
/// and that judge_deployment passes on all of them. When none does, the first passing candidate whose
/// replica divides `gpus` (it misses there: too few GPUs); else fit_layout's smallest that fits.
CountLayout layout_for_count(const Recommendation& search, const PreparedModel& model,
                             const InferenceWorkload& workload, const Sla& sla, const Gpu& gpu,
                             const GpuPrice& price, const SearchPolicy& policy, int gpus);

/// The ranking a search applies: an image or encoder model (kind dit, vit) ranked by cost ranks by cost per
/// item (cost_per_request: one item per request), since it serves no output tokens (methodology §3.7).
RankBy effective_rank_by(RankBy rank_by, ModelKind kind);

/// How a candidate's capacity is found (aggregated and disaggregated searches alike): in closed
/// loop at the largest concurrency meeting the latency targets at the judged end of the band; under
/// poisson arrivals the latency targets are judged later, at the rate, so capacity ignores them.
struct CapacityInputs {
  Sla sla;                    ///< the SLA capacity is judged against (poisson: no latency terms)
  Sla auto_sla;               ///< its latency terms at the judged end of the band
  InferenceWorkload workload; ///< closed loop, no arrival rate
};
CapacityInputs capacity_inputs(const InferenceWorkload& workload, const Sla& sla, const BandFactors& bands);

/// The figure a search ranks by (lower first): cost over the load served per 1M output tokens or per
/// request, end-to-end latency, GPUs or joules per token; infinity when unknown (no price, no energy).
double rank_key(const Candidate& c, RankBy rank_by);

/// Whether `rank_by` ranks by a cost (per token, per request, or per request meeting every SLO), the
/// rankings a price's margin and a bill apply to.
bool ranks_by_cost(RankBy rank_by);

/// The ranking key a search orders by: rank_key, a cost charged its GPU's price margin
/// (cost × (1 + price_margins[gpu_index]); docs/methodology.md §5.2 "Price quality").
double ranked_key(const Candidate& c, RankBy rank_by, std::span<const double> price_margins);

/// True when `a` ranks before `b` (ranked_key, then the documented tie-breaks).
bool ranks_before(const Candidate& a, const Candidate& b, RankBy rank_by, std::span<const Gpu> gpus,
                  std::span<const double> price_margins = {});

/// The arrivals a deployment is judged at: an open loop (poisson) at the workload's rate, else at the
/// SLA's peak requests/s (methodology §3.1); a closed loop unchanged. Every command takes this one.
InferenceWorkload deployment_arrivals(const InferenceWorkload& workload, const Sla& sla);

/// Cost over the load a deployment actually serves (docs/output-schema.md "Cost"): the SLA's
/// requests/s (or output tokens/s), at most the estimate's capacity; full capacity without a load.
/// The estimate's own usd_per_million_output_tokens is the cost at full capacity.
struct CostAtLoad {
  double served_requests_per_s = 0.0;
  double served_output_tokens_per_s = 0.0;
  double usd_per_request = 0.0;
  double usd_per_million_output_tokens = 0.0;
};
CostAtLoad cost_at_load(const InferenceEstimate& estimate, const Sla& sla, const InferenceWorkload& workload);

/// The bill of a capacity plan's tier (docs/methodology.md §7 "The bill of the tier"): its
/// on-demand replicas at the on-demand price and its spot replicas at the spot price, each rented as
/// whole instances of its own (bill_instances). Under --pricing spot with latency targets the plan
/// keeps the average replicas on demand, so this, not the spot price ranked by, is what following
/// it costs.
struct TierBill {
  int on_demand_replicas = 0;
  int spot_replicas = 0;
  InstanceBill on_demand; ///< the on-demand replicas' instances
  InstanceBill spot;      ///< the spot replicas' instances
  double on_demand_usd_per_gpu_hour = 0.0;
  double spot_usd_per_gpu_hour = 0.0;
  bool known = false;        ///< every price the split needs is known
  double usd_per_hour = 0.0; ///< on_demand + spot; 0 unless known
};

/// Capacity plan for serving a load with one candidate (docs/methodology.md "Capacity planning").
struct CapacityPolicy {
  double storage_gb_per_s = 2.0;     ///< weight load bandwidth at cold start (NVMe / object store)
  double engine_start_s = 60.0;      ///< process start, CUDA graph capture, warm-up
  double throughput_headroom = 0.20; ///< the search's (SearchPolicy::throughput_headroom)
  PricingModel pricing = PricingModel::on_demand; ///< the tier follows the prices asked for
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
  /// In-flight requests per replica: the engine's cap (max-num-seqs) and the autoscaler's target
  /// (add a replica above it), methodology "Capacity planning". Closed loop: the SLA-meeting
  /// concurrency and that ÷ (1 + headroom); open loop: the p99 of the Poisson in-flight count (at
  /// most the KV cache's sequences) and its mean at the planned peak.
  std::int64_t in_flight_cap_per_replica = 1;
  double in_flight_target_per_replica = 1.0;
  /// Open loop: the KV cache holds fewer sequences than the p99 in flight, so the cap is the cache.
  bool in_flight_cap_kv_bound = false;
  /// Open loop: the probability the in-flight count exceeds the cap (requests wait in the queue).
  double in_flight_queue_probability = 0.0;
  /// Of the peak replicas, those the tier puts on spot capacity: all under --pricing spot without a
  /// latency target, only those above the average with one (the average stay on demand), else none.
  int spot_replicas = 0;
  /// What following the tier costs when it differs from the prices ranked by (--pricing spot with
  /// an on-demand base; bill_tier): unset otherwise.
  std::optional<TierBill> tier_bill;
};
/// The quantile of the open-loop in-flight count the engine's cap is set at (CapacityPlan).
inline constexpr double k_in_flight_cap_quantile = 0.99;
/// The capacity policy of a search: its headroom, and the prices the tier follows (one place, so the
/// plan recommend prints and the one deploy artifacts use are the same).
CapacityPolicy capacity_policy_for(const SearchPolicy& search, PricingModel pricing);
CapacityPlan plan_capacity(const Candidate& candidate, const Sla& sla, const CapacityPolicy& policy);
/// The bill of `plan`'s tier for `candidate` (TierBill): replicas_peak − spot_replicas replicas at
/// `on_demand`, spot_replicas at `spot`; a price of 0 or less is unknown.
TierBill bill_tier(const CapacityPlan& plan, const Candidate& candidate, const GpuPrice& on_demand,
                   const GpuPrice& spot);
/// The in-flight part of plan_capacity (cap, target, queue probability) for `candidate` under the
/// search's throughput headroom.
void plan_in_flight(const Candidate& candidate, double throughput_headroom, CapacityPlan& plan);
/// Open loop: whether the KV cache holds the p99 of the in-flight count (the cap plan_in_flight
/// sets), so requests wait behind the cap at most 1 % of the time; true for a closed loop.
bool in_flight_p99_fits(const InferenceEstimate& estimate, int attention_dp);

} // namespace rightsize
