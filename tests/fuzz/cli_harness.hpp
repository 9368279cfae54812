#pragma once
// Shared by the CLI fuzz targets (fuzz_sweep, fuzz_cli_flags): runs the whole command line
// in-process through run_command_line (src/cli/command_line.cpp, the same code as the binary) with
// stdout and stderr captured, and checks the rule of docs/reliability.md on the result: an answer
// (exit 0 with output on stdout, or exit 1: requirements not met) or clear error lines (exit 2 or 3, each
// `rightsize: error: ...`, at most the documented 1,000 bytes of message), never an internal error (exit 4),
// an environment error (exit 5: stdout is a memory file here), a crash or a sanitizer report.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.hpp"
#include <sanitizer/common_interface_defs.h>
#include <sys/mman.h>
#include <unistd.h>

namespace rightsize::fuzz {

/// What one command line did.
struct CliRun {
  int code = -1;
  std::string out; ///< stdout
  std::string err; ///< stderr (errors, warnings, notes)
};

namespace detail {

struct Streams {
  int saved_out = -1;
  int saved_err = -1;
  int out = -1;
  int err = -1;
};

inline Streams& streams() {
  static Streams s = [] {
    Streams made;
    made.saved_out = dup(1);
    made.saved_err = dup(2);
    made.out = memfd_create("rightsize-stdout", 0);
    made.err = memfd_create("rightsize-stderr", 0);
    if (made.saved_out < 0 || made.saved_err < 0 || made.out < 0 || made.err < 0) std::abort();
    // Sanitizer reports go to the real stderr even while fd 2 is captured.
    __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(made.saved_err))); // NOLINT
    return made;
  }();
  return s;
}

inline std::string read_all(int fd) {
  std::string text;
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size <= 0) return text;
  text.resize(static_cast<std::size_t>(size));
  if (pread(fd, text.data(), text.size(), 0) != size) std::abort();
  return text;
}

inline void print_stderr(const std::string& text) {
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
  (void)std::fflush(stderr);
}

} // namespace detail

/// Writes `what` and the run to the real stderr and aborts (a libFuzzer crash).
[[noreturn]] inline void fail_run(const char* what, const std::vector<std::string>& args, const CliRun& run) {
  std::string text = "invariant broken: ";
  text += what;
  text += "\nargs:";
  for (const auto& a : args)
    text += " [" + a + "]";
  text += "\nexit " + std::to_string(run.code) + "\nstderr:\n" + run.err.substr(0, 4000) + "\n";
  (void)write(detail::streams().saved_err, text.data(), text.size());
  std::abort();
}

/// The environment of the golden cases (tests/cli/run_case.sh): the shipped data, a fixed date, no
/// colour. The working folder stays (libFuzzer reads its corpus folders relative to it); nothing is
/// written there: the targets refuse the options that write files (--out, --plot).
inline void init_cli_environment() {
  (void)setenv("RIGHTSIZE_DATA_DIR", RIGHTSIZE_FUZZ_DATA_DIR, 1);
  (void)setenv("RIGHTSIZE_TODAY", "2026-11-22", 1);
  (void)setenv("NO_COLOR", "1", 1);
  (void)setenv("COLUMNS", "120", 1);
  (void)unsetenv("RIGHTSIZE_LOG");
  (void)detail::streams();
}

/// Runs `rightsize ARGS...` in-process with stdout and stderr captured.
inline CliRun run_cli(const std::vector<std::string>& args) {
  detail::Streams& s = detail::streams();
  std::vector<std::string> owned;
  owned.reserve(args.size() + 1);
  owned.emplace_back("rightsize");
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : owned)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  (void)std::fflush(stdout);
  (void)std::fflush(stderr);
  for (int fd : {s.out, s.err}) {
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) std::abort();
  }
  std::clearerr(stdout);
  (void)dup2(s.out, 1);
  (void)dup2(s.err, 2);
  CliRun run;
  run.code = cli::run_command_line(static_cast<int>(owned.size()), argv.data(), detail::print_stderr);
  (void)std::fflush(stdout);
  (void)std::fflush(stderr);
  (void)dup2(s.saved_out, 1);
  (void)dup2(s.saved_err, 2);
  run.out = detail::read_all(s.out);
  run.err = detail::read_all(s.err);
  return run;
}

/// The longest error message format_error keeps (docs/reliability.md limits table), plus room for
/// the `rightsize: error: ` prefix.
inline constexpr std::size_t k_max_error_line_bytes = 1000 + 64;

/// Checks the answer-or-clear-error rule on one run; aborts with the details otherwise.
inline void check_cli_run(const std::vector<std::string>& args, const CliRun& run) {
  if (run.code < 0 || run.code > 3) fail_run("exit code outside 0-3 (4 internal, 5 environment)", args, run);
  std::size_t error_lines = 0;
  std::string_view rest = run.err;
  while (!rest.empty()) {
    const std::size_t end = rest.find('\n');
    if (end == std::string_view::npos) fail_run("stderr does not end in a newline", args, run);
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end + 1);
    if (line.starts_with("rightsize: error: ")) {
      ++error_lines;
      if (line.size() > k_max_error_line_bytes) fail_run("an error line past 1,000 bytes", args, run);
      if (line.size() <= std::string_view("rightsize: error: ").size()) fail_run("an empty error", args, run);
    } else if (!line.starts_with("rightsize: ") && line != "run 'rightsize --help' for usage") {
      fail_run("a stderr line not from rightsize's diagnostics", args, run);
    }
  }
  if (run.code >= 2 && error_lines == 0) fail_run("an error exit without an error line", args, run);
  if (run.code <= 1 && error_lines != 0) fail_run("an error line with an answer's exit code", args, run);
  // Exit 1 ("requirements not met") may print nothing: --emit with --quiet writes no artifact.
  if (run.code == 0 && run.out.empty()) fail_run("an accepted command printed nothing", args, run);
}

} // namespace rightsize::fuzz
