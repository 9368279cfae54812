// The `model` object of spec files and presets (docs/model-spec.md, "model").
#include "io/spec/model_io.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "io/json/checks.hpp"
#include "io/spec/presets.hpp"
#include "io/spec/spec_io.hpp"

namespace rightsize::io {
namespace {

using i64 = std::int64_t;

// Upper bounds past which a value is a typo, not a model (docs/model-spec.md, "limits").
constexpr i64 k_max_layer_count = 1000;
// MTP modules: DeepSeek-V3 ships 1, MiniMax-M2.5 3 (their configs); 16 is the most draft tokens.
constexpr i64 k_max_mtp_layers = 16;
constexpr i64 k_max_dimension = 1'000'000;
constexpr i64 k_max_heads = 100'000;
constexpr i64 k_max_vocab = 10'000'000;
constexpr i64 k_max_experts = 100'000;
constexpr i64 k_max_context = 100'000'000;
constexpr i64 k_max_image_px = 65'536;
constexpr double k_max_params = 1e13; // 10 trillion
constexpr double k_min_params = 1e6;

const std::vector<std::string>& model_keys(bool allow_sources) {
  static const std::vector<std::string> with_sources = {"preset",
                                                        "hf_config",
                                                        "checkpoint",
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
                                                        "linear_attention",
                                                        "kind",
                                                        "qkv_bias",
                                                        "o_bias",
                                                        "mlp_bias",
                                                        "qk_norm",
                                                        "norm",
                                                        "norms_per_layer",
                                                        "lm_head_bias",
                                                        "attention_sinks",
                                                        "max_position",
                                                        "mtp_layers",
                                                        "tokens_per_item",
                                                        "passes_per_item",
                                                        "image",
                                                        "keep_embeddings_16bit"};
  static const std::vector<std::string> without = [] {
    std::vector<std::string> keys;
    for (const auto& k : with_sources) {
      if (k != "preset" && k != "hf_config" && k != "checkpoint") keys.push_back(k);
    }
    return keys;
  }();
  return allow_sources ? with_sources : without;
}

bool has(const JsonReader& r, std::string_view key) {
  return r.find(key).has_value();
}

void read_count(const JsonReader& r, std::string_view key, i64& out, i64 max, std::string_view noun) {
  if (auto v = r.find(key)) out = positive_count(*v, max, noun);
}
void read_non_negative(const JsonReader& r, std::string_view key, i64& out, i64 max, std::string_view noun) {
  if (auto v = r.find(key)) out = non_negative_count(*v, max, noun);
}
void read_flag(const JsonReader& r, std::string_view key, bool& out) {
  if (auto v = r.find(key)) out = v->as_bool();
}

void apply_moe(const JsonReader& moe, ModelSpec& m) {
  moe.expect_keys({"experts", "experts_per_token", "shared_experts", "expert_ffn_size", "dense_layers",
                   "shared_expert_ffn_size", "shared_expert_gate", "router_bias", "expert_bias"});
  read_count(moe, "experts", m.moe.experts, k_max_experts, "experts");
  read_count(moe, "experts_per_token", m.moe.experts_per_token, k_max_experts, "experts");
  read_non_negative(moe, "shared_experts", m.moe.shared_experts, k_max_experts, "experts");
  read_count(moe, "expert_ffn_size", m.moe.expert_ffn_size, k_max_dimension, "width");
  read_non_negative(moe, "dense_layers", m.moe.dense_layers, k_max_layer_count, "layers");
  read_non_negative(moe, "shared_expert_ffn_size", m.moe.shared_expert_ffn_size, k_max_dimension, "width");
  read_flag(moe, "shared_expert_gate", m.moe.shared_expert_gate);
  read_flag(moe, "router_bias", m.moe.router_bias);
  read_flag(moe, "expert_bias", m.moe.expert_bias);
}

void apply_attention(const JsonReader& a, ModelSpec& m) {
  a.expect_keys({"kind", "kv_lora_rank", "rope_head_dim", "sliding_window", "sliding_window_layers",
                 "q_lora_rank", "qk_nope_head_dim", "v_head_dim", "output_gate", "qk_norm_per_layer",
                 "index_heads", "index_head_dim"});
  if (auto kind = a.find("kind")) {
    const std::string k = kind->as_choice({"mha", "gqa", "mqa", "mla"});
    m.attention.kind = k == "mha"   ? AttentionKind::mha
                       : k == "mqa" ? AttentionKind::mqa
                       : k == "mla" ? AttentionKind::mla
                                    : AttentionKind::gqa;
  }
  read_count(a, "kv_lora_rank", m.attention.kv_lora_rank, k_max_dimension, "width");
  read_non_negative(a, "rope_head_dim", m.attention.rope_head_dim, k_max_dimension, "width");
  read_non_negative(a, "sliding_window", m.attention.sliding_window, k_max_context, "context");
  read_non_negative(a, "sliding_window_layers", m.attention.sliding_window_layers, k_max_layer_count,
                    "layers");
  read_non_negative(a, "q_lora_rank", m.attention.q_lora_rank, k_max_dimension, "width");
  read_non_negative(a, "qk_nope_head_dim", m.attention.qk_nope_head_dim, k_max_dimension, "width");
  read_non_negative(a, "v_head_dim", m.attention.v_head_dim, k_max_dimension, "width");
  read_flag(a, "output_gate", m.attention.output_gate);
  read_flag(a, "qk_norm_per_layer", m.attention.qk_norm_per_layer);
  read_non_negative(a, "index_heads", m.attention.index_heads, k_max_heads, "heads");
  read_non_negative(a, "index_head_dim", m.attention.index_head_dim, k_max_dimension, "width");
}

// Linear-attention (gated DeltaNet) layers, methodology §1.5.
void apply_linear_attention(const JsonReader& la, ModelSpec& m) {
  la.expect_keys({"kind", "layers", "key_heads", "value_heads", "key_head_dim", "value_head_dim",
                  "conv_kernel", "state_bytes_per_element", "inner_size", "state_size", "dt_rank",
                  "conv_bias", "proj_bias"});
  LinearAttentionSpec& l = m.linear_attention;
  if (auto v = la.find("kind"))
    l.kind =
        v->as_choice({"gated_deltanet", "mamba"}) == "mamba" ? LinearKind::mamba : LinearKind::gated_deltanet;
  read_count(la, "inner_size", l.inner_size, k_max_dimension, "width");
  read_count(la, "state_size", l.state_size, k_max_dimension, "width");
  read_count(la, "dt_rank", l.dt_rank, k_max_dimension, "width");
  read_flag(la, "conv_bias", l.conv_bias);
  read_flag(la, "proj_bias", l.proj_bias);
  read_non_negative(la, "layers", l.layers, k_max_layer_count, "layers");
  read_count(la, "key_heads", l.key_heads, k_max_heads, "heads");
  read_count(la, "value_heads", l.value_heads, k_max_heads, "heads");
  read_count(la, "key_head_dim", l.key_head_dim, k_max_dimension, "width");
  read_count(la, "value_head_dim", l.value_head_dim, k_max_dimension, "width");
  read_count(la, "conv_kernel", l.conv_kernel, 1024, "width");
  if (auto v = la.find("state_bytes_per_element")) l.state_bytes_per_element = v->as_int(1, 8);
}

// Explicit architecture fields (they override whatever the source set).
// The image pipeline of a DiT (docs/model-spec.md "image"): tokens and passes per image follow from
// the resolution, steps and CFG passes (methodology §3.7).
void apply_image(const JsonReader& im, ModelSpec& m) {
  im.expect_keys({"pixels_per_token_side", "text_tokens", "width_px", "height_px", "steps", "cfg_passes",
                  "text_encoder_params", "vae_decode_flops_per_pixel", "rotary_qk", "fused", "denoiser",
                  "unet_gemm_flops_per_pixel", "unet_attention"});
  ImagePipelineSpec& p = m.image;
  read_count(im, "pixels_per_token_side", p.pixels_per_token_side, 1024, "pixels");
  read_non_negative(im, "text_tokens", p.text_tokens, k_max_context, "tokens");
  read_count(im, "width_px", p.width_px, k_max_image_px, "pixels");
  read_count(im, "height_px", p.height_px, k_max_image_px, "pixels");
  read_count(im, "steps", p.steps, 10'000, "steps");
  read_count(im, "cfg_passes", p.cfg_passes, 8, "passes");
  if (auto v = im.find("text_encoder_params")) p.text_encoder_params = amount_in(*v, 0, 1e13);
  if (auto v = im.find("vae_decode_flops_per_pixel")) p.vae_decode_flops_per_pixel = amount_in(*v, 0, 1e12);
  read_flag(im, "rotary_qk", p.rotary_qk);
  read_flag(im, "fused", p.fused);
  read_image_denoiser(im, p);
  if (p.pixels_per_token_side <= 0) (void)im.at("pixels_per_token_side");
  const ImageItem item = image_item(p);
  m.tokens_per_item = item.tokens;
  m.passes_per_item = item.passes;
}

void apply_fields(const JsonReader& r, ModelSpec& m) {
  const bool reshaped = has(r, "hidden_size") || has(r, "heads");
  read_count(r, "layers", m.layers, k_max_layer_count, "layers");
  read_count(r, "hidden_size", m.hidden_size, k_max_dimension, "width");
  read_count(r, "heads", m.heads, k_max_heads, "heads");
  if (auto v = r.find("head_dim")) {
    m.head_dim = positive_count(*v, k_max_dimension, "width");
  } else if (reshaped && m.heads > 0) {
    if (m.hidden_size % m.heads != 0) {
      r.at("heads").fail(
          fmt::format("expected a head count that divides hidden_size {} (or give head_dim), got {}",
                      m.hidden_size, m.heads));
    }
    m.head_dim = m.hidden_size / m.heads;
  }
  if (auto v = r.find("kv_heads")) {
    m.kv_heads = positive_count(*v, k_max_heads, "heads");
  } else if (m.kv_heads == 0) {
    m.kv_heads = m.heads;
  }
  read_count(r, "ffn_size", m.ffn_size, k_max_dimension, "width");
  if (auto v = r.find("ffn")) m.ffn_gated = v->as_choice({"gated", "plain"}) == "gated";
  read_non_negative(r, "vocab_size", m.vocab_size, k_max_vocab, "vocabulary");
  read_flag(r, "tied_embeddings", m.tied_embeddings);
  read_flag(r, "qkv_bias", m.qkv_bias);
  read_flag(r, "o_bias", m.o_bias);
  read_flag(r, "mlp_bias", m.mlp_bias);
  read_flag(r, "qk_norm", m.qk_norm);
  read_flag(r, "lm_head_bias", m.lm_head_bias);
  read_flag(r, "attention_sinks", m.attention_sinks);
  read_flag(r, "keep_embeddings_16bit", m.keep_embeddings_16bit);
  if (auto v = r.find("norm"))
    m.norm = v->as_choice({"rms", "layer"}) == "rms" ? NormKind::rms : NormKind::layer;
  read_count(r, "norms_per_layer", m.norms_per_layer, 16, "norms");
  read_non_negative(r, "max_position", m.max_position, k_max_context, "context");
  read_non_negative(r, "mtp_layers", m.mtp_layers, k_max_mtp_layers, "layers");
  read_non_negative(r, "tokens_per_item", m.tokens_per_item, k_max_context, "tokens");
  read_count(r, "passes_per_item", m.passes_per_item, 100'000, "passes");
  if (auto v = r.find("image")) apply_image(*v, m);
  if (auto v = r.find("kind")) {
    const std::string k = v->as_choice({"decoder", "dit", "vit"});
    m.kind = k == "dit" ? ModelKind::dit : k == "vit" ? ModelKind::vit : ModelKind::decoder;
  }
  const AttentionKind before = m.attention.kind;
  if (auto moe = r.find("moe")) apply_moe(*moe, m);
  if (auto a = r.find("attention")) apply_attention(*a, m);
  if (auto la = r.find("linear_attention")) apply_linear_attention(*la, m);
  const bool kind_given = r.find("attention") && r.find("attention")->find("kind");
  if (!kind_given && before != AttentionKind::mla) {
    m.attention.kind = m.kv_heads == m.heads ? AttentionKind::mha
                       : m.kv_heads == 1     ? AttentionKind::mqa
                                             : AttentionKind::gqa;
  }
}

// The reader at `key` under `model` when it was given explicitly, else `model` itself.
JsonReader where(const JsonReader& model, std::string_view key) {
  auto v = model.find(key);
  return v ? *v : model;
}
JsonReader where(const JsonReader& model, std::string_view group, std::string_view key) {
  if (auto g = model.find(group)) {
    if (auto v = g->find(key)) return *v;
    return *g;
  }
  return model;
}

// Fails at `path` ("kv_heads", "moe.dense_layers") under `model` when it was given there; when the
// value came from a preset, hf_config or checkpoint the error points at `model` and names the field.
[[noreturn]] void inconsistent(const JsonReader& model, std::string_view path, const std::string& expectation,
                               i64 value) {
  const auto dot = path.find('.');
  const JsonReader at = dot == std::string_view::npos
                            ? where(model, path)
                            : where(model, path.substr(0, dot), path.substr(dot + 1));
  std::string pointer = model.pointer() + "/" + std::string(path);
  if (dot != std::string_view::npos) pointer[model.pointer().size() + 1 + dot] = '/';
  const std::string field = at.pointer() == pointer ? "" : std::string(path) + " ";
  at.fail(fmt::format("expected {}{}, got {}", field, expectation, value));
}

ResolvedModel from_checkpoint_only(const std::string& path, const JsonReader& model) {
  namespace fs = std::filesystem;
  ResolvedModel out;
  std::error_code ec;
  const fs::path config = fs::path(path) / "config.json";
  if (fs::is_directory(path, ec) && fs::exists(config, ec)) {
    out.model = import_hf_config(read_json_file(config.string()), config.string(), out.native,
                                 out.assumptions, &out.warnings);
    out.native_known = true;
    out.origin = "checkpoint " + path;
    out.assumptions.push_back("architecture read from " + config.string());
    return out;
  }
  const CheckpointInfo info = read_checkpoint(path);
  if (info.parameter_count < static_cast<i64>(k_min_params)) {
    where(model, "checkpoint")
        .fail(fmt::format("expected a checkpoint of at least {} parameters, got {}",
                          with_commas(static_cast<i64>(k_min_params)), with_commas(info.parameter_count)));
  }
  FittedArchitecture fit = fit_dense_architecture(info.parameter_count);
  out.model = fit.model;
  out.assumptions = fit.assumptions;
  out.origin = "checkpoint " + path;
  return out;
}

ResolvedModel resolve_source(const JsonReader& r, const ModelContext& ctx) {
  ResolvedModel out;
  if (auto p = r.find("preset")) {
    const std::string id = p->as_string();
    Preset preset = find_preset(id, ctx.models_dir, *p);
    out.model = preset.model;
    out.native = preset.precision;
    out.native_known = true;
    out.origin = "preset " + preset.id;
    return out;
  }
  if (auto h = r.find("hf_config")) {
    const std::string path = resolve_path(ctx.base_dir, h->as_string());
    out.model = import_hf_config(read_json_file(path), path, out.native, out.assumptions, &out.warnings);
    out.native_known = true;
    out.origin = "hf_config " + h->as_string();
    return out;
  }
  if (auto c = r.find("checkpoint")) {
    return from_checkpoint_only(resolve_path(ctx.base_dir, c->as_string()), r);
  }
  if (has(r, "layers") || has(r, "hidden_size")) {
    for (const char* key : {"layers", "hidden_size", "heads", "ffn_size"}) {
      if (!has(r, key)) (void)r.at(key); // "missing required key"
    }
    if (!has(r, "vocab_size") && !has(r, "kind")) (void)r.at("vocab_size");
    out.origin = "explicit architecture";
    return out;
  }
  if (auto p = r.find("params")) {
    const double params = positive_amount(*p, k_max_params, "parameters");
    if (params < k_min_params)
      p->fail("expected a parameter count of at least 1,000,000, got " + describe_value(p->value()));
    FittedArchitecture fit = fit_dense_architecture(static_cast<i64>(params));
    out.model = fit.model;
    out.assumptions = fit.assumptions;
    out.origin = "fitted to " + with_commas(static_cast<i64>(params)) + " parameters";
    return out;
  }
  r.fail(
      ctx.allow_sources
          ? "expected \"preset\", \"hf_config\", \"checkpoint\", \"params\" or a full architecture (layers, "
            "hidden_size, heads, ffn_size, vocab_size), got none of them"
          : "expected a full architecture (layers, hidden_size, heads, ffn_size, vocab_size), got none of "
            "it");
}

} // namespace

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const auto& f : all_formats())
    names.emplace_back(f.name);
  return names;
}

std::string resolve_path(const std::string& base_dir, const std::string& relative) {
  namespace fs = std::filesystem;
  const fs::path p(relative);
  if (p.is_absolute() || base_dir.empty()) return p.lexically_normal().string();
  return (fs::path(base_dir) / p).lexically_normal().string();
}

ResolvedModel resolve_model(const JsonReader& r, const ModelContext& ctx) {
  r.expect_keys(model_keys(ctx.allow_sources));
  if (has(r, "preset") && has(r, "hf_config")) {
    r.at("hf_config").fail("expected either \"preset\" or \"hf_config\", got both");
  }
  ResolvedModel out = resolve_source(r, ctx);
  apply_fields(r, out.model);
  if (auto p = r.find("params"); p && out.origin.rfind("fitted to ", 0) != 0) {
    const double params = positive_amount(*p, k_max_params, "parameters");
    if (params < k_min_params)
      p->fail("expected a parameter count of at least 1,000,000, got " + describe_value(p->value()));
    out.model.params_override = static_cast<i64>(params);
    out.assumptions.push_back("total parameters reported as given: " +
                              with_commas(out.model.params_override));
  }
  if (auto c = r.find("checkpoint"); c && out.model.checkpoint_weight_bytes == 0) {
    const std::string path = resolve_path(ctx.base_dir, c->as_string());
    const CheckpointInfo info = read_checkpoint(path);
    out.model.checkpoint_weight_bytes = info.weight_bytes;
    out.assumptions.push_back(fmt::format("weight bytes from the checkpoint ({}): {} bytes in {} tensors",
                                          info.basis, with_commas(info.weight_bytes),
                                          with_commas(info.tensor_count)));
  }
  validate_architecture(out.model, r);
  return out;
}

void read_image_denoiser(const JsonReader& im, ImagePipelineSpec& p) {
  if (auto v = im.find("denoiser"))
    p.denoiser = v->as_choice({"dit", "unet"}) == "unet" ? Denoiser::unet : Denoiser::dit;
  const auto flops = im.find("unet_gemm_flops_per_pixel");
  const auto levels = im.find("unet_attention");
  if (p.denoiser != Denoiser::unet) {
    for (const auto& key : {flops, levels}) {
      if (key) key->fail("expected only with image.denoiser \"unet\" (a DiT's FLOPs follow from its blocks)");
    }
    return;
  }
  // A UNet's convolutions have no block layout to count from: its measured per-pass figure is needed.
  if (!flops) {
    im.fail("expected image.unet_gemm_flops_per_pixel for image.denoiser \"unet\" (SDXL: 5,702,112 "
            "FLOPs per output pixel, 5,979 GFLOPs per pass at 1024x1024), got none");
  }
  p.unet_gemm_flops_per_pixel = positive_amount(*flops, 1e12, "FLOPs per pixel");
  p.unet_attention.clear();
  if (!levels) return;
  for (const JsonReader& level : levels->elements()) {
    level.expect_keys({"pixels_per_token_side", "blocks", "channels", "resnets"});
    UnetAttentionLevel l;
    l.pixels_per_token_side = positive_count(level.at("pixels_per_token_side"), 1024, "pixels");
    // A scale with resnet blocks only (SDXL's 128² level) has no transformer blocks.
    l.blocks = non_negative_count(level.at("blocks"), k_max_layer_count, "blocks");
    l.channels = positive_count(level.at("channels"), k_max_dimension, "width");
    read_non_negative(level, "resnets", l.resnets, k_max_layer_count, "blocks");
    if (l.blocks == 0 && l.resnets == 0)
      level.fail(
          "expected blocks or resnets above 0 (a UNet scale without blocks does no work), got neither");
    p.unet_attention.push_back(l);
  }
}

void validate_architecture(const ModelSpec& m, const JsonReader& r) {
  if (m.kv_heads > m.heads)
    inconsistent(r, "kv_heads", fmt::format("at most heads ({})", m.heads), m.kv_heads);
  if (m.heads % m.kv_heads != 0) {
    inconsistent(r, "kv_heads", fmt::format("a divisor of heads ({})", m.heads), m.kv_heads);
  }
  if (m.head_dim <= 0) inconsistent(r, "head_dim", "a positive value", m.head_dim);
  if (m.moe.experts > 0) {
    if (m.moe.experts_per_token < 1 || m.moe.experts_per_token > m.moe.experts) {
      inconsistent(r, "moe.experts_per_token", fmt::format("1 to moe.experts ({})", m.moe.experts),
                   m.moe.experts_per_token);
    }
    if (m.moe.expert_ffn_size <= 0) inconsistent(r, "moe.expert_ffn_size", "a positive width", 0);
  } else if (m.moe.experts_per_token > 0) {
    inconsistent(r, "moe.experts_per_token", "moe.experts to be given first", m.moe.experts_per_token);
  }
  if (m.moe.dense_layers > m.layers) {
    inconsistent(r, "moe.dense_layers", fmt::format("at most layers ({})", m.layers), m.moe.dense_layers);
  }
  if (m.attention.sliding_window_layers > m.layers) {
    inconsistent(r, "attention.sliding_window_layers", fmt::format("at most layers ({})", m.layers),
                 m.attention.sliding_window_layers);
  }
  if (m.kind != ModelKind::decoder && m.tokens_per_item <= 0) {
    // A DiT/ViT is sized per image: without its token count every figure would be zero (issue 19).
    where(r, "tokens_per_item")
        .fail(fmt::format("expected a positive tokens_per_item for kind \"{}\" (the tokens one image is "
                          "processed as: FLUX.1 at 1024x1024 is 4,096 image + 512 text tokens), got {}",
                          to_string(m.kind), m.tokens_per_item));
  }
  const LinearAttentionSpec& la = m.linear_attention;
  if (la.layers > m.layers) {
    inconsistent(r, "linear_attention.layers", fmt::format("at most layers ({})", m.layers), la.layers);
  }
  if (la.layers > 0 && la.kind == LinearKind::gated_deltanet &&
      (la.key_heads <= 0 || la.value_heads <= 0 || la.key_head_dim <= 0 || la.value_head_dim <= 0 ||
       la.conv_kernel <= 0)) {
    where(r, "linear_attention")
        .fail("expected key_heads, value_heads, key_head_dim, value_head_dim and conv_kernel for "
              "gated-DeltaNet layers");
  }
  if (la.layers > 0 && la.kind == LinearKind::mamba &&
      (la.inner_size <= 0 || la.state_size <= 0 || la.dt_rank <= 0 || la.conv_kernel <= 0)) {
    where(r, "linear_attention")
        .fail("expected inner_size, state_size, dt_rank and conv_kernel for Mamba layers");
  }
  if (m.attention.kind == AttentionKind::mla && m.attention.kv_lora_rank <= 0) {
    where(r, "attention").fail("expected attention.kv_lora_rank for attention kind \"mla\", got none");
  }
  // Each field has its own limit, but their product can still be absurd (and overflow 64 bits).
  if (const double params = params_upper_bound(m); params > k_max_params) {
    r.fail(fmt::format(
        "expected an architecture of at most {} parameters (more parameters is absurd), got about {:.3g}",
        with_commas(static_cast<i64>(k_max_params)), params));
  }
}

Precision parse_precision(const JsonReader& value, const Precision& native) {
  const auto format_at = [](const JsonReader& r) {
    if (!r.is_string())
      r.fail("expected a precision name such as \"bf16\", got " + describe_value(r.value()));
    const std::string name = r.as_string();
    if (auto f = parse_number_format(name)) return *f;
    const std::string hint = did_you_mean(name, format_names());
    if (!hint.empty()) r.fail(fmt::format("unknown precision \"{}\"; did you mean \"{}\"?", name, hint));
    r.fail(fmt::format("unknown precision \"{}\" (see docs/model-spec.md for the formats)", name));
  };
  if (value.is_string()) return precision_from_shorthand(format_at(value));
  value.expect_keys({"weights", "activations", "kv_cache", "group_size"});
  Precision p = native;
  if (auto w = value.find("weights")) p = precision_from_shorthand(format_at(*w));
  if (auto a = value.find("activations")) {
    p.activations = format_at(*a);
    if (!format_info(p.activations).usable_for_activations) {
      a->fail(
          fmt::format("expected an activation format (fp32, bf16, fp16, fp8, int8, mxfp4, nvfp4), got \"{}\"",
                      a->as_string()));
    }
  }
  if (auto k = value.find("kv_cache")) {
    p.kv_cache = format_at(*k);
    if (!format_info(p.kv_cache).usable_for_kv_cache) {
      k->fail(fmt::format("expected a KV-cache format (fp32, bf16, fp16, fp8), got \"{}\"", k->as_string()));
    }
  }
  if (auto g = value.find("group_size")) {
    const i64 size = positive_count(*g, 4096, "group size");
    p.group_size = static_cast<int>(size);
  }
  return p;
}

} // namespace rightsize::io
