#include "cli/catalog_flags.hpp"

#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/text.hpp"

namespace rightsize::cli {
namespace {

// A whole-string finite number, or nullopt ("2.49" yes; "2.49x", "", "nan" no).
std::optional<double> parse_number(const std::string& text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Splits KEY=VALUE; a usage Error naming `flag` when there is no '=' or either side is empty.
std::pair<std::string, std::string> split_assignment(const std::string& text, const char* flag,
                                                     const char* shape) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw Error(ErrorKind::usage, flag, "", fmt::format("expected {}, got \"{}\"", shape, text));
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

struct TcoKey {
  const char* name;
  double TcoParams::*field;
  double min;
  double max;
  bool min_exclusive;
  bool owned_only; ///< builds an owned GPU's hour: changes nothing without --pricing on_prem
};

// --tco keys (docs/catalog.md); ranges reject unit slips (percent for a fraction, cents for dollars).
// The same ranges as a spec's constraints.tco (src/io/spec/spec_io.cpp): a command-line value gets no
// wider bounds than a file value (utilization=1e-300 printed 300-digit dollar figures).
constexpr TcoKey k_tco_keys[] = {
    {"years", &TcoParams::amortization_years, 0.1, 30.0, false, true},
    {"cost_of_capital", &TcoParams::cost_of_capital, 0.0, 1.0, false, true},
    {"utilization", &TcoParams::utilization, 0.01, 1.0, false, true},
    {"pue", &TcoParams::power_usage_effectiveness, 1.0, 3.0, false, false},
    {"usd_per_kwh", &TcoParams::usd_per_kwh, 0.0, 10.0, false, false},
    {"power_fraction", &TcoParams::power_fraction_of_tdp, 0.0, 1.5, true, false},
    {"server_overhead", &TcoParams::server_overhead_fraction, 0.0, 10.0, false, true},
    {"ops_fraction", &TcoParams::ops_fraction_per_year, 0.0, 1.0, false, true},
    {"grid_gco2e_per_kwh", &TcoParams::grid_g_co2e_per_kwh, 0.0, 5000.0, false, false},
};

// The catalog's bound on a price (src/io/catalog/catalog_entry.cpp k_max_usd_per_hour).
constexpr double k_max_price_usd_per_hour = 10000.0;

app::TcoSetting parse_tco(const std::string& assignment) {
  const auto [key, text] = split_assignment(assignment, "--tco", "KEY=VALUE");
  std::vector<std::string> names;
  for (const auto& k : k_tco_keys) {
    names.emplace_back(k.name);
    if (key != k.name) continue;
    const auto value = parse_number(text);
    const bool low = value && (k.min_exclusive ? *value <= k.min : *value < k.min);
    if (!value || low || *value > k.max) {
      throw Error(ErrorKind::usage, "--tco", "",
                  k.min_exclusive ? fmt::format("{}: expected a number above {} and at most {}, got \"{}\"",
                                                key, k.min, k.max, text)
                                  : fmt::format("{}: expected a number from {} to {}, got \"{}\"", key, k.min,
                                                k.max, text));
    }
    return app::TcoSetting{k.name, k.field, *value, k.owned_only};
  }
  const std::string hint = did_you_mean(key, names);
  throw Error(ErrorKind::usage, "--tco", "",
              hint.empty() ? fmt::format("unknown key \"{}\" (expected one of {})", key, join(names, ", "))
                           : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", key, hint));
}

app::PriceOverride parse_price(const std::string& assignment) {
  const auto [id, text] = split_assignment(assignment, "--price", "ID=USD_PER_GPU_HOUR");
  const auto value = parse_number(text);
  if (!value || *value <= 0.0 || *value > k_max_price_usd_per_hour) {
    throw Error(ErrorKind::usage, "--price", "",
                fmt::format("expected a positive price in USD per GPU-hour up to {:g}, got \"{}\"",
                            k_max_price_usd_per_hour, text));
  }
  return app::PriceOverride{id, *value};
}

} // namespace

void add_catalog_options(CLI::App* command, CatalogOptions& options) {
  command->add_option("--catalog", options.catalog, "GPU catalog file replacing the shipped data/gpus.json")
      ->group("Catalog and pricing");
  command
      ->add_option("--catalog-add", options.catalog_add,
                   "catalog file whose GPUs add to or override the catalog (repeatable)")
      ->group("Catalog and pricing");
  command->add_option("--price", options.prices, "override a price: ID=USD_PER_GPU_HOUR (repeatable)")
      ->group("Catalog and pricing");
  command->add_option("--pricing", options.pricing, "price model: on_demand (default), spot or on_prem")
      ->group("Catalog and pricing");
  command
      ->add_option("--max-price-age", options.max_price_age_days,
                   "ignore price quotes older than DAYS days; a GPU left without quotes has no price")
      ->group("Catalog and pricing");
  command->add_option("--provider", options.provider, "use one provider's prices instead of the median")
      ->group("Catalog and pricing");
  command
      ->add_option("--tco", options.tco,
                   "on-prem TCO parameter KEY=VALUE: years, cost_of_capital, utilization, pue, usd_per_kwh, "
                   "power_fraction, server_overhead, ops_fraction (repeatable)")
      ->group("Catalog and pricing");
  command
      ->add_flag("--no-calibration", options.no_calibration,
                 "use the catalog's efficiency factors instead of data/calibration.json's fitted ones")
      ->group("Catalog and pricing");
  command
      ->add_option(
          "--calibration", options.calibration,
          "calibration overlay written by 'rightsize calibrate', applied on top of data/calibration.json")
      ->group("Catalog and pricing");
}

app::CatalogSetup catalog_setup(const CatalogOptions& options) {
  app::CatalogSetup setup;
  setup.catalog = options.catalog;
  setup.catalog_add = options.catalog_add;
  setup.no_calibration = options.no_calibration;
  setup.calibration = options.calibration;
  if (!options.pricing.empty()) {
    setup.pricing = parse_pricing_model(options.pricing);
    if (!setup.pricing) {
      throw Error(ErrorKind::usage, "--pricing", "",
                  fmt::format("unknown price model \"{}\" (expected one of on_demand, spot, on_prem)",
                              options.pricing));
    }
  }
  setup.provider = options.provider;
  for (const auto& assignment : options.tco)
    setup.tco.push_back(parse_tco(assignment));
  if (options.max_price_age_days > 36500) {
    throw Error(ErrorKind::usage, "--max-price-age", "",
                fmt::format("expected 0 to 36500 days, got {}", options.max_price_age_days));
  }
  setup.max_price_age_days = options.max_price_age_days;
  for (const auto& assignment : options.prices)
    setup.prices.push_back(parse_price(assignment));
  return setup;
}

} // namespace rightsize::cli
