// Image generation workloads (docs/methodology.md §3.7). Sources: [FLUX-CFG] the FLUX.1-dev
// transformer / VAE configs (patch 2, VAE ×8, 16 latent channels, 19 + 38 blocks, d = 3072);
// [SD3] Esser et al. 2024, "Scaling Rectified Flow Transformers", §2 (latent patching, joint text +
// image attention); [KAPLAN] 2·N FLOPs per token per GEMM weight; [FA2] Dao 2023, "FlashAttention-2",
// abstract (50–73 % of the A100's peak); [FA3] Shah et al. 2024, "FlashAttention-3", abstract
// ("FlashAttention-2 achieving only 35% utilization on the H100 GPU"); [DIFFUSERS-FLUX] diffusers
// transformer_flux.py (FluxTransformerBlock, FluxSingleTransformerBlock), attention_processor.py
// (FluxAttnProcessor2_0, JointAttnProcessor2_0), normalization.py (RMSNorm, AdaLayerNormZero),
// embeddings.py (apply_rotary_emb): the eager elementwise ops counted in dit_unfused_rw_per_token_block;
// [DIFFUSERS-BENCH] huggingface/diffusers benchmarks/collated_results.csv (SDXL UNet2DConditionModel
// at 1024², batch 1: flops_M 5,979,098.32, from benchmarking_utils.py calculate_flops = 2 × torchprofile
// profile_macs, which counts convolutions and linear layers but not scaled_dot_product_attention);
// [DIFFUSERS-UNET] diffusers resnet.py (ResnetBlock2D.forward), attention.py (BasicTransformerBlock,
// GEGLU), attention_processor.py (AttnProcessor2_0): the eager elementwise ops of a UNet pass.
#include "rightsize/image.hpp"

#include <algorithm>

#include "core/numeric.hpp"
#include "rightsize/image_attention.hpp"
#include "rightsize/model.hpp"

namespace rightsize {
namespace {

using core::d;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return b > 0 ? (a + b - 1) / b : 0;
}

} // namespace

std::int64_t image_latent_tokens(std::int64_t width_px, std::int64_t height_px, std::int64_t p) {
  if (width_px <= 0 || height_px <= 0 || p <= 0) return 0;
  return ceil_div(width_px, p) * ceil_div(height_px, p);
}

ImagePipelineSpec apply_image_request(const ImagePipelineSpec& pipeline, const ImageRequest& r) {
  ImagePipelineSpec out = pipeline;
  if (r.width_px > 0) out.width_px = r.width_px;
  if (r.height_px > 0) out.height_px = r.height_px;
  if (r.steps > 0) out.steps = r.steps;
  if (r.cfg_passes > 0) out.cfg_passes = r.cfg_passes;
  if (r.fused >= 0) out.fused = r.fused == 1;
  return out;
}

ImageItem image_item(const ImagePipelineSpec& p) {
  ImageItem item;
  item.image_tokens = image_latent_tokens(p.width_px, p.height_px, p.pixels_per_token_side);
  item.text_tokens = std::max<std::int64_t>(0, p.text_tokens);
  // A DiT attends over image and text tokens jointly [SD3 §2]; a UNet's rows are its latent
  // positions and the text enters only as cross-attention keys and values.
  item.tokens = item.image_tokens + (p.denoiser == Denoiser::unet ? 0 : item.text_tokens);
  item.passes = std::max<std::int64_t>(1, p.steps) * std::max<std::int64_t>(1, p.cfg_passes);
  // The text encoder runs once per image (its output is reused by every step and CFG pass) [SD3 §2].
  item.text_encoder_flops = 2.0 * p.text_encoder_params * d(item.text_tokens);
  item.vae_decode_flops = p.vae_decode_flops_per_pixel * d(p.width_px) * d(p.height_px);
  return item;
}

double dit_gemm_flops_per_token(const ModelSpec& m) {
  const double h = d(m.hidden_size);
  const double attention = 2.0 * h * d(m.heads + m.kv_heads) * d(m.head_dim); // q, k, v, o
  const double mlp = (m.ffn_gated ? 3.0 : 2.0) * h * d(m.ffn_size);
  return 2.0 * d(m.layers) * (attention + mlp);
}

