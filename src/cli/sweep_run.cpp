// The sweep loop: rounds of `threads × chunk_points` points; each worker evaluates a contiguous
// slice into its own buffer and the slices are written in order, so the bytes do not depend on
// the thread count. --pareto keeps (x, y, index) of passing points in a running front, then
// re-evaluates only the front's points to write them.
#include "sweep_run.hpp"

#include <algorithm>
#include <thread>

#include "table.hpp"

namespace rightsize::cli {
namespace {

struct Worker {
  fmt::memory_buffer rows;
  std::vector<ParetoPoint> front;
  std::vector<PlotPoint> plot;
  std::uint64_t ok = 0;
};

struct Slice {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

void work(const SweepPlan& plan, const RowWriter& writer, const RunOptions& o, bool collect_front,
          Slice slice, Worker& w) {
  PointResult p;
  const bool write_rows = !o.pareto && o.format != Format::table;
  for (std::uint64_t i = slice.begin; i < slice.end; ++i) {
    evaluate_point(plan, i, p);
    if (write_rows) writer.row(w.rows, p, i == 0);
    if (!p.ok()) continue;
    ++w.ok;
    if (collect_front) w.front.push_back({metric_value(o.x, plan, p), metric_value(o.y, plan, p), i});
    if (o.plot != nullptr && i % o.plot->stride == 0) {
      const std::size_t series = o.plot->series_axis < plan.axes.size() ? p.digits[o.plot->series_axis] : 0;
      w.plot.push_back({metric_value(o.plot->x, plan, p), metric_value(o.plot->y, plan, p), series, i});
    }
  }
}

PlotPoint plot_point(const PlotData& plot, const SweepPlan& plan, const PointResult& p) {
  const std::size_t series = plot.series_axis < plan.axes.size() ? p.digits[plot.series_axis] : 0;
  return {metric_value(plot.x, plan, p), metric_value(plot.y, plan, p), series, p.index};
}

// Writes the table (the terminal format) of the given points.
void write_table(const SweepPlan& plan, const std::vector<std::uint64_t>* only, const RunOptions& o,
                 std::FILE* out) {
  std::vector<Column> columns;
  for (const auto& h : sweep_table_headers(plan))
    columns.push_back({h, Align::left, h == "status"});
  Table table(std::move(columns));
  PointResult p;
  const std::uint64_t n = only != nullptr ? only->size() : plan.grid.size();
  for (std::uint64_t i = 0; i < n; ++i) {
    evaluate_point(plan, only != nullptr ? (*only)[i] : i, p);
    table.add_row(sweep_table_cells(plan, p));
  }
  const std::string text = table.render_text(o.table_width);
  std::fwrite(text.data(), 1, text.size(), out);
}

} // namespace

std::uint64_t run_sweep(const SweepPlan& plan, const RowWriter& writer, const RunOptions& o, std::FILE* out) {
  const std::uint64_t total = plan.grid.size();
  const bool directions = o.x.has_direction && o.y.has_direction;
  const bool collect_front = o.pareto || (o.plot != nullptr && directions);
  const auto threads = static_cast<std::size_t>(std::clamp(o.threads, 1, 64));
  const std::uint64_t chunk = std::max<std::uint64_t>(1, o.chunk_points);
  if (o.format == Format::table && !o.pareto) {
    write_table(plan, nullptr, o, out);
    if (o.plot == nullptr) return total;
  }
  std::vector<Worker> workers(threads);
  ParetoAccumulator front(o.x.direction, o.y.direction);
  fmt::memory_buffer head;
  if (o.format != Format::table) writer.header(head);
  std::fwrite(head.data(), 1, head.size(), out);
  for (std::uint64_t begin = 0; begin < total; begin += threads * chunk) {
    const std::uint64_t round_end = std::min(total, begin + threads * chunk);
    const std::uint64_t per = (round_end - begin + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) {
      const Slice slice{std::min(round_end, begin + t * per), std::min(round_end, begin + (t + 1) * per)};
      Worker& w = workers[t];
      w.rows.clear();
      w.front.clear();
      if (t + 1 == threads) {
        work(plan, writer, o, collect_front, slice, w);
      } else {
        pool.emplace_back([&, slice] { work(plan, writer, o, collect_front, slice, w); });
      }
    }
    for (auto& th : pool)
      th.join();
    for (Worker& w : workers) {
      std::fwrite(w.rows.data(), 1, w.rows.size(), out);
      for (const ParetoPoint& p : w.front)
        front.add(p);
    }
  }
  std::uint64_t written = total;
  std::vector<ParetoPoint> front_points;
  if (collect_front) front_points = front.front();
  if (o.plot != nullptr) {
    PlotData& plot = *o.plot;
    plot.total_points = total;
    for (Worker& w : workers) {
      plot.ok_points += w.ok;
      plot.points.insert(plot.points.end(), w.plot.begin(), w.plot.end());
    }
    std::sort(plot.points.begin(), plot.points.end(),
              [](const PlotPoint& a, const PlotPoint& b) { return a.index < b.index; });
  }
  if (o.pareto || (o.plot != nullptr && collect_front)) {
    fmt::memory_buffer rows;
    PointResult p;
    std::vector<std::uint64_t> indices;
    for (std::size_t i = 0; i < front_points.size(); ++i) {
      evaluate_point(plan, front_points[i].index, p);
      if (o.plot != nullptr) o.plot->front.push_back(plot_point(*o.plot, plan, p));
      if (o.pareto && o.format != Format::table) writer.row(rows, p, i == 0);
      indices.push_back(front_points[i].index);
    }
    if (o.pareto) {
      written = front_points.size();
      if (o.format == Format::table) write_table(plan, &indices, o, out);
      std::fwrite(rows.data(), 1, rows.size(), out);
    }
  }
  fmt::memory_buffer tail;
  if (o.format != Format::table) writer.footer(tail);
  std::fwrite(tail.data(), 1, tail.size(), out);
  return written;
}

} // namespace rightsize::cli
