#include "io/catalog/engines_io.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/json/json_reader.hpp"
#include "rightsize/text.hpp"
#include "rightsize/units.hpp"

namespace rightsize::io {
namespace {

const std::vector<std::string>& basis_choices() {
  static const std::vector<std::string> choices = {"engine_default", "recipe",  "assumed",
                                                   "observed",       "derived", "fitted"};
  return choices;
}

void check_source(const JsonReader& block, const nlohmann::json& sources) {
  (void)block.at("basis").as_choice(basis_choices());
  const JsonReader source = block.at("source");
  if (!sources.contains(source.as_string())) source.fail("expected a tag of /sources");
  if (const auto note = block.find("note")) (void)note->as_string();
}

/// One field, {"value": number, "basis": ..., "source": tag, "note": text}: its value, after
/// checking that the source tag is one of the file's `sources`.
JsonReader field(const JsonReader& fields, std::string_view key, const nlohmann::json& sources) {
  const JsonReader f = fields.at(key);
  f.expect_keys({"value", "basis", "source", "note"});
  check_source(f, sources);
  return f.at("value");
}

double field_value(const JsonReader& fields, std::string_view key, double min, double max,
                   const nlohmann::json& sources) {
  return field(fields, key, sources).as_number(min, max);
}

std::int64_t field_count(const JsonReader& fields, std::string_view key, std::int64_t max,
                         const nlohmann::json& sources) {
  return field(fields, key, sources).as_int(1, max);
}

void read_common(const JsonReader& common, const nlohmann::json& sources, EngineConfig& e) {
  common.expect_keys({"runtime_reserve_gib", "nccl_reserve_gib", "cuda_graph_gib", "step_overhead_s",
                      "eager_step_overhead_s", "indexer_layer_overhead_s", "collective_base_latency_s",
                      "scaleup_hop_latency_s", "pcie_hop_latency_s", "network_hop_latency_s",
                      "gemm_half_efficiency_tokens", "gemm_half_efficiency_cols", "pod_cpu_cores_per_gpu",
                      "pod_memory_gb_per_gpu"});
  e.runtime_reserve_bytes = field_value(common, "runtime_reserve_gib", 0.0, 64.0, sources) * k_bytes_per_gib;
  e.nccl_reserve_bytes = field_value(common, "nccl_reserve_gib", 0.0, 64.0, sources) * k_bytes_per_gib;
  e.cuda_graph_bytes = field_value(common, "cuda_graph_gib", 0.0, 64.0, sources) * k_bytes_per_gib;
  e.step_overhead_s = field_value(common, "step_overhead_s", 0.0, 1.0, sources);
  e.eager_step_overhead_s = field_value(common, "eager_step_overhead_s", 0.0, 1.0, sources);
  e.indexer_layer_overhead_s = field_value(common, "indexer_layer_overhead_s", 0.0, 0.1, sources);
  e.collective_base_latency_s = field_value(common, "collective_base_latency_s", 0.0, 0.1, sources);
  e.scaleup_hop_latency_s = field_value(common, "scaleup_hop_latency_s", 0.0, 0.1, sources);
  e.pcie_hop_latency_s = field_value(common, "pcie_hop_latency_s", 0.0, 0.1, sources);
  e.network_hop_latency_s = field_value(common, "network_hop_latency_s", 0.0, 0.1, sources);
  e.gemm_half_efficiency_tokens = field_value(common, "gemm_half_efficiency_tokens", 0.0, 1e6, sources);
  e.gemm_half_efficiency_cols = field_value(common, "gemm_half_efficiency_cols", 0.0, 1e6, sources);
  e.pod_cpu_cores_per_gpu = field_value(common, "pod_cpu_cores_per_gpu", 0.0, 1024.0, sources);
  e.pod_memory_bytes_per_gpu =
      field_value(common, "pod_memory_gb_per_gpu", 0.0, 1e4, sources) * k_bytes_per_gb;
}

void read_fields(const JsonReader& fields, const nlohmann::json& sources, EngineConfig& e) {
  fields.expect_keys({"usable_fraction", "usable_fraction_of", "block_tokens", "max_batched_tokens",
                      "max_num_seqs", "cuda_graph_max_batch", "layer_overhead_s", "moe_layer_overhead_s",
                      "prefill_layer_overhead_s", "prefill_expert_overhead_s", "wave_synchrony",
                      "ttft_fixed_s", "adp_balance_timeout_steps", "adp_balance_batching_steps",
                      "kv_reserved_output_share"});
  e.usable_fraction = field_value(fields, "usable_fraction", 0.01, 1.0, sources);
  e.usable_fraction_of_free =
      field(fields, "usable_fraction_of", sources).as_choice({"total", "free_after_load"}) ==
      "free_after_load";
  e.block_tokens = field_count(fields, "block_tokens", 4096, sources);
  e.max_batched_tokens = field_count(fields, "max_batched_tokens", 1 << 24, sources);
  e.max_num_seqs = field_count(fields, "max_num_seqs", 1 << 20, sources);
  e.cuda_graph_max_batch = field_count(fields, "cuda_graph_max_batch", 1 << 20, sources);
  e.layer_overhead_s = field_value(fields, "layer_overhead_s", 0.0, 0.1, sources);
  e.moe_layer_overhead_s = field_value(fields, "moe_layer_overhead_s", 0.0, 0.1, sources);
  e.prefill_layer_overhead_s = field_value(fields, "prefill_layer_overhead_s", 0.0, 0.1, sources);
  e.prefill_expert_overhead_s = field_value(fields, "prefill_expert_overhead_s", 0.0, 0.1, sources);
  e.wave_synchrony = field_value(fields, "wave_synchrony", 0.0, 1.0, sources);
  e.ttft_fixed_s = field_value(fields, "ttft_fixed_s", 0.0, 60.0, sources);
  e.kv_reserved_output_share = field_value(fields, "kv_reserved_output_share", 0.0, 1.0, sources);
  e.adp_balance_timeout_steps = field_value(fields, "adp_balance_timeout_steps", 0.0, 1e6, sources);
  e.adp_balance_batching_steps = field_value(fields, "adp_balance_batching_steps", 0.0, 1e6, sources);
}

// The GPU vendors the engine has a build for: {"value": ["nvidia", "amd"], ...} (one or both).
void read_vendors(const JsonReader& entry, const nlohmann::json& sources, EngineConfig& e) {
  const JsonReader list = field(entry, "vendors", sources);
  const std::vector<JsonReader> vendors = list.elements();
  if (vendors.empty()) list.fail("expected at least one vendor, \"nvidia\" or \"amd\"");
  e.runs_on_nvidia = false;
  e.runs_on_amd = false;
  for (const JsonReader& v : vendors) {
    (v.as_choice({"nvidia", "amd"}) == "amd" ? e.runs_on_amd : e.runs_on_nvidia) = true;
  }
}

// The default images by vendor: {"value": {"nvidia": "name:tag", "amd": "name:tag"}, ...}; a vendor
// may be left out (no image named: --image required) but must be one the engine runs on.
void read_images(const JsonReader& entry, const nlohmann::json& sources, EngineConfig& e) {
  const JsonReader images = field(entry, "images", sources);
  images.expect_keys({"nvidia", "amd"});
  for (const std::string& vendor : images.keys()) {
    const JsonReader image = images.at(vendor);
    const std::string name = image.as_string();
    if (!pinned_image_reference(name))
      image.fail("expected an image pinned to a release, name:tag (not :latest) or name@sha256:digest");
    const bool amd = vendor == "amd";
    if (!(amd ? e.runs_on_amd : e.runs_on_nvidia))
      image.fail("expected an image only for a vendor listed in /vendors");
    (amd ? e.image_amd : e.image_nvidia) = name;
  }
}

void read_tiers(const JsonReader& block, const nlohmann::json& sources, EngineConfig& e) {
  block.expect_keys({"source", "basis", "note", "large_tp", "tiers"});
  check_source(block, sources);
  e.gpu_memory_tiers_large_tp = static_cast<int>(block.at("large_tp").as_int(1, 1024));
  const std::vector<JsonReader> tiers = block.at("tiers").elements();
  if (tiers.empty() || tiers.size() > e.gpu_memory_tiers.size()) {
    block.at("tiers").fail("expected 1 to 4 tiers");
  }
  double last_bound = 0.0;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const JsonReader& t = tiers[i];
    t.expect_keys(
        {"below_gib", "max_batched_tokens", "cuda_graph_max_batch", "cuda_graph_max_batch_large_tp"});
    GpuMemoryTier& tier = e.gpu_memory_tiers[i];
    const auto bound = t.find("below_gib");
    const bool last = i + 1 == tiers.size();
    if (last != !bound.has_value())
      t.fail("expected below_gib on every tier but the last, and null on the last");
    tier.below_gib = bound ? bound->as_number(last_bound + 1e-9, 1e6) : 0.0;
    last_bound = tier.below_gib;
    tier.max_batched_tokens = t.at("max_batched_tokens").as_int(1, 1 << 24);
    tier.cuda_graph_max_batch = t.at("cuda_graph_max_batch").as_int(1, 1 << 20);
    tier.cuda_graph_max_batch_large_tp = t.at("cuda_graph_max_batch_large_tp").as_int(1, 1 << 20);
  }
  e.gpu_memory_tier_count = static_cast<int>(tiers.size());
}

} // namespace

