#pragma once
// The sweep's writers as sinks of the application's run loop (app/sweep_loop.hpp): CSV, JSON lines
// and JSON stream each round's rows to a FILE; the table (the terminal format) collects its cells and
// renders them at the end (docs/sweep.md). SweepWriter is the use case's output (app::SweepOutput).
#include <cstdio>
#include <string>

#include "app/sweep_request.hpp"
#include "render/output_format.hpp"
#include "render/sweep_names.hpp"
#include "render/sweep_rows.hpp"

namespace rightsize::cli {

/// How to run and write: the run loop's options, the format and the table's width.
struct RunOptions : SweepRunOptions {
  Format format = Format::csv;
  int table_width = 100;
};

/// Runs the sweep (app::run_sweep) and writes its rows to `out` in `options.format`: the header,
/// the rows in grid order (only the front with `pareto`), the footer. Byte-identical for any
/// thread count. Returns the number of points written.
std::uint64_t run_sweep(const SweepPlan& plan, const RowWriter& writer, const RunOptions& options,
                        std::FILE* out);

/// The writer of one output format for app::run_sweep(SweepRequest, ...).
class SweepWriter final : public app::SweepOutput {
public:
  /// `table_width`: the terminal's, for the table.
  SweepWriter(Format format, int table_width, std::FILE* out)
      : m_format(format), m_table_width(table_width), m_out(out) {}
  void write(const SweepPlan& plan, const std::string& spec_name, const SweepRunOptions& options) override;

private:
  Format m_format;
  int m_table_width;
  std::FILE* m_out;
};

} // namespace rightsize::cli
