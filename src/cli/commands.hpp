#pragma once
// Shared plumbing of the CLI: output format, data paths, catalog options. Each subcommand lives in
// its own cmd_<name>.cpp and registers itself with add_<name>(); its callback only stores the
// action that main() runs.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "render/output_format.hpp"

namespace rightsize::cli {

/// What a subcommand does once the command line parsed: returns the exit code.
using Action = std::function<int()>;

/// The data directory: $RIGHTSIZE_DATA_DIR, else <exe>/../share/rightsize, else the source tree's data/.
std::string data_dir();
/// Records argv[0] so data_dir() can find the installed data relative to the executable.
void set_executable_path(const char* argv0);

/// Options every catalog-using command shares.
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

/// Subcommand registration.
void add_recommend(CLI::App& app, Action& action);
void add_estimate(CLI::App& app, Action& action);
void add_sweep(CLI::App& app, Action& action);
void add_check(CLI::App& app, Action& action);
void add_catalog(CLI::App& app, Action& action);
void add_validate(CLI::App& app, Action& action);
void add_models(CLI::App& app, Action& action);
void add_calibrate(CLI::App& app, Action& action);

/// Number flags of every command take strict decimal values (no 0x10, no 1e3 for a count) inside
/// their documented range; 0 is an error, never "unset" (docs/cli.md).
void strict_number_flags(CLI::App& app);

/// A CLI11 parse error in rightsize's words (unknown command or option with did-you-mean, a
/// missing value); `args` are the command-line arguments after the program name.
std::string usage_error_text(const CLI::App& app, const CLI::ParseError& error,
                             const std::vector<std::string>& args);

/// True when NO_COLOR is unset and stdout is a terminal.
bool use_color();
/// Terminal width: $COLUMNS, else the tty width, else 100.
int terminal_width();
/// True when stdout is a terminal.
bool stdout_is_tty();

} // namespace rightsize::cli
