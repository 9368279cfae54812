#include "app/catalog_setup.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "io/catalog/engines_io.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/validation_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/stack_calibration.hpp"
#include "rightsize/text.hpp"

namespace rightsize::app {
namespace {

// Prices older than this trigger a warning (gpu-specs.md caveat 5: prices moved 18-42 % in six
// months of 2026; a quarter-old figure can mislead a purchase decision).
constexpr std::int64_t k_stale_price_days = 90;

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

void apply_price_override(LoadedCatalog& loaded, const PriceOverride& price) {
  const Gpu& gpu = require_gpu(loaded.catalog, price.gpu, "--price");
  const auto index = static_cast<std::size_t>(&gpu - loaded.catalog.gpus.data());
  loaded.prices[index] = ResolvedPrice{price.usd_per_gpu_hour, true, "--price", "", {}};
}

void warn_if_stale(const io::Catalog& catalog, const Environment& environment, Diagnostics& diagnostics) {
  const auto as_of = parse_iso_date(catalog.prices_as_of);
  if (!as_of) return;
  const std::int64_t age = environment.today.get() - *as_of;
  if (age <= k_stale_price_days) return;
  diagnostics.warn(fmt::format("{}: prices are as of {}, {} days ago; cloud prices move fast, pass current "
                               "ones with --price or --catalog-add",
                               catalog.path, catalog.prices_as_of, age));
}

// Efficiency factors fitted to the validation set (docs/accuracy.md) replace the catalog's defaults:
// the GPU's own fit, else the cross-GPU fit ("*"). A user catalog entry with its own `efficiency`
// block is a deliberate choice, so entries from --catalog-add keep theirs.
void apply_calibration(LoadedCatalog& loaded, const Environment& environment, Diagnostics& diagnostics) {
  const std::string path = environment.data_dir + "/calibration.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    // Without it the ranking changes (uncalibrated efficiencies): say so rather than go silent.
    diagnostics.warn(fmt::format("{}: not found; using the catalog's uncalibrated efficiency factors "
                                 "(--no-calibration silences this)",
                                 path));
    return;
  }
  loaded.calibration = io::load_calibration(path);
  loaded.calibrated = true;
  loaded.calibration_label = "data/calibration.json";
  rightsize::apply_calibration(loaded.calibration, loaded.catalog.gpus);
}

// An overlay written before calibrate derived a throughput band from the runs' TTFT and TPOT
// (2026-11-30) has latency bands of the user's runs but sizes replicas on the shipped throughput band.
void note_missing_throughput_band(const StackFit& s, const std::string& path, Diagnostics& diagnostics) {
  const auto has = [&s](FigureKind kind) {
    return std::any_of(s.bands.begin(), s.bands.end(), [kind](const BandEntry& b) { return b.kind == kind; });
  };
  if (s.engine == "training" || has(FigureKind::throughput) || !has(FigureKind::tpot)) return;
  diagnostics.note(
      fmt::format("{}: the {} stack has TTFT and TPOT bands of its runs but no throughput band "
                  "(written by an older rightsize): throughput bands and --confidence p90 sizing "
                  "use the shipped one; run `rightsize calibrate` again to use your runs'",
                  path, s.gpu_id));
}

// --calibration FILE: the user's fitted stacks on top of the shipped calibration (docs/calibration.md).
void apply_overlay(LoadedCatalog& loaded, const std::string& path, Diagnostics& diagnostics) {
  if (!loaded.calibrated) {
    throw Error(ErrorKind::usage, "--calibration", "",
                "an overlay applies on top of data/calibration.json; drop --no-calibration (or the overlay)");
  }
  io::CalibrationOverlay overlay = io::load_overlay(path);
  std::string stacks;
  for (StackFit& s : overlay.stacks) {
    const Gpu* gpu = io::find_gpu(loaded.catalog, s.gpu_id);
    if (gpu == nullptr) {
      diagnostics.warn(
          fmt::format("{}: GPU \"{}\" is not in the catalog; its stack is not applied", path, s.gpu_id));
      continue;
    }
    // "h100-sxm" or an alias names the catalog's GPU: the fits apply under its id, not silently nowhere.
    s.gpu_id = gpu->id;
    s.fitted.gpu_id = gpu->id;
    for (BandEntry& band : s.bands)
      band.gpu_id = gpu->id;
    stacks +=
        fmt::format("{}{} x {}, {} runs", stacks.empty() ? "" : "; ", s.gpu_id, s.engine, s.runs.size());
    if (s.engine != "training")
      loaded.overlay_stacks[s.gpu_id] = OverlayStack{s.engine, static_cast<int>(s.runs.size())};
    note_missing_throughput_band(s, path, diagnostics);
  }
  rightsize::apply_stack_fits(overlay.stacks, loaded.catalog.gpus, loaded.calibration);
  loaded.calibration_overlay = path;
  loaded.calibration_label =
      fmt::format("data/calibration.json + {} ({}{}{})", path, stacks.empty() ? "no stack applied" : stacks,
                  overlay.date.empty() ? "" : ", fitted ", overlay.date);
  diagnostics.note(fmt::format("calibration: {}", loaded.calibration_label));
}

// The price model: the spec's constraints, then the flags over them.
void apply_pricing(LoadedCatalog& loaded, const CatalogSetup& setup, Diagnostics& diagnostics,
                   const Constraints* spec_constraints, const std::string& spec_source) {
  if (spec_constraints != nullptr) {
    loaded.pricing = spec_constraints->pricing;
    loaded.provider = spec_constraints->provider;
    loaded.tco = spec_constraints->tco;
  }
  if (setup.pricing) loaded.pricing = *setup.pricing;
  if (!setup.provider.empty()) loaded.provider = setup.provider;
  for (const TcoSetting& setting : setup.tco) {
    loaded.tco.*setting.field = setting.value;
    if (setting.owned_only && loaded.pricing != PricingModel::on_prem) {
      diagnostics.warn(fmt::format(
          "--tco {}: applies to --pricing on_prem (owned GPUs); prices are {}, so it changes nothing",
          setting.key, to_string(loaded.pricing)));
    }
  }
  check_provider(loaded, !setup.provider.empty(), spec_source);
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

LoadedCatalog load_catalog(const CatalogSetup& setup, const Environment& environment,
                           Diagnostics& diagnostics, const Constraints* spec_constraints,
                           const std::string& spec_source) {
  LoadedCatalog loaded;
  // No price may be dated after today: one from 2099 won on cost and dated the catalog (issue 42).
  const std::string today = format_iso_date(environment.today.get());
  loaded.catalog =
      io::load_catalog(setup.catalog.empty() ? environment.data_dir + "/gpus.json" : setup.catalog, today);
  loaded.engines = io::load_engines(environment.data_dir + "/engines.json");
  for (const auto& path : setup.catalog_add)
    io::overlay_catalog(loaded.catalog, path, today);
  if (!setup.no_calibration) apply_calibration(loaded, environment, diagnostics);
  if (!setup.calibration.empty()) apply_overlay(loaded, setup.calibration, diagnostics);
  // Each GPU's reach once every band is in (an overlay's runs make a GPU measured).
  if (loaded.calibrated) assign_reach(loaded.calibration, loaded.catalog.gpus);
  apply_pricing(loaded, setup, diagnostics, spec_constraints, spec_source);
  if (setup.max_price_age_days >= 0) {
    const std::int64_t oldest = environment.today.get() - setup.max_price_age_days;
    for (auto& gpu : loaded.catalog.gpus) {
      if (drop_quotes_before(gpu, oldest) > 0 && gpu.prices.empty()) {
        diagnostics.note(fmt::format("{}: every price quote is older than --max-price-age {} days; it has no "
                                     "price",
                                     gpu.id, setup.max_price_age_days));
      }
    }
  }
  loaded.prices.reserve(loaded.catalog.gpus.size());
  for (const auto& gpu : loaded.catalog.gpus) {
    loaded.prices.push_back(resolve_price(gpu, loaded.pricing, loaded.provider, loaded.tco));
  }
  for (const PriceOverride& price : setup.prices)
    apply_price_override(loaded, price);
  warn_if_stale(loaded.catalog, environment, diagnostics);
  return loaded;
}

void warn_overlay_engine(const LoadedCatalog& loaded, const std::string& gpu_id, const std::string& engine,
                         Diagnostics& diagnostics) {
  const auto it = loaded.overlay_stacks.find(gpu_id);
  if (it == loaded.overlay_stacks.end() || it->second.engine == engine) return;
  diagnostics.warn(fmt::format("{}: the {} factors were fitted to {} runs; this run uses {} (applied anyway: "
                               "the factors are per GPU)",
                               loaded.calibration_overlay, gpu_id, it->second.engine, engine));
}

} // namespace rightsize::app
