#include "app/training_check.hpp"

namespace rightsize::app {

TrainingCheckResult run_training_check(const Spec& spec, const LoadedCatalog& catalog,
                                       const DeploymentSpec& want, Confidence confidence,
                                       double max_overspend) {
  reject_attention_dp_for_training(want.attention_dp);
  TrainingCheckResult res;
  res.in = search_inputs(spec, catalog, {want.gpu}, "");
  const Gpu& gpu = res.in.gpus.front();
  const GpuPrice& price = res.in.gpu_prices.front();
  const PreparedModel& pm = res.in.models.front();
  LayoutPins pins;
  pins.tp = want.tp;
  pins.pp = want.pp;
  pins.ep = want.ep;
  res.pinned = want.tp > 0 || want.pp > 0 || want.ep > 0;
  // The run as recommend's training search evaluates one GPU count (core::search_training_layout),
  // judged by the one training judge at the same end of the band.
  SearchPolicy policy;
  policy.max_nodes = spec.constraints.max_nodes;
  policy.confidence = confidence;
  policy.calibration = band_calibration(catalog);
  TrainingCandidate& c = res.current;
  c.price_known = price.usd_per_gpu_hour > 0.0;
  c.estimate = search_training_layout(pm, spec.training, gpu, want.gpus, pins, TrainingConfig{}, price);
  c.throughput_low = training_throughput_low(policy.calibration, confidence, gpu.id, model_class_of(pm.model),
                                             gpu.training_reach);
  res.verdict = judge(c.estimate, spec.sla, c.price_known, c.throughput_low);
  res.confidence = confidence;
  c.rejection = res.verdict.first;
  c.meets = res.verdict.passes();
  res.meets = c.meets;
  res.bands = candidate_bands(catalog, res.in, c);

  // The same GPU type searched as recommend searches it (its node limit is the spec's).
  const TrainingRecommendation same = recommend_training(pm, spec.training, spec.sla, res.in.gpus,
                                                         res.in.gpu_prices, policy, TrainingConfig{});
  if (!same.candidates.empty()) {
    const TrainingCandidate& best = same.candidates.front();
    if (!res.meets) {
      res.would_pass = best;
    } else if (c.price_known && best.price_known && best.estimate.usd_total < c.estimate.usd_total) {
      res.cheaper_same_gpu = best;
      res.same_gpu_saving = 1.0 - best.estimate.usd_total / c.estimate.usd_total;
      res.over_provisioned = res.same_gpu_saving > max_overspend;
    }
  }
  if (res.would_pass) res.option_bands = candidate_bands(catalog, res.in, *res.would_pass);
  if (res.cheaper_same_gpu) res.option_bands = candidate_bands(catalog, res.in, *res.cheaper_same_gpu);
  res.pass = res.meets && !res.over_provisioned;
  return res;
}

} // namespace rightsize::app
