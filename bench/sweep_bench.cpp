// sweep_bench: points per second of `rightsize sweep --mode estimate` on a fixed-concurrency grid
// (Llama-3.1-8B bf16 on one H100-SXM, TP1): evaluation only, evaluation + CSV into a buffer, and
// the whole run (CSV written to /dev/null) with 1 and 2 threads. docs/sweep.md quotes the figures.
// Usage: sweep_bench [threads=2] [concurrency_step=1]. A step thins the concurrency axis for
// callgrind's instruction counts, which a shared VM's wall times cannot resolve
// (`valgrind --tool=callgrind sweep_bench 1 128`: 32,768 points).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "../tests/unit/fixtures.hpp"
#include "render/sweep_names.hpp"
#include "render/sweep_rows.hpp"
#include "render/sweep_run.hpp"

using namespace rightsize;
using namespace rightsize::cli;

namespace {

// Wall time and process CPU time: on a shared machine the CPU figure is the stable one.
struct Stopwatch {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  std::clock_t cpu = std::clock();
};

// Issue 40 ("one restructuring step"): this grid's whole run with 2 threads, measured on a quiet
// 2-core VM the week of 2026-11-23 after the arrival model went in (2.1 M points/s before it).
constexpr double k_issue40_points_per_s = 0.39e6;

// Prints one phase's figures; returns its points per wall second.
double report(const char* what, std::uint64_t points, const Stopwatch& start) {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start.wall).count();
  const double cpu = static_cast<double>(std::clock() - start.cpu) / CLOCKS_PER_SEC;
  const auto n = static_cast<double>(points);
  fmt::print(
      "{:<42} {:>8} points  wall {:>6.2f} s {:>10.0f} points/s  cpu {:>6.2f} s {:>10.0f} points/cpu-s\n",
      what, points, wall, n / wall, cpu, n / cpu);
  return n / wall;
}

} // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const int step = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1;
  SweepPlan plan;
  // 1024 × 128 × 32 = 4,194,304 points.
  const std::string concurrency = step == 1 ? std::string("workload.concurrency=1..1024")
                                            : fmt::format("workload.concurrency=1..1024:+{}", step);
  for (const char* arg : {concurrency.c_str(), "workload.input_tokens=256..32768:+256",
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
  fmt::print("grid: {} x input_tokens 256..32768:+256 x output_tokens 128..4096:+128 = {} points\n",
             concurrency.substr(std::string("workload.").size()), total);

  PointResult p;
  double sink = 0.0;
  Stopwatch start;
  for (std::uint64_t i = 0; i < total; ++i) {
    evaluate_point(plan, i, p);
    sink += p.estimate.tpot_s;
  }
  report("evaluate only, 1 thread", total, start);

  const RowWriter writer(plan, Format::csv, "bench", "");
  fmt::memory_buffer buffer;
  std::uint64_t bytes = 0;
  start = Stopwatch{};
  for (std::uint64_t i = 0; i < total; ++i) {
    evaluate_point(plan, i, p);
    writer.row(buffer, p, i == 0);
    if (buffer.size() > (1u << 20)) {
      bytes += buffer.size();
      buffer.clear();
    }
  }
  bytes += buffer.size();
  report("evaluate + CSV into a buffer, 1 thread", total, start);

  std::FILE* null = std::fopen("/dev/null", "wb");
  if (null == nullptr) return 1;
  double whole_run_points_per_s = 0.0;
  for (const int t : {1, threads}) {
    RunOptions options;
    options.threads = t;
    start = Stopwatch{};
    run_sweep(plan, writer, options, null);
    whole_run_points_per_s = report(
        fmt::format("run_sweep CSV to /dev/null, {} thread{}", t, t == 1 ? "" : "s").c_str(), total, start);
  }
  std::fclose(null);
  if (threads == 2 && step == 1) {
    fmt::print("whole run, 2 threads, before (issue 40) -> this run (target): {:.2f} M -> {:.2f} M points/s "
               "(>= 1 M)\n",
               k_issue40_points_per_s / 1e6, whole_run_points_per_s / 1e6);
  }
  fmt::print("({:.0f} bytes of CSV, {:.1f} bytes per row; checksum {:.6g})\n", static_cast<double>(bytes),
             static_cast<double>(bytes) / static_cast<double>(total), sink);
  return 0;
}
