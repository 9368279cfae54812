#include "cli/emit_flags.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli/output_file.hpp"
#include "render/emit/k8s_manifest.hpp"
#include "rightsize/error.hpp"

namespace rightsize::cli {
namespace {

constexpr const char* k_kinds = "vllm, sglang, trtllm, k8s or torchrun";

// KEDA's serverAddress: http(s)://host[:port][/path], no spaces, quotes or control characters (the
// value lands in YAML and in KEDA's HTTP client; "not a url" was written as given; issue 42).
bool is_prometheus_url(const std::string& url) {
  const std::size_t scheme = url.rfind("http://", 0) == 0 ? 7 : url.rfind("https://", 0) == 0 ? 8 : 0;
  if (scheme == 0 || url.size() == scheme || url[scheme] == '/' || url[scheme] == ':') return false;
  return std::all_of(url.begin(), url.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != '"' && c != '\'' && c != '\\' && c != '<' && c != '>' && c != '`';
  });
}

// A Kubernetes object name (RFC 1123 subdomain: lower-case letters, digits, '-' and '.', a letter or
// digit at both ends, at most 253 characters), for the Secret and StorageClass the manifests name.
bool is_k8s_object_name(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  const auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return alnum(name.front()) && alnum(name.back()) &&
         std::all_of(name.begin(), name.end(), [&](char c) { return alnum(c) || c == '-' || c == '.'; });
}

// A namespace name: an RFC 1123 label (lower-case letters, digits and '-', a letter or digit at both
// ends, at most 63 characters; Kubernetes "Namespaces", "Object Names and IDs").
bool is_k8s_label_name(const std::string& name) {
  return name.size() <= k_k8s_name_max && is_k8s_object_name(name) && name.find('.') == std::string::npos;
}

// The weights flags: their values, and that they go with --emit k8s.
void check_weights_flags(const EmitOptions& o) {
  if (o.model_cache != "pvc" && o.model_cache != "host" && o.model_cache != "none")
    throw Error(ErrorKind::usage, "--model-cache", "",
                fmt::format("unknown model cache \"{}\" (expected pvc, host or none)", o.model_cache));
  if (!is_k8s_object_name(o.hf_token_secret))
    throw Error(
        ErrorKind::usage, "--hf-token-secret", "",
        fmt::format("expected a Kubernetes Secret name (lower-case letters, digits, '-' and '.'), got "
                    "\"{}\"",
                    o.hf_token_secret));
  if (o.storage_class_given && !is_k8s_object_name(o.storage_class))
    throw Error(
        ErrorKind::usage, "--storage-class", "",
        fmt::format("expected a StorageClass name (lower-case letters, digits, '-' and '.'), got \"{}\"",
                    o.storage_class));
  if (o.storage_class_given && o.model_cache != "pvc")
    throw Error(ErrorKind::usage, "--storage-class", "", "works with --model-cache pvc only");
}

// The companions that only a manifest uses, given with a launch-script --emit.
void check_k8s_only(const EmitOptions& o) {
  if (o.kind.empty() || o.kind == "k8s") return;
  const char* flag = !o.image.empty()     ? "--image"
                     : o.prometheus_given ? "--prometheus"
                     : o.namespace_given  ? "--namespace"
                                          : o.weights_flag_given();
  if (flag != nullptr) {
    throw Error(ErrorKind::usage, flag, "",
                fmt::format("works with --emit k8s only (--emit {} writes a launch command, which names no "
                            "{})",
                            o.kind,
                            !o.image.empty()     ? "container image"
                            : o.prometheus_given ? "Prometheus"
                            : o.namespace_given  ? "namespace"
                                                 : "pod or volume"));
  }
}

} // namespace

