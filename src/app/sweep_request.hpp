#pragma once
// The `sweep` use case (docs/sweep.md): the spec and catalog loaded, the plan built from the --vary
// keys, the GPUs and the layout flags, the --x / --y figures found, and the run handed to the output
// format's writer, which streams the rows (src/render/sweep_output.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/diagnostics.hpp"
#include "app/inputs.hpp"
#include "app/sweep.hpp"
#include "app/sweep_loop.hpp"

namespace rightsize::app {

/// Most points a table (the terminal format) may show.
inline constexpr std::uint64_t k_max_table_points = 100'000;

/// `sweep`'s flags, parsed.
struct SweepRequest {
  SpecInputs inputs;
  std::vector<std::string> vary; ///< --vary KEY=VALUES as typed (model.preset values need the presets)
  std::string gpu;               ///< --gpu: one id (estimate mode) or a comma-separated list
  int gpus = 0;                  ///< --gpus, --tp, --pp, --ep, --attention-dp (estimate mode); 0 = unset
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  SweepMode mode = SweepMode::estimate;
  Confidence confidence = Confidence::p90;
  double headroom = -1.0;
  bool table = false; ///< the output is a table: at most k_max_table_points points
  std::string x;      ///< --x, --y: the figures of --pareto and --plot
  std::string y;
  bool pareto = false; ///< write only the Pareto front of x and y
  bool plot = false;   ///< collect the plot's points
  int threads = 1;     ///< worker threads
};

/// Where the rows go: the output format's writer runs the plan (app::run_sweep over a RowSink of its
/// own) and writes the header, the rows and the footer.
class SweepOutput {
public:
  virtual ~SweepOutput() = default;
  /// Runs `plan` with `options` and writes its rows; `spec_name` names the spec in the JSON document.
  virtual void write(const SweepPlan& plan, const std::string& spec_name, const SweepRunOptions& options) = 0;
};

/// What a sweep leaves besides its rows.
struct SweepOutcome {
  /// The points gathered with request.plot (to draw) or for a latency–load sweep (--x an arrival-rate
  /// key, --y a latency), whose knees (PlotData::knees) are printed.
  std::optional<PlotData> plot;
};

/// Loads the spec and the catalog of `request`, builds the plan and runs it through `output`. A bad
/// --vary, --gpu, layout flag, figure or grid size is a usage Error naming the flag.
SweepOutcome run_sweep(const SweepRequest& request, Diagnostics& diagnostics, SweepOutput& output);

} // namespace rightsize::app
