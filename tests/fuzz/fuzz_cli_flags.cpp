// libFuzzer target: command lines. Each input line is one argument after `rightsize`; @DATA@ and
// @ROOT@ expand to the shipped data folder and the repository, as in the golden cases' `args`
// (tests/cli), whose argument lists are the seeds. The whole command runs in-process through
// run_command_line (cli_harness.hpp), so the flag syntax, CLI11's validators, the strict number
// flags and every value check of the commands (--price, --tco, --pricing, --format, --emit, ...)
// are reached. Each run must end in an answer (exit 0/1, output on stdout) or clear error lines
// (exit 2/3), never exit 4 or 5, a crash or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli_harness.hpp"

namespace {

constexpr std::size_t k_max_args = 24;

std::string expand(std::string arg) {
  for (const auto& [token, value] :
       {std::pair<std::string_view, std::string_view>{"@DATA@", RIGHTSIZE_FUZZ_DATA_DIR},
        {"@ROOT@", RIGHTSIZE_FUZZ_ROOT_DIR}}) {
    for (std::size_t at; (at = arg.find(token)) != std::string::npos;)
      arg.replace(at, token.size(), value);
  }
  return arg;
}

// Arguments this target does not run: files written (--out, --plot: golden cases cover them),
// sweeps (fuzz_sweep bounds their grids), kernel files that block on read, and thread counts.
bool allowed(std::string_view arg) {
  for (const std::string_view banned : {"--out", "--plot", "--threads"}) {
    if (arg.starts_with(banned)) return false;
  }
  for (const std::string_view banned : {"/proc", "/sys", "@TMP@", "@CASE@"}) {
    if (arg.find(banned) != std::string_view::npos) return false;
  }
  return arg != "sweep";
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  rightsize::fuzz::init_cli_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  std::vector<std::string> args;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string arg = text.substr(start, end - start);
    start = end + 1;
    if (arg.find('\0') != std::string::npos || !allowed(arg)) return -1; // argv cannot hold NUL
    args.push_back(expand(std::move(arg)));
    if (args.size() > k_max_args) return -1;
  }
  const rightsize::fuzz::CliRun run = rightsize::fuzz::run_cli(args);
  rightsize::fuzz::check_cli_run(args, run);
  return 0;
}
