#include "app/catalog.hpp"

#include <set>

namespace rightsize::app {
namespace {

bool same_quote(const PriceQuote& a, const PriceQuote& b) {
  return a.provider == b.provider && a.usd_per_hour == b.usd_per_hour && a.spot == b.spot &&
         a.date == b.date && a.source == b.source;
}

// Whether a quote counts in the GPU's median (current_quotes, gpu-specs.md caveat 5).
bool in_median(const Gpu& gpu, const PriceQuote& quote) {
  for (const auto& q : current_quotes(gpu, quote.spot, "")) {
    if (same_quote(q, quote)) return true;
  }
  return false;
}

ResolvedPrice cloud_reference(const LoadedCatalog& loaded, const Gpu& gpu) {
  if (loaded.pricing == PricingModel::on_demand) return price_of(loaded, gpu);
  return resolve_price(gpu, PricingModel::on_demand, loaded.provider, loaded.tco);
}

std::vector<std::string> tags_of(const Gpu& gpu) {
  std::set<std::string> tags(gpu.spec_sources.begin(), gpu.spec_sources.end());
  for (const auto& q : gpu.prices)
    tags.insert(q.source);
  if (!gpu.purchase_source.empty()) tags.insert(gpu.purchase_source);
  return {tags.begin(), tags.end()};
}

} // namespace

std::vector<CatalogRow> list_catalog(const LoadedCatalog& loaded) {
  std::vector<CatalogRow> rows;
  rows.reserve(loaded.catalog.gpus.size());
  for (const auto& gpu : loaded.catalog.gpus)
    rows.push_back({&gpu, price_of(loaded, gpu)});
  return rows;
}

GpuSheet show_gpu(const LoadedCatalog& loaded, const Gpu& gpu) {
  GpuSheet s;
  s.gpu = &gpu;
  s.selected = price_of(loaded, gpu);
  s.on_demand = resolve_price(gpu, PricingModel::on_demand, loaded.provider, loaded.tco);
  s.spot = resolve_price(gpu, PricingModel::spot, loaded.provider, loaded.tco);
  s.on_prem = resolve_price(gpu, PricingModel::on_prem, loaded.provider, loaded.tco);
  for (const auto& q : gpu.prices)
    s.quote_in_median.push_back(in_median(gpu, q));
  s.cloud_reference = cloud_reference(loaded, gpu);
  if (gpu.purchase_usd > 0.0) {
    s.tco = on_prem_tco(gpu.purchase_usd, gpu.tdp_watts, loaded.tco);
    if (s.cloud_reference.known)
      s.break_even_utilization =
          break_even_utilization(*s.tco, loaded.tco.utilization, s.cloud_reference.usd_per_hour);
  }
  s.source_tags = tags_of(gpu);
  return s;
}

CatalogOutcome run_catalog(const CatalogRequest& request, Diagnostics& diagnostics) {
  CatalogOutcome out;
  out.catalog = load_catalog(request.catalog, request.environment, diagnostics, nullptr);
  if (request.show) {
    out.sheet = show_gpu(out.catalog, require_gpu(out.catalog.catalog, request.gpu, ""));
  } else {
    out.rows = list_catalog(out.catalog);
  }
  return out;
}

} // namespace rightsize::app
