// The decisions of recommend --emit / check --emit (app/deploy_artifact.hpp, docs/deploy.md).
#include "app/deploy_artifact.hpp"

#include <cmath>

#include <fmt/format.h>

#include "rightsize/engine_profile.hpp"
#include "rightsize/error.hpp"
#include "rightsize/model.hpp"
#include "rightsize/precision.hpp"
#include "rightsize/text.hpp"
#include "rightsize/units.hpp"

namespace rightsize::app {
namespace {

// --emit's kind or --engine, both checked before the use case runs; "k8s" runs vLLM unless --engine says.
Engine parse_engine(const std::string& name) {
  return parse_engine_kind(name).value_or(EngineKind::vllm);
}

} // namespace

// The served model and the image reach a shell script, a YAML manifest and a PromQL query: they
// must be text (UTF-8, no control character or line separator), and a model path that starts with
// '-' would be read by the engine as an option (issue 41). Checked whether given or defaulted.
void check_artifact_text(const char* flag, const std::string& text, bool from_spec, const char* reader) {
  const char* where = from_spec ? " in the spec's model name, the default" : "";
  if (const std::size_t at = unsafe_text_at(text); at != std::string::npos) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("expected text without control characters or line separators, got {}{}",
                            describe_unsafe_text(text, at), where));
  }
  if (std::string_view(flag) != "--model-path") return;
  if (text.empty()) throw Error(ErrorKind::usage, flag, "", "expected a Hugging Face id or a path, got \"\"");
  if (text.front() == '-') {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("\"{}\"{} starts with '-', which {} would read as an option: give a path as ./{}",
                            text, where, reader, text));
  }
}

namespace {

// The engines serve language models (docs/deploy.md "Which server"): an image generator (dit) and
// an encoder of images (vit without a vocabulary) get no artifact; a text encoder (vit with a
// vocabulary, an embedding model) runs in vLLM's or SGLang's pooling mode, which trtllm-serve has
// not (issue 41 item 2).
void check_served_kind(const ModelSpec& model, Engine engine, const std::string& what) {
  if (model.kind == ModelKind::dit)
    throw Error(
        ErrorKind::usage, "--emit", "",
        fmt::format("the model of {} ({}) generates images, and vLLM, SGLang and TensorRT-LLM serve language "
                    "models: rightsize writes no image server; size it with recommend and serve it "
                    "with a diffusion server (diffusers, ComfyUI, a Triton pipeline)",
                    what, model.name));
  if (model.kind != ModelKind::vit) return;
  if (model.vocab_size <= 0)
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("the model of {} ({}) encodes images (an encoder without a vocabulary), which "
                            "the language model engines do not serve: rightsize writes no server for it",
                            what, model.name));
  if (engine == Engine::trtllm)
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("the model of {} ({}) is an encoder served for embeddings, and trtllm-serve "
                            "serves generation only: emit vllm or sglang (their pooling mode)",
                            what, model.name));
}

// The checkpoint's size and the cache's request (plan_weights).
WeightsPlan sized(WeightsPlan w, const ArtifactPlan& a, const PreparedModel& model, NumberFormat checkpoint) {
  const double served_bits = format_info(model.precision.weights).bits_per_weight;
  const double checkpoint_bits =
      a.plan.quantize_online ? format_info(checkpoint).bits_per_weight : served_bits;
  w.checkpoint_bytes = model.weight_bytes_total * checkpoint_bits / served_bits;
  w.cache_gib = static_cast<std::int64_t>(std::ceil(w.checkpoint_bytes * 1.1 / k_bytes_per_gib));
  return w;
}

