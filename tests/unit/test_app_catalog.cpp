// The catalog use cases (src/app/catalog.hpp): one sheet per GPU that both writers format.
#include <algorithm>
#include <string>

#include <catch2/catch.hpp>

#include "app/catalog.hpp"
#include "io/catalog/catalog_io.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize {

TEST_CASE("catalog show: prices, median membership, TCO and break-even are decided once", "[app]") {
  app::LoadedCatalog loaded;
  loaded.catalog = io::load_catalog(std::string(RIGHTSIZE_DATA_DIR) + "/gpus.json");
  for (const auto& gpu : loaded.catalog.gpus)
    loaded.prices.push_back(resolve_price(gpu, loaded.pricing, loaded.provider, loaded.tco));
  const std::vector<app::CatalogRow> rows = app::list_catalog(loaded);
  REQUIRE(rows.size() == loaded.catalog.gpus.size());

  const Gpu* h100 = io::find_gpu(loaded.catalog, "H100-SXM");
  REQUIRE(h100 != nullptr);
  REQUIRE(h100->purchase_usd > 0.0);
  const app::GpuSheet sheet = app::show_gpu(loaded, *h100);
  CHECK(sheet.gpu == h100);
  // On-demand pricing: the selected price is the on-demand one, and break-even is measured against it.
  CHECK(sheet.selected.usd_per_hour == sheet.on_demand.usd_per_hour);
  CHECK(sheet.cloud_reference.usd_per_hour == sheet.on_demand.usd_per_hour);
  REQUIRE(sheet.quote_in_median.size() == h100->prices.size());
  CHECK(std::count(sheet.quote_in_median.begin(), sheet.quote_in_median.end(), true) > 0);
  REQUIRE(sheet.tco);
  REQUIRE(sheet.break_even_utilization);
  CHECK(*sheet.break_even_utilization ==
        Approx(break_even_utilization(*sheet.tco, loaded.tco.utilization, sheet.on_demand.usd_per_hour)));
  // Every quote's source is listed once, sorted.
  CHECK(std::is_sorted(sheet.source_tags.begin(), sheet.source_tags.end()));
  CHECK(std::adjacent_find(sheet.source_tags.begin(), sheet.source_tags.end()) == sheet.source_tags.end());
  for (const auto& q : h100->prices)
    CHECK(std::binary_search(sheet.source_tags.begin(), sheet.source_tags.end(), q.source));

  // A --price override on spot pricing: break-even still compares with the catalog's on-demand price.
  loaded.pricing = PricingModel::spot;
  const app::GpuSheet spot = app::show_gpu(loaded, *h100);
  CHECK(spot.cloud_reference.usd_per_hour == Approx(sheet.on_demand.usd_per_hour));
}

} // namespace rightsize
