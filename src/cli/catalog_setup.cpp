#include "cli/catalog_setup.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "io/catalog/engines_io.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/stack_calibration.hpp"
#include "rightsize/text.hpp"

namespace rightsize::cli {
namespace {

// Prices older than this trigger a warning (gpu-specs.md caveat 5: prices moved 18-42 % in six
// months of 2026; a quarter-old figure can mislead a purchase decision).
constexpr std::int64_t k_stale_price_days = 90;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items)
    out += (out.empty() ? "" : separator) + item;
  return out;
}

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

// Returns the key applied.
const TcoKey& apply_tco(TcoParams& tco, const std::string& assignment) {
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
    tco.*k.field = *value;
    return k;
  }
  const std::string hint = did_you_mean(key, names);
  throw Error(ErrorKind::usage, "--tco", "",
              hint.empty() ? fmt::format("unknown key \"{}\" (expected one of {})", key, join(names, ", "))
                           : fmt::format("unknown key \"{}\"; did you mean \"{}\"?", key, hint));
}

void check_provider(const LoadedCatalog& loaded, bool from_flag, const std::string& spec_source) {
  if (loaded.provider.empty()) return;
  const std::vector<std::string> providers = catalog_providers(loaded.catalog);
  if (std::find(providers.begin(), providers.end(), to_lower(loaded.provider)) != providers.end()) return;
  const std::string hint = did_you_mean(loaded.provider, providers);
  const std::string message =
      fmt::format("unknown provider \"{}\"{} (providers in this catalog: {})", loaded.provider,
                  hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint), join(providers, ", "));
  if (from_flag) throw Error(ErrorKind::usage, "--provider", "", message);
  throw Error(ErrorKind::input, spec_source, "/constraints/provider", message);
}

void apply_price_override(LoadedCatalog& loaded, const std::string& assignment) {
  const auto [id, text] = split_assignment(assignment, "--price", "ID=USD_PER_GPU_HOUR");
  const Gpu& gpu = require_gpu(loaded.catalog, id, "--price");
  const auto value = parse_number(text);
  if (!value || *value <= 0.0 || *value > k_max_price_usd_per_hour) {
    throw Error(ErrorKind::usage, "--price", "",
                fmt::format("expected a positive price in USD per GPU-hour up to {:g}, got \"{}\"",
                            k_max_price_usd_per_hour, text));
  }
  const auto index = static_cast<std::size_t>(&gpu - loaded.catalog.gpus.data());
  loaded.prices[index] = ResolvedPrice{*value, true, "--price", "", {}};
}

} // namespace

// Today as days since 1970-01-01: $RIGHTSIZE_TODAY (for reproducible runs) or the UTC clock.
std::int64_t today_days() {
  if (const char* env = std::getenv("RIGHTSIZE_TODAY"); env != nullptr && *env != '\0') {
    if (const auto day = parse_iso_date(env)) return *day;
    throw Error(ErrorKind::usage, "RIGHTSIZE_TODAY", "",
                fmt::format("expected a date YYYY-MM-DD, got \"{}\"", env));
  }
  const auto now = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  return static_cast<std::int64_t>(now.time_since_epoch().count());
}

namespace {

void warn_if_stale(const io::Catalog& catalog) {
  const auto as_of = parse_iso_date(catalog.prices_as_of);
  if (!as_of) return;
  const std::int64_t age = today_days() - *as_of;
  if (age <= k_stale_price_days) return;
  warn("{}: prices are as of {}, {} days ago; cloud prices move fast, pass current ones with --price or "
       "--catalog-add",
       catalog.path, catalog.prices_as_of, age);
}

} // namespace

std::vector<std::string> catalog_providers(const io::Catalog& catalog) {
  std::set<std::string> names;
  for (const auto& gpu : catalog.gpus) {
    for (const auto& q : gpu.prices)
      names.insert(to_lower(q.provider));
  }
  return {names.begin(), names.end()};
}

namespace {

// Efficiency factors fitted to the validation set (docs/accuracy.md) replace the catalog's defaults:
// the GPU's own fit, else the cross-GPU fit ("*"). A user catalog entry with its own `efficiency`
// block is a deliberate choice, so entries from --catalog-add keep theirs.
void apply_calibration(LoadedCatalog& loaded) {
  const std::string path = data_dir() + "/calibration.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    // Without it the ranking changes (uncalibrated efficiencies): say so rather than go silent.
    warn("{}: not found; using the catalog's uncalibrated efficiency factors (--no-calibration "
         "silences this)",
         path);
    return;
  }
  loaded.calibration = io::load_calibration(path);
  loaded.calibrated = true;
  loaded.calibration_label = "data/calibration.json";
  rightsize::apply_calibration(loaded.calibration, loaded.catalog.gpus);
}

