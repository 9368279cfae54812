#pragma once
// The writers of `calibrate` (docs/calibration.md): the before -> after tables or a JSON document,
// formatted from the use case's result (src/app/calibrate.hpp); they decide nothing.
#include <string>

#include "app/calibrate.hpp"
#include "cli/catalog_setup.hpp"
#include "cli/commands.hpp"

namespace rightsize::cli {

/// Prints a calibration in `format` (table or json) to stdout; `out` is the overlay file written.
void render_calibrate(const LoadedCatalog& catalog, const app::CalibrateResult& result,
                      const std::string& out, Format format);

} // namespace rightsize::cli
