#pragma once
// The sweep plan, its evaluation and its run loop live in the application layer (src/app/sweep.hpp); the
// sweep's writers use them by these names.
#include "app/sweep.hpp"
#include "app/sweep_loop.hpp"
#include "app/sweep_spec.hpp"

namespace rightsize::cli {

using app::evaluate_point;
using app::find_metric;
using app::finish_plan;
using app::FixedDeployment;
using app::k_max_plot_points;
using app::Knee;
using app::make_plot_data;
using app::Metric;
using app::metric_value;
using app::number_of;
using app::parse_sweep_axis;
using app::PlotData;
using app::PlotPoint;
using app::PointIssue;
using app::PointResult;
using app::prepare_sweep_models;
using app::RowSink;
using app::SweepAxis;
using app::SweepField;
using app::SweepMode;
using app::SweepPlan;
using app::SweepRunOptions;
using app::SweepRunResult;

} // namespace rightsize::cli