// The weights plan of --emit k8s. The checkpoint's bytes are the served weights' at the checkpoint's
// own bits per weight (a bf16 checkpoint quantized while loading downloads its bf16 bytes); the
// cache asks 10 % more for tokenizer, configs and the safetensors index.
WeightsPlan plan_weights(const ArtifactRequest& o, const ArtifactPlan& a, const PreparedModel& model,
                         NumberFormat checkpoint) {
  WeightsPlan w;
  w.cache = o.model_cache == "host"   ? ModelCache::host
            : o.model_cache == "none" ? ModelCache::none
                                      : ModelCache::pvc;
  w.hf_token_secret = o.hf_token_secret;
  w.storage_class = o.storage_class;
  // A path (absolute, ./ or ../) is nothing to download. In a pod it must exist: a path under the
  // cache's mount is on the cache; with no cache it is in the image; any other absolute path is the
  // nodes' own, mounted read-only at the same place (the cache would hold nothing). A relative path
  // names no place a pod has.
  const std::string& m = a.model_path;
  const bool relative = m.rfind("./", 0) == 0 || m.rfind("../", 0) == 0;
  w.download = !(m.front() == '/' || relative);
  if (w.download || w.cache == ModelCache::none) return sized(w, a, model, checkpoint);
  if (relative)
    throw Error(ErrorKind::usage, "--model-path", "",
                fmt::format("\"{}\" is relative, and a pod has no working directory of yours: give an "
                            "absolute path on the nodes (mounted read-only), one under {}/ (the model "
                            "cache), or a Hugging Face id",
                            m, k_model_cache_dir));
  if (m.rfind(std::string(k_model_cache_dir) + "/", 0) != 0) {
    w.host_path = m;
    w.cache = ModelCache::none;
  }
  return sized(w, a, model, checkpoint);
}

} // namespace

void check_artifact_mode(const std::optional<ArtifactRequest>& request, const Spec& spec) {
  if (!request) return;
  const bool launch = request->kind == "torchrun";
  if (spec.mode == WorkloadMode::training && !launch)
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("{} serves an inference spec, and this spec trains: --emit torchrun writes its "
                            "launch",
                            request->kind));
  if (spec.mode != WorkloadMode::training && launch)
    throw Error(
        ErrorKind::usage, "--emit", "",
        "torchrun launches a training spec, and this spec serves: --emit vllm, sglang, trtllm or k8s");
}

namespace {

// A separate drafter (EAGLE-3 head, draft model) needs its checkpoint, and the pinned vLLM line runs
// no draft model.
void check_drafter(const ArtifactPlan& a) {
  // EAGLE-3 serves a separate draft head: the engines need its checkpoint (docs/deploy.md).
  const Speculative& sp = a.plan.speculative;
  const bool separate_drafter =
      sp.method == SpeculativeMethod::eagle3 || sp.method == SpeculativeMethod::draft_model;
  if (separate_drafter && sp.draft_path.empty()) {
    throw Error(
        ErrorKind::usage, "--emit", "",
        fmt::format("the spec's workload.speculative has {} and no draft_path: the engines load the drafter "
                    "from it; add its Hugging Face id or path to workload.speculative.draft_path",
                    sp.method == SpeculativeMethod::eagle3 ? "an EAGLE-3 head"
                                                           : "a draft model without an hf_id"));
  }
  if (separate_drafter) check_artifact_text("workload.speculative.draft_path", sp.draft_path, false);
  // vLLM's V1 engine of the pinned v0.11 line refuses a separate draft model at startup
  // (engine/arg_utils.py _is_v1_supported_oracle); later releases run it (docs/deploy.md).
  if (sp.method == SpeculativeMethod::draft_model && a.engine == Engine::vllm) {
    throw Error(ErrorKind::usage, "--emit", "",
                "vLLM v0.11 does not run a separate draft model (its V1 engine refuses one at startup); "
                "emit sglang or trtllm, or draft with eagle3 or ngram");
  }
}

// The manifests' weights volume, image and the layouts they cannot run.
void plan_k8s(const ArtifactRequest& o, const Gpu& gpu, const PreparedModel& model, NumberFormat checkpoint,
              const EngineConfig& engine, ArtifactPlan& a) {
  a.weights = plan_weights(o, a, model, checkpoint);
  if (a.engine == Engine::trtllm && a.plan.nodes_per_replica > 1)
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("{} needs {} nodes per replica, and a multi-node TensorRT-LLM replica runs as "
                            "one MPI world (trtllm-serve under mpirun or srun with trtllm-llmapi-launch), "
                            "which rightsize does not write as a LeaderWorkerSet; --emit trtllm writes the "
                            "launch command, or --engine vllm|sglang the manifests",
                            a.what, a.plan.nodes_per_replica));
  // The engine's release image for the GPU's vendor (data/engines.json "images"), unless --image.
  const std::string& pinned = gpu.vendor == "amd" ? engine.image_amd : engine.image_nvidia;
  if (o.image.empty() && pinned.empty())
    throw Error(ErrorKind::usage, "--image", "",
                fmt::format("{} is an {} GPU ({}) and data/engines.json names no {} image for it "
                            "(docs/deploy.md \"Container images\"); give one with --image",
                            gpu.id, gpu.vendor == "amd" ? "AMD" : "NVIDIA", a.what, to_string(a.engine)));
  a.image = o.image.empty() ? pinned : o.image;
  a.image_unpinned = !pinned_image_reference(a.image);
  a.pod_cpu_cores_per_gpu = engine.pod_cpu_cores_per_gpu;
  a.pod_memory_bytes_per_gpu = engine.pod_memory_bytes_per_gpu;
}

