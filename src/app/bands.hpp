#pragma once
// The error bands an output shows beside an estimate (docs/accuracy.md "Error bands"): p10..p90 of
// measured/predicted per figure from the calibration, the p99 an overlay measured, and the SLA terms
// met only at the optimistic end of the band (the cautions of --confidence p50). Computed by the use
// cases for every estimate they return; the writers only format them.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app/context.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/judge.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"
#include "rightsize/training.hpp"
#include "rightsize/training_recommend.hpp"

namespace rightsize::app {

/// Where the bands of one estimate come from: the calibration (null = none loaded), the GPU and the
/// model class.
struct BandSource {
  const Calibration* calibration = nullptr;
  std::string gpu_id;
  std::string model_class;
  Reach reach = Reach::measured; ///< the GPU's (assign_reach)
  int overlay_runs = 0;          ///< runs of a --calibration overlay stack on the GPU (0 = none)
};

/// A --calibration overlay's measured tail of a latency: p99 = mean × p99/mean of the user's runs
/// (core::tail_for).
struct OverlayTail {
  double p99_s = 0.0;
  double p99_over_mean = 1.0;
  int runs = 0;
};

/// The bands of one inference estimate.
struct EstimateBands {
  bool calibrated = false;  ///< a calibration was loaded: without one every band is the value itself
  InferenceBands inference; ///< TTFT, TPOT, E2E, output tokens/s, requests/s (core::inference_bands)
  Band memory_per_gpu_bytes;
  std::optional<OverlayTail> ttft_tail; ///< with an overlay that measured it on this GPU
  std::optional<OverlayTail> tpot_tail;
  /// SLA terms the point estimate meets but the band's p90 (latency) or p10 (throughput) misses
  /// (core::optimistic_only_terms at p90 factors); none without a calibration.
  std::array<TermCheck, 7> optimistic_only{};
  std::size_t optimistic_only_count = 0;
  /// The model class and its band widening; `measured` false: no scored case of the class, so every
  /// band above is an unseen class's (shown as a caution). Set when calibrated.
  std::string model_class;
  ClassWidth class_width;
  /// How far the estimate reaches beyond measured serving runs (its GPU's; set when calibrated),
  /// and for gpu_sibling / extrapolated the held-out GPUs its TTFT/TPOT band came from.
  Reach reach = Reach::measured;
  std::vector<std::string> reach_held_out;
  /// Runs of a --calibration overlay stack on the GPU (0 = none): with fewer than k_min_band_runs
  /// they set its factors but no band, so the reach stays the shipped rows' (reach_note says so).
  int overlay_runs = 0;
  /// An open loop's slow end (methodology §3.5 "Open loop: the band through the queue"): the arrival
  /// rate it was estimated at (the rate × the TPOT band's ratio; 0 = none) and whether it is overloaded
  /// (then the TTFT and E2E highs are unbounded).
  double slow_end_requests_per_s = 0.0;
  bool slow_end_overloaded = false;
};

/// The bands of one training estimate: throughput and reserved memory (measured/predicted); step
/// time, time to train and cost scale with the inverse of the throughput's ratio.
struct TrainingBands {
  bool calibrated = false;
  /// How far the throughput band reaches beyond measured training cases (the GPU's training reach;
  /// set when calibrated): gpu_sibling and extrapolated take the union with the reach band.
  Reach reach = Reach::measured;
  Band tokens_per_s;
  Band memory_reserved_bytes;
  Band step_time_s;
  Band time_to_train_s;
  Band usd_total;
};

/// The bands of an estimate on `gpu` for `model`: the catalog's calibration when one is loaded, at
/// the GPU's serving reach.
BandSource band_source(const LoadedCatalog& catalog, const Gpu& gpu, const ModelSpec& model);
/// The same for a training estimate: at the GPU's training reach (Gpu::training_reach).
BandSource training_band_source(const LoadedCatalog& catalog, const Gpu& gpu, const ModelSpec& model);

/// What an open loop's slow end is estimated from (core::slow_end_estimate): the estimate's model,
/// workload (with the deployment's arrival rate), GPU, whole deployment and engine.
struct OpenLoopInputs {
  const PreparedModel& model;
  const InferenceWorkload& workload;
  const Gpu& gpu;
  const Deployment& deployment;
  const EngineConfig& engine;
};
/// The bands of `estimate` from `source`, and its optimistic-only terms against `sla`. With `open`,
/// an open loop's latency bands and cautions reach through the queue to its slow end at the p90
/// factors (core::band_through_queue, methodology §3.5), as core::judge takes them.
EstimateBands estimate_bands(const BandSource& source, const InferenceEstimate& estimate, const Sla& sla,
                             const OpenLoopInputs* open = nullptr);
/// The bands of a training estimate from `source`.
TrainingBands training_bands(const BandSource& source, const TrainingEstimate& estimate);

/// The bands of a searched candidate of `in` (its GPU and precision's model).
EstimateBands candidate_bands(const LoadedCatalog& catalog, const SearchInputs& in,
                              const Candidate& candidate, const Sla& sla, const InferenceWorkload& workload,
                              const EngineConfig& engine);
/// The bands of a searched training candidate of `in`.
TrainingBands candidate_bands(const LoadedCatalog& catalog, const SearchInputs& in,
                              const TrainingCandidate& candidate);

} // namespace rightsize::app
