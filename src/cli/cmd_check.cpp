// rightsize check SPEC --deployment 2xL40S: a CI gate. Does the deployment meet the SLA, and is it
// over-provisioned (a cheaper configuration meets it too)? Exit 0 pass, 1 fail (docs/cli.md).
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "app/check.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/judge_options.hpp"
#include "cli/run_context.hpp"
#include "render/check_render.hpp"
#include "render/disagg_render.hpp"
#include "render/emit/emit.hpp"
#include "render/render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct CheckOptions {
  std::string spec;
  std::string deployment;
  int tp = 0;
  int pp = 0;
  int ep = 0;
  int attention_dp = 0;
  std::string max_overspend = "20%";
  std::vector<std::string> alternatives; ///< --gpu: GPUs the overspend test compares against
  std::string format = "table";
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
  EmitOptions emit;
};

// "2xL40S", "8 x H100-SXM", "L4" -> (count, id).
DeploymentSpec parse_deployment(const std::string& text) {
  DeploymentSpec d;
  const std::size_t x = text.find_first_of("xX×");
  std::string count = x == std::string::npos ? "" : text.substr(0, x);
  while (!count.empty() && count.back() == ' ')
    count.pop_back();
  const bool numeric = !count.empty() && count.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) {
    const long n = std::stol(count.substr(0, 6));
    if (n < 1 || n > 65536)
      throw Error(ErrorKind::usage, "--deployment", "",
                  fmt::format("expected 1 to 65536 GPUs, got {}", count));
    d.gpus = static_cast<int>(n);
    std::size_t start = x + 1;
    if (static_cast<unsigned char>(text[x]) == 0xC3) start = x + 2; // "×" is two bytes in UTF-8
    d.gpu = text.substr(start);
    while (!d.gpu.empty() && d.gpu.front() == ' ')
      d.gpu.erase(d.gpu.begin());
  } else {
    d.gpu = text;
  }
  if (d.gpu.empty())
    throw Error(ErrorKind::usage, "--deployment", "",
                fmt::format("expected COUNTxGPU like 2xL40S, got \"{}\"", text));
  return d;
}

// One rule for shares on the command line and in JSON: "20%" is a percentage, a bare number is a
// fraction (0.2 = 20%, as JSON writes it). A bare number above 10 is refused as ambiguous.
double parse_share(const std::string& text, const char* flag) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  const double share = percent ? v / 100.0 : v;
  if (t.empty() || end == nullptr || *end != '\0' || !std::isfinite(v) || share < 0.0 || share > 10.0) {
    throw Error(
        ErrorKind::usage, flag, "",
        fmt::format("expected a percentage like 20% or a fraction like 0.2 (at most 10), got \"{}\"{}", text,
                    !percent && std::isfinite(v) && v > 10.0 ? fmt::format(" (did you mean {}%?)", t) : ""));
  }
  return share;
}

// check --emit: the artifact of the deployment as judged (its layout, its replicas, its capacity
// plan through core plan_candidate_deployment, as recommend --emit), on stdout or in --out; the
// verdict goes to stderr and the exit code. A deployment that misses the SLA gets no artifact.
int emit_checked(const EmitOptions& emit, const Spec& spec, const app::CheckResult& res) {
  if (!res.meets) {
    note("verdict: fail: the deployment misses the SLA ({}); no {} artifact written", check_failure(res),
         emit.kind);
    return static_cast<int>(ExitCode::not_met);
  }
  write_artifact(emit, spec, *res.artifact);
  if (!res.pass)
    note("verdict: fail: over-provisioned, a cheaper option saves {:.0f}% (check without --emit names it); "
         "the artifact was written",
         res.saving * 100.0);
  return res.pass ? 0 : static_cast<int>(ExitCode::not_met);
}

