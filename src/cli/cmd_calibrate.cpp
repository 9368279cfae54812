// `rightsize calibrate RUNS... --out FILE`: the benchmark runs and their flag context go to the use
// case (src/app/calibrate.hpp), which fits the efficiency factors of each GPU x engine they cover;
// the calibration overlay is written to --out and the error per figure before -> after printed
// (calibrate_render.cpp; docs/calibration.md). Flow: flags -> app::CalibrateRequest ->
// app::run_calibrate -> the overlay file and render_calibrate.
#include <memory>

#include "app/calibrate.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/flag_values.hpp"
#include "cli/output_file.hpp"
#include "render/calibrate_render.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

struct CalibrateOptions {
  app::CalibrateRequest typed; ///< the flags taken as typed: the result files and the run context
  std::string out;
  std::string format = "table";
  CatalogOptions catalog;
};

// Every flag parsed and checked, the --out path included; no file is read yet.
app::CalibrateRequest calibrate_request(const CalibrateOptions& o) {
  if (o.typed.runs.empty() && o.typed.manifest.empty()) {
    throw Error(ErrorKind::usage, "RUNS", "",
                "expected at least one benchmark result file or --manifest FILE");
  }
  check_output_path("--out", o.out);
  check_run_context(o.typed.context);
  app::CalibrateRequest request = o.typed;
  request.catalog = catalog_setup(o.catalog);
  request.environment = environment();
  request.out = o.out;
  check_not_an_input("--out", o.out, app::calibrate_inputs(request));
  return request;
}

int run_calibrate(const CalibrateOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const app::CalibrateRequest request = calibrate_request(o);
  LogDiagnostics diagnostics;
  const app::CalibrateOutcome outcome = app::run_calibrate(request, diagnostics);
  // The results reach stdout before the overlay is written: a failed stdout (exit 5) leaves no
  // overlay behind (issue 42); a failed write after them is its own exit 5 naming --out.
  const std::string overlay = overlay_text(outcome.result);
  render_calibrate(outcome.catalog, outcome.result, o.out, format);
  check_stdout_written();
  // A fit whose leave-one-out error stays above 25 % is not written without --force (exit 1:
  // ran fine, the runs do not support an overlay; docs/cli.md).
  if (!outcome.result.write_overlay) return 1;
  write_file_atomically("--out", o.out, overlay);
  return 0;
}

} // namespace

void add_calibrate(CLI::App& app, Action& action) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* command = app.add_subcommand(
      "calibrate", "fit the efficiency factors to your own benchmark runs and write a calibration overlay");
  command->add_option("runs", o->typed.runs,
                      "benchmark results: serving-measurements CSV, vLLM --save-result JSON, SGLang "
                      "bench_serving JSONL, GenAI-Perf profile_export_genai_perf.json, training CSV, "
                      "torchtitan log (.log/.txt) (docs/calibration.md)");
  command->add_option("--out", o->out, "overlay file to write (for --calibration FILE)")->required();
  command->add_option("--holdout", o->typed.holdout,
                      "result files scored before -> after but not fitted to (repeatable)");
  command->add_option("--manifest", o->typed.manifest,
                      "JSON list of result files with their context (docs/calibration.md)");
  command->add_option("--model", o->typed.context.preset, "model preset of the runs (see 'rightsize models')")
      ->group("Run context (files without their own)");
  command->add_option("--gpu", o->typed.context.gpu, "GPU of the runs (catalog id or alias)")
      ->group("Run context (files without their own)");
  command
      ->add_option("--engine", o->typed.context.engine, "serving engine of the runs: vllm, sglang or trtllm")
      ->group("Run context (files without their own)");
  command
      ->add_option("--precision", o->typed.context.precision,
                   "precision of the runs: bf16 (default), fp8, fp4, int4")
      ->group("Run context (files without their own)");
  command->add_option("--tp", o->typed.context.tp, "tensor-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command->add_option("--pp", o->typed.context.pp, "pipeline-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command->add_option("--ep", o->typed.context.ep, "expert-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command
      ->add_option("--concurrency", o->typed.context.concurrency,
                   "closed-loop concurrency, for GenAI-Perf files without input_config.concurrency")
      ->group("Run context (files without their own)");
  const char* training_group = "Training log context (torchtitan logs)";
  command->add_option("--gpus", o->typed.context.gpus, "GPUs of the training job")->group(training_group);
  command->add_option("--seq-len", o->typed.context.seq_len, "training sequence length in tokens")
      ->group(training_group);
  command
      ->add_option("--global-batch", o->typed.context.global_batch, "sequences per optimizer step, all GPUs")
      ->group(training_group);
  command
      ->add_option("--recompute", o->typed.context.recompute,
                   "activation recompute: none, selective, full or per_op")
      ->group(training_group);
  command
      ->add_option("--warmup-steps", o->typed.context.warmup_steps,
                   "drop log lines of steps <= N (default: 10 % of the last step, at least step 1)")
      ->group(training_group);
  command->add_option("--format", o->format, "output format: table (default) or json");
  command->add_flag("--force", o->typed.force,
                    "write the overlay even when its leave-one-out error stays above 25 % (exit 1 without)");
  add_catalog_options(command, o->catalog);
  command->callback([&action, o] { action = [o] { return run_calibrate(*o); }; });
}

} // namespace rightsize::cli
