#pragma once
// Pieces shared by the workload (k8s_manifest.cpp) and autoscaler (k8s_autoscaler.cpp) writers.
#include <string>

#include "render/emit/k8s_manifest.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::cli::k8s {

/// metadata.labels: app name and manager, plus `role` (leader / worker) when given.
void labels(YAML::Emitter& y, const std::string& name, const char* role = nullptr);

/// What the autoscaler scales: the Deployment, or the LeaderWorkerSet of a multi-node replica.
struct TargetKind {
  const char* api_version;
  const char* kind;
};
TargetKind target_kind(const DeployPlan& plan);

/// metadata of one object: `name`, in.namespace_name when given, the labels of in.name.
void object_metadata(YAML::Emitter& y, const K8sInputs& in, const std::string& name);

/// apiVersion, kind and metadata (name, namespace, labels) of one object named in.name.
void object_header(YAML::Emitter& y, const K8sInputs& in, const TargetKind& kind);

/// A PromQL string literal: `text` in double quotes with '"' and '\\' escaped (Prometheus
/// "Querying basics": strings follow Go's escaping rules). Control characters never reach it: the
/// model path is checked text (app::plan_artifact).
std::string promql_string(const std::string& text);

void keda_scaled_object(YAML::Emitter& y, const K8sInputs& in);
void horizontal_pod_autoscaler(YAML::Emitter& y, const K8sInputs& in);

} // namespace rightsize::cli::k8s
