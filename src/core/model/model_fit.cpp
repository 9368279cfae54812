// Weight bytes by precision and the architecture fitted to a bare parameter count.
#include <array>
#include <cmath>
#include <string>

#include "rightsize/model.hpp"
#include "rightsize/text.hpp"

namespace rightsize {
namespace {

using i64 = std::int64_t;

// Plain float formats store every tensor alike; GGUF bits-per-weight figures are whole-file mixes
// that already include the higher-precision embedding and head (methodology §2.2, [GGUF]).
bool stores_everything_alike(NumberFormat format) {
  switch (format) {
  case NumberFormat::fp32:
  case NumberFormat::bf16:
  case NumberFormat::fp16:
  case NumberFormat::gguf_q8_0:
  case NumberFormat::gguf_q6_k:
  case NumberFormat::gguf_q5_k_m:
  case NumberFormat::gguf_q4_k_m:
  case NumberFormat::gguf_q4_0: return true;
  default: return false;
  }
}

// Dense (layers, hidden) shapes of published Llama-family checkpoints, read from their
// config.json files: Llama-3.2-1B, Llama-3.2-3B, Llama-3.1-8B, Llama-2-13B, Qwen2.5-14B,
// Qwen2.5-32B, Llama-3.1-70B, Mistral-Large-2407 (88 x 12288) and Llama-3.1-405B.
struct Shape {
  i64 layers;
  i64 hidden;
  const char* like;
};
constexpr std::array<Shape, 9> k_shapes{{
    {16, 2048, "Llama-3.2-1B"},
    {28, 3072, "Llama-3.2-3B"},
    {32, 4096, "Llama-3.1-8B"},
    {40, 5120, "Llama-2-13B"},
    {48, 5120, "Qwen2.5-14B"},
    {64, 5120, "Qwen2.5-32B"},
    {80, 8192, "Llama-3.1-70B"},
    {88, 12288, "Mistral-Large-2407"},
    {126, 16384, "Llama-3.1-405B"},
}};

ModelSpec llama_like(const Shape& shape) {
  ModelSpec m;
  m.layers = shape.layers;
  m.hidden_size = shape.hidden;
  m.head_dim = 128;
  m.heads = shape.hidden / 128;
  m.kv_heads = 8;
  // SwiGLU width 3.5·h rounded to a multiple of 256 (Llama-3 8B/70B use exactly 3.5·h).
  m.ffn_size = (shape.hidden * 7 / 2 + 128) / 256 * 256;
  m.ffn_gated = true;
  m.vocab_size = 128256;
  m.tied_embeddings = false;
  m.attention.kind = AttentionKind::gqa;
  return m;
}

} // namespace

double embedding_bytes_per_param(const ModelSpec& model, const Precision& precision) {
  // GPTQ/AWQ, bitsandbytes, ModelOpt FP8 and MXFP4 checkpoints keep the embedding and LM head in
  // 16-bit (methodology §2.2: "Always apply the skip list").
  if (!model.keep_embeddings_16bit || stores_everything_alike(precision.weights)) {
    return precision.weight_bytes_per_param();
  }
  return 2.0;
}

double weight_bytes(const ModelSpec& model, const Precision& precision) {
  if (model.checkpoint_weight_bytes > 0) return static_cast<double>(model.checkpoint_weight_bytes);
  const ParamCounts c = count_params(model);
  // The vision tower stays 16-bit like the embeddings: the quantizers skip it (methodology §1.6).
  const i64 embedding_params = c.embedding + c.lm_head + c.vision;
  const i64 linear = c.total > embedding_params ? c.total - embedding_params : 0;
  return static_cast<double>(linear) * precision.weight_bytes_per_param() +
         static_cast<double>(embedding_params) * embedding_bytes_per_param(model, precision);
}

FittedArchitecture fit_dense_architecture(i64 params) {
  FittedArchitecture fit;
  const Shape* best = &k_shapes.front();
  double best_distance = INFINITY;
  for (const Shape& shape : k_shapes) {
    const double count = static_cast<double>(count_params(llama_like(shape)).total);
    const double distance = std::fabs(std::log(count / static_cast<double>(params)));
    if (distance < best_distance) {
      best_distance = distance;
      best = &shape;
    }
  }
  fit.model = llama_like(*best);
  fit.model.params_override = params;
  const ModelSpec& m = fit.model;
  ModelSpec plain = m;
  plain.params_override = 0;
  const i64 fitted_total = count_params(plain).total;
  fit.assumptions = {
      "only a parameter count was given: fitted a dense Llama-like decoder with the shape of " +
          std::string(best->like) + " (" + std::to_string(m.layers) + " layers, hidden " +
          std::to_string(m.hidden_size) + ")",
      "fitted attention: GQA with 8 KV heads, head_dim 128, " + std::to_string(m.heads) + " query heads",
      "fitted FFN: gated (SwiGLU), width " + std::to_string(m.ffn_size) + " (3.5 x hidden, rounded to 256)",
      "fitted vocabulary: 128256 tokens, untied embedding and LM head",
      "parameter count reported as given: " + with_commas(params) + " (the fitted shape itself has " +
          with_commas(fitted_total) + ")",
  };
  return fit;
}

const char* to_string(NormKind kind) {
  return kind == NormKind::rms ? "rms" : "layer";
}

} // namespace rightsize
