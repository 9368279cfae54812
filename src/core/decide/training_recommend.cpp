#include "rightsize/training_recommend.hpp"

#include <algorithm>
#include <limits>

#include "rightsize/calibration.hpp"
#include "rightsize/judge.hpp"

namespace rightsize {
namespace {

// The run's cost as ranked: its cost at the judged end of its throughput band (÷ throughput_low, as
// judged) times (1 + the price's margin) when the policy charges price quality (SearchPolicy::
// price_margins; methodology §5.2 "Price quality"), as inference ranks its judged sizing: a GPU whose
// speed is less known wins only by more than its wider band.
double cost_key(const TrainingCandidate& c, std::span<const double> price_margins) {
  if (!c.price_known) return std::numeric_limits<double>::infinity();
  const double margin = c.gpu_index < price_margins.size() ? price_margins[c.gpu_index] : 0.0;
  return judged_run(c.estimate, c.throughput_low).usd_total * (1.0 + margin);
}

bool before(const TrainingCandidate& a, const TrainingCandidate& b, std::span<const Gpu> gpus,
            std::span<const double> margins) {
  if (a.meets != b.meets) return a.meets;
  if (!a.meets) {
    if (closeness(a.rejection.term) != closeness(b.rejection.term))
      return closeness(a.rejection.term) < closeness(b.rejection.term);
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

namespace {

// Judges `runs` at the policy's confidence (each GPU's band, training_throughput_low) and ranks them:
// passing runs by the run's cost charged its band and price margin; without any price no run wins
// (each a no_price miss, the closest kind) rather than one picked by its tie-breaks.
TrainingRecommendation judge_and_rank(std::vector<TrainingCandidate> runs, const PreparedModel& model,
                                      const Sla& sla, std::span<const Gpu> gpus, const SearchPolicy& policy) {
  TrainingRecommendation out;
  const std::string model_class = model_class_of(model.model);
  std::vector<double> lows(gpus.size());
  for (std::size_t gi = 0; gi < gpus.size(); ++gi)
    lows[gi] = training_throughput_low(policy.calibration, policy.confidence, gpus[gi].id, model_class,
                                       gpus[gi].training_reach);
  for (TrainingCandidate& c : runs) {
    c.throughput_low = lows[c.gpu_index];
    c.rejection = judge(c.estimate, sla, c.price_known, c.throughput_low).first;
    c.meets = c.rejection.term == Term::none;
    c.rank = 0;
    (c.meets ? out.candidates : out.rejected).push_back(c);
  }
  if (std::none_of(out.candidates.begin(), out.candidates.end(),
                   [](const TrainingCandidate& c) { return c.price_known; })) {
    for (TrainingCandidate& c : out.candidates) {
      c.meets = false;
      c.rejection = failed_term(Term::price);
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

} // namespace

TrainingRecommendation recommend_training(const PreparedModel& model, const TrainingWorkload& workload,
                                          const Sla& sla, std::span<const Gpu> gpus,
                                          std::span<const GpuPrice> prices, const SearchPolicy& policy,
                                          const TrainingConfig& config) {
  std::vector<TrainingCandidate> runs;
  for (std::size_t gi = 0; gi < gpus.size(); ++gi) {
    for (int count : training_gpu_counts(gpus[gi], policy.max_nodes)) {
      TrainingCandidate c;
      c.gpu_index = gi;
      c.price_known = prices[gi].usd_per_gpu_hour > 0.0;
      c.estimate = search_training_layout(model, workload, gpus[gi], count, LayoutPins{}, config, prices[gi]);
      runs.push_back(c);
    }
  }
  return judge_and_rank(std::move(runs), model, sla, gpus, policy);
}

TrainingRecommendation rejudge_training(const TrainingRecommendation& recommendation,
                                        const PreparedModel& model, const Sla& sla, std::span<const Gpu> gpus,
                                        const SearchPolicy& policy) {
  std::vector<TrainingCandidate> runs = recommendation.candidates;
  runs.insert(runs.end(), recommendation.rejected.begin(), recommendation.rejected.end());
  return judge_and_rank(std::move(runs), model, sla, gpus, policy);
}

} // namespace rightsize
