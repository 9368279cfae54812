// `rightsize sweep SPEC --vary KEY=VALUES ...`: what-if grids over spec keys, GPUs and layouts,
// streamed as CSV / JSON lines / JSON / a table, optionally reduced to the Pareto front and
// plotted (docs/sweep.md). Flow: load spec + catalog -> build the plan -> run -> plot.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "app/sweep_spec.hpp"
#include "cli/catalog_setup.hpp"
#include "cli/commands.hpp"
#include "cli/judge_options.hpp"
#include "cli/output_file.hpp"
#include "cli/run_context.hpp"
#include "cli/sweep_run.hpp"
#include "io/json/json_reader.hpp"
#include "io/spec/spec_io.hpp"
#include "render/sweep_plot.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

struct SweepOptions {
  std::string spec;
  std::vector<std::string> vary;
  std::string gpu;
  int gpus = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  std::string mode = "estimate";
  std::string format;
  bool pareto = false;
  std::string x = "inference.tpot_s";
  std::string y = "cost.usd_per_million_output_tokens_at_load";
  std::string plot;
  bool plot_given = false; // --plot "" is an error, not "no plot"
  int threads = 0;
  CatalogOptions catalog;
  JudgeOptions judging;
  EngineOptions engine;
};

constexpr std::uint64_t k_max_recommend_points = 10'000;

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

