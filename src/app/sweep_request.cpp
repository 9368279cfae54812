// The sweep command's use case: the spec read once as a document (the model keys re-parse it per
// combination), the --vary keys parsed against the presets, the GPUs resolved in the catalog, the
// layout flags checked against the mode, the plan finished, then the run through the writer.
#include "app/sweep_request.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "app/context.hpp"
#include "app/search_limits.hpp"
#include "app/sweep_spec.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "rightsize/error.hpp"
#include "rightsize/sweep.hpp"

namespace rightsize::app {
namespace {

[[noreturn]] void usage(const std::string& flag, const std::string& message) {
  throw Error(ErrorKind::usage, flag, "", message);
}

std::vector<std::string> preset_ids(const std::vector<std::string>& vary, const std::string& models_dir) {
  std::vector<std::string> ids;
  const bool needed =
      std::any_of(vary.begin(), vary.end(), [](const auto& v) { return v.starts_with("model.preset="); });
  if (!needed) return ids;
  for (const auto& preset : io::load_presets(models_dir))
    ids.push_back(preset.id);
  return ids;
}

void parse_axes(SweepPlan& plan, const SweepRequest& o, const std::vector<std::string>& presets) {
  if (o.vary.size() > k_max_sweep_axes)
    usage("--vary", fmt::format("expected at most {} keys, got {}", k_max_sweep_axes, o.vary.size()));
  std::vector<std::size_t> sizes;
  for (const auto& argument : o.vary) {
    SweepAxis axis = parse_sweep_axis(argument, presets);
    for (const auto& other : plan.axes) {
      if (other.key == axis.key) usage("--vary", fmt::format("key \"{}\" is varied twice", axis.key->name));
    }
    sizes.push_back(axis.values.texts.size());
    plan.axes.push_back(std::move(axis));
  }
  if (grid_points(sizes) == 0) {
    usage("--vary", fmt::format("the grid has more than {} points; narrow a range or split the sweep",
                                k_max_sweep_points));
  }
}

// GPU names become catalog indices: the gpu axis, --gpu, the spec's deployment.gpu.
void resolve_gpus(SweepPlan& plan, const SweepRequest& o, const LoadedCatalog& loaded, const Spec& spec) {
  const auto& gpus = loaded.catalog.gpus;
  // `pointer`: a GPU the spec names is bad input at its pointer (exit 3), as estimate and check say.
  auto index_of = [&](const std::string& name, const std::string& source, const std::string& pointer = "") {
    const Gpu& gpu = require_gpu(loaded.catalog, name, source, pointer);
    return static_cast<std::size_t>(&gpu - gpus.data());
  };
  for (SweepAxis& axis : plan.axes) {
    if (axis.key->field != SweepField::gpu) continue;
    for (std::size_t i = 0; i < axis.values.texts.size(); ++i) {
      const std::size_t g = index_of(axis.values.texts[i], "--vary");
      axis.numbers.push_back(static_cast<double>(g));
      axis.values.texts[i] = gpus[g].id; // the canonical id in the output
    }
  }
  plan.gpus = gpus;
  for (const Gpu& gpu : gpus) {
    const ResolvedPrice& price = price_of(loaded, gpu);
    plan.prices.push_back(gpu_price(price));
  }
  std::vector<std::string> allowed = spec.constraints.gpus;
  if (!o.gpu.empty()) {
    if (plan.mode == SweepMode::estimate) {
      if (o.gpu.find(',') != std::string::npos)
        usage("--gpu", "expected one GPU in estimate mode; use --vary gpu=A,B to compare GPUs");
      plan.fixed.gpu = index_of(o.gpu, "--gpu");
    }
    allowed.clear();
    std::size_t start = 0;
    for (std::size_t comma; (comma = o.gpu.find(',', start)) != std::string::npos; start = comma + 1) {
      allowed.push_back(o.gpu.substr(start, comma - start));
    }
    allowed.push_back(o.gpu.substr(start));
  } else if (spec.deployment && plan.mode == SweepMode::estimate) {
    plan.fixed.gpu = index_of(spec.deployment->gpu, spec.source, "/deployment/gpu");
  }
  for (std::size_t i = 0; i < allowed.size(); ++i) {
    plan.search_gpus.push_back(o.gpu.empty()
                                   ? index_of(allowed[i], spec.source, fmt::format("/constraints/gpus/{}", i))
                                   : index_of(allowed[i], "--gpu"));
  }
  std::sort(plan.search_gpus.begin(), plan.search_gpus.end());
  plan.search_gpus.erase(std::unique(plan.search_gpus.begin(), plan.search_gpus.end()),
                         plan.search_gpus.end());
}

// Keys and flags of the other spec mode are refused by name (a training spec has no concurrency; a
// serving spec no global batch).
void check_spec_mode(const SweepPlan& plan, const SweepRequest& o) {
  const std::uint8_t mode = plan.training ? k_for_training : k_for_inference;
  for (const SweepAxis& a : plan.axes) {
    if ((a.key->modes & mode) != 0) continue;
    usage("--vary", fmt::format("key \"{}\" applies to {} specs, and this is a {} spec (docs/sweep.md lists "
                                "the keys of each)",
                                a.key->name, plan.training ? "serving" : "training",
                                plan.training ? "training" : "serving"));
  }
  for (const SweepAxis& a : plan.axes) {
    const bool open_loop_key =
        a.key->field == SweepField::request_rate_per_s || a.key->field == SweepField::burstiness;
    if (open_loop_key && !plan.training && plan.workload.arrival != Arrival::poisson)
      usage("--vary", fmt::format("key \"{}\" applies to open-loop specs (workload.arrival \"poisson\"), and "
                                  "this spec is a closed loop",
                                  a.key->name));
  }
  if (plan.training && o.attention_dp > 0)
    usage("--attention-dp", "expected no --attention-dp for a training spec: attention data parallelism "
                            "is a serving layout");
}

// Each training point is a layout search (estimate mode) or a search over its GPU types and counts
// (recommend mode), 0.05–1 ms per GPU type and count: sized before it runs (app/search_limits.hpp).
void check_training_size(const SweepPlan& plan, bool has_gpu_axis, bool has_gpus) {
  std::vector<std::size_t> sizes;
  for (const SweepAxis& a : plan.axes)
    sizes.push_back(a.values.texts.size());
  if (plan.mode == SweepMode::estimate) {
    if (!has_gpus)
      usage("--gpus", "a training sweep in estimate mode needs a GPU count: --gpus N, --vary gpus=... or the "
                      "spec's deployment.gpus (--mode recommend searches the counts)");
    if (grid_points(sizes, k_max_training_sweep_points) == 0)
      usage("--vary", fmt::format("a training sweep runs a layout search per point: at most {} points within "
                                  "the 2 s limit, and the grid has more; narrow a range",
                                  k_max_training_sweep_points));
    return;
  }
  const std::uint64_t types =
      has_gpu_axis ? 1 : (plan.search_gpus.empty() ? plan.gpus.size() : plan.search_gpus.size());
  const std::uint64_t max_points =
      std::max<std::uint64_t>(1, k_max_training_sweep_searches / std::max<std::uint64_t>(1, types));
  if (grid_points(sizes, max_points) == 0) {
    usage("--mode", fmt::format("recommend mode of a training spec runs the training search per point over "
                                "{} GPU type{}: at most {} searches (points × GPU types) within the 2 s "
                                "limit, so at most {} points, and the grid has more; narrow a range, name "
                                "fewer GPUs with --gpu, or use --mode estimate",
                                types, types == 1 ? "" : "s", k_max_training_sweep_searches, max_points));
  }
}

// Whether the spec's request lengths vary (docs/model-spec.md "Length distributions").
bool spreads(const SweepPlan& plan) {
  return !plan.training && (plan.workload.input_spread.varies() || plan.workload.output_spread.varies());
}

void check_mode(const SweepPlan& plan, const SweepRequest& o) {
  const bool has_gpu_axis = std::any_of(plan.axes.begin(), plan.axes.end(),
                                        [](const SweepAxis& a) { return a.key->field == SweepField::gpu; });
  if (plan.mode == SweepMode::estimate) {
    if (!has_gpu_axis && plan.fixed.gpu == std::numeric_limits<std::size_t>::max()) {
      usage("--gpu", "estimate mode needs a GPU: --gpu ID, --vary gpu=A,B or a deployment in the spec");
    }
    if (spreads(plan)) {
      // Lengths that vary make each point's percentiles a numerical convolution (about 0.1 ms).
      std::vector<std::size_t> sizes;
      for (const SweepAxis& a : plan.axes)
        sizes.push_back(a.values.texts.size());
      if (grid_points(sizes, k_max_spread_sweep_points) == 0)
        usage("--vary",
              fmt::format("a spec whose request lengths vary takes at most {} points within the 2 s "
                          "limit, and the grid has more; narrow a range",
                          k_max_spread_sweep_points));
    }
    if (plan.training) {
      const bool has_gpus = plan.fixed.gpus > 0 ||
                            std::any_of(plan.axes.begin(), plan.axes.end(),
                                        [](const SweepAxis& a) { return a.key->field == SweepField::gpus; });
      check_training_size(plan, has_gpu_axis, has_gpus);
    }
    return;
  }
  for (const SweepAxis& a : plan.axes) {
    const SweepField f = a.key->field;
    if (f == SweepField::gpus || f == SweepField::tp || f == SweepField::pp || f == SweepField::ep ||
        f == SweepField::attention_dp) {
      usage("--vary", fmt::format("key \"{}\" fixes the layout: use --mode estimate", a.key->name));
    }
  }
  if (o.gpus > 0 || o.tp > 0 || o.pp > 0 || o.ep > 0 || o.attention_dp > 0)
    usage("--mode", "--gpus/--tp/--pp/--ep/--attention-dp need --mode estimate");
  if (plan.training) {
    check_training_size(plan, has_gpu_axis, false);
    return;
  }
  // Each recommend point is a whole search over its GPU types (one with a gpu axis): sized before
  // it runs (app/search_limits.hpp, docs/reliability.md "Resource limits").
  std::vector<std::size_t> sizes;
  for (const SweepAxis& a : plan.axes)
    sizes.push_back(a.values.texts.size());
  const std::uint64_t types =
      has_gpu_axis ? 1 : (plan.search_gpus.empty() ? plan.gpus.size() : plan.search_gpus.size());
  const bool open_loop = plan.workload.arrival == Arrival::poisson;
  const std::uint64_t searches =
      open_loop ? (spreads(plan) ? k_max_open_loop_spread_sweep_searches : k_max_open_loop_sweep_searches)
                : (spreads(plan) ? k_max_spread_sweep_searches : k_max_sweep_searches);
  const std::uint64_t max_points = std::max<std::uint64_t>(1, searches / std::max<std::uint64_t>(1, types));
  if (grid_points(sizes, max_points) == 0) {
    usage("--mode",
          fmt::format("recommend mode runs a search per point over {} GPU type{}: at most {} searches "
                      "(points × GPU types) within the 2 s limit, so at most {} points, and the grid "
                      "has more; narrow a range, name fewer GPUs with --gpu, or use --mode estimate",
                      types, types == 1 ? "" : "s", searches, max_points));
  }
}

SweepPlan build_plan(const SweepRequest& o, Spec& spec, Diagnostics& diagnostics) {
  const SpecSource source{o.inputs.spec, std::filesystem::path(o.inputs.spec).parent_path().string(),
                          o.inputs.environment.models_dir()};
  const nlohmann::json document = io::read_json_file(source.path);
  spec = io::parse_spec(document, source.path, source.base_dir, source.models_dir);
  warn_spec(spec, diagnostics);
  if (spec.disaggregated) {
    // Not yet: a sweep point is one aggregated deployment (issue 17 leaves sweep for later).
    throw Error(ErrorKind::input, source.path, "/deployment",
                "expected an aggregated deployment for sweep (prefill/decode pools are taken by estimate, "
                "check and recommend --disagg), got \"prefill\" and \"decode\" blocks");
  }
  SweepPlan plan;
  plan.mode = o.mode;
  plan.training = spec.mode == WorkloadMode::training;
  plan.workload = spec.inference; // check_spec_mode and check_mode read it
  parse_axes(plan, o, preset_ids(o.vary, source.models_dir));
  check_spec_mode(plan, o);
  // An image generator or an encoder produces no tokens: an output length would only make up a cost
  // per token (the spec reader refuses the key for it too).
  for (const SweepAxis& a : plan.axes)
    if (a.key->field == SweepField::output_tokens && spec.model.kind != ModelKind::decoder)
      usage("--vary", fmt::format("key \"{}\" applies to language models, and {} generates no tokens",
                                  a.key->name, spec.model.name));
  const LoadedCatalog loaded = load_catalog(o.inputs, spec, diagnostics);
  if (spec.deployment) {
    plan.fixed.gpus = spec.deployment->gpus;
    plan.fixed.tp = spec.deployment->tp;
    plan.fixed.pp = spec.deployment->pp;
    plan.fixed.ep = spec.deployment->ep;
    plan.fixed.attention_dp = spec.deployment->attention_dp;
  }
  if (o.gpus > 0 || o.tp > 0 || o.pp > 0 || o.attention_dp > 0)
    plan.fixed = FixedDeployment{plan.fixed.gpu, o.gpus, o.tp, o.pp, o.ep, o.attention_dp};
  if (o.ep > 0) plan.fixed.ep = o.ep;
  resolve_gpus(plan, o, loaded, spec);
  check_mode(plan, o);
  plan.training_workload = spec.training;
  plan.sla = spec.sla;
  plan.rate_follows_sla = spec.rate_from_sla;
  plan.policy.max_gpus_per_replica = spec.constraints.max_gpus_per_replica;
  plan.policy.max_nodes = spec.constraints.max_nodes;
  plan.policy.max_power_kw = spec.constraints.max_power_kw; // judged as recommend and check judge it
  plan.policy.confidence = o.confidence;
  // The price margins recommend ranks with (methodology §5.2), per catalog GPU.
  plan.price_margins = price_margins(loaded, plan.gpus, o.confidence, o.inputs.environment.today.get());
  plan.policy.throughput_headroom = throughput_headroom(o.headroom);
  plan.policy.engine = engine_config(o.inputs.engine, spec.engine, loaded.engines);
  plan.calibrated = loaded.calibrated;
  if (loaded.calibrated) plan.calibration = loaded.calibration;
  if (!loaded.calibration_overlay.empty()) plan.calibration_overlay_label = loaded.calibration_label;
  prepare_sweep_models(plan, document, source);
  finish_plan(plan);
  return plan;
}

} // namespace

SweepOutcome run_sweep(const SweepRequest& request, Diagnostics& diagnostics, SweepOutput& output) {
  Spec spec;
  SweepPlan plan = build_plan(request, spec, diagnostics);
  if (request.table && plan.grid.size() > k_max_table_points) {
    usage("--format",
          fmt::format("a table shows at most {} points, the grid has {}; use --format csv or --pareto",
                      k_max_table_points, plan.grid.size()));
  }
  SweepRunOptions options;
  options.threads = request.threads;
  options.x = find_metric(request.x, plan, "--x");
  options.y = find_metric(request.y, plan, "--y");
  options.pareto = request.pareto;
  if (request.pareto && (!options.x.has_direction || !options.y.has_direction)) {
    usage("--pareto", "needs estimate figures for --x and --y (docs/sweep.md lists them), not varied keys");
  }
  SweepOutcome outcome;
  PlotData plot = make_plot_data(plan, options.x, options.y);
  // The points are gathered for a plot, and for the knees of a latency–load sweep without one.
  if (request.plot || plot.latency_load) {
    outcome.plot = std::move(plot);
    options.plot = &*outcome.plot;
  }
  output.write(plan, spec.name, options);
  return outcome;
}

} // namespace rightsize::app
