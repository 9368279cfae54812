#pragma once
// The `catalog` use cases (docs/catalog.md): `catalog list` rows and the sheet of `catalog show`,
// with every price resolved and the on-prem TCO and break-even computed once for every writer.
#include <optional>
#include <string>
#include <vector>

#include "app/catalog_setup.hpp"
#include "app/context.hpp"
#include "app/diagnostics.hpp"
#include "app/environment.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::app {

/// One GPU of `catalog list`: the GPU (in the loaded catalog) and its price under the model in force.
struct CatalogRow {
  const Gpu* gpu = nullptr;
  ResolvedPrice price;
};
/// Every GPU of the loaded catalog, in catalog order.
std::vector<CatalogRow> list_catalog(const LoadedCatalog& loaded);

/// Everything `catalog show` says about one GPU.
struct GpuSheet {
  const Gpu* gpu = nullptr;
  ResolvedPrice selected; ///< under the pricing model in force (--price overrides included)
  ResolvedPrice on_demand;
  ResolvedPrice spot;
  ResolvedPrice on_prem;
  std::vector<bool> quote_in_median; ///< parallel to gpu->prices: counts in the median (current_quotes)
  std::optional<TcoResult> tco;      ///< with a purchase price (methodology §6.4)
  /// The on-demand price break-even is measured against: the selected one when on-demand (so a
  /// --price override counts), else the catalog's on-demand price.
  ResolvedPrice cloud_reference;
  std::optional<double> break_even_utilization; ///< with a TCO and a known cloud reference
  std::vector<std::string> source_tags;         ///< spec, price and purchase sources, sorted, unique
};
/// The sheet of `gpu`, a GPU of `loaded.catalog`.
GpuSheet show_gpu(const LoadedCatalog& loaded, const Gpu& gpu);

/// `catalog list` and `catalog show ID`'s flags, parsed.
struct CatalogRequest {
  Environment environment;
  CatalogSetup catalog;
  bool show = false; ///< `catalog show`: one GPU's sheet, else the list
  std::string gpu;   ///< with show: the GPU id or alias as typed
};

/// The loaded catalog and its rows (list) or the GPU's sheet (show); both point into `catalog`.
struct CatalogOutcome {
  LoadedCatalog catalog;
  std::vector<CatalogRow> rows;
  std::optional<GpuSheet> sheet;
};

/// Loads the catalog of `request`; an unknown GPU to show is a usage Error with did-you-mean.
CatalogOutcome run_catalog(const CatalogRequest& request, Diagnostics& diagnostics);

} // namespace rightsize::app
