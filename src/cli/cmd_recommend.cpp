// rightsize recommend SPEC: what should I run this on, and what will it cost? (docs/cli.md)
// Flow: flags -> app::RecommendRequest -> app::run_recommend -> render_recommend (or the --emit
// artifact).
#include <memory>

#include <fmt/format.h>

#include "app/recommend.hpp"
#include "cli/catalog_flags.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/emit_flags.hpp"
#include "cli/engine_flags.hpp"
#include "cli/flag_values.hpp"
#include "cli/judge_options.hpp"
#include "render/recommend_render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct RecommendOptions {
  app::RecommendRequest typed; ///< the flags taken as typed: --gpu, --precisions, the switches, the limits
  std::string spec;
  std::string rank_by = "cost_per_token";
  std::string format = "table";
  int top = 5;
  int threads = 0;
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
  EmitOptions emit;
};

// Every flag parsed and checked; no file is read yet.
app::RecommendRequest recommend_request(const RecommendOptions& o, Format format) {
  if (o.top < 1 || o.top > 1000)
    throw Error(ErrorKind::usage, "--top", "", fmt::format("expected 1 to 1000, got {}", o.top));
  app::RecommendRequest request = o.typed;
  app::RecommendSettings& settings = request.settings;
  settings.top = static_cast<std::size_t>(o.top);
  settings.threads = worker_threads(o.threads);
  settings.artifact = artifact_request(o.emit);
  request.inputs.catalog = catalog_setup(o.catalog);
  settings.rank_by = parse_rank_by(o.rank_by);
  request.inputs.engine = engine_setup(o.engine);
  settings.confidence = confidence_of(o.judging);
  if (settings.artifact && format != Format::table) {
    // As check: the artifact replaces the table, so a --format would be ignored without a word.
    throw Error(ErrorKind::usage, "--format", "",
                "--emit writes the artifact instead of the table; leave out --format (its header comment "
                "names the pick)");
  }
  request.csv = format == Format::csv;
  settings.headroom = headroom_of(o.judging);
  request.inputs.spec = o.spec;
  request.inputs.environment = environment();
  return request;
}

int run_recommend(const RecommendOptions& o) {
  const Format format = parse_format(o.format, {"table", "json", "csv", "markdown"});
  const app::RecommendRequest request = recommend_request(o, format);
  LogDiagnostics diagnostics;
  const app::RecommendOutcome outcome = app::run_recommend(request, diagnostics);
  if (request.settings.artifact) {
    render_recommended_artifact(outcome, emit_format(o.emit), diagnostics,
                                [&](const EmittedArtifact& artifact) { write_artifact(o.emit, artifact); });
  } else {
    RenderOptions options;
    options.format = format;
    options.top = request.settings.top;
    options.explain = request.settings.explain;
    options.searched_precisions = !request.precisions.empty();
    render_recommend(outcome, options, diagnostics);
  }
  return outcome.none ? static_cast<int>(ExitCode::not_met) : 0;
}

} // namespace

void add_recommend(CLI::App& app, Action& action) {
  auto o = std::make_shared<RecommendOptions>();
  auto* command =
      app.add_subcommand("recommend", "rank GPU configurations for a spec by cost under its SLAs");
  command->add_option("spec", o->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--gpu", o->typed.gpus, "only these GPU ids (repeatable or comma-separated)")
      ->delimiter(',');
  command->add_option("--precisions", o->typed.precisions,
                      "also search these precisions, e.g. bf16,fp8,int4-awq");
  command->add_option("--rank-by", o->rank_by,
                      "cost_per_token (default), cost_per_request, latency, gpus, energy or goodput");
  command->add_option("--top", o->top, "rows to show (default 5)");
  command->add_flag("--explain", o->typed.settings.explain, "list every rejected candidate and its reason");
  command->add_flag("--include-consumer", o->typed.include_consumer,
                    "also search consumer GPUs (RTX-4090: its driver licence excludes data-centre use)");
  command->add_flag("--disagg", o->typed.settings.disagg,
                    "also search disaggregated prefill/decode pools (xPyD, 1-4 workers each; needs RDMA or "
                    "NVLink between pools and a disaggregating engine)");
  command->add_option(
      "--threads", o->threads,
      "worker threads for --disagg's GPU pairs (the same output on any count); 0 or left out = "
      "the hardware concurrency");
  command->add_option("--max-gpus-per-replica", o->typed.settings.max_gpus_per_replica,
                      "largest replica (default: the spec's, 8)");
  command->add_option("--max-nodes", o->typed.settings.max_nodes,
                      "nodes one replica may span (default: the spec's, 1)");
  command->add_option("--format", o->format, "table, json, csv or markdown")->default_str("table");
  add_catalog_options(command, o->catalog);
  add_engine_options(command, o->engine);
  add_judge_options(command, o->judging);
  add_emit_options(command, o->emit, true);
  command->callback([o, &action] { action = [o] { return run_recommend(*o); }; });
}

} // namespace rightsize::cli