// A name an engine could load: a Hugging Face repository id (letters, digits, '-', '_', '.', one
// optional "owner/") or a path; a fitted model's description ("fitted to 13,000,000,000
// parameters") is neither.
bool loadable_name(const std::string& name) {
  for (const char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                    ch == '-' || ch == '_' || ch == '.' || ch == '/';
    if (!ok) return false;
  }
  return !name.empty();
}

// Online quantization loads each GPU's whole shard at the checkpoint's precision before quantizing
// it (vLLM docs "FP8 W8A8", online dynamic quantization: "we load the model at original precision
// before quantizing down to 8-bits"; vLLM and SGLang quantization/fp8.py create_weights keep the
// model dtype for a checkpoint not serialized in FP8): that shard, with the runtime, must fit the GPU.
void check_online_load(const ArtifactPlan& a, const PreparedModel& model, const Gpu& gpu, const Candidate& c,
                       NumberFormat checkpoint) {
  ModelSpec counted = model.model; // from the parameters: the checkpoint's own bytes are not known here
  counted.checkpoint_weight_bytes = 0;
  Precision loaded = model.precision;
  loaded.weights = checkpoint;
  const double served_bytes = weight_bytes(counted, model.precision);
  if (served_bytes <= 0.0) return;
  const MemoryEstimate& m = c.estimate.memory;
  const double load_bytes = m.weights_bytes * weight_bytes(counted, loaded) / served_bytes + m.overhead_bytes;
  if (load_bytes <= m.capacity_per_gpu_bytes) return;
  throw Error(ErrorKind::usage, "--model-path", "",
              fmt::format("{} quantizes the preset's {} checkpoint {} to {} while loading, and loading holds "
                          "{:.1f} GB per GPU ({} weights and the runtime) against the {}'s {:.1f} GB: give "
                          "--model-path of a checkpoint quantized to {}",
                          a.what, format_info(checkpoint).name, a.model_path,
                          format_info(a.plan.weights).name, load_bytes / 1e9, format_info(checkpoint).name,
                          gpu.id, m.capacity_per_gpu_bytes / 1e9, format_info(a.plan.weights).name));
}

} // namespace

