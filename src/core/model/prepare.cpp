// PreparedModel: everything per (model, precision) that the per-deployment estimate needs, so the
// hot path is arithmetic only.
#include <algorithm>

#include "core/numeric.hpp"
#include "rightsize/image.hpp"
#include "rightsize/inference.hpp"

namespace rightsize {
namespace {

using core::d;

// Weight bytes by kind (methodology §2.2): the fitted layers scaled to a bare parameter count, the
// embeddings and the vision tower at 16 bits, all rescaled to a checkpoint's measured total.
void prepare_weights(PreparedModel& pm, const ModelSpec& m, const Precision& precision) {
  const ParamCounts& c = pm.params;
  const double b_w = precision.weight_bytes_per_param();
  const double b_embed = embedding_bytes_per_param(m, precision);
  const double expert_params = d(c.moe_layers) * d(m.moe.experts) * d(c.expert_params);
  ModelSpec unscaled = m; // prepare_model runs once per spec, not in the hot path
  unscaled.params_override = 0;
  const double raw_total = d(count_params(unscaled).total);
  // A bare parameter count scales the fitted layers to the user's figure (embeddings stay as fitted).
  const double embed_params = d(c.embedding) + d(c.lm_head);
  const double body_scale = (m.params_override > 0 && raw_total > embed_params)
                                ? (d(c.total) - embed_params) / (raw_total - embed_params)
                                : 1.0;
  const double vision_params = d(c.vision);
  const double layer_params = (raw_total - embed_params - expert_params - vision_params) * body_scale;

  pm.embedding_bytes = d(c.embedding) * b_embed;
  pm.lm_head_bytes = d(c.lm_head) * b_embed;
  pm.layer_weight_bytes = std::max(0.0, layer_params) * b_w;
  pm.expert_weight_bytes = expert_params * body_scale * b_w;
  pm.bytes_per_expert = d(c.expert_params) * body_scale * b_w;
  // The vision tower stays 16-bit like the embeddings (the quantizers' skip lists, methodology §1.6).
  pm.vision_weight_bytes = vision_params * b_embed;
  pm.weight_bytes_total = pm.embedding_bytes + pm.lm_head_bytes + pm.layer_weight_bytes +
                          pm.expert_weight_bytes + pm.vision_weight_bytes;
  if (m.checkpoint_weight_bytes > 0 && pm.weight_bytes_total > 0.0) {
    // Exact bytes from safetensors headers: keep the split, rescale to the measured total.
    const double s = d(m.checkpoint_weight_bytes) / pm.weight_bytes_total;
    pm.embedding_bytes *= s;
    pm.lm_head_bytes *= s;
    pm.layer_weight_bytes *= s;
    pm.expert_weight_bytes *= s;
    pm.bytes_per_expert *= s;
    pm.vision_weight_bytes *= s;
    pm.weight_bytes_total = d(m.checkpoint_weight_bytes);
  }
}

// Element sizes and the KV cache: only attention layers hold KV; linear-attention layers hold a
// fixed state per sequence (methodology §2.3).
void prepare_kv(PreparedModel& pm, const ModelSpec& m, const Precision& precision) {
  pm.kv_bytes_per_element = precision.kv_bytes_per_element();
  pm.activation_bytes = precision.activation_bytes_per_element();
  pm.residual_bytes = std::max(2.0, pm.activation_bytes);
  pm.math = precision.math_dtype();
  const std::int64_t kv_layers = attention_layers(m);
  if (kv_layers > 0)
    pm.kv_bytes_per_token_layer = kv_cache_bytes_per_token(m, pm.kv_bytes_per_element) / d(kv_layers);
  if (m.attention.sliding_window > 0) {
    pm.sliding_layers = std::min(
        kv_layers, m.attention.sliding_window_layers > 0 ? m.attention.sliding_window_layers : kv_layers);
  }
  pm.full_attention_layers = kv_layers - pm.sliding_layers;
  // The causal-conv state stays in the model's 16-bit dtype whatever the weight or activation format.
  pm.linear_state_bytes_per_sequence = linear_state_bytes_per_sequence(m, 2.0);
  pm.linear_state_shards = d(m.linear_attention.kind == LinearKind::mamba ? m.linear_attention.inner_size
                                                                          : m.linear_attention.value_heads);
}

// FLOPs per token of the GEMMs, the LM head, the vision tower, the routed experts and attention
// (methodology §4.1, §4.3), and the activation width.
void prepare_flops(PreparedModel& pm, const ModelSpec& m) {
  const ParamCounts& c = pm.params;
  pm.mm_flops_per_token = 2.0 * d(c.mm_active);
  pm.head_flops_per_token = 2.0 * d(m.vocab_size) * d(m.hidden_size);
  const VisionRequest images = vision_request(m.vision);
  pm.vision_flops_per_request = images.encoder_flops;
  pm.vision_image_tokens_per_request = images.image_tokens;
  // The routed experts' share: 2·k·N_expert per MoE layer (grouped GEMMs, methodology §4.3).
  pm.expert_flops_per_token = 2.0 * d(m.moe.experts_per_token) * d(c.expert_params) * d(c.moe_layers);
  // Attention per query-key pair per layer (methodology §4.1): QKᵀ 2·n_h·d_qk + softmax·V 2·n_h·d_v.
  if (m.attention.kind == AttentionKind::mla) {
    const auto& a = m.attention;
    pm.attention_flops_per_pair = 2.0 * d(m.heads) * d(a.qk_nope_head_dim + a.rope_head_dim + a.v_head_dim);
  } else {
    pm.attention_flops_per_pair = 4.0 * d(m.heads) * d(m.head_dim);
  }
  const double moe_width =
      d(m.moe.experts_per_token * m.moe.expert_ffn_size +
        m.moe.shared_experts *
            (m.moe.shared_expert_ffn_size > 0 ? m.moe.shared_expert_ffn_size : m.moe.expert_ffn_size));
  pm.ffn_width_for_activations =
      std::max(m.moe.experts > 0 && m.moe.dense_layers == 0 ? 0.0 : d(m.ffn_size), moe_width);
}

// A DiT's per-token GEMMs follow from its block layout, not from 2·params: the adaLN modulation
// weights run once per pass on the conditioning vector (methodology §3.7).
void prepare_image(PreparedModel& pm, const ModelSpec& m, const Precision& precision) {
  pm.mm_flops_per_token = dit_gemm_flops_per_token(m);
  pm.head_flops_per_token = 0.0;
  const ImageItem item = image_item(m.image);
  if (m.image.denoiser == Denoiser::unet) {
    // A UNet's convolutions and linear layers from its measured per-pixel count, spread over its
    // latent positions (the rows of its implicit GEMMs); attention from its levels (§3.7).
    pm.unet = true;
    pm.mm_flops_per_token =
        item.image_tokens > 0 ? unet_gemm_flops_per_pass(m.image) / d(item.image_tokens) : 0.0;
    pm.unet_attention_flops_per_pass = unet_attention_flops_per_pass(m.image);
  }
  if (m.image.pixels_per_token_side > 0) {
    pm.image_fixed_flops = item.text_encoder_flops + item.vae_decode_flops;
    // The text encoder stays resident at the weights' bytes per parameter (diffusers pipe.to("cuda")).
    pm.image_encoder_weight_bytes = m.image.text_encoder_params * precision.weight_bytes_per_param();
  }
}

} // namespace

PreparedModel prepare_model(const ModelSpec& m, const Precision& precision) {
  PreparedModel pm;
  pm.model = m;
  pm.precision = precision;
  pm.params = count_params(m);
  prepare_weights(pm, m, precision);
  prepare_kv(pm, m, precision);
  prepare_flops(pm, m);
  if (m.kind == ModelKind::dit) prepare_image(pm, m, precision);
  return pm;
}

// A draft model's shape (methodology §3.8): its whole weights, its matmul FLOPs per token and its KV
// per token over every attention layer (a sliding window's layers kept whole: draft models are small
// dense decoders with short contexts), from the same preparation as any served model.
DraftModel draft_model_of(const ModelSpec& model, const Precision& precision) {
  const PreparedModel pm = prepare_model(model, precision);
  DraftModel d;
  d.weight_bytes = pm.weight_bytes_total;
  d.flops_per_token = pm.mm_flops_per_token;
  d.kv_bytes_per_token =
      pm.kv_bytes_per_token_layer * static_cast<double>(pm.full_attention_layers + pm.sliding_layers);
  d.layers = static_cast<double>(model.layers);
  d.kv_heads = static_cast<double>(model.kv_heads);
  return d;
}

} // namespace rightsize
