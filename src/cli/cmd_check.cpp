// rightsize check SPEC --deployment 2xL40S: a CI gate. Does the deployment meet the SLA, and is it
// over-provisioned (a cheaper configuration meets it too)? Exit 0 pass, 1 fail (docs/cli.md).
// Flow: flags -> app::CheckRequest -> app::run_check -> render_check (or the --emit artifact).
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "app/check.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/emit_flags.hpp"
#include "cli/engine_flags.hpp"
#include "cli/flag_values.hpp"
#include "cli/judge_options.hpp"
#include "render/check_render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct CheckOptions {
  app::CheckRequest typed; ///< the flags taken as typed: --tp, --pp, --ep, --attention-dp, --gpu
  std::string spec;
  std::string deployment;
  std::string max_overspend = "20%";
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
  EmitOptions emit;
};

// --tp/--pp/--ep/--attention-dp that contradict the layout --deployment names ("8xH100-SXM:TP4"
// with --tp 8): a usage error naming the flag; the same value twice is no contradiction.
void refuse_second_layout(const app::CheckRequest& request) {
  const DeploymentSpec& d = *request.deployment;
  const std::pair<int, int> pins[] = {
      {request.tp, d.tp}, {request.pp, d.pp}, {request.ep, d.ep}, {request.attention_dp, d.attention_dp}};
  const char* flags[] = {"--tp", "--pp", "--ep", "--attention-dp"};
  const char* names[] = {"TP", "PP", "EP", "ADP"};
  for (std::size_t i = 0; i < 4; ++i) {
    if (pins[i].first > 0 && d.tp > 0 && pins[i].first != std::max(1, pins[i].second))
      throw Error(ErrorKind::usage, flags[i], "",
                  fmt::format("expected the layout once: --deployment names {}{}, {} says {}", names[i],
                              std::max(1, pins[i].second), flags[i], pins[i].first));
  }
}

// Every flag parsed and checked; no file is read yet.
app::CheckRequest check_request(const CheckOptions& o, Format format) {
  app::CheckRequest request = o.typed;
  app::CheckSettings& settings = request.settings;
  settings.max_overspend = parse_share(o.max_overspend, "--max-overspend");
  settings.artifact = artifact_request(o.emit);
  if (settings.artifact && format != Format::table)
    throw Error(ErrorKind::usage, "--format", "",
                "--emit writes the artifact instead of the verdict; leave out --format (the verdict goes "
                "to stderr and the exit code)");
  if (!o.deployment.empty()) {
    request.deployment = parse_deployment(o.deployment);
    refuse_second_layout(request);
  }
  request.inputs = spec_inputs(o.spec, o.catalog, o.engine);
  settings.confidence = confidence_of(o.judging);
  settings.headroom = headroom_of(o.judging);
  return request;
}

int run_check(const CheckOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const app::CheckRequest request = check_request(o, format);
  LogDiagnostics diagnostics;
  const app::CheckOutcome outcome = app::run_check(request, diagnostics);
  if (request.settings.artifact) {
    render_checked_artifact(outcome, emit_format(o.emit), diagnostics,
                            [&](const EmittedArtifact& artifact) { write_artifact(o.emit, artifact); });
  } else {
    render_check(outcome, format);
  }
  return outcome.pass ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_check(CLI::App& app, Action& action) {
  auto o = std::make_shared<CheckOptions>();
  auto* command =
      app.add_subcommand("check", "CI gate: does a deployment meet the SLA without overspending?");
  command->add_option("spec", o->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--deployment", o->deployment,
                      "the deployment to check, e.g. 2xL40S or 16xH100-SXM:TP4 (default: the spec's)");
  command->add_option(
      "--tp", o->typed.tp,
      "tensor-parallel degree of each replica (default: recommend's layout for the GPU count)");
  command->add_option("--pp", o->typed.pp, "pipeline-parallel degree of each replica");
  command->add_option("--ep", o->typed.ep, "expert groups the MoE experts are split over (MoE models)");
  command->add_option("--attention-dp", o->typed.attention_dp,
                      "attention data-parallel ranks per replica (MoE; replica = tp × pp × ranks GPUs)");
  command->add_option("--max-overspend", o->max_overspend,
                      "fail when a cheaper option saves more than this: 20% or 0.2 (default 20%)");
  command
      ->add_option("--gpu", o->typed.settings.alternatives,
                   "GPU ids to compare against for overspend (default: the spec's constraints.gpus, else "
                   "the catalog)")
      ->delimiter(',');
  command->add_option("--format", o->format, "table or json")->default_str("table");
  add_catalog_options(command, o->catalog);
  add_engine_options(command, o->engine);
  add_judge_options(command, o->judging);
  add_emit_options(command, o->emit, false);
  command->callback([o, &action] { action = [o] { return run_check(*o); }; });
}

} // namespace rightsize::cli
