#pragma once
// Calibration overlays written by `rightsize calibrate` and read by --calibration FILE
// (docs/calibration.md, "Overlay file").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rightsize/stack_calibration.hpp"

namespace rightsize::io {

struct CalibrationOverlay {
  std::string date;                        ///< YYYY-MM-DD the fit was made
  std::vector<std::string> inputs;         ///< the result files it was fitted to
  std::vector<std::string> holdout_inputs; ///< result files only scored (--holdout), never fitted to
  std::vector<StackFit> stacks;            ///< one per GPU x engine; at most one per GPU
};

/// The range of a value an overlay file holds. load_overlay refuses a value outside it and
/// check_overlay_ranges refuses to write one, so calibrate never writes an overlay --calibration
/// refuses (issue 42). `min_exclusive` ranges start above `min` (always 0 for them).
struct OverlayRange {
  double min = 0.0;
  double max = 0.0;
  bool min_exclusive = false;
};
inline constexpr OverlayRange k_overlay_efficiency_range{0.01, 1.0, false}; ///< a fraction of the peak
inline constexpr OverlayRange k_overlay_shipped_range{0.0, 1.0, false};
/// A multiple of the engine profile's value (GpuEfficiency::layer_overhead), fitted or shipped.
inline constexpr OverlayRange k_overlay_multiple_range{0.01, 100.0, false};
inline constexpr OverlayRange k_overlay_ratio_low_range{0.0, 1.0, true};   ///< band p10 measured / predicted
inline constexpr OverlayRange k_overlay_ratio_high_range{1.0, 1e6, false}; ///< band p90
inline constexpr OverlayRange k_overlay_p99_over_mean_range{0.0, 1e3, true}; ///< a tail: p99 / mean
inline constexpr OverlayRange k_overlay_ape_pct_range{0.0, 1e9, false};      ///< median |error| in percent
/// A residual coefficient (ln multiplier per unit of ln C or ln ISL): |10| is a factor e^10 ≈ 22,000.
inline constexpr OverlayRange k_overlay_residual_coefficient_range{-10.0, 10.0, false};
/// A residual's concurrency and input-token range.
inline constexpr OverlayRange k_overlay_residual_span_range{1.0, 1e9, false};

/// Throws Error (input, source "RUNS") naming the GPU x engine, the value as the file would hold it
/// (rounded) and its range when any value of `overlay` falls outside its OverlayRange: the runs are
/// implausible (a p99 5,000x the mean), and writing them would give a file --calibration refuses.
void check_overlay_ranges(const CalibrationOverlay& overlay);

/// The before -> after errors as a JSON array of {"figure", "runs", "median_ape_shipped_pct",
/// "median_ape_fitted_pct"} (percent to 0.1); the overlay's and `calibrate --format json`'s shape.
nlohmann::json figure_errors_json(const std::vector<FigureError>& errors);

/// The tail fits as a JSON array of {"kind", "p99_over_mean", "runs", "median_ape_shipped_pct",
/// "median_ape_fitted_pct"}: the overlay's and `calibrate --format json`'s shape.
nlohmann::json tails_json(const std::vector<TailFit>& tails);

/// The layout fits as a JSON array of {"family", "runs", "own_factors", and with own factors
/// "efficiency", "source", "fitted_to", "error_leave_one_out"}.
nlohmann::json layouts_json(const std::vector<LayoutFit>& layouts);

/// The residuals as a JSON array of {"model", "weights", "engine", "tp", "pp", "ep", "runs",
/// "concurrency": [min, max], "input_tokens": [min, max], "ttft" / "tpot": {"coefficients",
/// "loo_median_ape_before_pct", "loo_median_ape_after_pct"}} (docs/calibration.md "Residuals").
nlohmann::json residuals_json(const std::vector<StackResidual>& residuals);

/// Deterministic JSON text (sorted keys, 4-significant-digit factors, trailing newline).
std::string overlay_to_json(const CalibrationOverlay& overlay);

/// Loads an overlay. Throws Error (input) naming the file and JSON pointer; two stacks on one GPU
/// are an error (the overlay applies by GPU).
CalibrationOverlay load_overlay(const std::string& path);

} // namespace rightsize::io
