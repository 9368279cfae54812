// The replica layout for a GPU count as recommend's search ranks it (docs/methodology.md "Layout for
// a GPU count"): what `check --deployment NxGPU` judges when no degree is pinned.
#include <string>

#include "rightsize/calibration.hpp"
#include "rightsize/search.hpp"

namespace rightsize {

const char* to_string(CountLayoutBasis basis) {
  switch (basis) {
  case CountLayoutBasis::best_ranked: return "best_ranked";
  case CountLayoutBasis::best_ranked_short: return "best_ranked_short";
  case CountLayoutBasis::smallest_fit: return "smallest_fit";
  }
  return "smallest_fit";
}

CountLayout layout_for_count(const Recommendation& search, const PreparedModel& model,
                             const InferenceWorkload& workload, const Sla& sla, const Gpu& gpu,
                             const GpuPrice& price, const SearchPolicy& policy, int gpus) {
  CountLayout out;
  const BandFactors bands =
      band_factors(policy.calibration, policy.confidence, gpu.id, model_class_of(model.model),
                   serving_reach(policy.calibration, gpu, model.model));
  // Same GPUs, same bill: a layout that meets everything on them costs what any other does, so the
  // search's rank (cost at its own size, then TPOT, TTFT, GPUs) decides among those that pass here.
  const Candidate* short_of = nullptr;
  for (const Candidate& c : search.candidates) {
    const int per_replica = c.layout.gpus_per_replica();
    if (per_replica < 1 || gpus % per_replica != 0) continue;
    Deployment whole = c.layout;
    whole.gpus = gpus;
    if (judge_deployment(model, workload, sla, gpu, whole, price, policy, bands).meets_sla) {
      out.choice.deployment = whole;
      out.choice.fits = true;
      out.basis = CountLayoutBasis::best_ranked;
      out.rank = c.rank;
      return out;
    }
    if (short_of == nullptr) short_of = &c;
  }
  if (short_of != nullptr) {
    // Too few GPUs for any layout the search passes: the one it ranks first, which misses here.
    out.choice.deployment = short_of->layout;
    out.choice.deployment.gpus = gpus;
    out.choice.fits = true;
    out.basis = CountLayoutBasis::best_ranked_short;
    out.rank = short_of->rank;
    return out;
  }
  out.choice = fit_layout(model, workload, gpu, LayoutRequest{gpus, 0, 0, 0}, policy.engine);
  out.basis = CountLayoutBasis::smallest_fit;
  return out;
}

} // namespace rightsize
