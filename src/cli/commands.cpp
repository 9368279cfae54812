#include "cli/commands.hpp"

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "rightsize/error.hpp"
#include <sys/ioctl.h>
#include <unistd.h>

namespace rightsize::cli {
namespace {

std::string& executable_path() {
  static std::string path;
  return path;
}

} // namespace

void set_executable_path(const char* argv0) {
  executable_path() = argv0 == nullptr ? "" : argv0;
}

std::string data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* env = std::getenv("RIGHTSIZE_DATA_DIR"); env != nullptr && *env != '\0') {
    // A wrong data folder would otherwise surface as "unknown preset" blamed on the spec.
    if (!fs::is_directory(env, ec)) {
      throw Error(ErrorKind::environment, "RIGHTSIZE_DATA_DIR", "",
                  fmt::format("expected the rightsize data folder (gpus.json, engines.json, models/), got "
                              "\"{}\", which is not a folder",
                              env));
    }
    if (!fs::is_regular_file(fs::path(env) / "gpus.json", ec) ||
        !fs::is_regular_file(fs::path(env) / "engines.json", ec) ||
        !fs::is_directory(fs::path(env) / "models", ec)) {
      throw Error(ErrorKind::environment, "RIGHTSIZE_DATA_DIR", "",
                  fmt::format("expected the rightsize data folder (gpus.json, engines.json, models/), got "
                              "\"{}\", which holds no gpus.json, no engines.json or no models/ folder",
                              env));
    }
    return env;
  }
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) exe = fs::path(executable_path());
  // Installed layout: <prefix>/bin/rightsize and <prefix>/share/rightsize.
  const fs::path installed = exe.parent_path().parent_path() / RIGHTSIZE_INSTALL_DATADIR;
  if (fs::exists(installed / "gpus.json", ec)) return installed.string();
  return RIGHTSIZE_SOURCE_DATADIR;
}

Format parse_format(const std::string& text, const std::vector<std::string>& allowed) {
  bool ok = false;
  for (const auto& a : allowed)
    ok = ok || a == text;
  if (!ok) {
    std::string list;
    for (const auto& a : allowed)
      list += (list.empty() ? "" : ", ") + a;
    throw Error(ErrorKind::usage, "--format", "",
                fmt::format("unknown format \"{}\" (expected one of {})", text, list));
  }
  if (text == "json") return Format::json;
  if (text == "csv") return Format::csv;
  if (text == "markdown") return Format::markdown;
  if (text == "jsonl") return Format::jsonl;
  return Format::table;
}

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

bool stdout_is_tty() {
  return isatty(STDOUT_FILENO) != 0;
}

bool use_color() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  return stdout_is_tty();
}

int terminal_width() {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    const int w = std::atoi(columns);
    if (w >= 40 && w <= 1000) return w;
  }
  winsize ws{};
  if (!stdout_is_tty()) return 1000; // a pipe or file: never cut a cell (issue 15 item 12)
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  return 100;
}

} // namespace rightsize::cli
