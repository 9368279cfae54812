#pragma once
// `sweep --plot FILE.svg`: a scatter (or one line per series) of y against x with the Pareto front
// highlighted (docs/sweep.md "Plot").
#include <string>

#include "sweep_run.hpp"

namespace rightsize::cli {

/// Sets up what run_sweep collects for the plot: the series key (the first varied key other than
/// x with more than one value), lines when x is a varied key and the only other one is the series,
/// and the sampling stride for grids above k_max_plot_points.
PlotData make_plot_data(const SweepPlan& plan, const Metric& x, const Metric& y);

/// The SVG document: axes with units, nice ticks (log10 when a range spans more than two decades),
/// one colour per series with a legend, the Pareto front as a polyline, a caption with the counts.
std::string render_plot(const PlotData& plot);

} // namespace rightsize::cli
