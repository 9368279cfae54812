#pragma once
// The `models` use case (docs/cli.md "models"): the shipped presets with their counted parameters.
// One row model for every writer (table and JSON).
#include <cstdint>
#include <string>
#include <vector>

#include "app/environment.hpp"
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

/// `models`' flags, parsed: none but where the data is.
struct ModelsRequest {
  Environment environment;
};

/// The presets of the data folder's models/, with counted parameters.
std::vector<ModelRow> run_models(const ModelsRequest& request);

} // namespace rightsize::app
