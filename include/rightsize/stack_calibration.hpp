#pragma once
// Calibrating the estimator to a user's own benchmark runs (`rightsize calibrate`, docs/calibration.md):
// per GPU x engine, the efficiency factors of calibration.hpp are fitted to the runs, starting from
// the shipped (data/calibration.json) factors and within FitOptions' physical bounds; leave-one-out
// errors say how much the fit helps. The result is an overlay applied on top of the shipped
// calibration. Pure: runs, GPUs and models come in as values.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
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
  double ttft_p99_s = 0.0;          ///< measured p99 TTFT, seconds, 0 = not measured
  double tpot_p99_s = 0.0;          ///< measured p99 TPOT, seconds, 0 = not measured
  std::string source;               ///< the file it came from (for messages and the overlay)
  /// Training runs (validation-case format): their cases as given; `run` then only names the run
  /// (id, gpu_id, engine "training").
  std::vector<ValidationCase> cases;
};

/// A training run read from a training log or CSV (docs/calibration.md, "Training runs"): the layout
/// and settings the estimator needs, and what was measured. 0 = not measured.
struct TrainingRunSpec {
  std::string id;
  ModelSpec model;
  Precision precision;
  std::string gpu_id;
  int gpus = 1, tp = 1, pp = 1;
  std::int64_t seq_len = 0, global_batch = 0;
  Recompute recompute = Recompute::full;
  TrainingFramework framework = TrainingFramework::generic;
  double tokens_per_s = 0.0;      ///< whole job, tokens/s
  double peak_memory_bytes = 0.0; ///< per GPU, in `memory_scope`
  MemoryScope memory_scope = MemoryScope::reserved;
};

/// The cases of a training run: "<id>:training_throughput" and "<id>:training_memory", each only
/// when measured; the layout pinned as run (TP, PP, recompute, global batch), DP = gpus / (TP x PP).
std::vector<ValidationCase> training_run_cases(const TrainingRunSpec& run);

/// One per-step metrics line of a training log (torchtitan's `step: ... tps: ... memory: ...`).
struct TrainingLogStep {
  std::int64_t step = 0;
  double tokens_per_s_per_gpu = 0.0;
  double memory_reserved_gib = 0.0; ///< GiB = 2^30 bytes, the allocator's peak reserve
};

/// Warm-up rule (docs/calibration.md): metrics lines of steps <= this are dropped. Default
/// max(1, ceil(10 % of the last logged step)): step 1 is always a warm-up (compilation, allocator
/// growth), and a tenth of the run covers the early logging intervals.
std::int64_t default_warmup_steps(std::int64_t last_step);

struct TrainingLogSummary {
  std::int64_t warmup_through_step = 0; ///< lines of steps <= this were dropped
  int lines_kept = 0, lines_dropped = 0;
  double tokens_per_s_per_gpu = 0.0;       ///< mean over the kept lines
  double peak_memory_reserved_bytes = 0.0; ///< max over the kept lines
};

/// Drops the warm-up lines (`warmup_steps` < 0: default_warmup_steps) and averages the rest.
/// lines_kept == 0 when every line is a warm-up step.
TrainingLogSummary summarize_training_log(const std::vector<TrainingLogStep>& steps,
                                          std::int64_t warmup_steps);

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

/// The tail of one latency figure (TTFT or TPOT) on one GPU x engine: the median over the fit runs
/// of measured p99 / measured mean, and how well mean x that ratio predicts the measured p99
/// (leave-one-out: run i's p99 from the factors and the ratio of the other runs).
struct TailFit {
  FigureKind kind = FigureKind::ttft;
  int runs = 0;                        ///< fit runs that report this p99
  double p99_over_mean = 1.0;          ///< median of measured p99 / measured mean
  double median_ape_shipped_pct = 0.0; ///< the estimator's own p99 (queueing model), shipped factors
  double median_ape_fitted_pct = 0.0;  ///< leave-one-out fitted mean x leave-one-out ratio
};

/// Minimum fit runs reporting a figure's p99 for the overlay to carry its tail ratio (each
/// leave-one-out ratio then rests on at least 2 runs).
inline constexpr int k_min_tail_runs = 3;

/// The factors of one layout family among a GPU x engine's runs (docs/calibration.md, "Layout
/// families"): fitted to that family's runs alone when it has k_min_layout_runs of them, else the
/// GPU x engine factors apply to it.
struct LayoutFit {
  LayoutFamily family = LayoutFamily::tp;
  std::vector<std::string> runs;
  bool own = false;        ///< true: own factors; false: too few runs, the GPU x engine factors apply
  FittedEfficiency fitted; ///< own only; a factor its runs do not inform keeps the stack's ("stack")
  /// own only: median |error| leave-one-out per figure, GPU x engine factors in the "shipped" slot,
  /// the family's in the "fitted" slot (both refitted without the left-out run).
  std::vector<FigureError> loo;
};

/// Minimum fit runs of a layout family for factors of its own.
inline constexpr int k_min_layout_runs = 3;

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
  std::vector<TailFit> tails;       ///< TTFT / TPOT p99 ratios, when >= k_min_tail_runs runs report them
  std::vector<LayoutFit> layouts;   ///< serving runs of two or more layout families only; by family
  /// What the factors leave, per stack (model, weights, engine, layout) of k_min_residual_runs fit
  /// runs or more whose leave-one-out selects a term (docs/calibration.md "Residuals").
  std::vector<StackResidual> residuals;
};

/// Distinct runs among case ids "<run>:<figure>" (stack_cases): one run's TPOT and throughput are
/// two measurements of one run, not two runs (FitOptions::distinct_runs).
std::size_t runs_among(const std::vector<std::string>& case_ids);

