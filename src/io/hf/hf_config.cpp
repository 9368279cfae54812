// Hugging Face config.json import (methodology §1.4; docs/model-spec.md, "hf_config").
#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

#include "io/hf/hf_defaults.hpp"
#include "io/hf/hf_quark.hpp"
#include "io/hf/hf_vision.hpp"
#include "io/json/checks.hpp"
#include "io/spec/spec_io.hpp"

namespace rightsize::io {
namespace {

using i64 = std::int64_t;

const std::vector<std::string>& supported_types() {
  static const std::vector<std::string> types = {
      "deepseek_v3", "deepseek_v32", "falcon",      "gemma",      "gemma2",     "gemma3",
      "gemma3_text", "glm4_moe",     "glm_moe_dsa", "gpt_neox",   "gpt_oss",    "gptj",
      "jamba",       "kimi_k2",      "llama",       "llama4",     "llava",      "minimax_m2",
      "mistral",     "mixtral",      "phi3",        "qwen2",      "qwen2_5_vl", "qwen2_moe",
      "qwen3",       "qwen3_5_moe",  "qwen3_moe",   "qwen3_next", "qwen3_vl",   "qwen3_vl_moe"};
  return types;
}

// The family whose import rules a model_type follows: Kimi-K2 and GLM-5 are DeepSeek-V3 layouts
// (MLA + DeepSeek MoE; GLM-5 and DeepSeek-V3.2 add the sparse-attention indexer), Qwen3.5-MoE is
// the Qwen3-Next hybrid (gated DeltaNet + gated attention) inside a multimodal wrapper.
std::string family_of(const std::string& type) {
  if (type == "kimi_k2" || type == "glm_moe_dsa" || type == "deepseek_v32") return "deepseek_v3";
  if (type == "qwen3_5_moe") return "qwen3_next";
  // Vision-language wrappers around a text family (the vision tower is read by hf_vision.cpp).
  if (type == "qwen2_5_vl") return "qwen2";
  return type;
}

// First present, non-null key of `keys` as a positive integer (0 when none is present).
i64 first_int(const JsonReader& r, std::initializer_list<std::string_view> keys) {
  for (auto key : keys) {
    if (auto v = r.find(key)) return positive_count(*v, 100'000'000, "units");
  }
  return 0;
}
i64 required_int(const JsonReader& r, std::initializer_list<std::string_view> keys) {
  const i64 v = first_int(r, keys);
  if (v == 0) (void)r.at(*keys.begin()); // throws "missing required key"
  return v;
}
bool flag(const JsonReader& r, std::string_view key, bool fallback) {
  auto v = r.find(key);
  return v ? v->as_bool() : fallback;
}

// tie_word_embeddings when the key is absent: the Transformers base default is true; these
// configuration classes default it to false (read from their __init__ signatures).
bool default_tie(const std::string& type) {
  static const std::vector<std::string> untied = {
      "llama",     "mistral",     "mixtral",    "qwen2",    "qwen2_moe", "qwen3",
      "qwen3_moe", "deepseek_v3", "phi3",       "gpt_neox", "gptj",      "gpt_oss",
      "glm4_moe",  "minimax_m2",  "qwen3_next", "llama4",   "jamba"};
  return std::find(untied.begin(), untied.end(), type) == untied.end();
}

i64 count_sliding(const JsonReader& types) {
  i64 n = 0;
  for (const auto& t : types.elements())
    n += t.as_string() == "sliding_attention" ? 1 : 0;
  return n;
}

// Llama-4 chunked attention: the RoPE layers (no_rope_layers entry 1, or layer_types
// "chunked_attention"; by default all but every 4th) attend within attention_chunk_size tokens. A
// chunk holds 1 to W tokens; it is counted as a window of W (the memory bound).
void read_chunked_attention(const JsonReader& r, ModelSpec& m) {
  const i64 chunk = first_int(r, {"attention_chunk_size"});
  if (chunk == 0 || (m.max_position > 0 && chunk >= m.max_position)) return;
  i64 layers = m.layers - m.layers / 4;
  if (auto rope = r.find("no_rope_layers")) {
    layers = 0;
    for (const auto& e : rope->elements())
      layers += e.as_int(0, 1);
  } else if (auto types = r.find("layer_types")) {
    layers = 0;
    for (const auto& t : types->elements())
      layers += t.as_string() == "chunked_attention" ? 1 : 0;
  }
  m.attention.sliding_window = chunk;
  m.attention.sliding_window_layers = std::min(layers, m.layers);
}

// Sliding-window layers per family (methodology §1.4 step 7). A window >= the context is no window.
void read_windows(const JsonReader& r, const std::string& type, ModelSpec& m) {
  if (type == "llama4") return read_chunked_attention(r, m);
  const i64 window = first_int(r, {"sliding_window"});
  if (window == 0 || (m.max_position > 0 && window >= m.max_position)) return;
  i64 layers = 0;
  if (auto types = r.find("layer_types")) {
    layers = count_sliding(*types);
  } else if (type == "mistral" || type == "phi3") {
    layers = m.layers;
  } else if (type == "qwen2" || type == "qwen2_moe" || type == "qwen3" || type == "qwen3_moe") {
    // Qwen2: layers from max_window_layers upward use the window, only with use_sliding_window.
    if (flag(r, "use_sliding_window", false))
      layers = m.layers - std::min(m.layers, first_int(r, {"max_window_layers"}));
  } else if (type == "gemma2" || type == "gpt_oss") {
    // Gemma2Config / GptOssConfig without layer_types: layer i slides when (i + 1) % 2 != 0, the even
    // layers (transformers __post_init__).
    layers = (m.layers + 1) / 2;
  } else if (type == "gemma3_text") {
    const i64 pattern = std::max<i64>(
        1, first_int(r, {"sliding_window_pattern"}) == 0 ? 6 : first_int(r, {"sliding_window_pattern"}));
    layers = m.layers - m.layers / pattern; // every pattern-th layer is global
  } else if (type == "generic") {
    // An unknown family without layer_types: a window on every layer, as Mistral and Phi-3 read it,
    // unless use_sliding_window says it is off (Qwen2 style). The warning names it.
    if (flag(r, "use_sliding_window", true)) layers = m.layers;
  }
  if (layers > 0) {
    m.attention.sliding_window = window;
    m.attention.sliding_window_layers = layers;
  }
}

void read_moe(const JsonReader& r, const std::string& type, ModelSpec& m) {
  m.moe.experts = first_int(r, {"num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts"});
  if (m.moe.experts == 0) return;
  m.moe.experts_per_token = required_int(r, {"num_experts_per_tok", "experts_per_token"});
  m.moe.expert_ffn_size = first_int(r, {"moe_intermediate_size"});
  if (m.moe.expert_ffn_size == 0) m.moe.expert_ffn_size = m.ffn_size; // Mixtral, gpt-oss: per-expert width
  if (type == "qwen2_moe" || type == "qwen3_next") {
    m.moe.shared_expert_ffn_size = first_int(r, {"shared_expert_intermediate_size"});
    m.moe.shared_experts = m.moe.shared_expert_ffn_size > 0 ? 1 : 0;
    m.moe.shared_expert_gate = m.moe.shared_experts > 0;
  }
  if (type == "deepseek_v3" || type == "glm4_moe") {
    m.moe.shared_experts = first_int(r, {"n_shared_experts"});
    m.moe.dense_layers = first_int(r, {"first_k_dense_replace"});
    // noaux_tc routing keeps an E-sized e_score_correction_bias parameter per MoE layer; GLM-4.5's
    // Glm4MoeTopkRouter always has one.
    if (auto method = r.find("topk_method"); method && method->as_string() == "noaux_tc")
      m.moe.router_bias = true;
    if (type == "glm4_moe") m.moe.router_bias = true;
  }
  if (type == "minimax_m2") m.moe.router_bias = flag(r, "use_routing_bias", false); // e_score_correction_bias
  if (type == "qwen2_moe" || type == "qwen3_moe" || type == "qwen3_next") {
    // Non-MoE layers: mlp_only_layers, plus layers off the decoder_sparse_step grid.
    const i64 step = std::max<i64>(1, first_int(r, {"decoder_sparse_step"}));
    std::vector<i64> dense;
    if (auto only = r.find("mlp_only_layers")) {
      for (const auto& e : only->elements())
        dense.push_back(e.as_int(0, m.layers - 1));
    }
    for (i64 i = 0; i < m.layers; ++i) {
      if ((i + 1) % step != 0) dense.push_back(i);
    }
    std::sort(dense.begin(), dense.end());
    m.moe.dense_layers = static_cast<i64>(std::unique(dense.begin(), dense.end()) - dense.begin());
  }
  if (type == "gpt_oss") {
    m.moe.router_bias = true;
    m.moe.expert_bias = true;
  }
  if (type == "llama4") {
    // Llama4TextMoe: one shared expert as wide as the routed ones; MoE layers from `moe_layers`, else
    // every interleave_moe_layer_step-th layer; the other layers have a dense MLP of
    // intermediate_size_mlp.
    m.moe.shared_experts = 1;
    if (const i64 mlp = first_int(r, {"intermediate_size_mlp"}); mlp > 0) m.ffn_size = mlp;
    if (auto listed = r.find("moe_layers")) {
      m.moe.dense_layers = m.layers - static_cast<i64>(listed->elements().size());
    } else {
      const i64 step = std::max<i64>(1, first_int(r, {"interleave_moe_layer_step"}));
      m.moe.dense_layers = m.layers - m.layers / step;
    }
  }
}

void read_family(const JsonReader& r, const std::string& type, ModelSpec& m) {
  const bool gated = type != "gpt_neox" && type != "gptj" && type != "falcon";
  m.ffn_gated = gated;
  if (type == "qwen2" || type == "qwen2_moe")
    m.qkv_bias = true; // Qwen2 q/k/v carry biases in the modeling code
  if (type == "llama" || type == "qwen3" || type == "qwen3_moe" || type == "gemma" || type == "gemma2" ||
      type == "gemma3_text" || type == "gpt_oss") {
    m.qkv_bias = m.o_bias = flag(r, "attention_bias", type == "gpt_oss");
  }
  if (type == "llama" || type == "generic") m.mlp_bias = flag(r, "mlp_bias", false);
  if (type == "generic") m.qkv_bias = m.o_bias = flag(r, "attention_bias", false);
  m.qk_norm = type == "qwen3" || type == "qwen3_moe" || type == "gemma3_text" || type == "qwen3_next";
  if (type == "qwen3_next") m.attention.output_gate = flag(r, "attn_output_gate", true); // gated attention
  if (type == "glm4_moe") {
    m.qkv_bias = flag(r, "attention_bias", false); // Glm4MoeAttention: q/k/v biased, o_proj not
    m.qk_norm = flag(r, "use_qk_norm", false);
  }
  if (type == "minimax_m2") {
    // MiniMax-M2 normalizes q and k over the whole projection (qk_norm_type "per_layer").
    m.qk_norm = flag(r, "use_qk_norm", true);
    const auto scope = r.find("qk_norm_type");
    m.attention.qk_norm_per_layer = !scope || scope->as_string() == "per_layer";
  }
  if (type == "gemma2" || type == "gemma3_text") m.norms_per_layer = 4;
  if (type == "gpt_oss") m.attention_sinks = true;
  if (type == "gpt_neox") {
    m.norm = NormKind::layer;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
  }
  if (type == "gptj") {
    m.norm = NormKind::layer;
    m.norms_per_layer = 1; // one ln_1 feeds attention and MLP in parallel
    m.mlp_bias = true;
    m.lm_head_bias = true;
  }
  if (type == "falcon") {
    m.norm = NormKind::layer;
    m.qkv_bias = m.o_bias = m.mlp_bias = flag(r, "bias", false);
    const bool new_arch = flag(r, "new_decoder_architecture", false);
    m.norms_per_layer =
        new_arch
            ? first_int(r, {"num_ln_in_parallel_attn"}) == 0 ? 2 : first_int(r, {"num_ln_in_parallel_attn"})
        : flag(r, "parallel_attn", true) ? 1
                                         : 2;
  }
}

void read_mla(const JsonReader& r, ModelSpec& m) {
  m.attention.kind = AttentionKind::mla;
  m.attention.q_lora_rank = first_int(r, {"q_lora_rank"});
  m.attention.kv_lora_rank = required_int(r, {"kv_lora_rank"});
  m.attention.qk_nope_head_dim = required_int(r, {"qk_nope_head_dim"});
  m.attention.rope_head_dim = required_int(r, {"qk_rope_head_dim"});
  m.attention.v_head_dim = required_int(r, {"v_head_dim"});
  m.head_dim = m.attention.qk_nope_head_dim + m.attention.rope_head_dim;
  m.kv_heads = m.heads; // num_key_value_heads is meaningless under MLA
}

// Gated-DeltaNet layers of the Qwen3-Next / Qwen3.5 hybrids (methodology §1.5): `layer_types`
// entries "linear_attention", else every layer but each full_attention_interval-th.
void read_linear_attention(const JsonReader& r, ModelSpec& m) {
  LinearAttentionSpec& la = m.linear_attention;
  if (auto types = r.find("layer_types")) {
    for (const auto& t : types->elements())
      la.layers += t.as_string() == "linear_attention" ? 1 : 0;
  } else {
    const i64 interval = first_int(r, {"full_attention_interval"});
    la.layers = interval > 0 ? m.layers - m.layers / interval : 0;
  }
  if (la.layers == 0) return;
  la.key_heads = required_int(r, {"linear_num_key_heads"});
  la.value_heads = required_int(r, {"linear_num_value_heads"});
  la.key_head_dim = required_int(r, {"linear_key_head_dim"});
  la.value_head_dim = required_int(r, {"linear_value_head_dim"});
  la.conv_kernel = required_int(r, {"linear_conv_kernel_dim"});
  // vLLM keeps the recurrent state in mamba_ssm_dtype when the config names it (Qwen3.5: float32),
  // else in the model dtype.
  if (auto dtype = r.find("mamba_ssm_dtype"))
    la.state_bytes_per_element = dtype->as_string() == "float32" ? 4 : 2;
}

// Jamba (Mamba-1 + attention + MoE hybrid) [JAMBA]: attention on layers i % attn_layer_period ==
// attn_layer_offset, Mamba on the rest; MoE of intermediate_size experts on layers
// i % expert_layer_period == expert_layer_offset, a dense MLP on the rest.
void read_jamba(const JsonReader& r, ModelSpec& m) {
  const auto every = [&](const char* period_key, const char* offset_key, i64 period_default,
                         i64 offset_default) {
    const i64 period = first_int(r, {period_key}) > 0 ? first_int(r, {period_key}) : period_default;
    const i64 offset = r.find(offset_key) ? r.at(offset_key).as_int(0, period - 1) : offset_default;
    i64 n = 0;
    for (i64 i = 0; i < m.layers; ++i)
      n += i % period == offset ? 1 : 0;
    return n;
  };
  LinearAttentionSpec& la = m.linear_attention;
  la.kind = LinearKind::mamba;
  la.layers = m.layers - every("attn_layer_period", "attn_layer_offset", 8, 4);
  const i64 expand = first_int(r, {"mamba_expand"}) > 0 ? first_int(r, {"mamba_expand"}) : 2;
  la.inner_size = expand * m.hidden_size;
  la.state_size = first_int(r, {"mamba_d_state"}) > 0 ? first_int(r, {"mamba_d_state"}) : 16;
  la.conv_kernel = first_int(r, {"mamba_d_conv"}) > 0 ? first_int(r, {"mamba_d_conv"}) : 4;
  // mamba_dt_rank "auto" (or absent) is ceil(h / 16), as in JambaConfig.
  auto rank = r.find("mamba_dt_rank");
  la.dt_rank =
      rank && rank->is_number() ? positive_count(*rank, 100'000'000, "units") : (m.hidden_size + 15) / 16;
  la.conv_bias = flag(r, "mamba_conv_bias", true);
  la.proj_bias = flag(r, "mamba_proj_bias", false);
  if (m.moe.experts <= 1) {
    m.moe = MoeSpec{}; // JambaConfig: MoE only with more than one expert
  } else {
    m.moe.expert_ffn_size = m.ffn_size;
    m.moe.dense_layers = m.layers - every("expert_layer_period", "expert_layer_offset", 2, 1);
  }
}

NumberFormat dtype_format(const JsonReader& r, std::vector<std::string>& assumptions) {
  for (const char* key : {"torch_dtype", "dtype"}) {
    if (auto v = r.find(key)) {
      const std::string name = v->as_string();
      if (name == "float32") return NumberFormat::fp32;
      if (name == "float16") return NumberFormat::fp16;
      if (name == "bfloat16") return NumberFormat::bf16;
      v->fail(fmt::format("expected \"bfloat16\", \"float16\" or \"float32\", got \"{}\"", name));
    }
  }
  assumptions.emplace_back("config has no torch_dtype: assumed bf16");
  return NumberFormat::bf16;
}

// quantization_config -> weight format (methodology §1.4 step 6, §2.2).
void read_quantization(const JsonReader& q, Precision& p, std::vector<std::string>& assumptions) {
  const std::string method = q.at("quant_method").as_string();
  const i64 bits = first_int(q, {"bits", "w_bit"});
  const auto group = [&](i64 fallback) {
    if (auto g = q.find("group_size"); g && g->as_number(-1, 1e6) > 0)
      return static_cast<int>(g->as_number(1, 1e6));
    if (auto g = q.find("q_group_size"); g && g->as_number(-1, 1e6) > 0)
      return static_cast<int>(g->as_number(1, 1e6));
    return static_cast<int>(fallback);
  };
  if (method == "gptq" || method == "awq") {
    if (bits != 4 && bits != 8) q.at("bits").fail(fmt::format("expected 4 or 8 bits, got {}", bits));
    p.weights = bits == 8          ? NumberFormat::int8
                : method == "gptq" ? NumberFormat::int4_gptq
                                   : NumberFormat::int4_awq;
    p.group_size = group(128);
  } else if (method == "fp8") {
    p.weights = NumberFormat::fp8;
  } else if (method == "mxfp4") {
    p.weights = NumberFormat::mxfp4;
  } else if (method == "quark") {
    read_quark_quantization(q, p, assumptions);
    return;
  } else if (method == "bitsandbytes") {
    p.weights = flag(q, "load_in_4bit", false) ? NumberFormat::nf4 : NumberFormat::int8;
  } else if (method == "compressed-tensors") {
    // The first config group says how weights are stored; without one the format is unknown (an
    // empty config_groups used to be read as int8 silently).
    const auto groups = q.find("config_groups");
    if (!groups) (void)q.at("config_groups"); // "missing required key"
    groups->expect_object();
    const std::vector<std::string> names = groups->keys();
    if (names.empty()) groups->fail("expected at least one quantization group, got none");
    const JsonReader w = groups->at(names.front()).at("weights");
    const i64 nbits = first_int(w, {"num_bits"});
    if (nbits != 4 && nbits != 8) w.at("num_bits").fail(fmt::format("expected 4 or 8 bits, got {}", nbits));
    const bool is_float = w.find("type") && w.at("type").as_string() == "float";
    p.weights = nbits == 8 ? (is_float ? NumberFormat::fp8 : NumberFormat::int8) : NumberFormat::int4_gptq;
    if (nbits == 4) p.group_size = static_cast<int>(std::max<i64>(first_int(w, {"group_size"}), 0));
  } else {
    q.at("quant_method")
        .fail(fmt::format("expected quant_method \"gptq\", \"awq\", \"fp8\", \"compressed-tensors\", "
                          "\"mxfp4\", \"quark\" or \"bitsandbytes\", "
                          "got \"{}\"",
                          method));
  }
  assumptions.push_back(
      fmt::format("quantization_config {}: weights stored as {}; embedding and LM head kept 16-bit", method,
                  format_info(p.weights).name));
}

// Rule 2-3 and the sizes: layers, widths, heads, vocabulary and context of the language model.
void read_shape(const JsonReader& r, const std::string& type, ModelSpec& m) {
  m.layers = required_int(r, {"num_hidden_layers", "n_layer", "num_layers"});
  m.hidden_size = required_int(r, {"hidden_size", "n_embd", "d_model"});
  m.heads = required_int(r, {"num_attention_heads", "n_head"});
  m.kv_heads = first_int(r, {"n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num"});
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  if (type == "falcon" && flag(r, "multi_query", true) && !flag(r, "new_decoder_architecture", false))
    m.kv_heads = 1;
  m.head_dim = first_int(r, {"head_dim", "hidden_size_per_head"});
  if (m.head_dim == 0) {
    if (m.hidden_size % m.heads != 0) {
      r.at("num_attention_heads")
          .fail(fmt::format("expected a head count that divides hidden_size {}, got {}", m.hidden_size,
                            m.heads));
    }
    m.head_dim = m.hidden_size / m.heads;
  }
  m.ffn_size = first_int(r, {"intermediate_size", "ffn_hidden_size", "n_inner"});
  if (m.ffn_size == 0) m.ffn_size = 4 * m.hidden_size; // GPT-J n_inner null, Falcon: 4h
  m.vocab_size = required_int(r, {"vocab_size", "padded_vocab_size"});
  m.max_position = first_int(r, {"max_position_embeddings", "n_positions", "max_sequence_length"});
}

// Precision (rule 9), the layers that are not counted, and the vision tower.
void read_extras(const JsonReader& root, const JsonReader& r, const std::string& outer_type, ModelSpec& m,
                 Precision& precision, std::vector<std::string>& assumptions) {
  const NumberFormat dtype = dtype_format(r.find("torch_dtype") || r.find("dtype") ? r : root, assumptions);
  precision = precision_from_shorthand(dtype);
  // Kimi-K2.5 keeps its quantization_config inside text_config.
  if (auto q = root.find("quantization_config") ? root.find("quantization_config")
                                                : r.find("quantization_config")) {
    read_quantization(*q, precision, assumptions);
  }
  // DeepSeek-V3 / GLM: num_nextn_predict_layers; Qwen3.5: mtp_num_hidden_layers; MiniMax-M2.5:
  // num_mtp_modules. What `speculative.method "mtp"` drafts with (methodology §3.8).
  for (const char* key : {"num_nextn_predict_layers", "mtp_num_hidden_layers", "num_mtp_modules"}) {
    auto v = r.find(key);
    if (v && (m.mtp_layers = non_negative_count(*v, 16, "layers")) > 0) {
      assumptions.emplace_back("multi-token-prediction layers are not counted");
      break;
    }
  }
  if (m.attention.index_heads > 0) {
    assumptions.emplace_back("sparse-attention indexer: its key cache is counted, its top-k selection "
                             "is not (attention reads the whole context)");
  }
  if (auto vision = root.find("vision_config")) {
    if (auto tower = import_vision_config(root, *vision, outer_type, m.hidden_size)) {
      m.vision = *tower;
    } else {
      assumptions.emplace_back("vision tower in vision_config is not counted");
    }
  }
}

// The model_type whose rules apply to the language model (rule 1: text_config's own model_type
// when it names one), with the aliases of the multimodal wrappers' text models.
std::string language_type(const JsonReader& root, std::string type) {
  if ((type == "llava" || type == "qwen3_vl" || type == "qwen3_vl_moe") && !root.find("text_config"))
    (void)root.at("text_config"); // these wrappers keep the language model there: "missing required key"
  if (auto text = root.find("text_config")) {
    text->expect_object();
    if (auto inner = text->find("model_type")) type = inner->as_string();
  }
  if (type == "gemma3") type = "gemma3_text"; // Gemma3Config's text_config is a Gemma3TextConfig
  return type;
}

std::string class_aliases(std::string type) {
  if (type == "qwen3_5_moe_text") return "qwen3_5_moe";
  if (type == "llama4_text") return "llama4";
  if (type == "qwen3_vl_text") return "qwen3";
  if (type == "qwen3_vl_moe_text") return "qwen3_moe";
  return type;
}

} // namespace

ModelSpec import_hf_config(const nlohmann::json& config, const std::string& source, Precision& precision,
                           std::vector<std::string>& assumptions, std::vector<std::string>* warnings) {
  const JsonReader root(config, source);
  root.expect_object();
  const std::string outer_type = root.at("model_type").as_string();
  const std::string class_type = language_type(root, outer_type);
  const auto text = root.find("text_config");
  const JsonReader given = text ? *text : root;
  // Rule 0: the keys the file leaves out take the configuration class's defaults, on a copy that
  // `r` reads (same file and pointers in messages).
  nlohmann::json language = given.value();
  const std::string defaults = apply_class_defaults(class_type, language);
  if (!defaults.empty()) assumptions.push_back(defaults);
  const JsonReader r(language, source, given.pointer());
  std::string type = class_aliases(class_type);
  const auto& types = supported_types();
  const bool generic = std::find(types.begin(), types.end(), type) == types.end();
  if (generic) check_generic_decoder(root, r, type, types); // rule 10
  ModelSpec m;
  read_shape(r, type, m);
  const std::string model_type = type;
  type = generic ? "generic" : family_of(type);
  const bool tie_given =
      r.find("tie_word_embeddings").has_value() || root.find("tie_word_embeddings").has_value();
  m.tied_embeddings = flag(r, "tie_word_embeddings", flag(root, "tie_word_embeddings", default_tie(type)));
  read_family(r, type, m);
  if (type == "deepseek_v3") read_mla(r, m);
  if (model_type == "glm_moe_dsa" || model_type == "deepseek_v32") {
    // DSA lightning indexer (GlmMoeDsaConfig defaults: 32 heads of 128).
    m.attention.index_heads = first_int(r, {"index_n_heads"}) > 0 ? first_int(r, {"index_n_heads"}) : 32;
    m.attention.index_head_dim =
        first_int(r, {"index_head_dim"}) > 0 ? first_int(r, {"index_head_dim"}) : 128;
  }
  if (type == "qwen3_next") read_linear_attention(r, m);
  read_moe(r, type, m);
  if (type == "jamba") read_jamba(r, m);
  read_windows(r, type, m);
  if (m.attention.kind != AttentionKind::mla) {
    m.attention.kind = m.kv_heads == m.heads ? AttentionKind::mha
                       : m.kv_heads == 1     ? AttentionKind::mqa
                                             : AttentionKind::gqa;
  }
  read_extras(root, r, outer_type, m, precision, assumptions);
  if (generic) {
    const std::string note = generic_decoder_note(model_type, m, tie_given);
    assumptions.push_back(note);
    if (warnings != nullptr) warnings->push_back(source + ": " + note);
  }
  return m;
}

} // namespace rightsize::io