void parse_axes(SweepPlan& plan, const SweepOptions& o, const std::vector<std::string>& presets) {
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
void resolve_gpus(SweepPlan& plan, const SweepOptions& o, const LoadedCatalog& loaded, const Spec& spec) {
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

void check_mode(const SweepPlan& plan, const SweepOptions& o) {
  const bool has_gpu_axis = std::any_of(plan.axes.begin(), plan.axes.end(),
                                        [](const SweepAxis& a) { return a.key->field == SweepField::gpu; });
  if (plan.mode == SweepMode::estimate) {
    if (!has_gpu_axis && plan.fixed.gpu == std::numeric_limits<std::size_t>::max()) {
      usage("--gpu", "estimate mode needs a GPU: --gpu ID, --vary gpu=A,B or a deployment in the spec");
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
  // Each recommend point is a whole search: past this a sweep runs for hours (docs/reliability.md).
  std::vector<std::size_t> sizes;
  for (const SweepAxis& a : plan.axes)
    sizes.push_back(a.values.texts.size());
  if (grid_points(sizes, k_max_recommend_points) == 0) {
    usage("--mode",
          fmt::format("recommend mode runs a search per point: at most {} points, the grid has more; "
                      "narrow a range or use --mode estimate",
                      k_max_recommend_points));
  }
}

SweepPlan build_plan(const SweepOptions& o, Spec& spec) {
  const std::string models_dir = data_dir() + "/models";
  const nlohmann::json document = io::read_json_file(o.spec);
  spec = io::parse_spec(document, o.spec, std::filesystem::path(o.spec).parent_path().string(), models_dir);
  if (spec.mode != WorkloadMode::inference) {
    throw Error(ErrorKind::input, o.spec, "/workload/mode",
                "expected an inference workload for sweep, got \"training\"");
  }
  if (spec.disaggregated) {
    // Not yet: a sweep point is one aggregated deployment (issue 17 leaves sweep for later).
    throw Error(ErrorKind::input, o.spec, "/deployment",
                "expected an aggregated deployment for sweep (prefill/decode pools are taken by estimate, "
                "check and recommend --disagg), got \"prefill\" and \"decode\" blocks");
  }
  SweepPlan plan;
  if (o.mode != "estimate" && o.mode != "recommend") {
    usage("--mode", fmt::format("unknown mode \"{}\" (expected estimate or recommend)", o.mode));
  }
  plan.mode = o.mode == "estimate" ? SweepMode::estimate : SweepMode::recommend;
  parse_axes(plan, o, preset_ids(o.vary, models_dir));
  const LoadedCatalog loaded = load_catalog(o.catalog, &spec.constraints, spec.source);
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
  plan.workload = spec.inference;
  plan.sla = spec.sla;
  plan.rate_follows_sla = spec.rate_from_sla;
  plan.policy.max_gpus_per_replica = spec.constraints.max_gpus_per_replica;
  plan.policy.max_nodes = spec.constraints.max_nodes;
  plan.policy.max_power_kw = spec.constraints.max_power_kw; // judged as recommend and check judge it
  plan.policy.confidence = confidence_of(o.judging);
  plan.policy.throughput_headroom = app::throughput_headroom(o.judging.headroom);
  plan.policy.engine = engine_config(o.engine, spec.engine, loaded.engines);
  plan.calibrated = loaded.calibrated;
  if (loaded.calibrated) plan.calibration = loaded.calibration;
  if (!loaded.calibration_overlay.empty()) plan.calibration_overlay_label = loaded.calibration_label;
  prepare_sweep_models(plan, document,
                       {o.spec, std::filesystem::path(o.spec).parent_path().string(), models_dir});
  finish_plan(plan);
  return plan;
}

int run(const SweepOptions& o) {
  // The plot file is checked before any work, so a bad path never costs the sweep or the CSV.
  if (o.plot_given) check_output_path("--plot", o.plot);
  Spec spec;
  const SweepPlan plan = build_plan(o, spec);
  const std::string format_text = o.format.empty() ? (stdout_is_tty() ? "table" : "csv") : o.format;
  RunOptions options;
  options.format = parse_format(format_text, {"csv", "jsonl", "json", "table"});
  if (options.format == Format::table && plan.grid.size() > k_max_table_points) {
    usage("--format",
          fmt::format("a table shows at most {} points, the grid has {}; use --format csv or --pareto",
                      k_max_table_points, plan.grid.size()));
  }
  if (o.threads < 0 || o.threads > 256)
    usage("--threads", fmt::format("expected 0 to 256, got {}", o.threads));
  options.threads =
      o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.table_width = terminal_width();
  options.x = find_metric(o.x, plan, "--x");
  options.y = find_metric(o.y, plan, "--y");
  options.pareto = o.pareto;
  if (o.pareto && (!options.x.has_direction || !options.y.has_direction)) {
    usage("--pareto", "needs estimate figures for --x and --y (docs/sweep.md lists them), not varied keys");
  }
  PlotData plot;
  if (o.plot_given) {
    plot = make_plot_data(plan, options.x, options.y);
    options.plot = &plot;
  }
  std::string pareto_label;
  if (o.pareto) {
    pareto_label =
        fmt::format("{{\"x\": \"{}\", \"x_direction\": \"{}\", \"y\": \"{}\", \"y_direction\": \"{}\"}}",
                    options.x.name, options.x.direction == Direction::minimize ? "minimize" : "maximize",
                    options.y.name, options.y.direction == Direction::minimize ? "minimize" : "maximize");
  }
  const RowWriter writer(plan, options.format, spec.name, pareto_label);
  run_sweep(plan, writer, options, stdout);
  // A CSV that did not reach stdout is an environment error, and the plot is not written after it.
  if (const int failed = stdout_write_error(); failed != 0) {
    throw Error(ErrorKind::environment, "<stdout>", "",
                fmt::format("cannot write the output ({})", std::strerror(failed)));
  }
  if (o.plot_given) write_file_atomically("--plot", o.plot, render_plot(plot));
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
          "--vary", options->vary,
          "KEY=VALUES: a list (1,8,64 / bf16,fp8) or a range (1..256:x2, 1024..32768:+1024); repeatable, "
          "the last varies fastest")
      ->required();
  command->add_option("--gpu", options->gpu,
                      "GPU id (estimate mode) or ids to consider (recommend mode, comma-separated)");
  command->add_option("--gpus", options->gpus, "GPUs in the deployment (estimate mode)");
  command->add_option("--tp", options->tp,
                      "tensor-parallel degree (estimate mode; default: smallest layout that fits)");
  command->add_option("--pp", options->pp, "pipeline-parallel degree (estimate mode)");
  command->add_option("--ep", options->ep, "expert-parallel degree (estimate mode)");
  command->add_option("--attention-dp", options->attention_dp,
                      "attention data-parallel ranks per replica (estimate mode, MoE)");
  command->add_option("--mode", options->mode,
                      "estimate (fixed deployment per point, default) or recommend (search)");
  command->add_option("--format", options->format,
                      "csv (default when piped), jsonl, json or table (default on a terminal)");
  command->add_flag("--pareto", options->pareto, "write only the points on the Pareto front of --x and --y");
  command->add_option("--x", options->x, "x figure for --pareto and --plot (default inference.tpot_s)");
  command->add_option(
      "--y", options->y,
      "y figure for --pareto and --plot (default cost.usd_per_million_output_tokens_at_load)");
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
