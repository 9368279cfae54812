// `rightsize sweep SPEC --vary KEY=VALUES ...`: what-if grids over spec keys, GPUs and layouts,
// streamed as CSV / JSON lines / JSON / a table, optionally reduced to the Pareto front and
// plotted (docs/sweep.md). Flow: flags -> app::SweepRequest -> app::run_sweep, whose rows the
// format's writer (render/sweep_run.hpp) streams -> the plot written to --plot.
#include <cstdio>
#include <memory>

#include "app/sweep_request.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_flags.hpp"
#include "cli/flag_values.hpp"
#include "cli/judge_options.hpp"
#include "cli/output_file.hpp"
#include "render/sweep_plot.hpp"
#include "render/sweep_run.hpp"
#include "render/terminal.hpp"

namespace rightsize::cli {
namespace {

struct SweepOptions {
  app::SweepRequest typed; ///< the flags taken as typed: --vary, --gpu and the layout flags
  std::string spec;
  std::string mode = "estimate";
  std::string format;
  std::string plot;
  bool plot_given = false; // --plot "" is an error, not "no plot"
  int threads = 0;
  CatalogOptions catalog;
  JudgeOptions judging;
  EngineOptions engine;
};

// Every flag parsed and checked; no file is read yet.
app::SweepRequest sweep_request(const SweepOptions& o, Format format) {
  app::SweepRequest request = o.typed;
  request.mode = parse_sweep_mode(o.mode);
  request.inputs.catalog = catalog_setup(o.catalog);
  request.confidence = confidence_of(o.judging);
  request.headroom = headroom_of(o.judging);
  request.inputs.engine = engine_setup(o.engine);
  request.table = format == Format::table;
  request.threads = worker_threads(o.threads);
  request.plot = o.plot_given;
  request.inputs.spec = o.spec;
  request.inputs.environment = environment();
  return request;
}

int run(const SweepOptions& o) {
  // The plot file is checked before any work, so a bad path never costs the sweep or the CSV.
  if (o.plot_given) check_output_path("--plot", o.plot);
  const Format format = parse_format(o.format.empty() ? (stdout_is_tty() ? "table" : "csv") : o.format,
                                     {"csv", "jsonl", "json", "table"});
  const app::SweepRequest request = sweep_request(o, format);
  LogDiagnostics diagnostics;
  SweepWriter writer(format, terminal_width(), stdout);
  const app::SweepOutcome outcome = app::run_sweep(request, diagnostics, writer);
  // A latency–load sweep's knees: under the table, or beside a machine-readable stream on stderr.
  const std::string knees = outcome.plot ? render_knees(*outcome.plot) : std::string();
  if (format == Format::table) {
    std::fputs(knees.c_str(), stdout);
  } else if (!knees.empty()) {
    diagnostics.note(knees.substr(0, knees.size() - 1)); // without its newline
  }
  check_stdout_written(); // a CSV that did not reach stdout: no plot after it
  if (o.plot_given) write_file_atomically("--plot", o.plot, render_plot(*outcome.plot));
  return 0;
}

} // namespace

void add_sweep(CLI::App& app, Action& action) {
  auto options = std::make_shared<SweepOptions>();
  auto* command =
      app.add_subcommand("sweep", "what-if grids over spec keys, GPUs and layouts (docs/sweep.md)");
  command->add_option("spec", options->spec, "model spec file (docs/model-spec.md)")->required();
  command
      ->add_option(
          "--vary", options->typed.vary,
          "KEY=VALUES: a list (1,8,64 / bf16,fp8) or a range (1..256:x2, 1024..32768:+1024); repeatable, "
          "the last varies fastest")
      ->required();
  command->add_option("--gpu", options->typed.gpu,
                      "GPU id (estimate mode) or ids to consider (recommend mode, comma-separated)");
  command->add_option("--gpus", options->typed.gpus, "GPUs in the deployment (estimate mode)");
  command->add_option("--tp", options->typed.tp,
                      "tensor-parallel degree (estimate mode; default: smallest layout that fits)");
  command->add_option("--pp", options->typed.pp, "pipeline-parallel degree (estimate mode)");
  command->add_option("--ep", options->typed.ep, "expert-parallel degree (estimate mode)");
  command->add_option("--attention-dp", options->typed.attention_dp,
                      "attention data-parallel ranks per replica (estimate mode, MoE)");
  command->add_option("--mode", options->mode,
                      "estimate (fixed deployment per point, default) or recommend (search)");
  command->add_option("--format", options->format,
                      "csv (default when piped), jsonl, json or table (default on a terminal)");
  command->add_flag("--pareto", options->typed.pareto,
                    "write only the points on the Pareto front of --x and --y");
  command->add_option("--x", options->typed.x,
                      "x figure for --pareto and --plot (default inference.tpot_s; training specs: "
                      "training.time_to_train_planning_s)");
  command->add_option("--y", options->typed.y,
                      "y figure for --pareto and --plot (default cost.usd_per_million_output_tokens_at_load; "
                      "training specs: cost.usd_total)");
  auto* plot = command->add_option("--plot", options->plot, "write an SVG plot of --y against --x to FILE");
  command->add_option("--threads", options->threads,
                      "worker threads; 0 or left out = the hardware concurrency");
  add_catalog_options(command, options->catalog);
  add_judge_options(command, options->judging);
  add_engine_options(command, options->engine);
  command->callback([&action, options, plot] {
    options->plot_given = plot->count() > 0;
    action = [options] { return run(*options); };
  });
}

} // namespace rightsize::cli
