#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "rightsize/image.hpp"
#include "rightsize/precision.hpp"
#include "rightsize/vision.hpp"

namespace rightsize {

/// Family of network the first-order model describes.
enum class ModelKind : std::uint8_t { decoder, dit, vit };
/// Attention variant: it decides KV-cache size and TP sharding (methodology §2.3).
enum class AttentionKind : std::uint8_t { mha, gqa, mqa, mla };
/// Normalisation layers: RMSNorm has h parameters, LayerNorm 2h.
enum class NormKind : std::uint8_t { rms, layer };

/// Mixture-of-experts block (methodology §1.3). `experts == 0` means a dense model.
struct MoeSpec {
  std::int64_t experts = 0;                ///< routed experts E
  std::int64_t experts_per_token = 0;      ///< k
  std::int64_t shared_experts = 0;         ///< E_s
  std::int64_t expert_ffn_size = 0;        ///< I_e, routed-expert FFN width
  std::int64_t shared_expert_ffn_size = 0; ///< I_s (0 = same as expert_ffn_size)
  std::int64_t dense_layers = 0;           ///< leading layers with a dense FFN (DeepSeek first_k_dense)
  bool shared_expert_gate = false;         ///< Qwen2-MoE h x 1 shared-expert gate
  bool router_bias = false;                ///< router has E bias terms (gpt-oss)
  bool expert_bias = false;                ///< expert linear layers carry biases (gpt-oss)
};

/// Attention details beyond head counts.
struct AttentionSpec {
  AttentionKind kind = AttentionKind::gqa;
  std::int64_t q_lora_rank = 0;           ///< MLA query low-rank (0 = no q compression)
  std::int64_t kv_lora_rank = 0;          ///< MLA latent width
  std::int64_t qk_nope_head_dim = 0;      ///< MLA non-RoPE query/key head dim
  std::int64_t rope_head_dim = 0;         ///< MLA decoupled RoPE head dim
  std::int64_t v_head_dim = 0;            ///< MLA value head dim
  std::int64_t sliding_window = 0;        ///< tokens a sliding layer attends to (0 = none)
  std::int64_t sliding_window_layers = 0; ///< how many of the layers use the sliding window
  /// Gated attention (Qwen3-Next, Qwen3.5): q_proj also emits a sigmoid output gate, h x 2·h_q.
  bool output_gate = false;
  /// q/k RMSNorm over the whole projection (h_q and h_kv weights, MiniMax-M2 `qk_norm_type`
  /// per_layer) instead of per head (2·d_h weights, Qwen3). Only with ModelSpec::qk_norm.
  bool qk_norm_per_layer = false;
  std::int64_t index_heads = 0;    ///< DeepSeek-V3.2 / GLM-5 sparse-attention indexer heads (0 = none)
  std::int64_t index_head_dim = 0; ///< indexer head dim: one more cached key of this width per token
};

/// Recurrent token mixer of the linear-attention layers.
enum class LinearKind : std::uint8_t { gated_deltanet, mamba };

/// Linear-attention / state-space layers (gated DeltaNet: Qwen3-Next, Qwen3.5; Mamba-1: Jamba). They
/// keep a fixed recurrent state per sequence instead of a KV cache that grows with the context
/// (methodology §1.5, §2.3).
struct LinearAttentionSpec {
  LinearKind kind = LinearKind::gated_deltanet;
  std::int64_t layers = 0;                  ///< layers with linear attention; the rest use full attention
  std::int64_t inner_size = 0;              ///< Mamba d_inner (expand·h)
  std::int64_t state_size = 0;              ///< Mamba d_state N
  std::int64_t dt_rank = 0;                 ///< Mamba time-step rank r
  bool conv_bias = false;                   ///< Mamba conv1d bias (mamba_conv_bias)
  bool proj_bias = false;                   ///< Mamba in/out projection biases (mamba_proj_bias)
  std::int64_t key_heads = 0;               ///< n_k
  std::int64_t value_heads = 0;             ///< n_v
  std::int64_t key_head_dim = 0;            ///< d_k
  std::int64_t value_head_dim = 0;          ///< d_v
  std::int64_t conv_kernel = 0;             ///< K, width of the short causal convolution
  std::int64_t state_bytes_per_element = 2; ///< recurrent state dtype (4 for mamba_ssm_dtype float32)
};

/// A resolved model architecture (methodology §1.1). Counts are exact integers.
struct ModelSpec {
  std::string name;
  /// The Hugging Face repository of a preset's checkpoint ("meta-llama/Llama-3.1-8B"); empty when
  /// the model did not come from a preset. What --emit serves when --model-path is not given.
  std::string hf_id;
  ModelKind kind = ModelKind::decoder;
  std::int64_t layers = 0;      ///< L
  std::int64_t hidden_size = 0; ///< h
  std::int64_t heads = 0;       ///< n_h
  std::int64_t kv_heads = 0;    ///< n_kv
  std::int64_t head_dim = 0;    ///< d_h
  std::int64_t ffn_size = 0;    ///< I (dense FFN)
  bool ffn_gated = true;        ///< SwiGLU/GeGLU (3 matrices) vs plain (2)
  std::int64_t vocab_size = 0;  ///< V
  bool tied_embeddings = false;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false; ///< per-head q/k RMSNorm (Qwen3)
  NormKind norm = NormKind::rms;
  /// Norm layers per transformer layer: 2 for pre-norm decoders, 1 for GPT-J / Falcon-7B parallel
  /// blocks, 4 for Gemma-2/3 (pre and post norms around attention and FFN).
  std::int64_t norms_per_layer = 2;
  bool lm_head_bias = false;     ///< LM head carries V bias terms (GPT-J)
  bool attention_sinks = false;  ///< one learned sink logit per head per layer (gpt-oss)
  std::int64_t max_position = 0; ///< default context limit (0 = unknown)
  /// Multi-token-prediction modules the checkpoint ships beside its layers (DeepSeek-V3's
  /// num_nextn_predict_layers [DSV3] §2.2); not counted in the parameters. 0: none, so the model
  /// cannot draft with `mtp` (methodology §3.8).
  std::int64_t mtp_layers = 0;
  MoeSpec moe;
  AttentionSpec attention;
  LinearAttentionSpec linear_attention;

