// `rightsize calibrate RUNS... --out FILE`: fits the efficiency factors of each GPU x engine the
// runs cover (core fit_stack), prints the error per figure before -> after (leave-one-out, and on
// --holdout runs) and writes a calibration overlay for --calibration FILE (docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "bench_runs.hpp"
#include "catalog_setup.hpp"
#include "diagnostics.hpp"
#include "output_file.hpp"
#include "overlay_io.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/pricing.hpp"
#include "rightsize/stack_calibration.hpp"

namespace rightsize::cli {
namespace {

struct CalibrateOptions {
  std::vector<std::string> runs, holdout;
  std::string manifest, out;
  std::string format = "table";
  io::RunContext context;
  CatalogOptions catalog;
};

// The runs of one GPU x engine.
struct Group {
  std::vector<StackRun> fit, holdout;
};

const char* figure_title(FigureKind k) {
  switch (k) {
  case FigureKind::ttft: return "TTFT (mean)";
  case FigureKind::tpot: return "TPOT (mean)";
  case FigureKind::throughput: return "output tokens/s";
  case FigureKind::training_throughput: return "training tokens/s";
  case FigureKind::training_memory: return "training memory";
  default: return to_string(k);
  }
}

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

void load_into(std::map<std::pair<std::string, std::string>, Group>& groups, const std::string& file,
               const io::RunContext& context, bool holdout, const std::vector<io::Preset>& presets,
               const LoadedCatalog& loaded, std::vector<std::string>& inputs) {
  require_context(context, file);
  std::vector<StackRun> runs = io::load_benchmark_runs(file, context, presets);
  inputs.push_back(file);
  for (StackRun& r : runs) {
    const Gpu* gpu = io::find_gpu(loaded.catalog, r.run.gpu_id);
    if (gpu == nullptr) {
      throw Error(ErrorKind::input, file, "",
                  fmt::format("run \"{}\": unknown GPU \"{}\" (see 'rightsize catalog list')", r.run.id,
                              r.run.gpu_id));
    }
    r.run.gpu_id = gpu->id;
    if (r.run.engine != "training") r.run.engine = to_string(*parse_engine_kind(r.run.engine));
    Group& g = groups[{gpu->id, r.run.engine}];
    (holdout ? g.holdout : g.fit).push_back(std::move(r));
  }
}

std::string pct(double v) {
  return fmt::format("{:.0f} %", v);
}

void print_errors(const char* title, const std::vector<FigureError>& errors) {
  if (errors.empty()) return;
  fmt::print("  {}\n", title);
  fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", "figure", "runs", "shipped", "fitted");
  for (const FigureError& e : errors) {
    fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", figure_title(e.kind), e.runs, pct(e.median_ape_shipped_pct),
               pct(e.median_ape_fitted_pct));
  }
}

struct FactorRow {
  const char* name;
  double GpuEfficiency::*value;
  std::string FittedEfficiency::*source;
  std::vector<std::string> FittedEfficiency::*cases;
  const char* informed_by; ///< what a run needs to inform it, for "kept" lines
};

constexpr FactorRow k_factor_rows[] = {
    {"decode_bandwidth", &GpuEfficiency::decode_bandwidth, &FittedEfficiency::decode_source,
     &FittedEfficiency::decode_cases, "TPOT and throughput"},
    {"prefill_compute", &GpuEfficiency::prefill_compute, &FittedEfficiency::prefill_source,
     &FittedEfficiency::prefill_cases, "TTFT"},
    {"communication", &GpuEfficiency::communication, &FittedEfficiency::communication_source,
     &FittedEfficiency::communication_cases, "runs with tp > 1"},
    {"training_mfu", &GpuEfficiency::training_mfu, &FittedEfficiency::training_source,
     &FittedEfficiency::training_cases, "training runs"},
};

// Layout families (docs/calibration.md): own factors, or the GPU x engine factors and why.
void print_layouts(const StackFit& s) {
  if (s.layouts.empty()) return;
  fmt::print("  layout families ({} or more runs get factors of their own)\n", k_min_layout_runs);
  for (const LayoutFit& l : s.layouts) {
    if (!l.own) {
      fmt::print("    {:<7}{:>3} run{}  fewer than {}: the {} x {} factors above apply\n",
                 to_string(l.family), l.runs.size(), l.runs.size() == 1 ? " " : "s", k_min_layout_runs,
                 s.gpu_id, s.engine);
      continue;
    }
    std::string factors;
    for (const FactorRow& f : k_factor_rows) {
      if (l.fitted.*f.source != "fitted") continue;
      factors +=
          fmt::format("{}{} {:.3f}", factors.empty() ? "" : ", ", f.name, l.fitted.efficiency.*f.value);
    }
    fmt::print("    {:<7}{:>3} runs  {}\n", to_string(l.family), l.runs.size(),
               factors.empty() ? std::string("no factor informed: the stack's apply") : factors);
  }
  fmt::print("  median |error| by layout, leave-one-out\n");
  fmt::print("    {:<7}{:<18}{:>6}{:>14}{:>10}\n", "layout", "figure", "runs", "gpu x engine", "layout");
  for (const LayoutFit& l : s.layouts) {
    for (const FigureError& e : l.loo) {
      fmt::print("    {:<7}{:<18}{:>6}{:>14}{:>10}\n", to_string(l.family), figure_title(e.kind), e.runs,
                 pct(e.median_ape_shipped_pct), pct(e.median_ape_fitted_pct));
    }
  }
}

void print_stack(const StackFit& s, std::size_t holdout_runs) {
  fmt::print("{} x {}: fitted to {} run{}{}\n", s.gpu_id, s.engine, s.runs.size(),
             s.runs.size() == 1 ? "" : "s",
             holdout_runs > 0 ? fmt::format(", {} held out", holdout_runs) : std::string());
  fmt::print("  {:<18}{:>9}{:>9}  {}\n", "factor", "shipped", "fitted", "from");
  for (const FactorRow& f : k_factor_rows) {
    const bool fitted = s.fitted.*f.source == "fitted";
    const std::size_t n = (s.fitted.*f.cases).size();
    fmt::print("  {:<18}{:>9.3f}{:>9}  {}\n", f.name, s.shipped.*f.value,
               fitted ? fmt::format("{:.3f}", s.fitted.efficiency.*f.value) : std::string("kept"),
               fitted ? fmt::format("{} measurements", n)
               : n == 0
                   ? fmt::format("shipped: no measurement is sensitive to it (candidates: {})", f.informed_by)
                   : fmt::format("shipped: {} measurement depends on it, a fit needs 2", n));
  }
  print_errors("median |error|, leave-one-out over the fit runs", s.loo);
  for (const TailFit& t : s.tails) {
    // The p99 before: the estimator's own queueing-model p99; after: leave-one-out mean x ratio.
    fmt::print("    {:<18}{:>6}{:>10}{:>10}\n", t.kind == FigureKind::ttft ? "TTFT p99" : "TPOT p99", t.runs,
               pct(t.median_ape_shipped_pct), pct(t.median_ape_fitted_pct));
  }
  if (s.runs.size() < 3) {
    fmt::print("  note: {} fit run{}: leave-one-out refits on {} run{}, too few to show a gain; add runs\n",
               s.runs.size(), s.runs.size() == 1 ? "" : "s", s.runs.size() - 1,
               s.runs.size() == 2 ? "" : "s");
  }
  print_errors("median |error| on the held-out runs (not used in the fit)", s.holdout);
  for (const BandEntry& b : s.bands) {
    fmt::print("  band {:<11} x{:.2f} .. x{:.2f} (p10..p90 of measured / predicted, {} runs)\n",
               to_string(b.kind), b.ratio_low, b.ratio_high, b.cases);
  }
  if (s.bands.empty()) fmt::print("  bands: shipped (fewer than {} runs per figure)\n", k_min_band_runs);
  for (const TailFit& t : s.tails) {
    fmt::print("  tail {:<11} p99 = mean x{:.2f} (median of measured p99 / mean, {} runs)\n",
               to_string(t.kind), t.p99_over_mean, t.runs);
  }
  print_layouts(s);
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
  std::map<std::pair<std::string, std::string>, Group> groups;
  io::CalibrationOverlay overlay;
  for (const std::string& f : o.runs)
    load_into(groups, f, o.context, false, presets, loaded, overlay.inputs);
  for (const std::string& f : o.holdout)
    load_into(groups, f, o.context, true, presets, loaded, overlay.holdout_inputs);
  if (!o.manifest.empty()) {
    for (const io::ManifestEntry& e : io::load_run_manifest(o.manifest))
      load_into(groups, e.file, e.context, e.holdout, presets, loaded,
                e.holdout ? overlay.holdout_inputs : overlay.inputs);
  }
  std::map<std::string, std::string> engine_of_gpu;
  for (const auto& [key, g] : groups) {
    if (g.fit.empty()) {
      warn("{} x {}: only held-out runs, nothing to fit; it keeps the shipped factors", key.first,
           key.second);
      continue;
    }
    if (key.second == "training") continue; // training factors sit beside one serving engine's
    const auto [it, fresh] = engine_of_gpu.emplace(key.first, key.second);
    if (!fresh) {
      throw Error(ErrorKind::usage, "RUNS", "",
                  fmt::format("runs of {} on two engines ({} and {}): an overlay holds one engine per GPU; "
                              "calibrate each engine into its own file",
                              key.first, it->second, key.second));
    }
  }
  const FitOptions bounds;
  for (const auto& [key, g] : groups) {
    if (g.fit.empty()) continue;
    const Gpu& gpu = *io::find_gpu(loaded.catalog, key.first);
    // Training runs do not read the serving engine profile.
    const EngineConfig engine =
        engine_profile(key.second == "training" ? EngineKind::vllm : *parse_engine_kind(key.second));
    overlay.stacks.push_back(fit_stack(g.fit, g.holdout, gpu, engine, bounds));
  }
  overlay.date = format_iso_date(today_days());
  std::set<std::string> fitted_gpus;
  for (const StackFit& s : overlay.stacks)
    fitted_gpus.insert(s.gpu_id);
  const std::size_t kept = loaded.catalog.gpus.size() - fitted_gpus.size();
  write_file_atomically("--out", o.out, io::overlay_to_json(overlay));

  if (format == Format::json) {
    nlohmann::json doc;
    doc["schema_version"] = 1;
    doc["overlay"] = o.out;
    doc["date"] = overlay.date;
    doc["stacks"] = nlohmann::json::array();
    for (const StackFit& s : overlay.stacks) {
      nlohmann::json j = {{"gpu", s.gpu_id}, {"engine", s.engine}, {"runs", s.runs.size()}};
      for (const FactorRow& f : k_factor_rows) {
        j["factors"][f.name] = {{"shipped", std::round(s.shipped.*f.value * 1e4) / 1e4},
                                {"fitted", std::round(s.fitted.efficiency.*f.value * 1e4) / 1e4},
                                {"source", s.fitted.*f.source}};
      }
      j["error_leave_one_out"] = io::figure_errors_json(s.loo);
      j["error_holdout"] = io::figure_errors_json(s.holdout);
      j["tails"] = io::tails_json(s.tails);
      j["layouts"] = io::layouts_json(s.layouts);
      doc["stacks"].push_back(j);
    }
    doc["gpus_keeping_shipped_factors"] = kept;
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("calibration on top of {}\n", loaded.calibration_label);
  for (const StackFit& s : overlay.stacks) {
    const auto g = groups.find({s.gpu_id, s.engine});
    print_stack(s, g == groups.end() ? 0 : g->second.holdout.size());
  }
  fmt::print("no runs, shipped factors kept: the other {} GPUs of the catalog, and other engines on {}\n",
             kept,
             fitted_gpus.empty() ? std::string("any GPU") : fmt::format("{}", fmt::join(fitted_gpus, ", ")));
  fmt::print("wrote {} (use it with --calibration {})\n", o.out, o.out);
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
