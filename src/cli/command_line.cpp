// Parse, dispatch and map errors to exit codes: the only place that chooses an exit code
// (main.cpp adds the process set-up; the CLI fuzz targets call it in-process).
#include "cli/command_line.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/output_file.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

int report(DiagnosticWriter print, const Error& error) {
  print(fmt::format("rightsize: error: {}\n", format_error(error)));
  return static_cast<int>(error.exit_code());
}

int report_stdout_failure(DiagnosticWriter print, int error_number) {
  print(fmt::format("rightsize: error: <stdout>: {}\n", stdout_failure_message(error_number)));
  return static_cast<int>(ExitCode::environment);
}

// Help and version text: written, then checked like any result.
int print_text(DiagnosticWriter print, const std::string& text) {
  std::fputs(text.c_str(), stdout);
  const int failed = stdout_write_error(0);
  return failed != 0 ? report_stdout_failure(print, failed) : 0;
}

int usage(DiagnosticWriter print, const std::string& message) {
  print(fmt::format("rightsize: error: {}\nrun 'rightsize --help' for usage\n",
                    format_error(Error(ErrorKind::usage, "", "", message))));
  return static_cast<int>(ExitCode::usage);
}

// Runs the parsed command's action; every way it can fail becomes an exit code.
int run_action(const Action& action, DiagnosticWriter print) {
  int code = static_cast<int>(ExitCode::usage);
  try {
    code = action ? action() : static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    code = report(print, e);
  } catch (const ErrorList& list) {
    // A hostile catalog can hold a million bad entries: the first 50 errors say what is wrong.
    constexpr std::size_t k_max_listed_errors = 50;
    std::string lines;
    for (std::size_t i = 0; i < list.errors().size() && i < k_max_listed_errors; ++i)
      lines += fmt::format("rightsize: error: {}\n", format_error(list.errors()[i]));
    if (list.errors().size() > k_max_listed_errors)
      lines += fmt::format("rightsize: error: ... and {} more errors\n",
                           list.errors().size() - k_max_listed_errors);
    print(lines);
    code = static_cast<int>(list.errors().empty() ? ExitCode::internal : list.errors().front().exit_code());
  } catch (const std::system_error& e) {
    // fmt::print throws when a write to stdout fails (a full disk, a closed pipe reader).
    if (const int failed = stdout_write_error(e.code().value()); failed != 0)
      return report_stdout_failure(print, failed);
    print(fmt::format("rightsize: internal error: {}\nplease report this as a bug\n", e.what()));
    return static_cast<int>(ExitCode::internal);
  } catch (const std::exception& e) {
    print(fmt::format("rightsize: internal error: {}\nplease report this as a bug\n", e.what()));
    return static_cast<int>(ExitCode::internal);
  }
  // Buffered output is written here at the latest: a write that failed (stdout on a full disk, a
  // closed descriptor) is an environment error, never a silent exit 0 (reported once).
  if (code == static_cast<int>(ExitCode::environment)) return code;
  if (const int failed = stdout_write_error(0); failed != 0) return report_stdout_failure(print, failed);
  return code;
}

} // namespace

int run_command_line(int argc, char** argv, DiagnosticWriter print) {
  set_executable_path(argc > 0 ? argv[0] : "rightsize");
  written_paths().clear(); // one command's files (the in-process harness runs many)
  CLI::App app{"rightsize: GPU right-sizing advisor. Reads a model spec, estimates memory, latency,\n"
               "throughput and cost, and ranks GPU configurations under your SLAs.",
               "rightsize"};
  app.set_version_flag("--version", std::string("rightsize ") + RIGHTSIZE_VERSION);
  app.require_subcommand(1, 1);
  app.footer("Exit codes: 0 ok, 1 requirements not met, 2 usage error, 3 bad input, 4 internal error,\n"
             "5 environment error (stdout or an output file cannot be written).\n"
             "Docs: docs/cli.md, docs/model-spec.md, docs/methodology.md");
  app.fallthrough(); // -v / -q are accepted after the command too
  bool verbose = false;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "trace the search (candidates, rejections, time per stage) on stderr")
      ->group("Diagnostics");
  app.add_flag("-q,--quiet", quiet, "errors only on stderr (no warnings or notes); or RIGHTSIZE_LOG=quiet")
      ->group("Diagnostics");
  app.parse_complete_callback([&] {
    init_diagnostics(verbose ? Verbosity::verbose
                     : quiet ? Verbosity::quiet
                             : Verbosity::normal,
                     verbose || quiet);
  });
  Action action;
  add_recommend(app, action);
  add_estimate(app, action);
  add_sweep(app, action);
  add_check(app, action);
  add_catalog(app, action);
  add_validate(app, action);
  add_models(app, action);
  add_calibrate(app, action);
  strict_number_flags(app);

  // An unknown command word gets a clear message (CLI11 would only say a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({}))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string hint = did_you_mean(argv[1], names);
      return usage(print, fmt::format("unknown command \"{}\"{}", argv[1],
                                      hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint)));
    }
  }
  // CLI11 drops the empty pieces of a comma-separated --gpu ("H100-SXM,,L40S", a trailing comma)
  // without a word: look at the text as typed.
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string_view value;
    if (arg == "--gpu" && i + 1 < argc)
      value = argv[i + 1];
    else if (arg.rfind("--gpu=", 0) == 0)
      value = arg.substr(6);
    else
      continue;
    if (value.empty() || value.front() == ',' || value.back() == ',' ||
        value.find(",,") != std::string_view::npos)
      return usage(print,
                   fmt::format("--gpu: expected a GPU id in each comma-separated item, got an empty one in "
                               "\"{}\"",
                               value));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return print_text(print, app.help());
  } catch (const CLI::CallForAllHelp&) {
    return print_text(print, app.help("", CLI::AppFormatMode::All));
  } catch (const CLI::CallForVersion&) {
    return print_text(print, "rightsize " RIGHTSIZE_VERSION "\n");
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    return usage(print, usage_error_text(app, e, args));
  }
  return run_action(action, print);
}

} // namespace rightsize::cli
