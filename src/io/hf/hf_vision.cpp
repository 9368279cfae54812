// Vision towers of Hugging Face vision-language configs (methodology §1.6). Each family's layout is
// read from its Transformers modeling code (module shapes cited in docs/methodology.md §1.6).
#include "io/hf/hf_vision.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "io/json/checks.hpp"

namespace rightsize::io {
namespace {

using i64 = std::int64_t;

// Caps keep every product in count_vision_params far from overflow (h_v² · layers < 1e13).
constexpr i64 k_max_width = 65'536;
constexpr i64 k_max_layers = 1'000;

i64 width(const JsonReader& v, std::string_view key, i64 fallback = 0) {
  if (auto x = v.find(key)) return positive_count(*x, k_max_width, "units");
  if (fallback == 0) (void)v.at(key); // "missing required key"
  return fallback;
}

i64 layers(const JsonReader& v, std::string_view key) {
  return positive_count(v.at(key), k_max_layers, "layers");
}

i64 count_entries(const JsonReader& v, std::string_view key) {
  auto x = v.find(key);
  return x ? static_cast<i64>(x->elements().size()) : 0;
}

// The ViT shape of CLIP / SigLIP / Llama-4 vision configs (num_hidden_layers, num_attention_heads),
// at a fixed image_size² with one learned position per patch.
VisionTowerSpec fixed_vit(const JsonReader& v) {
  VisionTowerSpec t;
  t.layers = layers(v, "num_hidden_layers");
  t.hidden_size = width(v, "hidden_size");
  t.heads = width(v, "num_attention_heads");
  t.ffn_size = width(v, "intermediate_size");
  t.channels = width(v, "num_channels", 3);
  t.patch_size = width(v, "patch_size");
  t.image_size = width(v, "image_size");
  const i64 side = t.image_size / t.patch_size;
  t.position_embeddings = side * side;
  return t;
}

// The ViT shape and merger of Qwen2.5-VL / Qwen3-VL vision configs (depth, num_heads) at native
// resolution: the merger takes merge² patches (4·h_v) through 4·h_v → 4·h_v → out_hidden_size.
VisionTowerSpec qwen_vit(const JsonReader& v, i64 patch_default) {
  VisionTowerSpec t;
  t.rule = VisionTokenRule::dynamic_resolution;
  t.layers = layers(v, "depth");
  t.hidden_size = width(v, "hidden_size");
  t.heads = width(v, "num_heads");
  t.ffn_size = width(v, "intermediate_size");
  t.channels = width(v, "in_channels", width(v, "in_chans", 3));
  t.patch_size = width(v, "patch_size", patch_default);
  t.temporal_patch_size = width(v, "temporal_patch_size", 2);
  t.merge_size = width(v, "spatial_merge_size", 2);
  const i64 merged = t.hidden_size * t.merge_size * t.merge_size;
  t.projector = {{merged, merged, true}, {merged, width(v, "out_hidden_size"), true}};
  t.projector_norm_size = t.hidden_size;
  return t;
}

// Qwen2.5-VL [HF-QWEN25VL]: Conv3d patch embedding (2 frames × 14², no bias), rotary positions,
// RMSNorm blocks with qkv/proj biases and a biased SwiGLU MLP, window attention but in
// fullatt_block_indexes; Qwen2_5_VLPatchMerger: RMSNorm(h_v), 4·h_v → 4·h_v → out_hidden_size.
VisionTowerSpec qwen25_vl(const JsonReader& v) {
  VisionTowerSpec t = qwen_vit(v, 14);
  t.ffn_gated = true;
  t.layer_norm = false;
  const i64 window_px = width(v, "window_size", 112);
  t.window_patches = (window_px / t.patch_size) * (window_px / t.patch_size);
  t.full_attention_layers = count_entries(v, "fullatt_block_indexes");
  // Qwen2VLImageProcessor defaults: min_pixels 56·56, max_pixels 28·28·16384.
  t.min_pixels = 3'136;
  t.max_pixels = 12'845'056;
  return t;
}

// Qwen3-VL [HF-QWEN3VL]: biased Conv3d (2 × 16²), learned positions (num_position_embeddings,
// interpolated), LayerNorm blocks with a biased fc1/fc2 MLP; merger LayerNorm(h_v), 4·h_v → 4·h_v →
// out_hidden_size, plus one DeepStack merger (LayerNorm of 4·h_v) per deepstack_visual_indexes entry.
VisionTowerSpec qwen3_vl(const JsonReader& v) {
  VisionTowerSpec t = qwen_vit(v, 16);
  t.patch_bias = true;
  t.position_embeddings = width(v, "num_position_embeddings", 2'304);
  // Qwen3-VL's processor: shortest_edge 65,536 and longest_edge 16,777,216 pixels of area.
  t.min_pixels = 65'536;
  t.max_pixels = 16'777'216;
  t.projector_layer_norm = true;
  t.deepstack_mergers = count_entries(v, "deepstack_visual_indexes");
  return t;
}

// Gemma-3 [HF-GEMMA3]: SigLIP (biased patch Conv2d, learned positions, LayerNorm blocks, biased
// fc1/fc2, post_layernorm) at image_size², average-pooled to mm_tokens_per_image (256) tokens;
// projector Gemma3RMSNorm(h_v) then h_v × h_text, no bias.
VisionTowerSpec gemma3(const JsonReader& root, const JsonReader& v, i64 lm_hidden) {
  VisionTowerSpec t = fixed_vit(v);
  const i64 side = t.image_size / t.patch_size;
  t.patch_bias = true;
  t.outer_norms = 1;
  const i64 tokens = root.find("mm_tokens_per_image") ? width(root, "mm_tokens_per_image") : 256;
  const auto per_side = static_cast<i64>(std::llround(std::sqrt(static_cast<double>(tokens))));
  if (per_side * per_side != tokens || side % per_side != 0) {
    (root.find("mm_tokens_per_image") ? root.at("mm_tokens_per_image") : v.at("image_size"))
        .fail(fmt::format("expected a square number of tokens whose side divides {} patches, got {}", side,
                          tokens));
  }
  t.merge_size = side / per_side;
  t.projector = {{t.hidden_size, lm_hidden, false}};
  t.projector_norm_size = t.hidden_size;
  return t;
}

// Llama-4 [HF-LLAMA4]: unfold + linear patch embedding (no bias), CLS + learned positions,
// pre/post LayerNorm, LayerNorm blocks with biased q/k/v/o and fc1/fc2; pixel-shuffle adapter
// (intermediate_size → projector_input_dim, projector_output_dim²; no biases) and
// multi_modal_projector vision_output_dim → h_text.
VisionTowerSpec llama4(const JsonReader& v, i64 lm_hidden) {
  VisionTowerSpec t = fixed_vit(v);
  t.rule = VisionTokenRule::tiled;
  t.position_embeddings += 1; // and one for the CLS token
  t.class_token = true;
  t.outer_norms = 2;
  const double ratio = v.at("pixel_shuffle_ratio").as_number(0.01, 1.0);
  t.merge_size = std::max<i64>(1, std::llround(1.0 / ratio));
  t.max_tiles = 16; // Llama4ImageProcessor max_patches
  const bool bias = v.find("multi_modal_projector_bias") && v.at("multi_modal_projector_bias").as_bool();
  t.projector = {{t.ffn_size, width(v, "projector_input_dim"), false},
                 {width(v, "projector_output_dim"), width(v, "projector_output_dim"), false},
                 {width(v, "vision_output_dim"), lm_hidden, bias}};
  return t;
}

// LLaVA-1.5 [HF-LLAVA]: CLIP ViT (patch Conv2d without bias, CLS + learned positions,
// pre_layrnorm and post_layernorm, LayerNorm blocks, biased fc1/fc2) at image_size²; the
// multi_modal_projector h_v → h_text → h_text with biases. vision_feature_select_strategy
// "default" drops the CLS token: (image_size/patch)² tokens per image.
VisionTowerSpec llava(const JsonReader& root, const JsonReader& v, i64 lm_hidden) {
  VisionTowerSpec t = fixed_vit(v);
  t.position_embeddings += 1; // and one for the CLS token
  t.class_token = true;
  t.outer_norms = 2;
  const bool bias = !root.find("multimodal_projector_bias") || root.at("multimodal_projector_bias").as_bool();
  t.projector = {{t.hidden_size, lm_hidden, bias}, {lm_hidden, lm_hidden, bias}};
  return t;
}

} // namespace

std::optional<VisionTowerSpec> import_vision_config(const JsonReader& root, const JsonReader& vision,
                                                    const std::string& type, std::int64_t lm_hidden) {
  vision.expect_object();
  VisionTowerSpec t;
  if (type == "qwen2_5_vl") {
    t = qwen25_vl(vision);
  } else if (type == "qwen3_vl" || type == "qwen3_vl_moe") {
    t = qwen3_vl(vision);
  } else if (type == "gemma3") {
    t = gemma3(root, vision, lm_hidden);
  } else if (type == "llama4") {
    t = llama4(vision, lm_hidden);
  } else if (type == "llava") {
    t = llava(root, vision, lm_hidden);
  } else {
    return std::nullopt;
  }
  if (t.hidden_size % t.heads != 0) {
    vision.fail(fmt::format("expected a head count that divides the vision hidden size {}, got {}",
                            t.hidden_size, t.heads));
  }
  if (t.image_size > 0 && t.image_size % t.patch_size != 0) {
    vision.at("image_size")
        .fail(fmt::format("expected a multiple of patch_size {}, got {}", t.patch_size, t.image_size));
  }
  return t;
}

} // namespace rightsize::io
