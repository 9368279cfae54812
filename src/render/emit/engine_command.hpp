#pragma once
// Engine launch commands (vLLM, SGLang, TensorRT-LLM) from a DeployPlan. Flag names, defaults,
// health and metrics endpoints are cited in docs/deploy.md.
#include <string>
#include <utility>
#include <vector>

#include "app/deploy_artifact.hpp"
#include "rightsize/deploy.hpp"

namespace rightsize::cli {

using app::Engine;                    ///< which engine is the use case's decision (app/deploy_artifact.hpp)
const char* engine_id(Engine engine); ///< "vllm", "sglang", "trtllm"

/// The engine's own Prometheus gauges of in-flight requests (docs/deploy.md "Metrics"): what the
/// autoscalers sum, and the per-pod custom metric name the HPA reads (running + waiting).
struct EngineMetrics {
  const char* running;
  const char* waiting;
  const char* hpa_metric;
};
EngineMetrics engine_metrics(Engine engine);

/// Where the command runs: a shell on a node (the --emit vllm|sglang|trtllm script) or a Kubernetes
/// container (--emit k8s: multi-node addresses from the LeaderWorkerSet's environment, expanded by
/// the kubelet; TensorRT-LLM's options file from a ConfigMap).
enum class Target { script, pod };

/// TensorRT-LLM's --extra_llm_api_options file: next to the script, or mounted from a ConfigMap.
inline constexpr const char* k_trtllm_options_file = "extra_llm_api_options.yaml";
inline constexpr const char* k_trtllm_options_dir = "/etc/rightsize";

struct EngineCommand {
  std::vector<std::string> program; ///< e.g. {"vllm", "serve"}
  std::vector<std::string> args;    ///< model first, then flag/value pairs
  /// Indices into `args` of the words written to expand where the command runs (a script's
  /// ${LEADER_ADDR}, a pod's $(LWS_LEADER_ADDRESS)); every other word is literal text, quoted so
  /// that nothing in it expands (a model path of "${HOME}" or "$(SECRET)" is served as written).
  std::vector<std::size_t> variables;
  std::vector<std::string> notes; ///< caveats to print as comments
  int port = 8000;
  std::string metrics_path = "/metrics";
  std::string health_path = "/health";
  /// TensorRT-LLM: the YAML of its --extra_llm_api_options file ("" = none written).
  std::string extra_options_yaml;
  /// Shell lines a script runs before the command (checks of the variables a multi-node launch needs).
  std::vector<std::string> preamble;
};

/// A word for a POSIX shell: `variable` (a word built to expand, "${VAR}") double-quoted, anything
/// else single-quoted unless made only of characters no shell treats specially.
std::string shell_word(const std::string& word, bool variable = false);

/// Sized for Poisson arrivals: one line on the in-flight cap (the p99 of the in-flight count, or the
/// KV cache below it) and how often requests wait behind it (CapacityPlan); empty otherwise.
std::string in_flight_note(const DeployPlan& plan);

/// The launch command of one replica (its leader, for a multi-node one). `model` is the Hugging Face
/// id or local path.
EngineCommand engine_command(Engine engine, const DeployPlan& plan, const std::string& model,
                             Target target = Target::script);

/// Whether args[index] is one of the command's variables (expands where the command runs).
bool expands(const EngineCommand& command, std::size_t index);

/// A literal word as a container argument: the kubelet expands $(VAR) in args, and "$$(" is its
/// escape for a literal "$(" (Kubernetes "Define a command and arguments for a container").
std::string pod_literal(const std::string& word);

/// The command on one line, each word quoted for a POSIX shell where it needs it.
std::string shell_line(const EngineCommand& command);

/// A POSIX shell script: caveats as comments, the preamble, TensorRT-LLM's options file (a here
/// document), then the command with one flag per line.
std::string shell_script(const EngineCommand& command, const std::string& header);

} // namespace rightsize::cli
