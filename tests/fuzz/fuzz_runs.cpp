// libFuzzer target: calibrate's readers (issue 42) on arbitrary bytes. The first byte picks the
// file's kind by its extension (the readers choose the format by it, docs/calibration.md): .json (a
// vLLM `bench serve` result, GenAI-Perf / AIPerf profile_export, or validation cases), .jsonl
// (SGLang bench_serving), .log (a torchtitan log), .csv (serving measurements or training runs), or
// a calibration overlay (.json through load_overlay). Any outcome but a rightsize::Error is a
// finding; every run accepted must carry finite, non-negative measurements.
// RIGHTSIZE_FUZZ_RUNS_READER=json|jsonl|log|csv|overlay pins one reader for a long run of it alone
// (docs/reliability.md); the first byte is then still skipped, so the same corpus serves.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/bench_runs.hpp"
#include "io/spec/spec_io.hpp"
#include <unistd.h>

namespace {

const std::vector<rightsize::io::Preset>& presets() {
  static const std::vector<rightsize::io::Preset> all =
      rightsize::io::load_presets(RIGHTSIZE_FUZZ_MODELS_DIR);
  return all;
}

std::string scratch_file(const char* extension) {
  static const std::string dir = [] {
    const std::string d =
        (std::filesystem::temp_directory_path() / ("fuzz_runs_" + std::to_string(getpid()))).string();
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir + "/runs" + extension;
}

constexpr std::size_t k_reader_kinds = 5;

// The reader RIGHTSIZE_FUZZ_RUNS_READER pins, or k_reader_kinds when the first byte picks it.
std::size_t pinned_reader() {
  static const std::size_t pinned = [] {
    static const char* const k_names[k_reader_kinds] = {"json", "jsonl", "log", "csv", "overlay"};
    const char* value = std::getenv("RIGHTSIZE_FUZZ_RUNS_READER"); // NOLINT(concurrency-mt-unsafe)
    if (value == nullptr || *value == '\0') return k_reader_kinds;
    for (std::size_t i = 0; i < k_reader_kinds; ++i)
      if (std::strcmp(value, k_names[i]) == 0) return i; // NOLINT
    std::abort();                                        // an unknown reader name is the harness's own misuse
  }();
  return pinned;
}

void check_runs(const std::vector<rightsize::StackRun>& runs) {
  using rightsize::fuzz::require;
  for (const rightsize::StackRun& r : runs) {
    const auto ok = [](double v) { return std::isfinite(v) && v >= 0.0; };
    require(ok(r.run.ttft_s) && ok(r.run.tpot_s), "finite, non-negative latencies");
    require(ok(r.output_tokens_per_s) && ok(r.ttft_p99_s) && ok(r.tpot_p99_s), "finite, non-negative rates");
    require(r.run.input_tokens >= 0 && r.run.output_tokens >= 0 && r.run.concurrency >= 0,
            "non-negative counts");
    for (const rightsize::ValidationCase& c : r.cases)
      require(ok(c.measured), "finite, non-negative measured figure");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rightsize;
  if (size == 0) return 0;
  static const char* const k_extensions[] = {".json", ".jsonl", ".log", ".csv", ".json"};
  const std::size_t pinned = pinned_reader();
  const std::size_t kind = pinned < k_reader_kinds ? pinned : data[0] % k_reader_kinds;
  const std::string path = scratch_file(kind == 4 ? ".overlay.json" : k_extensions[kind]);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1)); // NOLINT
  }
  fuzz::expect_only_rightsize_errors([&] {
    if (kind == 4) {
      const io::CalibrationOverlay overlay = io::load_overlay(path);
      io::check_overlay_ranges(overlay);
      return;
    }
    io::RunContext context;
    context.preset = "qwen3-8b";
    context.gpu = "H100-SXM";
    context.engine = "vllm";
    context.gpus = 8;
    context.seq_len = 4096;
    context.global_batch = 64;
    context.recompute = "selective";
    check_runs(io::load_benchmark_runs(path, context, presets()));
  });
  return 0;
}
