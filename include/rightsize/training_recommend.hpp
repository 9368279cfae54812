#pragma once
// Training recommendation: GPU types × GPU counts, each with its best parallel layout, filtered by
// memory, deadline and budget, ranked by cost per run (docs/methodology.md §6, docs/training.md).
#include <span>
#include <vector>

#include "rightsize/search.hpp"
#include "rightsize/training.hpp"

namespace rightsize {

/// One GPU type at one GPU count with the layout the search chose.
struct TrainingCandidate {
  std::size_t gpu_index = 0;
  TrainingEstimate estimate;
  TermCheck rejection; ///< judge()'s first failed term: none when it fits, meets the deadline and budget
  bool meets = false;
  bool price_known = true;
  /// The judged end's throughput multiplier (training_throughput_low; 1 at --confidence p50): the
  /// deadline and budget were judged, and the run ranked, at time and cost ÷ it.
  double throughput_low = 1.0;
  std::size_t rank = 0; ///< 1-based among passing candidates
};

struct TrainingRecommendation {
  std::vector<TrainingCandidate> candidates; ///< passing, by ranked cost per run, then time, GPUs, id
  std::vector<TrainingCandidate> rejected;   ///< closest first
};

/// GPU counts tried for one GPU type: 1, 2, 4, 8 within a node, then powers of two of whole nodes
/// up to `max_nodes` nodes.
std::vector<int> training_gpu_counts(const Gpu& gpu, int max_nodes);

/// Searches GPU types × counts (`prices` parallel to `gpus`: the rate, <= 0 unknown, with its instance
/// shapes, which decide the GPUs billed). Deadline: sla.deadline_hours against planned time to train;
/// budget: sla.budget_usd against the planning cost of the billed GPUs; both at the band's end
/// policy.confidence asks (the GPU's training_throughput_low, widened by its training reach); ranked
/// by that cost times (1 + policy.price_margins[gpu]) when the policy charges price quality (none at
/// p50). Pure.
TrainingRecommendation recommend_training(const PreparedModel& model, const TrainingWorkload& workload,
                                          const Sla& sla, std::span<const Gpu> gpus,
                                          std::span<const GpuPrice> prices, const SearchPolicy& policy,
                                          const TrainingConfig& config);

/// The same runs judged and ranked again at `policy` (e.g. its confidence at p50: what the point
/// estimate would pick), as recommend_training judges and ranks them. The estimates are kept: the
/// layout search does not depend on the confidence. Pure.
TrainingRecommendation rejudge_training(const TrainingRecommendation& recommendation,
                                        const PreparedModel& model, const Sla& sla, std::span<const Gpu> gpus,
                                        const SearchPolicy& policy);

} // namespace rightsize
