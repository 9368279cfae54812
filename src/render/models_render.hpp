#pragma once
// The writers of `models` (docs/cli.md "models"): the presets as a table or a JSON document,
// formatted from the use case's rows (src/app/models.hpp).
#include <vector>

#include "app/models.hpp"
#include "render/output_format.hpp"

namespace rightsize::cli {

/// Prints the presets in `format` (table or json) to stdout.
void render_models(const std::vector<app::ModelRow>& rows, Format format);

} // namespace rightsize::cli
