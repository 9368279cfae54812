// rightsize recommend SPEC: what should I run this on, and what will it cost? (docs/cli.md)
// Flow: load spec + priced catalog -> core search -> render (table / json / csv / markdown).
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/judge_options.hpp"
#include "cli/run_context.hpp"
#include "render/disagg_render.hpp"
#include "render/emit/emit.hpp"
#include "render/recommend_render.hpp"
#include "render/render.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

struct RecommendOptions {
  std::string spec;
  std::vector<std::string> gpus;
  std::string precisions;
  std::string rank_by = "cost_per_token";
  std::string format = "table";
  int top = 5;
  bool explain = false;
  bool include_consumer = false;
  bool disagg = false;
  int max_gpus_per_replica = 0;
  int max_nodes = 0;
  CatalogOptions catalog;
  EngineOptions engine;
  JudgeOptions judging;
  EmitOptions emit;
};

RankBy parse_rank_by(const std::string& text) {
  if (text == "cost_per_token") return RankBy::cost_per_token;
  if (text == "cost_per_request") return RankBy::cost_per_request;
  if (text == "latency") return RankBy::latency;
  if (text == "gpus") return RankBy::gpus;
  if (text == "energy") return RankBy::energy;
  throw Error(
      ErrorKind::usage, "--rank-by", "",
      fmt::format(
          "unknown ranking \"{}\" (expected cost_per_token, cost_per_request, latency, gpus or energy)",
          text));
}

// --verbose: what the search considered per GPU, what passed and why the rest were pruned.
void trace_search(const SearchInputs& in, const Recommendation& r, const SearchPolicy& policy) {
  if (!diagnostics().should_log(spdlog::level::debug)) return;
  trace("search: {} GPU types × {} precision(s), ranked by {} at --confidence {}; {} candidates, {} pass",
        in.gpus.size(), in.models.size(), to_string(policy.rank_by), to_string(policy.confidence),
        r.candidates.size() + r.rejected.size(), r.candidates.size());
  for (std::size_t g = 0; g < in.gpus.size(); ++g) {
    std::size_t pass = 0;
    std::map<std::string, std::size_t> reasons;
    for (const Candidate& c : r.candidates)
      pass += c.gpu_index == g ? 1 : 0;
    for (const Candidate& c : r.rejected) {
      if (c.gpu_index == g) ++reasons[to_string(c.rejection.reason)];
    }
    std::string pruned;
    for (const auto& [reason, count] : reasons)
      pruned += fmt::format("{}{} {}", pruned.empty() ? "" : ", ", reason, count);
    trace("search: {}: {} pass{}{}", in.gpus[g].id, pass, pruned.empty() ? "" : "; pruned: ", pruned);
  }
}

