#pragma once
// The catalog and pricing flags every catalog-using command shares (--catalog, --catalog-add, --price,
// --pricing, --provider, --tco, --no-calibration, --calibration, --max-price-age), parsed into the
// use case's app::CatalogSetup before any file is read (app/catalog_setup.hpp loads the catalog).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/catalog_setup.hpp"

namespace rightsize::cli {

/// The flags as typed.
struct CatalogOptions {
  std::string catalog;                  ///< --catalog FILE replaces data/gpus.json
  std::vector<std::string> catalog_add; ///< --catalog-add FILE adds/overrides entries
  std::vector<std::string> prices;      ///< --price ID=USD (repeatable)
  std::string pricing;                  ///< --pricing on_demand|spot|on_prem
  std::string provider;                 ///< --provider NAME
  std::vector<std::string> tco;         ///< --tco KEY=VALUE (repeatable)
  bool no_calibration = false;          ///< --no-calibration: the catalog's own efficiency factors
  std::string calibration;              ///< --calibration FILE: an overlay from `rightsize calibrate`
  int max_price_age_days = -1;          ///< --max-price-age DAYS: ignore older quotes; -1 = keep all
};
void add_catalog_options(CLI::App* command, CatalogOptions& options);

/// The setup of `options`: each bad value is a usage Error naming its flag (--pricing, --tco,
/// --price, --max-price-age); the GPU of a --price is looked up when the catalog is loaded.
app::CatalogSetup catalog_setup(const CatalogOptions& options);

} // namespace rightsize::cli
