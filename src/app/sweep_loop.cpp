// The sweep loop (app/sweep_loop.hpp): worker slices in grid order, the running Pareto front and
// the plot's sample.
#include "app/sweep_loop.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "app/parallel.hpp"
#include "rightsize/load_model.hpp"

namespace rightsize::app {
namespace {

// One cache line or more each: a worker bumps `ok` every point and its buffer's size every cell, so
// two workers sharing a line (the vector packs them end to start) would stall each other on it.
struct alignas(64) Worker {
  fmt::memory_buffer rows;
  std::vector<ParetoPoint> front;
  std::vector<PlotPoint> plot;
  std::uint64_t ok = 0;
};

struct Slice {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

PlotPoint plot_point(const PlotData& plot, const SweepPlan& plan, const PointResult& p) {
  const std::size_t series = plot.series_axis < plan.axes.size() ? p.digits[plot.series_axis] : 0;
  return {metric_value(plot.x, plan, p), metric_value(plot.y, plan, p), series, p.index, p.ok()};
}

void work(const SweepPlan& plan, const RowSink& sink, const SweepRunOptions& o, bool collect_front,
          Slice slice, Worker& w) {
  PointResult p;
  for (std::uint64_t i = slice.begin; i < slice.end; ++i) {
    evaluate_point(plan, i, p);
    if (!o.pareto) sink.row(w.rows, p, i == 0);
    // The plot draws every point that has both figures; those missing a requirement hollow.
    if (o.plot != nullptr && i % o.plot->stride == 0) {
      const PlotPoint point = plot_point(*o.plot, plan, p);
      if (std::isfinite(point.x) && std::isfinite(point.y)) w.plot.push_back(point);
    }
    if (!p.ok()) continue;
    ++w.ok;
    if (collect_front) w.front.push_back({metric_value(o.x, plan, p), metric_value(o.y, plan, p), i});
  }
}

} // namespace

PlotData make_plot_data(const SweepPlan& plan, const Metric& x, const Metric& y) {
  PlotData plot;
  plot.x = x;
  plot.y = y;
  std::size_t varied_other = 0;
  for (std::size_t a = 0; a < plan.axes.size(); ++a) {
    if (a == x.axis || a == y.axis || plan.axes[a].values.texts.size() < 2) continue;
    ++varied_other;
    if (plot.series_axis == std::numeric_limits<std::size_t>::max()) {
      plot.series_axis = a;
      plot.series_key = std::string(plan.axes[a].key->name);
      plot.series_names = plan.axes[a].values.texts;
    }
  }
  plot.lines = x.axis < plan.axes.size() && varied_other <= 1 && plan.mode == SweepMode::estimate;
  plot.latency_load = is_arrival_rate(x, plan) && is_latency(y);
  const std::uint64_t total = plan.grid.size();
  plot.stride = std::max<std::uint64_t>(1, (total + k_max_plot_points - 1) / k_max_plot_points);
  return plot;
}

void find_knees(PlotData& plot) {
  plot.knees.clear();
  if (!plot.latency_load) return;
  std::map<std::size_t, std::vector<const PlotPoint*>> series;
  for (const PlotPoint& p : plot.points)
    series[p.series].push_back(&p);
  for (const auto& [s, points] : series) {
    std::vector<double> load;
    std::vector<double> latency;
    for (const PlotPoint* p : points) {
      load.push_back(p->x);
      latency.push_back(p->y);
    }
    const std::size_t k = load::power_knee_index(load, latency);
    if (k < points.size()) plot.knees.push_back({s, points[k]->x, points[k]->y});
  }
}

SweepRunResult run_sweep(const SweepPlan& plan, const SweepRunOptions& o, RowSink& sink) {
  SweepRunResult result;
  result.total_points = plan.grid.size();
  result.written_points = result.total_points;
  const bool directions = o.x.has_direction && o.y.has_direction;
  const bool collect_front = o.pareto || (o.plot != nullptr && directions);
  const auto threads = static_cast<std::size_t>(std::clamp(o.threads, 1, 64));
  const std::uint64_t chunk = std::max<std::uint64_t>(1, o.chunk_points);
  std::vector<Worker> workers(threads);
  ParetoAccumulator front(o.x.direction, o.y.direction);
  for (std::uint64_t begin = 0; begin < result.total_points; begin += threads * chunk) {
    const std::uint64_t round_end = std::min(result.total_points, begin + threads * chunk);
    const std::uint64_t per = (round_end - begin + threads - 1) / threads;
    // Each thread one slice into its own worker (parallel_for: a job's exception is rethrown here).
    parallel_for(threads, static_cast<int>(threads), [&](std::size_t t) {
      const Slice slice{std::min(round_end, begin + t * per), std::min(round_end, begin + (t + 1) * per)};
      Worker& w = workers[t];
      w.rows.clear();
      w.front.clear();
      work(plan, sink, o, collect_front, slice, w);
    });
    for (Worker& w : workers) {
      sink.write({w.rows.data(), w.rows.size()});
      for (const ParetoPoint& p : w.front)
        front.add(p);
    }
  }
  for (const Worker& w : workers)
    result.ok_points += w.ok;
  if (o.plot != nullptr) {
    PlotData& plot = *o.plot;
    plot.total_points = result.total_points;
    plot.ok_points = result.ok_points;
    for (Worker& w : workers)
      plot.points.insert(plot.points.end(), w.plot.begin(), w.plot.end());
    std::sort(plot.points.begin(), plot.points.end(),
              [](const PlotPoint& a, const PlotPoint& b) { return a.index < b.index; });
    find_knees(plot);
  }
  if (!collect_front) return result;
  const std::vector<ParetoPoint> front_points = front.front();
  fmt::memory_buffer rows;
  PointResult p;
  for (std::size_t i = 0; i < front_points.size(); ++i) {
    evaluate_point(plan, front_points[i].index, p);
    if (o.plot != nullptr) o.plot->front.push_back(plot_point(*o.plot, plan, p));
    if (o.pareto) sink.row(rows, p, i == 0);
  }
  if (o.pareto) {
    result.written_points = front_points.size();
    sink.write({rows.data(), rows.size()});
  }
  return result;
}

} // namespace rightsize::app
