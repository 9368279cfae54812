// Prefix caching and the KV offload tier in the engines' own terms (docs/deploy.md "Prefix caching
// and KV offload"; each flag read in the pinned parser, tests/schema/engine-flags.json):
// - vLLM (vllm/engine/arg_utils.py, v0.11 line): --enable-prefix-caching (on by default in V1; the
//   artifact says it), --kv-transfer-config with the OffloadingConnector, whose CPUOffloadingSpec
//   (vllm/v1/kv_offload/cpu.py) counts the host tier in blocks per worker (num_cpu_blocks).
// - SGLang (python/sglang/srt/server_args.py): RadixAttention reuses prefixes by default;
//   --enable-hierarchical-cache with --hicache-size (GB of host pool per rank, which mirrors the
//   GPU's pool: write-through) and --hicache-storage-backend file for a disk tier.
// - TensorRT-LLM (tensorrt_llm/llmapi/llm_args.py KvCacheConfig): enable_block_reuse and
//   host_cache_size (bytes) in the --extra_llm_api_options file.
#include "render/emit/prefix_cache_flags.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "rightsize/units.hpp"

namespace rightsize::cli {
namespace {

bool tier_wanted(const DeployPlan& p) {
  return p.kv_offload != OffloadTier::none && p.kv_offload_bytes_per_gpu > 0.0;
}

void vllm_flags(const DeployPlan& p, FlagSet& out) {
  out.flags.emplace_back("--enable-prefix-caching", "");
  if (!tier_wanted(p)) return;
  if (p.kv_offload == OffloadTier::nvme) {
    out.notes.push_back("vLLM's offloading connector holds host memory only: an NVMe tier needs LMCache "
                        "(LMCacheConnectorV1 with local_disk), configured outside this command");
    return;
  }
  const double block_bytes = static_cast<double>(p.kv_block_tokens) * p.kv_bytes_per_token_gpu;
  const auto blocks =
      static_cast<std::int64_t>(std::ceil(p.kv_offload_bytes_per_gpu / std::max(1.0, block_bytes)));
  const nlohmann::json config = {{"kv_connector", "OffloadingConnector"},
                                 {"kv_role", "kv_both"},
                                 {"kv_connector_extra_config", {{"num_cpu_blocks", blocks}}}};
  out.flags.emplace_back("--kv-transfer-config", config.dump());
  out.notes.push_back(
      fmt::format("host KV tier: {} blocks of {} tokens per GPU ({:.1f} GiB); vLLM 0.12 and later take "
                  "--kv-offloading-size in GiB summed over the TP ranks instead",
                  blocks, p.kv_block_tokens, p.kv_offload_bytes_per_gpu / k_bytes_per_gib));
}

void sglang_flags(const DeployPlan& p, FlagSet& out) {
  if (!tier_wanted(p)) return; // RadixAttention reuses prefixes by default
  out.flags.emplace_back("--enable-hierarchical-cache", "");
  // The host pool holds a copy of every block on the GPU (write-through) and the tier beyond it.
  const double host =
      p.kv_pool_bytes_per_gpu + (p.kv_offload == OffloadTier::cpu ? p.kv_offload_bytes_per_gpu : 0.0);
  const auto gb = static_cast<std::int64_t>(std::ceil(host / k_bytes_per_gb));
  out.flags.emplace_back("--hicache-size", std::to_string(gb));
  out.notes.push_back(
      fmt::format("--hicache-size is GB of host memory per rank: the GPU's KV pool ({:.1f} GB), "
                  "which the host pool mirrors{}",
                  p.kv_pool_bytes_per_gpu / k_bytes_per_gb,
                  p.kv_offload == OffloadTier::cpu ? ", plus the tier" : "; the tier is on disk"));
  if (p.kv_offload == OffloadTier::nvme) {
    out.flags.emplace_back("--hicache-storage-backend", "file");
    out.notes.push_back("the file backend writes under SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR "
                        "(/tmp/hicache by default): point it at the NVMe mount");
  }
}

} // namespace

FlagSet prefix_cache_flags(app::Engine engine, const DeployPlan& p) {
  FlagSet out;
  if (!p.prefix_cache) return out;
  if (engine == app::Engine::vllm) vllm_flags(p, out);
  if (engine == app::Engine::sglang) sglang_flags(p, out);
  return out;
}

void trtllm_kv_reuse_yaml(YAML::Emitter& y, const DeployPlan& p, std::vector<std::string>& notes) {
  if (!p.prefix_cache) return;
  y << YAML::Key << "enable_block_reuse" << YAML::Value << true;
  if (!tier_wanted(p)) return;
  if (p.kv_offload == OffloadTier::nvme) {
    notes.push_back("TensorRT-LLM's disk tier (disk_cache_size) needs the v2 KV cache manager: not set here");
    return;
  }
  const auto bytes = static_cast<std::int64_t>(std::ceil(p.kv_offload_bytes_per_gpu));
  y << YAML::Key << "host_cache_size" << YAML::Value << bytes;
  notes.push_back(fmt::format("host_cache_size is bytes of host memory per rank ({:.1f} GiB)",
                              p.kv_offload_bytes_per_gpu / k_bytes_per_gib));
}

} // namespace rightsize::cli
