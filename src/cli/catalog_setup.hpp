#pragma once
// Loading the GPU catalog for a command: --catalog / --catalog-add files, --price overrides, and the
// price model from the spec's constraints or the --pricing / --provider / --tco flags.
#include <map>
#include <string>
#include <vector>

#include "app/context.hpp"
#include "cli/commands.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

using app::LoadedCatalog;
using app::price_of;
using app::require_gpu;

/// "calibration  <label>": the table line commands print when --calibration is in force (their JSON
/// gets a "calibration" field with the label); outputs without an overlay keep their shape.
std::string calibration_table_line(const LoadedCatalog& loaded);

/// Warns when the overlay's stack for `gpu_id` was fitted with another engine than `engine`: its
/// factors are applied anyway (they are per GPU), and the user should know.
void warn_overlay_engine(const LoadedCatalog& loaded, const std::string& gpu_id, const std::string& engine);

/// Loads --catalog (or data_dir()/gpus.json), applies --catalog-add overlays, --price overrides,
/// then the pricing model: flags override `spec_constraints` (the spec's constraints.pricing/provider/tco)
/// when given. Warns on stderr (spdlog or fmt to stderr, format `rightsize: warning: ...`) when prices are
/// older than 90 days relative to today (today = $RIGHTSIZE_TODAY if set, YYYY-MM-DD, else the system clock).
/// Bad flags are usage Errors naming the flag; bad catalog files throw ErrorList (exit 3).
/// `spec_source` names the spec file in errors about its constraints (an unknown provider).
LoadedCatalog load_catalog(const CatalogOptions& options, const Constraints* spec_constraints,
                           const std::string& spec_source = "spec");

/// Today as days since 1970-01-01: $RIGHTSIZE_TODAY (YYYY-MM-DD, for reproducible runs) or the clock.
std::int64_t today_days();
/// Provider names of all price quotes in the catalog, lower-case, sorted, unique.
std::vector<std::string> catalog_providers(const io::Catalog& catalog);

} // namespace rightsize::cli