int run_check(const CheckOptions& o) {
  const Format format = parse_format(o.format, {"table", "json"});
  const double max_overspend = parse_share(o.max_overspend, "--max-overspend");
  const Spec spec = load_spec_file(o.spec);
  if (spec.mode == WorkloadMode::training) {
    throw Error(ErrorKind::usage, "check", "",
                "check gates inference deployments; use 'rightsize recommend' for training specs");
  }
  check_emit_options(o.emit, spec);
  const EngineOptions engine_options = emit_engine_options(o.emit, o.engine, spec);
  if (!o.emit.kind.empty() && format != Format::table)
    throw Error(ErrorKind::usage, "--format", "",
                "--emit writes the artifact instead of the verdict; leave out --format (the verdict goes "
                "to stderr and the exit code)");
  if (spec.disaggregated && o.deployment.empty()) {
    if (!o.emit.kind.empty())
      throw Error(ErrorKind::usage, "--emit", "",
                  "expected an aggregated deployment: a disaggregated one has a prefill and a decode pool, "
                  "which --emit does not write yet");
    // Separate prefill and decode pools (methodology §3.6): judged as one deployment by core::judge.
    if (o.tp > 0 || o.pp > 0 || o.ep > 0 || o.attention_dp > 0) {
      const char* flag = o.tp > 0 ? "--tp" : o.pp > 0 ? "--pp" : o.ep > 0 ? "--ep" : "--attention-dp";
      throw Error(ErrorKind::usage, flag, "",
                  "--tp/--pp/--ep/--attention-dp set an aggregated replica; the spec's deployment has "
                  "prefill and decode pools");
    }
    const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
    return run_disagg_deployment(spec, catalog, engine_config(engine_options, spec.engine, catalog.engines),
                                 spec.inference, confidence_of(o.judging), format, true,
                                 engine_name(engine_options, spec.engine), o.judging.headroom);
  }
  DeploymentSpec want;
  if (!o.deployment.empty()) {
    want = parse_deployment(o.deployment);
  } else if (spec.deployment) {
    want = *spec.deployment;
  } else {
    throw Error(ErrorKind::usage, "--deployment", "",
                "check needs a deployment: --deployment 2xL40S or \"deployment\" in the spec");
  }
  if (o.tp > 0) want.tp = o.tp;
  if (o.pp > 0) want.pp = o.pp;
  if (o.ep > 0) want.ep = o.ep;
  if (o.attention_dp > 0) want.attention_dp = o.attention_dp;
  const LoadedCatalog catalog = load_catalog(o.catalog, &spec.constraints, spec.source);
  const Gpu& gpu = o.deployment.empty()
                       ? require_gpu(catalog.catalog, want.gpu, spec.source, "/deployment/gpu")
                       : require_gpu(catalog.catalog, want.gpu, "--deployment");
  app::CheckRequest request;
  request.deployment = want;
  request.ep_from_spec = o.deployment.empty() && o.ep == 0 && want.ep > 0;
  request.deployment.gpu = gpu.id;
  request.engine = engine_config(engine_options, spec.engine, catalog.engines);
  warn_overlay_engine(catalog, gpu.id, engine_name(engine_options, spec.engine));
  request.confidence = confidence_of(o.judging);
  request.max_overspend = max_overspend;
  request.headroom = o.judging.headroom;
  request.alternatives = o.alternatives;
  EmitOptions emit = o.emit;
  emit.engine = engine_name(engine_options, spec.engine); // --emit k8s runs the engine the estimate assumed
  if (!emit.kind.empty()) request.artifact = static_cast<const app::ArtifactRequest&>(emit);
  const app::CheckResult res = app::run_check(spec, catalog, request);

  if (!emit.kind.empty()) return emit_checked(emit, spec, res);

  render_check(spec, catalog, res, max_overspend, format);
  return res.pass ? 0 : static_cast<int>(ExitCode::not_met);
}

} // namespace

void add_check(CLI::App& app, Action& action) {
  auto o = std::make_shared<CheckOptions>();
  auto* command =
      app.add_subcommand("check", "CI gate: does a deployment meet the SLA without overspending?");
  command->add_option("spec", o->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--deployment", o->deployment,
                      "the deployment to check, e.g. 2xL40S (default: the spec's)");
  command->add_option("--tp", o->tp, "tensor-parallel degree of each replica (default: smallest that fits)");
  command->add_option("--pp", o->pp, "pipeline-parallel degree of each replica");
  command->add_option("--ep", o->ep, "expert groups the MoE experts are split over (MoE models)");
  command->add_option("--attention-dp", o->attention_dp,
                      "attention data-parallel ranks per replica (MoE; replica = tp × pp × ranks GPUs)");
  command->add_option("--max-overspend", o->max_overspend,
                      "fail when a cheaper option saves more than this: 20% or 0.2 (default 20%)");
  command
      ->add_option("--gpu", o->alternatives,
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