  /// Set when only a parameter count was given: the architecture above was fitted to it and
  /// total params is reported as this number.
  std::int64_t params_override = 0;
  /// Exact weight bytes from checkpoint headers (0 = compute from the format).
  std::int64_t checkpoint_weight_bytes = 0;
  /// Linear-layer weights quantized by the weight format; embeddings and LM head stay 16-bit
  /// (GPTQ/AWQ/bnb/ModelOpt skip lists, methodology §2.2). False = everything in the weight format.
  bool keep_embeddings_16bit = true;

  /// DiT/ViT: tokens one item (image) is processed as, and forward passes per item.
  std::int64_t tokens_per_item = 0;
  std::int64_t passes_per_item = 1; ///< DiT denoising steps x (1 + CFG passes)
  /// DiT: the image pipeline (resolution, steps, CFG, text encoder, VAE). When it is given
  /// (pixels_per_token_side > 0) tokens_per_item and passes_per_item are derived from it
  /// (methodology §3.7).
  ImagePipelineSpec image;
  /// Vision-language models: the vision tower (ViT + projector) and the images each request carries
  /// (methodology §1.6). vision.layers == 0: a text-only model.
  VisionTowerSpec vision;
};

/// Parameter counts derived from a ModelSpec (methodology §1.2, §1.3).
struct ParamCounts {
  std::int64_t total = 0;                   ///< all parameters
  std::int64_t active = 0;                  ///< parameters touched per token (MoE: k routed + shared)
  std::int64_t embedding = 0;               ///< input embedding V·h
  std::int64_t lm_head = 0;                 ///< V·h when untied, else 0
  std::int64_t per_layer_attention = 0;     ///< attention block of one layer
  std::int64_t dense_ffn_per_layer = 0;     ///< dense FFN of one dense layer
  std::int64_t expert_params = 0;           ///< one routed expert's FFN
  std::int64_t moe_nonexpert_per_layer = 0; ///< shared experts + router of one MoE layer
  std::int64_t norms_total = 0;             ///< all norm weights
  std::int64_t mm_active = 0;  ///< GEMM weights used per token, incl. LM head, excl. embedding (N_mm)
  std::int64_t moe_layers = 0; ///< layers with an MoE FFN
  /// Vision tower (encoder + projector), included in total but not in active: it runs once per
  /// image, not per token (methodology §1.6).
  std::int64_t vision = 0;
};

/// Counts parameters of a model. Pure; assumes a validated spec.
ParamCounts count_params(const ModelSpec& model);

/// count_params' total in double arithmetic (the same formula, no integer overflow): what io checks
/// against its size limit before the exact count runs.
double params_upper_bound(const ModelSpec& model);

/// KV-cache bytes per token for the whole model at `kv_bytes_per_element`, all attention layers
/// holding the token (methodology §2.3): 2·L_att·n_kv·d_h·b for MHA/GQA/MQA,
/// L_att·(kv_lora_rank + rope + index_head_dim)·b for MLA. Linear-attention layers hold no KV.
double kv_cache_bytes_per_token(const ModelSpec& model, double kv_bytes_per_element);

/// Layers that attend with softmax attention and so hold a KV cache: all but the linear-attention
/// layers (methodology §2.3).
std::int64_t attention_layers(const ModelSpec& model);

/// Fixed per-sequence state of the linear-attention layers, independent of the context
/// (methodology §2.3, [VLLM-SRC] mamba_utils): gated DeltaNet
/// L_lin·(n_v·d_k·d_v·b_state + (K − 1)·(2·n_k·d_k + n_v·d_v)·b_conv), Mamba-1
/// L_lin·(d_inner·N·b_state + (K − 1)·d_inner·b_conv).
double linear_state_bytes_per_sequence(const ModelSpec& model, double conv_bytes_per_element);

/// Bytes per parameter of the input embedding and LM head at `precision`: 2 (16-bit, the
/// quantizers' skip lists) unless the format stores every tensor alike (plain floats, GGUF mixes)
/// or `keep_embeddings_16bit` is off (methodology §2.2).
double embedding_bytes_per_param(const ModelSpec& model, const Precision& precision);

/// Weight bytes of the model at `precision` (methodology §2.2): the checkpoint's bytes when known;
/// else linear layers at `precision.weight_bytes_per_param()` and, when `keep_embeddings_16bit` and
/// the format is neither a plain float format nor a GGUF whole-file mix, embedding + LM head at
/// 2 bytes per parameter. Pure; assumes a validated spec.
double weight_bytes(const ModelSpec& model, const Precision& precision);

/// A Llama-like architecture fitted to a bare parameter count, and the assumptions made.
struct FittedArchitecture {
  ModelSpec model;                      ///< params_override holds the requested count
  std::vector<std::string> assumptions; ///< one sentence per assumption, for the user
};

/// Fits a dense Llama-like decoder to `params` (> 0): (layers, hidden) from a table of published
/// dense shapes (the one whose count is nearest in ratio), GQA with 8 KV heads, head_dim 128,
/// gated FFN 3.5·h rounded to 256, vocabulary 128256, untied embeddings.
FittedArchitecture fit_dense_architecture(std::int64_t params);

/// Text for enums, as used in specs and output.
const char* to_string(ModelKind kind);
const char* to_string(AttentionKind kind);
const char* to_string(NormKind kind);
const char* to_string(LinearKind kind);

} // namespace rightsize
