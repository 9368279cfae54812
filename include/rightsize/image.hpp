#pragma once
// Image generation (DiT) workloads in images (docs/methodology.md §3.7 "Image generation"): the
// resolution sets the latent tokens, the steps and CFG passes the forward passes per image, and the
// text encoder and VAE decoder run once per image. Pure arithmetic; no I/O.
#include <cstdint>
#include <vector>

namespace rightsize {

struct ModelSpec;

/// What denoises the latents (model JSON image.denoiser): a transformer over latent patches (DiT:
/// FLUX.1, SD3) or a convolutional UNet with transformer blocks at some of its scales (SDXL).
enum class Denoiser { dit, unet };

/// One scale of a UNet (methodology §3.7 "UNet denoiser"): every transformer block there
/// self-attends over the latent positions of that scale and cross-attends to the text; its resnet
/// blocks count only for the eager elementwise traffic.
struct UnetAttentionLevel {
  std::int64_t pixels_per_token_side = 0; ///< output pixels per position along one side (SDXL: 8, 16, 32)
  std::int64_t blocks = 0;                ///< transformer blocks at this scale (SDXL: 0, 10, 60)
  std::int64_t channels = 0;              ///< heads × head dim (SDXL: 320, 640, 1280)
  std::int64_t resnets = 0;               ///< ResnetBlock2D blocks, down + mid + up (SDXL: 5, 5, 7)
};

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
  /// Rotary position embedding on q and k in every block (FLUX.1; SD3 has none): its fp32 chain
  /// adds to the unfused traffic (dit_unfused_rw_per_token_block).
  bool rotary_qk = false;
  /// The pipeline runs compiled (torch.compile, TensorRT): the elementwise chains between the GEMMs
  /// are fused, so no unfused traffic is counted. false = eager PyTorch (the diffusers default).
  bool fused = false;
  Denoiser denoiser = Denoiser::dit;
  /// UNet only: the convolution and linear-layer FLOPs of one denoiser pass per output pixel, the
  /// attention's score and value products left out (SDXL: 5,979 GFLOPs at 1024², [DIFFUSERS-BENCH]).
  double unet_gemm_flops_per_pixel = 0.0;
  /// UNet only: the scales at which its transformer blocks run.
  std::vector<UnetAttentionLevel> unet_attention;
};

/// What a workload asks of an image model; 0 = the model's default.
struct ImageRequest {
  std::int64_t width_px = 0;
  std::int64_t height_px = 0;
  std::int64_t steps = 0;
  std::int64_t cfg_passes = 0;
  int fused = -1; ///< -1 the model's default, 0 eager, 1 compiled (torch.compile / TensorRT)
};

/// One image's work (methodology §3.7).
struct ImageItem {
  std::int64_t image_tokens = 0; ///< ⌈W/p⌉·⌈H/p⌉ latent tokens
  std::int64_t text_tokens = 0;
  std::int64_t tokens = 0;         ///< image + text tokens one DiT pass sees (a UNet: image only)
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

/// h-wide 16-bit reads + writes per token per block that an eager (unfused) pipeline spends outside
/// the GEMMs and attention (methodology §3.7 "Unfused traffic"), counted from diffusers' MMDiT
/// blocks: 38 for LayerNorms, modulation, GELU, joint concatenations, gates and residuals, + 34 for
/// an fp32 RMSNorm of q and k (model qk_norm), + 52 for the fp32 rotary embedding of q and k
/// (image.rotary_qk). 0 when the pipeline is fused (image.fused).
double dit_unfused_rw_per_token_block(const ModelSpec& model);

/// Bytes of that unfused traffic in one pass over n tokens: rw · n · h · L · bytes per value.
double dit_unfused_bytes_per_pass(const ModelSpec& model, double tokens, double bytes_per_value);

/// UNet convolution + linear FLOPs of one pass: f_unet · W · H (methodology §3.7 "UNet denoiser").
double unet_gemm_flops_per_pass(const ImagePipelineSpec& pipeline);

/// UNet attention FLOPs of one pass: Σ over its levels of blocks · (4·n²·C + 4·n·T·C), n = ⌈W/p⌉·⌈H/p⌉
/// positions at that level's p, T text tokens (self-attention over every pair, cross-attention to
/// the text: QKᵀ and PV each 2 FLOPs per multiply-add).
double unet_attention_flops_per_pass(const ImagePipelineSpec& pipeline);

/// Channel-wide 16-bit reads + writes per latent position that an eager (unfused) UNet spends
/// outside its convolutions, linear layers and attention, counted from diffusers' blocks
/// (methodology §3.7 "UNet denoiser", [DIFFUSERS-UNET]): per ResnetBlock2D 15 (GroupNorm, SiLU,
/// + time embedding, GroupNorm, SiLU, residual add, output scale), per BasicTransformerBlock 43
/// (3 LayerNorms, 2 attention-output reshapes and rescales, 3 residual adds, GEGLU's GELU and
/// product over 4C).
inline constexpr double k_unet_resnet_rw = 15.0;
inline constexpr double k_unet_transformer_block_rw = 43.0;

/// Bytes of that traffic in one UNet pass: Σ_levels n·C·(15·resnets + 43·blocks)·bytes per value,
/// n = ⌈W/p⌉·⌈H/p⌉ positions at the level's p; 0 when the pipeline is fused (image.fused).
double unet_unfused_bytes_per_pass(const ImagePipelineSpec& pipeline, double bytes_per_value);

/// The unfused bytes of one pass of an image model over n tokens: the UNet's count for a UNet,
/// the DiT's (dit_unfused_bytes_per_pass) otherwise.
double image_unfused_bytes_per_pass(const ModelSpec& model, double tokens, double bytes_per_value);

/// FLOPs of one image: passes × (GEMM + attention) + text encoder + VAE decode.
double image_flops(const ModelSpec& model, const ImageItem& item);

} // namespace rightsize
