#pragma once
// `recommend --emit KIND` and `check --emit KIND`: the text of an engine launch command or of
// Kubernetes manifests for a ranked candidate, or for the deployment check judged, instead of the
// table (docs/deploy.md). The CLI writes it to stdout or into --out.
#include <functional>
#include <string>

#include "app/deploy_artifact.hpp"
#include "app/diagnostics.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::cli {

/// What the artifact's text depends on besides the plan.
struct EmitFormat {
  std::string kind;           ///< vllm, sglang, trtllm or k8s
  std::string prometheus_url; ///< with k8s: the URL KEDA queries
  std::string namespace_name; ///< with k8s: metadata.namespace of every object ("" = none written)
};

/// One artifact: the file it takes in an --out folder and its text.
struct EmittedArtifact {
  std::string file_name;
  std::string text;
};

/// Where an artifact's text goes: the CLI writes it to stdout or into the --out folder.
using ArtifactWriter = std::function<void(const EmittedArtifact&)>;

/// The artifact the use case planned: its header, then the launch script or the manifests. Notes
/// through `diagnostics` when --model-path was not given.
EmittedArtifact render_artifact(const EmitFormat& format, const Spec& spec, const app::ArtifactPlan& artifact,
                                app::Diagnostics& diagnostics);

} // namespace rightsize::cli
