#pragma once
// Engine launch commands (vLLM, SGLang, TensorRT-LLM) from a DeployPlan. Flag names and defaults
// are cited in docs/deploy.md.
#include <string>
#include <utility>
#include <vector>

#include "rightsize/deploy.hpp"

namespace rightsize::cli {

enum class Engine { vllm, sglang, trtllm };

struct EngineCommand {
  std::vector<std::string> program; ///< e.g. {"vllm", "serve"}
  std::vector<std::string> args;    ///< model first, then flag/value pairs
  std::vector<std::string> notes;   ///< caveats to print as comments
  int port = 8000;
  std::string metrics_path = "/metrics";
};

/// The launch command of one replica. `model` is the Hugging Face id or local path.
EngineCommand engine_command(Engine engine, const DeployPlan& plan, const std::string& model);

/// The command on one line, each word quoted for a POSIX shell where it needs it.
std::string shell_line(const EngineCommand& command);

/// A POSIX shell script: caveats as comments, then the command with one flag per line.
std::string shell_script(const EngineCommand& command, const std::string& header);

} // namespace rightsize::cli
