#pragma once
// Sweep rows as CSV, JSON lines, one JSON document, or table cells (docs/sweep.md "Columns").
// Field names are those of the estimate JSON document (docs/output-schema.md). Formatting writes
// into a caller-owned buffer and allocates nothing per row once the buffer has grown.
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "render/output_format.hpp"
#include "render/sweep_names.hpp"

namespace rightsize::cli {

/// The estimate columns after the varied keys, in output order.
const std::vector<std::string_view>& sweep_figure_columns();
/// The same for a training spec's runs (docs/sweep.md "Training specs").
const std::vector<std::string_view>& sweep_training_columns();

/// Appends `value` rounded to 6 significant digits (round_sig) in shortest form; nothing for a
/// non-finite value (CSV empty cell). JSON callers check finiteness and write null themselves.
void append_number(fmt::memory_buffer& out, double value);

/// Appends the point's status: "ok", or "<reason>: <the reason in words>" (e.g. "does_not_fit:
/// needs 151.2 GB per GPU, has 76.5 GB usable"). Same words as describe_rejection().
void append_status(fmt::memory_buffer& out, const SweepPlan& plan, const PointResult& point);

/// Value `i` of `axis` as a CSV cell (RFC 4180-quoted where needed).
std::string axis_csv_cell(const SweepAxis& axis, std::size_t i);
/// Value `i` of `axis` as a JSON literal: a number when the text is one, else a quoted string (a GPU
/// id always).
std::string axis_json_value(const SweepAxis& axis, std::size_t i);

/// Writes rows of one format. Holds pre-rendered cells (GPU ids, keys, varied values) so rows are
/// cheap.
class RowWriter {
public:
  /// `format` is csv, jsonl or json. `spec_name` goes into the json document.
  RowWriter(const SweepPlan& plan, Format format, std::string spec_name, std::string pareto_label);
  /// The CSV header line, or the opening of the json document; nothing for jsonl.
  void header(fmt::memory_buffer& out) const;
  /// One row; `first` is true for the first row of the output (json separators).
  void row(fmt::memory_buffer& out, const PointResult& point, bool first) const;
  /// The closing of the json document; nothing otherwise.
  void footer(fmt::memory_buffer& out) const;

private:
  void csv_row(fmt::memory_buffer& out, const PointResult& point) const;
  void json_row(fmt::memory_buffer& out, const PointResult& point) const;
  // A training spec's rows (sweep_training_rows.cpp): the run's figures in place of the estimate's.
  void training_csv_row(fmt::memory_buffer& out, const PointResult& point) const;
  void training_json_row(fmt::memory_buffer& out, const PointResult& point) const;
  void json_point_and_status(fmt::memory_buffer& out, const PointResult& point) const;

  const SweepPlan* m_plan;
  Format m_format;
  std::string m_spec_name;
  std::string m_pareto_label;                        ///< "" or the json "pareto" object
  std::vector<std::string> m_gpu_csv;                ///< catalog ids, CSV-quoted
  std::vector<std::string> m_gpu_json;               ///< catalog ids, JSON strings
  std::vector<std::size_t> m_sorted_axes;            ///< axes in key order, for the json "point" object
  std::vector<std::string> m_axis_json_keys;         ///< "\"workload.concurrency\":" per axis
  std::vector<std::vector<std::string>> m_axis_csv;  ///< per axis, per value: axis_csv_cell
  std::vector<std::vector<std::string>> m_axis_json; ///< per axis, per value: axis_json_value
};

/// Table cells for one point: varied values, then GPU, layout, TTFT, TPOT, tokens/s, $/M tokens,
/// memory per GPU and status (human units via the format_* helpers).
std::vector<std::string> sweep_table_cells(const SweepPlan& plan, const PointResult& point);
/// Table headers matching sweep_table_cells().
std::vector<std::string> sweep_table_headers(const SweepPlan& plan);

/// `text` as one RFC 4180 CSV field: quoted (quotes doubled) when it holds ',', '"' or a newline.
std::string csv_cell(std::string_view text);

/// Appends `text` as a JSON string literal (quotes and escapes).
void append_json_string(fmt::memory_buffer& out, std::string_view text);

} // namespace rightsize::cli
