// rightsize estimate SPEC --gpu ID [--gpus N] [--tp T] [--pp P] [--ep E] [--concurrency C]
// One deployment, estimated: memory against capacity, performance, bound, cost, assumptions.
// Flow: flags -> app::EstimateRequest -> app::run_estimate -> render_estimate.
#include <memory>
#include <string>

#include "app/estimate.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/engine_flags.hpp"
#include "cli/flag_values.hpp"
#include "cli/judge_options.hpp"
#include "render/estimate_render.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct EstimateOptions {
  app::EstimateRequest typed; ///< the flags taken as typed: --gpu, the layout flags, --concurrency
  std::string spec;
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
};

// Every flag parsed and checked; no file is read yet. --concurrency, --confidence and --headroom
// are judged by the use case, which reads them for inference specs only.
app::EstimateRequest estimate_request(const EstimateOptions& o) {
  app::EstimateRequest request = o.typed;
  const app::EstimateSettings& pins = request.settings;
  for (const auto& [value, flag] :
       {std::pair{pins.gpus, "--gpus"}, std::pair{pins.tp, "--tp"}, std::pair{pins.pp, "--pp"},
        std::pair{pins.ep, "--ep"}, std::pair{pins.attention_dp, "--attention-dp"}})
    check_layout_count(value, flag);
  request.inputs = spec_inputs(o.spec, o.catalog, o.engine);
  request.confidence = deferred_confidence(o.judging);
  request.settings.headroom = o.judging.headroom;
  return request;
}

int run_estimate(const EstimateOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const app::EstimateRequest request = estimate_request(o);
  LogDiagnostics diagnostics;
  const app::EstimateOutcome outcome = app::run_estimate(request, diagnostics);
  render_estimate(outcome, format);
  return outcome.feasible ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_estimate(CLI::App& app, Action& action) {
  auto options = std::make_shared<EstimateOptions>();
  auto* command =
      app.add_subcommand("estimate", "estimate memory, latency, throughput and cost of one deployment");
  command->add_option("spec", options->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--gpu", options->typed.gpu, "GPU id or alias from the catalog, e.g. H100-SXM, l40s");
  command->add_option("--gpus", options->typed.settings.gpus,
                      "GPUs in the deployment (replicas = gpus / (tp × pp × attention-dp); default: one "
                      "replica)");
  command->add_option("--tp", options->typed.settings.tp,
                      "tensor-parallel degree (default: smallest that fits)");
  command->add_option("--pp", options->typed.settings.pp, "pipeline-parallel degree");
  command->add_option("--ep", options->typed.settings.ep, "expert groups the MoE experts are split over");
  command->add_option("--attention-dp", options->typed.settings.attention_dp,
                      "attention data-parallel ranks per replica (MoE; replica = tp × pp × ranks GPUs)");
  command->add_option("--concurrency", options->typed.settings.concurrency,
                      "in-flight requests per replica (default: the spec's)");
  command->add_option("--format", options->format, "output: table or json")->default_str("table");
  add_catalog_options(command, options->catalog);
  add_engine_options(command, options->engine);
  add_judge_options(command, options->judging);
  command->callback([options, &action] { action = [options] { return run_estimate(*options); }; });
}

} // namespace rightsize::cli
