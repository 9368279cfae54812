#pragma once
// The writers of `calibrate` (docs/calibration.md): the before -> after tables or a JSON document,
// formatted from the use case's result (src/app/calibrate.hpp); they decide nothing.
#include <string>

#include "app/calibrate.hpp"
#include "render/output_format.hpp"
#include "render/render.hpp"

namespace rightsize::cli {

/// Prints a calibration in `format` (table or json) to stdout; `out` is the overlay file written.
void render_calibrate(const LoadedCatalog& catalog, const app::CalibrateResult& result,
                      const std::string& out, Format format);

/// The calibration overlay's file text (for --calibration FILE), as the CLI writes it to --out.
std::string overlay_text(const app::CalibrateResult& result);

} // namespace rightsize::cli