void add_emit_options(CLI::App* command, EmitOptions& o, bool with_rank) {
  command->add_option("--emit", o.kind,
                      with_rank ? "write a deployment artifact instead of the table: vllm, sglang, "
                                  "trtllm (launch command), k8s (Deployment + KEDA ScaledObject) or, for a "
                                  "training spec, torchrun (Megatron-LM launch script)"
                                : "write the checked deployment's artifact instead of the verdict: vllm, "
                                  "sglang, trtllm (launch command) or k8s (Deployment + autoscaler)");
  command->add_option("--out", o.out_dir, "with --emit: write the artifact into this directory")
      ->each([&o](const std::string&) { o.out_given = true; });
  if (with_rank)
    command->add_option("--rank", o.rank, "with --emit: the candidate of this rank (default 1, the winner)");
  command->add_option("--model-path", o.model_path,
                      "with --emit: Hugging Face id or path to serve (default: the preset's Hugging Face id, "
                      "else the spec's model name)");
  command->add_option("--image", o.image,
                      "with --emit k8s: engine container image (default: the engine's release image "
                      "for the GPU's vendor, pinned in data/engines.json; SGLang on AMD GPUs needs one)");
  command->add_option("--prometheus", o.prometheus_url, "with --emit k8s: Prometheus URL for KEDA")
      ->default_str("http://prometheus-operated.monitoring.svc:9090")
      ->each([&o](const std::string&) { o.prometheus_given = true; });
  command
      ->add_option("--namespace", o.namespace_name,
                   "with --emit k8s: the namespace every object is written into; KEDA's query then counts "
                   "only that namespace's engine pods (default: none written, kubectl's -n decides, and "
                   "the query counts every pod serving the model's name)")
      ->each([&o](const std::string&) { o.namespace_given = true; });
  command
      ->add_option("--autoscaler", o.autoscaler,
                   "with --emit k8s: keda (ScaledObject, default) or hpa (autoscaling/v2 "
                   "HorizontalPodAutoscaler on a prometheus-adapter metric)")
      ->default_str("keda");
  command
      ->add_option("--model-cache", o.model_cache,
                   "with --emit k8s: where pods keep the weights: pvc (a ReadWriteMany claim, default), host "
                   "(a hostPath on each node) or none (each start downloads them)")
      ->each([&o](const std::string&) { o.model_cache_given = true; });
  command
      ->add_option(
          "--hf-token-secret", o.hf_token_secret,
          "with --emit k8s: Secret whose key `token` holds the Hugging Face token (default hf-token; "
          "optional for public repositories)")
      ->each([&o](const std::string&) { o.hf_token_secret_given = true; });
  command
      ->add_option("--storage-class", o.storage_class,
                   "with --emit k8s --model-cache pvc: the claim's StorageClass (default: the cluster's)")
      ->each([&o](const std::string&) { o.storage_class_given = true; });
}

std::optional<app::ArtifactRequest> artifact_request(const EmitOptions& o) {
  if (!o.kind.empty() && o.kind != "vllm" && o.kind != "sglang" && o.kind != "trtllm" && o.kind != "k8s" &&
      o.kind != "torchrun")
    throw Error(ErrorKind::usage, "--emit", "",
                fmt::format("unknown artifact \"{}\" (expected {})", o.kind, k_kinds));
  if (o.kind.empty()) {
    // The --emit companions do nothing on their own; say so rather than ignore them.
    const char* lone = !o.out_dir.empty()       ? "--out"
                       : o.rank != 1            ? "--rank"
                       : !o.model_path.empty()  ? "--model-path"
                       : !o.image.empty()       ? "--image"
                       : o.out_given            ? "--out"
                       : o.prometheus_given     ? "--prometheus"
                       : o.namespace_given      ? "--namespace"
                       : o.autoscaler != "keda" ? "--autoscaler"
                                                : o.weights_flag_given();
    if (lone != nullptr) throw Error(ErrorKind::usage, lone, "", "needs --emit KIND");
  }
  if (o.autoscaler != "keda" && o.autoscaler != "hpa")
    throw Error(ErrorKind::usage, "--autoscaler", "",
                fmt::format("unknown autoscaler \"{}\" (expected keda or hpa)", o.autoscaler));
  if (o.autoscaler != "keda" && !o.kind.empty() && o.kind != "k8s")
    throw Error(ErrorKind::usage, "--autoscaler", "", "works with --emit k8s only");
  if (o.rank < 1)
    throw Error(ErrorKind::usage, "--rank", "", fmt::format("expected 1 or more, got {}", o.rank));
  if (o.out_given && o.out_dir.empty())
    throw Error(ErrorKind::usage, "--out", "", "expected a directory, got an empty string");
  if (!is_prometheus_url(o.prometheus_url)) {
    throw Error(ErrorKind::usage, "--prometheus", "",
                fmt::format("expected an http:// or https:// URL such as http://prometheus:9090, got \"{}\"",
                            o.prometheus_url));
  }
  if (o.namespace_given && !is_k8s_label_name(o.namespace_name))
    throw Error(ErrorKind::usage, "--namespace", "",
                fmt::format("expected a Kubernetes namespace name (lower-case letters, digits and '-', a "
                            "letter or digit at both ends, at most 63 characters), got \"{}\"",
                            o.namespace_name));
  check_weights_flags(o);
  check_k8s_only(o);
  if (o.kind.empty()) return std::nullopt;
  return static_cast<const app::ArtifactRequest&>(o);
}

EmitFormat emit_format(const EmitOptions& options) {
  return EmitFormat{options.kind, options.prometheus_url, options.namespace_name};
}

void write_artifact(const EmitOptions& o, const EmittedArtifact& artifact) {
  if (o.out_dir.empty()) {
    fmt::print("{}", artifact.text);
    return;
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec)
    throw Error(ErrorKind::usage, "--out", "",
                fmt::format("cannot create directory \"{}\": {}", o.out_dir, ec.message()));
  const std::string path = (std::filesystem::path(o.out_dir) / artifact.file_name).string();
  check_output_path("--out", path);
  write_file_atomically("--out", path, artifact.text);
  fmt::print("wrote {}\n", path);
}

} // namespace rightsize::cli
