// Configuration-class defaults and the generic decoder reading of Hugging Face configs
// (docs/model-spec.md "hf_config", rules 0 and 10; methodology §1.4).
#include "io/hf/hf_defaults.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "rightsize/text.hpp"

namespace rightsize::io {
namespace {

struct KeyDefault {
  std::string_view key;
  std::int64_t value;
};

struct ClassDefaults {
  std::string_view model_type;
  std::string_view config_class;
  std::vector<KeyDefault> keys;
};

// The defaults of each configuration class, for the keys rightsize reads, copied from the class
// in huggingface/transformers src/transformers/models/<family>/configuration_<family>.py. Keys
// whose default is None (head_dim, num_key_value_heads of Llama: derived from the other fields),
// and booleans whose default is rightsize's own fallback (attention_bias false, ...), are left out.
// Read at commit 008e574391258935f3ecc3035c882e73bbcac419 (dataclass fields) unless noted:
// Gemma3TextConfig.__init__ at d98ac17cc00f337eeee9a1e2380072dc8cafabd4 (the v4.50 class that the
// first Gemma-3 configs, "transformers_version": "4.50.0.dev0", were written against),
// GptOssConfig at 02b8f42b4240dddea1b27c45d2dc95fb2682f841. One function per group of families;
// class_defaults() joins them.

// Llama and its descendants: Llama, Mistral, Mixtral, Phi-3.
std::vector<ClassDefaults> llama_families() {
  return {
      {"llama",
       "LlamaConfig",
       {{"vocab_size", 32000},
        {"hidden_size", 4096},
        {"intermediate_size", 11008},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"max_position_embeddings", 2048}}},
      {"mistral",
       "MistralConfig",
       {{"vocab_size", 32000},
        {"hidden_size", 4096},
        {"intermediate_size", 14336},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"num_key_value_heads", 8},
        {"max_position_embeddings", 131072}, // 4096 * 32
        {"sliding_window", 4096}}},
      {"mixtral",
       "MixtralConfig",
       {{"vocab_size", 32000},
        {"hidden_size", 4096},
        {"intermediate_size", 14336},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"num_key_value_heads", 8},
        {"max_position_embeddings", 131072}, // 4096 * 32
        {"num_local_experts", 8},
        {"num_experts_per_tok", 2}}},
      {"phi3",
       "Phi3Config",
       {{"vocab_size", 32064},
        {"hidden_size", 3072},
        {"intermediate_size", 8192},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"max_position_embeddings", 4096}}},
  };
}

// Qwen2, Qwen3 and Qwen3-MoE.
std::vector<ClassDefaults> qwen_families() {
  return {
      {"qwen2",
       "Qwen2Config",
       {{"vocab_size", 151936},
        {"hidden_size", 4096},
        {"intermediate_size", 22016},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"num_key_value_heads", 32},
        {"max_position_embeddings", 32768},
        {"sliding_window", 4096},
        {"max_window_layers", 28}}},
      {"qwen3",
       "Qwen3Config",
       {{"vocab_size", 151936},
        {"hidden_size", 4096},
        {"intermediate_size", 22016},
        {"num_hidden_layers", 32},
        {"num_attention_heads", 32},
        {"num_key_value_heads", 32},
        {"head_dim", 128},
        {"max_position_embeddings", 32768},
        {"sliding_window", 4096},
        {"max_window_layers", 28}}},
      {"qwen3_moe",
       "Qwen3MoeConfig",
       {{"vocab_size", 151936},
        {"hidden_size", 2048},
        {"intermediate_size", 6144},
        {"num_hidden_layers", 24},
        {"num_attention_heads", 32},
        {"num_key_value_heads", 4},
        {"max_position_embeddings", 32768},
        {"sliding_window", 4096},
        {"decoder_sparse_step", 1},
        {"moe_intermediate_size", 768},
        {"num_experts_per_tok", 8},
        {"num_experts", 128}}},
  };
}

// Gemma, Gemma-2 and Gemma-3 (its text model).
std::vector<ClassDefaults> gemma_families() {
  return {
      {"gemma",
       "GemmaConfig",
       {{"vocab_size", 256000},
        {"hidden_size", 3072},
        {"intermediate_size", 24576},
        {"num_hidden_layers", 28},
        {"num_attention_heads", 16},
        {"num_key_value_heads", 16},
        {"head_dim", 256},
        {"max_position_embeddings", 8192}}},
      {"gemma2",
       "Gemma2Config",
       {{"vocab_size", 256000},
        {"hidden_size", 2304},
        {"intermediate_size", 9216},
        {"num_hidden_layers", 26},
        {"num_attention_heads", 8},
        {"num_key_value_heads", 4},
        {"head_dim", 256},
        {"max_position_embeddings", 8192},
        {"sliding_window", 4096}}},
      // vocab_size 262,208 = the 262,144-entry SentencePiece vocabulary + 64 reserved (image) tokens;
      // the Gemma-3 4B/12B/27B checkpoints' embed_tokens has that many rows.
      {"gemma3_text",
       "Gemma3TextConfig",
       {{"vocab_size", 262208},
        {"hidden_size", 2304},
        {"intermediate_size", 9216},
        {"num_hidden_layers", 26},
        {"num_attention_heads", 8},
        {"num_key_value_heads", 4},
        {"head_dim", 256},
        {"max_position_embeddings", 131072},
        {"sliding_window", 4096},
        {"sliding_window_pattern", 6}}},
  };
}

