#pragma once
// The `models` use case (docs/cli.md "models"): the shipped presets with their counted parameters.
// One row model for every writer (table and JSON).
#include <cstdint>
#include <string>
#include <vector>

#include "io/spec/spec_io.hpp"
#include "rightsize/model.hpp"

namespace rightsize::app {

/// One preset as every format lists it.
struct ModelRow {
  io::Preset preset;
  ParamCounts params; ///< core's count (count_params), not the published figure
};

/// The presets in `models_dir`, sorted by id, each with its parameter count.
std::vector<ModelRow> list_models(const std::string& models_dir);

} // namespace rightsize::app
