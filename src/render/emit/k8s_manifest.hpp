#pragma once
// Kubernetes manifests for one recommended deployment: the workload running the engine (a
// Deployment, or a LeaderWorkerSet when one replica spans several nodes) and its autoscaler (a KEDA
// ScaledObject, or an autoscaling/v2 HorizontalPodAutoscaler) on the engine's own metrics
// (docs/deploy.md "Kubernetes").
#include <string>

#include "render/emit/engine_command.hpp"
#include "rightsize/deploy.hpp"

namespace rightsize::cli {

using app::Autoscaler;

struct K8sInputs {
  std::string name;       ///< DNS-1123 name for every object
  std::string gpu_id;     ///< catalog id, for the node selector
  std::string gpu_vendor; ///< "nvidia" or "amd": picks the device-plugin resource
  std::string image;      ///< engine container image
  /// The engine container's CPU (cores) and memory (bytes) requests per GPU it holds; 0 = none.
  double cpu_cores_per_gpu = 0.0;
  double memory_bytes_per_gpu = 0.0;
  std::string prometheus_url; ///< KEDA prometheus trigger serverAddress
  /// metadata.namespace of every object and the KEDA query's namespace matcher; "" = neither (the
  /// objects go where `kubectl apply -n` puts them).
  std::string namespace_name;
  std::string model_name; ///< served model name (the engine's model_name metric label)
  Engine engine = Engine::vllm;
  EngineCommand command; ///< engine_command(engine, plan, model, Target::pod): the leader's for LWS
  DeployPlan plan;
  Autoscaler autoscaler = Autoscaler::keda;
  app::WeightsPlan weights; ///< the model cache, its download and the token's Secret
};

/// Kubernetes' limits on names and label values (RFC 1123 labels; metadata.labels values): 63.
inline constexpr std::size_t k_k8s_name_max = 63;
/// A LeaderWorkerSet's name: its pods carry the label controller-revision-hash
/// "<name>-<group index>-<10-character hash>", a label value of at most 63 characters, or the
/// group's worker pods are never created (kubernetes-sigs/lws#410). 45 leaves room for group
/// indexes of up to six digits.
inline constexpr std::size_t k_lws_name_max = 45;
/// The API server's bound on behavior.scaleDown.stabilizationWindowSeconds (autoscaling/v2
/// HPAScalingRules, validated at most 3600; KEDA's generated HPA inherits it).
inline constexpr int k_hpa_window_max_s = 3600;
/// The autoscalers' fewest replicas: the plan's, but at least one. Both read gauges only the engine's
/// pods export, so at zero nothing would scale the workload back up (docs/deploy.md).
inline int kept_min_replicas(const DeployPlan& plan) {
  return plan.min_replicas > 1 ? plan.min_replicas : 1;
}

/// A DNS-1123 label from free text: lower case, [a-z0-9-], at most `max_bytes` characters, never
/// empty. A name cut to fit ends in "-" and 8 hex digits of a hash of the whole text, so two long
/// names that share a prefix stay distinct.
std::string k8s_name(const std::string& text, std::size_t max_bytes = k_k8s_name_max);

/// A label value from free text (a catalog GPU id for the node selector): [A-Za-z0-9-_.], starting
/// and ending with a letter or digit, at most 63 characters (cut like k8s_name), never empty.
std::string k8s_label_value(const std::string& text);

/// The prometheus-adapter discovery rule (one item of its `rules` list, YAML) that serves the
/// engine's per-pod custom metric (engine_metrics(engine).hpa_metric: running + waiting requests)
/// from its gauges.
std::string prometheus_adapter_rule(Engine engine);

/// YAML documents written with yaml-cpp: TensorRT-LLM's options ConfigMap when its command has one,
/// the workload (Deployment, or LeaderWorkerSet when plan.nodes_per_replica > 1) and the autoscaler
/// targeting it (KEDA ScaledObject or HPA; the HPA document is preceded by the adapter rule it
/// needs, as comments). A TensorRT-LLM replica over several nodes is refused by the caller.
std::string k8s_manifests(const K8sInputs& in);

/// The PersistentVolumeClaim of the model cache (--model-cache pvc): "<name>-model-cache".
std::string model_cache_claim_name(const std::string& name);

/// The ConfigMap holding TensorRT-LLM's options file: "<name>-trtllm-options".
std::string trtllm_options_name(const std::string& name);

} // namespace rightsize::cli
