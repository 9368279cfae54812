#pragma once
// Running a sweep (docs/sweep.md): rounds of `threads × chunk_points` points, each worker evaluating
// a contiguous slice and formatting its rows through the sink into its own buffer; the slices reach
// the sink in grid order, so the bytes do not depend on the thread count and memory stays flat.
// --pareto keeps (x, y, index) of passing points in a running front, then re-evaluates only the
// front's points to hand them to the sink. The plot's points are sampled with a fixed stride.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "app/sweep.hpp"

namespace rightsize::app {

/// A point kept for the plot.
struct PlotPoint {
  double x = 0.0; ///< unscaled metric values
  double y = 0.0;
  std::size_t series = 0; ///< value index of the series key (0 when there is none)
  std::uint64_t index = 0;
  bool ok = true; ///< meets every requirement (others are drawn hollow)
};

/// The knee of one series of a latency–load curve (load::power_knee_index): its load and latency.
struct Knee {
  std::size_t series = 0;
  double x = 0.0; ///< unscaled, as PlotPoint
  double y = 0.0;
};

/// What the plot needs, gathered while the sweep runs.
struct PlotData {
  Metric x;
  Metric y;
  std::size_t series_axis = std::numeric_limits<std::size_t>::max(); ///< npos: one series
  std::string series_key;
  std::vector<std::string> series_names;
  std::vector<PlotPoint> points; ///< points with both figures, sampled with a fixed stride on huge grids
  std::vector<PlotPoint> front;  ///< the Pareto front on (x, y), by index; empty without directions
  bool lines = false;            ///< x is the only other varied key: connect each series
  bool latency_load = false;     ///< x is an arrival-rate key and y a latency: knees are marked
  std::vector<Knee> knees;       ///< with latency_load, one per series with a point (find_knees)
  std::uint64_t total_points = 0;
  std::uint64_t ok_points = 0;
  std::uint64_t stride = 1;
};

/// Most points drawn in a plot; larger grids are sampled with a fixed stride (the front always drawn).
inline constexpr std::uint64_t k_max_plot_points = 20'000;

/// Sets up what run_sweep collects for the plot: the series key (the first varied key other than
/// x with more than one value), lines when x is a varied key and the only other one is the series,
/// and the sampling stride for grids above k_max_plot_points.
PlotData make_plot_data(const SweepPlan& plan, const Metric& x, const Metric& y);

/// The knee of each series of a latency–load plot (methodology §3.1 "The knee"): the point of the
/// greatest load / latency among the points that have both (overloaded points have no latency).
void find_knees(PlotData& plot);

/// Where a sweep's rows go: one writer per format implements it (docs/ARCHITECTURE.md).
class RowSink {
public:
  RowSink() = default;
  RowSink(const RowSink&) = default;
  RowSink(RowSink&&) = default;
  RowSink& operator=(const RowSink&) = default;
  RowSink& operator=(RowSink&&) = default;
  virtual ~RowSink() = default;
  /// Formats one point's row into `out`; `first` is true for the first row of the output. Called
  /// concurrently by the worker threads, each with its own buffer: it must not change the sink.
  virtual void row(fmt::memory_buffer& out, const PointResult& point, bool first) const = 0;
  /// Takes formatted rows in output order, on the calling thread.
  virtual void write(std::string_view rows) = 0;
};

/// How to run.
struct SweepRunOptions {
  int threads = 1;                      ///< clamped to 1..64
  std::uint64_t chunk_points = 1 << 15; ///< points per thread per round
  bool pareto = false;                  ///< hand the sink only the front on (x, y)
  Metric x;                             ///< Pareto / plot axes
  Metric y;
  PlotData* plot = nullptr; ///< collect plot data when not null (make_plot_data)
};

/// What a run decided.
struct SweepRunResult {
  std::uint64_t total_points = 0;
  std::uint64_t ok_points = 0;      ///< points that fit and meet every SLA term
  std::uint64_t written_points = 0; ///< rows handed to the sink: every point, or the front
};

/// Evaluates every point and hands the rows to `sink` in grid order (only the front with
/// `pareto`). Byte-identical for any thread count.
SweepRunResult run_sweep(const SweepPlan& plan, const SweepRunOptions& options, RowSink& sink);

} // namespace rightsize::app
