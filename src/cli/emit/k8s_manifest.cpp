// Deployment + KEDA ScaledObject written with yaml-cpp. Field names: Kubernetes apps/v1 Deployment
// and KEDA keda.sh/v1alpha1 ScaledObject references, cited in docs/deploy.md.
#include "emit/k8s_manifest.hpp"

#include <cmath>

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

namespace rightsize::cli {
namespace {

void labels(YAML::Emitter& y, const std::string& name) {
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << name;
  y << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "rightsize";
  y << YAML::EndMap;
}

void http_probe(YAML::Emitter& y, const char* key, int period_s, int failures) {
  y << YAML::Key << key << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "httpGet" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "path" << YAML::Value << "/health";
  y << YAML::Key << "port" << YAML::Value << "http";
  y << YAML::EndMap;
  y << YAML::Key << "periodSeconds" << YAML::Value << period_s;
  y << YAML::Key << "failureThreshold" << YAML::Value << failures;
  y << YAML::EndMap;
}

void deployment(YAML::Emitter& y, const K8sInputs& in) {
  const DeployPlan& p = in.plan;
  const std::string gpu_resource = in.gpu_vendor == "amd" ? "amd.com/gpu" : "nvidia.com/gpu";
  y << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << "apps/v1";
  y << YAML::Key << "kind" << YAML::Value << "Deployment";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << in.name;
  labels(y, in.name);
  y << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "replicas" << YAML::Value << p.initial_replicas;
  y << YAML::Key << "selector" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << in.name;
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  labels(y, in.name);
  y << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "rightsize.io/gpu" << YAML::Value << in.gpu_id;
  y << YAML::EndMap;
  y << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "engine";
  y << YAML::Key << "image" << YAML::Value << in.image;
  y << YAML::Key << "command" << YAML::Value << YAML::Flow << in.command.program;
  y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq;
  for (const auto& a : in.command.args)
    y << YAML::DoubleQuoted << a;
  y << YAML::EndSeq;
  y << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "http";
  y << YAML::Key << "containerPort" << YAML::Value << in.command.port;
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (const char* k : {"requests", "limits"}) {
    y << YAML::Key << k << YAML::Value << YAML::BeginMap;
    y << YAML::Key << gpu_resource << YAML::Value << p.gpus_per_replica;
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  // The startup probe allows twice the estimated cold start before the kubelet restarts the pod.
  const int period_s = 10;
  http_probe(y, "startupProbe", period_s, std::max(3, (2 * p.cold_start_s + period_s - 1) / period_s));
  http_probe(y, "readinessProbe", period_s, 3);
  y << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "dshm";
  y << YAML::Key << "mountPath" << YAML::Value << "/dev/shm";
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap << YAML::EndSeq; // containers
  y << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "dshm";
  y << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "medium" << YAML::Value << "Memory";
  y << YAML::EndMap << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap; // pod spec
  y << YAML::EndMap; // template
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

void scaled_object(YAML::Emitter& y, const K8sInputs& in) {
  const DeployPlan& p = in.plan;
  y << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << "keda.sh/v1alpha1";
  y << YAML::Key << "kind" << YAML::Value << "ScaledObject";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << in.name;
  labels(y, in.name);
  y << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "scaleTargetRef" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << in.name;
  y << YAML::EndMap;
  y << YAML::Key << "pollingInterval" << YAML::Value << 15;
  y << YAML::Key << "cooldownPeriod" << YAML::Value << p.idle_before_zero_s;
  y << YAML::Key << "minReplicaCount" << YAML::Value << p.min_replicas;
  y << YAML::Key << "maxReplicaCount" << YAML::Value << p.max_replicas;
  y << YAML::Key << "advanced" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "horizontalPodAutoscalerConfig" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "behavior" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "scaleDown" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "stabilizationWindowSeconds" << YAML::Value << p.scale_down_window_s;
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "triggers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "prometheus";
  y << YAML::Key << "metricType" << YAML::Value << "AverageValue";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "serverAddress" << YAML::Value << in.prometheus_url;
  // In-flight demand (running + waiting) summed over replicas; AverageValue divides it by
  // the replica count, so `threshold` is the per-replica target.
  const std::string sel = fmt::format("{{model_name=\"{}\"}}", in.model_name);
  y << YAML::Key << "query" << YAML::Value
    << fmt::format("sum(vllm:num_requests_running{0}) + sum(vllm:num_requests_waiting{0})", sel);
  y << YAML::Key << "threshold" << YAML::Value << YAML::DoubleQuoted
    << fmt::format("{:.0f}", p.target_inflight_per_replica);
  y << YAML::EndMap;
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

} // namespace

std::string k8s_name(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (out.size() >= 63) break;
    const char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-')
    out.pop_back();
  return out.empty() ? "rightsize" : out;
}

std::string k8s_manifests(const K8sInputs& in) {
  YAML::Emitter y;
  y << YAML::BeginDoc;
  deployment(y, in);
  y << YAML::BeginDoc;
  scaled_object(y, in);
  return std::string(y.c_str()) + "\n";
}

} // namespace rightsize::cli
