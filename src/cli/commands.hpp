#pragma once
// Shared plumbing of the CLI: output format, data paths, the environment of a request. Each subcommand lives
// in its own cmd_<name>.cpp and registers itself with add_<name>(); its callback only stores the action that
// main() runs.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "app/environment.hpp"
#include "app/inputs.hpp"
#include "render/output_format.hpp"

namespace rightsize::cli {

/// What a subcommand does once the command line parsed: returns the exit code.
using Action = std::function<int()>;

/// The data directory: $RIGHTSIZE_DATA_DIR, else <exe>/../share/rightsize, else the source tree's data/.
std::string data_dir();
/// Records argv[0] so data_dir() can find the installed data relative to the executable.
void set_executable_path(const char* argv0);
/// Parses --format; throws a usage Error naming the allowed ones.
Format parse_format(const std::string& text, const std::vector<std::string>& allowed);

/// What the process says to every use case (app::Environment): data_dir() and today's date, read
/// once the flags are parsed. A bad $RIGHTSIZE_TODAY reaches the use case as a deferred error.
app::Environment environment();

struct CatalogOptions;
struct EngineOptions;
/// The inputs of a spec-driven request: the spec file, environment() and the catalog and engine
/// flags parsed (usage Errors naming the flag).
app::SpecInputs spec_inputs(const std::string& spec, const CatalogOptions& catalog,
                            const EngineOptions& engine);

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

} // namespace rightsize::cli
