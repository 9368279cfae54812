#include "app/calibrate.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/inference.hpp"
#include "rightsize/pricing.hpp"

namespace rightsize::app {
namespace {

CalibratedFactor factor(const StackFactor& f, const GpuEfficiency& shipped, const FittedEfficiency& fitted) {
  CalibratedFactor c;
  c.name = f.name;
  c.shipped = shipped.*f.value;
  c.fitted = fitted.efficiency.*f.value;
  c.source = fitted.*f.source;
  c.is_fitted = c.source == "fitted";
  c.measurements = (fitted.*f.cases).size();
  c.runs = runs_among(fitted.*f.cases);
  c.informed_by = f.informed_by;
  // A fitted factor within 0.5 % of a bound hit it: the golden-section search stops there, and the
  // error it could not remove sits in terms the factor does not move (issue 38).
  const FitOptions bounds;
  const double lo = bounds.*f.min, hi = bounds.*f.max;
  if (c.is_fitted && (c.fitted <= lo * 1.005 || c.fitted >= hi * 0.995)) {
    c.at_bound = true;
    c.bound = c.fitted <= lo * 1.005 ? lo : hi;
  }
  return c;
}

// The table's decisions for one fitted stack: every factor fitted or kept, the layout families.
CalibratedStack calibrated_stack(const StackFit& s, std::size_t holdout_runs, const Calibration& shipped) {
  CalibratedStack c;
  c.holdout_runs = holdout_runs;
  // The band each fitted band replaces: the GPU's own entry for that figure (every model class).
  for (const BandEntry& b : s.bands) {
    for (const BandEntry& before : shipped.bands)
      if (before.gpu_id == s.gpu_id && before.kind == b.kind && before.model_class.empty())
        c.shipped_bands.push_back(before);
  }
  c.few_fit_runs = s.runs.size() < 3;
  for (const StackFactor& f : k_stack_factors)
    c.factors.push_back(factor(f, s.shipped, s.fitted));
  for (const LayoutFit& l : s.layouts) {
    CalibratedLayout layout;
    layout.family = l.family;
    layout.runs = l.runs.size();
    layout.own = l.own;
    layout.loo = l.loo;
    if (l.own) {
      for (const StackFactor& f : k_stack_factors) {
        if (l.fitted.*f.source == "fitted") layout.fitted.push_back(factor(f, s.shipped, l.fitted));
      }
    }
    c.layouts.push_back(std::move(layout));
  }
  return c;
}

} // namespace

void add_runs(CalibrationRuns& into, const std::string& file, std::vector<StackRun> runs, bool holdout,
              const io::Catalog& catalog) {
  (holdout ? into.holdout_inputs : into.inputs).push_back(file);
  for (StackRun& r : runs) {
    const Gpu* gpu = io::find_gpu(catalog, r.run.gpu_id);
    if (gpu == nullptr) {
      throw Error(ErrorKind::input, file, "",
                  fmt::format("run \"{}\": unknown GPU \"{}\" (see 'rightsize catalog list')", r.run.id,
                              r.run.gpu_id));
    }
    r.run.gpu_id = gpu->id;
    if (r.run.engine != "training") r.run.engine = to_string(*parse_engine_kind(r.run.engine));
    StackRuns& g = into.stacks[{gpu->id, r.run.engine}];
    (holdout ? g.holdout : g.fit).push_back(std::move(r));
  }
}

std::vector<std::string> held_out_only_stacks(const CalibrationRuns& runs) {
  std::vector<std::string> out;
  for (const auto& [key, g] : runs.stacks) {
    if (g.fit.empty()) out.push_back(fmt::format("{} x {}", key.first, key.second));
  }
  return out;
}

namespace {

// How far below the physical floor a measured figure may sit before the run is refused: the
// floors are the prefill and decode step at the catalog's peaks with nothing else (methodology
// §3.5), and speculative decoding or prefix-cache hits, which benchmark runs do not declare, can
// beat them by a small factor; a run 2× faster than the floor measured another model or GPU.
constexpr double k_floor_tolerance = 0.5;
// How far above the estimate a measured TTFT or TPOT may be (check_above_floor).
constexpr double k_ceiling_factor = 50.0;
// How far a measured throughput may sit from what the run's own latencies allow: above, only a typo
// gets (means of spread lengths move it a little); below, a run whose clients were not all busy.
constexpr double k_throughput_high = 2.0;
constexpr double k_throughput_low = 0.1;

template <class Refuse>
void check_above_floor(const StackRun& r, const Gpu& gpu, const EngineConfig& engine, const ValidationCase& c,
                       const Refuse& refuse) {
  const InferenceEstimate e = estimate_inference(prepare_model(c.model, c.precision), c.workload, gpu,
                                                 c.deployment, engine, nullptr, 0.0);
  const auto below = [&](const char* figure, double measured_s, double floor_s) {
    if (measured_s > 0.0 && floor_s > 0.0 && measured_s < k_floor_tolerance * floor_s)
      refuse(
          fmt::format("its measured {} {:.3g} ms is below half the physical floor {:.3g} ms (the weights and "
                      "FLOPs at the GPU's peak bandwidth and FLOP/s): it measured a smaller model, another "
                      "GPU or layout, or a cache the estimate does not model",
                      figure, measured_s * 1e3, floor_s * 1e3));
  };
  below("TPOT", r.run.tpot_s, e.tpot_floor_s);
  below("TTFT", r.run.ttft_s, e.ttft_floor_s);
  // Far above the estimate at the run's own clients: a unit slip (seconds as ms) or another run's
  // figure; a slow stack is a few times slower, not fifty.
  const auto above = [&](const char* figure, double measured_s, double estimate_s) {
    if (measured_s > 0.0 && estimate_s > 0.0 && measured_s > k_ceiling_factor * estimate_s)
      refuse(fmt::format("its measured {} {:.4g} ms is {:.0f}× the estimate at its {} clients ({:.3g} ms): a "
                         "unit slip or another run's figure",
                         figure, measured_s * 1e3, measured_s / estimate_s, c.workload.concurrency,
                         estimate_s * 1e3));
  };
  above("TTFT", r.run.ttft_s, e.ttft_s);
  above("TPOT", r.run.tpot_s, e.tpot_s);
}

// A closed-loop run's output throughput is its clients' requests over their time (Little's law):
// C · OSL / (TTFT + (OSL − 1) · TPOT). A measured one far from that, from the run's own figures, is
// a typo or another run's (1e5 tok/s for 4 clients whose TTFT and TPOT allow 364 sized 700 GPUs
// where 4 do).
template <class Refuse>
void check_throughput_consistent(const StackRun& r, const ValidationCase& c, const Refuse& refuse) {
  const double osl = static_cast<double>(c.workload.output_tokens);
  const double clients = static_cast<double>(c.workload.concurrency);
  const double e2e_s = r.run.ttft_s + std::max(0.0, osl - 1.0) * r.run.tpot_s;
  if (r.output_tokens_per_s <= 0.0 || clients <= 0.0 || osl <= 0.0 || e2e_s <= 0.0) return;
  const double implied = clients * osl / e2e_s;
  const double ratio = r.output_tokens_per_s / implied;
  if (ratio > k_throughput_high || ratio < k_throughput_low)
    refuse(fmt::format("its output throughput {:.4g} tok/s is {:.3g}× what its own clients, TTFT and TPOT "
                       "allow ({:.0f} clients × {:.0f} tokens / {:.3g} s = {:.4g} tok/s, Little's law): one "
                       "of the figures is not this run's",
                       r.output_tokens_per_s, ratio, clients, osl, e2e_s, implied));
}

// A serving run the estimator could not have run (issue 42: runs labelled with a 405B model on one
// H100 pinned a factor to its bound at 200,000 % error): its layout must split the model's heads,
// its prompt and output fit the model's context, and the estimate's memory fit the GPU, the rules
// `estimate` applies. Refused, naming the file and the run.
void check_run_feasible(const StackRun& r, const Gpu& gpu, const EngineConfig& engine) {
  const std::vector<ValidationCase> cases = stack_cases(r);
  if (cases.empty()) return;
  const ValidationCase& c = cases.front();
  const auto refuse = [&](const std::string& why) {
    throw Error(ErrorKind::input, r.source, "",
                fmt::format("run \"{}\" ({} on {} × {}): {}; the estimator cannot have run it, so it cannot "
                            "calibrate it",
                            r.run.id, c.model.name, c.deployment.gpus, gpu.id, why));
  };
  const std::int64_t tp = std::max(1, c.deployment.tp);
  if (c.model.heads > 0 && c.model.heads % tp != 0)
    refuse(fmt::format("TP {} does not divide the model's {} attention heads", tp, c.model.heads));
  const std::int64_t tokens = c.workload.input_tokens + c.workload.output_tokens;
  if (c.model.max_position > 0 && tokens > c.model.max_position)
    refuse(fmt::format("{} input + {} output tokens exceed the model's {}-token context",
                       c.workload.input_tokens, c.workload.output_tokens, c.model.max_position));
  // Memory at one sequence: an engine holds at most what its KV cache fits and queues the rest, so a
  // run at concurrency 128 whose 128 contexts do not fit was served all the same (the serving CSV has
  // 8 groups of them); a model whose weights and one sequence do not fit cannot have run at all.
  InferenceWorkload one = c.workload;
  one.concurrency = 1;
  const InferenceEstimate e =
      estimate_inference(prepare_model(c.model, c.precision), one, gpu, c.deployment, engine, nullptr, 0.0);
  if (!e.engine_runs)
    refuse(fmt::format("the {} engine has no build for {} GPUs (data/engines.json \"vendors\")", engine.kind,
                       gpu.vendor));
  if (!e.memory.fits)
    refuse(fmt::format("even one sequence needs {:.1f} GB per GPU and the GPU has {:.1f} GB usable",
                       e.memory.per_gpu_bytes / 1e9, e.memory.usable_per_gpu_bytes / 1e9));
  check_above_floor(r, gpu, engine, c, refuse);
  check_throughput_consistent(r, c, refuse);
}

} // namespace

CalibrateResult run_calibrate(const CalibrationRuns& runs, const LoadedCatalog& catalog,
                              std::int64_t today_days) {
  CalibrateResult result;
  result.held_out_only = held_out_only_stacks(runs);
  std::map<std::string, std::string> engine_of_gpu;
  for (const auto& [key, g] : runs.stacks) {
    if (g.fit.empty()) continue;
    if (key.second == "training") continue; // training factors sit beside one serving engine's
    const auto [it, fresh] = engine_of_gpu.emplace(key.first, key.second);
    if (!fresh) {
      throw Error(ErrorKind::usage, "RUNS", "",
                  fmt::format("runs of {} on two engines ({} and {}): an overlay holds one engine per GPU; "
                              "calibrate each engine into its own file",
                              key.first, it->second, key.second));
    }
  }
  // Sized before fitting (docs/reliability.md "Resource limits"): a fit of n runs costs about n^1.3
  // (1,000 runs 1.6 s of CPU, 3,000 runs 6.9 s).
  for (const auto& [key, g] : runs.stacks) {
    const std::size_t n = g.fit.size() + g.holdout.size();
    if (n > k_max_calibrate_runs)
      throw Error(
          ErrorKind::usage, "RUNS", "",
          fmt::format("{} x {} has {} runs, and calibrate fits at most {} per GPU and engine within its "
                      "2 s limit: calibrate on a sample of them",
                      key.first, key.second, n, k_max_calibrate_runs));
  }
  io::CalibrationOverlay& overlay = result.overlay;
  overlay.inputs = runs.inputs;
  overlay.holdout_inputs = runs.holdout_inputs;
  FitOptions bounds;
  bounds.distinct_runs = true; // one run's TPOT and throughput do not make a fit (issue 38)
  bounds.fit_layer_overhead = true;
  for (const auto& [key, g] : runs.stacks) {
    if (g.fit.empty()) continue;
    const Gpu& gpu = *io::find_gpu(catalog.catalog, key.first);
    // Training runs do not read the serving engine profile.
    const EngineConfig& engine =
        catalog.engines.of(key.second == "training" ? EngineKind::vllm : *parse_engine_kind(key.second));
    if (key.second != "training") {
      for (const std::vector<StackRun>* runs_of : {&g.fit, &g.holdout})
        for (const StackRun& r : *runs_of)
          check_run_feasible(r, gpu, engine);
    }
    overlay.stacks.push_back(fit_stack(g.fit, g.holdout, gpu, engine, bounds));
    result.stacks.push_back(calibrated_stack(overlay.stacks.back(), g.holdout.size(), catalog.calibration));
  }
  overlay.date = format_iso_date(today_days);
  io::check_overlay_ranges(overlay); // what --calibration would refuse is never written (issue 42)
  for (const StackFit& s : overlay.stacks)
    result.fitted_gpus.insert(s.gpu_id);
  result.gpus_keeping_shipped = catalog.catalog.gpus.size() - result.fitted_gpus.size();
  return result;
}

namespace {

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
  // A tool's result file may name its model (vLLM model_id, SGLang server_info, AIPerf
  // input_config): the reader takes it from there or says the file names none.
  if (io::is_training_log(file)) need(c.preset, "--model", "model (a preset of 'rightsize models')");
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

// The run-context flags that name a GPU or a model: each unknown one is a usage error naming it.
void check_flag_context(const io::RunContext& c, const std::vector<io::Preset>& presets,
                        const LoadedCatalog& loaded) {
  if (!c.gpu.empty()) (void)require_gpu(loaded.catalog, c.gpu, "--gpu");
  if (c.preset.empty()) return;
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

// What makes two runs the same measurement: the run's context and every measured figure (training
// runs: their cases). The id and the file are left out: a copied file gives the same run.
std::string calibrate_run_signature(const StackRun& r) {
  const ServingRun& s = r.run;
  std::string out = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{:.17g}|{:.17g}|{:.17g}|{:.17g}|{:.17g}",
                                s.gpu_id, s.engine, r.model.name, s.precision, s.tp, s.pp, s.attention_dp,
                                s.moe_ep, s.concurrency, s.input_tokens, s.output_tokens, s.ttft_s, s.tpot_s,
                                r.output_tokens_per_s, r.ttft_p99_s, r.tpot_p99_s);
  for (const ValidationCase& c : r.cases) {
    out += fmt::format("|{}:{}x{}x{}:{}:{}:{:.17g}", to_string(c.kind), c.deployment.gpus, c.deployment.tp,
                       c.deployment.pp, c.training_seq_len, c.training_global_batch, c.measured);
  }
  return out;
}

// Identical runs defeat leave-one-out (a run's twins stay in the fit: one file six times gave
// bands x1.00..x1.00) and a held-out score (issue 42): a repeated run is counted once, with a
// note; a held-out run identical to a fitted one is refused.
void drop_identical_runs(CalibrationRuns& runs, Diagnostics& diagnostics) {
  for (auto& [key, g] : runs.stacks) {
    std::map<std::string, std::size_t> fitted; // signature -> index in `fit`
    std::vector<StackRun> fit;
    for (StackRun& r : g.fit) {
      const auto [it, fresh] = fitted.emplace(calibrate_run_signature(r), fit.size());
      if (!fresh) {
        const StackRun& first = fit[it->second];
        diagnostics.note(fmt::format("{}: run \"{}\" is identical to run \"{}\" ({}); counted once", r.source,
                                     r.run.id, first.run.id, first.source));
        continue;
      }
      fit.push_back(std::move(r));
    }
    g.fit = std::move(fit);
    std::map<std::string, std::string> fitted_ids;
    for (const StackRun& r : g.fit)
      fitted_ids.emplace(calibrate_run_signature(r), fmt::format("\"{}\" ({})", r.run.id, r.source));
    for (const StackRun& r : g.holdout) {
      const auto it = fitted_ids.find(calibrate_run_signature(r));
      if (it == fitted_ids.end()) continue;
      throw Error(ErrorKind::input, r.source, "",
                  fmt::format("held-out run \"{}\" is identical to the fitted run {}: a held-out run must be "
                              "one the fit never sees; hold out a different run",
                              r.run.id, it->second));
    }
  }
}

// A file given twice is refused, one both fitted and held out too (issue 42): a run counted twice
// stays in its own leave-one-out fit.
void calibrate_first_use(std::vector<std::pair<std::string, bool>>& seen, const std::string& file,
                         bool holdout, const std::string& given_by) {
  for (const auto& [path, was_holdout] : seen) {
    if (path != file && !io::same_file(path, file)) continue;
    if (was_holdout != holdout) {
      throw Error(
          ErrorKind::usage, given_by, "",
          fmt::format("\"{}\" is both fitted to and held out: a held-out run must be one the fit never "
                      "sees; give the file once",
                      file));
    }
    throw Error(
        ErrorKind::usage, given_by, "",
        fmt::format("\"{}\" is given more than once (the same file under any spelling): give each run "
                    "file once; a run counted twice would stay in its own leave-one-out fit",
                    file));
  }
  seen.emplace_back(file, holdout);
}

void load_into(CalibrationRuns& into, const std::string& file, const io::RunContext& context, bool holdout,
               const std::vector<io::Preset>& presets, const LoadedCatalog& loaded) {
  require_context(context, file);
  add_runs(into, file, io::load_benchmark_runs(file, context, presets), holdout, loaded.catalog);
}

} // namespace

std::vector<CalibrateInput> calibrate_inputs(const CalibrateRequest& request) {
  std::vector<CalibrateInput> out;
  for (const std::string& f : request.runs)
    out.push_back({"a run file (RUNS)", f});
  for (const std::string& f : request.holdout)
    out.push_back({"a --holdout file", f});
  if (!request.manifest.empty()) out.push_back({"the --manifest file", request.manifest});
  const CatalogSetup& c = request.catalog;
  const std::string& data = request.environment.data_dir;
  out.push_back(c.catalog.empty() ? CalibrateInput{"the data folder's gpus.json", data + "/gpus.json"}
                                  : CalibrateInput{"the --catalog file", c.catalog});
  for (const std::string& f : c.catalog_add)
    out.push_back({"a --catalog-add file", f});
  if (!c.calibration.empty()) out.push_back({"the --calibration overlay", c.calibration});
  out.push_back({"the data folder's calibration.json", data + "/calibration.json"});
  out.push_back({"the data folder's engines.json", data + "/engines.json"});
  return out;
}

CalibrateOutcome run_calibrate(const CalibrateRequest& request, Diagnostics& diagnostics) {
  CalibrateOutcome out;
  out.catalog = load_catalog(request.catalog, request.environment, diagnostics, nullptr);
  if (!out.catalog.calibrated) {
    throw Error(ErrorKind::usage, "--no-calibration", "",
                "calibrate fits on top of data/calibration.json; drop --no-calibration");
  }
  const std::vector<io::Preset> presets = io::load_presets(request.environment.models_dir());
  check_flag_context(request.context, presets, out.catalog);
  CalibrationRuns runs;
  std::vector<std::pair<std::string, bool>> seen;
  for (const std::string& f : request.runs) {
    calibrate_first_use(seen, f, false, "RUNS");
    load_into(runs, f, request.context, false, presets, out.catalog);
  }
  for (const std::string& f : request.holdout) {
    calibrate_first_use(seen, f, true, "--holdout");
    load_into(runs, f, request.context, true, presets, out.catalog);
  }
  if (!request.manifest.empty()) {
    for (const io::ManifestEntry& e : io::load_run_manifest(request.manifest)) {
      calibrate_first_use(seen, e.file, e.holdout, "--manifest");
      if (io::same_file(e.file, request.out)) {
        throw Error(ErrorKind::usage, "--out", "",
                    fmt::format("\"{}\" is a run file that {} lists: writing the overlay there would "
                                "replace an input; write it to another file",
                                request.out, request.manifest));
      }
      load_into(runs, e.file, e.context, e.holdout, presets, out.catalog);
    }
  }
  drop_identical_runs(runs, diagnostics);
  for (const std::string& stack : held_out_only_stacks(runs))
    diagnostics.warn(
        fmt::format("{}: only held-out runs, nothing to fit; it keeps the shipped factors", stack));
  out.result = run_calibrate(runs, out.catalog, request.environment.today.get());
  for (const StackFit& s : out.result.overlay.stacks)
    for (const FigureError& e : s.loo)
      if (e.median_ape_fitted_pct > k_weak_fit_pct)
        out.result.weak_fits.push_back(fmt::format("{} x {}: {} {:.0f} %", s.gpu_id, s.engine,
                                                   to_string(e.kind), e.median_ape_fitted_pct));
  out.result.write_overlay = out.result.weak_fits.empty() || request.force;
  for (const std::string& w : out.result.weak_fits)
    diagnostics.warn(fmt::format("{} leave-one-out, above {:g} %: the fit does not hold{}", w, k_weak_fit_pct,
                                 request.force ? " (written anyway: --force)" : ""));
  return out;
}

} // namespace rightsize::app