ArtifactPlan plan_artifact(const ArtifactRequest& o, const Spec& spec, const SearchInputs& in,
                           const Candidate& c, const SearchPolicy& policy, PricingModel pricing,
                           const EngineProfiles& engines, int rank) {
  ArtifactPlan a;
  a.rank = rank;
  a.what = rank > 0 ? fmt::format("rank {}", rank) : "the checked deployment";
  const PreparedModel& model = in.models[c.precision_index];
  const Gpu& gpu = in.gpus[c.gpu_index];
  a.gpu_id = gpu.id;
  a.gpu_vendor = gpu.vendor;
  // The capacity plan `recommend` prints for its winner, then the engine and autoscaler settings.
  a.plan = plan_candidate_deployment(c, model, gpu, spec.inference, spec.sla, policy, pricing);
  // Online quantization only from a higher-precision checkpoint (unknown: read as bf16) and only to a
  // format the engines produce while loading (FP8, bitsandbytes NF4); AWQ, GPTQ and the other packed
  // formats need a checkpoint prepared in them, whose quantization_config a --quantization flag of
  // another method contradicts (issue 41 item 1).
  // TensorRT-LLM quantizes offline (ModelOpt) and serves the checkpoint it is given: no online path.
  a.k8s = o.kind == "k8s";
  a.engine = a.k8s ? parse_engine(o.engine) : parse_engine(o.kind);
  const NumberFormat checkpoint = spec.checkpoint_weights.value_or(NumberFormat::bf16);
  const bool online_format = a.plan.weights == NumberFormat::fp8 || a.plan.weights == NumberFormat::nf4;
  a.plan.quantize_online = checkpoint != a.plan.weights && full_precision(checkpoint) && online_format &&
                           a.engine != Engine::trtllm;
  const bool needs_prepared_checkpoint =
      checkpoint != a.plan.weights && !full_precision(a.plan.weights) && !a.plan.quantize_online;
  if (a.engine == Engine::trtllm && gpu.vendor != "nvidia") {
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("TensorRT-LLM runs on NVIDIA GPUs only and {} is {} ({}); {}", a.what, gpu.id,
                            gpu.vendor,
                            rank > 0 ? "choose NVIDIA GPUs with --gpu or another --rank"
                            : a.k8s  ? "use --engine vllm or sglang for it"
                                     : "emit vllm or sglang for it"));
  }
  check_served_kind(model.model, a.engine, a.what);
  check_drafter(a);
  // The engine loads a Hugging Face id or a path: a preset serves its checkpoint's repository
  // (data/models/<id>.json "hf_id"), anything else its model name, which --model-path should replace.
  a.model_path_defaulted = o.model_path.empty();
  a.model_path_is_hf_id = a.model_path_defaulted && !model.model.hf_id.empty();
  a.model_path = !o.model_path.empty()   ? o.model_path
                 : a.model_path_is_hf_id ? model.model.hf_id
                                         : model.model.name;
  check_artifact_text("--model-path", a.model_path, a.model_path_defaulted && !a.model_path_is_hf_id);
  if (a.model_path_defaulted && !a.model_path_is_hf_id && !loadable_name(a.model_path))
    throw Error(ErrorKind::usage, "--model-path", "",
                fmt::format("the spec's model name \"{}\" is neither a Hugging Face id nor a path, and the "
                            "engine would load it as one: give --model-path of the checkpoint to serve",
                            a.model_path));
  if (!o.image.empty()) check_artifact_text("--image", o.image, false);
  // The preset's repository holds its own format: served in another one the engine cannot quantize
  // to while loading (AWQ, GPTQ, or below what the checkpoint is), it would load the wrong weights.
  if (a.model_path_is_hf_id && needs_prepared_checkpoint) {
    throw Error(ErrorKind::usage, "--model-path", "",
                fmt::format("{} serves {} weights and the preset's checkpoint {} is {}{}: give --model-path "
                            "of a checkpoint quantized to {}",
                            a.what, format_info(a.plan.weights).name, a.model_path,
                            format_info(checkpoint).name,
                            online_format && a.engine == Engine::trtllm
                                ? ", which TensorRT-LLM serves as it is (it quantizes offline, with ModelOpt)"
                                : "",
                            format_info(a.plan.weights).name));
  }
  if (a.model_path_is_hf_id && a.plan.quantize_online) check_online_load(a, model, gpu, c, checkpoint);
  a.autoscaler = o.autoscaler == "hpa" ? Autoscaler::hpa : Autoscaler::keda;
  if (!a.k8s) return a;
  plan_k8s(o, gpu, model, checkpoint, engines.of(a.engine), a);
  return a;
}

std::optional<ArtifactPlan> plan_recommended_artifact(const ArtifactRequest& o, const Spec& spec,
                                                      const SearchInputs& in, const Recommendation& r,
                                                      const SearchPolicy& policy, PricingModel pricing,
                                                      const EngineProfiles& engines) {
  if (r.candidates.empty()) return std::nullopt;
  if (static_cast<std::size_t>(o.rank) > r.candidates.size())
    throw Error(ErrorKind::usage, "--rank", "",
                fmt::format("only {} candidate{} meet the requirements, got rank {}", r.candidates.size(),
                            r.candidates.size() == 1 ? "" : "s", o.rank));
  return plan_artifact(o, spec, in, r.candidates[static_cast<std::size_t>(o.rank) - 1], policy, pricing,
                       engines, o.rank);
}

} // namespace rightsize::app
