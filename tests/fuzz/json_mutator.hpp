#pragma once
// A structure-aware mutator for JSON inputs (LLVMFuzzerCustomMutator): the input is parsed, one
// node of the tree is changed (a value replaced by an interesting one, a key deleted, a known key
// added, a subtree duplicated or swapped in) and the result serialized again. Inputs that do not
// parse fall back to libFuzzer's byte-level mutation, so malformed JSON is still explored.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace rightsize::fuzz {

/// Keys the spec format knows (docs/model-spec.md), so added keys are often meaningful.
inline const std::vector<std::string>& spec_keys() {
  static const std::vector<std::string> keys = {"schema_version",
                                                "name",
                                                "model",
                                                "precision",
                                                "workload",
                                                "sla",
                                                "constraints",
                                                "deployment",
                                                "preset",
                                                "params",
                                                "layers",
                                                "hidden_size",
                                                "heads",
                                                "kv_heads",
                                                "head_dim",
                                                "ffn_size",
                                                "ffn",
                                                "vocab_size",
                                                "tied_embeddings",
                                                "moe",
                                                "attention",
                                                "kind",
                                                "experts",
                                                "experts_per_token",
                                                "shared_experts",
                                                "expert_ffn_size",
                                                "dense_layers",
                                                "shared_expert_ffn_size",
                                                "kv_lora_rank",
                                                "rope_head_dim",
                                                "q_lora_rank",
                                                "qk_nope_head_dim",
                                                "v_head_dim",
                                                "sliding_window",
                                                "sliding_window_layers",
                                                "norms_per_layer",
                                                "max_position",
                                                "tokens_per_item",
                                                "passes_per_item",
                                                "weights",
                                                "activations",
                                                "kv_cache",
                                                "group_size",
                                                "mode",
                                                "input_tokens",
                                                "output_tokens",
                                                "concurrency",
                                                "max_context",
                                                "method",
                                                "lora_rank",
                                                "seq_len",
                                                "global_batch",
                                                "micro_batch",
                                                "tokens",
                                                "optimizer",
                                                "zero_stage",
                                                "ttft_ms",
                                                "tpot_ms",
                                                "e2e_ms",
                                                "requests_per_s",
                                                "average_requests_per_s",
                                                "output_tokens_per_s",
                                                "budget_usd",
                                                "gpus",
                                                "gpu",
                                                "tp",
                                                "pp",
                                                "ep",
                                                "max_gpus_per_replica",
                                                "max_nodes",
                                                "pricing",
                                                "provider",
                                                "num_hidden_layers",
                                                "num_attention_heads",
                                                "num_key_value_heads",
                                                "intermediate_size",
                                                "model_type",
                                                "torch_dtype",
                                                "quantization_config",
                                                "quant_method",
                                                "bits",
                                                "num_local_experts",
                                                "num_experts_per_tok",
                                                "memory_gb",
                                                "memory_bandwidth_gb_per_s",
                                                "dense_tflops",
                                                "prices",
                                                "usd_per_hour",
                                                "id",
                                                "aliases",
                                                "visible_memory_gib",
                                                "memory_type",
                                                "pcie_gb_per_s",
                                                "scaleup_gb_per_s",
                                                "scaleup_domain_gpus",
                                                "gpus_per_node",
                                                "nic_gb_per_s",
                                                "efficiency",
                                                "prefill_compute",
                                                "decode_bandwidth",
                                                "communication",
                                                "purchase_usd",
                                                "tdp_watts",
                                                "spot",
                                                "date",
                                                "prices_as_of",
                                                "sources",
                                                "bf16",
                                                "fp8",
                                                "fp4"};
  return keys;
}

/// Values that sit on or past the limits the io layer checks.
inline nlohmann::json interesting_value(std::mt19937_64& rng) {
  static const std::vector<nlohmann::json> values = {
      0,
      1,
      2,
      3,
      -1,
      7,
      8,
      64,
      128,
      1000,
      1001,
      4096,
      65536,
      1000000,
      10000000,
      100000000,
      1e13,
      1e15,
      9007199254740993.0,
      1e308,
      -1e308,
      0.5,
      1e-300,
      2147483648LL,
      9223372036854775807LL,
      -9223372036854775807LL,
      18446744073709551615ULL,
      true,
      false,
      nullptr,
      "",
      "auto",
      "bf16",
      "fp8",
      "int4-awq",
      "nvfp4",
      "mla",
      "gqa",
      "llama-3.1-8b",
      "deepseek-v3",
      "training",
      "inference",
      "lora",
      "H100-SXM",
      "dit",
      "vit",
      nlohmann::json::array(),
      nlohmann::json::object(),
      nlohmann::json::array({1, 2}),
  };
  std::uniform_int_distribution<std::size_t> pick(0, values.size() - 1);
  return values[pick(rng)];
}

/// All JSON pointers in `doc` (including the root).
inline void collect_pointers(const nlohmann::json& doc, const nlohmann::json::json_pointer& at,
                             std::vector<nlohmann::json::json_pointer>& out) {
  out.push_back(at);
  if (out.size() > 4096) return;
  if (doc.is_object()) {
    for (const auto& item : doc.items())
      collect_pointers(item.value(), at / item.key(), out);
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i)
      collect_pointers(doc[i], at / i, out);
  }
}

/// One structural mutation of `doc`.
inline void mutate_tree(nlohmann::json& doc, std::mt19937_64& rng) {
  std::vector<nlohmann::json::json_pointer> pointers;
  collect_pointers(doc, nlohmann::json::json_pointer(), pointers);
  std::uniform_int_distribution<std::size_t> pick(0, pointers.size() - 1);
  nlohmann::json& node = doc[pointers[pick(rng)]];
  const auto& keys = spec_keys();
  std::uniform_int_distribution<std::size_t> pick_key(0, keys.size() - 1);
  switch (rng() % 7) {
  case 0: node = interesting_value(rng); break;
  case 1: // delete a member or element
    if (node.is_object() && !node.empty()) {
      auto it = node.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(rng() % node.size()));
      node.erase(it);
    } else if (node.is_array() && !node.empty()) {
      node.erase(node.begin() + static_cast<std::ptrdiff_t>(rng() % node.size()));
    }
    break;
  case 2: // add a known key
    if (node.is_object()) node[keys[pick_key(rng)]] = interesting_value(rng);
    break;
  case 3: // scale a number
    if (node.is_number()) {
      static const double factors[] = {0.0, -1.0, 2.0, 10.0, 1000.0, 1e9, 0.001, 1.5};
      node = node.get<double>() * factors[rng() % 8];
    }
    break;
  case 4: // integer neighbour
    if (node.is_number_integer()) {
      const std::int64_t v = node.get<std::int64_t>();
      const bool up = rng() % 2 == 0;
      if (up && v < std::numeric_limits<std::int64_t>::max()) node = v + 1;
      if (!up && v > std::numeric_limits<std::int64_t>::min()) node = v - 1;
    }
    break;
  case 5: // copy another subtree here
    node = nlohmann::json(std::as_const(doc)[pointers[pick(rng)]]);
    break;
  default: // wrap in an array or an object
    node = rng() % 2 == 0 ? nlohmann::json::array({node}) : nlohmann::json{{keys[pick_key(rng)], node}};
    break;
  }
}

/// The custom mutator body shared by the structure-aware targets.
inline std::size_t mutate_json(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               unsigned int seed) {
  std::mt19937_64 rng(seed);
  nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded() || rng() % 16 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const int rounds = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < rounds; ++i)
    mutate_tree(doc, rng);
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

} // namespace rightsize::fuzz
