#pragma once
// Validation cases (tests/validation/cases.json), the stand-in GPU table, calibration files
// (data/calibration.json) and accuracy baselines <-> checked values. Format: tests/validation/README.md.
#include <map>
#include <string>
#include <vector>

#include "rightsize/calibration.hpp"
#include "rightsize/gpu.hpp"

namespace rightsize::io {

/// Loads every case of a cases file. Throws Error (input) naming the file and JSON pointer.
std::vector<ValidationCase> load_validation_cases(const std::string& path);

/// Loads the small GPU table tests/validation/gpus-fallback.json (used until data/gpus.json and
/// io::load_catalog are on main). Efficiency factors are left at their defaults.
std::vector<Gpu> load_fallback_gpus(const std::string& path);

/// Serialises a calibration as deterministic JSON text (sorted keys, fixed number formatting,
/// trailing newline).
std::string calibration_to_json(const Calibration& calibration);

/// Loads data/calibration.json. Throws Error (input) on a bad file or an unknown schema_version.
Calibration load_calibration(const std::string& path);

/// Median APE per figure kind (kind name -> percent), the accuracy regression baseline.
using AccuracyBaseline = std::map<std::string, double>;

/// Serialises a baseline as deterministic JSON text. `description` carries the file's history of
/// gate changes (why each was raised or tightened); empty = the standard description alone.
std::string baseline_to_json(const AccuracyBaseline& baseline, const std::string& description = "");

/// Loads tests/validation/baseline.json.
AccuracyBaseline load_baseline(const std::string& path);

/// The description of an existing baseline file, so a rewrite keeps its history.
std::string load_baseline_description(const std::string& path);

/// Writes text to a file, replacing it. Throws Error (input) when the file cannot be written.
void write_text_file(const std::string& path, const std::string& text);

} // namespace rightsize::io
