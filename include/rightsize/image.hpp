#pragma once
// Image generation (DiT) workloads in images (docs/methodology.md §3.7 "Image generation"): the
// resolution sets the latent tokens, the steps and CFG passes the forward passes per image, and the
// text encoder and VAE decoder run once per image. Pure arithmetic; no I/O.
#include <cstdint>

namespace rightsize {

struct ModelSpec;

/// The image pipeline around a DiT (model JSON "image" block, docs/model-spec.md). Defaults describe
/// no pipeline: the model's tokens_per_item / passes_per_item stand as given.
struct ImagePipelineSpec {
  /// Pixels per latent token along one side: VAE downsampling × transformer patch size
  /// (FLUX.1 / SD3: 8 × 2 = 16). 0 = no image pipeline (tokens_per_item is used as given).
  std::int64_t pixels_per_token_side = 0;
  std::int64_t text_tokens = 0;            ///< text-encoder tokens that join the image tokens (FLUX.1: 512)
  std::int64_t width_px = 1024;            ///< image width (the workload may override)
  std::int64_t height_px = 1024;           ///< image height (the workload may override)
  std::int64_t steps = 28;                 ///< denoising steps (the workload may override)
  std::int64_t cfg_passes = 1;             ///< forward passes per step: 1 guidance-distilled, 2 with CFG
  double text_encoder_params = 0.0;        ///< run once per image over text_tokens; resident in memory
  double vae_decode_flops_per_pixel = 0.0; ///< VAE decoder FLOPs per output pixel
};

/// What a workload asks of an image model; 0 = the model's default.
struct ImageRequest {
  std::int64_t width_px = 0;
  std::int64_t height_px = 0;
  std::int64_t steps = 0;
  std::int64_t cfg_passes = 0;
};

/// One image's work (methodology §3.7).
struct ImageItem {
  std::int64_t image_tokens = 0; ///< ⌈W/p⌉·⌈H/p⌉ latent tokens
  std::int64_t text_tokens = 0;
  std::int64_t tokens = 0;         ///< image + text tokens one transformer pass sees
  std::int64_t passes = 0;         ///< steps × CFG passes
  double text_encoder_flops = 0.0; ///< 2·P_te·text_tokens, once per image
  double vae_decode_flops = 0.0;   ///< f_vae·W·H, once per image
};

/// Latent tokens of a W × H image: ⌈W/p⌉·⌈H/p⌉ with p = VAE downsample × patch ([FLUX-CFG],
/// [SD3] §2: 1024² at p = 16 → 64² = 4,096 tokens).
std::int64_t image_latent_tokens(std::int64_t width_px, std::int64_t height_px,
                                 std::int64_t pixels_per_token_side);

/// The pipeline with a request's non-zero fields applied.
ImagePipelineSpec apply_image_request(const ImagePipelineSpec& pipeline, const ImageRequest& request);

/// One image's tokens, passes and fixed (per image) FLOPs for a pipeline. Pure.
ImageItem image_item(const ImagePipelineSpec& pipeline);

/// GEMM FLOPs per token of one DiT forward pass, from the block layout (methodology §3.7):
/// 2·L·(2·h·(n_h + n_kv)·d_h + m·h·I) with m = 2 (plain MLP) or 3 (gated). Per-block modulation
/// (adaLN) runs once per pass on the conditioning vector, not per token, so it is left out: FLUX.1's
/// 12 B parameters hold 6.4 B per-token GEMM weights.
double dit_gemm_flops_per_token(const ModelSpec& model);

/// Attention FLOPs of one bidirectional DiT pass over n tokens: 4·L·n_h·d_h·n² (QKᵀ and PV over
/// every pair; no causal mask).
double dit_attention_flops(const ModelSpec& model, double tokens);

/// FLOPs of one image: passes × (GEMM + attention) + text encoder + VAE decode.
double image_flops(const ModelSpec& model, const ImageItem& item);

} // namespace rightsize
