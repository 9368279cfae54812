// The sweep's writers as sinks of app::run_sweep: a stream of CSV / JSON lines / JSON bytes, or the
// table's cells. The loop, the front and the plot's sample are the application's (app/sweep_loop.cpp).
#include "render/sweep_run.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "render/table.hpp"

namespace rightsize::cli {
namespace {

// CSV, JSON lines and JSON: each round's rows go straight to the file, so memory stays flat.
class StreamSink final : public RowSink {
public:
  StreamSink(const RowWriter& writer, std::FILE* out) : m_writer(&writer), m_out(out) {}
  void row(fmt::memory_buffer& out, const PointResult& point, bool first) const override {
    m_writer->row(out, point, first);
  }
  void write(std::string_view rows) override { std::fwrite(rows.data(), 1, rows.size(), m_out); }

private:
  const RowWriter* m_writer;
  std::FILE* m_out;
};

// The table: each row's cells travel through the worker's buffer as "<count>;" then "<size>:<bytes>"
// per cell, and are collected into one Table rendered at the end (at most app::k_max_table_points rows).
class TableSink final : public RowSink {
public:
  explicit TableSink(const SweepPlan& plan) : m_plan(&plan), m_table(columns(plan)) {}
  void row(fmt::memory_buffer& out, const PointResult& point, bool /*first*/) const override {
    const std::vector<std::string> cells = sweep_table_cells(*m_plan, point);
    fmt::format_to(std::back_inserter(out), "{};", cells.size());
    for (const std::string& cell : cells) {
      fmt::format_to(std::back_inserter(out), "{}:", cell.size());
      out.append(cell);
    }
  }
  void write(std::string_view rows) override {
    while (const auto count = take_count(rows, ';')) {
      std::vector<std::string> cells(*count);
      for (std::string& cell : cells) {
        const std::size_t size = std::min(take_count(rows, ':').value_or(0), rows.size());
        cell.assign(rows.substr(0, size));
        rows.remove_prefix(size);
      }
      m_table.add_row(std::move(cells));
    }
  }
  void render(int width, std::FILE* out) const {
    const std::string text = m_table.render_text(width);
    std::fwrite(text.data(), 1, text.size(), out);
  }

private:
  static std::vector<Column> columns(const SweepPlan& plan) {
    std::vector<Column> columns;
    for (const auto& h : sweep_table_headers(plan))
      columns.push_back({h, Align::left, h == "status"});
    return columns;
  }
  // The number before `end` at the front of `rows`, consumed with its terminator; nothing at the end.
  static std::optional<std::size_t> take_count(std::string_view& rows, char end) {
    std::size_t n = 0;
    const char* last = rows.data() + rows.size();
    const auto [ptr, ec] = std::from_chars(rows.data(), last, n);
    if (ec != std::errc{} || ptr == last || *ptr != end) return std::nullopt;
    rows.remove_prefix(static_cast<std::size_t>(ptr - rows.data()) + 1);
    return n;
  }

  const SweepPlan* m_plan;
  Table m_table;
};

} // namespace

std::uint64_t run_sweep(const SweepPlan& plan, const RowWriter& writer, const RunOptions& o, std::FILE* out) {
  if (o.format == Format::table) {
    TableSink table(plan);
    const SweepRunResult result = app::run_sweep(plan, o, table);
    table.render(o.table_width, out);
    return result.written_points;
  }
  StreamSink stream(writer, out);
  fmt::memory_buffer head;
  writer.header(head);
  stream.write({head.data(), head.size()});
  const SweepRunResult result = app::run_sweep(plan, o, stream);
  fmt::memory_buffer tail;
  writer.footer(tail);
  stream.write({tail.data(), tail.size()});
  return result.written_points;
}

void SweepWriter::write(const SweepPlan& plan, const std::string& spec_name, const SweepRunOptions& options) {
  RunOptions run;
  static_cast<SweepRunOptions&>(run) = options;
  run.format = m_format;
  run.table_width = m_table_width;
  std::string pareto_label;
  if (options.pareto) {
    pareto_label =
        fmt::format("{{\"x\": \"{}\", \"x_direction\": \"{}\", \"y\": \"{}\", \"y_direction\": \"{}\"}}",
                    options.x.name, options.x.direction == Direction::minimize ? "minimize" : "maximize",
                    options.y.name, options.y.direction == Direction::minimize ? "minimize" : "maximize");
  }
  const RowWriter writer(plan, m_format, spec_name, pareto_label);
  run_sweep(plan, writer, run, m_out);
}

} // namespace rightsize::cli
