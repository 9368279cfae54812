#pragma once
// Calibrating the estimator to a user's own benchmark runs (`rightsize calibrate`, docs/calibration.md):
// per GPU x engine, the efficiency factors of calibration.hpp are fitted to the runs, starting from
// the shipped (data/calibration.json) factors and within FitOptions' physical bounds; leave-one-out
// errors say how much the fit helps. The result is an overlay applied on top of the shipped
// calibration. Pure: runs, GPUs and models come in as values.
#include <string>
#include <vector>

#include "rightsize/calibration.hpp"
#include "rightsize/model.hpp"
#include "rightsize/serving_validation.hpp"

namespace rightsize {

/// One benchmark run with the context the tools' files lack. run.ttft_s / run.tpot_s are the
/// measured means in seconds (0 = not measured); output_tokens_per_s the measured output-token
/// throughput of the whole run (0 = not measured).
struct StackRun {
  ServingRun run;
  ModelSpec model;                  ///< the run's model (its preset)
  double output_tokens_per_s = 0.0; ///< tokens/s, 0 = not measured
  std::string source;               ///< the file it came from (for messages and the overlay)
  /// Training runs (validation-case format): their cases as given; `run` then only names the run
  /// (id, gpu_id, engine "training").
  std::vector<ValidationCase> cases;
};

/// The validation cases of one run: one per measured figure (TTFT, TPOT, output throughput), ids
/// "<run id>:ttft", ":tpot", ":throughput". Same workload, layout and precision as predict_serving.
/// A training run's cases are returned as given.
std::vector<ValidationCase> stack_cases(const StackRun& run);

/// Error of one figure over a set of runs: median absolute percentage error with the shipped
/// factors and with the fitted ones (leave-one-out for the fit runs, plain for held-out runs).
struct FigureError {
  FigureKind kind = FigureKind::ttft;
  int runs = 0;
  double median_ape_shipped_pct = 0.0;
  double median_ape_fitted_pct = 0.0;
};

/// The fit of one GPU x engine.
struct StackFit {
  std::string gpu_id;
  std::string engine; ///< "vllm", "sglang", "trtllm", or "training" (training runs)
  GpuEfficiency shipped;
  FittedEfficiency fitted; ///< *_source "fitted" (from these runs) or "shipped" (kept)
  std::vector<std::string> runs;
  std::vector<BandEntry> bands;     ///< p10/p90 of measured / leave-one-out prediction per figure
  std::vector<FigureError> loo;     ///< on the fit runs, leave-one-out (one run out at a time)
  std::vector<FigureError> holdout; ///< on held-out runs (never seen by the fit); empty if none
};

/// Minimum leave-one-out residuals of a figure for the overlay to carry its own band (fewer keep
/// the shipped band).
inline constexpr int k_min_band_runs = 5;

/// Fits one GPU x engine: `gpu` carries the shipped efficiency; every run of `fit_runs` and
/// `holdout_runs` must be on that GPU with that engine (not checked here). Factors no run informs
/// keep the shipped value. Deterministic.
StackFit fit_stack(const std::vector<StackRun>& fit_runs, const std::vector<StackRun>& holdout_runs,
                   const Gpu& gpu, const EngineConfig& engine, const FitOptions& options);

/// Applies fitted stacks on top of an already calibrated catalog: each stack's GPU takes the
/// factors the stack fitted (kept factors stay as they are) and its bands replace that GPU's
/// entries in `calibration`. Stacks whose GPU is not in `gpus` are ignored.
void apply_stack_fits(const std::vector<StackFit>& stacks, std::vector<Gpu>& gpus, Calibration& calibration);

} // namespace rightsize
