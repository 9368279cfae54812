// rightsize: GPU right-sizing advisor. main() parses, dispatches and maps errors to exit codes;
// it is the only place that chooses an exit code.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app.hpp"
#include "diagnostics.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace {

int report(const rightsize::Error& error) {
  fmt::print(stderr, "rightsize: error: {}\n", rightsize::format_error(error));
  return static_cast<int>(error.exit_code());
}

} // namespace

int main(int argc, char** argv) {
  using namespace rightsize;
  cli::set_executable_path(argc > 0 ? argv[0] : "rightsize");
  CLI::App app{"rightsize: GPU right-sizing advisor. Reads a model spec, estimates memory, latency,\n"
               "throughput and cost, and ranks GPU configurations under your SLAs.",
               "rightsize"};
  app.set_version_flag("--version", std::string("rightsize ") + RIGHTSIZE_VERSION);
  app.require_subcommand(1, 1);
  app.footer("Exit codes: 0 ok, 1 requirements not met, 2 usage error, 3 bad input, 4 internal error.\n"
             "Docs: docs/cli.md, docs/model-spec.md, docs/methodology.md");
  app.fallthrough(); // -v / -q are accepted after the command too
  bool verbose = false;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "trace the search (candidates, rejections, time per stage) on stderr")
      ->group("Diagnostics");
  app.add_flag("-q,--quiet", quiet, "errors only on stderr (no warnings or notes); or RIGHTSIZE_LOG=quiet")
      ->group("Diagnostics");
  app.parse_complete_callback([&] {
    cli::init_diagnostics(verbose ? cli::Verbosity::verbose : quiet ? cli::Verbosity::quiet : cli::Verbosity::normal,
                          verbose || quiet);
  });
  cli::Action action;
  cli::add_recommend(app, action);
  cli::add_estimate(app, action);
  cli::add_sweep(app, action);
  cli::add_check(app, action);
  cli::add_catalog(app, action);
  cli::add_validate(app, action);
  cli::add_models(app, action);

  // An unknown command word gets a clear message (CLI11 would only say a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({}))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string hint = did_you_mean(argv[1], names);
      fmt::print(stderr, "rightsize: error: unknown command \"{}\"{}\nrun 'rightsize --help' for usage\n",
                 argv[1], hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint));
      return static_cast<int>(ExitCode::usage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::CallForVersion&) {
    fmt::print("rightsize {}\n", RIGHTSIZE_VERSION);
    return 0;
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    fmt::print(stderr, "rightsize: error: {}\nrun 'rightsize --help' for usage\n",
               cli::usage_error_text(app, e, args));
    return static_cast<int>(ExitCode::usage);
  }

  try {
    return action ? action() : static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    return report(e);
  } catch (const ErrorList& list) {
    for (const auto& e : list.errors())
      fmt::print(stderr, "rightsize: error: {}\n", format_error(e));
    return static_cast<int>(list.errors().empty() ? ExitCode::internal : list.errors().front().exit_code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "rightsize: internal error: {}\nplease report this as a bug\n", e.what());
    return static_cast<int>(ExitCode::internal);
  }
}
