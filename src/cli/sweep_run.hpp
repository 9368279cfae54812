#pragma once
// The sweep's writers as sinks of the application's run loop (app/sweep_loop.hpp): CSV, JSON lines
// and JSON stream each round's rows to a FILE; the table (the terminal format) collects its cells and
// renders them at the end (docs/sweep.md).
#include <cstdio>

#include "cli/sweep_plan.hpp"
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

/// Most points a table (the terminal format) may show.
inline constexpr std::uint64_t k_max_table_points = 100'000;

} // namespace rightsize::cli
