#pragma once
// Inputs of the application-layer tests: the shipped catalog priced on demand (and, when asked, the
// shipped calibration), and the example specs.
#include <string>

#include "app/context.hpp"
#include "io/catalog/catalog_io.hpp"
#include "io/runs/validation_io.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::test {

inline const std::string k_data_dir = RIGHTSIZE_DATA_DIR;

/// data/gpus.json with every GPU's resolved price; with `calibrated`, data/calibration.json's bands.
inline app::LoadedCatalog priced_catalog(bool calibrated = false) {
  app::LoadedCatalog loaded;
  loaded.catalog = io::load_catalog(k_data_dir + "/gpus.json");
  for (const auto& gpu : loaded.catalog.gpus)
    loaded.prices.push_back(resolve_price(gpu, loaded.pricing, loaded.provider, loaded.tco));
  if (calibrated) {
    loaded.calibration = io::load_calibration(k_data_dir + "/calibration.json");
    loaded.calibrated = true;
  }
  return loaded;
}

/// An example spec of data/examples by file name.
inline Spec example_spec(const std::string& file) {
  return io::load_spec(k_data_dir + "/examples/" + file, k_data_dir + "/models");
}

} // namespace rightsize::test
