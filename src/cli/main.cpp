// rightsize: GPU right-sizing advisor. main() parses, dispatches and maps errors to exit codes;
// it is the only place that chooses an exit code.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app.hpp"
#include "diagnostics.hpp"
#include "output_file.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"
#include <fcntl.h>
#include <unistd.h>

namespace {

// Writes one diagnostic to stderr and never throws: a stderr that cannot be written (2>/dev/full,
// 2>&-) loses the line, never the exit code (fmt::print(stderr, ...) would throw and abort).
void print_stderr(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
  (void)std::fflush(stderr);
}

int report(const rightsize::Error& error) {
  print_stderr(fmt::format("rightsize: error: {}\n", rightsize::format_error(error)));
  return static_cast<int>(error.exit_code());
}

// A descriptor 0-2 closed by the caller (2>&-) would be handed to the next file rightsize opens,
// and output meant for stdout or stderr would land in it. Park /dev/null there instead: stdin and
// stdout read-only (so writing the output fails and is reported), stderr write-only.
void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = open("/dev/null", fd == 2 ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      (void)dup2(opened, fd);
      (void)close(opened);
    }
  }
}

int stdout_failed(int known_errno) {
  return rightsize::cli::stdout_write_error(known_errno);
}

int report_stdout_failure(int error_number) {
  print_stderr(
      fmt::format("rightsize: error: <stdout>: cannot write the output ({})\n", std::strerror(error_number)));
  return static_cast<int>(rightsize::ExitCode::environment);
}

} // namespace

int main(int argc, char** argv) {
  using namespace rightsize;
  reserve_standard_descriptors();
  cli::set_executable_path(argc > 0 ? argv[0] : "rightsize");
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
    cli::init_diagnostics(verbose ? cli::Verbosity::verbose
                          : quiet ? cli::Verbosity::quiet
                                  : cli::Verbosity::normal,
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
  cli::add_calibrate(app, action);
  cli::strict_number_flags(app);

  // An unknown command word gets a clear message (CLI11 would only say a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands({}))
      names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string hint = did_you_mean(argv[1], names);
      print_stderr(fmt::format(
          "rightsize: error: {}\nrun 'rightsize --help' for usage\n",
          format_error(Error(ErrorKind::usage, "", "",
                             fmt::format("unknown command \"{}\"{}", argv[1],
                                         hint.empty() ? "" : fmt::format("; did you mean \"{}\"?", hint))))));
      return static_cast<int>(ExitCode::usage);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    const int failed = stdout_failed(0);
    return failed != 0 ? report_stdout_failure(failed) : 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    const int failed = stdout_failed(0);
    return failed != 0 ? report_stdout_failure(failed) : 0;
  } catch (const CLI::CallForVersion&) {
    std::fputs("rightsize " RIGHTSIZE_VERSION "\n", stdout);
    const int failed = stdout_failed(0);
    return failed != 0 ? report_stdout_failure(failed) : 0;
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    print_stderr(
        fmt::format("rightsize: error: {}\nrun 'rightsize --help' for usage\n",
                    format_error(Error(ErrorKind::usage, "", "", cli::usage_error_text(app, e, args)))));
    return static_cast<int>(ExitCode::usage);
  }

  int code = static_cast<int>(ExitCode::usage);
  try {
    code = action ? action() : static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    code = report(e);
  } catch (const ErrorList& list) {
    // A hostile catalog can hold a million bad entries: the first 50 errors say what is wrong.
    constexpr std::size_t k_max_listed_errors = 50;
    std::string lines;
    for (std::size_t i = 0; i < list.errors().size() && i < k_max_listed_errors; ++i)
      lines += fmt::format("rightsize: error: {}\n", format_error(list.errors()[i]));
    if (list.errors().size() > k_max_listed_errors)
      lines += fmt::format("rightsize: error: ... and {} more errors\n",
                           list.errors().size() - k_max_listed_errors);
    print_stderr(lines);
    code = static_cast<int>(list.errors().empty() ? ExitCode::internal : list.errors().front().exit_code());
  } catch (const std::system_error& e) {
    // fmt::print throws when a write to stdout fails (a full disk, a closed pipe reader).
    if (const int failed = stdout_failed(e.code().value()); failed != 0) return report_stdout_failure(failed);
    print_stderr(fmt::format("rightsize: internal error: {}\nplease report this as a bug\n", e.what()));
    return static_cast<int>(ExitCode::internal);
  } catch (const std::exception& e) {
    print_stderr(fmt::format("rightsize: internal error: {}\nplease report this as a bug\n", e.what()));
    return static_cast<int>(ExitCode::internal);
  }
  // Buffered output is written here at the latest: a write that failed (stdout on a full disk, a
  // closed descriptor) is an environment error, never a silent exit 0 (reported once).
  if (code == static_cast<int>(ExitCode::environment)) return code;
  if (const int failed = stdout_failed(0); failed != 0) return report_stdout_failure(failed);
  return code;
}
