// `rightsize calibrate RUNS... --out FILE`: reads the benchmark runs and their flag context, has the
// use case (src/app/calibrate.hpp) fit the efficiency factors of each GPU x engine they cover, writes
// the calibration overlay for --calibration FILE and prints the error per figure before -> after
// (calibrate_render.cpp; docs/calibration.md).
#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "app/calibrate.hpp"
#include "cli/catalog_setup.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/output_file.hpp"
#include "io/catalog/overlay_io.hpp"
#include "io/runs/bench_runs.hpp"
#include "render/calibrate_render.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> runs, holdout;
  std::string manifest, out;
  std::string format = "table";
  io::RunContext context;
  CatalogOptions catalog;
};

// Flag context for a result file that carries none (every format but the CSV): checked before the
// file is read, so a missing flag is a usage error naming the flag.
void require_context(const io::RunContext& c, const std::string& file) {
  if (io::describes_its_context(file)) return;
  const auto need = [&](const std::string& value, const char* flag, const char* what) {
    if (value.empty()) {
      throw Error(c.given_by == "--model" ? ErrorKind::usage : ErrorKind::input,
                  c.given_by == "--model" ? flag : c.given_by, "",
                  fmt::format("required for {}: a {} does not say which {} ran", file,
                              io::is_training_log(file) ? "training log" : "tool's result file", what));
    }
  };
  need(c.preset, "--model", "model (a preset of 'rightsize models')");
  need(c.gpu, "--gpu", "GPU");
  if (!io::is_training_log(file)) {
    need(c.engine, "--engine", "engine");
    return;
  }
  // A torchtitan log prints speed and memory, not the job's shape.
  need(c.gpus > 0 ? "set" : "", "--gpus", "GPU count");
  need(c.seq_len > 0 ? "set" : "", "--seq-len", "sequence length");
  need(c.global_batch > 0 ? "set" : "", "--global-batch", "global batch (sequences per step)");
  need(c.recompute, "--recompute", "activation recompute (none, selective, full or per_op)");
}

// The run-context flags, checked before any file is read: each bad one is a usage error naming it.
void check_flag_context(const io::RunContext& c, const std::vector<io::Preset>& presets,
                        const LoadedCatalog& loaded) {
  if (!c.gpu.empty()) (void)require_gpu(loaded.catalog, c.gpu, "--gpu");
  if (!c.engine.empty() && !parse_engine_kind(c.engine)) {
    throw Error(ErrorKind::usage, "--engine", "",
                fmt::format("unknown engine \"{}\" (expected vllm, sglang or trtllm)", c.engine));
  }
  if (!c.preset.empty()) {
    std::vector<std::string> ids;
    ids.reserve(presets.size());
    for (const io::Preset& p : presets)
      ids.push_back(p.id);
    if (std::find(ids.begin(), ids.end(), c.preset) == ids.end()) {
      const std::string hint = did_you_mean(c.preset, ids);
      throw Error(ErrorKind::usage, "--model", "",
                  hint.empty()
                      ? fmt::format("unknown model preset \"{}\" (see 'rightsize models')", c.preset)
                      : fmt::format("unknown model preset \"{}\"; did you mean \"{}\"?", c.preset, hint));
    }
  }
  if (!c.recompute.empty() && !parse_recompute(c.recompute)) {
    throw Error(
        ErrorKind::usage, "--recompute", "",
        fmt::format("unknown recompute \"{}\" (expected none, selective, full or per_op)", c.recompute));
  }
  if (!c.precision.empty()) {
    const std::vector<std::string> known = {"bf16", "fp16", "fp8", "fp4", "int4"};
    if (std::find(known.begin(), known.end(), c.precision) == known.end()) {
      throw Error(
          ErrorKind::usage, "--precision", "",
          fmt::format("unknown precision \"{}\" (expected bf16, fp16, fp8, fp4 or int4)", c.precision));
    }
  }
}

void load_into(app::CalibrationRuns& into, const std::string& file, const io::RunContext& context,
               bool holdout, const std::vector<io::Preset>& presets, const LoadedCatalog& loaded) {
  require_context(context, file);
  app::add_runs(into, file, io::load_benchmark_runs(file, context, presets), holdout, loaded.catalog);
}

