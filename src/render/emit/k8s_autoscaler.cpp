// The autoscaler of the engine's workload, written with yaml-cpp: a KEDA ScaledObject (Prometheus
// trigger) or an autoscaling/v2 HorizontalPodAutoscaler on a per-pod custom metric served by
// prometheus-adapter. Field names: KEDA keda.sh/v1alpha1 ScaledObject and Prometheus scaler,
// Kubernetes HorizontalPodAutoscaler autoscaling/v2, prometheus-adapter's configuration reference;
// cited in docs/deploy.md.
#include <algorithm>

#include <fmt/format.h>

#include "render/emit/k8s_parts.hpp"

namespace rightsize::cli {
namespace k8s {

std::string promql_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

namespace {

void scale_target_ref(YAML::Emitter& y, const K8sInputs& in, bool always_kind) {
  const TargetKind kind = target_kind(in.plan);
  y << YAML::Key << "scaleTargetRef" << YAML::Value << YAML::BeginMap;
  // KEDA defaults to apps/v1 Deployment; the HPA needs the kind always.
  if (always_kind || in.plan.nodes_per_replica > 1) {
    y << YAML::Key << "apiVersion" << YAML::Value << kind.api_version;
    y << YAML::Key << "kind" << YAML::Value << kind.kind;
  }
  y << YAML::Key << "name" << YAML::Value << in.name;
  y << YAML::EndMap;
}

// Never drop a replica faster than one can come back (the cold start), within the API's bound
// (the header notes a window cut to it).
void scale_down_window(YAML::Emitter& y, const DeployPlan& p) {
  y << YAML::Key << "behavior" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "scaleDown" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "stabilizationWindowSeconds" << YAML::Value
    << std::min(p.scale_down_window_s, k_hpa_window_max_s);
  y << YAML::EndMap << YAML::EndMap;
}

std::string threshold(const DeployPlan& p) {
  return fmt::format("{:.0f}", p.target_inflight_per_replica);
}

} // namespace

void keda_scaled_object(YAML::Emitter& y, const K8sInputs& in) {
  const DeployPlan& p = in.plan;
  y << YAML::BeginMap;
  object_header(y, in, {"keda.sh/v1alpha1", "ScaledObject"});
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  scale_target_ref(y, in, false);
  y << YAML::Key << "pollingInterval" << YAML::Value << 15;
  y << YAML::Key << "cooldownPeriod" << YAML::Value << p.idle_before_zero_s;
  // Never 0: with no pod the query is empty, which the Prometheus scaler reads as 0 (ignoreNullValues
  // defaults to true), and nothing would ever wake the workload (KEDA Prometheus scaler reference).
  y << YAML::Key << "minReplicaCount" << YAML::Value << kept_min_replicas(p);
  y << YAML::Key << "maxReplicaCount" << YAML::Value << p.max_replicas;
  y << YAML::Key << "advanced" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "horizontalPodAutoscalerConfig" << YAML::Value << YAML::BeginMap;
  scale_down_window(y, p);
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "triggers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "prometheus";
  y << YAML::Key << "metricType" << YAML::Value << "AverageValue";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "serverAddress" << YAML::Value << in.prometheus_url;
  // In-flight demand (running + waiting) summed over replicas; AverageValue divides it by
  // the replica count, so `threshold` is the per-replica target. A multi-node replica's metrics
  // come from its leader, which runs the API server. With a namespace, only its pods count (the
  // `namespace` target label of Prometheus' kubernetes-pods job, as prometheus-adapter's rule reads).
  const std::string sel = in.namespace_name.empty()
                              ? fmt::format("{{model_name={}}}", promql_string(in.model_name))
                              : fmt::format("{{model_name={},namespace={}}}", promql_string(in.model_name),
                                            promql_string(in.namespace_name));
  const EngineMetrics m = engine_metrics(in.engine);
  y << YAML::Key << "query" << YAML::Value
    << fmt::format("sum({1}{0}) + sum({2}{0})", sel, m.running, m.waiting);
  y << YAML::Key << "threshold" << YAML::Value << YAML::DoubleQuoted << threshold(p);
  y << YAML::EndMap;
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

void horizontal_pod_autoscaler(YAML::Emitter& y, const K8sInputs& in) {
  const DeployPlan& p = in.plan;
  y << YAML::BeginMap;
  object_header(y, in, {"autoscaling/v2", "HorizontalPodAutoscaler"});
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  scale_target_ref(y, in, true);
  // minReplicas 0 would need the alpha HPAScaleToZero gate besides (kept_min_replicas).
  y << YAML::Key << "minReplicas" << YAML::Value << kept_min_replicas(p);
  y << YAML::Key << "maxReplicas" << YAML::Value << std::max(1, p.max_replicas);
  scale_down_window(y, p);
  // A Pods metric is averaged over the target's pods (a LeaderWorkerSet's scale selector picks its
  // leaders, one per replica) and compared with averageValue: the per-replica in-flight target.
  y << YAML::Key << "metrics" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "Pods";
  y << YAML::Key << "pods" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "metric" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << engine_metrics(in.engine).hpa_metric;
  y << YAML::EndMap;
  y << YAML::Key << "target" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "AverageValue";
  y << YAML::Key << "averageValue" << YAML::Value << YAML::DoubleQuoted << threshold(p);
  y << YAML::EndMap;
  y << YAML::EndMap;
  y << YAML::EndMap << YAML::EndSeq;
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

} // namespace k8s

std::string prometheus_adapter_rule(Engine engine) {
  // Discovery on the running gauge of pods Prometheus labels with namespace and pod; the value
  // is running + waiting per pod (prometheus-adapter docs/config.md: seriesQuery, resources,
  // name, metricsQuery with its <<.LabelMatchers>> and <<.GroupBy>> templates).
  const EngineMetrics m = engine_metrics(engine);
  YAML::Emitter y;
  y << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "seriesQuery" << YAML::Value << YAML::SingleQuoted
    << fmt::format("{}{{namespace!=\"\",pod!=\"\"}}", m.running);
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "overrides" << YAML::Value << YAML::BeginMap;
  for (const char* label : {"namespace", "pod"}) {
    y << YAML::Key << label << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "resource" << YAML::Value << label;
    y << YAML::EndMap;
  }
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "name" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "matches" << YAML::Value << YAML::DoubleQuoted << fmt::format("^{}$", m.running);
  y << YAML::Key << "as" << YAML::Value << YAML::DoubleQuoted << m.hpa_metric;
  y << YAML::EndMap;
  y << YAML::Key << "metricsQuery" << YAML::Value << YAML::SingleQuoted
    << fmt::format("sum by (<<.GroupBy>>) ({}{{<<.LabelMatchers>>}}) + sum by (<<.GroupBy>>) "
                   "({}{{<<.LabelMatchers>>}})",
                   m.running, m.waiting);
  y << YAML::EndMap << YAML::EndSeq;
  return y.c_str();
}

} // namespace rightsize::cli
