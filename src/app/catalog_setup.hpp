#pragma once
// The GPU catalog a command runs on (docs/catalog.md): data/gpus.json or --catalog, the --catalog-add
// overlays, data/calibration.json and a --calibration overlay, the price model from the spec's
// constraints or the flags, --max-price-age and --price. The CLI parses and checks the flags'
// values into a CatalogSetup; everything that needs a file happens here.
#include <optional>
#include <string>
#include <vector>

#include "app/context.hpp"
#include "app/diagnostics.hpp"
#include "app/environment.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// One --tco KEY=VALUE, its value checked against the key's range.
struct TcoSetting {
  std::string key;                    ///< the key as named on the command line
  double TcoParams::*field = nullptr; ///< the parameter it sets
  double value = 0.0;
  bool owned_only = false; ///< builds an owned GPU's hour: changes nothing without on_prem pricing
};

/// One --price ID=USD: the value checked, the GPU looked up when the catalog is loaded.
struct PriceOverride {
  std::string gpu;
  double usd_per_gpu_hour = 0.0;
};

/// The catalog flags every catalog-using command shares, parsed.
struct CatalogSetup {
  std::string catalog;                  ///< --catalog FILE replaces data/gpus.json; "" = the shipped one
  std::vector<std::string> catalog_add; ///< --catalog-add FILE adds/overrides entries, in order
  std::vector<PriceOverride> prices;    ///< --price, applied last
  std::optional<PricingModel> pricing;  ///< --pricing; none = the spec's constraints, else on_demand
  std::string provider;                 ///< --provider; "" = the spec's, else the median of quotes
  std::vector<TcoSetting> tco;          ///< --tco, over the spec's constraints.tco
  bool no_calibration = false;          ///< --no-calibration: the catalog's own efficiency factors
  std::string calibration;              ///< --calibration FILE: an overlay from `rightsize calibrate`
  int max_price_age_days = -1;          ///< --max-price-age DAYS (0 to 36500); -1 = keep every quote
};

/// Loads the catalog of `setup` (or the data folder's gpus.json) and data/engines.json, applies the
/// --catalog-add overlays, the calibration and its overlay, then the pricing model: the flags override
/// `spec_constraints` (the spec's constraints.pricing/provider/tco) when given. Warns through
/// `diagnostics` when the catalog's prices are older than 90 days. An unknown provider is a usage
/// Error naming --provider, or an input Error at `spec_source`'s /constraints/provider; bad catalog
/// files throw ErrorList (exit 3).
LoadedCatalog load_catalog(const CatalogSetup& setup, const Environment& environment,
                           Diagnostics& diagnostics, const Constraints* spec_constraints,
                           const std::string& spec_source = "spec");

/// Provider names of all price quotes in the catalog, lower-case, sorted, unique.
std::vector<std::string> catalog_providers(const io::Catalog& catalog);

/// Warns when the overlay's stack for `gpu_id` was fitted with another engine than `engine`: its
/// factors are applied anyway (they are per GPU), and the user should know.
void warn_overlay_engine(const LoadedCatalog& loaded, const std::string& gpu_id, const std::string& engine,
                         Diagnostics& diagnostics);

} // namespace rightsize::app
