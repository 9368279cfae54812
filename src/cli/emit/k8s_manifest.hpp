#pragma once
// Kubernetes manifests for one recommended deployment: a Deployment running the engine and a KEDA
// ScaledObject scaling it on the engine's own metrics (docs/deploy.md "Kubernetes").
#include <string>

#include "emit/engine_command.hpp"
#include "rightsize/deploy.hpp"

namespace rightsize::cli {

struct K8sInputs {
  std::string name;           ///< DNS-1123 name for every object
  std::string gpu_id;         ///< catalog id, for the node selector
  std::string gpu_vendor;     ///< "nvidia" or "amd": picks the device-plugin resource
  std::string image;          ///< engine container image
  std::string prometheus_url; ///< KEDA prometheus trigger serverAddress
  std::string model_name;     ///< served model name (the engine's model_name metric label)
  EngineCommand command;      ///< vLLM only: the KEDA query uses vLLM's metric names
  DeployPlan plan;
};

/// A DNS-1123 label from free text: lower case, [a-z0-9-], at most 63 characters, never empty.
std::string k8s_name(const std::string& text);

/// Two YAML documents (Deployment, ScaledObject) written with yaml-cpp.
std::string k8s_manifests(const K8sInputs& in);

} // namespace rightsize::cli
