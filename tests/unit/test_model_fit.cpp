// Core additions for the spec layer: weight bytes by precision, the params-only fit, new count terms.
#include <catch2/catch.hpp>

#include "rightsize/model.hpp"
#include "rightsize/units.hpp"

using namespace rightsize;

namespace {

ModelSpec llama31_8b_model_fit() {
  ModelSpec m;
  m.layers = 32;
  m.hidden_size = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_size = 14336;
  m.vocab_size = 128256;
  return m;
}

} // namespace

TEST_CASE("weight bytes follow methodology §2.2 worked examples for Llama-3.1-8B", "[core]") {
  const ModelSpec m = llama31_8b_model_fit();
  // BF16 16.06 GB; FP8 with 16-bit embedding/head 9.08 GB; INT4 g128 (4.156 b) 5.73 GB.
  CHECK(weight_bytes(m, precision_from_shorthand(NumberFormat::bf16)) == 2.0 * 8'030'261'248);
  CHECK(weight_bytes(m, precision_from_shorthand(NumberFormat::fp8)) / k_bytes_per_gb ==
        Approx(9.08).epsilon(0.001));
  CHECK(weight_bytes(m, precision_from_shorthand(NumberFormat::int4_awq)) / k_bytes_per_gb ==
        Approx(5.73).epsilon(0.002));
  // GGUF figures are whole-file mixes: everything at the format's bits.
  CHECK(weight_bytes(m, precision_from_shorthand(NumberFormat::gguf_q4_k_m)) ==
        Approx(8'030'261'248 * 4.84 / 8));
  ModelSpec from_checkpoint = m;
  from_checkpoint.checkpoint_weight_bytes = 123;
  CHECK(weight_bytes(from_checkpoint, Precision{}) == 123.0);
}

TEST_CASE("a bare parameter count fits the nearest published dense shape", "[core]") {
  const FittedArchitecture f8 = fit_dense_architecture(8'000'000'000);
  CHECK(f8.model.layers == 32);
  CHECK(f8.model.hidden_size == 4096);
  CHECK(f8.model.ffn_size == 14336); // 3.5 x 4096
  CHECK(count_params(f8.model).total == 8'000'000'000);
  const FittedArchitecture f70 = fit_dense_architecture(70'000'000'000);
  CHECK(f70.model.layers == 80);
  CHECK(f70.model.kv_heads == 8);
  CHECK(fit_dense_architecture(400'000'000'000).model.layers == 126);
  CHECK(fit_dense_architecture(1'000'000'000).model.layers == 16);
  CHECK(f8.assumptions.size() == 5);
}

TEST_CASE("count terms for GPT-J and gpt-oss layouts", "[core]") {
  // GPT-J-6B: one LayerNorm per layer, biased MLP, LM head bias (model card: 6,053,381,344).
  ModelSpec j;
  j.layers = 28;
  j.hidden_size = 4096;
  j.heads = 16;
  j.kv_heads = 16;
  j.head_dim = 256;
  j.ffn_size = 16384;
  j.ffn_gated = false;
  j.vocab_size = 50400;
  j.norm = NormKind::layer;
  j.norms_per_layer = 1;
  j.mlp_bias = true;
  j.lm_head_bias = true;
  // Per layer 4h² + (2·h·4h + 4h + h) + 2h = 201,355,264; embedding and head 2·V·h + V; final norm 2h.
  CHECK(count_params(j).total == 28LL * 201'355'264 + 2LL * 50400 * 4096 + 50400 + 2LL * 4096);
  // Attention sinks add one parameter per head per layer.
  ModelSpec s = llama31_8b_model_fit();
  const std::int64_t before = count_params(s).total;
  s.attention_sinks = true;
  CHECK(count_params(s).total == before + std::int64_t{32} * 32);
}
