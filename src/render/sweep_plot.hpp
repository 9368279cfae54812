#pragma once
// `sweep --plot FILE.svg`: a scatter (or one line per series) of y against x with the Pareto front
// highlighted (docs/sweep.md "Plot"); what it draws is collected by app::run_sweep
// (app::make_plot_data).
#include <string>

#include "render/sweep_names.hpp"

namespace rightsize::cli {

/// The SVG document: axes with units, nice ticks (log10 when a range spans more than two decades),
/// one colour per series with a legend, the Pareto front as a polyline, a caption with the counts.
/// Points that miss a requirement are hollow; a latency–load curve's knees are ringed.
std::string render_plot(const PlotData& plot);

/// One line naming each series' knee of a latency–load sweep (methodology §3.1 "The knee"): the
/// arrival rate and its latency; empty when the sweep is not one.
std::string render_knees(const PlotData& plot);

} // namespace rightsize::cli
