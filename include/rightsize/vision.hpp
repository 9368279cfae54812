#pragma once
#include <cstdint>
#include <vector>

namespace rightsize {

/// How a vision-language model turns one image into LM input tokens (methodology §1.6).
enum class VisionTokenRule : std::uint8_t {
  /// The image is resized to image_size² (LLaVA-1.5 CLIP, Gemma-3 SigLIP): a fixed token count.
  fixed_resolution,
  /// Native resolution rounded to patch·merge pixels within [min_pixels, max_pixels] (Qwen2.5-VL,
  /// Qwen3-VL): (H/(p·m))·(W/(p·m)) tokens.
  dynamic_resolution,
  /// Tiles of image_size² (up to max_tiles) plus one global tile when there are several (Llama-4).
  tiled,
};

/// One linear layer of the projector (merger / adapter) from the vision tower into the LM.
struct ProjectorLinear {
  std::int64_t in_size = 0;
  std::int64_t out_size = 0;
  bool bias = false;
};

/// The vision tower of a vision-language model (a ViT plus its projector); layers == 0 = none.
struct VisionTowerSpec {
  VisionTokenRule rule = VisionTokenRule::fixed_resolution;
  std::int64_t layers = 0;      ///< ViT blocks L_v
  std::int64_t hidden_size = 0; ///< h_v
  std::int64_t heads = 0;
  std::int64_t ffn_size = 0;            ///< I_v
  bool ffn_gated = false;               ///< SwiGLU MLP (Qwen2.5-VL) vs fc1/fc2
  bool layer_norm = true;               ///< LayerNorm (weight + bias) vs RMSNorm (weight)
  bool attention_bias = true;           ///< q/k/v/o biases
  bool mlp_bias = true;                 ///< MLP biases
  std::int64_t channels = 3;            ///< input channels
  std::int64_t patch_size = 0;          ///< p, pixels per patch side
  std::int64_t temporal_patch_size = 1; ///< frames one patch spans (Qwen: 2; a still image is repeated)
  bool patch_bias = false;              ///< patch-embedding bias
  std::int64_t position_embeddings = 0; ///< learned absolute positions (0 = rotary)
  bool class_token = false;             ///< a learned CLS token joins the patch sequence
  std::int64_t outer_norms = 0;         ///< norms outside the blocks (pre / post layernorm)
  std::int64_t image_size = 0;          ///< pixels per side of a fixed-resolution image or a tile
  std::int64_t merge_size = 1;          ///< patches per side folded into one LM token (merge, pool, shuffle)
  std::int64_t max_tiles = 1;           ///< tiled: most tiles per image
  std::int64_t min_pixels = 0;          ///< dynamic: smallest resized area
  std::int64_t max_pixels = 0;          ///< dynamic: largest resized area
  std::int64_t full_attention_layers = 0; ///< windowed ViT: blocks with full attention (0 = all)
  std::int64_t window_patches = 0;        ///< windowed ViT: patches one window holds
  /// Projector into the LM's hidden size, run over the image tokens after merging.
  std::vector<ProjectorLinear> projector;
  std::int64_t projector_norm_size = 0; ///< width of the norm before the projector (0 = none)
  bool projector_layer_norm = false;    ///< that norm is a LayerNorm (weight + bias)
  /// Qwen3-VL DeepStack: extra mergers (same linears, a LayerNorm of the merged width) for features
  /// of intermediate blocks.
  std::int64_t deepstack_mergers = 0;

  // The request (workload.images_per_request, image_width_px, image_height_px).
  std::int64_t images_per_request = 0;
  std::int64_t image_width_px = 0;
  std::int64_t image_height_px = 0;
};

/// Parameter counts of a vision tower (methodology §1.6).
struct VisionParams {
  std::int64_t encoder = 0;   ///< patch embedding, positions, blocks, outer norms
  std::int64_t projector = 0; ///< merger / adapter / projector (DeepStack mergers included)
  std::int64_t total = 0;
  std::int64_t per_block_gemm = 0; ///< GEMM weights of one ViT block (FLOPs: 2 per weight per patch)
};
VisionParams count_vision_params(const VisionTowerSpec& v);

/// One image through the tower (methodology §1.6).
struct VisionImage {
  std::int64_t tiles = 1;          ///< tiles (tiled rule) or 1
  std::int64_t encoder_tokens = 0; ///< ViT sequence per tile (patches, + CLS)
  std::int64_t tokens = 0;         ///< LM input tokens of the whole image
  std::int64_t resized_width_px = 0;
  std::int64_t resized_height_px = 0;
  double encoder_flops = 0.0; ///< ViT forward + projector over all tiles
};

/// The tokens and encoder FLOPs of one image of width × height pixels (> 0) under the tower's rule.
VisionImage vision_image(const VisionTowerSpec& v, std::int64_t width_px, std::int64_t height_px);

/// What the images of a request add (methodology §1.6).
struct VisionRequest {
  VisionImage image;             ///< one image
  std::int64_t image_tokens = 0; ///< all images of the request
  double encoder_flops = 0.0;    ///< all images of the request
};

/// What the request's images (v.images_per_request of v.image_width_px × v.image_height_px, each
/// default_image_side_px when 0) add to a prompt. No images: an empty request.
VisionRequest vision_request(const VisionTowerSpec& v);

/// The resolution an image is taken at when the workload names none: image_size² for fixed and
/// tiled towers, 1024² for dynamic ones (a typical photo or screenshot; methodology §1.6).
std::int64_t default_image_side_px(const VisionTowerSpec& v);

} // namespace rightsize
