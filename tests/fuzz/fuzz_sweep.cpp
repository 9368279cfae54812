// libFuzzer target: the sweep grammar (docs/sweep.md). Each input line is one `--vary KEY=VALUES`
// argument, or a `--flag=value` option of `rightsize sweep` (--mode, --format, --pareto, --x, --y,
// --gpu, --tp, ...). Every axis goes through parse_sweep_axis, which must end in a usage Error naming
// --vary or in an axis that keeps its limits (1 to 100,000 values, cells for each, finite numbers).
// Small grids then run through the whole command in-process (cli_harness.hpp): an answer with one
// CSV row per point, or clear error lines with exit 2 or 3.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli_harness.hpp"
#include "fuzz_common.hpp"
#include "io/spec/spec_io.hpp"
#include "render/sweep_names.hpp"
#include "render/sweep_rows.hpp"
#include "rightsize/sweep.hpp"

namespace {

using namespace rightsize;

constexpr std::size_t k_max_lines = 8;
// Larger grids are only parsed: the whole command on them would take seconds per input.
constexpr std::uint64_t k_max_run_points = 64;
constexpr std::uint64_t k_max_run_model_combinations = 8;
constexpr std::uint64_t k_max_run_recommend_points = 4;

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& p : io::load_presets(RIGHTSIZE_FUZZ_MODELS_DIR))
      out.push_back(p.id);
    return out;
  }();
  return names;
}

// Options that write files or change the process are not fuzzed here (--plot has golden cases).
bool allowed_option(std::string_view line) {
  for (const std::string_view banned : {"--plot", "--out", "--threads", "--catalog", "--calibration"}) {
    if (line.starts_with(banned)) return false;
  }
  return true;
}

// Parses one axis; the axis it returns must keep the limits of docs/sweep.md.
bool parse_axis(const std::string& argument, std::size_t& size, bool& model_key) {
  bool parsed = false;
  fuzz::expect_only_rightsize_errors([&] {
    try {
      const cli::SweepAxis axis = cli::parse_sweep_axis(argument, preset_names());
      const std::size_t n = axis.values.texts.size();
      fuzz::require(axis.key != nullptr, "an axis has a key");
      fuzz::require(n >= 1 && n <= 100'000, "an axis has 1 to 100,000 values");
      // The writers format every value (sweep_rows.hpp): the first and last stand for the rest.
      for (const std::size_t i : {std::size_t{0}, n - 1}) {
        fuzz::require(!cli::axis_csv_cell(axis, i).empty() && !cli::axis_json_value(axis, i).empty(),
                      "a cell per value");
      }
      if (axis.values.numeric) {
        fuzz::require(axis.values.numbers.size() == n, "a number per value");
        for (const double v : axis.values.numbers) {
          fuzz::require(std::isfinite(v), "finite axis values");
          fuzz::require(!axis.values.integral || v == std::floor(v), "integral axes hold whole numbers");
        }
      }
      for (const auto& text : axis.values.texts)
        fuzz::require(!text.empty(), "no empty value");
      size = n;
      model_key = axis.key->field == cli::SweepField::model_json;
      parsed = true;
    } catch (const Error& e) {
      fuzz::require(e.kind() == ErrorKind::usage && e.source() == "--vary",
                    "axis errors are usage errors on --vary");
      throw;
    }
  });
  return parsed;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  fuzz::init_cli_environment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size); // NOLINT
  std::vector<std::string> axes;
  std::vector<std::string> options;
  std::size_t start = 0;
  while (start <= text.size() && axes.size() + options.size() < k_max_lines) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.find('\0') != std::string::npos) return -1; // argv cannot hold NUL bytes
    if (line.starts_with("--")) {
      if (!allowed_option(line)) return -1;
      options.push_back(std::move(line));
    } else if (!line.empty()) {
      axes.push_back(std::move(line));
    }
  }
  if (axes.empty()) return -1;

  std::uint64_t points = 1;
  std::uint64_t model_combinations = 1;
  bool all_parsed = true;
  for (const auto& argument : axes) {
    std::size_t n = 0;
    bool model_key = false;
    if (!parse_axis(argument, n, model_key)) {
      all_parsed = false;
      continue;
    }
    points = std::min<std::uint64_t>(points * n, k_max_sweep_points + 1);
    if (model_key) model_combinations = std::min<std::uint64_t>(model_combinations * n, 1'000'000);
  }
  bool recommend = false;
  bool has_gpu = false;
  bool has_format = false;
  bool pareto = false;
  for (const auto& o : options) {
    recommend = recommend || o.find("recommend") != std::string::npos;
    has_gpu = has_gpu || o.starts_with("--gpu=");
    has_format = has_format || o.starts_with("--format");
    pareto = pareto || o.starts_with("--pareto");
  }
  // Bad axes are refused before any work; small grids run whole.
  const bool small = points <= (recommend ? k_max_run_recommend_points : k_max_run_points) &&
                     model_combinations <= k_max_run_model_combinations;
  if (all_parsed && !small) return 0;

  std::vector<std::string> args = {"sweep", RIGHTSIZE_FUZZ_BASE_DIR "/chat-8b.json", "--threads=1"};
  if (!has_format) args.emplace_back("--format=csv");
  if (!has_gpu && !recommend) args.emplace_back("--gpu=H100-SXM");
  for (const auto& o : options)
    args.push_back(o);
  for (const auto& a : axes) {
    args.emplace_back("--vary");
    args.push_back(a);
  }
  const fuzz::CliRun run = fuzz::run_cli(args);
  fuzz::check_cli_run(args, run);
  if (!all_parsed && run.code != 2) fuzz::fail_run("a bad axis must be a usage error", args, run);
  if (!has_format && !pareto && run.code <= 1) {
    // CSV: a header, then one row per point (values never hold a newline: lines split the input).
    const auto rows = static_cast<std::uint64_t>(std::count(run.out.begin(), run.out.end(), '\n'));
    if (rows != points + 1) fuzz::fail_run("a CSV row per grid point", args, run);
  }
  return 0;
}
