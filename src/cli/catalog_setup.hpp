#pragma once
// Loading the GPU catalog for a command: --catalog / --catalog-add files, --price overrides, and the
// price model from the spec's constraints or the --pricing / --provider / --tco flags.
#include <map>
#include <string>
#include <vector>

#include "app.hpp"
#include "catalog_io.hpp"
#include "rightsize/calibration.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// A catalog ready for a command: the GPUs, the price model in force and each GPU's price.
struct LoadedCatalog {
  io::Catalog catalog;
  PricingModel pricing = PricingModel::on_demand;
  std::string provider;
  TcoParams tco;
  std::vector<ResolvedPrice> prices; // parallel to catalog.gpus
  Calibration calibration;           // data/calibration.json (empty with --no-calibration)
  bool calibrated = false;           // efficiency factors and error bands come from it
  /// Which calibration is in force, in words: "data/calibration.json" (shipped), "none"
  /// (--no-calibration) or "data/calibration.json + FILE (GPU x engine, N runs, DATE)".
  std::string calibration_label = "none";
  std::string calibration_overlay;                    // the --calibration FILE applied; empty when none
  std::map<std::string, std::string> overlay_engines; // GPU id -> engine its overlay stack was fitted with
};

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

/// The price of a GPU of `loaded.catalog` (by identity, else by id); an internal Error otherwise.
const ResolvedPrice& price_of(const LoadedCatalog& loaded, const Gpu& gpu);

/// Today as days since 1970-01-01: $RIGHTSIZE_TODAY (YYYY-MM-DD, for reproducible runs) or the clock.
std::int64_t today_days();
/// Days since the newest quote behind a price (-1 when undated).
std::int64_t price_age_days(const ResolvedPrice& price);

/// Provider names of all price quotes in the catalog, lower-case, sorted, unique.
std::vector<std::string> catalog_providers(const io::Catalog& catalog);

/// Finds a GPU named on the command line; unknown -> usage Error with did-you-mean, naming `source`
/// (a flag or argument name; may be empty).
const Gpu& require_gpu(const io::Catalog& catalog, const std::string& id_or_alias, const std::string& source);

} // namespace rightsize::cli
