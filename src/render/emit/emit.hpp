#pragma once
// `recommend --emit KIND` and `check --emit KIND`: write an engine launch command or Kubernetes
// manifests for a ranked candidate, or for the deployment check judged, instead of the table
// (docs/deploy.md).
#include <string>

#include "app/deploy_artifact.hpp"
#include "cli/commands.hpp"
#include "cli/run_context.hpp"
#include "rightsize/search.hpp"

namespace rightsize::cli {

/// The --emit flags: the use case's request (app::plan_artifact decides what is written; its
/// `engine` is set by the command to the engine profile the estimate used) plus where to write.
struct EmitOptions : app::ArtifactRequest {
  std::string out_dir; ///< "" = stdout
  std::string prometheus_url = "http://prometheus-operated.monitoring.svc:9090";
};
/// `with_rank`: recommend picks a rank; check emits the one deployment it judged.
void add_emit_options(CLI::App* command, EmitOptions& options, bool with_rank);

/// Writes the artifact the use case planned (its header, then the launch script or the manifests),
/// on stdout or into --out; notes on stderr when --model-path was not given.
void write_artifact(const EmitOptions& options, const Spec& spec, const app::ArtifactPlan& artifact);

/// Checks the flags against the spec before the search (usage errors naming the flag).
void check_emit_options(const EmitOptions& options, const Spec& spec);

/// The engine options the estimate runs with when an engine's launch script is emitted: `--emit
/// sglang` (or trtllm, vllm) sizes the script from that engine's profile, so with no --engine and no
/// workload.engine the estimate assumes the emitted engine; a different explicit engine is a usage
/// error (the script's --max-num-seqs and KV budget would come from another scheduler).
EngineOptions emit_engine_options(const EmitOptions& options, const EngineOptions& engine, const Spec& spec);

} // namespace rightsize::cli
