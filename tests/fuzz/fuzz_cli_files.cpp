// libFuzzer target: the files rightsize writes, `sweep --plot FILE` and `calibrate --out FILE`
// (docs/reliability.md, issue 22 item 13). Input lines: the first is `plot` or `out` and a setup
// digit (0 nothing there, 1 the target exists as a file, 2 the target is a folder, 3 its parent is a
// file); the second is the path, placed inside a scratch folder (".." is refused, so nothing is
// written outside it); further lines are extra options. The command runs in-process
// (cli_harness.hpp) and must end as the CLI targets require (never exit 5: every path the write
// would fail on must be refused up front); then: an accepted run wrote the target (an SVG or a JSON
// overlay, replacing an old file) and nothing else, and a refused run left the scratch folder as it
// was (no partial or temporary file, an existing file unchanged).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "cli_harness.hpp"

namespace {

namespace fs = std::filesystem;

constexpr std::size_t k_max_options = 6;
constexpr std::string_view k_old = "old contents\n";

const std::string& scratch() {
  static const std::string dir = [] {
    std::string templ = (fs::temp_directory_path() / "rightsize-fuzz-files-XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) std::abort();
    return templ;
  }();
  return dir;
}

bool allowed_option(std::string_view line) {
  if (!line.starts_with("--")) return false;
  // --help and --version answer without running the command (nothing to write).
  for (const std::string_view banned :
       {"--plot", "--out", "--threads", "--catalog", "--calibration", "--help", "--version"}) {
    if (line.starts_with(banned)) return false;
  }
  return line.find("/proc") == std::string_view::npos && line.find("/sys") == std::string_view::npos;
}

// No ".." component: the path stays inside the scratch folder.
bool stays_inside(std::string_view path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string read_file(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return {}; // a folder or nothing: no contents
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::size_t regular_files() {
  std::size_t n = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(scratch(), ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file(ec)) ++n;
  }
  return n;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  rightsize::fuzz::init_cli_environment();
  (void)scratch();
  // Registered after scratch() is built, so it runs before that string is destroyed.
  (void)std::atexit([] {
    std::error_code ec;
    fs::remove_all(scratch(), ec);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  if (text.find('\0') != std::string::npos) return -1;               // argv cannot hold NUL bytes
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= text.size() && lines.size() < 2 + k_max_options;) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (lines.size() < 2 || lines[0].size() < 2) return -1;
  const bool plot = lines[0].starts_with("plot");
  const int setup = (lines[0].back() - '0') & 3;
  const std::string& path = lines[1];
  if (!stays_inside(path)) return -1;
  for (std::size_t i = 2; i < lines.size(); ++i) {
    if (!allowed_option(lines[i])) return -1;
  }

  std::error_code ec;
  fs::remove_all(scratch(), ec);
  fs::create_directories(scratch(), ec);
  const std::string target = scratch() + "/" + path;
  const fs::path parent = fs::path(target).parent_path();
  if (setup == 1 || setup == 2) fs::create_directories(parent, ec);
  if (setup == 1) std::ofstream(target, std::ios::binary) << k_old;
  if (setup == 2) fs::create_directories(target, ec);
  if (setup == 3 && parent != fs::path(scratch())) {
    fs::create_directories(parent.parent_path(), ec);
    std::ofstream(parent, std::ios::binary) << k_old;
  }
  // The set-up can fail (a name past the folder's limit cannot be created): check only what it made.
  const bool folder_made = setup == 2 && fs::is_directory(target, ec);
  const std::size_t files_before = regular_files();
  const std::string old_contents = setup == 1 ? read_file(target) : std::string();

  std::vector<std::string> args;
  const std::string flag = plot ? "--plot" : "--out";
  if (plot) {
    args = {"sweep",
            RIGHTSIZE_FUZZ_BASE_DIR "/chat-8b.json",
            "--threads=1",
            "--gpu=H100-SXM",
            "--format=csv",
            "--vary",
            "workload.concurrency=1,2"};
  } else {
    args = {"calibrate", RIGHTSIZE_FUZZ_ROOT_DIR "/tests/calibrate/h100-vllm-fit.csv"};
  }
  for (std::size_t i = 2; i < lines.size(); ++i)
    args.push_back(lines[i]);
  args.push_back(flag);
  args.push_back(target);
  const rightsize::fuzz::CliRun run = rightsize::fuzz::run_cli(args);
  // Exit 5 (a write that failed after the path checks) is a finding too: the scratch folder is
  // writable and has room, so only a path the checks should have refused can fail there.
  rightsize::fuzz::check_cli_run(args, run);

  if (run.code == 0) {
    if (!fs::is_regular_file(target, ec)) rightsize::fuzz::fail_run("exit 0 without the file", args, run);
    const std::string written = read_file(target);
    const bool shape =
        plot ? written.starts_with("<?xml") || written.starts_with("<svg") : written.starts_with("{");
    if (!shape) rightsize::fuzz::fail_run("the file written is not an SVG / a JSON overlay", args, run);
    const std::size_t expected = files_before + (setup == 1 ? 0 : 1);
    if (regular_files() != expected)
      rightsize::fuzz::fail_run("files besides the target were left", args, run);
  } else if (run.code >= 2) {
    if (regular_files() != files_before) rightsize::fuzz::fail_run("a refused write left a file", args, run);
    if (setup == 1 && read_file(target) != old_contents)
      rightsize::fuzz::fail_run("a refused write changed the existing file", args, run);
    if (folder_made && !fs::is_directory(target, ec))
      rightsize::fuzz::fail_run("a folder was replaced", args, run);
  }
  return 0;
}