double dit_attention_flops(const ModelSpec& m, double tokens) {
  return 4.0 * d(m.layers) * d(m.heads) * d(m.head_dim) * tokens * tokens;
}

double dit_attention_utilization(const std::string& architecture) {
  // torch SDPA's flash backend is FlashAttention-2 on both architectures (Hopper kernels are FA3's).
  if (architecture.rfind("Hopper", 0) == 0) return 0.35;       // [FA3]
  if (architecture.rfind("Ampere GA100", 0) == 0) return 0.73; // [FA2], its best case
  // No published figure (Ada, Blackwell, AMD): the lowest measured one, so a GPU without data never
  // runs attention faster than a measured sibling (methodology §3.7).
  return 0.35;
}

double dit_unfused_rw_per_token_block(const ModelSpec& m) {
  // A UNet counts its eager traffic per level (unet_unfused_bytes_per_pass), not per token.
  if (m.image.fused || m.image.denoiser == Denoiser::unet) return 0.0;
  // Counted per token in diffusers' eager blocks [DIFFUSERS-FLUX] (methodology §3.7 table): one unit
  // is one h-wide bf16 read or write; an fp32 tensor counts 2.
  constexpr double k_block = 38.0;   // LN + modulation ×2, GELU (4h), q/k/v concat, gates, residuals
  constexpr double k_qk_norm = 34.0; // RMSNorm in fp32 of q and of k: 17 each
  constexpr double k_rotary = 52.0;  // apply_rotary_emb in fp32 of q and of k: 26 each
  return k_block + (m.qk_norm ? k_qk_norm : 0.0) + (m.image.rotary_qk ? k_rotary : 0.0);
}

double dit_unfused_bytes_per_pass(const ModelSpec& m, double tokens, double bytes_per_value) {
  return dit_unfused_rw_per_token_block(m) * tokens * d(m.hidden_size) * d(m.layers) * bytes_per_value;
}

double unet_gemm_flops_per_pass(const ImagePipelineSpec& p) {
  return p.unet_gemm_flops_per_pixel * d(p.width_px) * d(p.height_px); // [DIFFUSERS-BENCH] per pixel
}

double unet_attention_flops_per_pass(const ImagePipelineSpec& p) {
  double flops = 0.0;
  const double text = d(std::max<std::int64_t>(0, p.text_tokens));
  for (const UnetAttentionLevel& level : p.unet_attention) {
    const double n = d(image_latent_tokens(p.width_px, p.height_px, level.pixels_per_token_side));
    // QKᵀ and PV over every pair of positions, then over every (position, text token) pair.
    flops += d(level.blocks) * 4.0 * d(level.channels) * (n * n + n * text);
  }
  return flops;
}

double unet_unfused_bytes_per_pass(const ImagePipelineSpec& p, double bytes_per_value) {
  if (p.fused) return 0.0;
  double values = 0.0;
  for (const UnetAttentionLevel& level : p.unet_attention) {
    const double n = d(image_latent_tokens(p.width_px, p.height_px, level.pixels_per_token_side));
    values += n * d(level.channels) *
              (k_unet_resnet_rw * d(level.resnets) + k_unet_transformer_block_rw * d(level.blocks));
  }
  return values * bytes_per_value;
}

double image_unfused_bytes_per_pass(const ModelSpec& m, double tokens, double bytes_per_value) {
  return m.image.denoiser == Denoiser::unet ? unet_unfused_bytes_per_pass(m.image, bytes_per_value)
                                            : dit_unfused_bytes_per_pass(m, tokens, bytes_per_value);
}

double image_flops(const ModelSpec& m, const ImageItem& item) {
  const double n = d(item.tokens);
  const double pass = m.image.denoiser == Denoiser::unet
                          ? unet_gemm_flops_per_pass(m.image) + unet_attention_flops_per_pass(m.image)
                          : dit_gemm_flops_per_token(m) * n + dit_attention_flops(m, n);
  return d(item.passes) * pass + item.text_encoder_flops + item.vae_decode_flops;
}

} // namespace rightsize
