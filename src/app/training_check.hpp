#pragma once
// `check` of a training run (docs/cli.md "check", issue 43 item 6): the run on the deployment's GPU
// type and count (its pins kept, else the fastest layout that fits, as recommend's training search
// picks per count), judged by core::judge on the deadline (planned time) and budget, and the cheapest
// passing run of the same GPU type from recommend's training search: what would pass when it fails,
// the over-provisioning test when it passes.
#include <optional>

#include "app/bands.hpp"
#include "app/context.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::app {

struct TrainingCheckResult {
  SearchInputs in;                         ///< the deployment's GPU and the spec's model
  TrainingCandidate current;               ///< the run as checked (gpu_index 0 of `in`)
  TrainingBands bands;                     ///< its error bands
  bool pinned = false;                     ///< a degree was pinned (--tp/--pp/--ep or the spec's deployment)
  Verdict verdict;                         ///< core::judge on it: fits, deadline, budget
  Confidence confidence = Confidence::p90; ///< the band's end the verdict was judged at
  /// The cheapest passing run of the same GPU type (recommend's training search on it): when the run
  /// fails, what would pass; when it passes and costs less per run, the over-provisioning test.
  std::optional<TrainingCandidate> would_pass;
  std::optional<TrainingCandidate> cheaper_same_gpu;
  TrainingBands option_bands;   ///< the error bands of would_pass or cheaper_same_gpu (never both)
  double same_gpu_saving = 0.0; ///< 1 − cheaper_same_gpu's cost per run ÷ the run's
  bool meets = false;
  bool over_provisioned = false; ///< meets, and a run of the same GPU type saves more than max_overspend
  bool pass = false;             ///< meets and not over-provisioned
};

/// Checks `want` (gpu a catalog id, gpus, tp/pp/ep pins; attention_dp at most 1) for the training
/// spec `spec`, judged at `confidence` as recommend judges (core::training_throughput_low).
/// `max_overspend`: the saving above which a cheaper run of the same GPU type fails it; the same-type
/// search is bounded by the spec's constraints.max_nodes as recommend's.
TrainingCheckResult run_training_check(const Spec& spec, const LoadedCatalog& catalog,
                                       const DeploymentSpec& want, Confidence confidence,
                                       double max_overspend);

} // namespace rightsize::app
