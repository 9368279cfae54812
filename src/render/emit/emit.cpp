// recommend --emit: candidate -> capacity plan -> deploy plan -> command / manifests (docs/deploy.md).
#include "render/emit/emit.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/diagnostics.hpp"
#include "cli/output_file.hpp"
#include "render/emit/engine_command.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "rightsize/deploy.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

constexpr const char* k_kinds = "vllm, sglang, trtllm or k8s";

void write_file_or_stdout(const EmitOptions& o, const std::string& file_name, const std::string& text) {
  if (o.out_dir.empty()) {
    fmt::print("{}", text);
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec)
    throw Error(ErrorKind::usage, "--out", "",
                fmt::format("cannot create directory \"{}\": {}", o.out_dir, ec.message()));
  const std::string path = (std::filesystem::path(o.out_dir) / file_name).string();
  check_output_path("--out", path);
  write_file_atomically("--out", path, text);
  fmt::print("wrote {}\n", path);
}

} // namespace

void add_emit_options(CLI::App* command, EmitOptions& o, bool with_rank) {
  command->add_option("--emit", o.kind,
                      with_rank ? "write a deployment artifact instead of the table: vllm, sglang, "
                                  "trtllm (launch command) or k8s (Deployment + KEDA ScaledObject)"
                                : "write the checked deployment's artifact instead of the verdict: vllm, "
                                  "sglang, trtllm (launch command) or k8s (Deployment + autoscaler)");
  command->add_option("--out", o.out_dir, "with --emit: write the artifact into this directory");
  if (with_rank)
    command->add_option("--rank", o.rank, "with --emit: the candidate of this rank (default 1, the winner)");
  command->add_option("--model-path", o.model_path,
                      "with --emit: Hugging Face id or path to serve (default: the spec's model name)");
  command->add_option("--image", o.image,
                      "with --emit k8s: engine container image (default: vllm/vllm-openai:latest, "
                      "rocm/vllm:latest on AMD GPUs; lmsysorg/sglang:latest; "
                      "nvcr.io/nvidia/tensorrt-llm/release:latest)");
  command->add_option("--prometheus", o.prometheus_url, "with --emit k8s: Prometheus URL for KEDA")
      ->default_str("http://prometheus-operated.monitoring.svc:9090");
  command
      ->add_option("--autoscaler", o.autoscaler,
                   "with --emit k8s: keda (ScaledObject, default) or hpa (autoscaling/v2 "
                   "HorizontalPodAutoscaler on a prometheus-adapter metric)")
      ->default_str("keda");
}

void check_emit_options(const EmitOptions& o, const Spec& spec) {
  if (!o.kind.empty() && o.kind != "vllm" && o.kind != "sglang" && o.kind != "trtllm" && o.kind != "k8s")
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("unknown artifact \"{}\" (expected {})", o.kind, k_kinds));
  if (o.kind.empty()) {
    // The --emit companions do nothing on their own; say so rather than ignore them.
    const char* lone = !o.out_dir.empty()       ? "--out"
                       : o.rank != 1            ? "--rank"
                       : !o.model_path.empty()  ? "--model-path"
                       : !o.image.empty()       ? "--image"
                       : o.autoscaler != "keda" ? "--autoscaler"
                                                : nullptr;
    if (lone != nullptr) throw Error(ErrorKind::usage, lone, "", "needs --emit KIND");
  }
  if (o.autoscaler != "keda" && o.autoscaler != "hpa")
    throw Error(ErrorKind::usage, "--autoscaler", "",
                fmt::format("unknown autoscaler \"{}\" (expected keda or hpa)", o.autoscaler));
  if (o.autoscaler != "keda" && !o.kind.empty() && o.kind != "k8s")
    throw Error(ErrorKind::usage, "--autoscaler", "", "works with --emit k8s only");
  if (!o.kind.empty() && spec.mode == WorkloadMode::training)
    throw Error(ErrorKind::usage, "--emit", "", "works for inference specs only; this spec trains");
  if (o.rank < 1)
    throw Error(ErrorKind::usage, "--rank", "", fmt::format("expected 1 or more, got {}", o.rank));
}

EngineOptions emit_engine_options(const EmitOptions& o, const EngineOptions& engine, const Spec& spec) {
  if (o.kind != "vllm" && o.kind != "sglang" && o.kind != "trtllm") return engine;
  // A bad --engine value is engine_config's usage error, raised where it is read.
  if (!engine.engine.empty() && !parse_engine_kind(engine.engine)) return engine;
  EngineOptions out = engine;
  if (engine.engine.empty() && !spec.engine) {
    out.engine = o.kind;
    return out;
  }
  const std::string assumed = engine_name(engine, spec.engine);
  if (assumed != o.kind) {
    throw Error(
        ErrorKind::usage, "--emit", "",
        fmt::format("writes a {} launch script, but the estimate assumes {} ({}); give --engine {} so "
                    "the script's batch and KV sizes come from the engine it launches",
                    o.kind, assumed, engine.engine.empty() ? "workload.engine" : "--engine", o.kind));
  }
  return out;
}

void write_artifact(const EmitOptions& o, const Spec& spec, const app::ArtifactPlan& a) {
  const DeployPlan& plan = a.plan;
  if (a.model_path_defaulted)
    note("--model-path not given; serving \"{}\" (the spec's model name): set it to the Hugging Face id "
         "or local path",
         a.model_path);
  std::string header = fmt::format(
      "# rightsize: {} on {} × {} (TP{} PP{}{}{}), {}; {} replica{} at average load, {}–{} autoscaled\n",
      spec.name, plan.gpus_per_replica, a.gpu_id, plan.tensor_parallel, plan.pipeline_parallel,
      plan.expert_parallel > 1 ? fmt::format(" EP{}", plan.expert_parallel) : std::string(),
      plan.attention_dp > 1 ? fmt::format(" attention-DP{}", plan.attention_dp) : std::string(), a.what,
      plan.initial_replicas, plan.initial_replicas == 1 ? "" : "s", plan.min_replicas, plan.max_replicas);
  const std::string base = k8s_name(spec.name);
  if (a.k8s) {
    K8sInputs k;
    k.name = base;
    k.gpu_id = a.gpu_id;
    k.gpu_vendor = a.gpu_vendor;
    k.engine = a.engine;
    k.image = a.image;
    k.prometheus_url = o.prometheus_url;
    k.model_name = a.model_path;
    k.command = engine_command(a.engine, plan, a.model_path, Target::pod);
    k.plan = plan;
    k.autoscaler = a.autoscaler;
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
    if (k.autoscaler == Autoscaler::hpa && plan.min_replicas == 0)
      header += "# note: the capacity plan scales to zero; an HPA keeps one replica (minReplicas 0 needs the "
                "alpha HPAScaleToZero gate): --autoscaler keda scales to zero\n";
    write_file_or_stdout(o, base + ".k8s.yaml", header + k8s_manifests(k));
    return;
  }
  const EngineCommand command = engine_command(a.engine, plan, a.model_path);
  write_file_or_stdout(o, base + "." + o.kind + ".sh", shell_script(command, header));
}

} // namespace rightsize::cli
