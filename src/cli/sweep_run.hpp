#pragma once
// Running a sweep: chunks of points evaluated by worker threads, rows written in grid order,
// the Pareto front kept in bounded memory, points sampled for the plot (docs/sweep.md).
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sweep_plan.hpp"
#include "sweep_rows.hpp"

namespace rightsize::cli {

/// A point kept for the plot.
struct PlotPoint {
  double x = 0.0; ///< unscaled metric values
  double y = 0.0;
  std::size_t series = 0; ///< value index of the series key (0 when there is none)
  std::uint64_t index = 0;
};

/// What the plot needs, gathered while the sweep runs.
struct PlotData {
  Metric x;
  Metric y;
  std::size_t series_axis = std::numeric_limits<std::size_t>::max(); ///< npos: one series
  std::string series_key;
  std::vector<std::string> series_names;
  std::vector<PlotPoint> points; ///< ok points, sampled with a fixed stride on huge grids
  std::vector<PlotPoint> front;  ///< the Pareto front on (x, y), by index; empty without directions
  bool lines = false;            ///< x is the only other varied key: connect each series
  std::uint64_t total_points = 0;
  std::uint64_t ok_points = 0;
  std::uint64_t stride = 1;
};

/// How to run.
struct RunOptions {
  Format format = Format::csv;
  int threads = 1;
  std::uint64_t chunk_points = 1 << 15; ///< points per thread per round
  bool pareto = false;                  ///< write only the front on (x, y)
  Metric x;                             ///< Pareto / plot axes
  Metric y;
  PlotData* plot = nullptr; ///< collect plot data when not null
  int table_width = 100;
};

/// Evaluates every point and writes the output to `out` in grid order (only the front with
/// `pareto`). Byte-identical for any thread count. Returns the number of points written.
std::uint64_t run_sweep(const SweepPlan& plan, const RowWriter& writer, const RunOptions& options,
                        std::FILE* out);

/// Most points a table (the terminal format) may show.
inline constexpr std::uint64_t k_max_table_points = 100'000;
/// Most points drawn in a plot; larger grids are sampled with a fixed stride (the front always drawn).
inline constexpr std::uint64_t k_max_plot_points = 20'000;

} // namespace rightsize::cli