EngineProfiles parse_engines(const nlohmann::json& document, const std::string& source) {
  const JsonReader root(document, source);
  root.expect_keys({"schema_version", "description", "sources", "common", "engines"});
  (void)root.at("schema_version").as_int(1, 1);
  const JsonReader sources = root.at("sources");
  sources.expect_object();
  for (const std::string& tag : sources.keys())
    (void)sources.at(tag).as_string();
  const JsonReader engines = root.at("engines");
  engines.expect_keys({"vllm", "sglang", "trtllm"});
  EngineProfiles profiles;
  for (const EngineKind kind : {EngineKind::vllm, EngineKind::sglang, EngineKind::trtllm}) {
    const JsonReader entry = engines.at(to_string(kind));
    entry.expect_keys({"name", "note", "vendors", "images", "fields", "gpu_memory_tiers"});
    (void)entry.at("name").as_string();
    EngineConfig& e = profiles.configs[static_cast<std::size_t>(kind)];
    e.kind = to_string(kind);
    read_common(root.at("common"), sources.value(), e);
    read_vendors(entry, sources.value(), e);
    read_images(entry, sources.value(), e);
    read_fields(entry.at("fields"), sources.value(), e);
    if (const auto tiers = entry.find("gpu_memory_tiers")) read_tiers(*tiers, sources.value(), e);
  }
  return profiles;
}

EngineProfiles load_engines(const std::string& path) {
  return parse_engines(read_json_file(path), path);
}

} // namespace rightsize::io
