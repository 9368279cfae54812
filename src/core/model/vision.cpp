// Vision towers of vision-language models: parameter counts, image tokens and encoder FLOPs per
// image (methodology §1.6).
#include "rightsize/vision.hpp"

#include <algorithm>
#include <cmath>

#include "core/numeric.hpp"

namespace rightsize {
namespace {

using i64 = std::int64_t;

using core::d;

i64 norm_params(i64 width, bool layer_norm) {
  return layer_norm ? 2 * width : width;
}

i64 projector_linears(const VisionTowerSpec& v, bool with_bias) {
  i64 n = 0;
  for (const auto& l : v.projector)
    n += l.in_size * l.out_size + (with_bias && l.bias ? l.out_size : 0);
  return n;
}

// Qwen2-VL smart_resize [HF-QWEN2VL-IP]: each side rounded to a multiple of f = p·merge pixels,
// then the area scaled into [min_pixels, max_pixels] keeping the aspect ratio.
void smart_resize(const VisionTowerSpec& v, i64 width, i64 height, i64& out_w, i64& out_h) {
  const double f = d(v.patch_size * v.merge_size);
  double h = std::max(f, std::nearbyint(d(height) / f) * f);
  double w = std::max(f, std::nearbyint(d(width) / f) * f);
  const double area = d(width) * d(height);
  if (v.max_pixels > 0 && h * w > d(v.max_pixels)) {
    const double beta = std::sqrt(area / d(v.max_pixels));
    h = std::max(f, std::floor(d(height) / beta / f) * f);
    w = std::max(f, std::floor(d(width) / beta / f) * f);
  } else if (v.min_pixels > 0 && h * w < d(v.min_pixels)) {
    const double beta = std::sqrt(d(v.min_pixels) / area);
    h = std::ceil(d(height) * beta / f) * f;
    w = std::ceil(d(width) * beta / f) * f;
  }
  out_w = static_cast<i64>(w);
  out_h = static_cast<i64>(h);
}

} // namespace

VisionParams count_vision_params(const VisionTowerSpec& v) {
  VisionParams p;
  if (v.layers <= 0) return p;
  const i64 h = v.hidden_size;
  const i64 i = v.ffn_size;
  // Block: q, k, v, o (4·h_v² + 4·h_v biases), MLP (gated 3·h_v·I_v, else 2·h_v·I_v, plus biases),
  // two norms.
  const i64 attention = 4 * h * h + (v.attention_bias ? 4 * h : 0);
  const i64 mlp_weights = (v.ffn_gated ? 3 : 2) * h * i;
  const i64 mlp = mlp_weights + (v.mlp_bias ? (v.ffn_gated ? 2 * i : i) + h : 0);
  const i64 block = attention + mlp + 2 * norm_params(h, v.layer_norm);
  p.per_block_gemm = 4 * h * h + mlp_weights;
  const i64 patch =
      v.channels * v.patch_size * v.patch_size * v.temporal_patch_size * h + (v.patch_bias ? h : 0);
  p.encoder = patch + v.position_embeddings * h + (v.class_token ? h : 0) + v.layers * block +
              v.outer_norms * norm_params(h, v.layer_norm);
  const i64 linears = projector_linears(v, true);
  p.projector =
      linears + (v.projector_norm_size > 0 ? norm_params(v.projector_norm_size, v.projector_layer_norm) : 0);
  if (v.deepstack_mergers > 0 && !v.projector.empty()) {
    // Each DeepStack merger: the same linears behind a LayerNorm of the merged width.
    p.projector += v.deepstack_mergers * (linears + 2 * v.projector.front().in_size);
  }
  p.total = p.encoder + p.projector;
  return p;
}

std::int64_t default_image_side_px(const VisionTowerSpec& v) {
  return v.rule == VisionTokenRule::dynamic_resolution || v.image_size <= 0 ? 1024 : v.image_size;
}

VisionImage vision_image(const VisionTowerSpec& v, std::int64_t width_px, std::int64_t height_px) {
  VisionImage img;
  if (v.layers <= 0 || v.patch_size <= 0) return img;
  const i64 merge = std::max<i64>(1, v.merge_size);
  i64 patches = 0;
  i64 tokens_per_tile = 0;
  if (v.rule == VisionTokenRule::dynamic_resolution) {
    smart_resize(v, width_px, height_px, img.resized_width_px, img.resized_height_px);
    patches = (img.resized_width_px / v.patch_size) * (img.resized_height_px / v.patch_size);
    tokens_per_tile = patches / (merge * merge);
  } else {
    const i64 side = v.image_size / v.patch_size;
    patches = side * side;
    tokens_per_tile = (side / merge) * (side / merge);
    img.resized_width_px = img.resized_height_px = v.image_size;
    if (v.rule == VisionTokenRule::tiled && v.image_size > 0) {
      // Llama-4 [HF-LLAMA4-IP]: up to max_tiles tiles of image_size², plus a global thumbnail tile
      // when the image needs more than one.
      const i64 across = (width_px + v.image_size - 1) / v.image_size;
      const i64 down = (height_px + v.image_size - 1) / v.image_size;
      const i64 tiles = std::clamp<i64>(across * down, 1, std::max<i64>(1, v.max_tiles));
      img.tiles = tiles + (tiles > 1 ? 1 : 0);
    }
  }
  img.encoder_tokens = patches + (v.class_token ? 1 : 0);
  img.tokens = img.tiles * tokens_per_tile;
  // ViT forward per tile (methodology §1.6): 2 FLOPs per GEMM weight per patch (patch embedding and
  // blocks), attention 4·S·S_att·h_v per block (full: S_att = S; windowed: the window), and the
  // projector over the merged tokens.
  const VisionParams c = count_vision_params(v);
  const double s = d(img.encoder_tokens);
  const double patch_weights =
      d(v.channels * v.patch_size * v.patch_size * v.temporal_patch_size * v.hidden_size);
  const i64 full = v.window_patches > 0 && v.full_attention_layers > 0
                       ? std::min(v.full_attention_layers, v.layers)
                       : v.layers;
  const double window = v.window_patches > 0 ? std::min(s, d(v.window_patches)) : s;
  const double attention = 4.0 * s * d(v.hidden_size) * (d(full) * s + d(v.layers - full) * window);
  const double projector = 2.0 * d(tokens_per_tile) * d(projector_linears(v, false)) *
                           d(1 + std::max<i64>(0, v.deepstack_mergers));
  img.encoder_flops =
      d(img.tiles) * (2.0 * s * (patch_weights + d(v.layers) * d(c.per_block_gemm)) + attention + projector);
  return img;
}

VisionRequest vision_request(const VisionTowerSpec& v) {
  VisionRequest r;
  if (v.layers <= 0 || v.images_per_request <= 0) return r;
  const i64 side = default_image_side_px(v);
  r.image = vision_image(v, v.image_width_px > 0 ? v.image_width_px : side,
                         v.image_height_px > 0 ? v.image_height_px : side);
  r.image_tokens = v.images_per_request * r.image.tokens;
  r.encoder_flops = d(v.images_per_request) * r.image.encoder_flops;
  return r;
}

} // namespace rightsize
