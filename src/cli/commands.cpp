#include "cli/commands.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "cli/catalog_flags.hpp"
#include "cli/engine_flags.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"

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

namespace {

// Today as days since 1970-01-01: $RIGHTSIZE_TODAY (for reproducible runs) or the UTC clock.
app::Deferred<std::int64_t> today_days() {
  if (const char* env = std::getenv("RIGHTSIZE_TODAY"); env != nullptr && *env != '\0') {
    if (const auto day = parse_iso_date(env)) return app::Deferred<std::int64_t>(*day);
    return app::Deferred<std::int64_t>(Error(ErrorKind::usage, "RIGHTSIZE_TODAY", "",
                                             fmt::format("expected a date YYYY-MM-DD, got \"{}\"", env)));
  }
  const auto now = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  return app::Deferred<std::int64_t>(static_cast<std::int64_t>(now.time_since_epoch().count()));
}

} // namespace

app::Environment environment() {
  return app::Environment{data_dir(), today_days()};
}

app::SpecInputs spec_inputs(const std::string& spec, const CatalogOptions& catalog,
                            const EngineOptions& engine) {
  app::SpecInputs inputs;
  inputs.spec = spec;
  inputs.catalog = catalog_setup(catalog);
  inputs.engine = engine_setup(engine);
  inputs.environment = environment();
  return inputs;
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

} // namespace rightsize::cli
