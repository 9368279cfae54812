#pragma once
// The --emit flags of `recommend` and `check` (docs/deploy.md): parsed into the use case's
// app::ArtifactRequest before any file is read, and the artifact's text written where --out says.
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "app/deploy_artifact.hpp"
#include "render/emit/emit.hpp"

namespace rightsize::cli {

/// The --emit flags: the use case's request plus where and how to write.
struct EmitOptions : app::ArtifactRequest {
  std::string out_dir;    ///< "" = stdout
  bool out_given = false; ///< --out was given, even as "" (refused: it wrote to stdout)
  std::string prometheus_url = "http://prometheus-operated.monitoring.svc:9090";
  bool prometheus_given = false; ///< --prometheus was given (with --emit k8s and KEDA only)
  std::string namespace_name;    ///< --namespace: every object's metadata.namespace ("" = kubectl's)
  bool namespace_given = false;
  bool model_cache_given = false;
  bool hf_token_secret_given = false;
  bool storage_class_given = false;
  /// The first weights flag given (--model-cache, --hf-token-secret, --storage-class), or nullptr.
  [[nodiscard]] const char* weights_flag_given() const {
    return model_cache_given       ? "--model-cache"
           : hf_token_secret_given ? "--hf-token-secret"
           : storage_class_given   ? "--storage-class"
                                   : nullptr;
  }
};
/// `with_rank`: recommend picks a rank; check emits the one deployment it judged.
void add_emit_options(CLI::App* command, EmitOptions& options, bool with_rank);

/// The request of `options` (none without --emit); usage errors naming the flag for an unknown
/// artifact or autoscaler, a companion flag without --emit or with an --emit it does not apply to
/// (--image, --prometheus: k8s only), --out "", a --prometheus that is not an http(s) URL, a rank
/// below 1.
std::optional<app::ArtifactRequest> artifact_request(const EmitOptions& options);

/// What the artifact's text depends on besides the plan.
EmitFormat emit_format(const EmitOptions& options);

/// Writes `artifact` on stdout, or into the --out folder (created when missing) with a "wrote PATH"
/// line on stdout.
void write_artifact(const EmitOptions& options, const EmittedArtifact& artifact);

} // namespace rightsize::cli
