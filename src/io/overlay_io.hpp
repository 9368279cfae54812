#pragma once
// Calibration overlays written by `rightsize calibrate` and read by --calibration FILE
// (docs/calibration.md, "Overlay file").
#include <string>
#include <vector>

#include "rightsize/stack_calibration.hpp"

namespace rightsize::io {

struct CalibrationOverlay {
  std::string date;                        ///< YYYY-MM-DD the fit was made
  std::vector<std::string> inputs;         ///< the result files it was fitted to
  std::vector<std::string> holdout_inputs; ///< result files only scored (--holdout), never fitted to
  std::vector<StackFit> stacks;            ///< one per GPU x engine; at most one per GPU
};

/// Deterministic JSON text (sorted keys, 4-significant-digit factors, trailing newline).
std::string overlay_to_json(const CalibrationOverlay& overlay);

/// Loads an overlay. Throws Error (input) naming the file and JSON pointer; two stacks on one GPU
/// are an error (the overlay applies by GPU).
CalibrationOverlay load_overlay(const std::string& path);

} // namespace rightsize::io