int run_calibrate(const CalibrateOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  if (o.runs.empty() && o.manifest.empty()) {
    throw Error(ErrorKind::usage, "RUNS", "",
                "expected at least one benchmark result file or --manifest FILE");
  }
  check_output_path("--out", o.out);
  const LoadedCatalog loaded = load_catalog(o.catalog, nullptr);
  if (!loaded.calibrated) {
    throw Error(ErrorKind::usage, "--no-calibration", "",
                "calibrate fits on top of data/calibration.json; drop --no-calibration");
  }
  const std::vector<io::Preset> presets = io::load_presets(data_dir() + "/models");
  check_flag_context(o.context, presets, loaded);
  app::CalibrationRuns runs;
  for (const std::string& f : o.runs)
    load_into(runs, f, o.context, false, presets, loaded);
  for (const std::string& f : o.holdout)
    load_into(runs, f, o.context, true, presets, loaded);
  if (!o.manifest.empty()) {
    for (const io::ManifestEntry& e : io::load_run_manifest(o.manifest))
      load_into(runs, e.file, e.context, e.holdout, presets, loaded);
  }
  for (const std::string& stack : app::held_out_only_stacks(runs))
    warn("{}: only held-out runs, nothing to fit; it keeps the shipped factors", stack);
  const app::CalibrateResult result = app::run_calibrate(runs, loaded, today_days());
  write_file_atomically("--out", o.out, io::overlay_to_json(result.overlay));
  render_calibrate(loaded, result, o.out, format);
  return 0;
}

} // namespace

void add_calibrate(CLI::App& app, Action& action) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* command = app.add_subcommand(
      "calibrate", "fit the efficiency factors to your own benchmark runs and write a calibration overlay");
  command->add_option("runs", o->runs,
                      "benchmark results: serving-measurements CSV, vLLM --save-result JSON, SGLang "
                      "bench_serving JSONL, GenAI-Perf profile_export_genai_perf.json, training CSV, "
                      "torchtitan log (.log/.txt) (docs/calibration.md)");
  command->add_option("--out", o->out, "overlay file to write (for --calibration FILE)")->required();
  command->add_option("--holdout", o->holdout,
                      "result files scored before -> after but not fitted to (repeatable)");
  command->add_option("--manifest", o->manifest,
                      "JSON list of result files with their context (docs/calibration.md)");
  command->add_option("--model", o->context.preset, "model preset of the runs (see 'rightsize models')")
      ->group("Run context (files without their own)");
  command->add_option("--gpu", o->context.gpu, "GPU of the runs (catalog id or alias)")
      ->group("Run context (files without their own)");
  command->add_option("--engine", o->context.engine, "serving engine of the runs: vllm, sglang or trtllm")
      ->group("Run context (files without their own)");
  command
      ->add_option("--precision", o->context.precision,
                   "precision of the runs: bf16 (default), fp8, fp4, int4")
      ->group("Run context (files without their own)");
  command->add_option("--tp", o->context.tp, "tensor-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command->add_option("--pp", o->context.pp, "pipeline-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command->add_option("--ep", o->context.ep, "expert-parallel degree of the runs (default 1)")
      ->group("Run context (files without their own)");
  command
      ->add_option("--concurrency", o->context.concurrency,
                   "closed-loop concurrency, for GenAI-Perf files without input_config.concurrency")
      ->group("Run context (files without their own)");
  const char* training_group = "Training log context (torchtitan logs)";
  command->add_option("--gpus", o->context.gpus, "GPUs of the training job")->group(training_group);
  command->add_option("--seq-len", o->context.seq_len, "training sequence length in tokens")
      ->group(training_group);
  command->add_option("--global-batch", o->context.global_batch, "sequences per optimizer step, all GPUs")
      ->group(training_group);
  command
      ->add_option("--recompute", o->context.recompute,
                   "activation recompute: none, selective, full or per_op")
      ->group(training_group);
  command
      ->add_option("--warmup-steps", o->context.warmup_steps,
                   "drop log lines of steps <= N (default: 10 % of the last step, at least step 1)")
      ->group(training_group);
  command->add_option("--format", o->format, "output format: table (default) or json");
  add_catalog_options(command, o->catalog);
  command->callback([&action, o] { action = [o] { return run_calibrate(*o); }; });
}

} // namespace rightsize::cli
