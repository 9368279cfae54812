#pragma once
// Disaggregated candidates for `recommend --disagg` (methodology §3.6 and "Search"): xPyD grids of
// prefill and decode workers per GPU type (and, optionally, mixed GPU types for the two pools),
// judged by core::judge and ranked by the same cost per 1M output tokens as the aggregated search.
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "rightsize/disagg.hpp"
#include "rightsize/search.hpp"

namespace rightsize {

/// One disaggregated configuration: `copies` copies of a unit of P prefill and D decode workers.
struct DisaggCandidate {
  std::size_t prefill_gpu_index = 0; ///< into the GPU list given to recommend_disagg()
  std::size_t decode_gpu_index = 0;
  std::size_t precision_index = 0;
  DisaggDeployment unit;   ///< one xPyD unit (GPU pointers into the list given)
  int copies = 1;          ///< units sized for the SLA's load with headroom
  DisaggEstimate estimate; ///< one unit; `estimate.combined` scaled to all copies in `whole`
  InferenceEstimate whole; ///< the whole deployment (copies × unit), as judged; costed by `bill`
  DisaggBill bill; ///< the whole deployment's instances: each pool's copies × workers packed together
  Verdict verdict;
  bool meets_sla = false;
  bool price_known = true;
  double usd_per_million_output_tokens_at_load = 0.0;
  double usd_per_request_at_load = 0.0;
  /// Share of time a prefill worker is busy at the SLA's load (the unit's utilization at capacity
  /// scaled by served / capacity requests per second; the capacity figure when no load is given).
  double prefill_utilization_at_load = 0.0;
  [[nodiscard]] int total_gpus() const { return copies * (unit.prefill.gpus() + unit.decode.gpus()); }
};

/// Grid limits of the disaggregated search.
struct DisaggGrid {
  int max_prefill_workers = 4;
  int max_decode_workers = 4;
  int layouts_per_pool = 16;   ///< at most this many of the smallest replica layouts that hold the weights
  bool mixed_gpu_types = true; ///< also pair different GPU types for the two pools (the cheapest few)
  int mixed_gpus = 3;          ///< GPU types per pool considered for mixed pairs
  /// Units kept (0: every one): the cheapest `keep_units` passing, and the rejections a caller
  /// taking the first `keep_units` at most some $/h can be shown (detail::keep_shown_units). The
  /// search's memory then follows the units kept, not the units searched; counts stay whole.
  std::size_t keep_units = 0;
};

struct DisaggRecommendation {
  std::vector<DisaggCandidate> candidates; ///< passing, cheapest first (DisaggGrid::keep_units)
  std::vector<DisaggCandidate> rejected;   ///< closest first
  int evaluated = 0;                       ///< units searched
  int passing = 0; ///< units meeting the SLA (all of them, `candidates` may keep fewer)
};

/// Evaluates one xPyD unit against the workload and SLA and sizes the copies (as evaluate_candidate).
/// `slow_k`: each pool's time factor at its band's slow end (disagg_slow_end). `steps`: decode steps
/// kept from units with the same decode pool (estimate_disagg).
DisaggCandidate evaluate_disagg_candidate(const PreparedModel& model, const InferenceWorkload& workload,
                                          const Sla& sla, const DisaggDeployment& unit,
                                          const SearchPolicy& policy, const BandFactors& bands,
                                          PoolTimeFactors slow_k, DecodeStepMemo* steps = nullptr);

/// Runs job(0) … job(count − 1), each writing only its own result, at most `threads` at once on the
/// caller's threads (the core starts none). The search's result is the same on any count.
struct ParallelFor {
  int threads = 1;
  std::function<void(std::size_t count, const std::function<void(std::size_t)>& job)> run;
};

/// The disaggregated search: `models`, `gpus` and `prices` (rates with their instance shapes) as for
/// recommend(); each pool is billed in whole instances (bill_disagg). `parallel`, when given, runs
/// the GPU pairs (each pair's units in order, the pairs merged in order: the same candidates).
DisaggRecommendation recommend_disagg(std::span<const PreparedModel> models,
                                      const InferenceWorkload& workload, const Sla& sla,
                                      std::span<const Gpu> gpus, std::span<const GpuPrice> prices,
                                      const SearchPolicy& policy, const DisaggGrid& grid = {},
                                      const ParallelFor* parallel = nullptr);

/// The most xPyD units recommend_disagg evaluates for these inputs (same-type pairs exactly, mixed
/// pairs at their most: mixed_gpus² pairs of the widest pool layouts), counted before any is: what a
/// caller sizes the search by (docs/reliability.md "Resource limits").
std::size_t disagg_units_at_most(std::span<const PreparedModel> models, const InferenceWorkload& workload,
                                 std::span<const Gpu> gpus, const SearchPolicy& policy,
                                 const DisaggGrid& grid = {});

} // namespace rightsize