// gpt-oss and DeepSeek-V3.
std::vector<ClassDefaults> large_moe_families() {
  return {
      {"gpt_oss",
       "GptOssConfig",
       {{"num_hidden_layers", 36},
        {"num_local_experts", 128},
        {"vocab_size", 201088},
        {"hidden_size", 2880},
        {"intermediate_size", 2880},
        {"head_dim", 64},
        {"num_attention_heads", 64},
        {"num_key_value_heads", 8},
        {"sliding_window", 128},
        {"max_position_embeddings", 131072},
        {"num_experts_per_tok", 4}}},
      {"deepseek_v3",
       "DeepseekV3Config",
       {{"vocab_size", 129280},
        {"hidden_size", 7168},
        {"intermediate_size", 18432},
        {"moe_intermediate_size", 2048},
        {"num_hidden_layers", 61},
        {"num_attention_heads", 128},
        {"n_shared_experts", 1},
        {"n_routed_experts", 256},
        {"kv_lora_rank", 512},
        {"q_lora_rank", 1536},
        {"qk_rope_head_dim", 64},
        {"v_head_dim", 128},
        {"qk_nope_head_dim", 128},
        {"num_experts_per_tok", 8},
        {"first_k_dense_replace", 3},
        {"max_position_embeddings", 4096}}},
  };
}

const std::vector<ClassDefaults>& class_defaults() {
  static const std::vector<ClassDefaults> table = [] {
    std::vector<ClassDefaults> all = llama_families();
    for (const auto& group : {qwen_families(), gemma_families(), large_moe_families()})
      all.insert(all.end(), group.begin(), group.end());
    return all;
  }();
  return table;
}

// Architecture names of a decoder-only language model (transformers' ...ForCausalLM, GPT-2 style
// ...LMHeadModel), or of a multimodal wrapper whose language model sits in text_config.
bool names_causal_lm(const JsonReader& architectures, bool has_text_config) {
  const auto ends_with = [](std::string_view name, std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (const auto& a : architectures.elements()) {
    if (!a.is_string()) continue;
    const std::string name = a.as_string();
    if (ends_with(name, "ForCausalLM") || ends_with(name, "LMHeadModel")) return true;
    if (has_text_config && ends_with(name, "ForConditionalGeneration")) return true;
  }
  return false;
}

} // namespace

std::string apply_class_defaults(const std::string& model_type, nlohmann::json& config) {
  if (!config.is_object()) return {};
  const auto& table = class_defaults();
  const auto it = std::find_if(table.begin(), table.end(),
                               [&](const ClassDefaults& c) { return c.model_type == model_type; });
  if (it == table.end()) return {};
  std::vector<std::string> filled;
  for (const auto& [key, value] : it->keys) {
    const std::string name(key);
    if (config.contains(name)) continue; // an explicit null keeps its meaning (None)
    config[name] = value;
    filled.push_back(fmt::format("{} {}", name, value));
  }
  if (filled.empty()) return {};
  return fmt::format("config leaves out {}: the transformers {} defaults {}",
                     filled.size() == 1 ? "a key" : "keys", it->config_class, join(filled));
}

void check_generic_decoder(const JsonReader& root, const JsonReader& r, const std::string& type,
                           const std::vector<std::string>& known) {
  if (auto architectures = root.find("architectures");
      architectures && architectures->is_array() &&
      !names_causal_lm(*architectures, root.find("text_config").has_value())) {
    architectures->fail(fmt::format(
        "expected a decoder language model (an architecture ending in ForCausalLM): model_type \"{}\" is not "
        "one rightsize knows ({}), and a generic decoder is read only from a causal LM's config",
        type, join(known)));
  }
  static const std::vector<std::string> required = {"num_hidden_layers", "hidden_size", "num_attention_heads",
                                                    "intermediate_size", "vocab_size"};
  for (const auto& key : required) {
    if (r.find(key)) continue;
    JsonReader(r.value(), r.source(), r.pointer() + "/" + pointer_token(key))
        .fail(fmt::format("missing; model_type \"{}\" is not one rightsize knows, so it is read as a generic "
                          "decoder, which needs num_hidden_layers, hidden_size, num_attention_heads, "
                          "intermediate_size and vocab_size (positive integers)",
                          type));
  }
}

std::string generic_decoder_note(const std::string& type, const ModelSpec& m, bool tie_given) {
  std::vector<std::string> parts;
  parts.emplace_back("gated MLP (3 matrices)");
  parts.emplace_back("RMSNorm, 2 per layer, no q/k norms");
  parts.emplace_back(m.qkv_bias || m.mlp_bias
                         ? fmt::format("biases on {}{}{}", m.qkv_bias ? "attention" : "",
                                       m.qkv_bias && m.mlp_bias ? " and " : "", m.mlp_bias ? "MLP" : "")
                         : "no biases");
  if (m.moe.experts > 0) {
    parts.push_back(fmt::format("{} routed experts, top-{}, of width {}, no shared expert", m.moe.experts,
                                m.moe.experts_per_token, m.moe.expert_ffn_size));
  }
  parts.push_back(m.attention.sliding_window > 0
                      ? fmt::format("a {}-token window on {} of {} layers", m.attention.sliding_window,
                                    m.attention.sliding_window_layers, m.layers)
                      : std::string("full attention on every layer"));
  parts.push_back(tie_given ? fmt::format("{} embeddings as given", m.tied_embeddings ? "tied" : "untied")
                            : std::string("tied embeddings (tie_word_embeddings absent: the PretrainedConfig "
                                          "default)"));
  return fmt::format("model_type \"{}\" is not one rightsize knows; read as a generic {} decoder ({}); "
                     "terms of its own family are not counted",
                     type, m.moe.experts > 0 ? "MoE" : "dense", join(parts));
}

} // namespace rightsize::io
