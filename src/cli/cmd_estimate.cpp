// rightsize estimate SPEC --gpu ID [--gpus N] [--tp T] [--pp P] [--ep E] [--concurrency C]
// One deployment, estimated: memory against capacity, performance, bound, cost, assumptions.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "app/estimate.hpp"
#include "cli/commands.hpp"
#include "cli/judge_options.hpp"
#include "cli/run_context.hpp"
#include "render/disagg_render.hpp"
#include "render/estimate_render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct EstimateOptions {
  std::string spec;
  std::string gpu;
  int gpus = 0;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  std::int64_t concurrency = -1;
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
};

void require_positive(int value, const char* flag) {
  if (value < 0 || value > 65536) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("expected a positive integer up to 65536, got {}", value));
  }
}

int run_estimate(const EstimateOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  require_positive(o.gpus, "--gpus");
  require_positive(o.tp, "--tp");
  require_positive(o.pp, "--pp");
  require_positive(o.ep, "--ep");
  require_positive(o.attention_dp, "--attention-dp");
  const Spec spec = load_spec_file(o.spec);
  warn_unused_headroom(o.judging, spec);
  const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
  if (spec.disaggregated && o.gpu.empty() && spec.mode == WorkloadMode::inference) {
    // Separate prefill and decode pools (methodology §3.6): their layouts are the spec's.
    if (o.gpus > 0 || o.tp > 0 || o.pp > 0 || o.ep > 0 || o.attention_dp > 0) {
      const char* flag = o.gpus > 0 ? "--gpus"
                         : o.tp > 0 ? "--tp"
                         : o.pp > 0 ? "--pp"
                         : o.ep > 0 ? "--ep"
                                    : "--attention-dp";
      throw Error(ErrorKind::usage, flag, "",
                  "--gpus/--tp/--pp/--ep/--attention-dp set an aggregated deployment; the spec's deployment "
                  "has prefill and decode pools (set their layouts there, or pass --gpu for an aggregated "
                  "estimate)");
    }
    const InferenceWorkload w = app::with_concurrency(spec.inference, o.concurrency);
    return run_disagg_deployment(spec, catalog, engine_config(o.engine, spec.engine, catalog.engines), w,
                                 confidence_of(o.judging), format, false, engine_name(o.engine, spec.engine),
                                 o.judging.headroom);
  }
  std::string gpu_id = o.gpu;
  if (gpu_id.empty() && spec.deployment) gpu_id = spec.deployment->gpu;
  if (gpu_id.empty())
    throw Error(ErrorKind::usage, "--gpu", "",
                "estimate needs a GPU: pass --gpu ID (see 'rightsize catalog list')");
  const Gpu& gpu = o.gpu.empty() ? require_gpu(catalog.catalog, gpu_id, spec.source, "/deployment/gpu")
                                 : require_gpu(catalog.catalog, gpu_id, "--gpu");
  app::EstimateRequest request;
  request.gpu = gpu.id;
  request.gpu_from_flag = !o.gpu.empty();
  request.gpus = o.gpus;
  request.tp = o.tp;
  request.pp = o.pp;
  request.ep = o.ep;
  request.attention_dp = o.attention_dp;
  request.concurrency = o.concurrency;
  request.headroom = o.judging.headroom;
  request.engine = engine_config(o.engine, spec.engine, catalog.engines);
  warn_overlay_engine(catalog, gpu.id, engine_name(o.engine, spec.engine));
  if (spec.mode != WorkloadMode::training) request.confidence = confidence_of(o.judging);
  const app::EstimateResult result = app::run_estimate(spec, catalog, request);
  render_estimate(spec, catalog, result, request.confidence, engine_name(o.engine, spec.engine), format);
  return result.training || result.verdict.feasible() ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_estimate(CLI::App& app, Action& action) {
  auto options = std::make_shared<EstimateOptions>();
  auto* command =
      app.add_subcommand("estimate", "estimate memory, latency, throughput and cost of one deployment");
  command->add_option("spec", options->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--gpu", options->gpu, "GPU id or alias from the catalog, e.g. H100-SXM, l40s");
  command->add_option("--gpus", options->gpus,
                      "GPUs in the deployment (replicas = gpus / (tp × pp × attention-dp))");
  command->add_option("--tp", options->tp, "tensor-parallel degree (default: smallest that fits)");
  command->add_option("--pp", options->pp, "pipeline-parallel degree");
  command->add_option("--ep", options->ep, "expert groups the MoE experts are split over");
  command->add_option("--attention-dp", options->attention_dp,
                      "attention data-parallel ranks per replica (MoE; replica = tp × pp × ranks GPUs)");
  command->add_option("--concurrency", options->concurrency,
                      "in-flight requests per replica (default: the spec's)");
  command->add_option("--format", options->format, "output: table or json")->default_str("table");
  add_catalog_options(command, options->catalog);
  add_engine_options(command, options->engine);
  add_judge_options(command, options->judging);
  command->callback([options, &action] { action = [options] { return run_estimate(*options); }; });
}

} // namespace rightsize::cli
