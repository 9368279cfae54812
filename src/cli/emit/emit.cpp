// recommend --emit: candidate -> capacity plan -> deploy plan -> command / manifests (docs/deploy.md).
#include "emit/emit.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "diagnostics.hpp"
#include "emit/engine_command.hpp"
#include "emit/k8s_manifest.hpp"
#include "output_file.hpp"
#include "rightsize/deploy.hpp"
#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/exit_codes.hpp"

namespace rightsize::cli {
namespace {

constexpr const char* k_kinds = "vllm, sglang, trtllm or k8s";

void write_artifact(const EmitOptions& o, const std::string& file_name, const std::string& text) {
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

Engine parse_engine(const std::string& name) {
  return name == "sglang" ? Engine::sglang : name == "trtllm" ? Engine::trtllm : Engine::vllm;
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

int emit_artifact(const EmitOptions& o, const Spec& spec, const SearchInputs& in, const Recommendation& r,
                  const SearchPolicy& policy, PricingModel pricing) {
  if (r.candidates.empty()) {
    note("nothing meets the requirements; no {} artifact written", o.kind);
    return static_cast<int>(ExitCode::not_met);
  }
  if (static_cast<std::size_t>(o.rank) > r.candidates.size())
    throw Error(ErrorKind::usage, "--rank", "",
                fmt::format("only {} candidate{} meet the requirements, got rank {}", r.candidates.size(),
                            r.candidates.size() == 1 ? "" : "s", o.rank));
  const Candidate& c = r.candidates[static_cast<std::size_t>(o.rank) - 1];
  emit_candidate(o, spec, in, c, policy, pricing, o.rank);
  return 0;
}

void emit_candidate(const EmitOptions& o, const Spec& spec, const SearchInputs& in, const Candidate& c,
                    const SearchPolicy& policy, PricingModel pricing, int rank) {
  const std::string what = rank > 0 ? fmt::format("rank {}", rank) : "the checked deployment";
  const PreparedModel& model = in.models[c.precision_index];
  const Gpu& gpu = in.gpus[c.gpu_index];
  // The capacity plan `recommend` prints for its winner, then the engine and autoscaler settings.
  const DeployPlan plan = plan_candidate_deployment(c, model, gpu, spec.inference, spec.sla, policy, pricing);
  const Engine engine = o.kind == "k8s"      ? parse_engine(o.engine)
                        : o.kind == "vllm"   ? Engine::vllm
                        : o.kind == "sglang" ? Engine::sglang
                                             : Engine::trtllm;
  if (engine == Engine::trtllm && gpu.vendor != "nvidia") {
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("TensorRT-LLM runs on NVIDIA GPUs only and {} is {} ({}); {}", what, gpu.id,
                            gpu.vendor,
                            rank > 0          ? "choose NVIDIA GPUs with --gpu or another --rank"
                            : o.kind == "k8s" ? "use --engine vllm or sglang for it"
                                              : "emit vllm or sglang for it"));
  }
  const std::string model_path = o.model_path.empty() ? model.model.name : o.model_path;
  if (o.model_path.empty())
    note("--model-path not given; serving \"{}\" (the spec's model name): set it to the Hugging Face id "
         "or local path",
         model_path);
  std::string header = fmt::format(
      "# rightsize: {} on {} × {} (TP{} PP{}{}{}), {}; {} replica{} at average load, {}–{} autoscaled\n",
      spec.name, plan.gpus_per_replica, gpu.id, plan.tensor_parallel, plan.pipeline_parallel,
      plan.expert_parallel > 1 ? fmt::format(" EP{}", plan.expert_parallel) : std::string(),
      plan.attention_dp > 1 ? fmt::format(" attention-DP{}", plan.attention_dp) : std::string(), what,
      plan.initial_replicas, plan.initial_replicas == 1 ? "" : "s", plan.min_replicas, plan.max_replicas);
  const std::string base = k8s_name(spec.name);
  if (o.kind == "k8s") {
    if (engine == Engine::trtllm && plan.nodes_per_replica > 1)
      throw Error(ErrorKind::usage, "--emit", "",
                  fmt::format("{} needs {} nodes per replica, and a multi-node TensorRT-LLM replica runs as "
                              "one MPI world (trtllm-serve under mpirun or srun with trtllm-llmapi-launch), "
                              "which rightsize does not write as a LeaderWorkerSet; --emit trtllm writes the "
                              "launch command, or --engine vllm|sglang the manifests",
                              what, plan.nodes_per_replica));
    if (engine == Engine::sglang && gpu.vendor == "amd" && o.image.empty())
      throw Error(ErrorKind::usage, "--image", "",
                  fmt::format("{} is an AMD GPU ({}): SGLang's ROCm images are tagged per release; give "
                              "one with --image",
                              gpu.id, what));
    K8sInputs k;
    k.name = base;
    k.gpu_id = gpu.id;
    k.gpu_vendor = gpu.vendor;
    k.engine = engine;
    k.image = !o.image.empty()           ? o.image
              : engine == Engine::sglang ? "lmsysorg/sglang:latest"
              : engine == Engine::trtllm ? "nvcr.io/nvidia/tensorrt-llm/release:latest"
              : gpu.vendor == "amd"      ? "rocm/vllm:latest"
                                         : "vllm/vllm-openai:latest";
    k.prometheus_url = o.prometheus_url;
    k.model_name = model_path;
    k.command = engine_command(engine, plan, model_path, Target::pod);
    k.plan = plan;
    k.autoscaler = o.autoscaler == "hpa" ? Autoscaler::hpa : Autoscaler::keda;
    if (plan.nodes_per_replica > 1)
      header += fmt::format(
          "# note: one replica spans {} nodes ({} GPUs on the leader, {} on each worker): a LeaderWorkerSet "
          "(needs the LWS controller{}\n",
          plan.nodes_per_replica, plan.gpus_per_leader_pod, plan.gpus_per_worker_pod,
          engine == Engine::sglang
              ? ", 0.6.0 or later for LWS_WORKER_INDEX); every pod runs the same launch_server with "
                "--node-rank $(LWS_WORKER_INDEX), the leader (rank 0) serves HTTP"
              : "); the pods run vLLM's examples/online_serving/multi-node-serving.sh from /vllm-workspace, "
                "as the vllm/vllm-openai image ships it");
    if (k.autoscaler == Autoscaler::hpa && plan.min_replicas == 0)
      header += "# note: the capacity plan scales to zero; an HPA keeps one replica (minReplicas 0 needs the "
                "alpha HPAScaleToZero gate): --autoscaler keda scales to zero\n";
    write_artifact(o, base + ".k8s.yaml", header + k8s_manifests(k));
    return;
  }
  const EngineCommand command = engine_command(engine, plan, model_path);
  write_artifact(o, base + "." + o.kind + ".sh", shell_script(command, header));
}

} // namespace rightsize::cli
