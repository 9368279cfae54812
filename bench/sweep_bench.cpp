// sweep_bench: points per second of `rightsize sweep --mode estimate` on a fixed-concurrency grid
// (Llama-3.1-8B bf16 on one H100-SXM, TP1): evaluation only, evaluation + CSV into a buffer, and
// the whole run (CSV written to /dev/null) with 1 and 2 threads. docs/sweep.md quotes the figures.
// Usage: sweep_bench [threads=2]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "../tests/unit/fixtures.hpp"
#include "sweep_plan.hpp"
#include "sweep_rows.hpp"
#include "sweep_run.hpp"

using namespace rightsize;
using namespace rightsize::cli;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void report(const char* what, std::uint64_t points, double seconds) {
  fmt::print("{:<44} {:>10} points  {:>7.3f} s  {:>12.0f} points/s\n", what, points, seconds,
             static_cast<double>(points) / seconds);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  SweepPlan plan;
  // 1024 × 128 × 32 = 4,194,304 points.
  for (const char* arg : {"workload.concurrency=1..1024", "workload.input_tokens=256..32768:+256",
                          "workload.output_tokens=128..4096:+128"}) {
    plan.axes.push_back(parse_sweep_axis(arg, {}));
  }
  plan.models.push_back(prepare_model(test::llama31_8b(), Precision{}));
  plan.gpus.push_back(test::h100_sxm());
  plan.prices.push_back(4.32);
  plan.fixed.gpu = 0;
  plan.fixed.tp = 1;
  finish_plan(plan);
  const std::uint64_t total = plan.grid.size();
  fmt::print("grid: concurrency 1..1024 x input_tokens 256..32768:+256 x output_tokens 128..4096:+128 = {} points\n",
             total);

  PointResult p;
  double sink = 0.0;
  auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < total; ++i) {
    evaluate_point(plan, i, p);
    sink += p.estimate.tpot_s;
  }
  report("evaluate only, 1 thread", total, seconds_since(start));

  const RowWriter writer(plan, Format::csv, "bench", "");
  fmt::memory_buffer buffer;
  std::uint64_t bytes = 0;
  start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < total; ++i) {
    evaluate_point(plan, i, p);
    writer.row(buffer, p, i == 0);
    if (buffer.size() > (1u << 20)) {
      bytes += buffer.size();
      buffer.clear();
    }
  }
  bytes += buffer.size();
  report("evaluate + CSV into a buffer, 1 thread", total, seconds_since(start));

  std::FILE* null = std::fopen("/dev/null", "wb");
  if (null == nullptr) return 1;
  for (const int t : {1, threads}) {
    RunOptions options;
    options.threads = t;
    start = std::chrono::steady_clock::now();
    run_sweep(plan, writer, options, null);
    report(fmt::format("run_sweep CSV to /dev/null, {} thread{}", t, t == 1 ? "" : "s").c_str(), total,
           seconds_since(start));
  }
  std::fclose(null);
  fmt::print("({:.0f} bytes of CSV, {:.1f} bytes per row; checksum {:.6g})\n", static_cast<double>(bytes),
             static_cast<double>(bytes) / static_cast<double>(total), sink);
  return 0;
}