int run_recommend(const RecommendOptions& o) {
  const Format format = parse_format(o.format, {"table", "json", "csv", "markdown"});
  if (o.top < 1 || o.top > 1000)
    throw Error(ErrorKind::usage, "--top", "", fmt::format("expected 1 to 1000, got {}", o.top));
  const Spec spec = [&] {
    const StageTimer timer("load spec");
    return load_spec_file(o.spec);
  }();
  warn_unused_headroom(o.judging, spec);
  check_emit_options(o.emit, spec);
  const EngineOptions engine_options = emit_engine_options(o.emit, o.engine, spec);
  const LoadedCatalog catalog = [&] {
    const StageTimer timer("load catalog");
    return load_catalog(o.catalog, &spec.constraints, spec.source);
  }();
  const SearchInputs in = search_inputs(spec, catalog, o.gpus, o.precisions, o.include_consumer);
  app::RecommendRequest request;
  request.rank_by = parse_rank_by(o.rank_by);
  request.engine = engine_config(engine_options, spec.engine, catalog.engines);
  for (const auto& [gpu_id, fitted_with] : catalog.overlay_engines)
    warn_overlay_engine(catalog, gpu_id, engine_name(engine_options, spec.engine));
  request.confidence = confidence_of(o.judging);
  if (!o.emit.kind.empty() && format != Format::table) {
    // As check: the artifact replaces the table, so a --format would be ignored without a word.
    throw Error(ErrorKind::usage, "--format", "",
                "--emit writes the artifact instead of the table; leave out --format (its header comment "
                "names the pick)");
  }
  if (o.disagg && (format == Format::csv || spec.mode == WorkloadMode::training || !o.emit.kind.empty())) {
    throw Error(ErrorKind::usage, "--disagg", "",
                "expected an inference spec with --format table, json or markdown and no --emit (a "
                "disaggregated unit has two pools per row)");
  }
  request.top = static_cast<std::size_t>(o.top);
  request.explain = o.explain;
  request.disagg = o.disagg;
  request.max_gpus_per_replica = o.max_gpus_per_replica;
  request.max_nodes = o.max_nodes;
  request.headroom = o.judging.headroom;
  request.today_days = today_days();
  EmitOptions emit = o.emit;
  emit.engine = engine_name(engine_options, spec.engine); // --emit k8s runs the engine the estimate assumed
  if (!emit.kind.empty()) request.artifact = static_cast<const app::ArtifactRequest&>(emit);
  RenderOptions ro;
  ro.format = format;
  ro.top = request.top;
  ro.explain = o.explain;
  ro.searched_precisions = !o.precisions.empty();
  if (spec.mode == WorkloadMode::training) {
    const app::TrainingRecommendResult result = app::run_training_recommend(spec, catalog, in, request);
    render_training_recommendation(spec, in, result, catalog, ro);
    return result.recommendation.candidates.empty() ? static_cast<int>(ExitCode::not_met) : 0;
  }
  app::RecommendResult result;
  {
    const StageTimer timer("search");
    result = app::run_recommend(spec, catalog, in, request);
  }
  trace_search(in, result.recommendation, result.policy);
  if (!emit.kind.empty()) {
    if (!result.artifact) {
      note("nothing meets the requirements; no {} artifact written", emit.kind);
      return static_cast<int>(ExitCode::not_met);
    }
    write_artifact(emit, spec, *result.artifact);
    return 0;
  }
  if (result.disagg && format == Format::json)
    ro.extra_json["disaggregated"] = disagg_search_json(in, result);
  {
    const StageTimer timer("render");
    render_recommendation(spec, in, result, catalog, ro);
    if (result.disagg && format != Format::json) print_disagg_search(in, result, format == Format::markdown);
  }
  return result.none() ? static_cast<int>(ExitCode::not_met) : 0;
}

} // namespace

void add_recommend(CLI::App& app, Action& action) {
  auto o = std::make_shared<RecommendOptions>();
  auto* command =
      app.add_subcommand("recommend", "rank GPU configurations for a spec by cost under its SLAs");
  command->add_option("spec", o->spec, "model spec file (docs/model-spec.md)")->required();
  command->add_option("--gpu", o->gpus, "only these GPU ids (repeatable or comma-separated)")->delimiter(',');
  command->add_option("--precisions", o->precisions, "also search these precisions, e.g. bf16,fp8,int4-awq");
  command->add_option("--rank-by", o->rank_by,
                      "cost_per_token (default), cost_per_request, latency, gpus or energy");
  command->add_option("--top", o->top, "rows to show (default 5)");
  command->add_flag("--explain", o->explain, "list every rejected candidate and its reason");
  command->add_flag("--include-consumer", o->include_consumer,
                    "also search consumer GPUs (RTX-4090: its driver licence excludes data-centre use)");
  command->add_flag("--disagg", o->disagg,
                    "also search disaggregated prefill/decode pools (xPyD, 1-4 workers each; needs RDMA or "
                    "NVLink between pools and a disaggregating engine)");
  command->add_option("--max-gpus-per-replica", o->max_gpus_per_replica,
                      "largest replica (default: the spec's, 8)");
  command->add_option("--max-nodes", o->max_nodes, "nodes one replica may span (default: the spec's, 1)");
  command->add_option("--format", o->format, "table, json, csv or markdown")->default_str("table");
  add_catalog_options(command, o->catalog);
  add_engine_options(command, o->engine);
  add_judge_options(command, o->judging);
  add_emit_options(command, o->emit, true);
  command->callback([o, &action] { action = [o] { return run_recommend(*o); }; });
}

} // namespace rightsize::cli