// --calibration FILE: the user's fitted stacks on top of the shipped calibration (docs/calibration.md).
void apply_overlay(LoadedCatalog& loaded, const std::string& path) {
  if (!loaded.calibrated) {
    throw Error(ErrorKind::usage, "--calibration", "",
                "an overlay applies on top of data/calibration.json; drop --no-calibration (or the overlay)");
  }
  const io::CalibrationOverlay overlay = io::load_overlay(path);
  std::string stacks;
  for (const StackFit& s : overlay.stacks) {
    if (io::find_gpu(loaded.catalog, s.gpu_id) == nullptr) {
      warn("{}: GPU \"{}\" is not in the catalog; its stack is not applied", path, s.gpu_id);
      continue;
    }
    stacks +=
        fmt::format("{}{} x {}, {} runs", stacks.empty() ? "" : "; ", s.gpu_id, s.engine, s.runs.size());
    if (s.engine != "training") loaded.overlay_engines[s.gpu_id] = s.engine;
  }
  rightsize::apply_stack_fits(overlay.stacks, loaded.catalog.gpus, loaded.calibration);
  loaded.calibration_overlay = path;
  loaded.calibration_label =
      fmt::format("data/calibration.json + {} ({}{}{})", path, stacks.empty() ? "no stack applied" : stacks,
                  overlay.date.empty() ? "" : ", fitted ", overlay.date);
  note("calibration: {}", loaded.calibration_label);
}

} // namespace

LoadedCatalog load_catalog(const CatalogOptions& options, const Constraints* spec_constraints,
                           const std::string& spec_source) {
  LoadedCatalog loaded;
  loaded.catalog = io::load_catalog(options.catalog.empty() ? data_dir() + "/gpus.json" : options.catalog);
  loaded.engines = io::load_engines(data_dir() + "/engines.json");
  for (const auto& path : options.catalog_add)
    io::overlay_catalog(loaded.catalog, path);
  if (!options.no_calibration) apply_calibration(loaded);
  if (!options.calibration.empty()) apply_overlay(loaded, options.calibration);

  if (spec_constraints != nullptr) {
    loaded.pricing = spec_constraints->pricing;
    loaded.provider = spec_constraints->provider;
    loaded.tco = spec_constraints->tco;
  }
  if (!options.pricing.empty()) {
    const auto model = parse_pricing_model(options.pricing);
    if (!model) {
      throw Error(ErrorKind::usage, "--pricing", "",
                  fmt::format("unknown price model \"{}\" (expected one of on_demand, spot, on_prem)",
                              options.pricing));
    }
    loaded.pricing = *model;
  }
  if (!options.provider.empty()) loaded.provider = options.provider;
  for (const auto& assignment : options.tco) {
    const TcoKey& key = apply_tco(loaded.tco, assignment);
    if (key.owned_only && loaded.pricing != PricingModel::on_prem) {
      warn("--tco {}: applies to --pricing on_prem (owned GPUs); prices are {}, so it changes nothing",
           key.name, to_string(loaded.pricing));
    }
  }
  check_provider(loaded, !options.provider.empty(), spec_source);

  if (options.max_price_age_days >= 0) {
    if (options.max_price_age_days > 36500) {
      throw Error(ErrorKind::usage, "--max-price-age", "",
                  fmt::format("expected 0 to 36500 days, got {}", options.max_price_age_days));
    }
    const std::int64_t oldest = today_days() - options.max_price_age_days;
    for (auto& gpu : loaded.catalog.gpus) {
      if (drop_quotes_before(gpu, oldest) > 0 && gpu.prices.empty()) {
        note("{}: every price quote is older than --max-price-age {} days; it has no price", gpu.id,
             options.max_price_age_days);
      }
    }
  }
  loaded.prices.reserve(loaded.catalog.gpus.size());
  for (const auto& gpu : loaded.catalog.gpus) {
    loaded.prices.push_back(resolve_price(gpu, loaded.pricing, loaded.provider, loaded.tco));
  }
  for (const auto& assignment : options.prices)
    apply_price_override(loaded, assignment);
  warn_if_stale(loaded.catalog);
  return loaded;
}

std::string calibration_table_line(const LoadedCatalog& loaded) {
  return fmt::format("calibration  {}", loaded.calibration_label);
}

void warn_overlay_engine(const LoadedCatalog& loaded, const std::string& gpu_id, const std::string& engine) {
  const auto it = loaded.overlay_engines.find(gpu_id);
  if (it == loaded.overlay_engines.end() || it->second == engine) return;
  warn("{}: the {} factors were fitted to {} runs; this run uses {} (applied anyway: the factors are "
       "per GPU)",
       loaded.calibration_overlay, gpu_id, it->second, engine);
}

} // namespace rightsize::cli
