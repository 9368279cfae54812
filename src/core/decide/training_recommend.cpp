#include "rightsize/training_recommend.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "rightsize/units.hpp"

namespace rightsize {
namespace {

// The run's cost as ranked: its quoted cost times (1 + the price's margin) when the policy charges
// price quality (SearchPolicy::price_margins; methodology §5.2 "Price quality"), as inference ranks.
double cost_key(const TrainingCandidate& c, std::span<const double> price_margins) {
  if (!c.price_known) return std::numeric_limits<double>::infinity();
  const double margin = c.gpu_index < price_margins.size() ? price_margins[c.gpu_index] : 0.0;
  return c.estimate.usd_total * (1.0 + margin);
}

int order(RejectReason r) {
  switch (r) {
  case RejectReason::no_price: return 0; // meets every target; only the price is missing
  case RejectReason::budget: return 1;
  case RejectReason::deadline: return 2;
  case RejectReason::does_not_fit: return 3;
  case RejectReason::precision_unsupported: return 4;
  default: return 5;
  }
}

bool before(const TrainingCandidate& a, const TrainingCandidate& b, std::span<const Gpu> gpus,
            std::span<const double> margins) {
  if (a.meets != b.meets) return a.meets;
  if (!a.meets) {
    if (order(a.rejection.reason) != order(b.rejection.reason))
      return order(a.rejection.reason) < order(b.rejection.reason);
    const double ra = a.rejection.limit > 0.0 ? a.rejection.value / a.rejection.limit : 0.0;
    const double rb = b.rejection.limit > 0.0 ? b.rejection.value / b.rejection.limit : 0.0;
    if (ra != rb) return ra < rb;
  }
  const double ka = cost_key(a, margins), kb = cost_key(b, margins);
  if (ka != kb) return ka < kb;
  if (a.estimate.time_to_train_s != b.estimate.time_to_train_s)
    return a.estimate.time_to_train_s < b.estimate.time_to_train_s;
  if (a.estimate.gpus != b.estimate.gpus) return a.estimate.gpus < b.estimate.gpus;
  return gpus[a.gpu_index].id < gpus[b.gpu_index].id;
}

} // namespace

std::vector<int> training_gpu_counts(const Gpu& gpu, int max_nodes) {
  std::vector<int> out;
  const int node = std::max(1, gpu.gpus_per_node);
  for (int n = 1; n <= node; n *= 2)
    out.push_back(n);
  if (out.back() != node) out.push_back(node);
  for (int nodes = 2; nodes <= std::max(1, max_nodes); nodes *= 2)
    out.push_back(nodes * node);
  if (max_nodes > 1 && out.back() != max_nodes * node) out.push_back(max_nodes * node);
  return out;
}

TrainingRecommendation recommend_training(const PreparedModel& model, const TrainingWorkload& workload,
                                          const Sla& sla, std::span<const Gpu> gpus,
                                          std::span<const GpuPrice> prices, const SearchPolicy& policy,
                                          const TrainingConfig& config) {
  TrainingRecommendation out;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    const Gpu& gpu = gpus[gi];
    for (int count : training_gpu_counts(gpu, policy.max_nodes)) {
      TrainingCandidate c;
      c.gpu_index = gi;
      c.price_known = prices[gi].usd_per_gpu_hour > 0.0;
      c.estimate = search_training_layout(model, workload, gpu, count, LayoutPins{}, config, prices[gi]);
      const TrainingEstimate& e = c.estimate;
      const double hours = e.time_to_train_s / k_seconds_per_hour;
      if (!e.precision_supported) {
        c.rejection = {RejectReason::precision_unsupported, 0.0, 0.0};
      } else if (!e.link_known || !std::isfinite(e.time_to_train_s) || !std::isfinite(e.usd_total)) {
        // GPUs spread over a link the catalog gives no bandwidth for (MI325X, T4: no PCIe figure):
        // the collectives have no finite time. Rejected for the layout, as inference does.
        c.rejection = {RejectReason::layout, 0.0, 0.0};
      } else if (!e.memory.fits) {
        c.rejection = {RejectReason::does_not_fit, e.memory.per_gpu_bytes, e.memory.usable_per_gpu_bytes};
      } else if (sla.deadline_hours && hours > *sla.deadline_hours) {
        c.rejection = {RejectReason::deadline, hours, *sla.deadline_hours};
      } else if (sla.budget_usd && !c.price_known) {
        // A budget cannot be shown to hold without a price.
        c.rejection = {RejectReason::no_price, 0.0, *sla.budget_usd};
      } else if (sla.budget_usd && e.usd_total > *sla.budget_usd) {
        c.rejection = {RejectReason::budget, e.usd_total, *sla.budget_usd};
      } else {
        c.meets = true;
      }
      (c.meets ? out.candidates : out.rejected).push_back(c);
    }
  }
  // Ranked by the run's cost (charged its price's margin), as the inference search: without any price no run
  // wins (each a no_price miss, the closest kind) rather than one picked by its tie-breaks.
  if (std::none_of(out.candidates.begin(), out.candidates.end(),
                   [](const TrainingCandidate& c) { return c.price_known; })) {
    for (TrainingCandidate& c : out.candidates) {
      c.meets = false;
      c.rejection = {RejectReason::no_price, 0.0, 0.0};
    }
    out.rejected.insert(out.rejected.end(), out.candidates.begin(), out.candidates.end());
    out.candidates.clear();
  }
  auto cmp = [&](const TrainingCandidate& a, const TrainingCandidate& b) {
    return before(a, b, gpus, policy.price_margins);
  };
  std::sort(out.candidates.begin(), out.candidates.end(), cmp);
  std::sort(out.rejected.begin(), out.rejected.end(), cmp);
  for (std::size_t i = 0; i < out.candidates.size(); ++i)
    out.candidates[i].rank = i + 1;
  return out;
}

} // namespace rightsize
