#pragma once
// The `calibrate` use case (docs/calibration.md): benchmark runs grouped by GPU x engine, the
// efficiency factors fitted to each group (core fit_stack) and every number of the before -> after
// tables: which factor was fitted or kept and why, the layout families with their own factors, and
// the GPUs that keep the shipped factors. The CLI reads the files and flags, writes the overlay and
// formats the result.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/catalog_setup.hpp"
#include "app/context.hpp"
#include "app/diagnostics.hpp"
#include "app/environment.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/bench_runs.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::app {

/// The most runs (fitted and held out) of one GPU × engine that calibrate fits within the 2 s limit
/// (docs/reliability.md "Resource limits"): 2026-12-02, runs of distinct contexts (one estimate each
/// per fold, and each fold's residuals refitted) cost about 3.4 ms of CPU: 500 of them 1.7 s, 400 about
/// 1.35 s (1,000 took 2.5-2.9 s before the refits).
inline constexpr std::size_t k_max_calibrate_runs = 400;

/// The runs of one GPU x engine.
struct StackRuns {
  std::vector<StackRun> fit, holdout;
};

/// Benchmark runs read so far, grouped by (GPU id, engine), with the files they came from.
struct CalibrationRuns {
  std::map<std::pair<std::string, std::string>, StackRuns> stacks;
  std::vector<std::string> inputs;         ///< files fitted to, in the order read
  std::vector<std::string> holdout_inputs; ///< files only scored
};

/// Adds the runs read from `file` to their GPU x engine (GPU ids resolved through the catalog,
/// engines normalised). A run on a GPU the catalog lacks is an input Error naming the file.
void add_runs(CalibrationRuns& into, const std::string& file, std::vector<StackRun> runs, bool holdout,
              const io::Catalog& catalog);

/// One efficiency factor of a stack, shipped -> fitted.
struct CalibratedFactor {
  const char* name = "";        ///< the calibration.json key (decode_bandwidth, ...)
  double shipped = 0.0;         ///< the factor before the fit
  double fitted = 0.0;          ///< the factor after the fit (the shipped one when kept)
  std::string source;           ///< FittedEfficiency's source: "fitted", else why it was kept
  bool is_fitted = false;       ///< source == "fitted"
  std::size_t measurements = 0; ///< measurements sensitive to it (a run's TTFT, TPOT, throughput)
  std::size_t runs = 0;         ///< distinct runs among them: a fit needs 2
  const char* informed_by = ""; ///< what a run needs to inform it, for "kept" lines
  bool at_bound = false;        ///< fitted to a bound of FitOptions: the runs wanted it further
  double bound = 0.0;           ///< that bound, when at_bound
};

/// One layout family of a stack: its own factors (those fitted), or the stack's.
struct CalibratedLayout {
  LayoutFamily family = LayoutFamily::tp;
  std::size_t runs = 0;
  bool own = false;                     ///< k_min_layout_runs runs or more: factors of its own
  std::vector<CalibratedFactor> fitted; ///< its factors with source "fitted" (empty: the stack's apply)
  std::vector<FigureError> loo;         ///< its leave-one-out errors, stack vs family factors
};

/// One fitted GPU x engine and the decisions of its table (its fit: the same index of
/// CalibrateResult::overlay.stacks).
struct CalibratedStack {
  std::vector<CalibratedFactor> factors; ///< every factor, in calibration.json order
  std::size_t holdout_runs = 0;          ///< held-out runs scored against it
  bool few_fit_runs = false;             ///< fewer than 3 fit runs: leave-one-out cannot show a gain
  std::vector<CalibratedLayout> layouts;
  std::vector<BandEntry> shipped_bands; ///< the GPU's shipped band of each figure the fit bands
};

/// Above this leave-one-out median |error| (percent) on any figure of a stack, the fit does not
/// hold: calibrate warns and writes the overlay only with --force (issue 38).
inline constexpr double k_weak_fit_pct = 25.0;

/// A calibration and every number its tables show.
struct CalibrateResult {
  io::CalibrationOverlay overlay;         ///< what --out receives
  std::vector<CalibratedStack> stacks;    ///< parallel to overlay.stacks
  std::vector<std::string> held_out_only; ///< "GPU x engine" with only held-out runs: nothing fitted
  std::set<std::string> fitted_gpus;      ///< GPU ids with a fitted stack
  std::size_t gpus_keeping_shipped = 0;   ///< catalog GPUs without one
  /// "GPU x engine: TTFT 31 %" for each figure whose leave-one-out error stays above k_weak_fit_pct.
  std::vector<std::string> weak_fits;
  bool write_overlay = true; ///< false: a weak fit without --force; nothing is written (exit 1)
};

/// The stacks of `runs` that have only held-out runs ("GPU x engine"), sorted: nothing is fitted to
/// them and they keep the shipped factors.
std::vector<std::string> held_out_only_stacks(const CalibrationRuns& runs);

/// Fits every GPU x engine of `runs` with fit runs on top of the shipped calibration of `catalog`,
/// dated `today_days` (days since 1970-01-01). Runs of one GPU on two serving engines are a usage
/// Error naming RUNS (an overlay holds one engine per GPU).
CalibrateResult run_calibrate(const CalibrationRuns& runs, const LoadedCatalog& catalog,
                              std::int64_t today_days);

/// `calibrate`'s flags, parsed: the result files and the context of those that carry none.
struct CalibrateRequest {
  Environment environment;
  CatalogSetup catalog;
  std::vector<std::string> runs;    ///< result files fitted to
  std::vector<std::string> holdout; ///< result files only scored
  std::string manifest;             ///< --manifest: result files with their context; "" = none
  io::RunContext context;           ///< the flags' run context (its engine, recompute, precision checked)
  std::string out;    ///< --out: no file the manifest lists may be it (the CLI checks the others up front)
  bool force = false; ///< --force: write the overlay even when a fit does not hold (weak_fits)
};

/// A file `calibrate` reads: what it is ("a run file (RUNS)", "the --manifest file") and its path.
struct CalibrateInput {
  std::string what;
  std::string path;
};

/// Every file `calibrate` reads that its flags name: run files, --holdout, --manifest, the
/// catalog files and the data folder's gpus.json, engines.json and calibration.json (--out may be
/// none of them: it would replace its own input).
std::vector<CalibrateInput> calibrate_inputs(const CalibrateRequest& request);

/// Everything `calibrate` loaded and decided: the writers' input.
struct CalibrateOutcome {
  LoadedCatalog catalog;
  CalibrateResult result;
};

/// Loads the catalog (with data/calibration.json: --no-calibration is a usage Error), checks the
/// flags' GPU and model against it and the presets, reads every result file (a file without its own
/// context needs the flags': usage Errors naming the missing one), warns about stacks with only
/// held-out runs, and fits.
CalibrateOutcome run_calibrate(const CalibrateRequest& request, Diagnostics& diagnostics);

} // namespace rightsize::app
