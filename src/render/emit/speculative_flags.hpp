#pragma once
// The engines' speculative-decoding settings for a DeployPlan's Speculative (docs/deploy.md
// "Speculative decoding", methodology §3.8).
#include <string>
#include <vector>

#include "app/deploy_artifact.hpp"
#include "render/emit/flag_set.hpp"
#include "rightsize/spec.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::cli {

/// vLLM's --speculative-config JSON or SGLang's --speculative-* flags; none for TensorRT-LLM (its
/// options file: trtllm_speculative_yaml) or without speculative decoding.
FlagSet speculative_flags(app::Engine engine, const Speculative& speculative);

/// TensorRT-LLM: the `speculative_config` entry of the --extra_llm_api_options map, into `y` (a map
/// being written); nothing without speculative decoding.
void trtllm_speculative_yaml(YAML::Emitter& y, const Speculative& speculative,
                             std::vector<std::string>& notes);

} // namespace rightsize::cli
