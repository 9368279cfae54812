// recommend --emit and check --emit: the planned artifact -> command / manifests (docs/deploy.md).
#include "render/emit/emit.hpp"

#include <fmt/format.h>

#include "render/emit/engine_command.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "rightsize/deploy.hpp"
#include "rightsize/text.hpp"

namespace rightsize::cli {
namespace {

// What the manifests need from the cluster for the weights (docs/deploy.md "Weights").
std::string weights_notes(const app::ArtifactPlan& a) {
  const app::WeightsPlan& w = a.weights;
  std::string out;
  if (!w.host_path.empty())
    return fmt::format("# needs: the {:.1f} GB checkpoint at {} on every GPU node: mounted read-only from "
                       "the node (hostPath); nothing downloads it\n",
                       w.checkpoint_bytes / 1e9, w.host_path);
  if (!w.download && w.cache == app::ModelCache::none)
    return fmt::format("# needs: the {:.1f} GB checkpoint at {} inside the image (--model-cache none mounts "
                       "nothing); nothing downloads it\n",
                       w.checkpoint_bytes / 1e9, a.model_path);
  if (!w.download)
    return fmt::format("# needs: the {:.1f} GB checkpoint copied to {} on the model cache ({}) before the "
                       "first start; nothing downloads a path\n",
                       w.checkpoint_bytes / 1e9, a.model_path,
                       w.cache == app::ModelCache::pvc ? "the PersistentVolumeClaim"
                                                       : "each node's hostPath");
  if (w.download)
    out += fmt::format(
        "# needs: for a gated repository, a Secret {} with the Hugging Face token: kubectl create "
        "secret generic {} --from-literal=token=hf_...\n",
        w.hf_token_secret, w.hf_token_secret);
  if (w.cache == app::ModelCache::pvc)
    out += fmt::format(
        "# needs: a ReadWriteMany StorageClass ({}) for the {} GiB model cache; an init container "
        "downloads the {:.1f} GB checkpoint into it once\n",
        w.storage_class.empty() ? "the cluster's default" : w.storage_class, w.cache_gib,
        w.checkpoint_bytes / 1e9);
  else if (w.cache == app::ModelCache::host)
    out += fmt::format(
        "# note: the model cache is a hostPath on each node: an init container downloads the {:.1f} "
        "GB checkpoint once per node (the pod security policy must allow hostPath)\n",
        w.checkpoint_bytes / 1e9);
  else if (w.download)
    out += fmt::format(
        "# note: no model cache: every start downloads the {:.1f} GB checkpoint, which the startup "
        "probe does not allow for (give --model-cache pvc or host)\n",
        w.checkpoint_bytes / 1e9);
  return out;
}

} // namespace

EmittedArtifact render_artifact(const EmitFormat& o, const Spec& spec, const app::ArtifactPlan& a,
                                app::Diagnostics& diagnostics) {
  const DeployPlan& plan = a.plan;
  if (a.model_path_is_hf_id)
    diagnostics.note(fmt::format("--model-path not given; serving \"{}\" (the preset's Hugging Face "
                                 "checkpoint): give --model-path for a local copy or another checkpoint of "
                                 "the same architecture",
                                 a.model_path));
  else if (a.model_path_defaulted)
    diagnostics.note(fmt::format("--model-path not given; serving \"{}\" (the spec's model name): set it to "
                                 "the Hugging Face id or local path",
                                 a.model_path));
  if (a.image_unpinned)
    diagnostics.warn(fmt::format("--image {} names no release (no tag, or :latest): each pod runs whatever "
                                 "the registry serves when it pulls, which the flags were not checked "
                                 "against; give name:tag or name@sha256:digest",
                                 a.image));
  std::string header = fmt::format(
      "# rightsize: {} on {} × {} (TP{} PP{}{}{}), {}; {} replica{} at average load, {}–{} autoscaled\n",
      safe_text(spec.name), plan.gpus_per_replica, a.gpu_id, plan.tensor_parallel, plan.pipeline_parallel,
      plan.expert_parallel > 1 ? fmt::format(" EP{}", plan.expert_parallel) : std::string(),
      plan.attention_dp > 1 ? fmt::format(" attention-DP{}", plan.attention_dp) : std::string(), a.what,
      plan.initial_replicas, plan.initial_replicas == 1 ? "" : "s",
      a.k8s ? kept_min_replicas(plan) : plan.min_replicas, plan.max_replicas);
  // The header is a comment: the name in it as printable text (the spec reader refuses line breaks;
  // this keeps a comment one line whatever reaches it).
  const std::string base =
      k8s_name(spec.name, a.k8s && plan.nodes_per_replica > 1 ? k_lws_name_max : k_k8s_name_max);
  if (a.k8s) {
    K8sInputs k;
    k.name = base;
    k.gpu_id = a.gpu_id;
    k.gpu_vendor = a.gpu_vendor;
    k.engine = a.engine;
    k.image = a.image;
    k.cpu_cores_per_gpu = a.pod_cpu_cores_per_gpu;
    k.memory_bytes_per_gpu = a.pod_memory_bytes_per_gpu;
    k.prometheus_url = o.prometheus_url;
    k.namespace_name = o.namespace_name;
    k.model_name = a.model_path;
    k.command = engine_command(a.engine, plan, a.model_path, Target::pod);
    k.plan = plan;
    k.autoscaler = a.autoscaler;
    k.weights = a.weights;
    header += weights_notes(a);
    if (const std::string note = in_flight_note(plan); !note.empty()) header += "# note: " + note + "\n";
    if (plan.nodes_per_replica > 1)
      header += fmt::format(
          "# note: one replica spans {} nodes ({} GPUs on the leader, {} on each worker): a LeaderWorkerSet "
          "(needs the LWS controller{}\n",
          plan.nodes_per_replica, plan.gpus_per_leader_pod, plan.gpus_per_worker_pod,
          a.engine == Engine::sglang
              ? ", 0.6.0 or later for LWS_WORKER_INDEX); every pod runs the same launch_server with "
                "--node-rank $(LWS_WORKER_INDEX), the leader (rank 0) serves HTTP"
              : "); the pods run vLLM's examples/online_serving/multi-node-serving.sh from /vllm-workspace, "
                "as the vllm/vllm-openai image ships it");
    if (const std::string label = k8s_label_value(a.gpu_id); label != a.gpu_id)
      header += fmt::format("# note: the catalog id is no valid label value: nodes are selected by "
                            "rightsize.io/gpu={}\n",
                            label);
    if (plan.scale_down_window_s > k_hpa_window_max_s)
      header +=
          fmt::format("# note: the scale-down window is the {} s cold start, cut to the API's maximum of "
                      "{} s: a replica dropped may take longer than that to come back\n",
                      plan.scale_down_window_s, k_hpa_window_max_s);
    if (a.autoscaler == Autoscaler::keda && o.namespace_name.empty())
      header += "# note: KEDA's query counts every pod Prometheus scrapes that serves this model name, in "
                "any namespace: with --namespace the objects name theirs and the query counts only its "
                "pods\n";
    if (plan.min_replicas == 0)
      header += "# note: the capacity plan scales to zero, but the autoscaler reads the engine's own gauges, "
                "which vanish with its last pod, so nothing would scale it back up: one replica is kept "
                "(scaling to zero needs a request signal in front of the pods, such as the KEDA HTTP "
                "add-on)\n";
    return {base + ".k8s.yaml", header + k8s_manifests(k)};
  }
  const EngineCommand command = engine_command(a.engine, plan, a.model_path);
  return {base + "." + o.kind + ".sh", shell_script(command, header)};
}

} // namespace rightsize::cli
