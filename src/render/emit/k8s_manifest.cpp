// The engine's workload written with yaml-cpp: a Deployment (one node per replica) or a
// LeaderWorkerSet (a replica over several nodes). Field names: Kubernetes apps/v1 Deployment, the
// LeaderWorkerSet leaderworkerset.x-k8s.io/v1 API, vLLM's and SGLang's LWS deployment guides, cited
// in docs/deploy.md.
#include "render/emit/k8s_manifest.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "render/emit/k8s_parts.hpp"

namespace rightsize::cli {
namespace k8s {

void labels(YAML::Emitter& y, const std::string& name, const char* role) {
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << name;
  y << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << "rightsize";
  if (role != nullptr) y << YAML::Key << "role" << YAML::Value << role;
  y << YAML::EndMap;
}

TargetKind target_kind(const DeployPlan& plan) {
  if (plan.nodes_per_replica > 1) return {"leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"};
  return {"apps/v1", "Deployment"};
}

void object_metadata(YAML::Emitter& y, const K8sInputs& in, const std::string& name) {
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << name;
  if (!in.namespace_name.empty()) y << YAML::Key << "namespace" << YAML::Value << in.namespace_name;
  labels(y, in.name);
  y << YAML::EndMap;
}

void object_header(YAML::Emitter& y, const K8sInputs& in, const TargetKind& kind) {
  y << YAML::Key << "apiVersion" << YAML::Value << kind.api_version;
  y << YAML::Key << "kind" << YAML::Value << kind.kind;
  object_metadata(y, in, in.name);
}

} // namespace k8s

namespace {

using k8s::labels;
using k8s::object_header;

// The pods of a replica: one pod on one node, or a LeaderWorkerSet group's leader (runs the API
// server) and workers (join its Ray cluster).
enum class Role { single, leader, worker };

// vLLM's multi-node helper, shipped in the vllm/vllm-openai image: `leader` starts a Ray head and
// waits until the group's nodes have joined, `worker` joins the leader's (vLLM "LWS" deployment
// guide). LWS sets LWS_GROUP_SIZE and LWS_LEADER_ADDRESS in every container; the kubelet expands
// $(VAR) in args.
constexpr const char* k_ray_script = "bash /vllm-workspace/examples/online_serving/multi-node-serving.sh";

void http_probe(YAML::Emitter& y, const char* key, const std::string& path, int period_s, int failures) {
  y << YAML::Key << key << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "httpGet" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "path" << YAML::Value << path;
  y << YAML::Key << "port" << YAML::Value << "http";
  y << YAML::EndMap;
  y << YAML::Key << "periodSeconds" << YAML::Value << period_s;
  y << YAML::Key << "failureThreshold" << YAML::Value << failures;
  y << YAML::EndMap;
}

// Where the weights live in every pod (docs/deploy.md "Weights"): HF_HOME on the cache volume, so
// the Hugging Face libraries of the init container and the engine read and write the same cache.
using app::k_model_cache_dir;
constexpr const char* k_model_cache_volume = "model-cache";
constexpr const char* k_host_cache_dir = "/var/lib/rightsize/models";

bool has_cache(const K8sInputs& in) {
  return in.weights.cache != app::ModelCache::none;
}

// HF_HOME on the cache and HF_TOKEN from the Secret (optional: a public repository needs none).
void weights_env(YAML::Emitter& y, const K8sInputs& in) {
  y << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  if (has_cache(in)) {
    y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "HF_HOME";
    y << YAML::Key << "value" << YAML::Value << k_model_cache_dir << YAML::EndMap;
  }
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "HF_TOKEN";
  y << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "secretKeyRef" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << in.weights.hf_token_secret;
  y << YAML::Key << "key" << YAML::Value << "token";
  y << YAML::Key << "optional" << YAML::Value << true;
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  y << YAML::EndSeq;
}

constexpr const char* k_model_path_volume = "model-path";

void cache_mount(YAML::Emitter& y, const K8sInputs& in) {
  if (!in.weights.host_path.empty()) {
    y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << k_model_path_volume;
    y << YAML::Key << "mountPath" << YAML::Value << in.weights.host_path;
    y << YAML::Key << "readOnly" << YAML::Value << true << YAML::EndMap;
  }
  if (!has_cache(in)) return;
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << k_model_cache_volume;
  y << YAML::Key << "mountPath" << YAML::Value << k_model_cache_dir << YAML::EndMap;
}

// The download before the engine starts: huggingface_hub's snapshot_download (in every engine image)
// into the cache; a restart finds the files there. The kubelet does not probe init containers, so a
// long download is never killed as a slow start.
void fetch_weights(YAML::Emitter& y, const K8sInputs& in) {
  if (!has_cache(in) || !in.weights.download) return;
  y << YAML::Key << "initContainers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "fetch-weights";
  y << YAML::Key << "image" << YAML::Value << in.image;
  y << YAML::Key << "command" << YAML::Value << YAML::BeginSeq << "python3"
    << "-c" << YAML::DoubleQuoted
    << "import sys; from huggingface_hub import snapshot_download; snapshot_download(repo_id=sys.argv[1])"
    << YAML::EndSeq;
  y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted
    << pod_literal(in.model_name) << YAML::EndSeq;
  weights_env(y, in);
  y << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  cache_mount(y, in);
  y << YAML::EndSeq;
  y << YAML::EndMap << YAML::EndSeq;
}

void cache_volume(YAML::Emitter& y, const K8sInputs& in) {
  // A local checkpoint: the node's directory itself (type Directory: the pod does not start where it
  // is missing, instead of serving an empty folder).
  if (!in.weights.host_path.empty()) {
    y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << k_model_path_volume;
    y << YAML::Key << "hostPath" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "path" << YAML::Value << in.weights.host_path;
    y << YAML::Key << "type" << YAML::Value << "Directory" << YAML::EndMap << YAML::EndMap;
  }
  if (!has_cache(in)) return;
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << k_model_cache_volume;
  if (in.weights.cache == app::ModelCache::pvc) {
    y << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "claimName" << YAML::Value << model_cache_claim_name(in.name) << YAML::EndMap;
  } else {
    y << YAML::Key << "hostPath" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "path" << YAML::Value << k_host_cache_dir;
    y << YAML::Key << "type" << YAML::Value << "DirectoryOrCreate" << YAML::EndMap;
  }
  y << YAML::EndMap;
}

// The host CPU and memory the engine container requests for `gpus` GPUs: Kubernetes quantities,
// whole millicores ("16", "1500m") and whole megabytes ("48G", "1500M"; G = 1e9 bytes).
void pod_requests(YAML::Emitter& y, const K8sInputs& in, int gpus) {
  const double cpu_milli = std::round(in.cpu_cores_per_gpu * gpus * 1000.0);
  if (cpu_milli >= 1.0) {
    const auto m = static_cast<std::int64_t>(cpu_milli);
    y << YAML::Key << "cpu" << YAML::Value << YAML::DoubleQuoted
      << (m % 1000 == 0 ? std::to_string(m / 1000) : std::to_string(m) + "m");
  }
  const double mega = std::round(in.memory_bytes_per_gpu * gpus / 1e6);
  if (mega >= 1.0) {
    const auto mb = static_cast<std::int64_t>(mega);
    y << YAML::Key << "memory" << YAML::Value
      << (mb % 1000 == 0 ? std::to_string(mb / 1000) + "G" : std::to_string(mb) + "M");
  }
}

void container(YAML::Emitter& y, const K8sInputs& in, Role role) {
  const DeployPlan& p = in.plan;
  const std::string gpu_resource = in.gpu_vendor == "amd" ? "amd.com/gpu" : "nvidia.com/gpu";
  const int gpus = role == Role::worker   ? p.gpus_per_worker_pod
                   : role == Role::leader ? p.gpus_per_leader_pod
                                          : p.gpus_per_replica;
  y << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << (role == Role::worker ? "worker" : "engine");
  y << YAML::Key << "image" << YAML::Value << in.image;
  // SGLang's nodes each run the same command with their rank from the LWS environment (the kubelet
  // expands $(VAR) in args); vLLM's join a Ray cluster first.
  if (role == Role::single || in.engine == Engine::sglang) {
    y << YAML::Key << "command" << YAML::Value << YAML::Flow << in.command.program;
    y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq;
    for (std::size_t i = 0; i < in.command.args.size(); ++i) {
      const std::string& a = in.command.args[i];
      y << YAML::DoubleQuoted << (expands(in.command, i) ? a : pod_literal(a));
    }
    y << YAML::EndSeq;
  } else {
    const std::string line = role == Role::leader
                                 ? std::string(k_ray_script) +
                                       " leader --ray_cluster_size=$(LWS_GROUP_SIZE) && exec " +
                                       pod_literal(shell_line(in.command))
                                 : std::string(k_ray_script) + " worker --ray_address=$(LWS_LEADER_ADDRESS)";
    y << YAML::Key << "command" << YAML::Value << YAML::Flow << YAML::BeginSeq << "sh"
      << "-c" << YAML::EndSeq;
    y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq << YAML::DoubleQuoted << line << YAML::EndSeq;
  }
  if (role != Role::worker) {
    y << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << "http";
    y << YAML::Key << "containerPort" << YAML::Value << in.command.port;
    y << YAML::EndMap << YAML::EndSeq;
  }
  // GPUs requested and limited (device plugins take whole devices); CPU and memory requested per GPU
  // without a limit, so the pod is Burstable rather than BestEffort, the QoS class the kubelet evicts
  // first under node memory pressure (Kubernetes "Pod Quality of Service Classes").
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  for (const char* k : {"requests", "limits"}) {
    y << YAML::Key << k << YAML::Value << YAML::BeginMap;
    y << YAML::Key << gpu_resource << YAML::Value << gpus;
    if (std::string_view(k) == "requests") pod_requests(y, in, gpus);
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  if (role != Role::worker) {
    // The startup probe allows twice the estimated cold start before the kubelet restarts the pod.
    const int period_s = 10;
    const std::string& health = in.command.health_path;
    http_probe(y, "startupProbe", health, period_s,
               std::max(3, (2 * p.cold_start_s + period_s - 1) / period_s));
    http_probe(y, "readinessProbe", health, period_s, 3);
  }
  weights_env(y, in);
  y << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  cache_mount(y, in);
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "dshm";
  y << YAML::Key << "mountPath" << YAML::Value << "/dev/shm";
  y << YAML::EndMap;
  if (!in.command.extra_options_yaml.empty()) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << "trtllm-options";
    y << YAML::Key << "mountPath" << YAML::Value << k_trtllm_options_dir;
    y << YAML::Key << "readOnly" << YAML::Value << true;
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::EndMap << YAML::EndSeq;
}

// A pod template (metadata + spec) for one role.
void pod_template(YAML::Emitter& y, const K8sInputs& in, Role role) {
  y << YAML::BeginMap;
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  labels(y, in.name, role == Role::leader ? "leader" : role == Role::worker ? "worker" : nullptr);
  if (role != Role::worker) {
    // The prometheus.io/* annotations of Prometheus' kubernetes-pods scrape job: where the
    // engine serves its metrics (docs/deploy.md "Metrics").
    y << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "prometheus.io/scrape" << YAML::Value << YAML::DoubleQuoted << "true";
    y << YAML::Key << "prometheus.io/port" << YAML::Value << YAML::DoubleQuoted
      << std::to_string(in.command.port);
    y << YAML::Key << "prometheus.io/path" << YAML::Value << in.command.metrics_path;
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "rightsize.io/gpu" << YAML::Value << k8s_label_value(in.gpu_id);
  y << YAML::EndMap;
  fetch_weights(y, in);
  y << YAML::Key << "containers" << YAML::Value;
  container(y, in, role);
  y << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
  cache_volume(y, in);
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "dshm";
  y << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "medium" << YAML::Value << "Memory";
  y << YAML::EndMap << YAML::EndMap;
  if (!in.command.extra_options_yaml.empty()) {
    y << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << "trtllm-options";
    y << YAML::Key << "configMap" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << trtllm_options_name(in.name);
    y << YAML::EndMap << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::EndMap; // pod spec
  y << YAML::EndMap;
}

void deployment(YAML::Emitter& y, const K8sInputs& in) {
  y << YAML::BeginMap;
  object_header(y, in, k8s::target_kind(in.plan));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "replicas" << YAML::Value << in.plan.initial_replicas;
  // Replace a pod before adding one: the default surge (25 %, at least one pod) asks for a whole
  // replica's GPUs more than the plan bought, and on a cluster of the planned size the rollout waits
  // on it forever (Kubernetes Deployment "Rolling Update Deployment"; LeaderWorkerSet rolls the same
  // way by default).
  y << YAML::Key << "strategy" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "type" << YAML::Value << "RollingUpdate";
  y << YAML::Key << "rollingUpdate" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "maxSurge" << YAML::Value << 0;
  y << YAML::Key << "maxUnavailable" << YAML::Value << 1;
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "selector" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << in.name;
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "template" << YAML::Value;
  pod_template(y, in, Role::single);
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

// One group of `size` pods per replica: the leader serves, the workers lend their GPUs to its Ray
// cluster. RecreateGroupOnPodRestart restarts the whole group when one pod fails (a Ray cluster
// does not survive losing a node).
void leader_worker_set(YAML::Emitter& y, const K8sInputs& in) {
  y << YAML::BeginMap;
  object_header(y, in, k8s::target_kind(in.plan));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "replicas" << YAML::Value << in.plan.initial_replicas;
  y << YAML::Key << "leaderWorkerTemplate" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "size" << YAML::Value << in.plan.nodes_per_replica;
  y << YAML::Key << "restartPolicy" << YAML::Value << "RecreateGroupOnPodRestart";
  y << YAML::Key << "leaderTemplate" << YAML::Value;
  pod_template(y, in, Role::leader);
  y << YAML::Key << "workerTemplate" << YAML::Value;
  pod_template(y, in, Role::worker);
  y << YAML::EndMap; // leaderWorkerTemplate
  y << YAML::EndMap; // spec
  y << YAML::EndMap;
}

} // namespace

namespace {

// 32-bit FNV-1a (Fowler–Noll–Vo, IETF draft-eastlake-fnv): a short, stable digest of a name.
std::string name_digest(const std::string& text) {
  std::uint32_t h = 2166136261U;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 16777619U;
  }
  return fmt::format("{:08x}", h);
}

// `kept` cut to `max_bytes` with "-<digest of the whole text>" when it is longer, then trimmed of
// characters a name or label value may not end with.
std::string fit(std::string kept, const std::string& text, std::size_t max_bytes, bool (*edge_ok)(char)) {
  if (kept.size() > max_bytes) {
    kept.resize(max_bytes - 9);
    while (!kept.empty() && !edge_ok(kept.back()))
      kept.pop_back();
    kept += "-" + name_digest(text);
  }
  while (!kept.empty() && !edge_ok(kept.back()))
    kept.pop_back();
  return kept;
}

bool alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

} // namespace

std::string k8s_name(const std::string& text, std::size_t max_bytes) {
  std::string out;
  for (char ch : text) {
    const char c = (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : ch;
    if (alphanumeric(c))
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  out = fit(out, text, max_bytes, alphanumeric);
  return out.empty() ? "rightsize" : out;
}

std::string k8s_label_value(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (alphanumeric(c) || ((c == '-' || c == '_' || c == '.') && !out.empty())) out += c;
  }
  out = fit(out, text, k_k8s_name_max, alphanumeric);
  return out.empty() ? "unknown" : out;
}

std::string trtllm_options_name(const std::string& name) {
  return k8s_name(name) + "-trtllm-options";
}

std::string model_cache_claim_name(const std::string& name) {
  return name + "-model-cache";
}

namespace {

// The cache's claim: ReadWriteMany, so every replica's pods on any node share one copy
// (Kubernetes "Persistent Volumes": access modes); sized from the checkpoint.
std::string model_cache_claim(const K8sInputs& in) {
  if (in.weights.cache != app::ModelCache::pvc) return "";
  YAML::Emitter y;
  y << YAML::BeginDoc << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << "v1";
  y << YAML::Key << "kind" << YAML::Value << "PersistentVolumeClaim";
  k8s::object_metadata(y, in, model_cache_claim_name(in.name));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "accessModes" << YAML::Value << YAML::Flow << YAML::BeginSeq << "ReadWriteMany"
    << YAML::EndSeq;
  if (!in.weights.storage_class.empty())
    y << YAML::Key << "storageClassName" << YAML::Value << in.weights.storage_class;
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "requests" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "storage" << YAML::Value << fmt::format("{}Gi", in.weights.cache_gib);
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::EndMap << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

} // namespace

std::string k8s_manifests(const K8sInputs& in) {
  std::string options = model_cache_claim(in);
  if (!in.command.extra_options_yaml.empty()) {
    // TensorRT-LLM's --extra_llm_api_options file, mounted read-only into the engine container.
    YAML::Emitter cm;
    cm << YAML::BeginDoc << YAML::BeginMap;
    cm << YAML::Key << "apiVersion" << YAML::Value << "v1";
    cm << YAML::Key << "kind" << YAML::Value << "ConfigMap";
    k8s::object_metadata(cm, in, trtllm_options_name(in.name));
    cm << YAML::Key << "data" << YAML::Value << YAML::BeginMap;
    cm << YAML::Key << k_trtllm_options_file << YAML::Value << YAML::Literal << in.command.extra_options_yaml;
    cm << YAML::EndMap << YAML::EndMap;
    options += std::string(cm.c_str()) + "\n";
  }
  YAML::Emitter workload;
  workload << YAML::BeginDoc;
  if (in.plan.nodes_per_replica > 1)
    leader_worker_set(workload, in);
  else
    deployment(workload, in);
  YAML::Emitter scaler;
  scaler << YAML::BeginDoc;
  if (in.autoscaler == Autoscaler::hpa)
    k8s::horizontal_pod_autoscaler(scaler, in);
  else
    k8s::keda_scaled_object(scaler, in);
  std::string scaler_text = scaler.c_str();
  if (in.autoscaler == Autoscaler::hpa) {
    // The HPA reads a custom metric: say which adapter rule serves it, as comments after "---".
    std::string comment = "# This HorizontalPodAutoscaler reads the per-pod custom metric " +
                          std::string(engine_metrics(in.engine).hpa_metric) +
                          " (custom.metrics.k8s.io).\n# Serve it with prometheus-adapter; add this "
                          "rule to its `rules` list (Helm chart: rules.custom):\n";
    const std::string rule = prometheus_adapter_rule(in.engine);
    std::size_t start = 0;
    while (start < rule.size()) {
      const std::size_t end = rule.find('\n', start);
      const std::string line = rule.substr(start, end == std::string::npos ? std::string::npos : end - start);
      comment += "#   " + line + "\n";
      if (end == std::string::npos) break;
      start = end + 1;
    }
    scaler_text.insert(scaler_text.find('\n') + 1, comment);
  }
  return options + std::string(workload.c_str()) + "\n" + scaler_text + "\n";
}

} // namespace rightsize::cli