/// Minimum fit runs of one stack (model, weights, engine, layout) for a residual.
inline constexpr int k_min_residual_runs = 3;

/// The residuals of the serving `runs` of one GPU x engine against `runtime`, the GPU with the fitted
/// factors in force (layout factors included, no residuals): per stack and figure (TTFT, TPOT) the
/// model of ln(measured / predicted) in ln concurrency and ln input that leave-one-out selects.
/// Stacks where no figure selects a term are left out. Deterministic.
std::vector<StackResidual> fit_residuals(const std::vector<StackRun>& runs, const Gpu& runtime,
                                         const EngineConfig& engine);

/// Minimum leave-one-out residuals of a figure for the overlay to carry its own band (fewer keep
/// the shipped band).
inline constexpr int k_min_band_runs = 5;

/// The coverage a user-runs band is made for: 80 %, the p10..p90 of every other band.
inline constexpr double k_user_band_coverage = 0.80;

/// The split-conformal radius of ratios r = measured / predicted at `coverage` [CONFORMAL]: the
/// ⌈(n + 1)·coverage⌉-th smallest |ln r| of the n ratios (the largest when that rank exceeds n), so
/// the band e^±q holds a new run with at least that probability. Worked (tested): 1.1, 0.9, 1.3, 0.8,
/// 1.05 at 80 % → rank ⌈4.8⌉ = 5 of 5 → q = ln 1.3 = 0.262, band 0.769..1.3. 0 for no ratio.
double conformal_radius(const std::vector<double>& ratios, double coverage);

/// The end of a throughput band's rule when the runs did not report throughput and the band comes
/// from the requests/s their mean TTFT and TPOT imply (concurrency / E2E, Little's law).
inline constexpr std::string_view k_implied_throughput_rule = ", concurrency / E2E";

/// A closed-loop run's measured / predicted requests/s as its mean TTFT and TPOT imply it: by
/// Little's law requests/s = concurrency / E2E, E2E = TTFT + (OSL − 1)·TPOT (methodology §3.5), so
/// the ratio is predicted E2E / measured E2E. `ttft_s` and `tpot_s` hold {measured, predicted};
/// 0 when a measured mean is missing or the prediction is not a positive number.
double implied_throughput_ratio(std::array<double, 2> ttft_s, std::array<double, 2> tpot_s,
                                std::int64_t output_tokens);

/// One factor `rightsize calibrate` fits per stack (docs/calibration.md "What is fitted"): where it
/// lives in GpuEfficiency and FittedEfficiency, its fit bounds, what informs it. The one list the
/// fit's report (app), the overlay file (io) and applying an overlay (apply_stack_fits) iterate.
struct StackFactor {
  const char* name; ///< its key in the overlay file and its row in the report
  double GpuEfficiency::*value;
  std::string FittedEfficiency::*source;
  std::vector<std::string> FittedEfficiency::*cases;
  double FitOptions::*min, FitOptions::*max; ///< the fit's bounds
  const char* informed_by;                   ///< what a run needs to inform it, for "kept" lines
  /// A multiple of an engine-profile time (neutral value 1), not a fraction of a peak: its overlay
  /// range is a multiple's, and an overlay written before it existed reads as 1.
  bool multiple = false;
};

inline constexpr StackFactor k_stack_factors[] = {
    {"decode_bandwidth", &GpuEfficiency::decode_bandwidth, &FittedEfficiency::decode_source,
     &FittedEfficiency::decode_cases, &FitOptions::bandwidth_min, &FitOptions::bandwidth_max,
     "TPOT and throughput"},
    {"layer_overhead", &GpuEfficiency::layer_overhead, &FittedEfficiency::layer_overhead_source,
     &FittedEfficiency::layer_overhead_cases, &FitOptions::layer_overhead_min,
     &FitOptions::layer_overhead_max, "TPOT and throughput", true},
    {"prefill_compute", &GpuEfficiency::prefill_compute, &FittedEfficiency::prefill_source,
     &FittedEfficiency::prefill_cases, &FitOptions::compute_min, &FitOptions::compute_max, "TTFT"},
    {"communication", &GpuEfficiency::communication, &FittedEfficiency::communication_source,
     &FittedEfficiency::communication_cases, &FitOptions::communication_min, &FitOptions::communication_max,
     "runs with tp > 1"},
    {"training_mfu", &GpuEfficiency::training_mfu, &FittedEfficiency::training_source,
     &FittedEfficiency::training_cases, &FitOptions::mfu_min, &FitOptions::mfu_max, "training runs"},
};

/// Fits one GPU x engine: `gpu` carries the shipped efficiency; every run of `fit_runs` and
/// `holdout_runs` must be on that GPU with that engine (not checked here). Factors no run informs
/// keep the shipped value. Deterministic.
StackFit fit_stack(const std::vector<StackRun>& fit_runs, const std::vector<StackRun>& holdout_runs,
                   const Gpu& gpu, const EngineConfig& engine, const FitOptions& options);

/// Applies fitted stacks on top of an already calibrated catalog: each stack's GPU takes the
/// factors the stack fitted (kept factors stay as they are) and its bands replace that GPU's
/// entries in `calibration`, its tails that GPU's tail entries; layout fits with factors of their
/// own become the GPU's layout_efficiency (core::efficiency_for). Stacks whose GPU is not in `gpus`
/// are ignored.
void apply_stack_fits(const std::vector<StackFit>& stacks, std::vector<Gpu>& gpus, Calibration& calibration);

} // namespace rightsize
