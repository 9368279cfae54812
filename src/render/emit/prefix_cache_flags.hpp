#pragma once
// The engines' prefix-caching and KV offload settings for a DeployPlan (docs/deploy.md "Prefix
// caching and KV offload", methodology §3.9).
#include <string>
#include <vector>

#include "app/deploy_artifact.hpp"
#include "render/emit/flag_set.hpp"
#include "rightsize/deploy.hpp"
#include <yaml-cpp/yaml.h>

namespace rightsize::cli {

/// vLLM's --enable-prefix-caching and offloading connector, SGLang's hierarchical cache; none for
/// TensorRT-LLM (its options file: trtllm_kv_reuse_yaml) or without a prefix cache.
FlagSet prefix_cache_flags(app::Engine engine, const DeployPlan& plan);

/// TensorRT-LLM: the prefix-cache keys of the `kv_cache_config` map being written into `y`
/// (enable_block_reuse, host_cache_size); nothing without a prefix cache.
void trtllm_kv_reuse_yaml(YAML::Emitter& y, const DeployPlan& plan, std::vector<std::string>& notes);

} // namespace rightsize::cli
