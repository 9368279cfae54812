#pragma once
// The engines' multi-LoRA settings for a DeployPlan (docs/deploy.md "Multi-LoRA", methodology §3.10).
#include <string>
#include <vector>

#include "app/deploy_artifact.hpp"
#include "render/emit/flag_set.hpp"
#include "rightsize/deploy.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::cli {

/// vLLM's --enable-lora / --max-loras / --max-lora-rank / --max-cpu-loras, SGLang's --enable-lora /
/// --max-loras-per-batch / --max-lora-rank / --lora-target-modules / --max-loaded-loras; none for
/// TensorRT-LLM (its options file: trtllm_lora_yaml) or without adapters.
FlagSet lora_flags(app::Engine engine, const DeployPlan& plan);

/// TensorRT-LLM: the `lora_config` entry of the --extra_llm_api_options map being written into `y`;
/// nothing without adapters.
void trtllm_lora_yaml(YAML::Emitter& y, const DeployPlan& plan, std::vector<std::string>& notes);

} // namespace rightsize::cli
