#pragma once
// `recommend --emit` and `check --emit` (docs/deploy.md): which deployment the artifact is for, its
// deployment settings (core plan_candidate_deployment), the engine it launches, the container image,
// the served model and the autoscaler, and the combinations no artifact can express (usage Errors
// naming the flag). The CLI writes the launch script or manifests from this plan.
#include <optional>
#include <string>

#include "app/context.hpp"
#include "rightsize/deploy.hpp"
#include "rightsize/search.hpp"
#include "rightsize/spec.hpp"

namespace rightsize::app {

/// The engine an artifact runs: the one engine enum (rightsize/spec.hpp), parsed by parse_engine_kind.
using Engine = EngineKind;
/// The Kubernetes autoscaler of --emit k8s.
enum class Autoscaler : std::uint8_t { keda, hpa };

/// The --emit flags, checked by the CLI (kind one of vllm, sglang, trtllm, k8s, torchrun; autoscaler
/// keda or hpa).
struct ArtifactRequest {
  std::string
      kind; ///< vllm, sglang, trtllm (a launch script), k8s (manifests) or torchrun (training); "" = none
  std::string engine;     ///< the engine --emit k8s runs: the estimate's engine profile
  std::string image;      ///< "" = the engine's pinned image for the GPU's vendor (data/engines.json)
  std::string model_path; ///< "" = the preset's Hugging Face id, else the spec's model name
  std::string autoscaler = "keda";
  int rank = 1; ///< recommend: the candidate of this rank
  // --emit k8s: where the weights come from (docs/deploy.md "Weights").
  std::string hf_token_secret = "hf-token"; ///< Secret whose key `token` is the Hugging Face token
  std::string model_cache = "pvc";          ///< pvc, host or none
  std::string storage_class;                ///< the PVC's storageClassName; "" = the cluster's default
};

/// How a pod gets its weights (--emit k8s): a cache that survives restarts, filled by an init
/// container before the engine starts, so the startup probe covers loading from disk only.
enum class ModelCache : std::uint8_t { pvc, host, none };
/// Where the model cache is mounted in every pod (HF_HOME); a --model-path under it is served from it.
inline constexpr const char* k_model_cache_dir = "/models";
struct WeightsPlan {
  ModelCache cache = ModelCache::pvc;
  std::string hf_token_secret;   ///< mounted as HF_TOKEN (optional: public repositories need none)
  std::string storage_class;     ///< "" = the cluster's default
  bool download = true;          ///< the model path is a Hugging Face id (not a path in the image)
  std::string host_path;         ///< a local checkpoint mounted read-only from each node; "" = none
  double checkpoint_bytes = 0.0; ///< what the init container downloads (the checkpoint's format)
  std::int64_t cache_gib = 0;    ///< the PVC's request: checkpoint × 1.1, in GiB (2^30 bytes)
};

/// Every decision of one artifact.
struct ArtifactPlan {
  int rank = 0;     ///< its place in recommend's ranking; 0 = the deployment check judged
  std::string what; ///< "rank N" or "the checked deployment", for the header and messages
  std::string gpu_id;
  std::string gpu_vendor;
  DeployPlan plan; ///< core plan_candidate_deployment: the capacity plan recommend prints, engine settings
  Engine engine = Engine::vllm;
  bool k8s = false;                      ///< manifests, else a launch script
  std::string image;                     ///< with k8s: the container image
  bool image_unpinned = false;           ///< --image names no tag, or :latest (rendered as a warning)
  double pod_cpu_cores_per_gpu = 0.0;    ///< with k8s: the engine container's CPU request per GPU
  double pod_memory_bytes_per_gpu = 0.0; ///< with k8s: its host-memory request per GPU, bytes
  std::string model_path;                ///< what the engine serves
  bool model_path_defaulted = false;     ///< no --model-path: the preset's Hugging Face id or the model name
  bool model_path_is_hf_id = false;      ///< defaulted to the preset's Hugging Face id
  Autoscaler autoscaler = Autoscaler::keda;
  WeightsPlan weights; ///< with k8s
};

/// Text from outside that an artifact writes (`flag`'s value, or with `from_spec` the spec's model
/// name standing in for it): refused unless it is text without control characters or line
/// separators, and for --model-path non-empty and not starting with '-', which `reader` (the
/// program that parses the command) would read as an option (ErrorKind::usage).
void check_artifact_text(const char* flag, const std::string& text, bool from_spec,
                         const char* reader = "the engine");

/// The artifact kind fits the spec: a training spec takes --emit torchrun, an inference spec an
/// engine or k8s (ErrorKind::usage naming --emit otherwise).
void check_artifact_mode(const std::optional<ArtifactRequest>& request, const Spec& spec);

/// The artifact of `candidate` (model and GPU from `in` by its indices). `rank` is its place in
/// recommend's ranking, or 0 for the deployment check judged. Throws a usage Error naming --emit or
/// --image for a combination no artifact expresses (TensorRT-LLM off NVIDIA, a multi-node
/// TensorRT-LLM replica in Kubernetes, no --image where `engines` names no image for the GPU's
/// vendor). Without --image the manifests run the engine's pinned release image (data/engines.json).
ArtifactPlan plan_artifact(const ArtifactRequest& request, const Spec& spec, const SearchInputs& in,
                           const Candidate& candidate, const SearchPolicy& policy, PricingModel pricing,
                           const EngineProfiles& engines, int rank);

/// recommend --emit: the artifact of the candidate of rank `request.rank`, or nothing when no
/// candidate meets the requirements. A rank past the passing candidates is a usage Error naming --rank.
std::optional<ArtifactPlan> plan_recommended_artifact(const ArtifactRequest& request, const Spec& spec,
                                                      const SearchInputs& in,
                                                      const Recommendation& recommendation,
                                                      const SearchPolicy& policy, PricingModel pricing,
                                                      const EngineProfiles& engines);

} // namespace rightsize::app
